/* tests/c/test_public_header.c — a C host needs only <cordon.h>: the header compiles on its own and
 * its parts work together (profile -> Seatbelt policy text -> parse -> decide). */
#include "cordon.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

static void the_public_header_exposes_paths_and_the_operation_table(void **state) {
  (void)state;
  assert_true(cordon_path_within("/repo", "/repo/a"));
  assert_false(cordon_path_within("/repo", "/repo2"));
  assert_string_equal(cordon_sbpl_op_parent("file-read-data"), "file-read*");
}

static void a_policy_built_from_the_ir_reads_back_through_the_parser_and_decides(void **state) {
  (void)state;
  cordon_policy *built = cordon_policy_new();
  cordon_rule *r = cordon_policy_add_rule(built, CORDON_DENY, (cordon_loc){0});
  assert_non_null(r);
  assert_true(cordon_rule_add_op(r, "default"));
  r = cordon_policy_add_rule(built, CORDON_ALLOW, (cordon_loc){0});
  assert_true(cordon_rule_add_op(r, "file-read*"));
  r->filter = cordon_filter_path("subpath", "W", true);
  assert_non_null(r->filter);

  cordon_buf text = CORDON_BUF_INIT;
  cordon_sbpl_write_error werr;
  assert_int_equal(cordon_sbpl_write_policy(built, true, &text, &werr), 0);
  cordon_policy_free(built);

  const cordon_sbpl_param params[] = {{"W", "/w"}, {NULL, NULL}};
  cordon_policy *read = NULL;
  cordon_sbpl_error err = {0};
  assert_int_equal(cordon_sbpl_parse(text.data, text.len, "built.sb", params, NULL, &read, &err), CORDON_SBPL_OK);
  cordon_buf_free(&text);
  assert_int_equal(read->nrules, 2);

  cordon_decider *d = cordon_decider_new(read, NULL, 0);
  cordon_decision dec;
  char why[256];
  assert_int_equal(cordon_decide(d, "file-read-data", "/w/a.c", NULL, 0, &dec, why, sizeof why), CORDON_DECIDE_OK);
  assert_int_equal(dec.action, CORDON_ALLOW);
  assert_int_equal(cordon_decide(d, "file-read-data", "/w2/a.c", NULL, 0, &dec, why, sizeof why), CORDON_DECIDE_OK);
  assert_int_equal(dec.action, CORDON_DENY);
  cordon_decider_free(d);
  cordon_policy_free(read);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(the_public_header_exposes_paths_and_the_operation_table),
    cmocka_unit_test(a_policy_built_from_the_ir_reads_back_through_the_parser_and_decides),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
