/* needs: linux */
/* tests/c/test_gate_eval.c — what the gate asks of the evaluator (eval.h): the rule that decided one
 * class at one path, whether a rule names a path, and which denies lie beneath a name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/linux/eval.h"

static const unsigned char WRITE_STAR[LX_CLASSES] = {0, 0x2, 0x2, 0x2, 0, 0};
static const unsigned char DEFAULT[LX_CLASSES] = {0, 0x8, 0x8, 0x8, 0, 0x4};
static const unsigned char CONNECT[LX_CLASSES] = {0, 0, 0, 0, 0, 0x1};

static cordon_filter *path_filter(cordon_match m, const char *arg) {
  cordon_filter *f = cordon_filter_new(CORDON_F_PATH, m == CORDON_MATCH_REGEX ? "regex" : "literal", m);
  cordon_filter_add_arg(f, arg, false);
  return f;
}

static void the_deciding_rule_is_reported_for_one_class(void **state) {
  (void)state;
  lx_rules rs = {0};
  assert_true(lx_rules_add_rule(&rs, CORDON_DENY, DEFAULT, NULL, NULL, false, "d:1"));
  assert_true(lx_rules_add_rule(&rs, CORDON_ALLOW, WRITE_STAR, NULL, "/w", true, "w:2"));
  cordon_filter *re = path_filter(CORDON_MATCH_REGEX, "/\\.envrc$");
  assert_true(lx_rules_add_rule(&rs, CORDON_DENY, WRITE_STAR, re, NULL, false, "r:3"));
  assert_true(lx_rules_index(&rs));
  const lx_xrule *why = NULL;
  assert_true(lx_decide_why(&rs, CORDON_LX_CREATE, "/w/a", &why));
  assert_string_equal(why->source, "w:2");
  assert_false(lx_decide_why(&rs, CORDON_LX_WRITE, "/w/sub/.envrc", &why));
  assert_string_equal(why->source, "r:3");
  assert_false(lx_decide_why(&rs, CORDON_LX_REMOVE, "/elsewhere", &why));
  assert_string_equal(why->source, "d:1");
  lx_rules_free(&rs);
  cordon_filter_free(re);
  lx_rules empty = {0};
  assert_true(lx_rules_index(&empty));
  assert_true(lx_decide_why(&empty, CORDON_LX_CREATE, "/x", &why));
  assert_null(why);  /* no rule on the chain: allowed, and nothing decided */
  lx_rules_free(&empty);
}

static void only_a_rule_whose_filter_names_a_path_can_allow_a_socket_by_path(void **state) {
  (void)state;
  lx_rules rs = {0};
  cordon_filter *bare = cordon_filter_new(CORDON_F_NETWORK, "remote", CORDON_MATCH_NONE);
  cordon_filter_add_arg(bare, "unix-socket", false);
  cordon_filter *named = cordon_filter_new(CORDON_F_NETWORK, "remote", CORDON_MATCH_NONE);
  cordon_filter_add_arg(named, "unix-socket", false);
  cordon_filter_add_child(named, path_filter(CORDON_MATCH_LITERAL, "/run/a.sock"));
  cordon_filter *not = cordon_filter_new(CORDON_F_NOT, "require-not", CORDON_MATCH_NONE);
  cordon_filter_add_child(not, path_filter(CORDON_MATCH_LITERAL, "/run/b.sock"));
  assert_true(lx_rules_add_rule(&rs, CORDON_ALLOW, CONNECT, NULL, NULL, false, "unfiltered"));
  assert_true(lx_rules_add_rule(&rs, CORDON_ALLOW, CONNECT, bare, NULL, false, "bare"));
  assert_true(lx_rules_add_rule(&rs, CORDON_ALLOW, CONNECT, not, NULL, false, "not"));
  assert_true(lx_rules_add_rule(&rs, CORDON_ALLOW, CONNECT, named, NULL, false, "named"));
  assert_true(lx_rules_add_rule(&rs, CORDON_ALLOW, CONNECT, NULL, "/run/c.sock", false, "synthetic"));
  assert_true(lx_rules_index(&rs));
  const lx_xrule *why = NULL;
  assert_true(lx_decide_connect_why(&rs, "/run/c.sock", NULL, &why));
  assert_string_equal(why->source, "synthetic");
  assert_true(lx_rule_names_path(why));
  assert_true(lx_decide_connect_why(&rs, "/run/a.sock", NULL, &why));
  assert_string_equal(why->source, "named");
  assert_true(lx_rule_names_path(why));
  assert_true(lx_decide_connect_why(&rs, "/run/other.sock", NULL, &why));
  assert_string_equal(why->source, "not");
  assert_false(lx_rule_names_path(why));  /* allowed by "anything but b.sock": that names no socket */
  for (size_t i = 0; i < rs.count; i++)
    if (strcmp(rs.items[i].source, "unfiltered") == 0) assert_false(lx_rule_names_path(&rs.items[i]));
    else if (strcmp(rs.items[i].source, "bare") == 0) assert_false(lx_rule_names_path(&rs.items[i]));
  lx_rules_free(&rs);
  cordon_filter_free(bare);
  cordon_filter_free(named);
  cordon_filter_free(not);
}

