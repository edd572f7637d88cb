/* needs: linux */
/* tests/c/test_procsetup.c — descriptors a command inherits, its session keyring, and user namespaces
 * below the run's own (procsetup.h). Each case runs in a child and checks the outcome there: which
 * descriptors a program exec'd afterwards holds, which keys it can find, what unshare answers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "backend/linux/procsetup.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/keyctl.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int child_status(int (*fn)(void)) {
  pid_t pid = fork();
  if (pid == 0) _exit(fn());
  int st;
  if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st)) return -1;
  return WEXITSTATUS(st);
}

static bool is_open(int fd) { return fcntl(fd, F_GETFD) >= 0; }

/* descriptors 5, 7, 9 (close-on-exec) and 100 open; keep 9 and 7 (twice); then exec a shell that reports
 * what it holds: the outcome after execve, which is what the command sees */
static int keep_and_exec(void) {
  int fd = open("/dev/null", O_RDONLY);
  if (fd < 0 || dup2(fd, 5) != 5 || dup2(fd, 7) != 7 || dup3(fd, 9, O_CLOEXEC) != 9 || dup2(fd, 100) != 100) return 1;
  if (fd != 5 && fd != 7 && fd != 9 && fd != 100) close(fd);
  const int keep[] = {9, 7, 7, 1};
  cordon_buf msg = CORDON_BUF_INIT;
  if (cordon_lx_fds_close_inherited(keep, 4, &msg) != CORDON_LX_OK) return 2;
  if (is_open(5) || is_open(100) || !is_open(7) || !is_open(9) || !is_open(0) || !is_open(1) || !is_open(2)) return 3;
  execl("/bin/sh", "sh", "-c", "test -e /proc/self/fd/7 && test -e /proc/self/fd/9 && ! test -e /proc/self/fd/5 && "
                               "! test -e /proc/self/fd/100", (char *)NULL);
  return 4;
}

static void descriptors_above_2_are_closed_and_the_kept_ones_survive_exec(void **state) {
  (void)state;
  assert_int_equal(child_status(keep_and_exec), 0);
}

static int without_close_range(void) {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (!ctx || seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(close_range), 0) != 0 || seccomp_load(ctx) != 0)
    return 10;
  seccomp_release(ctx);
  if (syscall(SYS_close_range, 50, 60, 0) == 0 || errno != ENOSYS) return 11;  /* the filter holds */
  return keep_and_exec();
}

static void without_close_range_proc_lists_what_to_close(void **state) {
  (void)state;
  assert_int_equal(child_status(without_close_range), 0);
}

static int keep_closed(void) {
  close(41);
  const int keep[] = {41};
  cordon_buf msg = CORDON_BUF_INIT;
  cordon_lx_status st = cordon_lx_fds_close_inherited(keep, 1, &msg);
  return st == CORDON_LX_SETUP_FAILED && strstr(cordon_buf_str(&msg), "descriptor 41 (--pass-fd) is not open") ? 0 : 1;
}

static void a_kept_descriptor_that_is_not_open_fails_the_run(void **state) {
  (void)state;
  assert_int_equal(child_status(keep_closed), 0);
}

static long keyctl(int op, long a, long b, long c) { return syscall(SYS_keyctl, op, a, b, c, 0); }

static int fresh_keyring(void) {
  /* a session keyring of the caller's, with a key in it */
  if (keyctl(KEYCTL_JOIN_SESSION_KEYRING, 0, 0, 0) < 0) return errno == ENOSYS ? 0 : 20;
  long before = keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0, 0);
  long key = syscall(SYS_add_key, "user", "cordon-test-secret", "s3cr3t", 6, KEY_SPEC_SESSION_KEYRING);
  if (before < 0 || key < 0) return 21;
  cordon_buf msg = CORDON_BUF_INIT;
  if (cordon_lx_keyring_fresh(&msg) != CORDON_LX_OK) return 22;
  long after = keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0, 0);
  if (after < 0 || after == before) return 23;
  long found = keyctl(KEYCTL_SEARCH, KEY_SPEC_SESSION_KEYRING, (long)"user", (long)"cordon-test-secret");
  return found < 0 && errno == ENOKEY ? 0 : 24;
}

