/* tests/c/test_precedence_sources.c — every precedence case measured on a real Mac that
 * docs/sbpl-semantics.md §1 cites, pinned source by source: the profile (as the source describes it,
 * in our words) and the answer the Mac gave. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sbpl/decide.h"
#include "sbpl/parse.h"

#include <string.h>

/* Parses `text`, decides `op` on `target`, and returns the action. */
static cordon_action decide(const char *text, const char *op, const char *target) {
  cordon_policy *p = NULL;
  cordon_sbpl_error err;
  if (cordon_sbpl_parse(text, strlen(text), "case.sb", NULL, NULL, &p, &err) != CORDON_SBPL_OK) {
    print_error("parse failure: %s\n", err.text);
    cordon_sbpl_error_clear(&err);
    fail();
  }
  cordon_decider *d = cordon_decider_new(p, NULL, 0);
  assert_non_null(d);
  cordon_decision dec;
  char msg[128];
  assert_int_equal(cordon_decide(d, op, target, NULL, 0, &dec, msg, sizeof msg), CORDON_DECIDE_OK);
  cordon_action a = dec.action;
  cordon_decider_free(d);
  cordon_policy_free(p);
  return a;
}

#define BASE "(version 1)\n(deny default)\n"

/* greywall PR #20, measured with sandbox-exec: a deny on the wildcard file-read* does not beat an allow
 * on file-read-data; a deny on file-read-data does. */
static void greywall_20_a_wildcard_deny_loses_to_a_specific_allow(void **state) {
  (void)state;
  assert_int_equal(decide(BASE "(allow file-read-data (subpath \"/\"))\n(deny file-read* (literal \"/p/.env\"))\n",
                          "file-read-data", "/p/.env"), CORDON_ALLOW);
  assert_int_equal(decide(BASE "(allow file-read-data (subpath \"/\"))\n(deny file-read-data (literal \"/p/.env\"))\n",
                          "file-read-data", "/p/.env"), CORDON_DENY);
}

/* microsoft/mxc PR #754, its table (connect() to a unix socket, network-outbound): between filtered
 * rules the later one wins, whichever action it has. */
static void mxc_754_the_later_filtered_rule_wins_either_way(void **state) {
  (void)state;
  const char *sock = "/private/tmp/d/s.sock";
  assert_int_equal(decide(BASE "(allow network-outbound (subpath \"/private/tmp/d\"))\n"
                               "(deny network-outbound (subpath \"/private/tmp/d\"))\n", "network-outbound", sock),
                   CORDON_DENY); /* allow then deny, same path: EPERM */
  assert_int_equal(decide(BASE "(deny network-outbound (subpath \"/private/tmp/d\"))\n"
                               "(allow network-outbound (subpath \"/private/tmp/d\"))\n", "network-outbound", sock),
                   CORDON_ALLOW); /* deny then allow, same path: CONNECT_OK */
  assert_int_equal(decide(BASE "(deny network-outbound (subpath \"/private/tmp\"))\n"
                               "(allow network-outbound (subpath \"/private/tmp/d\"))\n", "network-outbound", sock),
                   CORDON_ALLOW); /* shallow deny, deeper allow: CONNECT_OK */
}

/* mxc PR #754 (its second correction): a path-filtered deny beats an unfiltered allow in either order. */
static void mxc_754_an_unfiltered_allow_never_beats_a_filtered_deny(void **state) {
  (void)state;
  const char *sock = "/private/tmp/d/s.sock";
  assert_int_equal(decide(BASE "(allow network-outbound)\n(deny network-outbound (subpath \"/private/tmp/d\"))\n",
                          "network-outbound", sock), CORDON_DENY);
  assert_int_equal(decide(BASE "(deny network-outbound (subpath \"/private/tmp/d\"))\n(allow network-outbound)\n",
                          "network-outbound", sock), CORDON_DENY);
}

/* nolabs-ai/nono issue #970 (macOS 26.4.1) and PR #971: a targeted deny emitted before a broader write
 * allow does not hold; emitted after it, it does. */
static void nono_970_a_deny_placed_before_a_broader_allow_does_not_hold(void **state) {
  (void)state;
  assert_int_equal(decide(BASE "(deny file-write* (subpath \"/private/tmp/protected\"))\n(allow file-write* (subpath \"/\"))\n",
                          "file-write-create", "/private/tmp/protected/foo"), CORDON_ALLOW);
  assert_int_equal(decide(BASE "(allow file-write* (subpath \"/\"))\n(deny file-write* (subpath \"/private/tmp/protected\"))\n",
                          "file-write-create", "/private/tmp/protected/foo"), CORDON_DENY);
}

