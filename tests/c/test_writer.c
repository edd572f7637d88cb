/* tests/c/test_writer.c — the one quoting function, regex literals, and IR → SBPL text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "backend/seatbelt.h"
#include "sbpl/parse.h"
#include "sbpl/writer.h"

#include <stdlib.h>
#include <string.h>

static cordon_sbpl_write_status quote(const char *s, size_t len, char **out) {
  cordon_buf b = CORDON_BUF_INIT;
  cordon_sbpl_write_status st = cordon_sbpl_quote(s, len, &b);
  *out = cordon_buf_take(&b);
  return st;
}

static void quote_escapes_quotes_and_backslashes(void **state) {
  (void)state;
  char *out;
  const char *in = "/a\"b\\c";
  assert_int_equal(quote(in, strlen(in), &out), CORDON_SBPL_WRITE_OK);
  assert_string_equal(out, "\"/a\\\"b\\\\c\"");
  free(out);
}

static void quote_keeps_parentheses_spaces_colons_and_unicode_as_written(void **state) {
  (void)state;
  char *out;
  const char *in = "/w/a b:c)(d;e/\xc3\xa9\xe6\x97\xa5\xf0\x9f\x98\x80";
  assert_int_equal(quote(in, strlen(in), &out), CORDON_SBPL_WRITE_OK);
  assert_string_equal(out, "\"/w/a b:c)(d;e/\xc3\xa9\xe6\x97\xa5\xf0\x9f\x98\x80\"");
  free(out);
}

static void quote_refuses_newline_tab_and_delete_as_control_characters(void **state) {
  (void)state;
  const char *bad[] = {"/a\nb", "/a\tb", "/a\rb", "/a\x7f", "/a\x1b[31m"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    cordon_buf b = CORDON_BUF_INIT;
    assert_int_equal(cordon_sbpl_quote(bad[i], strlen(bad[i]), &b), CORDON_SBPL_WRITE_CONTROL_CHAR);
    assert_int_equal(b.len, 0);  /* nothing is written on failure */
    cordon_buf_free(&b);
  }
}

static void quote_refuses_a_nul_inside_the_given_length(void **state) {
  (void)state;
  cordon_buf b = CORDON_BUF_INIT;
  assert_int_equal(cordon_sbpl_quote("/a\0b", 4, &b), CORDON_SBPL_WRITE_NUL);
  assert_int_equal(b.len, 0);
  size_t off = 99;
  assert_int_equal(cordon_sbpl_check_string("/a\0b", 4, &off), CORDON_SBPL_WRITE_NUL);
  assert_int_equal(off, 2);
  cordon_buf_free(&b);
}

static void quote_refuses_invalid_utf8_overlong_forms_and_surrogates(void **state) {
  (void)state;
  const char *bad[] = {"/\xff", "/\xc0\xaf", "/\xe0\x80\xaf", "/\xed\xa0\x80", "/\xc3", "/\xf4\x90\x80\x80"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    size_t off = 0;
    assert_int_equal(cordon_sbpl_check_string(bad[i], strlen(bad[i]), &off), CORDON_SBPL_WRITE_INVALID_UTF8);
    assert_int_equal(off, 1);
  }
}

static void quote_refuses_strings_over_the_literal_limit(void **state) {
  (void)state;
  char long_path[CORDON_SBPL_MAX_LITERAL + 2];
  memset(long_path, 'a', sizeof long_path);
  long_path[0] = '/';
  cordon_buf b = CORDON_BUF_INIT;
  assert_int_equal(cordon_sbpl_quote(long_path, CORDON_SBPL_MAX_LITERAL, &b), CORDON_SBPL_WRITE_OK);
  cordon_buf_reset(&b);
  assert_int_equal(cordon_sbpl_quote(long_path, CORDON_SBPL_MAX_LITERAL + 1, &b), CORDON_SBPL_WRITE_TOO_LONG);
  assert_int_equal(b.len, 0);
  cordon_buf_free(&b);
}

