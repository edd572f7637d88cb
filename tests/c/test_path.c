/* tests/c/test_path.c — normalizing, comparing, walking and canonicalizing absolute paths. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/path.h"

static char out[CORDON_PATH_MAX + 1];

static void normalize_collapses_slashes_dots_and_trailing_slash(void **state) {
  (void)state;
  assert_int_equal(cordon_path_normalize("//a///b/./c/", out, sizeof out), CORDON_PATH_OK);
  assert_string_equal(out, "/a/b/c");
  assert_int_equal(cordon_path_normalize("/", out, sizeof out), CORDON_PATH_OK);
  assert_string_equal(out, "/");
  assert_int_equal(cordon_path_normalize("/././/", out, sizeof out), CORDON_PATH_OK);
  assert_string_equal(out, "/");
  assert_int_equal(cordon_path_normalize("/a/.b/..c/...", out, sizeof out), CORDON_PATH_OK);
  assert_string_equal(out, "/a/.b/..c/...");
}

static void normalize_refuses_relative_empty_and_control_bytes(void **state) {
  (void)state;
  assert_int_equal(cordon_path_normalize("", out, sizeof out), CORDON_PATH_EMPTY);
  assert_int_equal(cordon_path_normalize(NULL, out, sizeof out), CORDON_PATH_EMPTY);
  assert_int_equal(cordon_path_normalize("a/b", out, sizeof out), CORDON_PATH_RELATIVE);
  assert_int_equal(cordon_path_normalize("~/x", out, sizeof out), CORDON_PATH_RELATIVE);
  assert_int_equal(cordon_path_normalize("/a\nb", out, sizeof out), CORDON_PATH_CONTROL_CHAR);
  assert_int_equal(cordon_path_normalize("/a\tb", out, sizeof out), CORDON_PATH_CONTROL_CHAR);
  assert_int_equal(cordon_path_normalize_n("/a\0b", 4, out, sizeof out), CORDON_PATH_CONTROL_CHAR);
  assert_string_equal(cordon_path_status_name(CORDON_PATH_CONTROL_CHAR), "control_char");
}

static void normalize_refuses_dotdot_instead_of_guessing(void **state) {
  (void)state;
  assert_int_equal(cordon_path_normalize("/a/../etc", out, sizeof out), CORDON_PATH_DOTDOT);
  assert_int_equal(cordon_path_normalize("/..", out, sizeof out), CORDON_PATH_DOTDOT);
  assert_string_equal(cordon_path_status_name(CORDON_PATH_DOTDOT), "dotdot");
}

static void normalize_keeps_quotes_spaces_colons_and_unicode(void **state) {
  (void)state;
  assert_int_equal(cordon_path_normalize("/a b/c:d/\"q\"/\\)/é", out, sizeof out), CORDON_PATH_OK);
  assert_string_equal(out, "/a b/c:d/\"q\"/\\)/é");
}

static void normalize_refuses_paths_longer_than_the_limit_or_the_buffer(void **state) {
  (void)state;
  char *big = malloc(CORDON_PATH_MAX + 2);
  assert_non_null(big);
  memset(big, 'a', CORDON_PATH_MAX + 1);
  big[0] = '/';
  big[CORDON_PATH_MAX + 1] = '\0';
  assert_int_equal(cordon_path_normalize(big, out, sizeof out), CORDON_PATH_TOO_LONG);
  big[CORDON_PATH_MAX] = '\0';  /* exactly the limit is fine */
  assert_int_equal(cordon_path_normalize(big, out, sizeof out), CORDON_PATH_OK);
  free(big);
  char small[4];
  assert_int_equal(cordon_path_normalize("/abcd", small, sizeof small), CORDON_PATH_TOO_LONG);
}

static void within_respects_segment_boundaries(void **state) {
  (void)state;
  assert_true(cordon_path_within("/repo", "/repo/src/a.c"));
  assert_true(cordon_path_within("/repo", "/repo"));
  assert_false(cordon_path_within("/repo", "/repo2/a.c")); /* the classic prefix bug */
  assert_false(cordon_path_within("/repo/src", "/repo"));
  assert_true(cordon_path_within("/", "/anything"));
  assert_true(cordon_path_within("/", "/"));
}

static void parent_walks_up_one_segment_and_stops_at_root(void **state) {
  (void)state;
  assert_true(cordon_path_parent("/a/b", out, sizeof out));
  assert_string_equal(out, "/a");
  assert_true(cordon_path_parent("/a", out, sizeof out));
  assert_string_equal(out, "/");
  assert_false(cordon_path_parent("/", out, sizeof out));
}

static void collect(const char *a, void *ud) {
  char *buf = ud;
  strcat(buf, a);
  strcat(buf, "|");
}

