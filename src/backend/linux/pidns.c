/* src/backend/linux/pidns.c — the run's processes: supervisor, init, command (pidns.h) */
#include "backend/linux/pidns.h"

#include "backend/linux/gate.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
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

/* One signal taken: relays what a process sent (si_code SI_USER or SI_QUEUE); reaps on SIGCHLD. Returns
 * true once `child` has been reaped, with its status in *ws; with `reap_all` (init) every orphan the
 * namespace hands over is reaped. */
static bool take_signal(int sig, int code, pid_t child, bool reap_all, int *ws) {
  if (sig != SIGCHLD) {
    if (code == SI_USER || code == SI_QUEUE) (void)kill(child, sig);
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
 * the run has a cgroup to report on) and waits for init's report, which comes once nothing of the run but
 * init is left (serve). init then holds the run's mount namespace alone and dies with the supervisor
 * (PR_SET_PDEATHSIG), so the namespace's teardown happens after cordon has returned. With a cgroup, init
 * is ended and reaped first: the cgroup can only go once it is empty. Without a report, init ended
 * before the command ran (it printed why): end as init did. */
static _Noreturn void supervise(const cordon_lx_pidns *ns, pid_t init, int report) {
  bool cgroup = ns->limits_run && ns->limits_run->dir;
  int err = cgroup ? fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3) : -1;
  for (int fd = 0; fd < 3; fd++) (void)close(fd);
  sigset_t set;
  relayed_set(&set);
  int sfd = signalfd(-1, &set, SFD_CLOEXEC);
  int ws = 0, cmd_ws;
  bool reaped = false, reported = false;
  while (!reaped && !reported) {
    struct pollfd p[2] = {{.fd = sfd, .events = POLLIN}, {.fd = report, .events = POLLIN}};
    if (sfd < 0) {  /* no signalfd: wait for init itself, as every step below still holds */
      siginfo_t si;
      int sig = sigwaitinfo(&set, &si);
      if (sig >= 0) reaped = take_signal(sig, si.si_code, init, false, &ws);
      continue;
    }
    if (poll(p, 2, -1) < 0) continue;  /* EINTR: a stop and continue */
    struct signalfd_siginfo si;
    if ((p[0].revents & POLLIN) && read(sfd, &si, sizeof si) == (ssize_t)sizeof si)
      reaped = take_signal((int)si.ssi_signo, si.ssi_code, init, false, &ws);
    if (!reaped && p[1].revents) {
      ssize_t n = read(report, &cmd_ws, sizeof cmd_ws);
      if (n == (ssize_t)sizeof cmd_ws) reported = true, ws = cmd_ws;
      else if (n >= 0) p[1].fd = report = -1;  /* init is gone without a report: its status decides */
    }
  }
  if (reaped && report >= 0 && read(report, &cmd_ws, sizeof cmd_ws) == (ssize_t)sizeof cmd_ws) ws = cmd_ws;
  if (cgroup && !reaped) {
    (void)kill(init, SIGKILL);
    while (waitpid(init, NULL, 0) < 0 && errno == EINTR) {}
  }
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

/* The listener, from the command over the handoff socket; -1 when none came (the command died first). */
static int receive_listener(int sock) {
  char byte;
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  union {
    struct cmsghdr h;
    char space[CMSG_SPACE(sizeof(int))];
  } u;
  struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.space, .msg_controllen = sizeof u.space};
  ssize_t n;
  while ((n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {}
  struct cmsghdr *c = n == 1 ? CMSG_FIRSTHDR(&m) : NULL;
  if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(sizeof(int)))
    return -1;
  int fd;
  memcpy(&fd, CMSG_DATA(c), sizeof fd);
  return fd;
}

/* init's side of the handoff: the gate made, the command's listener attached, the command told to go on.
 * NULL when any of it failed (`msg` says why): the command must not run. */
static cordon_lx_gate *start_gate(cordon_lx_pidns *ns, int msg_fd, cordon_buf *msg) {
  cordon_lx_gate *g = NULL;
  /* while the command loads its filter: the two run side by side */
  if (cordon_lx_gate_new(ns->gate_plan, msg_fd, &g, msg) != CORDON_LX_OK) return NULL;
  int listener = receive_listener(ns->handoff[0]);
  if (listener < 0) {
    cordon_buf_puts(msg, "the command did not hand over its gate filter's listener");
    cordon_lx_gate_free(g);
    return NULL;
  }
  cordon_lx_gate_attach(g, listener);
  if (write(ns->handoff[0], "g", 1) != 1) {
    cordon_buf_printf(msg, "cannot tell the command to go on: %s", strerror(errno));
    cordon_lx_gate_free(g);
    return NULL;
  }
  return g;
}

/* Ends every process of the run but init, and reaps each: an orphan comes to init, so once init has no
 * child left (any kind: __WALL) nothing else of the run exists, and whatever one was writing is done. */
static void end_run(void) {
  for (;;) {
    (void)kill(-1, SIGKILL);  /* pid 1 of the namespace: every other process in it, never init */
    pid_t r = waitpid(-1, NULL, __WALL);
    if (r < 0 && errno == ECHILD) return;
  }
}

/* init after the fork: serves the gate (when there is one), relays signals and reaps until the command
 * has ended, ends the rest of the run, reports the command's status, and waits to die with the
 * supervisor. Serving and signals share one poll: the signals stay blocked and are read from a signalfd. */
static _Noreturn void serve(cordon_lx_pidns *ns, pid_t command) {
  /* the gate's refusals go to the command's stderr; init holds it only as long as the command lives */
  int err = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
  for (int fd = 0; fd < 3; fd++) (void)close(fd);
  sigset_t set;
  relayed_set(&set);
  int sfd = signalfd(-1, &set, SFD_CLOEXEC);
  cordon_lx_gate *gate = NULL;
  cordon_buf msg = CORDON_BUF_INIT;
  if (sfd < 0) cordon_buf_printf(&msg, "signalfd: %s", strerror(errno));
  if (sfd < 0 || (ns->gate_plan && !(gate = start_gate(ns, err, &msg)))) {
    /* the command waits for the go-ahead and never execs: nothing ran */
    (void)kill(command, SIGKILL);
    (void)waitpid(command, NULL, 0);
    if (err >= 0) dprintf(err, "cordon: sandbox_setup_failed: %s\n", msg.data ? msg.data : "the gate cannot start");
    _exit(125);
  }
  if (ns->gate_plan) close(ns->handoff[0]);
  int ws = 0;
  for (bool done = false; !done;) {
    struct pollfd p[2] = {{.fd = sfd, .events = POLLIN}, {.fd = gate ? cordon_lx_gate_fd(gate) : -1, .events = POLLIN}};
    if (poll(p, 2, -1) < 0) continue;  /* EINTR: a stop and continue */
    if (p[1].revents && !cordon_lx_gate_serve(gate)) {
      cordon_lx_gate_free(gate);  /* no process is left that could ask */
      gate = NULL;
    }
    struct signalfd_siginfo si;  /* one per wake-up; poll says at once when more are pending */
    if ((p[0].revents & POLLIN) && read(sfd, &si, sizeof si) == (ssize_t)sizeof si)
      done = take_signal((int)si.ssi_signo, si.ssi_code, command, true, &ws);
  }
  end_run();  /* first: while the gate lives, a call it holds is answered, not failed */
  if (gate) cordon_lx_gate_free(gate);
  if (err >= 0) close(err);
  /* the report tells the supervisor that nothing of the run is left but init; without it, it waits for
   * init's own end, which the exit code below gives */
  if (write(ns->report_fd, &ws, sizeof ws) != (ssize_t)sizeof ws)
    _exit(WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws));
  /* holding the run's mount namespace until the supervisor has gone (PR_SET_PDEATHSIG): its teardown is
   * not part of the time a run takes */
  for (;;) pause();
}