static void the_run_joins_a_session_keyring_without_the_callers_keys(void **state) {
  (void)state;
  assert_int_equal(child_status(fresh_keyring), 0);
}

static bool write_file(const char *path, const char *text) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  bool ok = fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text);
  if (fd >= 0) close(fd);
  return ok;
}

static long read_number(const char *path) {
  FILE *f = fopen(path, "re");
  long v = -1;
  if (f && fscanf(f, "%ld", &v) != 1) v = -1;
  if (f) fclose(f);
  return v;
}

static int nested_before_forbidding(void) {
  uid_t uid = getuid();
  gid_t gid = getgid();
  char map[64];
  if (unshare(CLONE_NEWUSER) != 0) return 30;
  snprintf(map, sizeof map, "%u %u 1", (unsigned)uid, (unsigned)uid);
  if (!write_file("/proc/self/setgroups", "deny") || !write_file("/proc/self/uid_map", map)) return 31;
  snprintf(map, sizeof map, "%u %u 1", (unsigned)gid, (unsigned)gid);
  if (!write_file("/proc/self/gid_map", map)) return 32;
  if (unshare(CLONE_NEWUSER) != 0) return 33;  /* still possible before */
  return 0;
}

static int userns_forbidden(void) {
  uid_t uid = getuid();
  gid_t gid = getgid();
  char map[64];
  if (unshare(CLONE_NEWUSER) != 0) return 40;
  snprintf(map, sizeof map, "%u %u 1", (unsigned)uid, (unsigned)uid);
  if (!write_file("/proc/self/setgroups", "deny") || !write_file("/proc/self/uid_map", map)) return 41;
  snprintf(map, sizeof map, "%u %u 1", (unsigned)gid, (unsigned)gid);
  if (!write_file("/proc/self/gid_map", map)) return 42;
  cordon_buf msg = CORDON_BUF_INIT;
  if (cordon_lx_userns_forbid(&msg) != CORDON_LX_OK) return 43;
  if (read_number("/proc/sys/user/max_user_namespaces") != 0) return 44;
  if (unshare(CLONE_NEWUSER) == 0 || errno != ENOSPC) return 45;
  pid_t pid = fork();  /* a child of the run cannot either */
  if (pid == 0) _exit(unshare(CLONE_NEWUSER) == 0 ? 1 : 0);
  int st;
  return waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 46;
}

static void nothing_below_the_runs_user_namespace_can_make_another(void **state) {
  (void)state;
  assert_int_equal(child_status(nested_before_forbidding), 0);  /* the probe can tell: they work before */
  assert_int_equal(child_status(userns_forbidden), 0);
}

static int forbid_outside(void) {
  cordon_buf msg = CORDON_BUF_INIT;
  return cordon_lx_userns_forbid(&msg) == CORDON_LX_SETUP_FAILED ? 0 : 1;
}

static void the_machines_own_user_namespace_is_never_touched(void **state) {
  (void)state;
  long before = read_number("/proc/sys/user/max_user_namespaces");
  assert_int_equal(child_status(forbid_outside), 0);
  assert_int_equal(read_number("/proc/sys/user/max_user_namespaces"), before);
  assert_true(before > 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(descriptors_above_2_are_closed_and_the_kept_ones_survive_exec),
      cmocka_unit_test(without_close_range_proc_lists_what_to_close),
      cmocka_unit_test(a_kept_descriptor_that_is_not_open_fails_the_run),
      cmocka_unit_test(the_run_joins_a_session_keyring_without_the_callers_keys),
      cmocka_unit_test(nothing_below_the_runs_user_namespace_can_make_another),
      cmocka_unit_test(the_machines_own_user_namespace_is_never_touched),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
