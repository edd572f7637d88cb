/* needs: linux */
/* tests/c/test_gate_syscalls.c — every gated syscall, issued by number, allowed where the plan grants
 * writing and refused where it does not; the disk is checked afterwards. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "gate_harness.h"

#include <sys/un.h>

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif

static int unix_socket(void) { return socket(AF_UNIX, SOCK_STREAM, 0); }

static struct sockaddr_un unix_addr(const char *path, socklen_t *len) {
  struct sockaddr_un a = {.sun_family = AF_UNIX};
  snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
  *len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path) + 1);
  return a;
}

static void do_allowed(gh_env *e, void *arg) {
  (void)arg;
  if (chdir(e->w) != 0) gh_check(0, "chdir");
  int dir = open(e->w, O_RDONLY | O_DIRECTORY);
  long fd = syscall(SYS_open, "a", O_WRONLY | O_CREAT, 0644);
  gh_check(fd >= 0 && write((int)fd, "A", 1) == 1, "open O_CREAT relative to the cwd");
  close((int)fd);
  fd = syscall(SYS_openat, dir, "b", O_RDWR | O_CREAT | O_EXCL, 0600);
  gh_check(fd >= 0 && write((int)fd, "BBBBBB", 6) == 6, "openat O_EXCL relative to a dirfd");
  close((int)fd);
  fd = syscall(SYS_creat, gh_path(e, "w/c"), 0644);
  gh_check(fd >= 0 && write((int)fd, "C", 1) == 1, "creat by absolute path");
  close((int)fd);
  fd = syscall(SYS_open, "a", O_WRONLY | O_APPEND);
  gh_check(fd >= 0 && write((int)fd, "a", 1) == 1, "open an existing file for appending");
  close((int)fd);
  gh_check(gh_sys(SYS_mkdir, "d", 0755) == 0, "mkdir");
  gh_check(gh_sys(SYS_mkdirat, dir, "d2", 0755) == 0, "mkdirat");
  gh_check(gh_sys(SYS_mknod, "fifo", S_IFIFO | 0600, 0) == 0, "mknod a fifo");
  gh_check(gh_sys(SYS_mknodat, dir, "reg", S_IFREG | 0600, 0) == 0, "mknodat a regular file");
  gh_check(gh_sys(SYS_symlink, "a", "sl") == 0, "symlink");
  gh_check(gh_sys(SYS_symlinkat, "b", dir, "sl2") == 0, "symlinkat");
  gh_check(gh_sys(SYS_link, "a", "a.link") == 0, "link");
  gh_check(gh_sys(SYS_linkat, dir, "b", AT_FDCWD, "b.link", 0) == 0, "linkat");
  gh_check(gh_sys(SYS_rename, "c", "c2") == 0, "rename");
  gh_check(gh_sys(SYS_renameat, dir, "c2", dir, "c3") == 0, "renameat");
  gh_check(gh_sys(SYS_renameat2, dir, "c3", dir, "c4", 1 /* RENAME_NOREPLACE */) == 0, "renameat2");
  gh_check(gh_sys(SYS_unlink, "a.link") == 0, "unlink");
  gh_check(gh_sys(SYS_unlinkat, dir, "b.link", 0) == 0, "unlinkat");
  gh_check(gh_sys(SYS_rmdir, "d2") == 0, "rmdir");
  gh_check(gh_sys(SYS_truncate, "b", 3) == 0, "truncate");
  gh_check(gh_sys(SYS_chmod, "a", 0600) == 0, "chmod");
  gh_check(gh_sys(SYS_fchmodat, dir, "b", 0640) == 0, "fchmodat");
  gh_check(gh_sys(SYS_fchmodat2, dir, "c4", 0604, 0) == 0, "fchmodat2");
  fd = open("reg", O_RDONLY);
  gh_check(gh_sys(SYS_fchmod, (int)fd, 0611) == 0, "fchmod");
  close((int)fd);
  socklen_t len;
  struct sockaddr_un a = unix_addr("sock", &len);
  int s = unix_socket(), c = unix_socket();
  gh_check(gh_sys(SYS_bind, s, &a, len) == 0, "bind a unix socket by a relative path");
  gh_check(listen(s, 4) == 0, "listen");
  gh_check(gh_sys(SYS_connect, c, &a, len) == 0, "connect to a socket bound inside");
  close(s), close(c), close(dir);
}

