/* tests/c/test_eval_apple.c — the constructs Apple's system profiles and their preludes use, each on a
 * fixture of our own, with the decisions the published semantics give (docs/sbpl-semantics.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sbpl/decide.h"
#include "sbpl/parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cordon_policy *parse(const char *text) {
  cordon_policy *p = NULL;
  cordon_sbpl_error err;
  if (cordon_sbpl_parse(text, strlen(text), "t.sb", NULL, NULL, &p, &err) != CORDON_SBPL_OK) {
    print_error("unexpected parse failure: %s\n", err.text);
    cordon_sbpl_error_clear(&err);
    fail();
  }
  return p;
}

static bool has_diag(const cordon_policy *p, const char *code, unsigned line) {
  for (size_t i = 0; i < p->ndiags; i++)
    if (!strcmp(p->diags[i].code, code) && p->diags[i].loc.line == line) return true;
  return false;
}

/* Decides one query; `fact` is NULL or "name=value". */
static cordon_decision ask(cordon_policy *p, const char *op, const char *target, const char *fact) {
  cordon_decider *d = cordon_decider_new(p, NULL, 0);
  assert_non_null(d);
  char name[64] = "", err[128];
  cordon_fact f = {name, ""};
  if (fact) {
    const char *eq = strchr(fact, '=');
    memcpy(name, fact, (size_t)(eq - fact));
    name[eq - fact] = '\0';
    f.value = eq + 1;
  }
  cordon_decision dec;
  assert_int_equal(cordon_decide(d, op, target, fact ? &f : NULL, fact ? 1 : 0, &dec, err, sizeof err), CORDON_DECIDE_OK);
  cordon_decider_free(d);
  return dec;
}

static void with_filter_ands_its_filter_into_every_rule_inside(void **state) {
  (void)state;
  cordon_policy *p = parse("(version 1)\n(deny default)\n"
                           "(with-filter (system-attribute apple-internal)\n"
                           "  (allow sysctl-read)\n"
                           "  (allow file-read* (subpath \"/a\") (subpath \"/b\")))\n"
                           "(allow file-read* (literal \"/after\"))\n");
  assert_int_equal(p->nrules, 4);
  /* an unfiltered rule inside gets the filter itself; a filtered one (require-all its-filter F) */
  assert_non_null(p->rules[1].filter);
  assert_int_equal(p->rules[1].filter->kind, CORDON_F_NAME);
  assert_string_equal(p->rules[1].filter->name, "system-attribute");
  cordon_filter *f = p->rules[2].filter;
  assert_int_equal(f->kind, CORDON_F_ALL);
  assert_int_equal(f->nchildren, 2);
  assert_int_equal(f->children[0]->kind, CORDON_F_ANY);
  assert_string_equal(f->children[1]->name, "system-attribute");
  assert_int_equal(p->rules[3].filter->kind, CORDON_F_PATH); /* after the form: untouched */
  assert_int_equal(ask(p, "file-read-data", "/a/x", "system-attribute=apple-internal").action, CORDON_ALLOW);
  assert_int_equal(ask(p, "file-read-data", "/a/x", "system-attribute=").action, CORDON_DENY);
  assert_int_equal(ask(p, "file-read-data", "/c", "system-attribute=apple-internal").action, CORDON_DENY);
  assert_int_equal(ask(p, "sysctl-read", "kern.x", "system-attribute=apple-internal").action, CORDON_ALLOW);
  /* the unfiltered rule became a filtered one: it no longer stands as sysctl-read's fallback */
  cordon_decision d = ask(p, "sysctl-read", "kern.x", "system-attribute=");
  assert_int_equal(d.action, CORDON_DENY);
  assert_int_equal(d.rule->loc.line, 2);
  cordon_policy_free(p);
}

