/* src/backend/linux/runtime.c — apply a plan, then exec.
 *
 * Order (docs/linux-backend.md, "Runtime"): check the kernel; user + mount namespace (only when the plan
 * has mounts: an unprivileged caller maps just its own uid/gid, writing "setgroups deny" first); make
 * mounts private and apply the masks; chdir; a new session when there is no terminal to keep; drop every
 * capability and the bounding set; no_new_privs; seccomp; Landlock last (a Landlock-restricted thread may
 * not mount); execve. Any step failing stops before execve: the command never runs half-sandboxed.
 * No supervisor: cordon becomes the command. Placeholders, when the plan has any, are removed by a
 * detached cleaner (placeholder.h). With --private-proc (pidns.h) the namespaces are entered even without
 * mounts, a PID namespace follows, and everything after it runs in that namespace's init, which forks
 * the command just before execve while cordon stays outside as its supervisor. */
#include "backend/linux/landlock.h"
#include "backend/linux/limits.h"
#include "backend/linux/mounts.h"
#include "backend/linux/pidns.h"
#include "backend/linux/placeholder.h"
#include "backend/linux/procsetup.h"
#include "backend/linux/seccomp.h"

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
  int fd = open(path, O_WRONLY | O_CLOEXEC);
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

/* Enters the namespaces; right after the unshare (whatever follows) tells the placeholder cleaner which
 * mount namespace to wait for, or that none was made. */
static cordon_lx_status enter_namespaces(int notify_fd, cordon_buf *msg) {
  uid_t uid = geteuid();
  gid_t gid = getegid();
  if (can_mount()) {
    int rc = unshare(CLONE_NEWNS);
    cordon_lx_placeholders_notify(notify_fd, rc == 0);
    if (rc != 0) {
      cordon_buf_printf(msg, "unshare(mount namespace): %s", strerror(errno));
      return CORDON_LX_SETUP_FAILED;
    }
    return CORDON_LX_OK;
  }
  int rc = unshare(CLONE_NEWUSER | CLONE_NEWNS);
  cordon_lx_placeholders_notify(notify_fd, rc == 0);
  if (rc != 0) {
    cordon_buf_printf(msg, "unshare(user + mount namespace): %s; unprivileged user namespaces may be off: "
                           "check sysctl kernel.unprivileged_userns_clone, user.max_user_namespaces and, on "
                           "Ubuntu, kernel.apparmor_restrict_unprivileged_userns", strerror(errno));
    return CORDON_LX_NOT_AVAILABLE;
  }
  char map[64];
  if (!write_file("/proc/self/setgroups", "deny", msg)) return CORDON_LX_SETUP_FAILED;
  snprintf(map, sizeof map, "%u %u 1", (unsigned)uid, (unsigned)uid);
  if (!write_file("/proc/self/uid_map", map, msg)) return CORDON_LX_SETUP_FAILED;
  snprintf(map, sizeof map, "%u %u 1", (unsigned)gid, (unsigned)gid);
  if (!write_file("/proc/self/gid_map", map, msg)) return CORDON_LX_SETUP_FAILED;
  return CORDON_LX_OK;
}

static cordon_lx_status drop_capabilities(cordon_buf *msg) {
  struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct data[2];
  memset(data, 0, sizeof data);
  bool had = syscall(SYS_capget, &hdr, data) != 0 || data[0].effective || data[1].effective ||
             data[0].permitted || data[1].permitted;
  for (int c = 0; c < 64; c++) {
    if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) == 0) continue;
    if (errno == EINVAL) break;  /* past the last capability this kernel knows */
    if (errno == EPERM && !had) break;  /* no capabilities to begin with: nothing can be regained */
    cordon_buf_printf(msg, "dropping capability %d from the bounding set: %s", c, strerror(errno));
    return CORDON_LX_SETUP_FAILED;
  }
  if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL) {
    cordon_buf_printf(msg, "clearing ambient capabilities: %s", strerror(errno));
    return CORDON_LX_SETUP_FAILED;
  }
  memset(data, 0, sizeof data);
  if (syscall(SYS_capset, &hdr, data) != 0) {
    cordon_buf_printf(msg, "capset: %s", strerror(errno));
    return CORDON_LX_SETUP_FAILED;
  }
  return CORDON_LX_OK;
}

static const char *env_path(const char *const *env) {
  for (size_t i = 0; env && env[i]; i++)
    if (strncmp(env[i], "PATH=", 5) == 0) return env[i] + 5;
  return "/usr/local/bin:/usr/bin:/bin";
}

