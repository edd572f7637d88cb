/* src/backend/linux/pidns.c — the run's processes: supervisor, init, command (pidns.h).
 *
 * Signals: the supervisor and init block the signals they relay (and SIGCHLD) and take them without a
 * handler (sigwaitinfo, or a signalfd where init also serves the gate), so no disposition changes; the
 * command gets the caller's mask back before it execs. Blocking also matters for init: the kernel drops a
 * signal sent to a namespace's init whose disposition is SIG_DFL, unless it is blocked. Only signals a
 * process sent (SI_USER, SI_QUEUE) are relayed: the terminal's own (^C, ^\, a resize) already reach every
 * process of the foreground group, the command included, and relaying them would deliver them twice. */
#include "backend/linux/pidns.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static const int relayed[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH, SIGCONT, SIGALRM};

static void relayed_set(sigset_t *set) {
  sigemptyset(set);
  for (size_t i = 0; i < sizeof relayed / sizeof relayed[0]; i++) sigaddset(set, relayed[i]);
  sigaddset(set, SIGCHLD);
}

/* Ends the supervisor the way the command ended, so the caller cannot tell the difference: the same exit
 * code, or death by the same signal (its default action, without a core file of cordon's own). */
static _Noreturn void end_like(int ws) {
  if (WIFSIGNALED(ws)) {
    int sig = WTERMSIG(ws);
    struct rlimit none = {0, 0};
    (void)setrlimit(RLIMIT_CORE, &none);
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    sigemptyset(&dfl.sa_mask);
    (void)sigaction(sig, &dfl, NULL);
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    (void)kill(getpid(), sig);
    (void)sigprocmask(SIG_UNBLOCK, &one, NULL);  /* delivered here */
    _exit(128 + sig);  /* a signal whose default is not to end: the shell's convention */
  }
  _exit(WIFEXITED(ws) ? WEXITSTATUS(ws) : 125);
}

/* One signal taken: relays what a process sent; reaps on SIGCHLD. Returns true once `child` has been
 * reaped, with its status in *ws; with `reap_all` (init) every orphan the namespace hands over is reaped. */
static bool take_signal(int sig, const siginfo_t *si, pid_t child, bool reap_all, int *ws) {
  if (sig != SIGCHLD) {
    if (si->si_code == SI_USER || si->si_code == SI_QUEUE) (void)kill(child, sig);
    return false;
  }
  int st;
  pid_t r;
  while ((r = waitpid(reap_all ? -1 : child, &st, WNOHANG)) > 0)
    if (r == child) return *ws = st, true;
  if (r < 0 && errno == ECHILD) return *ws = 125 << 8, true;  /* cannot happen: the child is ours until reaped */
  return false;
}

/* The supervisor: holds nothing the command might wait on (stdio closed, a copy of stderr kept only while
 * the run has a cgroup to report on), waits for init, releases the run's cgroup, then ends as the command
 * did. Without a report, init ended before the command ran (it printed why): end as init did. */
static _Noreturn void supervise(const cordon_lx_pidns *ns, pid_t init, int report) {
  bool cgroup = ns->limits_run && ns->limits_run->dir;
  int err = cgroup ? fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3) : -1;
  for (int fd = 0; fd < 3; fd++) (void)close(fd);
  sigset_t set;
  relayed_set(&set);
  int ws = 0, cmd_ws;
  for (bool done = false; !done;) {
    siginfo_t si;
    int sig = sigwaitinfo(&set, &si);
    if (sig >= 0) done = take_signal(sig, &si, init, false, &ws);  /* else EINTR: a stop and continue */
  }
  if (read(report, &cmd_ws, sizeof cmd_ws) == (ssize_t)sizeof cmd_ws) ws = cmd_ws;
  if (ns->limits_run) {
    cordon_buf what = CORDON_BUF_INIT;
    cordon_lx_limits_release(ns->limits, ns->limits_run, &what);
    for (const char *line = what.data; err >= 0 && line && *line;) {  /* the exit status stands either way */
      const char *nl = strchr(line, '\n');
      size_t n = nl ? (size_t)(nl - line) + 1 : strlen(line);
      if (dprintf(err, "cordon: %.*s", (int)n, line) < 0) break;
      line += n;
    }
    cordon_buf_free(&what);
  }
  end_like(ws);
}