static void with_filter_nests_and_reaches_rules_made_by_procedures(void **state) {
  (void)state;
  cordon_policy *p = parse("(version 1)\n(deny default)\n"
                           "(define (grant path) (allow file-read* (subpath path)))\n"
                           "(with-filter (process-path \"/bin/tool\")\n"
                           "  (with-filter (require-not (vnode-type DIRECTORY))\n"
                           "    (grant \"/w\")))\n"
                           "(grant \"/plain\")\n");
  assert_int_equal(p->nrules, 3);
  cordon_filter *f = p->rules[1].filter;
  assert_int_equal(f->kind, CORDON_F_ALL);
  assert_int_equal(f->nchildren, 3); /* the rule's own, then the inner, then the outer filter */
  assert_string_equal(f->children[0]->name, "subpath");
  assert_string_equal(f->children[1]->name, "require-not");
  assert_string_equal(f->children[2]->name, "process-path");
  assert_string_equal(p->rules[2].filter->name, "subpath");
  assert_int_equal(p->rules[1].loc.line, 6); /* located at the procedure call, as every rule */
  cordon_policy_free(p);
}

static void with_modifier_and_with_operations_add_to_every_rule_inside(void **state) {
  (void)state;
  cordon_policy *p = parse("(with-modifier (with report)\n"
                           "  (deny file-write* (subpath \"/x\")))\n"
                           "(with-operations (list file-read-data file-read-metadata)\n"
                           "  (allow file-write-data (literal \"/y\")))\n");
  assert_int_equal(p->nrules, 2);
  assert_int_equal(p->rules[0].nmods, 1);
  assert_string_equal(p->rules[0].mods[0].name, "report");
  assert_int_equal(p->rules[1].nops, 3);
  assert_string_equal(p->rules[1].ops[1], "file-read-data");
  assert_int_equal(ask(p, "file-read-metadata", "/y", NULL).action, CORDON_ALLOW);
  cordon_policy_free(p);
}

static void defined_p_knows_operations_and_bindings(void **state) {
  (void)state;
  cordon_policy *p = parse("(if (defined? 'system-socket) (allow system-socket))\n"
                           "(if (defined? 'no-such-operation) (allow file-read* (literal \"/never\")))\n"
                           "(define mine 1)\n"
                           "(when (and (defined? 'mine) (defined? 'subpath) (defined? 'iokit-open))\n"
                           "  (allow file-read* (literal \"/yes\")))\n");
  assert_int_equal(p->nrules, 2);
  assert_string_equal(p->rules[0].ops[0], "system-socket");
  assert_string_equal(p->rules[1].filter->args[0].text, "/yes");
  cordon_policy_free(p);
}

static void option_directives_and_unknown_top_level_built_ins_change_no_rule(void **state) {
  (void)state;
  cordon_policy *p = parse("(version 1)\n(disable-full-symbolication)\n(disable-callouts)\n"
                           "(eliminate-duplicate-rules)\n(deny default (with no-callout))\n"
                           "(enable-future-thing 1 2)\n(allow file-read* (literal \"/r\"))\n"
                           "(deny file-write* (no-callout))\n");
  assert_int_equal(p->nrules, 3);
  assert_null(p->rules[2].filter); /* (no-callout) is the modifier, not an unknown filter */
  assert_string_equal(p->rules[2].mods[0].name, "no-callout");
  assert_string_equal(p->rules[0].mods[0].name, "no-callout");
  assert_true(has_diag(p, "unknown-builtin", 6));
  assert_int_equal(p->ndiags, 1); /* no-callout is a modifier the prelude knows */
  cordon_policy_free(p);
}