static void regex_literals_are_raw_strings_unless_they_hold_a_quote(void **state) {
  (void)state;
  cordon_buf b = CORDON_BUF_INIT;
  assert_int_equal(cordon_sbpl_quote_regex("^/a\\.b$", 7, &b), CORDON_SBPL_WRITE_OK);
  assert_string_equal(cordon_buf_str(&b), "#\"^/a\\.b$\"");
  cordon_buf_reset(&b);
  assert_int_equal(cordon_sbpl_quote_regex("^/a\"\\.b", 7, &b), CORDON_SBPL_WRITE_OK);
  assert_string_equal(cordon_buf_str(&b), "\"^/a\\\"\\\\.b\"");
  cordon_buf_reset(&b);
  assert_int_equal(cordon_sbpl_quote_regex("^/a\n", 4, &b), CORDON_SBPL_WRITE_CONTROL_CHAR);
  cordon_buf_free(&b);
}

static void regex_escape_makes_every_metacharacter_literal(void **state) {
  (void)state;
  cordon_buf b = CORDON_BUF_INIT;
  const char *in = "/a.b[c](d)*+?{1}|^$\\e";
  assert_int_equal(cordon_sbpl_regex_escape(in, strlen(in), &b), CORDON_SBPL_WRITE_OK);
  assert_string_equal(cordon_buf_str(&b), "/a\\.b\\[c\\]\\(d\\)\\*\\+\\?\\{1\\}\\|\\^\\$\\\\e");
  cordon_buf_free(&b);
}

static void parameter_names_are_plain_identifiers(void **state) {
  (void)state;
  assert_true(cordon_sbpl_param_name_ok("WRITABLE_ROOT_0"));
  assert_true(cordon_sbpl_param_name_ok("_x"));
  assert_false(cordon_sbpl_param_name_ok(""));
  assert_false(cordon_sbpl_param_name_ok("0X"));
  assert_false(cordon_sbpl_param_name_ok("A\")"));
  assert_false(cordon_sbpl_param_name_ok("A B"));
}

static cordon_rule *rule(cordon_policy *p, cordon_action a, const char *op) {
  cordon_loc loc = {NULL, 0, 0};
  cordon_rule *r = cordon_policy_add_rule(p, a, loc);
  assert_non_null(r);
  assert_true(cordon_rule_add_op(r, op));
  return r;
}

static char *write_all(cordon_policy *p, bool version, cordon_sbpl_write_status want) {
  cordon_buf b = CORDON_BUF_INIT;
  cordon_sbpl_write_error err;
  cordon_sbpl_write_status st = cordon_sbpl_write_policy(p, version, &b, &err);
  assert_int_equal(st, want);
  return cordon_buf_take(&b);
}

static void rules_write_params_explicit_groups_comments_and_modifiers(void **state) {
  (void)state;
  cordon_policy *p = cordon_policy_new();
  cordon_rule *r = rule(p, CORDON_ALLOW, "file-read*");
  assert_true(cordon_rule_add_op(r, "file-write*"));
  r->comment = strdup("why\nand more");
  cordon_filter *all = cordon_filter_new(CORDON_F_ALL, "require-all", CORDON_MATCH_NONE);
  assert_true(cordon_filter_add_child(all, cordon_filter_path("subpath", "WRITABLE_ROOT_0", true)));
  cordon_filter *not = cordon_filter_new(CORDON_F_NOT, "require-not", CORDON_MATCH_NONE);
  assert_true(cordon_filter_add_child(not, cordon_filter_path("literal", "/w/a \"q\"", false)));
  assert_true(cordon_filter_add_child(all, not));
  r->filter = all;
  r = rule(p, CORDON_DENY, "file-write*");
  r->filter = cordon_filter_path("regex", "/\\.git(/|$)", false);
  assert_true(cordon_rule_add_modifier(r, "report", NULL));
  assert_true(cordon_rule_add_modifier(r, "message", "no (really)"));
  r = rule(p, CORDON_ALLOW, "signal");
  r->filter = cordon_filter_new(CORDON_F_NAME, "target", CORDON_MATCH_LITERAL);
  assert_true(cordon_filter_add_arg(r->filter, "same-sandbox", false));
  r = rule(p, CORDON_DENY, "network-outbound");
  r->filter = cordon_filter_new(CORDON_F_NETWORK, "remote", CORDON_MATCH_NONE);
  assert_true(cordon_filter_add_arg(r->filter, "ip", false));
  assert_true(cordon_filter_add_arg(r->filter, "*:*", false));
  rule(p, CORDON_DENY, "default");
  char *text = write_all(p, true, CORDON_SBPL_WRITE_OK);
  assert_string_equal(text,
                      "(version 1)\n"
                      ";; why\n;; and more\n"
                      "(allow file-read* file-write* (require-all (subpath (param \"WRITABLE_ROOT_0\")) "
                      "(require-not (literal \"/w/a \\\"q\\\"\"))))\n"
                      "(deny file-write* (regex #\"/\\.git(/|$)\") (with report) (with message \"no (really)\"))\n"
                      "(allow signal (target same-sandbox))\n"
                      "(deny network-outbound (remote ip \"*:*\"))\n"
                      "(deny default)\n");
  free(text);
  cordon_policy_free(p);
}

