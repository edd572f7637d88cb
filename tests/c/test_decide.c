/* tests/c/test_decide.c — the decision algorithm on hand-built IR (the semantics measured on real Macs:
 * last matching filtered rule, then the last unfiltered rule, then the parent operation). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "sbpl/decide.h"
#include "sbpl/ops.h"

static unsigned next_line;

/* Adds (action op filter) where filter is NULL or a path filter "kind:arg". */
static cordon_rule *add(cordon_policy *p, cordon_action a, const char *op, const char *filter) {
  cordon_loc loc = {cordon_policy_intern(p, "t.sb"), ++next_line, 1};
  cordon_rule *r = cordon_policy_add_rule(p, a, loc);
  cordon_rule_add_op(r, op);
  if (filter) {
    const char *colon = strchr(filter, ':');
    char kind[32];
    memcpy(kind, filter, (size_t)(colon - filter));
    kind[colon - filter] = '\0';
    r->filter = cordon_filter_path(kind, colon + 1, false);
  }
  return r;
}

static cordon_policy *fresh(void) {
  next_line = 0;
  return cordon_policy_new();
}

static cordon_decision ask(cordon_policy *p, const char *op, const char *target) {
  cordon_decider *d = cordon_decider_new(p, NULL, 0);
  assert_non_null(d);
  cordon_decision dec;
  char err[128];
  assert_int_equal(cordon_decide(d, op, target, NULL, 0, &dec, err, sizeof err), CORDON_DECIDE_OK);
  cordon_decider_free(d);
  return dec;
}

static void the_last_matching_filtered_rule_wins(void **state) {
  (void)state;
  cordon_policy *p = fresh();
  add(p, CORDON_DENY, "default", NULL);
  add(p, CORDON_ALLOW, "file-read*", "subpath:/Users/u");
  add(p, CORDON_DENY, "file-read*", "subpath:/Users/u/.ssh");
  cordon_decision d = ask(p, "file-read-data", "/Users/u/.ssh/id_rsa");
  assert_int_equal(d.action, CORDON_DENY);
  assert_int_equal(d.rule->loc.line, 3);
  assert_true(d.rule_filtered);
  d = ask(p, "file-read-data", "/Users/u/notes.txt");
  assert_int_equal(d.action, CORDON_ALLOW);
  assert_int_equal(d.rule->loc.line, 2);
  cordon_policy_free(p);
}

static void an_unfiltered_rule_does_not_override_a_filtered_match(void **state) {
  (void)state;
  cordon_policy *p = fresh();
  add(p, CORDON_ALLOW, "file-write*", "subpath:/w");
  add(p, CORDON_DENY, "file-write*", NULL); /* later, but unfiltered: only a fallback */
  cordon_decision d = ask(p, "file-write-data", "/w/a");
  assert_int_equal(d.action, CORDON_ALLOW);
  assert_int_equal(d.rule->loc.line, 1);
  d = ask(p, "file-write-data", "/elsewhere");
  assert_int_equal(d.action, CORDON_DENY);
  assert_int_equal(d.rule->loc.line, 2);
  assert_false(d.rule_filtered);
  cordon_policy_free(p);
}

static void the_last_unfiltered_rule_is_the_fallback(void **state) {
  (void)state;
  cordon_policy *p = fresh();
  add(p, CORDON_DENY, "network*", NULL);
  add(p, CORDON_ALLOW, "network*", NULL);
  cordon_decision d = ask(p, "network-outbound", "example.com:443");
  assert_int_equal(d.action, CORDON_ALLOW);
  assert_int_equal(d.rule->loc.line, 2);
  cordon_policy_free(p);
}