static void several_strings_in_one_path_filter_mean_any_of_them(void **state) {
  (void)state;
  cordon_policy *p = parse("(deny default)\n"
                           "(allow file-read* (regex #\"^/a/\" #\"^/b/\" #\"\\.txt$\"))\n"
                           "(allow file-write* (subpath \"/w1\" \"/w2\"))\n"
                           "(allow file-read* (extension \"x.read\" \"x.rw\"))\n");
  cordon_filter *f = p->rules[1].filter;
  assert_int_equal(f->kind, CORDON_F_ANY);
  assert_int_equal(f->nchildren, 3);
  assert_int_equal(f->children[2]->nargs, 1);
  assert_int_equal(ask(p, "file-read-data", "/b/c", NULL).action, CORDON_ALLOW);
  assert_int_equal(ask(p, "file-read-data", "/c/notes.txt", NULL).action, CORDON_ALLOW);
  assert_int_equal(ask(p, "file-read-data", "/c/notes", NULL).action, CORDON_DENY);
  assert_int_equal(ask(p, "file-write-data", "/w2/f", NULL).action, CORDON_ALLOW);
  assert_int_equal(ask(p, "file-write-data", "/w3/f", NULL).action, CORDON_DENY);
  assert_int_equal(ask(p, "file-read-data", "/z", "extension=x.rw").action, CORDON_ALLOW);
  assert_int_equal(ask(p, "file-read-data", "/z", "extension=other").action, CORDON_DENY);
  cordon_policy_free(p);
}

static void vectors_cond_arrows_and_predicates_evaluate(void **state) {
  (void)state;
  cordon_policy *p = parse("(define v #(1 \"/v\" sym))\n"
                           "(allow file-read* (literal (vector-ref v 1)))\n"
                           "(define w (list->vector (list \"/w\")))\n"
                           "(vector-set! w 0 \"/w2\")\n"
                           "(when (and (= (vector-length v) 3) (equal? (vector->list w) '(\"/w2\")) (vector? w))\n"
                           "  (allow file-read* (literal (vector-ref w 0))))\n"
                           "(cond ((assoc \"k\" '((\"k\" . \"/kv\"))) => (lambda (p) (allow file-read* (literal (cdr p))))))\n"
                           "(when (and (positive? 2) (zero? 0) (negative? -1) (odd? 3) (even? 4) (string>=? \"b\" \"a\")\n"
                           "           (= (modulo -7 3) 2) (char=? (string-ref \"/x\" 0) #\\/) (= (_IO \"h\" 24) 26648))\n"
                           "  (allow file-read* (literal \"/preds\")))\n");
  assert_int_equal(p->nrules, 4);
  assert_string_equal(p->rules[0].filter->args[0].text, "/v");
  assert_string_equal(p->rules[1].filter->args[0].text, "/w2");
  assert_string_equal(p->rules[2].filter->args[0].text, "/kv");
  assert_string_equal(p->rules[3].filter->args[0].text, "/preds");
  cordon_policy_free(p);
}

static void bare_hexadecimal_tokens_are_symbols(void **state) {
  (void)state;
  cordon_policy *p = parse("(allow iokit-open (iokit-property 00f1 05ac))\n");
  assert_string_equal(p->rules[0].filter->args[0].text, "00f1");
  assert_string_equal(p->rules[0].filter->args[1].text, "05ac");
  cordon_policy_free(p);
}

static void prelude_filters_and_aliases_behave(void **state) {
  (void)state;
  cordon_policy *p = parse("(deny default)\n"
                           "(allow file-read-metadata (path-ancestors \"/a/b/c\"))\n"
                           "(allow file-ioctl (tty))\n"
                           "(allow network-outbound (to tcp \"localhost:80\"))\n"
                           "(allow file-read* (require-entitlement \"com.example.read\"))\n");
  assert_int_equal(ask(p, "file-read-metadata", "/a/b", NULL).action, CORDON_ALLOW);
  assert_int_equal(ask(p, "file-read-metadata", "/", NULL).action, CORDON_ALLOW);
  assert_int_equal(ask(p, "file-read-metadata", "/a/b/c", NULL).action, CORDON_DENY);
  assert_int_equal(ask(p, "file-ioctl", "/dev/ttys001", "vnode-type=TTY").action, CORDON_ALLOW);
  assert_int_equal(ask(p, "network-outbound", "localhost:80", NULL).action, CORDON_ALLOW);
  assert_int_equal(ask(p, "file-read-data", "/q", "entitlement=com.example.read").action, CORDON_ALLOW);
  assert_int_equal(ask(p, "file-read-data", "/q", "entitlement=").action, CORDON_DENY);
  cordon_policy_free(p);
}

