/* tests/c/gate_harness.h — running real operations through the gate (tests/c/test_gate*.c).
 *
 * A test forks a child which installs a notify filter for cordon_lx_gated_syscalls with libseccomp (as
 * the command does in a run: openat2 answered ENOSYS) and hands the listener to the parent, which serves
 * the gate on a hand-built plan until the child is gone. The child does real operations in a scratch
 * tree under /var/tmp/cordon-tests and reports through its exit status; the test then checks the disk.
 * Every test binary runs its whole group twice: as root, and as the unprivileged user cordontest (in a
 * forked process that drops to it) when it exists or can be made. Header-only: each test binary
 * includes it once. */
#ifndef CORDON_TEST_GATE_HARNESS_H
#define CORDON_TEST_GATE_HARNESS_H
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pwd.h>
#include <sched.h>
#include <seccomp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend/linux/eval.h"
#include "backend/linux/gate.h"
#include "backend/linux/plan.h"

#define GH_TESTS_DIR "/var/tmp/cordon-tests"
/* paths here are short scratch names; a truncated one would only fail the test */
#if defined(__GNUC__) && !defined(__clang__) /* clang has no such warning, and refuses the name */
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

/* The scratch tree of one test: `root` holds w/ (writable by the plan), w/protected/ and w/secret.txt
 * (denied by it), and outside/ (not granted at all). */
typedef struct {
  char root[PATH_MAX], w[PATH_MAX], outside[PATH_MAX];
  cordon_lx_plan *plan;
  char msgs[1 << 16];  /* the gate's refusal lines, after gh_run */
  const char *user;    /* "root" or "cordontest" */
} gh_env;

static const char *gh_user = "root";
static const char *gh_base = GH_TESTS_DIR;  /* where scratch trees go (the benchmark takes a tmpfs) */

static inline void gh_die(const char *what) {
  fprintf(stderr, "harness: %s: %s\n", what, strerror(errno));
  exit(99);
}

/* A path under the test's root: gh_path(e, "w/a") -> "<root>/w/a", valid for the next 255 calls (a
 * ring of buffers: tests keep what they need longer in arrays of their own). */
static inline const char *gh_path(const gh_env *e, const char *rel) {
  static char bufs[256][512];
  static unsigned n;
  char *b = bufs[n++ % 256];
  snprintf(b, 512, "%s/%s", e->root, rel);
  return b;
}

/* Writes `text` to `path` (made or truncated) inside the sandboxed child: 0, or the negative errno. */
static inline int gh_put(const char *path, const char *text) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return -errno;
  ssize_t n = write(fd, text, strlen(text));
  close(fd);
  return n == (ssize_t)strlen(text) ? 0 : -EIO;
}

/* A libc call's result as 0 or the negative errno. */
static inline int gh_err(int rc) { return rc < 0 ? -errno : 0; }

static inline void gh_sh(const char *fmt, ...) {
  char cmd[8192];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cmd, sizeof cmd, fmt, ap);
  va_end(ap);
  if (system(cmd) != 0) {
    fprintf(stderr, "harness: command failed: %s\n", cmd);
    exit(99);
  }
}

static inline void gh_write(const char *path, const char *text) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) gh_die(path);
  close(fd);
}

/* The file's text ("" when missing: check gh_exists), in a rotating static buffer. */
static inline const char *gh_read(const char *path) {
  static char bufs[4][1 << 16];
  static int n;
  char *b = bufs[n++ % 4];
  b[0] = '\0';
  int fd = open(path, O_RDONLY);
  if (fd < 0) return b;
  ssize_t r = read(fd, b, (1 << 16) - 1);
  b[r > 0 ? r : 0] = '\0';
  close(fd);
  return b;
}

static inline bool gh_exists(const char *path) {
  struct stat st;
  return lstat(path, &st) == 0;
}

static const unsigned char gh_levels_write[CORDON_LX_NCLASSES] = {0, 0x2, 0x2, 0x2, 0, 0};  /* file-write* */
__attribute__((unused)) static const unsigned char gh_levels_connect[CORDON_LX_NCLASSES] = {0, 0, 0, 0, 0, 0x1};    /* network-outbound */

static inline void gh_grule(gh_env *e, cordon_action a, const unsigned char *levels, const char *rel, bool subtree,
                     const char *source) {
  char p[PATH_MAX];
  snprintf(p, sizeof p, "%s%s%s", e->root, rel[0] ? "/" : "", rel);
  if (!cordon_lx_plan_add_grule(e->plan, a, levels, NULL, rel[0] == '/' ? rel : p, subtree, source, NULL, 0))
    gh_die("add_grule");
}

