/* tests/c/test_gitconfig.c — git config text read as git 2.39 reads it, and which changes are safe. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gitconfig.h"

static cordon_gitconfig parsed(const char *text) {
  cordon_gitconfig c = {0};
  char err[128];
  bool ok = cordon_gitconfig_parse(text, strlen(text), &c, err, sizeof err);
  if (!ok) fail_msg("parse failed: %s", err);
  return c;
}

static void refused(const char *text, size_t n, const char *want_err) {
  cordon_gitconfig c = {0};
  char err[128];
  assert_false(cordon_gitconfig_parse(text, n, &c, err, sizeof err));
  assert_string_equal(err, want_err);
  cordon_gitconfig_free(&c);
}

static void entry_is(const cordon_gitconfig_entry *e, const char *sec, const char *sub, const char *key, const char *val) {
  assert_string_equal(e->section, sec);
  if (sub) assert_string_equal(e->subsection, sub);
  else assert_null(e->subsection);
  assert_string_equal(e->key, key);
  if (val) assert_string_equal(e->value, val);
  else assert_null(e->value);
}

static void sections_keys_and_values_read_as_git_reads_them(void **state) {
  (void)state;
  cordon_gitconfig c = parsed("\xef\xbb\xbf# a comment\n"
                              "[Core]\n"
                              "\tRepositoryFormatVersion = 0\n"
                              "\tbare\n"
                              "\tempty =\n"
                              "[remote \"Origin\"]\n"
                              "  url = \"a b\"  ; trailing comment\n"
                              "  fetch = +refs/heads/*:refs/remotes/origin/* # hash comment\n"
                              "[Branch.Main] remote = origin\r\n"
                              "[x \"q\\\"uo\\\\te\"]\n"
                              " k = one\\\n two\\tthree \"  kept  \" \\\"\n");
  assert_int_equal(c.count, 7);
  entry_is(&c.items[0], "core", NULL, "repositoryformatversion", "0");
  entry_is(&c.items[1], "core", NULL, "bare", NULL);
  entry_is(&c.items[2], "core", NULL, "empty", "");
  entry_is(&c.items[3], "remote", "Origin", "url", "a b");
  entry_is(&c.items[4], "remote", "Origin", "fetch", "+refs/heads/*:refs/remotes/origin/*");
  entry_is(&c.items[5], "branch", "main", "remote", "origin");  /* the old form is lowercased whole */
  entry_is(&c.items[6], "x", "q\"uo\\te", "k", "one two\tthree   kept   \"");
  assert_int_equal(c.items[0].line, 3);
  assert_int_equal(c.items[5].line, 9);
  cordon_gitconfig_free(&c);
}

static void a_subsection_may_hold_dots_and_the_key_is_the_last_part(void **state) {
  (void)state;
  cordon_gitconfig c = parsed("[url \"https://a.example/x.git\"]\n\tinsteadOf = gh:\n");
  entry_is(&c.items[0], "url", "https://a.example/x.git", "insteadof", "gh:");
  cordon_gitconfig_free(&c);
}

static void what_git_refuses_is_refused_with_its_line(void **state) {
  (void)state;
  refused("key = v\n", 8, "line 1: a key outside any section");  /* git reads it, and never uses it */
  refused("[core]\n bare # c\n", 17, "line 2: expected '=' or the end of the line after a key");
  refused("[core]\n x = \"open\n", 18, "line 2: unterminated quote in a value");
  refused("[core]\n x = a\\qb\n", 17, "line 2: unknown escape sequence in a value");
  refused("[core\n", 6, "line 1: bad character in a section name");
  refused("[sec \"sub\n\"]\n", 13, "line 1: unterminated subsection name");
  refused("[sec \"sub\" ]\n", 13, "line 1: expected ']' after the subsection name");
  refused("[core]\n 1x = 2\n", 15, "line 2: bad character at the start of a line");
  refused("[]\n", 3, "line 1: bad section name");
  refused("[core]\n x = a\0b\n", 16, "line 2: a NUL byte");
}