/* The app sandbox's base profile is a Scheme program: its own (entitlement) over an alist, TinyScheme
 * macros, actions passed as values, filters built by apply. */
static void application_style_programs_evaluate(void **state) {
  (void)state;
  cordon_policy *p = parse(
      "(define *entitlements* '((\"com.example.net\" . #t) (\"com.example.dirs\" \"/d1\" \"/d2\")))\n"
      "(define (entitlement key) (let ((entry (assoc key *entitlements*))) (and entry (cdr entry))))\n"
      "(define (apply-read op path-filter) (op file-read* path-filter))\n"
      "(define resolving-subpath subpath)\n"
      "(macro (with-redirection form) `(let ((subpath resolving-subpath)) ,@(cdr form)))\n"
      "(deny default)\n"
      "(when (entitlement \"com.example.net\") (allow network-outbound (remote ip)))\n"
      "(let ((dirs (entitlement \"com.example.dirs\")))\n"
      "  (when (list? dirs) (apply-read allow (apply require-any (map subpath dirs)))))\n"
      "(with-redirection (apply-read deny (subpath \"/d1/secret\")))\n"
      "(if (defined? `user-preference-read) (allow user-preference-read (preference-domain \"x\")))\n"
      "(let () (allow file-read* (literal (list->string (reverse (string->list \"a/\"))))))\n"
      "(when (and (atom? 'a) (not (atom? '(1))) (equal? (split-string \"/p:/q\" \":\") '(\"/p\" \"/q\"))\n"
      "           (equal? (cadar '((1 2))) 2))\n"
      "  (allow file-read* (literal \"/ok\")))\n");
  assert_int_equal(p->nrules, 7);
  assert_int_equal(ask(p, "network-outbound", "remote:tcp:localhost:443", NULL).action, CORDON_ALLOW);
  assert_int_equal(ask(p, "file-read-data", "/d2/f", NULL).action, CORDON_ALLOW);
  assert_int_equal(ask(p, "file-read-data", "/d1/secret/k", NULL).action, CORDON_DENY);
  assert_int_equal(ask(p, "file-read-data", "/a", NULL).action, CORDON_ALLOW);
  assert_int_equal(ask(p, "file-read-data", "/ok", NULL).action, CORDON_ALLOW);
  assert_int_equal(ask(p, "user-preference-read", "x", NULL).action, CORDON_ALLOW);
  cordon_policy_free(p);
}

/* A cond that matches nothing is the empty list, as in TinyScheme (application.sb maps over one); as a
 * rule's argument it is refused rather than read as "no filter", which would widen the rule. */
static void an_unmatched_cond_is_the_empty_list_and_no_rule_argument(void **state) {
  (void)state;
  cordon_policy *p = parse("(define (force-list ls) (cond ((list? ls) ls) ((string? ls) (list ls))))\n"
                           "(for-each (lambda (d) (allow file-read* (subpath d))) (force-list #f))\n"
                           "(for-each (lambda (d) (allow file-read* (subpath d))) (force-list \"/one\"))\n");
  assert_int_equal(p->nrules, 1);
  cordon_policy_free(p);
  cordon_policy *q = NULL;
  cordon_sbpl_error err;
  const char *text = "(allow file-read* (cond (#f (subpath \"/x\"))))";
  assert_int_equal(cordon_sbpl_parse(text, strlen(text), "t.sb", NULL, NULL, &q, &err), CORDON_SBPL_EVAL);
  assert_non_null(strstr(err.text, "empty list"));
  cordon_sbpl_error_clear(&err);
}

/* system.sb allows (xpc-service-name-prefix ""): a fact about XPC lookups, which must not grant every
 * mach-lookup of a global name. */
static void xpc_service_names_are_a_fact_not_every_lookup(void **state) {
  (void)state;
  cordon_policy *p = parse("(deny default)\n(allow mach-lookup (xpc-service-name-prefix \"\"))\n");
  assert_int_equal(ask(p, "mach-lookup", "com.example.daemon", NULL).action, CORDON_DENY);
  assert_int_equal(ask(p, "mach-lookup", "com.example.daemon", "xpc-service-name=com.example.daemon").action, CORDON_ALLOW);
  cordon_policy_free(p);
}