/* A rule with a filter (the plan deep-copies it; this frees the original). */
static inline void gh_grule_filter(gh_env *e, cordon_action a, const unsigned char *levels, cordon_filter *f, const char *source) {
  if (!cordon_lx_plan_add_grule(e->plan, a, levels, f, NULL, false, source, NULL, 0)) gh_die("add_grule");
  cordon_filter_free(f);
}

static const char *const gh_safe_keys[] = {
    "core.repositoryformatversion", "core.filemode", "core.bare", "core.logallrefupdates", "core.symlinks",
    "core.ignorecase", "core.precomposeunicode", "core.worktree", "remote.*.url", "remote.*.fetch",
    "branch.*.remote", "branch.*.merge", "submodule.*.url", "submodule.*.active", "user.name", "user.email",
    "extensions.worktreeconfig", "init.defaultbranch", "gc.auto", "maintenance.auto", NULL};

/* A fresh scratch tree and the plan described at gh_env. */
static inline void gh_setup(gh_env *e) {
  memset(e, 0, sizeof *e);
  e->user = gh_user;
  mkdir(gh_base, 01777);
  snprintf(e->root, sizeof e->root, "%s/gate-%s.XXXXXX", gh_base, gh_user);
  if (!mkdtemp(e->root)) gh_die("mkdtemp");
  snprintf(e->w, sizeof e->w, "%s/w", e->root);
  snprintf(e->outside, sizeof e->outside, "%s/outside", e->root);
  mkdir(e->w, 0755);
  mkdir(e->outside, 0755);
  mkdir(gh_path(e, "w/protected"), 0755);
  gh_write(gh_path(e, "w/secret.txt"), "secret\n");
  gh_write(gh_path(e, "w/protected/file"), "protected\n");
  gh_write(gh_path(e, "outside/file"), "outside\n");
  e->plan = cordon_lx_plan_new();
  if (!e->plan) gh_die("plan");
  static const unsigned char deny_default[CORDON_LX_NCLASSES] = {0, 0x8, 0x8, 0x8, 0, 0x4};
  if (!cordon_lx_plan_add_grule(e->plan, CORDON_DENY, deny_default, NULL, NULL, false, "test:1 (deny default)", NULL, 0))
    gh_die("grule");
  gh_grule(e, CORDON_ALLOW, gh_levels_write, "w", true, "test:2 (allow file-write* (subpath w))");
  gh_grule(e, CORDON_DENY, gh_levels_write, "w/protected", true, "test:3 (deny file-write* (subpath w/protected))");
  gh_grule(e, CORDON_DENY, gh_levels_write, "w/secret.txt", false, "test:4 (deny file-write* (literal w/secret.txt))");
  /* the devices a shell writes to, as every profile grants them */
  gh_grule(e, CORDON_ALLOW, gh_levels_write, "/dev/null", false, "test:5 (allow file-write* (literal /dev/null))");
  for (const char *const *k = gh_safe_keys; *k; k++)
    if (!cordon_lx_plan_add_git_safe_key(e->plan, *k)) gh_die("safe key");
}

static inline void gh_teardown(gh_env *e) {
  gh_sh("chmod -R u+rwX '%s' 2>/dev/null; rm -rf '%s'", e->root, e->root);
  cordon_lx_plan_free(e->plan);
}

static inline void gh_write_proc(const char *file, const char *text) {
  int fd = open(file, O_WRONLY);
  if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) gh_die(file);
  close(fd);
}

/* Keeps exactly `caps` (a bit set of CAP_* numbers below 32), effective and permitted. */
static inline void gh_keep_caps(uint32_t caps) {
  struct { uint32_t version; int pid; } hdr = {0x20080522 /* _LINUX_CAPABILITY_VERSION_3 */, 0};
  struct { uint32_t effective, permitted, inheritable; } data[2] = {{caps, caps, 0}, {0, 0, 0}};
  if (syscall(SYS_capset, &hdr, data) != 0) gh_die("capset");
}
#define GH_CAP_SYS_PTRACE 19

/* --- the child's side -------------------------------------------------------------------------------- */
static inline int gh_rule(scmp_filter_ctx ctx, uint32_t act, int nr, unsigned n, const struct scmp_arg_cmp *cmp) {
  return seccomp_rule_add_array(ctx, act, nr, n, cmp);
}

