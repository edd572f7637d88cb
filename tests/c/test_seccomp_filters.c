/* needs: linux */
/* tests/c/test_seccomp_filters.c — what the base and gate filters (seccomp.h) refuse, notify and let
 * through, probed with real syscalls in a child that applied them: the built programs, and the same
 * programs exported and loaded the way the static front loads them. The gate's answers come from a
 * stand-in server in the probing child's parent, which answers every notification ENOTUNIQ, so a probe
 * tells "notified" from "refused by the filter" from "let through". */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "backend/linux/gate.h"
#include "backend/linux/seccomp.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <linux/filter.h>
#include <linux/keyctl.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

/* The gate's table as its brief lists it, for a build without the gate (gate/ defines the real one,
 * which wins over this weak copy). */
__attribute__((weak)) const cordon_lx_gated_syscall cordon_lx_gated_syscalls[] = {
    {"open", 1}, {"openat", 2}, {"creat", -1}, {"mkdir", -1}, {"mkdirat", -1}, {"mknod", -1},
    {"mknodat", -1}, {"symlink", -1}, {"symlinkat", -1}, {"link", -1}, {"linkat", -1}, {"rename", -1},
    {"renameat", -1}, {"renameat2", -1}, {"unlink", -1}, {"unlinkat", -1}, {"rmdir", -1}, {"truncate", -1},
    {"chmod", -1}, {"fchmodat", -1}, {"fchmodat2", -1}, {"fchmod", -1}, {"bind", -1}, {"connect", -1},
    {NULL, 0}};

#define NOTIFIED ENOTUNIQ  /* what the stand-in gate answers */
#define MAX_PROBES 64

static char scratch[64];  /* a directory the probes may write in */

typedef long (*probe_fn)(void);  /* returns the syscall's errno, or 0 when it succeeded */

static long err_of(long rc) { return rc < 0 ? errno : 0; }

/* --- the harness ------------------------------------------------------------------------------------ */
typedef enum { BUILT, STORED } how;

/* A plan with a gate (one rule for it) or without; STORED: with the one program the run cache keeps
 * for it, the gate's or the base's (runcache.c), as the front loads it. */
static cordon_lx_plan *plan_for(bool network_restricted, how h, bool gate) {
  cordon_lx_plan *p = cordon_lx_plan_new();
  p->network_restricted = network_restricted;
  static const unsigned char levels[CORDON_LX_NCLASSES] = {0, 1, 1, 1, 0, 0};
  if (gate) assert_true(cordon_lx_plan_add_grule(p, CORDON_DENY, levels, NULL, "/nonexistent", true, "t", NULL, 0));
  if (h == STORED) {
    cordon_buf b = CORDON_BUF_INIT;
    assert_true(cordon_lx_seccomp_export(p, gate ? CORDON_LX_SECCOMP_GATE : CORDON_LX_SECCOMP_BASE, &b));
    if (gate) p->seccomp_gate_len = b.len;
    else p->seccomp_base_len = b.len;
    p->seccomp_bpf = (unsigned char *)cordon_buf_take(&b);
    assert_true(cordon_lx_seccomp_stored(p));
  }
  return p;
}

/* Runs each probe in a child that applied the base filter or, with `gate`, the gate's (which carries the
 * base's rules), and writes their errnos into `out`. With the gate, the child's parent serves the notifications. */