/* A decision names the fact it lacked, and the name stays readable after the matcher returned. */
static void a_missing_fact_is_named_in_the_decision(void **state) {
  (void)state;
  cordon_policy *p = parse("(deny default)\n(allow file-read* (require-all (file-mode #o0004) (subpath \"/System\")))\n"
                           "(allow file-read* (xattr-regex #\"^com\\.x\"))\n");
  cordon_decider *d = cordon_decider_new(p, NULL, 0);
  cordon_decision dec;
  char err[128];
  assert_int_equal(cordon_decide(d, "file-read-data", "/System/x", NULL, 0, &dec, err, sizeof err), CORDON_DECIDE_OK);
  assert_int_equal(dec.nassumed, 2);
  assert_string_equal(dec.assumed_fact[0], "xattr"); /* the base name of xattr-regex: what --fact takes */
  assert_string_equal(dec.assumed_fact[1], "file-mode");
  cordon_decider_free(d);
  cordon_policy_free(p);
}

/* Unknown does not mean fail: the rule is kept, and a decision takes the safe side in both directions. */
static void an_unknown_filter_may_match_a_deny_and_may_not_match_an_allow(void **state) {
  (void)state;
  cordon_policy *p = parse("(deny default)\n"
                           "(allow file-read* (subpath \"/data\"))\n"
                           "(deny file-read* (require-all (subpath \"/data/secret\") (colour \"blue\")))\n"
                           "(allow file-write* (require-all (subpath \"/data\") (colour \"red\")))\n");
  assert_true(has_diag(p, "unknown-filter", 3));
  cordon_decision d = ask(p, "file-read-data", "/data/secret/key", NULL);
  assert_int_equal(d.action, CORDON_DENY); /* the deny may match: it decides */
  assert_int_equal(d.rule->loc.line, 3);
  assert_true(d.unknown);
  assert_true(d.assumed_match[0]);
  d = ask(p, "file-write-data", "/data/f", NULL);
  assert_int_equal(d.action, CORDON_DENY); /* the allow may not match: passed over */
  assert_int_equal(d.rule->loc.line, 1);
  assert_true(d.unknown);
  assert_false(d.assumed_match[0]);
  d = ask(p, "file-read-data", "/data/open", NULL);
  assert_int_equal(d.action, CORDON_ALLOW); /* a rule the unknown filter cannot reach stays exact */
  assert_false(d.unknown);
  /* stated as a fact, the filter is decided like any other */
  assert_int_equal(ask(p, "file-read-data", "/data/secret/key", "colour=green").action, CORDON_ALLOW);
  assert_int_equal(ask(p, "file-write-data", "/data/f", "colour=red").action, CORDON_ALLOW);
  cordon_policy_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(with_filter_ands_its_filter_into_every_rule_inside),
    cmocka_unit_test(with_filter_nests_and_reaches_rules_made_by_procedures),
    cmocka_unit_test(with_modifier_and_with_operations_add_to_every_rule_inside),
    cmocka_unit_test(defined_p_knows_operations_and_bindings),
    cmocka_unit_test(option_directives_and_unknown_top_level_built_ins_change_no_rule),
    cmocka_unit_test(several_strings_in_one_path_filter_mean_any_of_them),
    cmocka_unit_test(vectors_cond_arrows_and_predicates_evaluate),
    cmocka_unit_test(bare_hexadecimal_tokens_are_symbols),
    cmocka_unit_test(prelude_filters_and_aliases_behave),
    cmocka_unit_test(application_style_programs_evaluate),
    cmocka_unit_test(an_unmatched_cond_is_the_empty_list_and_no_rule_argument),
    cmocka_unit_test(a_missing_fact_is_named_in_the_decision),
    cmocka_unit_test(xpc_service_names_are_a_fact_not_every_lookup),
    cmocka_unit_test(an_unknown_filter_may_match_a_deny_and_may_not_match_an_allow),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