/* execve, searching PATH from the command's own environment (not cordon's) when argv[0] has no '/'. */
static cordon_lx_status exec_command(const char *const *argv, const char *const *env, cordon_buf *msg) {
  static const char *const empty[] = {NULL};
  char *const *ev = (char *const *)(env ? env : empty);
  const char *cmd = argv[0];
  int err;
  if (strchr(cmd, '/')) {
    execve(cmd, (char *const *)argv, ev);
    err = errno;
  } else {
    bool denied = false;
    err = ENOENT;
    const char *p = env_path(env);
    char full[4096];
    while (true) {
      const char *end = strchr(p, ':');
      size_t n = end ? (size_t)(end - p) : strlen(p);
      int len = n ? snprintf(full, sizeof full, "%.*s/%s", (int)n, p, cmd) : snprintf(full, sizeof full, "%s", cmd);
      if (len > 0 && (size_t)len < sizeof full) {
        execve(full, (char *const *)argv, ev);
        if (errno == EACCES) denied = true;
        else if (errno != ENOENT && errno != ENOTDIR) {
          err = errno;
          break;
        }
      }
      if (!end) break;
      p = end + 1;
    }
    if (err == ENOENT && denied) err = EACCES;
  }
  cordon_buf_printf(msg, "%s: %s", cmd, strerror(err));
  return err == ENOENT || err == ENOTDIR ? CORDON_LX_NOT_FOUND : CORDON_LX_NOT_EXECUTABLE;
}

static cordon_lx_status sandbox_and_exec(const cordon_lx_plan *plan, int abi, cordon_lx_landlock_ahead *ahead,
                                         const char *const *argv, const char *const *env, const char *cwd,
                                         int notify_fd, cordon_buf *msg) {
  cordon_lx_status st;
  cordon_lx_pidns pidns = {.report_fd = -1};
  if (plan->nmounts > 0 || plan->private_proc) {
    /* one thread before a user namespace, and before the forks of --private-proc, whose children may
     * allocate (failing): the helper may have left a malloc lock held at the moment of a fork */
    if (ahead && (!can_mount() || plan->private_proc)) cordon_lx_landlock_ahead_finish(ahead);
    if ((st = enter_namespaces(notify_fd, msg)) != CORDON_LX_OK) return st;
    if (plan->private_proc && (st = cordon_lx_pidns_enter(&pidns, msg)) != CORDON_LX_OK) return st;
    if (plan->private_proc && (st = cordon_lx_limits_enter(&plan->limits, NULL, msg)) != CORDON_LX_OK) return st;
    if ((st = cordon_lx_mounts_apply(plan, msg)) != CORDON_LX_OK) return st;
  }
  if (cwd && chdir(cwd) != 0) {
    cordon_buf_printf(msg, "cannot enter %s: %s", cwd, strerror(errno));
    return CORDON_LX_SETUP_FAILED;
  }
  /* Without a terminal on stdin there is no job control to keep: leave the caller's session so the
   * command cannot reach its terminal. With one, the session stays (the user's shell needs it) and
   * seccomp denies TIOCSTI instead. setsid fails for a process-group leader; that is harmless. */
  if (!isatty(STDIN_FILENO)) (void)setsid();
  if ((st = drop_capabilities(msg)) != CORDON_LX_OK) return st;
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    cordon_buf_printf(msg, "no_new_privs: %s", strerror(errno));
    return CORDON_LX_SETUP_FAILED;
  }
  if ((st = cordon_lx_keyring_fresh(msg)) != CORDON_LX_OK) return st;
  if ((st = cordon_lx_seccomp_apply(plan, msg)) != CORDON_LX_OK) return st;
  if ((st = cordon_lx_landlock_apply(plan, abi, ahead, msg)) != CORDON_LX_OK) return st;
  if (plan->private_proc && (st = cordon_lx_pidns_spawn(&pidns, msg)) != CORDON_LX_OK) return st;
  if ((st = cordon_lx_limits_apply(&plan->limits, NULL, msg)) != CORDON_LX_OK) return st;
  if ((st = cordon_lx_fds_close_inherited(plan->pass_fds, plan->npass_fds, msg)) != CORDON_LX_OK) return st;
  return exec_command(argv, env, msg);
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
                           "restricted\n", abi, plan->network_restricted ? " and abstract unix sockets" : "");
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
  if ((plan->nmounts > 0 || plan->private_proc) && !pr.userns) {
    cordon_buf_puts(msg, "this plan needs a mount namespace, and unprivileged user namespaces are disabled "
                         "here: enable them (sysctl kernel.unprivileged_userns_clone=1, or on Ubuntu "
                         "kernel.apparmor_restrict_unprivileged_userns=0) or run as root");
    return CORDON_LX_NOT_AVAILABLE;
  }
  bool need_placeholders = false;
  for (size_t i = 0; i < plan->nmounts; i++) need_placeholders = need_placeholders || plan->mounts[i].placeholder;
  int notify_fd = -1;
  if (need_placeholders && (st = cordon_lx_placeholders_start(plan, &notify_fd, msg)) != CORDON_LX_OK) return st;
  return sandbox_and_exec(plan, pr.abi, ahead, argv, env, cwd, notify_fd, msg);
}