typedef struct {
  char found[8][64];
  bool exact[8];
  int n;
} seen;

static void collect(void *ud, const char *arg, bool exact) {
  seen *s = ud;
  snprintf(s->found[s->n], sizeof s->found[0], "%s", arg);
  s->exact[s->n++] = exact;
}

static void denies_beneath_a_name_are_listed_with_regexes_by_their_anchored_head(void **state) {
  (void)state;
  lx_rules rs = {0};
  cordon_filter *anchored = path_filter(CORDON_MATCH_REGEX, "^/w/\\.idea/run");
  cordon_filter *loose = path_filter(CORDON_MATCH_REGEX, "/\\.vscode/x$");
  cordon_filter *pfx = cordon_filter_new(CORDON_F_PATH, "prefix", CORDON_MATCH_PREFIX);
  cordon_filter_add_arg(pfx, "/w/.vscode/ta", false);
  assert_true(lx_rules_add_rule(&rs, CORDON_DENY, WRITE_STAR, NULL, "/w/.vscode/tasks.json", false, "a"));
  assert_true(lx_rules_add_rule(&rs, CORDON_ALLOW, WRITE_STAR, NULL, "/w/.vscode/ok.json", false, "allow: not listed"));
  assert_true(lx_rules_add_rule(&rs, CORDON_DENY, WRITE_STAR, anchored, NULL, false, "b"));
  assert_true(lx_rules_add_rule(&rs, CORDON_DENY, WRITE_STAR, loose, NULL, false, "unanchored: not listed"));
  assert_true(lx_rules_add_rule(&rs, CORDON_DENY, WRITE_STAR, pfx, NULL, false, "c"));
  assert_true(lx_rules_add_rule(&rs, CORDON_DENY, WRITE_STAR, NULL, "/w/.vscode", false, "the name itself: not beneath"));
  assert_true(lx_rules_add_rule(&rs, CORDON_DENY, WRITE_STAR, NULL, "/w/.vscodex/y", false, "a sibling: not beneath"));
  assert_true(lx_rules_index(&rs));
  seen s = {0};
  lx_deny_args_beneath(&rs, CORDON_LX_MODIFY, "/w/.vscode", collect, &s);
  assert_int_equal(s.n, 2);
  assert_string_equal(s.found[0], "/w/.vscode/tasks.json");
  assert_true(s.exact[0]);
  assert_string_equal(s.found[1], "/w/.vscode/ta");
  assert_false(s.exact[1]);
  memset(&s, 0, sizeof s);
  lx_deny_args_beneath(&rs, CORDON_LX_MODIFY, "/w", collect, &s);
  assert_int_equal(s.n, 5);
  assert_string_equal(s.found[1], "/w/.idea/run");
  lx_rules_free(&rs);
  cordon_filter_free(anchored);
  cordon_filter_free(loose);
  cordon_filter_free(pfx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(the_deciding_rule_is_reported_for_one_class),
      cmocka_unit_test(only_a_rule_whose_filter_names_a_path_can_allow_a_socket_by_path),
      cmocka_unit_test(denies_beneath_a_name_are_listed_with_regexes_by_their_anchored_head),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
