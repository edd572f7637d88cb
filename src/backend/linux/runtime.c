/* src/backend/linux/runtime.c — apply a plan, then exec (docs/linux-sandbox.md, "Processes") */
#include "backend/linux/landlock.h"
#include "backend/linux/limits.h"
#include "backend/linux/pidns.h"
#include "backend/linux/procsetup.h"
#include "backend/linux/seccomp.h"
#include "backend/linux/view.h"
#include "core/exec_search.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static bool write_file(const char *path, const char *text, cordon_buf *msg) {
  int fd = openat(AT_FDCWD, path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    cordon_buf_printf(msg, "open %s: %s", path, strerror(errno));
    return false;
  }
  size_t n = strlen(text);
  bool ok = write(fd, text, n) == (ssize_t)n;
  if (!ok) cordon_buf_printf(msg, "write %s: %s", path, strerror(errno));
  close(fd);
  return ok;
}

/* CAP_SYS_ADMIN in our user namespace: a mount namespace alone will do (root, outside containers). */
static bool can_mount(void) {
  struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct data[2];
  memset(data, 0, sizeof data);
  return syscall(SYS_capget, &hdr, data) == 0 && (data[CAP_SYS_ADMIN / 32].effective & (1u << (CAP_SYS_ADMIN % 32)));
}

/* The run's user, mount and IPC namespaces (System V IPC and POSIX message queues are keyed by number,
 * not path: without its own namespace a run reads and writes the host's segments and queues). A user
 * namespace for root too: init then holds capabilities only over the run's own namespaces. Where no
 * user namespace can be made, root falls back to plain mount and IPC namespaces (init then keeps no
 * capability at all). */
static cordon_lx_status enter_namespaces(bool *in_userns, cordon_buf *msg) {
  uid_t uid = geteuid();
  gid_t gid = getegid();
  *in_userns = false;
  if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWIPC) != 0) {
    int err = errno;
    if (can_mount() && unshare(CLONE_NEWNS | CLONE_NEWIPC) == 0) return CORDON_LX_OK;
    cordon_buf_printf(msg, "unshare(user + mount + IPC namespace): %s; unprivileged user namespaces may be off: "
                           "check sysctl kernel.unprivileged_userns_clone, user.max_user_namespaces and, on "
                           "Ubuntu, kernel.apparmor_restrict_unprivileged_userns", strerror(err));
    return CORDON_LX_NOT_AVAILABLE;
  }
  *in_userns = true;
  char map[64];
  if (!write_file("/proc/self/setgroups", "deny", msg)) return CORDON_LX_SETUP_FAILED;
  snprintf(map, sizeof map, "%u %u 1", (unsigned)uid, (unsigned)uid);
  if (!write_file("/proc/self/uid_map", map, msg)) return CORDON_LX_SETUP_FAILED;
  snprintf(map, sizeof map, "%u %u 1", (unsigned)gid, (unsigned)gid);
  if (!write_file("/proc/self/gid_map", map, msg)) return CORDON_LX_SETUP_FAILED;
  return CORDON_LX_OK;
}

/* Drops every capability from the bounding set and the ambient set, and keeps `keep` (a capability
 * number, or -1 for none) effective and permitted: init keeps CAP_SYS_PTRACE over its own user namespace. */
static cordon_lx_status drop_capabilities(int keep, cordon_buf *msg) {
  struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct data[2];
  memset(data, 0, sizeof data);
  bool had = syscall(SYS_capget, &hdr, data) != 0 || data[0].effective || data[1].effective ||
             data[0].permitted || data[1].permitted;
  /* the command after init: its bounding set is empty already, and it may not drop from it anyway */
  bool emptied = keep < 0 && had && !(data[0].permitted & ~(1u << CAP_SYS_PTRACE)) && !data[1].permitted &&
                 prctl(PR_CAPBSET_READ, CAP_SYS_PTRACE, 0, 0, 0) == 0;
  for (int c = 0; c < 64 && !emptied; c++) {
    if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) == 0) continue;
    if (errno == EPERM && prctl(PR_CAPBSET_READ, c, 0, 0, 0) == 0) continue;  /* not in the set */
    if (errno == EINVAL) break;  /* past the last capability this kernel knows */
    if (errno == EPERM && !had) break;  /* no capabilities to begin with: nothing can be regained */
    cordon_buf_printf(msg, "dropping capability %d from the bounding set: %s", c, strerror(errno));
    return CORDON_LX_SETUP_FAILED;
  }
  if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL) {
    cordon_buf_printf(msg, "clearing ambient capabilities: %s", strerror(errno));
    return CORDON_LX_SETUP_FAILED;
  }
  /* the bounding set is empty now, `keep` included: it limits what an execve gains, and init never execs */
  bool kept = keep >= 0 && (data[keep / 32].permitted & (1u << (keep % 32)));
  memset(data, 0, sizeof data);
  if (kept) data[keep / 32].effective = data[keep / 32].permitted = 1u << (keep % 32);
  if (syscall(SYS_capset, &hdr, data) != 0) {
    cordon_buf_printf(msg, "capset: %s", strerror(errno));
    return CORDON_LX_SETUP_FAILED;
  }
  return CORDON_LX_OK;
}