cordon_lx_status cordon_lx_pidns_spawn(cordon_lx_pidns *ns, const cordon_lx_plan *gate_plan, cordon_buf *msg) {
  ns->gate_plan = gate_plan;
  ns->handoff[0] = ns->handoff[1] = -1;
  if (gate_plan && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ns->handoff) != 0) {
    cordon_buf_printf(msg, "socketpair (the gate's handoff): %s", strerror(errno));
    return CORDON_LX_SETUP_FAILED;
  }
  pid_t pid = fork();
  if (pid < 0) {
    cordon_buf_printf(msg, "fork (the command, in the PID namespace): %s", strerror(errno));
    return CORDON_LX_SETUP_FAILED;
  }
  if (pid == 0) {  /* the command: the caller's signal state, then its own steps (report_fd closes on exec) */
    (void)sigaction(SIGCHLD, &ns->caller_chld, NULL);
    (void)sigprocmask(SIG_SETMASK, &ns->caller_mask, NULL);
    if (gate_plan) close(ns->handoff[0]);
    return CORDON_LX_OK;
  }
  if (gate_plan) close(ns->handoff[1]);
  serve(ns, pid);
}

cordon_lx_status cordon_lx_pidns_hand_listener(cordon_lx_pidns *ns, int listener, cordon_buf *msg) {
  char byte = 'l';
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  union {
    struct cmsghdr h;
    char space[CMSG_SPACE(sizeof(int))];
  } u;
  memset(&u, 0, sizeof u);
  struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.space, .msg_controllen = sizeof u.space};
  struct cmsghdr *c = CMSG_FIRSTHDR(&m);
  c->cmsg_level = SOL_SOCKET, c->cmsg_type = SCM_RIGHTS, c->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(c), &listener, sizeof listener);
  ssize_t n;
  while ((n = sendmsg(ns->handoff[1], &m, MSG_NOSIGNAL)) < 0 && errno == EINTR) {}
  close(listener);  /* init holds it now; the command must not answer its own calls */
  if (n != 1) {
    cordon_buf_printf(msg, "cannot hand the gate filter's listener to init: %s", strerror(errno));
    return CORDON_LX_SETUP_FAILED;
  }
  /* init's go-ahead: without it (init failed to start the gate and is killing us) nothing runs */
  while ((n = read(ns->handoff[1], &byte, 1)) < 0 && errno == EINTR) {}
  close(ns->handoff[1]);
  ns->handoff[1] = -1;
  if (n != 1) {
    cordon_buf_puts(msg, "init could not start the gate");
    return CORDON_LX_SETUP_FAILED;
  }
  return CORDON_LX_OK;
}