static void a_rule_without_operations_is_refused(void **state) {
  (void)state;
  cordon_policy *p = cordon_policy_new();
  cordon_loc loc = {NULL, 0, 0};
  assert_non_null(cordon_policy_add_rule(p, CORDON_ALLOW, loc));
  free(write_all(p, false, CORDON_SBPL_WRITE_BAD_RULE));
  cordon_policy_free(p);
}

static void require_not_with_two_children_is_refused(void **state) {
  (void)state;
  cordon_policy *p = cordon_policy_new();
  cordon_rule *r = rule(p, CORDON_ALLOW, "file-read*");
  r->filter = cordon_filter_new(CORDON_F_NOT, "require-not", CORDON_MATCH_NONE);
  assert_true(cordon_filter_add_child(r->filter, cordon_filter_path("literal", "/a", false)));
  assert_true(cordon_filter_add_child(r->filter, cordon_filter_path("literal", "/b", false)));
  free(write_all(p, false, CORDON_SBPL_WRITE_BAD_RULE));
  cordon_policy_free(p);
}

static void an_operation_name_that_would_break_the_text_is_refused(void **state) {
  (void)state;
  cordon_policy *p = cordon_policy_new();
  rule(p, CORDON_ALLOW, "file-read*) (allow default");
  free(write_all(p, false, CORDON_SBPL_WRITE_BAD_NAME));
  cordon_policy_free(p);
}

static void a_bad_parameter_reference_is_refused(void **state) {
  (void)state;
  cordon_policy *p = cordon_policy_new();
  cordon_rule *r = rule(p, CORDON_ALLOW, "file-read*");
  r->filter = cordon_filter_path("subpath", "X\") (allow default", true);
  free(write_all(p, false, CORDON_SBPL_WRITE_BAD_NAME));
  cordon_policy_free(p);
}

static void a_newline_in_a_path_fails_and_names_the_rule(void **state) {
  (void)state;
  cordon_policy *p = cordon_policy_new();
  rule(p, CORDON_DENY, "default");
  cordon_rule *r = rule(p, CORDON_ALLOW, "file-read*");
  r->filter = cordon_filter_path("subpath", "/w\n(allow default)", false);
  cordon_buf b = CORDON_BUF_INIT;
  cordon_sbpl_write_error err;
  assert_int_equal(cordon_sbpl_write_policy(p, false, &b, &err), CORDON_SBPL_WRITE_CONTROL_CHAR);
  assert_int_equal(err.rule, 1);
  assert_int_equal(err.offset, 2);
  assert_non_null(strstr(err.message, "control"));
  cordon_buf_free(&b);
  cordon_policy_free(p);
}

static void a_long_literal_says_to_use_a_parameter(void **state) {
  (void)state;
  char *big = malloc(2000);
  memset(big, 'x', 1999);
  big[0] = '/';
  big[1999] = 0;
  cordon_policy *p = cordon_policy_new();
  cordon_rule *r = rule(p, CORDON_ALLOW, "file-read*");
  r->filter = cordon_filter_path("subpath", big, false);
  cordon_buf b = CORDON_BUF_INIT;
  cordon_sbpl_write_error err;
  assert_int_equal(cordon_sbpl_write_policy(p, false, &b, &err), CORDON_SBPL_WRITE_TOO_LONG);
  assert_non_null(strstr(err.message, "-D parameter"));
  cordon_buf_free(&b);
  cordon_policy_free(p);
  /* As a parameter the same path is fine: the value never enters the text. */
  p = cordon_policy_new();
  r = rule(p, CORDON_ALLOW, "file-read*");
  r->filter = cordon_filter_path("subpath", "LONG_ROOT", true);
  free(write_all(p, false, CORDON_SBPL_WRITE_OK));
  cordon_policy_free(p);
  free(big);
}