/* execve, searching PATH from the command's own environment (not cordon's) when argv[0] has no '/'. */
static cordon_lx_status exec_command(const char *const *argv, const char *const *env, cordon_buf *msg) {
  static const char *const empty[] = {NULL};
  const char *cmd = argv[0];
  int err = cordon_exec_path(cmd, (char *const *)argv, (char *const *)(env ? env : empty));
  cordon_buf_printf(msg, "%s: %s", cmd, strerror(err));
  return err == ENOENT || err == ENOTDIR ? CORDON_LX_NOT_FOUND : CORDON_LX_NOT_EXECUTABLE;
}

/* init: the view and the sandbox, applied to itself before it forks the command, so every process of
 * the run has them. */
static cordon_lx_status sandbox_init(const cordon_lx_plan *plan, int abi, cordon_lx_landlock_ahead *ahead,
                                     const char *cwd, bool in_userns, cordon_lx_limits_run *limits,
                                     cordon_buf *msg) {
  cordon_lx_status st;
  if (!plan->fs_unrestricted && (st = cordon_lx_view_build(plan, msg)) != CORDON_LX_OK) return st;
  if (cwd && chdir(cwd) != 0) {
    cordon_buf_printf(msg, "cannot enter %s: %s%s", cwd, strerror(errno),
                      errno == ENOENT ? " (the policy grants nothing there, so the sandbox does not show it)" : "");
    return CORDON_LX_SETUP_FAILED;
  }
  /* while init still holds its capabilities over the run's own namespaces, and its procfs is at /proc */
  if ((st = cordon_lx_keyring_fresh(msg)) != CORDON_LX_OK) return st;
  if (in_userns && (st = cordon_lx_userns_forbid(msg)) != CORDON_LX_OK) return st;
  if ((st = cordon_lx_limits_enter(&plan->limits, limits, msg)) != CORDON_LX_OK) return st;
  if ((st = drop_capabilities(in_userns ? CAP_SYS_PTRACE : -1, msg)) != CORDON_LX_OK) return st;
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    cordon_buf_printf(msg, "no_new_privs: %s", strerror(errno));
    return CORDON_LX_SETUP_FAILED;
  }
  if ((st = cordon_lx_landlock_apply(plan, abi, ahead, msg)) != CORDON_LX_OK) return st;
  /* nothing inside may ptrace init or read its memory: init serves the gate for everyone */
  if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
    cordon_buf_printf(msg, "PR_SET_DUMPABLE: %s", strerror(errno));
    return CORDON_LX_SETUP_FAILED;
  }
  return CORDON_LX_OK;
}

/* the command, after init forked it: its own steps, then execve. */
static cordon_lx_status command_exec(const cordon_lx_plan *plan, cordon_lx_pidns *ns, const cordon_lx_limits_run *limits,
                                     const char *const *argv, const char *const *env, cordon_buf *msg) {
  /* Without a terminal on stdin there is no job control to keep: leave the caller's session so the
   * command cannot reach its terminal. With one, the session stays (the user's shell needs it) and
   * seccomp denies TIOCSTI instead. setsid fails for a process-group leader; that is harmless. */
  if (!isatty(STDIN_FILENO)) (void)setsid();
  cordon_lx_status st = drop_capabilities(-1, msg);
  /* one filter, the command's: init, which answers the gate, must not be under it (seccomp.h) */
  int listener = -1;
  if (st == CORDON_LX_OK && !ns->gate_plan) st = cordon_lx_seccomp_apply_base(plan, msg);
  if (st == CORDON_LX_OK && ns->gate_plan) st = cordon_lx_seccomp_apply_gate(plan, &listener, msg);
  if (st == CORDON_LX_OK && ns->gate_plan) st = cordon_lx_pidns_hand_listener(ns, listener, msg);
  if (st == CORDON_LX_OK) st = cordon_lx_limits_apply(&plan->limits, limits, msg);
  if (st == CORDON_LX_OK) st = cordon_lx_fds_close_inherited(plan->pass_fds, plan->npass_fds, msg);
  if (st != CORDON_LX_OK) return st;
  return exec_command(argv, env, msg);
}