static void every_gated_syscall_is_performed_where_the_plan_allows_writing(void **state) {
  (void)state;
  gh_env e;
  gh_setup(&e);
  assert_int_equal(gh_run(&e, do_allowed, NULL), 0);
  assert_string_equal(gh_read(gh_path(&e, "w/a")), "Aa");
  assert_string_equal(gh_read(gh_path(&e, "w/b")), "BBB");
  assert_string_equal(gh_read(gh_path(&e, "w/c4")), "C");
  struct stat st;
  assert_int_equal(stat(gh_path(&e, "w/d"), &st), 0);
  assert_true(S_ISDIR(st.st_mode));
  assert_false(gh_exists(gh_path(&e, "w/d2")));
  assert_int_equal(lstat(gh_path(&e, "w/fifo"), &st), 0);
  assert_true(S_ISFIFO(st.st_mode));
  assert_int_equal(stat(gh_path(&e, "w/reg"), &st), 0);
  assert_int_equal(st.st_mode & 07777, 0611);
  assert_int_equal(stat(gh_path(&e, "w/a"), &st), 0);
  assert_int_equal(st.st_mode & 07777, 0600);
  assert_int_equal(stat(gh_path(&e, "w/b"), &st), 0);
  assert_int_equal(st.st_mode & 07777, 0640);
  assert_int_equal(stat(gh_path(&e, "w/c4"), &st), 0);
  assert_int_equal(st.st_mode & 07777, 0604);
  char link[64] = {0};
  assert_true(readlink(gh_path(&e, "w/sl2"), link, sizeof link - 1) == 1 && link[0] == 'b');
  assert_false(gh_exists(gh_path(&e, "w/a.link")));
  assert_int_equal(lstat(gh_path(&e, "w/sock"), &st), 0);
  assert_true(S_ISSOCK(st.st_mode));
  assert_string_equal(e.msgs, "");
  gh_teardown(&e);
}

/* Each refused operation, on a protected name, leaves it as it was. */
static void do_refused(gh_env *e, void *arg) {
  (void)arg;
  const char *sec = gh_path(e, "w/secret.txt"), *pf = gh_path(e, "w/protected/file");
  const char *pn = gh_path(e, "w/protected/new"), *out = gh_path(e, "outside/new");
  gh_check(gh_sys(SYS_open, sec, O_WRONLY) == -EPERM, "open a denied file for writing");
  gh_check(gh_sys(SYS_open, sec, O_RDONLY | O_TRUNC) == -EPERM, "truncating open of a denied file");
  gh_check(gh_sys(SYS_openat, AT_FDCWD, pn, O_WRONLY | O_CREAT, 0644) == -EPERM, "openat O_CREAT in a denied dir");
  gh_check(gh_sys(SYS_creat, out, 0644) == -EPERM, "creat outside the writable roots");
  gh_check(gh_sys(SYS_mkdir, pn, 0755) == -EPERM, "mkdir in a denied dir");
  gh_check(gh_sys(SYS_mkdirat, AT_FDCWD, out, 0755) == -EPERM, "mkdirat outside");
  gh_check(gh_sys(SYS_mknod, pn, S_IFIFO | 0600, 0) == -EPERM, "mknod");
  gh_check(gh_sys(SYS_mknodat, AT_FDCWD, out, S_IFREG | 0600, 0) == -EPERM, "mknodat");
  gh_check(gh_sys(SYS_symlink, "x", pn) == -EPERM, "symlink");
  gh_check(gh_sys(SYS_symlinkat, "x", AT_FDCWD, out) == -EPERM, "symlinkat");
  gh_check(gh_sys(SYS_link, pf, gh_path(e, "w/pf.link")) == -EXDEV, "link from a denied file (Landlock's answer)");
  gh_check(gh_sys(SYS_linkat, AT_FDCWD, gh_path(e, "w/ok"), AT_FDCWD, pn, 0) == -EPERM, "linkat into a denied dir");
  gh_check(gh_sys(SYS_rename, pf, gh_path(e, "w/moved")) == -EPERM, "rename out of a denied dir");
  gh_check(gh_sys(SYS_renameat, AT_FDCWD, gh_path(e, "w/ok"), AT_FDCWD, sec, 0) == -EPERM, "renameat onto a denied file");
  gh_check(gh_sys(SYS_renameat2, AT_FDCWD, gh_path(e, "w/ok"), AT_FDCWD, out, 0) == -EPERM, "renameat2 outside");
  gh_check(gh_sys(SYS_unlink, sec) == -EPERM, "unlink");
  gh_check(gh_sys(SYS_unlinkat, AT_FDCWD, pf, 0) == -EPERM, "unlinkat");
  gh_check(gh_sys(SYS_rmdir, gh_path(e, "w/protected/sub")) == -EPERM, "rmdir");
  gh_check(gh_sys(SYS_truncate, sec, 0) == -EPERM, "truncate");
  gh_check(gh_sys(SYS_chmod, sec, 0777) == -EPERM, "chmod");
  gh_check(gh_sys(SYS_fchmodat, AT_FDCWD, pf, 0777) == -EPERM, "fchmodat");
  gh_check(gh_sys(SYS_fchmodat2, AT_FDCWD, pf, 0777, 0) == -EPERM, "fchmodat2");
  int fd = open(sec, O_RDONLY);
  gh_check(gh_sys(SYS_fchmod, fd, 0777) == -EPERM, "fchmod of a descriptor opened to read");
  close(fd);
  socklen_t len;
  struct sockaddr_un a = unix_addr(pn, &len);
  int s = unix_socket();
  gh_check(gh_sys(SYS_bind, s, &a, len) == -EPERM, "bind in a denied dir");
  close(s);
  a = unix_addr(gh_path(e, "w/host.sock"), &len);
  s = unix_socket();
  gh_check(gh_sys(SYS_connect, s, &a, len) == -EACCES, "connect to a socket neither named nor bound inside");
  close(s);
}