/* The command's gate filter: a notification for every gated syscall (opens only when they write). */
static inline int gh_install_filter(void) {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (!ctx) return -1;
  /* the compat ABIs too, as the run's filter does: their calls reach the gate, which answers ENOSYS */
  int rc = seccomp_arch_add(ctx, SCMP_ARCH_X86);
  if (rc == -EEXIST) rc = 0;
  for (const cordon_lx_gated_syscall *s = cordon_lx_gated_syscalls; s->name && rc == 0; s++) {
    int nr = seccomp_syscall_resolve_name(s->name);
    if (nr == __NR_SCMP_ERROR && strcmp(s->name, "fchmodat2") == 0) nr = 452;  /* libseccomp 2.5.4 lacks it */
    if (nr == __NR_SCMP_ERROR) continue;
    if (s->flags_arg < 0) {
      rc = gh_rule(ctx, SCMP_ACT_NOTIFY, nr, 0, NULL);
      continue;
    }
    const struct {
      uint64_t mask, value;
    } writes[] = {{O_ACCMODE, O_WRONLY}, {O_ACCMODE, O_RDWR}, {O_ACCMODE, O_ACCMODE}, {O_CREAT, O_CREAT}, {O_TRUNC, O_TRUNC}};
    for (size_t i = 0; i < sizeof writes / sizeof writes[0] && rc == 0; i++) {
      struct scmp_arg_cmp cmp = {.arg = (unsigned)s->flags_arg, .op = SCMP_CMP_MASKED_EQ, .datum_a = writes[i].mask,
                                 .datum_b = writes[i].value};
      rc = gh_rule(ctx, SCMP_ACT_NOTIFY, nr, 1, &cmp);
    }
  }
  if (rc == 0) rc = gh_rule(ctx, SCMP_ACT_ERRNO(ENOSYS), seccomp_syscall_resolve_name("openat2"), 0, NULL);
  if (rc == 0) rc = seccomp_load(ctx);
  int fd = rc == 0 ? seccomp_notify_fd(ctx) : -1;
  seccomp_release(ctx);
  return fd;
}

static inline void gh_send_fd(int sock, int fd) {
  char byte = 0, ctl[CMSG_SPACE(sizeof(int))];
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl};
  struct cmsghdr *c = CMSG_FIRSTHDR(&m);
  c->cmsg_level = SOL_SOCKET, c->cmsg_type = SCM_RIGHTS, c->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(c), &fd, sizeof fd);
  if (sendmsg(sock, &m, 0) != 1) _exit(98);
}

static inline int gh_recv_fd(int sock) {
  char byte, ctl[CMSG_SPACE(sizeof(int))];
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl};
  if (recvmsg(sock, &m, 0) != 1) return -1;
  struct cmsghdr *c = CMSG_FIRSTHDR(&m);
  if (!c || c->cmsg_type != SCM_RIGHTS) return -1;
  int fd;
  memcpy(&fd, CMSG_DATA(c), sizeof fd);
  return fd;
}

/* What the child reports: gh_check(cond, "what") records the first failure; the child's exit status is
 * the number of failures, and their descriptions go to stderr. */
static int gh_failures;
#define gh_check(cond, ...)                                                        \
  do {                                                                             \
    if (!(cond)) {                                                                 \
      gh_failures++;                                                               \
      fprintf(stderr, "  child check failed (%s:%d): ", __FILE__, __LINE__);       \
      fprintf(stderr, __VA_ARGS__);                                                \
      fprintf(stderr, " [errno %d %s]\n", errno, strerror(errno));                 \
    }                                                                              \
  } while (0)
/* A syscall's result: -errno or the value. */
#define gh_sys(...) (syscall(__VA_ARGS__) < 0 ? -errno : 0)

typedef void (*gh_child_fn)(gh_env *e, void *arg);

/* Runs `fn` in a child under the gate (or without it when `gated` is false, for comparisons); returns the
 * child's number of failed checks (or 100 + signal). The gate's refusals land in e->msgs. */
