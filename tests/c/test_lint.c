/* tests/c/test_lint.c — every lint code fires on the mistake it names, and stays quiet on good rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "sbpl/lint.h"

static unsigned next_line;

static cordon_policy *fresh(void) {
  next_line = 0;
  cordon_policy *p = cordon_policy_new();
  p->version_forms = 1;
  return p;
}

static cordon_rule *rule(cordon_policy *p, cordon_action a, const char *op) {
  cordon_loc loc = {cordon_policy_intern(p, "p.sb"), ++next_line, 1};
  cordon_rule *r = cordon_policy_add_rule(p, a, loc);
  cordon_rule_add_op(r, op);
  return r;
}

static cordon_rule *path_rule(cordon_policy *p, cordon_action a, const char *op, const char *kind, const char *arg) {
  cordon_rule *r = rule(p, a, op);
  r->filter = cordon_filter_path(kind, arg, false);
  return r;
}

static cordon_filter *net(const char *dir, const char *proto, const char *addr) {
  cordon_filter *f = cordon_filter_new(CORDON_F_NETWORK, dir, CORDON_MATCH_NONE);
  cordon_filter_add_arg(f, proto, false);
  cordon_filter_add_arg(f, addr, false);
  return f;
}

/* Lints `p` and returns how many findings have `code`; *line gets the line of the first one. */
static size_t count(cordon_policy *p, const char *code, unsigned *line) {
  cordon_lint_report r = CORDON_LINT_REPORT_INIT;
  assert_true(cordon_sbpl_lint(p, &r));
  size_t n = 0;
  for (size_t i = 0; i < r.n; i++)
    if (!strcmp(r.items[i].code, code)) {
      if (!n && line) *line = r.items[i].loc.line;
      n++;
    }
  cordon_lint_report_free(&r);
  return n;
}

static size_t total(cordon_policy *p) {
  cordon_lint_report r = CORDON_LINT_REPORT_INIT;
  assert_true(cordon_sbpl_lint(p, &r));
  size_t n = r.n;
  cordon_lint_report_free(&r);
  return n;
}

static void a_clean_policy_has_no_findings(void **state) {
  (void)state;
  cordon_policy *p = fresh();
  rule(p, CORDON_DENY, "default");
  path_rule(p, CORDON_ALLOW, "file-read*", "subpath", "/usr");
  path_rule(p, CORDON_DENY, "file-read*", "regex", "^/usr/local/secret");
  cordon_rule *r = rule(p, CORDON_ALLOW, "network-outbound");
  r->filter = net("remote", "tcp", "localhost:*");
  assert_int_equal(total(p), 0);
  cordon_policy_free(p);
}

static void trailing_slashes_in_literal_and_subpath_are_reported(void **state) {
  (void)state;
  cordon_policy *p = fresh();
  path_rule(p, CORDON_ALLOW, "file-read*", "subpath", "/Users/u/");
  path_rule(p, CORDON_ALLOW, "file-read*", "literal", "/etc/");
  path_rule(p, CORDON_ALLOW, "file-read*", "prefix", "/opt/");  /* fine: a raw prefix */
  path_rule(p, CORDON_ALLOW, "file-read*", "subpath", "/");     /* fine: the root */
  unsigned line = 0;
  assert_int_equal(count(p, "trailing-slash", &line), 2);
  assert_int_equal(line, 1);
  cordon_policy_free(p);
}

static void unanchored_regexes_in_deny_rules_are_reported(void **state) {
  (void)state;
  cordon_policy *p = fresh();
  path_rule(p, CORDON_DENY, "file-write*", "regex", "\\.git/hooks");
  path_rule(p, CORDON_ALLOW, "file-write*", "regex", "\\.cache");   /* allow: not this check */
  path_rule(p, CORDON_DENY, "file-write*", "regex", "^/w/\\.env$");
  /* beside a subpath in a require-all the regex is confined to that tree: "at any depth below" */
  cordon_rule *r = rule(p, CORDON_DENY, "file-write*");
  r->filter = cordon_filter_new(CORDON_F_ALL, "require-all", CORDON_MATCH_NONE);
  cordon_filter_add_child(r->filter, cordon_filter_path("subpath", "/w", false));
  cordon_filter_add_child(r->filter, cordon_filter_path("regex", "/\\.git(/|$)", false));
  unsigned line = 0;
  assert_int_equal(count(p, "unanchored-regex", &line), 1);
  assert_int_equal(line, 1);
  cordon_policy_free(p);
}

static void invalid_regexes_are_errors(void **state) {
  (void)state;
  cordon_policy *p = fresh();
  path_rule(p, CORDON_ALLOW, "file-read*", "regex", "^/a(b");
  assert_int_equal(count(p, "regex-invalid", NULL), 1);
  cordon_policy_free(p);
}