static void patterns_match_sections_and_keys_case_insensitively_and_subsections_exactly(void **state) {
  (void)state;
  cordon_gitconfig c = parsed("[remote \"Origin\"]\nurl = x\n[core]\nbare = true\n");
  assert_true(cordon_gitconfig_key_matches(&c.items[0], "remote.*.url"));
  assert_true(cordon_gitconfig_key_matches(&c.items[0], "REMOTE.Origin.URL"));
  assert_false(cordon_gitconfig_key_matches(&c.items[0], "remote.origin.url"));
  assert_false(cordon_gitconfig_key_matches(&c.items[0], "remote.url"));
  assert_true(cordon_gitconfig_key_matches(&c.items[1], "core.bare"));
  assert_false(cordon_gitconfig_key_matches(&c.items[1], "core.*.bare"));
  assert_false(cordon_gitconfig_key_matches(&c.items[1], "core.barely"));
  cordon_gitconfig_free(&c);
}

static bool safe_change(const char *before, const char *after, const char **bad_key) {
  static const char *const safe[] = {"core.bare", "remote.*.url", "branch.*.merge"};
  cordon_gitconfig b = parsed(before), a = parsed(after);
  const cordon_gitconfig_entry *bad = NULL;
  bool ok = cordon_gitconfig_changes_safe(&b, &a, safe, 3, &bad);
  static char name[64];
  if (bad) snprintf(name, sizeof name, "%s.%s", bad->section, bad->key);
  if (bad_key) *bad_key = bad ? name : NULL;
  cordon_gitconfig_free(&b);
  cordon_gitconfig_free(&a);
  return ok;
}

static void only_safe_keys_may_be_added_or_changed(void **state) {
  (void)state;
  const char *bad;
  const char *base = "[core]\n\tbare = false\n\tfsmonitor = false\n[remote \"o\"]\n\turl = a\n";
  assert_true(safe_change(base, base, NULL));
  assert_true(safe_change(base, "[core]\nbare = true\nfsmonitor = false\n[remote \"o\"]\nurl = b\n[remote \"p\"]\nurl=c\n", NULL));
  assert_false(safe_change(base, "[core]\nbare = false\nfsmonitor = /evil\n", &bad));
  assert_string_equal(bad, "core.fsmonitor");
  assert_false(safe_change(base, "[core]\nbare = false\nfsmonitor = false\nhooksPath = /x\n", &bad));
  assert_string_equal(bad, "core.hookspath");
  assert_false(safe_change("", "[include]\npath = /x\n", &bad));
  assert_string_equal(bad, "include.path");
  /* the same text in another section is a new entry */
  assert_false(safe_change(base, "[core]\nbare = false\n[other]\nfsmonitor = false\n", &bad));
}

static void removing_unsafe_entries_is_allowed_but_reordering_them_is_not(void **state) {
  (void)state;
  const char *two = "[alias]\n\tx = one\n\tx = two\n";
  assert_true(safe_change(two, "[alias]\n\tx = one\n", NULL));
  assert_true(safe_change(two, "", NULL));
  assert_false(safe_change(two, "[alias]\n\tx = two\n\tx = one\n", NULL));
  assert_false(safe_change(two, "[alias]\n\tx = one\n\tx = two\n\tx = one\n", NULL));
  /* a key without '=' is not the same as one with an empty value */
  assert_false(safe_change("[alias]\nx\n", "[alias]\nx =\n", NULL));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(sections_keys_and_values_read_as_git_reads_them),
      cmocka_unit_test(a_subsection_may_hold_dots_and_the_key_is_the_last_part),
      cmocka_unit_test(what_git_refuses_is_refused_with_its_line),
      cmocka_unit_test(patterns_match_sections_and_keys_case_insensitively_and_subsections_exactly),
      cmocka_unit_test(only_safe_keys_may_be_added_or_changed),
      cmocka_unit_test(removing_unsafe_entries_is_allowed_but_reordering_them_is_not),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