/* nono PR #971, verified there with sandbox-exec: an unfiltered deny on the specific operation blocks
 * whatever the order, since that operation's own rules are consulted before its wildcard's. */
static void nono_971_an_unfiltered_specific_deny_blocks_in_either_order(void **state) {
  (void)state;
  assert_int_equal(decide(BASE "(deny file-write-unlink)\n(allow file-write* (subpath \"/\"))\n",
                          "file-write-unlink", "/w/f"), CORDON_DENY);
  assert_int_equal(decide(BASE "(allow file-write* (subpath \"/\"))\n(deny file-write-unlink)\n",
                          "file-write-unlink", "/w/f"), CORDON_DENY);
}

/* nono PR #697: a later allow on the wildcard file-read* does not beat an earlier deny on file-read-data
 * (the keychain database stayed unreadable); the allow must name file-read-data. */
static void nono_697_a_wildcard_allow_does_not_beat_a_specific_deny(void **state) {
  (void)state;
  const char *db = "/Users/u/Library/Keychains/login.keychain-db";
  assert_int_equal(decide(BASE "(deny file-read-data (subpath \"/Users/u/Library/Keychains\"))\n"
                               "(allow file-read* (literal \"/Users/u/Library/Keychains/login.keychain-db\"))\n",
                          "file-read-data", db), CORDON_DENY);
  assert_int_equal(decide(BASE "(deny file-read-data (subpath \"/Users/u/Library/Keychains\"))\n"
                               "(allow file-read-data (literal \"/Users/u/Library/Keychains/login.keychain-db\"))\n",
                          "file-read-data", db), CORDON_ALLOW);
}

/* nono PR #1556 asserts "deny rules take precedence over broader allow rules" without a measurement; its
 * own case (issue #1555) is a narrower deny placed after the allow, which holds by the last-match rule.
 * The same deny placed first does not hold (#970): the assertion is not a rule of Seatbelt. */
static void nono_1556_its_case_is_a_narrower_deny_placed_later(void **state) {
  (void)state;
  assert_int_equal(decide(BASE "(allow file-read* (subpath \"/w\"))\n(deny file-read* (subpath \"/w/secret\"))\n",
                          "file-read-data", "/w/secret/k"), CORDON_DENY);
  assert_int_equal(decide(BASE "(deny file-read* (subpath \"/w/secret\"))\n(allow file-read* (subpath \"/w\"))\n",
                          "file-read-data", "/w/secret/k"), CORDON_ALLOW);
}

/* Apple's sbpl1.scm: an unfiltered rule replaces the operation's fallback entry and a filtered one goes
 * in front, so an unfiltered rule never overrides a filtered one of the same operation. */
static void sbpl1_an_unfiltered_rule_only_replaces_the_fallback(void **state) {
  (void)state;
  assert_int_equal(decide(BASE "(allow file-write* (subpath \"/w\"))\n(deny file-write*)\n", "file-write-data", "/w/a"),
                   CORDON_ALLOW);
  assert_int_equal(decide(BASE "(allow file-write* (subpath \"/w\"))\n(deny file-write*)\n", "file-write-data", "/x"),
                   CORDON_DENY);
  assert_int_equal(decide(BASE "(deny file-write*)\n(allow file-write*)\n", "file-write-data", "/x"), CORDON_ALLOW);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(greywall_20_a_wildcard_deny_loses_to_a_specific_allow),
    cmocka_unit_test(mxc_754_the_later_filtered_rule_wins_either_way),
    cmocka_unit_test(mxc_754_an_unfiltered_allow_never_beats_a_filtered_deny),
    cmocka_unit_test(nono_970_a_deny_placed_before_a_broader_allow_does_not_hold),
    cmocka_unit_test(nono_971_an_unfiltered_specific_deny_blocks_in_either_order),
    cmocka_unit_test(nono_697_a_wildcard_allow_does_not_beat_a_specific_deny),
    cmocka_unit_test(nono_1556_its_case_is_a_narrower_deny_placed_later),
    cmocka_unit_test(sbpl1_an_unfiltered_rule_only_replaces_the_fallback),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
