/* tests/c/test_lint_regex.c — the linter refuses a regex whose compilation would take gigabytes (stacked
 * or nested quantifiers multiply what regcomp builds) without compiling it, and leaves real ones alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "sbpl/lint.h"
#include "sbpl/lint_regex.h"
#include "sbpl/parse.h"

#define CAP 1000000u

static void ordinary_regexes_are_small(void **state) {
  (void)state;
  assert_true(cordon_lint_regex_copies("^/Users/[^/]+/\\.ssh(/|$)", CAP) < 40);
  assert_int_equal(cordon_lint_regex_copies("^/a.{0,255}$", CAP), 1 + 1 + 1 + 256 + 1);
  assert_true(cordon_lint_regex_copies("^/w/([^/]+/){0,20}\\.git/hooks", CAP) < 200);
  assert_true(cordon_lint_regex_copies("[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}", CAP) < 20);
}

static void stacked_quantifiers_multiply(void **state) {
  (void)state;
  size_t ten = cordon_lint_regex_copies("^/a++++++++++", CAP);
  size_t twenty = cordon_lint_regex_copies("^/a++++++++++++++++++++", CAP);
  assert_true(ten < CORDON_LINT_REGEX_MAX_COPIES);
  assert_true(twenty > CORDON_LINT_REGEX_MAX_COPIES);
  assert_true(cordon_lint_regex_copies("((a{100}){100}){100}", CAP) == CAP); /* nested intervals */
  /* repeating what can match nothing: few copies, but regcomp's epsilon closures take seconds */
  assert_true(cordon_lint_regex_copies("^/e*+++++++++++", CAP) > CORDON_LINT_REGEX_MAX_COPIES);
  assert_true(cordon_lint_regex_copies("^/(x*){1,100}", CAP) > CORDON_LINT_REGEX_MAX_COPIES);
  assert_true(cordon_lint_regex_copies("^/(a|b*)++++++++", CAP) > CORDON_LINT_REGEX_MAX_COPIES);
  assert_true(cordon_lint_regex_copies("^/a++++++++++", CAP) < CORDON_LINT_REGEX_MAX_COPIES); /* nothing empty */
  assert_true(cordon_lint_regex_copies("^/([^/]*/)*(a?b?)+$", CAP) < 100);  /* what profiles write */
}

static void brackets_escapes_and_stray_braces_are_single_atoms(void **state) {
  (void)state;
  assert_int_equal(cordon_lint_regex_copies("[+*{}()]", CAP), 1);
  assert_int_equal(cordon_lint_regex_copies("\\+\\+\\+", CAP), 3);
  assert_int_equal(cordon_lint_regex_copies("a{x}", CAP), 4);   /* not an interval: four characters */
  assert_int_equal(cordon_lint_regex_copies("[[:alpha:]]", CAP), 1);
}

static void malformed_input_stays_bounded(void **state) {
  (void)state;
  char deep[2000];
  memset(deep, '(', sizeof deep - 1);
  deep[sizeof deep - 1] = '\0';
  assert_int_equal(cordon_lint_regex_copies(deep, CAP), CAP); /* deeper than the nesting limit */
  assert_true(cordon_lint_regex_copies("((a|b", CAP) >= 2);
  assert_int_equal(cordon_lint_regex_copies("", CAP), 0);
  assert_true(cordon_lint_regex_copies("{99999999999999999999999}+", CAP) < 30); /* nothing to repeat */
}

static void lint_reports_a_costly_regex_without_compiling_it(void **state) {
  (void)state;
  /* Forty stacked '+' would need more memory than any machine has if regcomp saw them. */
  const char *text = "(version 1)\n(deny default)\n"
                     "(deny file-write* (regex #\"^/a++++++++++++++++++++++++++++++++++++++++\"))\n"
                     "(allow file-write* (literal \"/a\"))\n";
  cordon_policy *p = NULL;
  assert_int_equal(cordon_sbpl_parse(text, strlen(text), "costly.sb", NULL, NULL, &p, NULL), CORDON_SBPL_OK);
  cordon_lint_report r = CORDON_LINT_REPORT_INIT;
  assert_true(cordon_sbpl_lint(p, &r));
  bool found = false;
  for (size_t i = 0; i < r.n; i++)
    if (!strcmp(r.items[i].code, "regex-invalid") && r.items[i].loc.line == 3 && strstr(r.items[i].message, "too costly"))
      found = true;
  assert_true(found);
  cordon_lint_report_free(&r);
  cordon_policy_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(ordinary_regexes_are_small),
    cmocka_unit_test(stacked_quantifiers_multiply),
    cmocka_unit_test(brackets_escapes_and_stray_braces_are_single_atoms),
    cmocka_unit_test(malformed_input_stays_bounded),
    cmocka_unit_test(lint_reports_a_costly_regex_without_compiling_it),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