static void ancestors_are_listed_from_root_down_excluding_the_path(void **state) {
  (void)state;
  char seen[256] = "";
  assert_int_equal(cordon_path_ancestors("/Users/alice/projects/app", collect, seen), 4);
  assert_string_equal(seen, "/|/Users|/Users/alice|/Users/alice/projects|");
  seen[0] = '\0';
  assert_int_equal(cordon_path_ancestors("/", collect, seen), 0);
  assert_string_equal(seen, "");
}

static void tilde_expands_against_the_given_home_only(void **state) {
  (void)state;
  assert_int_equal(cordon_path_expand_home("~/.ssh/", "/home/u", out, sizeof out), CORDON_PATH_OK);
  assert_string_equal(out, "/home/u/.ssh");
  assert_int_equal(cordon_path_expand_home("~", "/home/u/", out, sizeof out), CORDON_PATH_OK);
  assert_string_equal(out, "/home/u");
  assert_int_equal(cordon_path_expand_home("/abs//x", NULL, out, sizeof out), CORDON_PATH_OK);
  assert_string_equal(out, "/abs/x");
  assert_int_equal(cordon_path_expand_home("~root/x", "/home/u", out, sizeof out), CORDON_PATH_TILDE_USER);
  assert_int_equal(cordon_path_expand_home("~/x", NULL, out, sizeof out), CORDON_PATH_NO_HOME);
  assert_int_equal(cordon_path_expand_home("~/x", "rel", out, sizeof out), CORDON_PATH_NO_HOME);
  assert_int_equal(cordon_path_expand_home("~/../x", "/home/u", out, sizeof out), CORDON_PATH_DOTDOT);
}

static void canonicalize_resolves_symlinks_in_the_existing_prefix_and_keeps_the_rest(void **state) {
  (void)state;
  char dir[] = "/tmp/cordon-path-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char real[PATH_MAX], link[PATH_MAX], target[PATH_MAX], want[PATH_MAX * 2];
  assert_non_null(realpath(dir, real));
  snprintf(target, sizeof target, "%s/real", dir);
  snprintf(link, sizeof link, "%s/link", dir);
  assert_int_equal(mkdir(target, 0700), 0);
  assert_int_equal(symlink(target, link), 0);
  char q[PATH_MAX * 2];
  snprintf(q, sizeof q, "%s//link/not/yet/there/", dir);
  assert_int_equal(cordon_path_canonicalize(q, out, sizeof out), CORDON_PATH_OK);
  snprintf(want, sizeof want, "%s/real/not/yet/there", real);
  assert_string_equal(out, want);
  assert_int_equal(cordon_path_canonicalize("/", out, sizeof out), CORDON_PATH_OK);
  assert_string_equal(out, "/");
  assert_int_equal(cordon_path_canonicalize("/definitely-not-here-cordon/x", out, sizeof out), CORDON_PATH_OK);
  assert_string_equal(out, "/definitely-not-here-cordon/x");
  assert_int_equal(cordon_path_canonicalize("rel", out, sizeof out), CORDON_PATH_RELATIVE);
  unlink(link);
  rmdir(target);
  rmdir(dir);
}

static void join_lexical_takes_dots_lexically_and_never_climbs_past_the_root(void **state) {
  (void)state;
  char out[64];
  assert_true(cordon_path_join_lexical("/w/.git/modules/sub", "../../../sub", out, sizeof out));
  assert_string_equal(out, "/w/sub");
  assert_true(cordon_path_join_lexical("/a/b", "./c/../d", out, sizeof out));
  assert_string_equal(out, "/a/b/d");
  assert_true(cordon_path_join_lexical("/a", "../../../..", out, sizeof out));
  assert_string_equal(out, "/");
  assert_true(cordon_path_join_lexical("/a", "/etc//x/", out, sizeof out));
  assert_string_equal(out, "/etc/x");
  assert_false(cordon_path_join_lexical("/a", "a-name-longer-than-the-buffer-given-here-surely-by-now-yes", out, 16));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(normalize_collapses_slashes_dots_and_trailing_slash),
      cmocka_unit_test(join_lexical_takes_dots_lexically_and_never_climbs_past_the_root),
      cmocka_unit_test(normalize_refuses_relative_empty_and_control_bytes),
      cmocka_unit_test(normalize_refuses_dotdot_instead_of_guessing),
      cmocka_unit_test(normalize_keeps_quotes_spaces_colons_and_unicode),
      cmocka_unit_test(normalize_refuses_paths_longer_than_the_limit_or_the_buffer),
      cmocka_unit_test(within_respects_segment_boundaries),
      cmocka_unit_test(parent_walks_up_one_segment_and_stops_at_root),
      cmocka_unit_test(ancestors_are_listed_from_root_down_excluding_the_path),
      cmocka_unit_test(tilde_expands_against_the_given_home_only),
      cmocka_unit_test(canonicalize_resolves_symlinks_in_the_existing_prefix_and_keeps_the_rest),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