static inline int gh_run_mode(gh_env *e, gh_child_fn fn, void *arg, bool gated) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) gh_die("socketpair");
  int msg = memfd_create("gate-msgs", MFD_CLOEXEC);
  if (msg < 0) gh_die("memfd");
  cordon_lx_gate *g = NULL;
  cordon_buf err = CORDON_BUF_INIT;
  if (gated && cordon_lx_gate_new(e->plan, msg, &g, &err) != CORDON_LX_OK) {
    fprintf(stderr, "harness: gate_new: %s\n", cordon_buf_str(&err));
    exit(99);
  }
  cordon_buf_free(&err);
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) gh_die("fork");
  if (pid == 0) {
    close(sv[0]);
    if (gated) {
      gh_keep_caps(0);  /* the command keeps none */
      if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) _exit(97);
      int l = gh_install_filter();
      if (l < 0) _exit(96);
      gh_send_fd(sv[1], l);
      close(l);
    }
    close(sv[1]);
    gh_failures = 0;
    fn(e, arg);
    fflush(NULL);
    _exit(gh_failures > 90 ? 90 : gh_failures);
  }
  close(sv[1]);
  int status = 0;
  if (gated) {
    int l = gh_recv_fd(sv[0]);
    if (l < 0) {
      waitpid(pid, &status, 0);
      fprintf(stderr, "harness: no listener from the child (status %d)\n", status);
      exit(99);
    }
    cordon_lx_gate_attach(g, l);
    bool reaped = false;
    for (;;) {
      struct pollfd p = {.fd = cordon_lx_gate_fd(g), .events = POLLIN};
      poll(&p, 1, reaped ? 0 : 20);
      bool more = cordon_lx_gate_serve(g);
      if (!reaped && waitpid(pid, &status, WNOHANG) == pid) reaped = true;
      if (reaped && !more) break;
    }
    cordon_lx_gate_free(g);
  } else {
    waitpid(pid, &status, 0);
  }
  close(sv[0]);
  ssize_t n = pread(msg, e->msgs, sizeof e->msgs - 1, 0);
  e->msgs[n > 0 ? n : 0] = '\0';
  close(msg);
  if (getenv("GATE_TEST_VERBOSE") && e->msgs[0]) fprintf(stderr, "gate said:\n%s", e->msgs);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

static inline int gh_run(gh_env *e, gh_child_fn fn, void *arg) { return gh_run_mode(e, fn, arg, true); }

/* --- running each group as root and as cordontest ----------------------------------------------------- */

/* As a run does: a user namespace mapping the user to itself, and only CAP_SYS_PTRACE kept in it (init's
 * one capability; gh_run's child drops it too, as the command does). Without it the gate could not read
 * a caller that is not dumpable (test_gate_syscalls.c execs one: a process's memory belongs to the user
 * namespace it exec'd in). */
static inline void gh_enter_userns(void) {
  uid_t uid = geteuid();
  gid_t gid = getegid();
  prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);  /* a uid change cleared it: /proc/self would be root's to write */
  if (unshare(CLONE_NEWUSER) != 0) gh_die("unshare(CLONE_NEWUSER)");
  char map[64];
  gh_write_proc("/proc/self/setgroups", "deny");
  snprintf(map, sizeof map, "%u %u 1\n", (unsigned)uid, (unsigned)uid);
  gh_write_proc("/proc/self/uid_map", map);
  snprintf(map, sizeof map, "%u %u 1\n", (unsigned)gid, (unsigned)gid);
  gh_write_proc("/proc/self/gid_map", map);
  gh_keep_caps(1u << GH_CAP_SYS_PTRACE);
}

static inline int gh_run_as(int (*group)(void), const char *user) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) gh_die("fork");
  if (pid == 0) {
    struct passwd *pw = getpwnam(user);
    if (!pw) _exit(99);
    if (pw->pw_uid != geteuid() &&
        (setgroups(0, NULL) != 0 || setgid(pw->pw_gid) != 0 || setuid(pw->pw_uid) != 0))
      _exit(99);
    gh_user = user;
    setenv("HOME", GH_TESTS_DIR, 1);
    gh_enter_userns();
    _exit(group() ? 1 : 0);
  }
  int st;
  waitpid(pid, &st, 0);
  return !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* Runs `group` as root and again as cordontest (created when missing, as tests/enforce/lib.sh does),
 * each in a user namespace of its own; as an ordinary user, once as that user. Returns the failures. */
static inline int gh_main(int (*group)(void)) {
  if (geteuid() != 0) {
    struct passwd *pw = getpwuid(geteuid());
    return gh_run_as(group, pw ? pw->pw_name : "nobody");
  }
  mkdir(gh_base, 01777);
  chmod(gh_base, 01777);
  if (!getpwnam("cordontest")) (void)system("useradd -M -s /bin/sh cordontest >/dev/null 2>&1");
  int failed = gh_run_as(group, "root");
  if (!getpwnam("cordontest")) {
    fprintf(stderr, "note: no user cordontest; ran as root only\n");
    return failed;
  }
  return failed + gh_run_as(group, "cordontest");
}
#endif