static void status_names_are_stable(void **state) {
  (void)state;
  assert_string_equal(cordon_sbpl_write_status_name(CORDON_SBPL_WRITE_CONTROL_CHAR), "control_char");
  assert_string_equal(cordon_sbpl_write_status_name(CORDON_SBPL_WRITE_NUL), "nul");
  assert_string_equal(cordon_sbpl_write_status_name(CORDON_SBPL_WRITE_INVALID_UTF8), "invalid_utf8");
  assert_string_equal(cordon_sbpl_write_status_name(CORDON_SBPL_WRITE_TOO_LONG), "too_long");
}


/* --- round trips through the reader (src/sbpl/parse.h) ------------------------------------------- */

static cordon_policy *parse_text(const char *text) {
  cordon_sbpl_options opts = {0};
  opts.symbolic_params = true;  /* (param "X") reads back as a parameter reference */
  opts.no_import = true;
  cordon_policy *p = NULL;
  cordon_sbpl_error err = {0};
  cordon_sbpl_status st = cordon_sbpl_parse(text, strlen(text), "roundtrip.sb", NULL, &opts, &p, &err);
  if (st != CORDON_SBPL_OK) fail_msg("reading back failed: %s\n%s", err.text ? err.text : "?", text);
  cordon_sbpl_error_clear(&err);
  return p;
}

static void same_filter(const cordon_filter *a, const cordon_filter *b, size_t rule) {
  if (!a || !b) {
    if (a != b) fail_msg("rule %zu: one filter is missing", rule);
    return;
  }
  if (a->kind != b->kind || strcmp(a->name, b->name) != 0 || a->nargs != b->nargs || a->nchildren != b->nchildren)
    fail_msg("rule %zu: filter %s/%d/%zu/%zu reads back as %s/%d/%zu/%zu", rule, a->name, a->kind, a->nargs,
             a->nchildren, b->name, b->kind, b->nargs, b->nchildren);
  for (size_t i = 0; i < a->nargs; i++)
    if (strcmp(a->args[i].text, b->args[i].text) != 0 || a->args[i].is_param != b->args[i].is_param)
      fail_msg("rule %zu: filter %s argument '%s' reads back as '%s'", rule, a->name, a->args[i].text, b->args[i].text);
  for (size_t i = 0; i < a->nchildren; i++) same_filter(a->children[i], b->children[i], rule);
}

/* IR → text → IR gives the same rules: actions, operations, filter trees (parameters included) and
 * modifiers. */
static void same_rules(const cordon_policy *a, const cordon_policy *b) {
  assert_int_equal(a->nrules, b->nrules);
  for (size_t i = 0; i < a->nrules; i++) {
    const cordon_rule *x = &a->rules[i], *y = &b->rules[i];
    assert_int_equal(x->action, y->action);
    assert_int_equal(x->nops, y->nops);
    for (size_t k = 0; k < x->nops; k++) assert_string_equal(x->ops[k], y->ops[k]);
    same_filter(x->filter, y->filter, i);
    assert_int_equal(x->nmods, y->nmods);
    for (size_t k = 0; k < x->nmods; k++) assert_string_equal(x->mods[k].name, y->mods[k].name);
  }
}

static void seatbelt_policies_read_back_as_the_same_rules(void **state) {
  (void)state;
  static const char *const roots[] = {"/Users/dev/w \"x\" (y)"};
  cordon_profile_ctx ctx = {"/Users/dev/w", roots, 1, "/private/var/folders/T", "/Users/dev", NULL};
  for (size_t n = 0; cordon_profile_standard_names[n]; n++) {
    cordon_profile *prof = NULL;
    assert_int_equal(cordon_profile_standard(cordon_profile_standard_names[n], &prof), CORDON_PROFILE_OK);
    for (int base = 0; base < 2; base++) {
      cordon_policy *built = cordon_policy_new();
      cordon_params params = CORDON_PARAMS_INIT;
      cordon_buf msg = CORDON_BUF_INIT, text = CORDON_BUF_INIT;
      assert_int_equal(cordon_seatbelt_build(prof, &ctx, base, built, &params, &msg), CORDON_SANDBOX_OK);
      cordon_sbpl_write_error err;
      assert_int_equal(cordon_sbpl_write_policy(built, base, &text, &err), CORDON_SBPL_WRITE_OK);
      cordon_policy *read = parse_text(cordon_buf_str(&text));
      assert_int_equal(read->ndiags, 0);
      same_rules(built, read);
      cordon_policy_free(read);
      cordon_policy_free(built);
      cordon_params_free(&params);
      cordon_buf_free(&msg);
      cordon_buf_free(&text);
    }
    cordon_profile_free(prof);
  }
}

