/* src/backend/linux/pidns.h — `--private-proc`: a PID namespace with its own procfs.
 *
 * Landlock rights sit on inodes, and /proc/self is another directory in every process: a grant on the
 * planning process's own /proc/<pid> reaches none of its children. A PID namespace whose fresh procfs
 * shows only the sandbox's processes can be granted whole instead. Three processes then take part:
 *
 *   supervisor  cordon itself, outside: waits, forwards the signals a user sends it, and ends exactly as
 *               the command ended (the same exit code, or killed by the same signal);
 *   init        pid 1 of the namespace: mounts the procfs, applies the rest of the sandbox, forks the
 *               command, reaps every orphan, forwards signals, and reports the command's wait status;
 *   command     pid 2: execs.
 * Opt-in: it costs two forks on every run (docs/linux-backend.md, "Private /proc"). */
#ifndef CORDON_LINUX_PIDNS_H
#define CORDON_LINUX_PIDNS_H
#include "backend/linux/linux.h"

#include <signal.h>

/* What init keeps for the command it forks. */
typedef struct {
  int report_fd;                 /* init -> supervisor: the command's raw wait status (close-on-exec) */
  sigset_t caller_mask;          /* the signal mask and SIGCHLD action cordon was started with */
  struct sigaction caller_chld;
} cordon_lx_pidns;

/* Call inside the new mount (and user) namespace: unshares the PID namespace and forks its init. Returns
 * CORDON_LX_OK in init, once a fresh procfs is mounted on /proc (nosuid, nodev, noexec), with mounts made
 * private first so it never reaches the host; init dies with the supervisor (PR_SET_PDEATHSIG). The
 * supervisor never returns once init exists. A failure returns with `msg` set, in cordon before the fork
 * or in init after it (init then exits 125 like cordon would, and the supervisor with it); either way
 * nothing was run. */
cordon_lx_status cordon_lx_pidns_enter(cordon_lx_pidns *ns, cordon_buf *msg);

/* Call in init, sandbox fully applied: forks the command and returns CORDON_LX_OK in it (the caller
 * execs). Init itself never returns from a successful fork: it supervises and exits. */
cordon_lx_status cordon_lx_pidns_spawn(const cordon_lx_pidns *ns, cordon_buf *msg);
#endif
