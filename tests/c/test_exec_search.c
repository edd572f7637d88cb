/* tests/c/test_exec_search.c — finding a bare command name along PATH, as execvp does. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/exec_search.h"

typedef struct {
  char seen[8][256];
  int n, stop_at;
} seen_list;

static bool record(const char *candidate, void *ud) {
  seen_list *s = ud;
  if (s->n < 8) snprintf(s->seen[s->n], sizeof s->seen[0], "%s", candidate);
  return ++s->n == s->stop_at;
}

static void places_come_in_path_order_with_empty_as_the_current_directory(void **state) {
  (void)state;
  seen_list s = {.stop_at = -1};
  assert_false(cordon_exec_search("/opt/bin::/usr/bin:", "git", record, &s));
  assert_int_equal(s.n, 4);
  assert_string_equal(s.seen[0], "/opt/bin/git");
  assert_string_equal(s.seen[1], "./git");
  assert_string_equal(s.seen[2], "/usr/bin/git");
  assert_string_equal(s.seen[3], "./git");
}

static void no_path_is_the_default_and_a_true_answer_stops(void **state) {
  (void)state;
  seen_list s = {.stop_at = 2};
  assert_true(cordon_exec_search(NULL, "sh", record, &s));
  assert_int_equal(s.n, 2);
  assert_string_equal(s.seen[0], "/usr/local/bin/sh");
  assert_string_equal(s.seen[1], "/usr/bin/sh");
}

static void a_place_longer_than_path_max_is_skipped(void **state) {
  (void)state;
  static char path[5000];
  memset(path, 'a', 4500);
  path[0] = '/';
  snprintf(path + 4500, sizeof path - 4500, ":/bin");
  seen_list s = {.stop_at = -1};
  cordon_exec_search(path, "sh", record, &s);
  assert_int_equal(s.n, 1);
  assert_string_equal(s.seen[0], "/bin/sh");
}

/* Runs cordon_exec_path in a child and returns what the child reports: the errno it came back with, or
 * 100 + the exit status of what it ran. */
static int exec_in_child(const char *file, const char *path_env) {
  int p[2];
  assert_int_equal(pipe(p), 0);
  pid_t pid = fork();
  if (pid == 0) {
    char env_path[512];
    snprintf(env_path, sizeof env_path, "PATH=%s", path_env);
    char *const argv[] = {(char *)file, NULL}, *const envp[] = {env_path, NULL};
    int err = cordon_exec_path(file, argv, envp);
    (void)!write(p[1], &err, sizeof err);
    _exit(0);
  }
  close(p[1]);
  int err = 0, ws = 0;
  ssize_t n = read(p[0], &err, sizeof err);
  close(p[0]);
  waitpid(pid, &ws, 0);
  return n == (ssize_t)sizeof err ? err : 100 + WEXITSTATUS(ws);
}

static void exec_moves_past_missing_and_denied_places_as_execvp_does(void **state) {
  (void)state;
  char dir[] = "/tmp/cordon-exec-search-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char denied[600], ok[600];
  snprintf(denied, sizeof denied, "%s/denied", dir);
  snprintf(ok, sizeof ok, "%s/ok", dir);
  assert_int_equal(mkdir(denied, 0755), 0);
  assert_int_equal(mkdir(ok, 0755), 0);
  char f[700];
  snprintf(f, sizeof f, "%s/tool", denied);
  FILE *w = fopen(f, "w");
  fputs("#!/bin/sh\nexit 3\n", w);
  fclose(w);
  chmod(f, 0644);  /* there, but not executable: EACCES, remembered */
  char path[2000];
  snprintf(path, sizeof path, "/nonexistent:%s", denied);
  assert_int_equal(exec_in_child("tool", path), EACCES);
  snprintf(f, sizeof f, "%s/tool", ok);
  w = fopen(f, "w");
  fputs("#!/bin/sh\nexit 7\n", w);
  fclose(w);
  chmod(f, 0755);
  snprintf(path, sizeof path, "/nonexistent:%s:%s", denied, ok);
  assert_int_equal(exec_in_child("tool", path), 107);  /* the search went on and ran the later one */
  assert_int_equal(exec_in_child("no-such-tool-here", "/nonexistent:/also-not"), ENOENT);
  snprintf(f, sizeof f, "rm -rf '%s'", dir);
  assert_int_equal(system(f), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(places_come_in_path_order_with_empty_as_the_current_directory),
      cmocka_unit_test(no_path_is_the_default_and_a_true_answer_stops),
      cmocka_unit_test(a_place_longer_than_path_max_is_skipped),
      cmocka_unit_test(exec_moves_past_missing_and_denied_places_as_execvp_does),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