/* Any string the quoting functions accept reads back byte for byte, as a literal and as a regex. */
static void every_accepted_string_reads_back_exactly(void **state) {
  (void)state;
  /* Whole characters, so most strings are valid UTF-8; a few bytes that must be refused. */
  static const char *const pieces[] = {"a", "b", "/", "\"", "\\", "(", ")", "#", ";", "|", ".", "*", "$", "^",
                                       " ", ":", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\t", "\n", "\xff"};
  const size_t npieces = sizeof pieces / sizeof *pieces;
  unsigned seed = 12345;
  size_t accepted = 0;
  for (int round = 0; round < 3000; round++) {
    char s[128] = "/";
    size_t count = (seed = seed * 1103515245u + 12345u) >> 16 & 15;
    for (size_t i = 0; i < count; i++) strcat(s, pieces[((seed = seed * 1103515245u + 12345u) >> 16) % npieces]);
    size_t len = strlen(s);
    for (int regex = 0; regex < 2; regex++) {
      cordon_buf text = CORDON_BUF_INIT;
      cordon_buf_puts(&text, regex ? "(allow file-read* (regex " : "(allow file-read* (literal ");
      cordon_sbpl_write_status st = regex ? cordon_sbpl_quote_regex(s, len, &text) : cordon_sbpl_quote(s, len, &text);
      if (st != CORDON_SBPL_WRITE_OK) {
        assert_int_equal(st, cordon_sbpl_check_string(s, len, NULL));  /* refused for a stated reason */
        cordon_buf_free(&text);
        continue;
      }
      accepted++;
      cordon_buf_puts(&text, "))\n");
      cordon_policy *p = parse_text(cordon_buf_str(&text));
      assert_int_equal(p->nrules, 1);
      assert_non_null(p->rules[0].filter);
      assert_int_equal(p->rules[0].filter->nargs, 1);
      if (strcmp(p->rules[0].filter->args[0].text, s) != 0)
        fail_msg("'%s' read back as '%s' from %s", s, p->rules[0].filter->args[0].text, cordon_buf_str(&text));
      cordon_policy_free(p);
      cordon_buf_free(&text);
    }
  }
  assert_true(accepted > 500);  /* the property was exercised, not only refusals */
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(quote_escapes_quotes_and_backslashes),
    cmocka_unit_test(quote_keeps_parentheses_spaces_colons_and_unicode_as_written),
    cmocka_unit_test(quote_refuses_newline_tab_and_delete_as_control_characters),
    cmocka_unit_test(quote_refuses_a_nul_inside_the_given_length),
    cmocka_unit_test(quote_refuses_invalid_utf8_overlong_forms_and_surrogates),
    cmocka_unit_test(quote_refuses_strings_over_the_literal_limit),
    cmocka_unit_test(regex_literals_are_raw_strings_unless_they_hold_a_quote),
    cmocka_unit_test(regex_escape_makes_every_metacharacter_literal),
    cmocka_unit_test(parameter_names_are_plain_identifiers),
    cmocka_unit_test(rules_write_params_explicit_groups_comments_and_modifiers),
    cmocka_unit_test(a_rule_without_operations_is_refused),
    cmocka_unit_test(require_not_with_two_children_is_refused),
    cmocka_unit_test(an_operation_name_that_would_break_the_text_is_refused),
    cmocka_unit_test(a_bad_parameter_reference_is_refused),
    cmocka_unit_test(a_newline_in_a_path_fails_and_names_the_rule),
    cmocka_unit_test(a_long_literal_says_to_use_a_parameter),
    cmocka_unit_test(status_names_are_stable),
    cmocka_unit_test(seatbelt_policies_read_back_as_the_same_rules),
    cmocka_unit_test(every_accepted_string_reads_back_exactly),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