static void a_specific_operation_is_consulted_before_its_wildcard_whatever_the_order(void **state) {
  (void)state;
  cordon_policy *p = fresh();
  add(p, CORDON_ALLOW, "file-read-data", "subpath:/secret");
  add(p, CORDON_DENY, "file-read*", "subpath:/secret"); /* later, coarser: loses for file-read-data */
  cordon_decision d = ask(p, "file-read-data", "/secret/key");
  assert_int_equal(d.action, CORDON_ALLOW);
  assert_int_equal(d.rule->loc.line, 1);
  assert_int_equal(d.nchain, 1);
  d = ask(p, "file-read-metadata", "/secret/key");
  assert_int_equal(d.action, CORDON_DENY);
  assert_int_equal(d.nchain, 2);
  assert_string_equal(d.chain[0], "file-read-metadata");
  assert_string_equal(d.chain[1], "file-read*");
  cordon_policy_free(p);
}

static void the_fallback_chain_is_reported_up_to_default(void **state) {
  (void)state;
  cordon_policy *p = fresh();
  add(p, CORDON_DENY, "default", NULL);
  add(p, CORDON_ALLOW, "file-read*", "subpath:/usr");
  cordon_decision d = ask(p, "file-read-data", "/etc/passwd");
  assert_int_equal(d.action, CORDON_DENY);
  assert_int_equal(d.by, CORDON_BY_RULE);
  assert_int_equal(d.rule->loc.line, 1);
  assert_int_equal(d.nchain, 4);
  assert_string_equal(d.chain[0], "file-read-data");
  assert_string_equal(d.chain[1], "file-read*");
  assert_string_equal(d.chain[2], "file*");
  assert_string_equal(d.chain[3], "default");
  cordon_policy_free(p);
}

static void deny_default_does_not_cover_process_info(void **state) {
  (void)state;
  cordon_policy *p = fresh();
  add(p, CORDON_DENY, "default", NULL);
  cordon_decision d = ask(p, "process-info-pidinfo", "others");
  assert_int_equal(d.action, CORDON_ALLOW);
  assert_int_equal(d.by, CORDON_BY_UNCOVERED);
  add(p, CORDON_DENY, "process-info*", NULL);
  d = ask(p, "process-info-pidinfo", "others");
  assert_int_equal(d.action, CORDON_DENY);
  d = ask(p, "file-map-executable", "/x");
  assert_int_equal(d.by, CORDON_BY_UNCOVERED);
  cordon_policy_free(p);
}

static void a_policy_without_any_rule_allows(void **state) {
  (void)state;
  cordon_policy *p = fresh();
  cordon_decision d = ask(p, "file-write-data", "/x");
  assert_int_equal(d.action, CORDON_ALLOW);
  assert_int_equal(d.by, CORDON_BY_NOTHING);
  cordon_policy_free(p);
}

static void aliases_in_rules_and_queries_mean_the_same_operation(void **state) {
  (void)state;
  cordon_policy *p = fresh();
  add(p, CORDON_DENY, "default", NULL);
  add(p, CORDON_ALLOW, "process-exec", "literal:/bin/ls"); /* an alias kept unexpanded by a builder */
  cordon_decision d = ask(p, "process-exec*", "/bin/ls");
  assert_int_equal(d.action, CORDON_ALLOW);
  d = ask(p, "process-exec", "/bin/ls");
  assert_int_equal(d.action, CORDON_ALLOW);
  assert_string_equal(d.op, "process-exec*");
  cordon_policy_free(p);
}

static void unknown_facts_are_reported_and_assumed_not_to_match(void **state) {
  (void)state;
  cordon_policy *p = fresh();
  add(p, CORDON_DENY, "default", NULL);
  cordon_rule *r = add(p, CORDON_ALLOW, "file-read*", NULL);
  r->filter = cordon_filter_new(CORDON_F_VNODE_TYPE, "vnode-type", CORDON_MATCH_NONE);
  cordon_filter_add_arg(r->filter, "DIRECTORY", false);
  cordon_decider *d = cordon_decider_new(p, NULL, 0);
  cordon_decision dec;
  char err[64];
  assert_int_equal(cordon_decide(d, "file-read-data", "/x", NULL, 0, &dec, err, sizeof err), CORDON_DECIDE_OK);
  assert_int_equal(dec.action, CORDON_DENY);
  assert_int_equal(dec.nassumed, 1);
  assert_string_equal(dec.assumed_fact[0], "vnode-type");
  cordon_fact dir[] = {{"vnode-type", "DIRECTORY"}};
  assert_int_equal(cordon_decide(d, "file-read-data", "/x", dir, 1, &dec, err, sizeof err), CORDON_DECIDE_OK);
  assert_int_equal(dec.action, CORDON_ALLOW);
  assert_int_equal(dec.nassumed, 0);
  cordon_decider_free(d);
  cordon_policy_free(p);
}