static void outbound_local_rules_are_reported(void **state) {
  (void)state;
  cordon_policy *p = fresh();
  cordon_rule *r = rule(p, CORDON_ALLOW, "network-outbound");
  r->filter = net("local", "ip", "*:*");
  r = rule(p, CORDON_ALLOW, "network-bind");
  r->filter = net("local", "ip", "*:*"); /* bind on local is the normal form */
  assert_int_equal(count(p, "outbound-local", NULL), 1);
  cordon_policy_free(p);
}

static void hosts_other_than_star_and_localhost_are_errors(void **state) {
  (void)state;
  cordon_policy *p = fresh();
  cordon_rule *r = rule(p, CORDON_ALLOW, "network-outbound");
  r->filter = net("remote", "tcp", "127.0.0.1:*");
  r = rule(p, CORDON_ALLOW, "network-outbound");
  r->filter = net("remote", "tcp", "*:443");
  assert_int_equal(count(p, "network-host", NULL), 1);
  cordon_policy_free(p);
}

static void a_coarser_deny_than_the_allow_is_reported(void **state) {
  (void)state;
  cordon_policy *p = fresh();
  path_rule(p, CORDON_ALLOW, "file-read-data", "subpath", "/Users/u");
  path_rule(p, CORDON_DENY, "file-read*", "subpath", "/Users/u/.ssh");
  unsigned line = 0;
  assert_int_equal(count(p, "deny-op-mismatch", &line), 1);
  assert_int_equal(line, 2);
  /* naming the specific operation too fixes it */
  path_rule(p, CORDON_DENY, "file-read-data", "subpath", "/Users/u/.ssh");
  assert_int_equal(count(p, "deny-op-mismatch", NULL), 0);
  cordon_policy_free(p);
}

static void a_finer_deny_inside_the_allow_is_reported(void **state) {
  (void)state;
  cordon_policy *p = fresh();
  path_rule(p, CORDON_ALLOW, "file-write*", "subpath", "/w");
  path_rule(p, CORDON_DENY, "file-write-data", "literal", "/w/.env");
  assert_int_equal(count(p, "deny-op-mismatch", NULL), 1);
  cordon_policy_free(p);
}

static void a_deny_on_unrelated_targets_is_not_a_mismatch(void **state) {
  (void)state;
  cordon_policy *p = fresh();
  rule(p, CORDON_ALLOW, "default"); /* a posture, not a grant to beat */
  path_rule(p, CORDON_DENY, "file-write*", "subpath", "/etc");
  path_rule(p, CORDON_ALLOW, "file-read-data", "subpath", "/usr");
  path_rule(p, CORDON_DENY, "file-read*", "subpath", "/Users/u/.ssh");
  assert_int_equal(count(p, "deny-op-mismatch", NULL), 0);
  cordon_policy_free(p);
}

static void fully_shadowed_rules_are_reported(void **state) {
  (void)state;
  cordon_policy *p = fresh();
  path_rule(p, CORDON_ALLOW, "file-read*", "literal", "/w/a");       /* 1: inside line 3 */
  path_rule(p, CORDON_ALLOW, "file-read*", "subpath", "/elsewhere"); /* 2: not covered */
  path_rule(p, CORDON_DENY, "file-read*", "subpath", "/w");          /* 3 */
  path_rule(p, CORDON_ALLOW, "file-write*", "prefix", "/tmp/x");     /* 4: prefix is wider than subpath */
  path_rule(p, CORDON_ALLOW, "file-write*", "subpath", "/tmp/x");    /* 5 */
  rule(p, CORDON_DENY, "network*");                                  /* 6: unfiltered, overridden by 7 */
  rule(p, CORDON_ALLOW, "network*");                                 /* 7 */
  unsigned line = 0;
  assert_int_equal(count(p, "shadowed-rule", &line), 2);
  assert_int_equal(line, 1);
  cordon_policy_free(p);
}

static void a_later_unfiltered_rule_does_not_shadow_a_filtered_one(void **state) {
  (void)state;
  cordon_policy *p = fresh();
  path_rule(p, CORDON_ALLOW, "file-read*", "subpath", "/w");
  rule(p, CORDON_DENY, "file-read*");
  assert_int_equal(count(p, "shadowed-rule", NULL), 0);
  cordon_policy_free(p);
}

