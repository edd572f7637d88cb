/* src/backend/linux/pidns.c — `--private-proc`: supervisor, init and command (pidns.h).
 *
 * Signals: the supervisor and init block the signals they relay (and SIGCHLD) and take them with
 * sigwaitinfo, so no handler ever runs and no disposition changes; the command gets the caller's mask
 * back before it execs. Blocking also matters for init: the kernel drops a signal sent to a namespace's
 * init whose disposition is SIG_DFL, unless it is blocked. Only signals a process sent (SI_USER,
 * SI_QUEUE) are relayed: the terminal's own (^C, ^\, a resize) already reach every process of the
 * foreground group, the command included, and relaying them would deliver them twice. */
#include "backend/linux/pidns.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
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

/* Waits for `child`, relaying signals to it; with `reap_all` (init) also reaps every orphan the namespace
 * hands it. Returns the child's wait status. */
static int relay_until_exit(pid_t child, bool reap_all) {
  sigset_t set;
  relayed_set(&set);
  for (;;) {
    siginfo_t si;
    int sig = sigwaitinfo(&set, &si);
    if (sig < 0) continue;  /* EINTR: a stop and continue */
    if (sig != SIGCHLD) {
      if (si.si_code == SI_USER || si.si_code == SI_QUEUE) (void)kill(child, sig);
      continue;
    }
    int ws;
    pid_t r;
    while ((r = waitpid(reap_all ? -1 : child, &ws, WNOHANG)) > 0)
      if (r == child) return ws;
    if (r < 0 && errno == ECHILD) return 125 << 8;  /* cannot happen: the child is ours until reaped */
  }
}

/* The supervisor: holds nothing the command might wait on (stdio closed), waits for init, then ends as
 * the command did. Without a report, init ended before the command ran (it printed why): end as init did. */
static _Noreturn void supervise(pid_t init, int report) {
  for (int fd = 0; fd < 3; fd++) (void)close(fd);
  int ws = relay_until_exit(init, false), cmd_ws;
  if (read(report, &cmd_ws, sizeof cmd_ws) == (ssize_t)sizeof cmd_ws) ws = cmd_ws;
  end_like(ws);
}

cordon_lx_status cordon_lx_pidns_enter(cordon_lx_pidns *ns, cordon_buf *msg) {
  ns->report_fd = -1;
  if (unshare(CLONE_NEWPID) != 0) {
    cordon_buf_printf(msg, "unshare(PID namespace) for --private-proc: %s", strerror(errno));
    return CORDON_LX_SETUP_FAILED;
  }
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0) {
    cordon_buf_printf(msg, "--private-proc: pipe: %s", strerror(errno));
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
    supervise(pid, p[0]);
  }
  close(p[0]);
  ns->report_fd = p[1];
  (void)prctl(PR_SET_NAME, "cordon", 0, 0, 0);  /* what ps shows for pid 1, whichever binary forked it */
  /* cordon killed (SIGKILL cannot be relayed) takes the namespace with it, as it takes the command
   * without --private-proc. The pipe tells whether it died before this was set: no reader is left. */
  if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) {
    cordon_buf_printf(msg, "--private-proc: PR_SET_PDEATHSIG: %s", strerror(errno));
    return CORDON_LX_SETUP_FAILED;
  }
  struct pollfd gone = {.fd = p[1], .events = POLLOUT};
  if (poll(&gone, 1, 0) == 1 && (gone.revents & POLLERR)) _exit(125);
  /* private first: a shared / would carry the new procfs back to the host's mount namespace */
  if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
    cordon_buf_printf(msg, "--private-proc: making mounts private: %s", strerror(errno));
    return CORDON_LX_SETUP_FAILED;
  }
  if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0) {
    int err = errno;
    cordon_buf_printf(msg, "--private-proc: mounting a procfs on /proc: %s%s", strerror(err),
                      err == EPERM ? " (the kernel refuses a new procfs in a user namespace while parts of "
                                       "/proc are hidden by mounts, as in many containers)" : "");
    return CORDON_LX_SETUP_FAILED;
  }
  return CORDON_LX_OK;
}

cordon_lx_status cordon_lx_pidns_spawn(const cordon_lx_pidns *ns, cordon_buf *msg) {
  pid_t pid = fork();
  if (pid < 0) {
    cordon_buf_printf(msg, "fork (the command, in the PID namespace): %s", strerror(errno));
    return CORDON_LX_SETUP_FAILED;
  }
  if (pid == 0) {  /* the command: the caller's signal state, then execve (report_fd closes on exec) */
    (void)sigaction(SIGCHLD, &ns->caller_chld, NULL);
    (void)sigprocmask(SIG_SETMASK, &ns->caller_mask, NULL);
    return CORDON_LX_OK;
  }
  /* init: keep no end of the command's pipes or terminal open past its exit */
  for (int fd = 0; fd < 3; fd++) (void)close(fd);
  int ws = relay_until_exit(pid, true);
  if (write(ns->report_fd, &ws, sizeof ws) != (ssize_t)sizeof ws) {}  /* then the exit code below stands */
  /* leaving ends the namespace: the kernel kills whatever the command left behind */
  _exit(WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws));
}