static void bad_queries_are_refused_with_a_reason(void **state) {
  (void)state;
  cordon_policy *p = fresh();
  cordon_decider *d = cordon_decider_new(p, NULL, 0);
  cordon_decision dec;
  char err[128];
  assert_int_equal(cordon_decide(d, "file-reed", "/x", NULL, 0, &dec, err, sizeof err),
                   CORDON_DECIDE_UNKNOWN_OPERATION);
  assert_non_null(strstr(err, "file-reed"));
  assert_int_equal(cordon_decide(d, "network-outbound", "nohostport", NULL, 0, &dec, err, sizeof err),
                   CORDON_DECIDE_BAD_TARGET);
  assert_string_equal(cordon_decide_status_name(CORDON_DECIDE_BAD_TARGET), "bad_target");
  cordon_decider_free(d);
  cordon_policy_free(p);
}

static void batch_answers_one_line_per_query_line_in_order(void **state) {
  (void)state;
  cordon_policy *p = fresh();
  add(p, CORDON_DENY, "default", NULL);
  add(p, CORDON_ALLOW, "file-read*", "subpath:/usr");
  cordon_decider *d = cordon_decider_new(p, NULL, 0);
  const char *in = "file-read-data /usr/lib/a b\n\n# comment\nfile-write-data /usr/x\r\nbogus /x\n"
                   "process-info-pidinfo self";
  cordon_buf out = CORDON_BUF_INIT;
  size_t errors = 0;
  size_t n = cordon_decide_batch(d, in, strlen(in), false, &out, &errors);
  assert_int_equal(n, 4);
  assert_int_equal(errors, 1);
  assert_string_equal(cordon_buf_str(&out),
                      "allow\tfile-read-data\t/usr/lib/a b\tt.sb:2:1\n"
                      "\n"
                      "\n"
                      "deny\tfile-write-data\t/usr/x\tt.sb:1:1\n"
                      "error\tbogus\t/x\tunknown operation 'bogus'\n"
                      "allow\tprocess-info-pidinfo\tself\t(uncovered)\n");
  cordon_buf_reset(&out);
  const char *q = "file-read-data /usr/\"q\"\n";
  cordon_decide_batch(d, q, strlen(q), true, &out, &errors);
  assert_string_equal(cordon_buf_str(&out), "{\"decision\":\"allow\",\"operation\":\"file-read-data\","
                                            "\"target\":\"/usr/\\\"q\\\"\",\"rule\":\"t.sb:2:1\"}\n");
  cordon_buf_free(&out);
  cordon_decider_free(d);
  cordon_policy_free(p);
}

/* The reference: the algorithm as written in the docs, one rule at a time, no index. */
static cordon_action brute(cordon_policy *p, const char *op, const char *path, unsigned *line) {
  cordon_target t;
  char err[64];
  cordon_match_ctx ctx = {0};
  cordon_target_parse(op, path, &t, err, sizeof err); /* the requested operation says what the target is */
  for (const char *o = op; o; o = cordon_sbpl_op_parent(o)) {
    const cordon_rule *unfiltered = NULL;
    for (size_t i = p->nrules; i-- > 0;) {
      cordon_rule *r = &p->rules[i];
      if (strcmp(r->ops[0], o) != 0) continue;
      if (!r->filter) {
        if (!unfiltered) unfiltered = r;
        continue;
      }
      if (cordon_filter_match(r->filter, &t, &ctx) == CORDON_TRI_YES) {
        *line = r->loc.line;
        return r->action;
      }
    }
    if (unfiltered) {
      *line = unfiltered->loc.line;
      return unfiltered->action;
    }
  }
  *line = 0;
  return CORDON_ALLOW;
}