static void run_probes(const cordon_lx_plan *plan, bool gate, const probe_fn *probes, size_t n, long *out) {
  int pipefd[2];
  assert_int_equal(pipe(pipefd), 0);
  pid_t server = fork();
  assert_true(server >= 0);
  if (server == 0) {
    close(pipefd[0]);
    cordon_buf msg = CORDON_BUF_INIT;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) _exit(90);
    /* one filter, as the command loads it: the gate's carries the base's rules */
    if (!gate && cordon_lx_seccomp_apply_base(plan, &msg) != CORDON_LX_OK) {
      fprintf(stderr, "base: %s\n", cordon_buf_str(&msg));
      _exit(91);
    }
    int listener = -1;
    if (gate && cordon_lx_seccomp_apply_gate(plan, &listener, &msg) != CORDON_LX_OK) {
      fprintf(stderr, "gate: %s\n", cordon_buf_str(&msg));
      _exit(92);
    }
    if (gate && (fcntl(listener, F_GETFD) & FD_CLOEXEC) == 0) _exit(93);  /* must not leak into the command */
    pid_t prober = fork();
    if (prober < 0) _exit(94);
    if (prober == 0) {
      if (listener >= 0) close(listener);
      long results[MAX_PROBES];
      for (size_t i = 0; i < n; i++) results[i] = probes[i]();
      _exit(write(pipefd[1], results, n * sizeof *results) == (ssize_t)(n * sizeof *results) ? 0 : 95);
    }
    close(pipefd[1]);
    /* the stand-in gate: every notification answered ENOTUNIQ, until the prober is gone */
    struct seccomp_notif *req = NULL;
    struct seccomp_notif_resp *resp = NULL;
    if (gate && seccomp_notify_alloc(&req, &resp) != 0) _exit(96);
    int status = 0;
    while (waitpid(prober, &status, WNOHANG) == 0) {
      struct pollfd pfd = {listener, POLLIN, 0};
      if (!gate || poll(&pfd, 1, 20) <= 0) {
        if (!gate) usleep(2000);
        continue;
      }
      memset(req, 0, sizeof *req);
      if (seccomp_notify_receive(listener, req) != 0) continue;
      memset(resp, 0, sizeof *resp);
      resp->id = req->id;
      resp->error = -NOTIFIED;
      (void)seccomp_notify_respond(listener, resp);
    }
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 97);
  }
  close(pipefd[1]);
  ssize_t got = read(pipefd[0], out, n * sizeof *out);
  close(pipefd[0]);
  int status;
  assert_int_equal(waitpid(server, &status, 0), server);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
  assert_int_equal(got, (ssize_t)(n * sizeof *out));
}

#define EXPECT(probe, want) {probe, want, #probe}
typedef struct {
  probe_fn fn;
  long want;
  const char *name;
} expectation;

static void check_all(bool network_restricted, how h, bool gate, const expectation *e, size_t n) {
  cordon_lx_plan *plan = plan_for(network_restricted, h, gate);
  probe_fn fns[MAX_PROBES];
  long got[MAX_PROBES];
  assert_true(n <= MAX_PROBES);
  for (size_t i = 0; i < n; i++) fns[i] = e[i].fn;
  run_probes(plan, gate, fns, n, got);
  bool ok = true;
  for (size_t i = 0; i < n; i++)
    if (got[i] != e[i].want) {
      fprintf(stderr, "%s: errno %ld (%s), wanted %ld (%s)\n", e[i].name, got[i], strerror((int)got[i]), e[i].want,
              strerror((int)e[i].want));
      ok = false;
    }
  cordon_lx_plan_free(plan);
  assert_true(ok);
}