static void every_gated_syscall_is_refused_where_the_plan_does_not_allow_it(void **state) {
  (void)state;
  gh_env e;
  gh_setup(&e);
  gh_write(gh_path(&e, "w/ok"), "ok\n");
  mkdir(gh_path(&e, "w/protected/sub"), 0755);
  /* a socket bound outside the gate, as a host server's would be */
  int s = socket(AF_UNIX, SOCK_STREAM, 0);
  socklen_t len;
  struct sockaddr_un a = unix_addr(gh_path(&e, "w/host.sock"), &len);
  assert_int_equal(bind(s, (struct sockaddr *)&a, len), 0);
  assert_int_equal(listen(s, 4), 0);
  assert_int_equal(gh_run(&e, do_refused, NULL), 0);
  close(s);
  assert_string_equal(gh_read(gh_path(&e, "w/secret.txt")), "secret\n");
  assert_string_equal(gh_read(gh_path(&e, "w/protected/file")), "protected\n");
  assert_false(gh_exists(gh_path(&e, "w/protected/new")));
  assert_false(gh_exists(gh_path(&e, "outside/new")));
  assert_false(gh_exists(gh_path(&e, "w/pf.link")));
  assert_false(gh_exists(gh_path(&e, "w/moved")));
  assert_true(gh_exists(gh_path(&e, "w/ok")));
  assert_true(gh_exists(gh_path(&e, "w/protected/sub")));
  struct stat st;
  assert_int_equal(stat(gh_path(&e, "w/secret.txt"), &st), 0);
  assert_int_equal(st.st_mode & 07777, 0644);
  /* one line per path, naming the rule */
  assert_non_null(strstr(e.msgs, "cordon: refused write "));
  assert_non_null(strstr(e.msgs, "test:4 (deny file-write* (literal w/secret.txt))"));
  assert_non_null(strstr(e.msgs, "test:1 (deny default)"));
  assert_non_null(strstr(e.msgs, "cordon: refused connect "));
  const char *first = strstr(e.msgs, "secret.txt:");
  assert_non_null(first);
  assert_null(strstr(first + 1, "secret.txt:"));
  gh_teardown(&e);
}

static void do_unknown(gh_env *e, void *arg) {
  (void)e, (void)arg;
  /* openat2 is answered ENOSYS by the filter itself: libc falls back to openat */
  gh_check(gh_sys(SYS_openat2, AT_FDCWD, "/x", NULL, 0) == -ENOSYS, "openat2 is ENOSYS");
}

static void openat2_is_answered_enosys_so_every_libc_falls_back_to_openat(void **state) {
  (void)state;
  gh_env e;
  gh_setup(&e);
  assert_int_equal(gh_run(&e, do_unknown, NULL), 0);
  gh_teardown(&e);
}

static long ia32_open(const char *path, int flags) {
  long r;
  __asm__ volatile("int $0x80" : "=a"(r) : "a"(5L /* ia32 open */), "b"(path), "c"((long)flags), "d"(0644L) : "memory");
  return r;
}

static void do_ia32(gh_env *e, void *arg) {
  (void)arg;
  char *low = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
  snprintf(low, 4096, "%s/ia32", e->w);
  gh_check(ia32_open(low, O_WRONLY | O_CREAT) == -ENOSYS, "an ia32 open is answered ENOSYS");
}

static void a_call_from_another_architecture_is_answered_enosys(void **state) {
  (void)state;
  gh_env e;
  gh_setup(&e);
  assert_int_equal(gh_run(&e, do_ia32, NULL), 0);
  assert_false(gh_exists(gh_path(&e, "w/ia32")));
  gh_teardown(&e);
}

static void do_many_refusals(gh_env *e, void *arg) {
  (void)arg;
  for (int i = 0; i < 150; i++) {
    char p[600];
    snprintf(p, sizeof p, "%s/n%03d", e->outside, i);
    gh_check(open(p, O_WRONLY | O_CREAT, 0644) < 0 && errno == EPERM, "refused");
    gh_check(open(p, O_WRONLY | O_CREAT, 0644) < 0 && errno == EPERM, "refused again");
  }
}

