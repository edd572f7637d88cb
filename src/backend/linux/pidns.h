/* src/backend/linux/pidns.h — the run's processes: supervisor, init, command (docs/linux-sandbox.md, "Processes") */
#ifndef CORDON_LINUX_PIDNS_H
#define CORDON_LINUX_PIDNS_H
#include "backend/linux/limits.h"
#include "backend/linux/linux.h"

#include <signal.h>

typedef struct {
  int report_fd;                 /* init -> supervisor: the command's raw wait status (close-on-exec) */
  sigset_t caller_mask;          /* the signal mask and SIGCHLD action cordon was started with */
  struct sigaction caller_chld;
  const cordon_lx_limits *limits;     /* the supervisor releases the run's cgroup (limits.h) when it ends */
  cordon_lx_limits_run *limits_run;
  const cordon_lx_plan *gate_plan;    /* the plan whose gate init serves, or NULL: no gate */
  int handoff[2];                     /* init's end, the command's: its listener, then init's go-ahead */
} cordon_lx_pidns;

/* Call inside the run's user and mount namespaces: unshares the PID namespace and forks its init.
 * Returns CORDON_LX_OK in init (which dies with the supervisor: PR_SET_PDEATHSIG). The supervisor never
 * returns once init exists. */
cordon_lx_status cordon_lx_pidns_enter(cordon_lx_pidns *ns, cordon_buf *msg);

/* Call in init, the sandbox applied to itself: forks the command and returns CORDON_LX_OK in it (the
 * caller applies the command's own steps and execs). Init itself never returns from a successful fork:
 * with `gate_plan` it makes the gate (gate.h) while the command loads its gate filter, then serves it. */
cordon_lx_status cordon_lx_pidns_spawn(cordon_lx_pidns *ns, const cordon_lx_plan *gate_plan, cordon_buf *msg);

/* In the command, its gate filter loaded: hands the filter's listener to init (closing it here) and waits
 * until init has attached it to the gate. Any failure: the command must not exec. */
cordon_lx_status cordon_lx_pidns_hand_listener(cordon_lx_pidns *ns, int listener, cordon_buf *msg);
#endif