static void the_path_index_agrees_with_testing_every_rule(void **state) {
  (void)state;
  static const char *const ops[] = {"file-read-data", "file-read*", "file*", "file-write*", "default"};
  static const char *const kinds[] = {"literal", "subpath", "prefix", "regex", "subpath"};
  static const char *const paths[] = {"/", "/a", "/a/b", "/a/bc", "/a/b/c", "/ab", "/a/", "/b", "/b/a/b",
                                      "/a//b", "/c/d/e/f"};
  unsigned seed = 12345;
  for (int round = 0; round < 300; round++) {
    cordon_policy *p = fresh();
    int n = 1 + (int)((seed = seed * 1103515245 + 12345) >> 16) % 12;
    for (int i = 0; i < n; i++) {
      seed = seed * 1103515245 + 12345;
      const char *op = ops[(seed >> 16) % 5];
      cordon_action a = (seed >> 20) & 1 ? CORDON_DENY : CORDON_ALLOW;
      if (((seed >> 22) & 7) == 0) {
        add(p, a, op, NULL);
        continue;
      }
      cordon_rule *r = add(p, a, op, NULL);
      int alts = 1 + (int)((seed >> 25) % 3);
      cordon_filter *any = alts > 1 ? cordon_filter_new(CORDON_F_ANY, "require-any", CORDON_MATCH_NONE) : NULL;
      for (int k = 0; k < alts; k++) {
        seed = seed * 1103515245 + 12345;
        const char *kind = kinds[(seed >> 16) % 5];
        const char *arg = paths[(seed >> 19) % 11];
        cordon_filter *f = cordon_filter_path(kind, arg, false);
        if (any) cordon_filter_add_child(any, f);
        else r->filter = f;
      }
      if (any) r->filter = any;
    }
    cordon_decider *d = cordon_decider_new(p, NULL, 0);
    for (size_t q = 0; q < sizeof paths / sizeof paths[0]; q++) {
      for (int o = 0; o < 2; o++) {
        const char *op = o ? "file-write-data" : "file-read-data";
        cordon_decision dec;
        char err[64];
        assert_int_equal(cordon_decide(d, op, paths[q], NULL, 0, &dec, err, sizeof err), CORDON_DECIDE_OK);
        unsigned line;
        cordon_action want = brute(p, op, paths[q], &line);
        if (dec.action != want || (dec.rule ? dec.rule->loc.line : 0) != line)
          fail_msg("round %d, %s %s: index says line %u, reference says line %u", round, op, paths[q],
                   dec.rule ? dec.rule->loc.line : 0, line);
      }
    }
    cordon_decider_free(d);
    cordon_policy_free(p);
  }
}

static cordon_filter *random_filter(unsigned *seed) {
  static const char *const paths[] = {"/s", "/s/a", "/s/ab", "/t"};
  static const char *const names[] = {"com.a", "com.b", "com.a.x"};
  *seed = *seed * 1103515245 + 12345;
  unsigned v = *seed >> 16;
  cordon_filter *f;
  switch (v % 7) {
  case 0: return cordon_filter_path(v & 8 ? "literal" : "subpath", paths[(v >> 4) % 4], false);
  case 1:
    f = cordon_filter_new(CORDON_F_NAME, v & 8 ? "global-name" : "global-name-prefix",
                          v & 8 ? CORDON_MATCH_LITERAL : CORDON_MATCH_PREFIX);
    cordon_filter_add_arg(f, names[(v >> 4) % 3], false);
    return f;
  case 2: case 3:
    f = cordon_filter_new(CORDON_F_NETWORK, v & 8 ? "local" : "remote", CORDON_MATCH_NONE);
    cordon_filter_add_arg(f, "unix-socket", false);
    if (v & 16) cordon_filter_add_child(f, cordon_filter_path(v & 32 ? "literal" : "subpath", paths[(v >> 6) % 4], false));
    return f;
  case 4:
    f = cordon_filter_new(CORDON_F_NETWORK, "remote", CORDON_MATCH_NONE);
    cordon_filter_add_arg(f, "tcp", false);
    cordon_filter_add_arg(f, "localhost:*", false);
    return f;
  case 5:
    f = cordon_filter_new(CORDON_F_ANY, "require-any", CORDON_MATCH_NONE);
    cordon_filter_add_child(f, random_filter(seed));
    cordon_filter_add_child(f, random_filter(seed));
    return f;
  default:
    f = cordon_filter_new(CORDON_F_NOT, "require-not", CORDON_MATCH_NONE);
    cordon_filter_add_child(f, random_filter(seed));
    return f;
  }
}