static void refusals_are_reported_once_per_path_and_at_most_a_hundred_lines_a_run(void **state) {
  (void)state;
  gh_env e;
  gh_setup(&e);
  assert_int_equal(gh_run(&e, do_many_refusals, NULL), 0);
  int lines = 0;
  for (const char *p = e.msgs; (p = strchr(p, '\n')); p++) lines++;
  assert_int_equal(lines, 100);
  assert_non_null(strstr(e.msgs, "/outside/n000: "));
  assert_null(strstr(strstr(e.msgs, "/outside/n000: ") + 1, "/outside/n000: "));
  assert_non_null(strstr(e.msgs, "/outside/n099: the policy denies file-write-create here; grant it with --add-dirs or "
                                 "in a profile, or do it outside the sandbox (test:1 (deny default)); further refusals "
                                 "are not reported\n"));
  assert_null(strstr(e.msgs, "/outside/n100"));
  gh_teardown(&e);
}

/* --- a caller that made itself non-dumpable (ssh-agent and gpg-agent do) ---------------------------- */
static const char *self_exe;

static void do_exec_nondumpable(gh_env *e, void *arg) {
  (void)arg;
  char target[600];
  snprintf(target, sizeof target, "%s/nondumpable", e->w);
  pid_t pid = fork();
  if (pid == 0) {
    execl(self_exe, self_exe, "--nondumpable-create", target, (char *)NULL);
    _exit(90);
  }
  int st;
  waitpid(pid, &st, 0);
  gh_check(WIFEXITED(st), "the helper ran");
  if (arg == NULL) gh_check(WEXITSTATUS(st) == 0, "served although not dumpable");
  else gh_check(WEXITSTATUS(st) == 3, "refused with EPERM (%d)", WEXITSTATUS(st));
}

/* The helper, exec'd under the gate: its memory now belongs to the run's user namespace. */
static int nondumpable_create(const char *path) {
  prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  int fd = open(path, O_WRONLY | O_CREAT, 0644);
  return fd >= 0 ? 0 : errno == EPERM ? 3 : 4;
}

static void a_non_dumpable_caller_is_served_with_the_gates_ptrace_capability(void **state) {
  (void)state;
  gh_env e;
  gh_setup(&e);
  assert_int_equal(gh_run(&e, do_exec_nondumpable, NULL), 0);
  assert_true(gh_exists(gh_path(&e, "w/nondumpable")));
  gh_teardown(&e);
}

static void without_that_capability_a_non_dumpable_caller_is_refused_and_nothing_is_done(void **state) {
  (void)state;
  gh_env e;
  gh_setup(&e);
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    gh_keep_caps(0);  /* a gate that lost CAP_SYS_PTRACE: it cannot read the caller, so it refuses */
    _exit(gh_run(&e, do_exec_nondumpable, (void *)1));
  }
  int st;
  waitpid(pid, &st, 0);
  assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  assert_false(gh_exists(gh_path(&e, "w/nondumpable")));
  gh_teardown(&e);
}

static int group(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(every_gated_syscall_is_performed_where_the_plan_allows_writing),
      cmocka_unit_test(every_gated_syscall_is_refused_where_the_plan_does_not_allow_it),
      cmocka_unit_test(openat2_is_answered_enosys_so_every_libc_falls_back_to_openat),
      cmocka_unit_test(a_call_from_another_architecture_is_answered_enosys),
      cmocka_unit_test(refusals_are_reported_once_per_path_and_at_most_a_hundred_lines_a_run),
      cmocka_unit_test(a_non_dumpable_caller_is_served_with_the_gates_ptrace_capability),
      cmocka_unit_test(without_that_capability_a_non_dumpable_caller_is_refused_and_nothing_is_done),
  };
  return cmocka_run_group_tests_name(gh_user, tests, NULL, NULL);
}

/* A copy of this binary that cordontest can run: the build directory may sit in a clone of mode 0700. */
static const char *runnable_copy(char out[PATH_MAX]) {
  mkdir(GH_TESTS_DIR, 01777);
  snprintf(out, PATH_MAX, "%s/gate-syscalls-helper.%ld", GH_TESTS_DIR, (long)getpid());
  int in = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  int to = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
  char buf[65536];
  ssize_t n = 0;
  while (in >= 0 && to >= 0 && (n = read(in, buf, sizeof buf)) > 0)
    if (write(to, buf, (size_t)n) != n) n = -1;
  bool ok = in >= 0 && to >= 0 && n == 0 && fchmod(to, 0755) == 0;
  if (in >= 0) close(in);
  if (to >= 0) close(to);
  if (!ok) gh_die("copying the test binary");
  return out;
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--nondumpable-create") == 0) return nondumpable_create(argv[2]);
  static char exe[PATH_MAX];
  self_exe = runnable_copy(exe);
  int failed = gh_main(group);
  unlink(exe);
  return failed;
}
