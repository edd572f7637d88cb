/* tests/c/test_record.c — what every cache sees on disk (core/record.h): another run's live placeholder
 * (src/backend/linux/placeholder.c) counts as missing, anything else at its path as what it is. Without
 * that, each run would see the previous run's placeholders and decide differently from it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/record.h"

static char dir[4200], path[4300];  /* path: the placeholder under test, per test a fresh name */

/* In the build directory ctest runs us from, not /var/tmp: the enforcement tests' run-cache checks
 * watch /var/tmp, where their workdirs live, and a concurrent entry there would count as a change. */
static int setup(void **state) {
  (void)state;
  char cwd[4096];
  snprintf(dir, sizeof dir, "%s/cordon-rec.XXXXXX", getcwd(cwd, sizeof cwd) ? cwd : "/var/tmp");
  return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  char cmd[4300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : -1;
}

/* Another run's hold on the placeholder: a lock on an open of its own, as a cleaner keeps one. */
static int hold(void) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  assert_true(fd >= 0);
  assert_int_equal(flock(fd, LOCK_SH), 0);
  return fd;
}

static bool seen_missing(void) {
  struct stat st;
  errno = 0;
  return cordon_record_stat(path, false, &st) != 0 && errno == ENOENT;
}

static void a_held_empty_file_placeholder_counts_as_missing_and_a_real_file_does_not(void **state) {
  (void)state;
  snprintf(path, sizeof path, "%s/.gitconfig", dir);
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);  /* as placeholder.c makes one */
  assert_true(fd >= 0);
  close(fd);
  assert_false(seen_missing());  /* nobody holds it: a leftover is real, not another run's */
  int held = hold();
  assert_true(seen_missing());
  assert_int_equal(chmod(path, 0644), 0);  /* a mode the runtime never makes: the user's file */
  assert_false(seen_missing());
  assert_int_equal(chmod(path, 0600), 0);
  FILE *f = fopen(path, "a");
  assert_non_null(f);
  fputs("[user]\n", f);  /* content: the user's file, locked or not */
  fclose(f);
  assert_false(seen_missing());
  assert_int_equal(truncate(path, 0), 0);
  char twin[4300];
  snprintf(twin, sizeof twin, "%s/twin", dir);
  assert_int_equal(link(path, twin), 0);  /* a second name: not what the runtime makes */
  assert_false(seen_missing());
  assert_int_equal(unlink(twin), 0);
  assert_true(seen_missing());
  close(held);
  assert_int_equal(unlink(path), 0);
}

static void a_held_empty_directory_placeholder_still_counts_as_missing(void **state) {
  (void)state;
  snprintf(path, sizeof path, "%s/.agents", dir);
  assert_int_equal(mkdir(path, 0700), 0);
  int held = hold();
  assert_true(seen_missing());
  /* a file the user put in it: still missing (every sandbox sees it read-only; the plan masks it all) */
  char inner[4400];
  snprintf(inner, sizeof inner, "%s/note", path);
  FILE *f = fopen(inner, "w");
  assert_non_null(f);
  fclose(f);
  assert_true(seen_missing());
  assert_int_equal(unlink(inner), 0);
  close(held);
  assert_false(seen_missing());
  assert_int_equal(rmdir(path), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(a_held_empty_file_placeholder_counts_as_missing_and_a_real_file_does_not),
      cmocka_unit_test(a_held_empty_directory_placeholder_still_counts_as_missing),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