static void the_name_and_socket_index_agrees_with_testing_every_rule(void **state) {
  (void)state;
  static const char *const ops[] = {"network-outbound", "network-bind", "network*", "mach-lookup", "mach*"};
  static const struct { const char *op, *target; } queries[] = {
      {"network-outbound", "/s/a"}, {"network-outbound", "/s/ab"}, {"network-outbound", "/t"},
      {"network-outbound", "local:/s"}, {"network-bind", "/s/a"}, {"network-bind", "remote:/t"},
      {"network-outbound", "localhost:80"}, {"mach-lookup", "com.a"}, {"mach-lookup", "com.a.x"},
      {"mach-lookup", "com.b"}, {"mach-lookup", "/s/a"}, {"network-outbound", "/x"}};
  unsigned seed = 777;
  for (int round = 0; round < 400; round++) {
    cordon_policy *p = fresh();
    int n = 1 + (int)((seed = seed * 1103515245 + 12345) >> 16) % 10;
    for (int i = 0; i < n; i++) {
      seed = seed * 1103515245 + 12345;
      cordon_rule *r = add(p, (seed >> 20) & 1 ? CORDON_DENY : CORDON_ALLOW, ops[(seed >> 16) % 5], NULL);
      if ((seed >> 22) & 7) r->filter = random_filter(&seed);
    }
    cordon_decider *d = cordon_decider_new(p, NULL, 0);
    for (size_t q = 0; q < sizeof queries / sizeof queries[0]; q++) {
      cordon_decision dec;
      char err[64];
      assert_int_equal(cordon_decide(d, queries[q].op, queries[q].target, NULL, 0, &dec, err, sizeof err),
                       CORDON_DECIDE_OK);
      unsigned line;
      cordon_action want = brute(p, queries[q].op, queries[q].target, &line);
      if (dec.action != want || (dec.rule ? dec.rule->loc.line : 0) != line)
        fail_msg("round %d, %s %s: index says line %u, reference says line %u", round, queries[q].op,
                 queries[q].target, dec.rule ? dec.rule->loc.line : 0, line);
    }
    cordon_decider_free(d);
    cordon_policy_free(p);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(the_last_matching_filtered_rule_wins),
      cmocka_unit_test(an_unfiltered_rule_does_not_override_a_filtered_match),
      cmocka_unit_test(the_last_unfiltered_rule_is_the_fallback),
      cmocka_unit_test(a_specific_operation_is_consulted_before_its_wildcard_whatever_the_order),
      cmocka_unit_test(the_fallback_chain_is_reported_up_to_default),
      cmocka_unit_test(deny_default_does_not_cover_process_info),
      cmocka_unit_test(a_policy_without_any_rule_allows),
      cmocka_unit_test(aliases_in_rules_and_queries_mean_the_same_operation),
      cmocka_unit_test(unknown_facts_are_reported_and_assumed_not_to_match),
      cmocka_unit_test(bad_queries_are_refused_with_a_reason),
      cmocka_unit_test(batch_answers_one_line_per_query_line_in_order),
      cmocka_unit_test(the_path_index_agrees_with_testing_every_rule),
      cmocka_unit_test(the_name_and_socket_index_agrees_with_testing_every_rule),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