cordon_lx_status cordon_lx_pidns_enter(cordon_lx_pidns *ns, cordon_buf *msg) {
  ns->report_fd = -1;  /* the caller sets limits and limits_run */
  if (unshare(CLONE_NEWPID) != 0) {
    cordon_buf_printf(msg, "unshare(PID namespace): %s", strerror(errno));
    return CORDON_LX_SETUP_FAILED;
  }
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) {
    cordon_buf_printf(msg, "pipe: %s", strerror(errno));
    return CORDON_LX_SETUP_FAILED;
  }
  /* blocked before the fork, so nothing sent meanwhile is lost; SIGCHLD at its default, or an ignored
   * SIGCHLD would reap init and lose its status */
  sigset_t set;
  relayed_set(&set);
  struct sigaction dfl = {.sa_handler = SIG_DFL};
  sigemptyset(&dfl.sa_mask);
  (void)sigprocmask(SIG_BLOCK, &set, &ns->caller_mask);
  (void)sigaction(SIGCHLD, &dfl, &ns->caller_chld);
  pid_t pid = fork();
  if (pid < 0) {
    cordon_buf_printf(msg, "fork (init of the PID namespace): %s", strerror(errno));
    (void)sigaction(SIGCHLD, &ns->caller_chld, NULL);
    (void)sigprocmask(SIG_SETMASK, &ns->caller_mask, NULL);
    close(p[0]), close(p[1]);
    return CORDON_LX_SETUP_FAILED;
  }
  if (pid > 0) {
    close(p[1]);
    supervise(ns, pid, p[0]);
  }
  close(p[0]);
  ns->report_fd = p[1];
  (void)prctl(PR_SET_NAME, "cordon", 0, 0, 0);  /* what ps shows for pid 1, whichever binary forked it */
  /* cordon killed (SIGKILL cannot be relayed) takes the namespace with it, as it takes the command
   * without a namespace. The pipe tells whether it died before this was set: no reader is left. */
  if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) {
    cordon_buf_printf(msg, "PR_SET_PDEATHSIG: %s", strerror(errno));
    return CORDON_LX_SETUP_FAILED;
  }
  struct pollfd gone = {.fd = p[1], .events = POLLOUT};
  if (poll(&gone, 1, 0) == 1 && (gone.revents & POLLERR)) _exit(125);
  return CORDON_LX_OK;
}

/* init after the fork: serves the gate (when there is one), relays signals and reaps until the command
 * has ended, reports its status, and exits, which ends the namespace. */
static _Noreturn void serve(cordon_lx_pidns *ns, pid_t command) {
  sigset_t set;
  relayed_set(&set);
  int ws = 0;
  for (bool done = false; !done;) {
    siginfo_t si;
    int sig = sigwaitinfo(&set, &si);
    if (sig >= 0) done = take_signal(sig, &si, command, true, &ws);  /* else EINTR: a stop and continue */
  }
  if (write(ns->report_fd, &ws, sizeof ws) != (ssize_t)sizeof ws) {}  /* then the exit code below stands */
  /* leaving ends the namespace: the kernel kills whatever the command left behind */
  _exit(WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws));
}

cordon_lx_status cordon_lx_pidns_spawn(cordon_lx_pidns *ns, cordon_buf *msg) {
  pid_t pid = fork();
  if (pid < 0) {
    cordon_buf_printf(msg, "fork (the command, in the PID namespace): %s", strerror(errno));
    return CORDON_LX_SETUP_FAILED;
  }
  if (pid == 0) {  /* the command: the caller's signal state, then its own steps (report_fd closes on exec) */
    (void)sigaction(SIGCHLD, &ns->caller_chld, NULL);
    (void)sigprocmask(SIG_SETMASK, &ns->caller_mask, NULL);
    return CORDON_LX_OK;
  }
  /* init: keep no end of the command's pipes or terminal open past its exit */
  for (int fd = 0; fd < 3; fd++) (void)close(fd);
  serve(ns, pid);
}