static cordon_lx_status sandbox_and_exec(const cordon_lx_plan *plan, int abi, cordon_lx_landlock_ahead *ahead,
                                         const char *const *argv, const char *const *env, const char *cwd,
                                         cordon_buf *msg) {
  cordon_lx_status st;
  bool in_userns;
  cordon_lx_limits_run limits = CORDON_LX_LIMITS_RUN_INIT;
  cordon_lx_limits_prepare(&plan->limits, &limits);
  /* one thread before a user namespace and the forks that follow */
  if (ahead) cordon_lx_landlock_ahead_finish(ahead);
  cordon_lx_pidns ns = {.limits = &plan->limits, .limits_run = &limits};
  if ((st = enter_namespaces(&in_userns, msg)) != CORDON_LX_OK || (st = cordon_lx_pidns_enter(&ns, msg)) != CORDON_LX_OK) {
    cordon_buf ignored = CORDON_BUF_INIT;  /* nothing ran: nothing reached a limit */
    cordon_lx_limits_release(&plan->limits, &limits, &ignored);
    cordon_buf_free(&ignored);
    return st;
  }
  /* init from here on */
  if ((st = sandbox_init(plan, abi, ahead, cwd, in_userns, &limits, msg)) != CORDON_LX_OK) return st;
  const cordon_lx_plan *gated = !plan->fs_unrestricted && cordon_lx_plan_has_gate(plan) ? plan : NULL;
  if ((st = cordon_lx_pidns_spawn(&ns, gated, msg)) != CORDON_LX_OK) return st;
  /* the command from here on */
  return command_exec(plan, &ns, &limits, argv, env, msg);
}

/* Best effort runs with what the kernel has; say what that leaves out, once, on stderr. */
static void warn_best_effort(const cordon_lx_plan *plan, int abi) {
  if (!plan->best_effort) return;
  if (abi < 2) dprintf(STDERR_FILENO, "cordon: warning: Landlock ABI %d: renaming and linking across directories "
                                      "(REFER) is not restricted\n", abi);
  if (abi < 3) dprintf(STDERR_FILENO, "cordon: warning: Landlock ABI %d: truncating read-only files is not "
                                      "restricted\n", abi);
  if (abi < 4 && plan->network_restricted)
    dprintf(STDERR_FILENO, "cordon: warning: Landlock ABI %d: TCP is restricted by seccomp only\n", abi);
  if (abi < 6)
    dprintf(STDERR_FILENO, "cordon: warning: Landlock ABI %d: signals%s to processes outside are not "
                           "restricted\n", abi, plan->scope_abstract_unix ? " and abstract unix sockets" : "");
}

cordon_lx_status cordon_lx_run(const cordon_lx_plan *plan, const char *const *argv, const char *const *env,
                               const char *cwd, cordon_buf *msg) {
  return cordon_lx_run_ahead(plan, NULL, argv, env, cwd, msg);
}

cordon_lx_status cordon_lx_run_ahead(const cordon_lx_plan *plan, cordon_lx_landlock_ahead *ahead,
                                     const char *const *argv, const char *const *env, const char *cwd,
                                     cordon_buf *msg) {
  /* the helper's rules are all in; it may still be leaving, which only a user namespace minds */
  if (ahead) cordon_lx_landlock_ahead_settle(ahead);
  if (!argv || !argv[0] || !argv[0][0]) {
    cordon_buf_puts(msg, "no command to run");
    return CORDON_LX_INVALID;
  }
  cordon_lx_probe_result pr;
  cordon_lx_probe(&pr);
  cordon_lx_status st = cordon_lx_check(&pr, plan->min_abi, plan->best_effort, msg);
  if (st != CORDON_LX_OK) return st;
  warn_best_effort(plan, pr.abi);
  if (!pr.userns && !can_mount()) {
    cordon_buf_puts(msg, "every run needs its own user, mount and PID namespaces, and unprivileged user "
                         "namespaces are disabled here: enable them (sysctl kernel.unprivileged_userns_clone=1, "
                         "or on Ubuntu kernel.apparmor_restrict_unprivileged_userns=0) or run as root");
    return CORDON_LX_NOT_AVAILABLE;
  }
  return sandbox_and_exec(plan, pr.abi, ahead, argv, env, cwd, msg);
}