static void no_sandbox_unknown_names_and_long_strings_are_reported(void **state) {
  (void)state;
  cordon_policy *p = fresh();
  cordon_rule *r = path_rule(p, CORDON_ALLOW, "process-exec*", "literal", "/bin/sh");
  cordon_rule_add_modifier(r, "no-sandbox", NULL);
  r = rule(p, CORDON_ALLOW, "file-reed*");
  cordon_rule_add_modifier(r, "shout", NULL);
  r = rule(p, CORDON_ALLOW, "file-read*");
  r->filter = cordon_filter_new(CORDON_F_OTHER, "file-colour", CORDON_MATCH_NONE);
  char big[1100];
  memset(big, 'a', sizeof big - 1);
  big[0] = '/';
  big[sizeof big - 1] = '\0';
  path_rule(p, CORDON_ALLOW, "file-read*", "literal", big);
  assert_int_equal(count(p, "no-sandbox", NULL), 1);
  assert_int_equal(count(p, "unknown-operation", NULL), 1);
  assert_int_equal(count(p, "unknown-modifier", NULL), 1);
  assert_int_equal(count(p, "unknown-filter", NULL), 1);
  assert_int_equal(count(p, "string-too-long", NULL), 1);
  cordon_policy_free(p);
}

static void evaluator_findings_are_included_once(void **state) {
  (void)state;
  cordon_policy *p = fresh();
  rule(p, CORDON_ALLOW, "file-reed*");
  cordon_policy_diag(p, CORDON_DIAG_WARNING, "unknown-operation", p->rules[0].loc, "unknown operation file-reed*");
  assert_int_equal(count(p, "unknown-operation", NULL), 1);
  cordon_policy_free(p);
}

static void version_forms_are_counted(void **state) {
  (void)state;
  cordon_policy *p = fresh();
  p->version_forms = 0;
  assert_int_equal(count(p, "version-missing", NULL), 1);
  p->version_forms = 2;
  assert_int_equal(count(p, "version-repeated", NULL), 1);
  cordon_policy_free(p);
}

static void version_findings_point_at_the_form_in_the_text(void **state) {
  (void)state;
  const char *text = "; (version 1) in a comment\n(version 1)\n(allow file-read* (literal \"(version 2\"))\n"
                     "#| (version 3) |#\n  ( version 1)\n";
  cordon_lint_report r = CORDON_LINT_REPORT_INIT;
  assert_true(cordon_sbpl_lint_versions(text, strlen(text), "v.sb", &r));
  assert_int_equal(r.n, 1);
  assert_string_equal(r.items[0].code, "version-repeated");
  assert_int_equal(r.items[0].loc.line, 5);
  assert_int_equal(r.items[0].loc.col, 3);
  cordon_lint_report_free(&r);
  assert_true(cordon_sbpl_lint_versions("(allow default)", 15, "v.sb", &r));
  assert_int_equal(r.n, 1);
  assert_string_equal(r.items[0].code, "version-missing");
  cordon_lint_report_free(&r);
}

static void findings_come_sorted_by_location(void **state) {
  (void)state;
  cordon_policy *p = fresh();
  path_rule(p, CORDON_ALLOW, "file-read*", "subpath", "/b/");
  path_rule(p, CORDON_DENY, "file-read*", "regex", "x");
  cordon_lint_report r = CORDON_LINT_REPORT_INIT;
  assert_true(cordon_sbpl_lint(p, &r));
  for (size_t i = 1; i < r.n; i++) assert_true(r.items[i - 1].loc.line <= r.items[i].loc.line);
  assert_string_equal(cordon_diag_severity_name(CORDON_DIAG_ERROR), "error");
  cordon_lint_report_free(&r);
  cordon_policy_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(a_clean_policy_has_no_findings),
      cmocka_unit_test(trailing_slashes_in_literal_and_subpath_are_reported),
      cmocka_unit_test(unanchored_regexes_in_deny_rules_are_reported),
      cmocka_unit_test(invalid_regexes_are_errors),
      cmocka_unit_test(outbound_local_rules_are_reported),
      cmocka_unit_test(hosts_other_than_star_and_localhost_are_errors),
      cmocka_unit_test(a_coarser_deny_than_the_allow_is_reported),
      cmocka_unit_test(a_finer_deny_inside_the_allow_is_reported),
      cmocka_unit_test(a_deny_on_unrelated_targets_is_not_a_mismatch),
      cmocka_unit_test(fully_shadowed_rules_are_reported),
      cmocka_unit_test(a_later_unfiltered_rule_does_not_shadow_a_filtered_one),
      cmocka_unit_test(no_sandbox_unknown_names_and_long_strings_are_reported),
      cmocka_unit_test(evaluator_findings_are_included_once),
      cmocka_unit_test(version_forms_are_counted),
      cmocka_unit_test(version_findings_point_at_the_form_in_the_text),
      cmocka_unit_test(findings_come_sorted_by_location),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