/* --- probes: the base filter ------------------------------------------------------------------------- */
static long tiocsti(void) { char c = 'x'; return err_of(ioctl(0, TIOCSTI, &c)); }
static long tioclinux(void) { char c = 2; return err_of(ioctl(0, TIOCLINUX, &c)); }
static long fionread_is_fine(void) {
  int p[2], n;
  if (pipe(p) != 0) return errno;
  long e = err_of(ioctl(p[0], FIONREAD, &n));
  close(p[0]), close(p[1]);
  return e;
}
static long sock(int family, int type) {
  int fd = socket(family, type, 0);
  if (fd >= 0) close(fd);
  return fd < 0 ? errno : 0;
}
static long sockpair(int type) {
  int sv[2];
  int rc = socketpair(AF_UNIX, type, 0, sv);
  if (rc == 0) close(sv[0]), close(sv[1]);
  return err_of(rc);
}
static long unix_dgram(void) { return sock(AF_UNIX, SOCK_DGRAM); }
static long unix_dgram_flags(void) { return sock(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK); }
static long unix_raw(void) { return sock(AF_UNIX, SOCK_RAW); }
static long unix_stream(void) { return sock(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC); }
static long unix_seqpacket(void) { return sock(AF_UNIX, SOCK_SEQPACKET); }
static long pair_dgram(void) { return sockpair(SOCK_DGRAM); }
static long pair_stream(void) { return sockpair(SOCK_STREAM); }
static long inet_stream(void) { return sock(AF_INET, SOCK_STREAM); }
static long inet6_dgram(void) { return sock(AF_INET6, SOCK_DGRAM); }
static long io_uring(void) {
  struct io_uring_params p;
  memset(&p, 0, sizeof p);
  long fd = syscall(__NR_io_uring_setup, 4, &p);
  if (fd >= 0) close((int)fd);
  return err_of(fd);
}
static long io_uring_enter(void) { return err_of(syscall(__NR_io_uring_enter, -1, 0, 0, 0, NULL, 0)); }
static long unshare_user(void) { return err_of(unshare(CLONE_NEWUSER)); }
static long unshare_user_mount(void) { return err_of(unshare(CLONE_NEWUSER | CLONE_NEWNS)); }
static long clone_user(void) {
  long pid = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, NULL, NULL, 0);
  if (pid == 0) _exit(0);
  if (pid > 0) waitpid((pid_t)pid, NULL, 0);
  return err_of(pid);
}
static long clone3_any(void) {
  uint64_t args[11];
  memset(args, 0, sizeof args);
  args[4] = SIGCHLD;  /* exit_signal */
  long pid = syscall(__NR_clone3, args, sizeof args);
  if (pid == 0) _exit(0);
  if (pid > 0) waitpid((pid_t)pid, NULL, 0);
  return err_of(pid);
}
static long setns_any(void) { return err_of(setns(0, 0)); }
static long keyctl_user(void) { return err_of(syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_USER_KEYRING, 0)); }
static long add_key_user(void) { return err_of(syscall(SYS_add_key, "user", "cordon-test", "x", 1, KEY_SPEC_USER_KEYRING)); }
static long request_key_any(void) { return err_of(syscall(SYS_request_key, "user", "cordon-test", NULL, 0)); }
static long mount_any(void) { return err_of(syscall(SYS_mount, "none", "/", "tmpfs", 0, NULL)); }
static long umount_any(void) { return err_of(syscall(SYS_umount2, "/", 0)); }
static long pivot_root_any(void) { return err_of(syscall(SYS_pivot_root, "/", "/")); }
static long chroot_any(void) { return err_of(chroot("/")); }
static long open_tree_any(void) {
  long fd = syscall(__NR_open_tree, AT_FDCWD, "/", 0);
  if (fd >= 0) close((int)fd);
  return err_of(fd);
}
/* Linux 6.15's open_tree_attr, newer than this libseccomp: refused by its number */
static long open_tree_attr_any(void) {
  long fd = syscall(467, AT_FDCWD, "/", 0, NULL, 0);
  if (fd >= 0) close((int)fd);
  return err_of(fd);
}
static long fsopen_any(void) {
  long fd = syscall(__NR_fsopen, "tmpfs", 0);
  if (fd >= 0) close((int)fd);
  return err_of(fd);
}
static long open_by_handle(void) { return err_of(syscall(SYS_open_by_handle_at, AT_FDCWD, NULL, O_RDONLY)); }
static long bpf_any(void) { return err_of(syscall(SYS_bpf, 0, NULL, 0)); }
static long userfaultfd_any(void) {
  long fd = syscall(SYS_userfaultfd, O_CLOEXEC);
  if (fd >= 0) close((int)fd);
  return err_of(fd);
}
static long kexec_any(void) { return err_of(syscall(SYS_kexec_load, 0, 0, NULL, 0)); }
static long personality_query(void) { return err_of(syscall(SYS_personality, 0xffffffff)); }
static long fork_works(void) {
  pid_t pid = fork();
  if (pid == 0) _exit(7);
  int st = 0;
  if (pid < 0 || waitpid(pid, &st, 0) != pid) return errno ? errno : -1;
  return WIFEXITED(st) && WEXITSTATUS(st) == 7 ? 0 : -1;
}
static int thread_mark;
static void *thread_body(void *arg) { return arg; }
static long threads_work(void) {
  pthread_t t;
  void *back = NULL;
  int rc = pthread_create(&t, NULL, thread_body, &thread_mark);
  if (rc != 0) return rc;
  pthread_join(t, &back);
  return back == &thread_mark ? 0 : -1;
}
static long nested_filter_works(void) {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  int rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(acct), 0);
  if (rc == 0) rc = seccomp_load(ctx);
  seccomp_release(ctx);
  return -rc;
}
/* what the gate in init does, on a scratch directory */
static long gate_calls_work(void) {
  char a[300], b[300];
  snprintf(a, sizeof a, "%s/f", scratch);
  snprintf(b, sizeof b, "%s/g", scratch);
  int fd = openat(AT_FDCWD, a, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return errno;
  close(fd);
  if (renameat2(AT_FDCWD, a, AT_FDCWD, b, 0) != 0 || unlinkat(AT_FDCWD, b, 0) != 0) return errno;
  if (mkdirat(AT_FDCWD, a, 0700) != 0 || unlinkat(AT_FDCWD, a, AT_REMOVEDIR) != 0) return errno;
  if (symlinkat("x", AT_FDCWD, a) != 0 || unlinkat(AT_FDCWD, a, 0) != 0) return errno;
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  snprintf(addr.sun_path, sizeof addr.sun_path, "%s/s", scratch);
  int s = socket(AF_UNIX, SOCK_STREAM, 0), c = socket(AF_UNIX, SOCK_STREAM, 0);
  if (s < 0 || c < 0 || bind(s, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(s, 1) != 0 ||
      connect(c, (struct sockaddr *)&addr, sizeof addr) != 0)
    return errno;
  close(s), close(c), unlink(addr.sun_path);
  long pidfd = syscall(SYS_pidfd_open, getpid(), 0);
  if (pidfd < 0) return errno;
  long dup = syscall(SYS_pidfd_getfd, pidfd, 0, 0);
  if (dup < 0) return errno;
  close((int)dup), close((int)pidfd);
  static char src[8] = "abc";
  char dst[8];
  struct iovec l = {dst, 3}, r = {src, 3};
  if (process_vm_readv(getpid(), &l, 1, &r, 1, 0) != 3) return errno;
  struct statx sx;
  if (statx(AT_FDCWD, "/", 0, STATX_BASIC_STATS, &sx) != 0) return errno;
  return 0;
}

static void the_base_filter_refuses_what_no_process_of_a_run_may_do(void **state) {
  (void)state;
  const expectation e[] = {
      EXPECT(tiocsti, EPERM),          EXPECT(tioclinux, EPERM),        EXPECT(io_uring, EPERM),
      EXPECT(io_uring_enter, EPERM),   EXPECT(unix_dgram, EACCES),      EXPECT(unix_dgram_flags, EACCES),
      EXPECT(unix_raw, EACCES),        EXPECT(pair_dgram, EACCES),      EXPECT(unshare_user, EPERM),
      EXPECT(unshare_user_mount, EPERM), EXPECT(clone_user, EPERM),     EXPECT(clone3_any, ENOSYS),
      EXPECT(setns_any, EPERM),        EXPECT(keyctl_user, EPERM),      EXPECT(add_key_user, EPERM),
      EXPECT(request_key_any, EPERM),  EXPECT(mount_any, EPERM),        EXPECT(umount_any, EPERM),
      EXPECT(pivot_root_any, EPERM),   EXPECT(chroot_any, EPERM),       EXPECT(open_tree_any, EPERM),
      EXPECT(open_tree_attr_any, EPERM),
      EXPECT(fsopen_any, EPERM),       EXPECT(open_by_handle, EPERM),   EXPECT(bpf_any, EPERM),
      EXPECT(userfaultfd_any, EPERM),  EXPECT(kexec_any, EPERM),
  };
  check_all(false, BUILT, false, e, sizeof e / sizeof *e);
}

static void the_base_filter_keeps_what_tools_and_the_gate_need(void **state) {
  (void)state;
  const expectation e[] = {
      EXPECT(unix_stream, 0),     EXPECT(unix_seqpacket, 0),    EXPECT(pair_stream, 0),
      EXPECT(inet_stream, 0),     EXPECT(inet6_dgram, 0),       EXPECT(fionread_is_fine, 0),
      EXPECT(personality_query, 0), EXPECT(fork_works, 0),      EXPECT(threads_work, 0),
      EXPECT(nested_filter_works, 0), EXPECT(gate_calls_work, 0),
  };
  check_all(false, BUILT, false, e, sizeof e / sizeof *e);
}

static void with_the_network_restricted_only_unix_sockets_are_made(void **state) {
  (void)state;
  const expectation e[] = {
      EXPECT(inet_stream, EAFNOSUPPORT), EXPECT(inet6_dgram, EAFNOSUPPORT), EXPECT(unix_stream, 0),
      EXPECT(unix_dgram, EACCES),        EXPECT(pair_stream, 0),            EXPECT(io_uring, EPERM),
  };
  check_all(true, BUILT, false, e, sizeof e / sizeof *e);
}

/* --- probes: the gate filter ------------------------------------------------------------------------- */
static char target[96];
static long open_flags(int flags) {
  int fd = (int)syscall(SYS_openat, AT_FDCWD, target, flags | O_CLOEXEC, 0600);
  if (fd >= 0) close(fd);
  return fd < 0 ? errno : 0;
}
static long openat_read(void) { return open_flags(O_RDONLY); }
static long openat_read_directory(void) {
  int fd = open(scratch, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) close(fd);
  return fd < 0 ? errno : 0;
}
static long openat_write(void) { return open_flags(O_WRONLY); }
static long openat_readwrite(void) { return open_flags(O_RDWR); }
static long openat_mode3(void) { return open_flags(O_ACCMODE); }
static long openat_create(void) { return open_flags(O_RDONLY | O_CREAT); }
static long openat_truncate(void) { return open_flags(O_RDONLY | O_TRUNC); }
static long openat_append(void) { return open_flags(O_WRONLY | O_APPEND); }
#ifdef SYS_open
static long open_write(void) { return err_of(syscall(SYS_open, target, O_WRONLY | O_CLOEXEC)); }
static long open_read(void) {
  long fd = syscall(SYS_open, target, O_RDONLY | O_CLOEXEC);
  if (fd >= 0) close((int)fd);
  return err_of(fd);
}
static long creat_any(void) { return err_of(syscall(SYS_creat, target, 0600)); }
#else  /* only the *at forms exist here */
static long open_write(void) { return openat_write(); }
static long open_read(void) { return openat_read(); }
static long creat_any(void) { return open_flags(O_WRONLY | O_CREAT | O_TRUNC); }
#endif
static long mkdir_any(void) { return err_of(mkdir(target, 0700)); }
static long unlink_any(void) { return err_of(unlink(target)); }
static long rename_any(void) { return err_of(rename(target, scratch)); }
static long link_any(void) { return err_of(link(target, scratch)); }
static long symlink_any(void) { return err_of(symlink("x", target)); }
static long chmod_any(void) { return err_of(chmod(target, 0600)); }
static long fchmod_any(void) { return err_of(fchmod(0, 0600)); }
static long truncate_any(void) { return err_of(truncate(target, 0)); }
static long bind_any(void) {
  struct sockaddr_un a = {.sun_family = AF_UNIX};
  int s = socket(AF_UNIX, SOCK_STREAM, 0);
  long e = err_of(bind(s, (struct sockaddr *)&a, sizeof(sa_family_t)));
  close(s);
  return e;
}
static long connect_any(void) {
  struct sockaddr_un a = {.sun_family = AF_UNIX, .sun_path = "/nonexistent"};
  int s = socket(AF_UNIX, SOCK_STREAM, 0);
  long e = err_of(connect(s, (struct sockaddr *)&a, sizeof a));
  close(s);
  return e;
}
static long openat2_any(void) {
  struct {
    uint64_t flags, mode, resolve;
  } how = {O_RDONLY, 0, 0};
  long fd = syscall(__NR_openat2, AT_FDCWD, target, &how, sizeof how);
  if (fd >= 0) close((int)fd);
  return err_of(fd);
}
static long nested_listener(void) {
  struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  struct sock_fprog prog = {1, &allow};
  long fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
  if (fd >= 0) close((int)fd);
  return err_of(fd);
}
static long nested_plain(void) {
  struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  struct sock_fprog prog = {1, &allow};
  return err_of(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog));
}

static const expectation gate_expectations[] = {
    EXPECT(openat_read, 0),          EXPECT(openat_read_directory, 0), EXPECT(open_read, 0),
    EXPECT(openat_write, NOTIFIED),  EXPECT(openat_readwrite, NOTIFIED), EXPECT(openat_mode3, NOTIFIED),
    EXPECT(openat_create, NOTIFIED), EXPECT(openat_truncate, NOTIFIED), EXPECT(openat_append, NOTIFIED),
    EXPECT(open_write, NOTIFIED),    EXPECT(creat_any, NOTIFIED),       EXPECT(mkdir_any, NOTIFIED),
    EXPECT(unlink_any, NOTIFIED),    EXPECT(rename_any, NOTIFIED),      EXPECT(link_any, NOTIFIED),
    EXPECT(symlink_any, NOTIFIED),   EXPECT(chmod_any, NOTIFIED),       EXPECT(fchmod_any, NOTIFIED),
    EXPECT(truncate_any, NOTIFIED),  EXPECT(bind_any, NOTIFIED),        EXPECT(connect_any, NOTIFIED),
    EXPECT(openat2_any, ENOSYS),     EXPECT(nested_listener, EPERM),    EXPECT(nested_plain, 0),
    EXPECT(unix_dgram, EACCES),      EXPECT(clone3_any, ENOSYS),        EXPECT(threads_work, 0),
};

static void the_gate_filter_notifies_writes_and_connects_and_nothing_else(void **state) {
  (void)state;
  check_all(false, BUILT, true, gate_expectations, sizeof gate_expectations / sizeof *gate_expectations);
}

static void stored_programs_loaded_as_the_front_does_behave_as_built_ones(void **state) {
  (void)state;
  check_all(false, STORED, true, gate_expectations, sizeof gate_expectations / sizeof *gate_expectations);
  const expectation e[] = {EXPECT(inet_stream, EAFNOSUPPORT), EXPECT(unshare_user, EPERM), EXPECT(keyctl_user, EPERM)};
  check_all(true, STORED, false, e, sizeof e / sizeof *e);
}

/* --- 32-bit programs (ia32 through int 0x80 from this 64-bit process) --------------------------------- */
#if defined(__x86_64__)
static long ia32(long nr, long a, long b, long c) {
  long ret;
  __asm__ volatile("int $0x80" : "=a"(ret) : "a"(nr), "b"(a), "c"(b), "d"(c) : "memory", "r8", "r9", "r10", "r11");
  return (int)ret < 0 ? -(int)ret : 0;
}
static char *low;  /* memory below 4 GiB, which ia32 syscalls can address */
static long ia32_open(int flags) {
  long ret;
  __asm__ volatile("int $0x80" : "=a"(ret) : "a"(5L), "b"((long)low), "c"((long)flags), "d"(0600L)
                   : "memory", "r8", "r9", "r10", "r11");
  if ((int)ret >= 0) close((int)ret);
  return (int)ret < 0 ? -(int)ret : 0;
}
static long ia32_open_read(void) { return ia32_open(O_RDONLY); }
static long ia32_open_write(void) { return ia32_open(O_WRONLY | O_CREAT); }
static long ia32_mkdir(void) { return ia32(39, (long)low, 0700, 0); }
static long ia32_socketcall_socket(void) {
  unsigned *args = (unsigned *)(low + 256);
  args[0] = AF_UNIX, args[1] = SOCK_STREAM, args[2] = 0;
  return ia32(102, 1 /* SYS_SOCKET */, (long)args, 0);
}
static long ia32_socket(void) { return ia32(359, AF_UNIX, SOCK_STREAM, 0); }
static long ia32_unshare_user(void) { return ia32(310, CLONE_NEWUSER, 0, 0); }
static long ia32_clone3(void) { return ia32(435, 0, 0, 0); }

static bool ia32_available(void) {
  pid_t pid = fork();
  if (pid == 0) _exit(ia32(20, 0, 0, 0) == 0 ? 0 : 1);  /* getpid */
  int st;
  return waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static void thirty_two_bit_programs_read_but_neither_write_nor_make_sockets(void **state) {
  (void)state;
  if (!ia32_available()) {
    skip();
    return;
  }
  low = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
  assert_true(low != MAP_FAILED);
  memcpy(low, target, sizeof target);
  const expectation e[] = {
      EXPECT(ia32_open_read, 0),          EXPECT(ia32_open_write, ENOSYS), EXPECT(ia32_mkdir, ENOSYS),
      EXPECT(ia32_socketcall_socket, EAFNOSUPPORT), EXPECT(ia32_socket, EAFNOSUPPORT),
      EXPECT(ia32_unshare_user, EPERM),   EXPECT(ia32_clone3, ENOSYS),
  };
  check_all(false, BUILT, true, e, sizeof e / sizeof *e);
  munmap(low, 4096);
}
#endif

static void both_programs_export_whole_instructions_and_read_back_as_rules(void **state) {
  (void)state;
  cordon_lx_plan *p = cordon_lx_plan_new();
  cordon_buf bpf = CORDON_BUF_INIT, pfc = CORDON_BUF_INIT;
  assert_true(cordon_lx_seccomp_export(p, CORDON_LX_SECCOMP_BASE, &bpf));
  assert_int_equal(bpf.len % 8, 0);
  assert_true(cordon_lx_seccomp_export_pfc(p, CORDON_LX_SECCOMP_GATE, &pfc));
  const char *text = cordon_buf_str(&pfc);
  assert_non_null(strstr(text, "arch x86_64"));
#if defined(__x86_64__)
  assert_non_null(strstr(text, "arch x86 "));  /* the compat ABI is answered, not left to the default */
  assert_non_null(strstr(text, "ERRNO(38)"));
#endif
  assert_true(strstr(text, "NOTIFY") || strstr(text, "0x7fc00000"));  /* libseccomp 2.5 prints the number */
  cordon_buf_free(&bpf);
  cordon_buf_free(&pfc);
  cordon_buf d = CORDON_BUF_INIT;
  p->network_restricted = true;
  cordon_lx_seccomp_describe(p, &d);
  assert_non_null(strstr(cordon_buf_str(&d), "sockets other than AF_UNIX"));
  cordon_buf_free(&d);
  cordon_lx_plan_free(p);
}

static int setup(void **state) {
  (void)state;
  snprintf(scratch, sizeof scratch, "/var/tmp/cordon-tests-seccomp.%ld", (long)getpid());
  if (mkdir(scratch, 0700) != 0) return -1;
  snprintf(target, sizeof target, "%s/target", scratch);
  int fd = open(target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return -1;
  close(fd);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", scratch);
  return system(cmd) == 0 ? 0 : -1;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(the_base_filter_refuses_what_no_process_of_a_run_may_do),
      cmocka_unit_test(the_base_filter_keeps_what_tools_and_the_gate_need),
      cmocka_unit_test(with_the_network_restricted_only_unix_sockets_are_made),
      cmocka_unit_test(the_gate_filter_notifies_writes_and_connects_and_nothing_else),
      cmocka_unit_test(stored_programs_loaded_as_the_front_does_behave_as_built_ones),
#if defined(__x86_64__)
      cmocka_unit_test(thirty_two_bit_programs_read_but_neither_write_nor_make_sockets),
#endif
      cmocka_unit_test(both_programs_export_whole_instructions_and_read_back_as_rules),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
