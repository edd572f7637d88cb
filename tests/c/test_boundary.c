/* tests/c/test_boundary.c — genesis, expansions, assess/apply, contains and the strict JSON form. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/boundary.h"

static const char *const roots[] = {"/w"};
static const cordon_profile_ctx ctx = {"/w", roots, 1, "/t", "/home/u", NULL};

static cordon_boundary *genesis(const char *name) {
  cordon_profile *p = NULL;
  assert_int_equal(cordon_profile_standard(name, &p), CORDON_PROFILE_OK);
  cordon_boundary *b = NULL;
  assert_int_equal(cordon_boundary_genesis("ask", p, &ctx, &b), CORDON_BOUNDARY_OK);
  cordon_profile_free(p);
  return b;
}

static void one(cordon_expansion *x, const char *path, cordon_access a, cordon_entry_match m) {
  assert_int_equal(cordon_expansion_add(x, path, a, m), CORDON_BOUNDARY_OK);
}

static cordon_assessment assess(cordon_boundary *b, cordon_expansion *x, char *reason, size_t cap) {
  cordon_assess_result r;
  assert_int_equal(cordon_boundary_assess(b, x, &r), CORDON_BOUNDARY_OK);
  if (reason) snprintf(reason, cap, "%s", r.reason);
  return r.outcome;
}

static void genesis_starts_at_revision_zero_with_the_kind_its_profile_implies(void **state) {
  (void)state;
  cordon_boundary *b = genesis("workspace-write");
  assert_int_equal(cordon_boundary_revision(b), 0);
  assert_int_equal(cordon_boundary_kind_of(b), CORDON_BOUNDARY_MANAGED);
  assert_string_equal(cordon_boundary_mode(b), "ask");
  cordon_boundary_free(b);
  b = genesis("danger-full-access");
  assert_int_equal(cordon_boundary_kind_of(b), CORDON_BOUNDARY_BYPASS);
  cordon_boundary_free(b);
  cordon_profile *ext = cordon_profile_new(CORDON_PROFILE_EXTERNAL);
  assert_int_equal(cordon_boundary_genesis(NULL, ext, NULL, &b), CORDON_BOUNDARY_OK);
  assert_int_equal(cordon_boundary_kind_of(b), CORDON_BOUNDARY_EXTERNAL);
  cordon_boundary_free(b);
  cordon_profile_free(ext);
}

static void genesis_refuses_context_paths_that_are_not_normalized(void **state) {
  (void)state;
  cordon_profile *p = NULL;
  cordon_profile_standard("read-only", &p);
  const char *bad_roots[] = {"/w/"};
  cordon_profile_ctx bad = {"/w", bad_roots, 1, NULL, NULL, NULL};
  cordon_boundary *b = NULL;
  assert_int_equal(cordon_boundary_genesis(NULL, p, &bad, &b), CORDON_BOUNDARY_INVALID_CONTEXT);
  assert_null(b);
  cordon_profile_free(p);
}

static void expansion_paths_must_be_normalized_absolute_and_bounded(void **state) {
  (void)state;
  cordon_expansion x = CORDON_EXPANSION_INIT;
  assert_int_equal(cordon_expansion_add(&x, "rel", CORDON_ACCESS_READ, CORDON_ENTRY_EXACT), CORDON_BOUNDARY_INVALID_PATH);
  assert_int_equal(cordon_expansion_add(&x, "/a//b", CORDON_ACCESS_READ, CORDON_ENTRY_EXACT), CORDON_BOUNDARY_INVALID_PATH);
  assert_int_equal(cordon_expansion_add(&x, "/a/../b", CORDON_ACCESS_READ, CORDON_ENTRY_EXACT), CORDON_BOUNDARY_INVALID_PATH);
  assert_int_equal(cordon_expansion_add(&x, "/a\nb", CORDON_ACCESS_READ, CORDON_ENTRY_EXACT), CORDON_BOUNDARY_INVALID_PATH);
  assert_int_equal(cordon_expansion_add(&x, "/a/", CORDON_ACCESS_READ, CORDON_ENTRY_EXACT), CORDON_BOUNDARY_INVALID_PATH);
  assert_int_equal(cordon_expansion_add(&x, "/a", CORDON_ACCESS_DENY, CORDON_ENTRY_EXACT), CORDON_BOUNDARY_INVALID_ACCESS);
  char *big = malloc(CORDON_EXPANSION_MAX_PATH + 2);
  memset(big, 'a', CORDON_EXPANSION_MAX_PATH + 1);
  big[0] = '/';
  big[CORDON_EXPANSION_MAX_PATH + 1] = '\0';
  assert_int_equal(cordon_expansion_add(&x, big, CORDON_ACCESS_READ, CORDON_ENTRY_EXACT), CORDON_BOUNDARY_PATH_TOO_LONG);
  free(big);
  char p[32];
  for (int i = 0; i < CORDON_EXPANSION_MAX_ENTRIES; i++) {
    snprintf(p, sizeof p, "/p%d", i);
    one(&x, p, CORDON_ACCESS_READ, CORDON_ENTRY_EXACT);
  }
  assert_int_equal(cordon_expansion_add(&x, "/one-more", CORDON_ACCESS_READ, CORDON_ENTRY_EXACT), CORDON_BOUNDARY_TOO_MANY_ENTRIES);
  cordon_expansion_free(&x);
}

static void expansion_total_size_is_capped(void **state) {
  (void)state;
  cordon_expansion x = CORDON_EXPANSION_INIT;
  char *p = malloc(4000);
  memset(p, 'b', 3999);
  p[0] = '/';
  p[3999] = '\0';
  cordon_boundary_status st = CORDON_BOUNDARY_OK;
  int added = 0;
  for (char c = 'a'; st == CORDON_BOUNDARY_OK && c <= 'z'; c++, added++) {
    p[1] = c;
    st = cordon_expansion_add(&x, p, CORDON_ACCESS_READ, CORDON_ENTRY_EXACT);
  }
  assert_int_equal(st, CORDON_BOUNDARY_TOO_LARGE);
  assert_true(x.bytes <= CORDON_EXPANSION_MAX_BYTES);
  free(p);
  cordon_expansion_free(&x);
}

static void compaction_drops_duplicates_and_covered_grants(void **state) {
  (void)state;
  cordon_expansion x = CORDON_EXPANSION_INIT;
  one(&x, "/d/a", CORDON_ACCESS_READ, CORDON_ENTRY_EXACT);
  one(&x, "/d", CORDON_ACCESS_WRITE, CORDON_ENTRY_SUBTREE);
  one(&x, "/d", CORDON_ACCESS_WRITE, CORDON_ENTRY_SUBTREE);
  one(&x, "/e", CORDON_ACCESS_READ, CORDON_ENTRY_SUBTREE);
  one(&x, "/e", CORDON_ACCESS_WRITE, CORDON_ENTRY_EXACT);
  one(&x, "/d2", CORDON_ACCESS_READ, CORDON_ENTRY_EXACT);
  cordon_expansion_compact(&x);
  assert_int_equal(x.count, 4);
  assert_string_equal(x.entries[0].path, "/d");
  assert_string_equal(x.entries[1].path, "/e");
  assert_int_equal(x.entries[2].access, CORDON_ACCESS_WRITE); /* write /e exact is not covered by read /e subtree */
  assert_string_equal(x.entries[3].path, "/d2");
  cordon_expansion_free(&x);
}

static void assess_says_noop_apply_or_conflict_with_a_reason(void **state) {
  (void)state;
  cordon_boundary *b = genesis("workspace-write");
  char why[512];
  cordon_expansion x = CORDON_EXPANSION_INIT;
  one(&x, "/w/src", CORDON_ACCESS_WRITE, CORDON_ENTRY_SUBTREE);
  assert_int_equal(assess(b, &x, why, sizeof why), CORDON_ASSESS_NOOP);
  cordon_expansion_free(&x);

  one(&x, "/data", CORDON_ACCESS_WRITE, CORDON_ENTRY_SUBTREE);
  assert_int_equal(assess(b, &x, why, sizeof why), CORDON_ASSESS_APPLY);
  assert_non_null(strstr(why, "/data"));
  cordon_expansion_free(&x);

  one(&x, "/home/u/.ssh/id_rsa", CORDON_ACCESS_READ, CORDON_ENTRY_EXACT);
  assert_int_equal(assess(b, &x, why, sizeof why), CORDON_ASSESS_CONFLICT);
  assert_non_null(strstr(why, "~/.ssh"));
  cordon_expansion_free(&x);

  one(&x, "/home/u", CORDON_ACCESS_WRITE, CORDON_ENTRY_SUBTREE); /* would contain a deny */
  assert_int_equal(assess(b, &x, why, sizeof why), CORDON_ASSESS_CONFLICT);
  cordon_expansion_free(&x);

  one(&x, "/w/.git/hooks", CORDON_ACCESS_WRITE, CORDON_ENTRY_SUBTREE);
  assert_int_equal(assess(b, &x, why, sizeof why), CORDON_ASSESS_CONFLICT);
  assert_non_null(strstr(why, "protected metadata"));
  cordon_expansion_free(&x);

  one(&x, "/w/.git/config", CORDON_ACCESS_READ, CORDON_ENTRY_EXACT); /* reading metadata weakens nothing */
  assert_int_equal(assess(b, &x, NULL, 0), CORDON_ASSESS_NOOP);
  cordon_expansion_free(&x);

  x.network = true;
  assert_int_equal(assess(b, &x, why, sizeof why), CORDON_ASSESS_APPLY);
  assert_string_equal(why, "enables network");
  cordon_expansion_free(&x);

  cordon_assess_result r;
  assert_int_equal(cordon_boundary_assess(b, &x, &r), CORDON_BOUNDARY_EMPTY_EXPANSION);
  cordon_boundary_free(b);
}

static void bypass_is_always_noop_and_external_cannot_be_widened(void **state) {
  (void)state;
  cordon_boundary *b = genesis("danger-full-access");
  cordon_expansion x = CORDON_EXPANSION_INIT;
  one(&x, "/anything", CORDON_ACCESS_WRITE, CORDON_ENTRY_SUBTREE);
  assert_int_equal(assess(b, &x, NULL, 0), CORDON_ASSESS_NOOP);
  cordon_boundary_free(b);
  cordon_profile *ext = cordon_profile_new(CORDON_PROFILE_EXTERNAL);
  assert_int_equal(cordon_boundary_genesis(NULL, ext, NULL, &b), CORDON_BOUNDARY_OK);
  assert_int_equal(assess(b, &x, NULL, 0), CORDON_ASSESS_CONFLICT);
  cordon_boundary_free(b);
  cordon_profile_free(ext);
  cordon_expansion_free(&x);
}

static void apply_raises_the_revision_by_exactly_one_and_only_when_something_changes(void **state) {
  (void)state;
  cordon_boundary *b = genesis("read-only");
  cordon_expansion x = CORDON_EXPANSION_INIT;
  one(&x, "/w", CORDON_ACCESS_WRITE, CORDON_ENTRY_SUBTREE);
  cordon_assess_result r;
  assert_int_equal(cordon_boundary_apply(b, &x, &r), CORDON_BOUNDARY_OK);
  assert_int_equal(r.outcome, CORDON_ASSESS_APPLY);
  assert_int_equal(cordon_boundary_revision(b), 1);
  const cordon_profile *p = cordon_boundary_profile(b);
  assert_true(cordon_profile_can_write(p, &ctx, "/w/a"));
  assert_false(cordon_profile_can_write(p, &ctx, "/w/.git/config"));
  assert_int_equal(cordon_boundary_apply(b, &x, &r), CORDON_BOUNDARY_OK); /* the same again: noop */
  assert_int_equal(r.outcome, CORDON_ASSESS_NOOP);
  assert_int_equal(cordon_boundary_revision(b), 1);
  cordon_expansion_free(&x);
  one(&x, "/home/u/.aws", CORDON_ACCESS_READ, CORDON_ENTRY_SUBTREE);
  assert_int_equal(cordon_boundary_apply(b, &x, &r), CORDON_BOUNDARY_CONFLICT);
  assert_int_equal(cordon_boundary_revision(b), 1);
  cordon_expansion_free(&x);
  cordon_boundary_free(b);
}

static void contains_compares_authority(void **state) {
  (void)state;
  cordon_boundary *ro = genesis("read-only"), *ww = genesis("workspace-write"), *full = genesis("danger-full-access");
  assert_true(cordon_boundary_contains(ww, ro));
  assert_false(cordon_boundary_contains(ro, ww));
  assert_true(cordon_boundary_contains(full, ww));
  assert_false(cordon_boundary_contains(ww, full));
  assert_true(cordon_boundary_contains(ww, ww));
  cordon_boundary *grown = cordon_boundary_copy(ww);
  cordon_expansion x = CORDON_EXPANSION_INIT;
  x.network = true;
  assert_int_equal(cordon_boundary_apply(grown, &x, NULL), CORDON_BOUNDARY_OK);
  assert_true(cordon_boundary_contains(grown, ww));
  assert_false(cordon_boundary_contains(ww, grown));
  cordon_expansion_free(&x);
  cordon_boundary_free(grown);
  cordon_boundary_free(ro);
  cordon_boundary_free(ww);
  cordon_boundary_free(full);
}

static cordon_boundary *from_entries(const cordon_profile_entry *e, size_t n) {
  cordon_profile *p = cordon_profile_new(CORDON_PROFILE_MANAGED);
  for (size_t i = 0; i < n; i++) assert_int_equal(cordon_profile_add_entry(p, &e[i]), CORDON_PROFILE_OK);
  cordon_boundary *b = NULL;
  assert_int_equal(cordon_boundary_genesis(NULL, p, &ctx, &b), CORDON_BOUNDARY_OK);
  cordon_profile_free(p);
  return b;
}

static void contains_sees_denies_and_protected_metadata(void **state) {
  (void)state;
  const cordon_profile_entry parent_e[] = {
      {"/a", CORDON_SPECIAL_NONE, CORDON_ACCESS_WRITE, CORDON_ENTRY_SUBTREE},
      {"/a/secret", CORDON_SPECIAL_NONE, CORDON_ACCESS_DENY, CORDON_ENTRY_SUBTREE},
  };
  cordon_boundary *parent = from_entries(parent_e, 2);
  /* the same write without the deny reaches more than the parent */
  const cordon_profile_entry wider[] = {{"/a/x", CORDON_SPECIAL_NONE, CORDON_ACCESS_WRITE, CORDON_ENTRY_SUBTREE},
                                        {"/a", CORDON_SPECIAL_NONE, CORDON_ACCESS_WRITE, CORDON_ENTRY_SUBTREE}};
  cordon_boundary *c1 = from_entries(wider, 2);
  assert_false(cordon_boundary_contains(parent, c1));
  /* a grant inside the parent's deny is not the parent's to give */
  const cordon_profile_entry inside[] = {{"/a/secret/k", CORDON_SPECIAL_NONE, CORDON_ACCESS_READ, CORDON_ENTRY_SUBTREE}};
  cordon_boundary *c2 = from_entries(inside, 1);
  assert_false(cordon_boundary_contains(parent, c2));
  /* writing under .git is something the parent protects */
  const cordon_profile_entry meta[] = {{"/a/.git", CORDON_SPECIAL_NONE, CORDON_ACCESS_WRITE, CORDON_ENTRY_SUBTREE}};
  cordon_boundary *c3 = from_entries(meta, 1);
  assert_false(cordon_boundary_contains(parent, c3));
  /* a grant the child's own deny cancels gives nothing, so it needs no cover */
  const cordon_profile_entry cancelled[] = {{"/z", CORDON_SPECIAL_NONE, CORDON_ACCESS_WRITE, CORDON_ENTRY_SUBTREE},
                                            {"/z", CORDON_SPECIAL_NONE, CORDON_ACCESS_DENY, CORDON_ENTRY_SUBTREE}};
  cordon_boundary *c4 = from_entries(cancelled, 2);
  assert_true(cordon_boundary_contains(parent, c4));
  /* narrower and keeping the deny: contained */
  const cordon_profile_entry narrower[] = {{"/a/src", CORDON_SPECIAL_NONE, CORDON_ACCESS_READ, CORDON_ENTRY_SUBTREE}};
  cordon_boundary *c5 = from_entries(narrower, 1);
  assert_true(cordon_boundary_contains(parent, c5));
  cordon_boundary_free(parent);
  cordon_boundary_free(c1);
  cordon_boundary_free(c2);
  cordon_boundary_free(c3);
  cordon_boundary_free(c4);
  cordon_boundary_free(c5);
}

static void json_round_trips(void **state) {
  (void)state;
  cordon_boundary *b = genesis("workspace-write");
  cordon_expansion x = CORDON_EXPANSION_INIT;
  one(&x, "/data/with \"quote\" and \\ and ) and é", CORDON_ACCESS_WRITE, CORDON_ENTRY_SUBTREE);
  x.network = true;
  assert_int_equal(cordon_boundary_apply(b, &x, NULL), CORDON_BOUNDARY_OK);
  cordon_expansion_free(&x);
  cordon_buf a = CORDON_BUF_INIT, c = CORDON_BUF_INIT, err = CORDON_BUF_INIT;
  assert_int_equal(cordon_boundary_encode(b, &a), CORDON_BOUNDARY_OK);
  cordon_boundary *d = NULL;
  assert_int_equal(cordon_boundary_decode(a.data, a.len, &d, &err), CORDON_BOUNDARY_OK);
  assert_int_equal(cordon_boundary_encode(d, &c), CORDON_BOUNDARY_OK);
  assert_string_equal(a.data, c.data);
  assert_int_equal(cordon_boundary_revision(d), 1);
  assert_true(cordon_profile_can_write(cordon_boundary_profile(d), &ctx, "/data/with \"quote\" and \\ and ) and é/f"));
  cordon_buf_free(&a);
  cordon_buf_free(&c);
  cordon_buf_free(&err);
  cordon_boundary_free(d);
  cordon_boundary_free(b);
}

/* Each bad document must fail with a message that contains `want`. */
static void decode_fails(const char *json, const char *want) {
  cordon_buf err = CORDON_BUF_INIT;
  cordon_boundary *b = NULL;
  cordon_boundary_status st = cordon_boundary_decode(json, strlen(json), &b, &err);
  if (st == CORDON_BOUNDARY_OK || !strstr(cordon_buf_str(&err), want))
    fail_msg("decoding %s: status %s, message '%s', wanted '%s'", json, cordon_boundary_status_name(st), cordon_buf_str(&err), want);
  assert_null(b);
  cordon_buf_free(&err);
}

#define PROFILE_OK "{\"kind\":\"managed\",\"network\":\"restricted\",\"filesystem\":{\"kind\":\"restricted\",\"entries\":[]}}"

static void decode_is_strict_and_names_what_was_wrong(void **state) {
  (void)state;
  decode_fails("{\"version\":1,", "line 1");
  decode_fails("[]", "top level: expected an object");
  decode_fails("{\"version\":1,\"kind\":\"managed\",\"revision\":0,\"profile\":" PROFILE_OK ",\"extra\":1}", "unknown key 'extra'");
  decode_fails("{\"version\":2,\"kind\":\"managed\",\"revision\":0,\"profile\":" PROFILE_OK "}", "version");
  decode_fails("{\"version\":1,\"kind\":\"managed\",\"revision\":-1,\"profile\":" PROFILE_OK "}", "revision");
  decode_fails("{\"version\":1,\"kind\":\"managed\",\"revision\":\"0\",\"profile\":" PROFILE_OK "}", "revision");
  decode_fails("{\"version\":1,\"kind\":\"bypass\",\"revision\":0,\"profile\":" PROFILE_OK "}", "does not match its profile");
  decode_fails("{\"version\":1,\"kind\":\"managed\",\"revision\":0}", "profile: missing");
  decode_fails("{\"version\":1,\"kind\":\"managed\",\"revision\":0,\"revision\":1,\"profile\":" PROFILE_OK "}", "duplicate");
  decode_fails("{\"version\":1,\"kind\":\"managed\",\"revision\":0,\"profile\":{\"kind\":\"managed\",\"network\":\"open\","
               "\"filesystem\":{\"kind\":\"restricted\"}}}",
               "profile.network: expected restricted|enabled");
  decode_fails("{\"version\":1,\"kind\":\"managed\",\"revision\":0,\"profile\":{\"kind\":\"managed\",\"network\":\"restricted\","
               "\"filesystem\":{\"kind\":\"restricted\",\"entries\":[{\"path\":\"/a/../b\",\"access\":\"read\",\"match\":\"exact\"}]}}}",
               "entries[1].path");
  decode_fails("{\"version\":1,\"kind\":\"managed\",\"revision\":0,\"profile\":{\"kind\":\"managed\",\"network\":\"restricted\","
               "\"filesystem\":{\"kind\":\"restricted\",\"entries\":[{\"path\":\"/a\",\"access\":\"read\"}]}}}",
               "entries[1].match: missing");
  decode_fails("{\"version\":1,\"kind\":\"managed\",\"revision\":0,\"context\":{\"cwd\":\"w\"},\"profile\":" PROFILE_OK "}",
               "context.cwd");
  decode_fails("{\"version\":1,\"kind\":\"managed\",\"revision\":0,\"profile\":" PROFILE_OK "} trailing", "line 1");
}

/* Mutated documents (fixed seed, so a failure reproduces) either fail cleanly or decode into something
 * that encodes and decodes to itself. ASan runs this in CI. */
static void decode_survives_mutated_documents(void **state) {
  (void)state;
  cordon_boundary *b = genesis("workspace-write");
  cordon_buf base = CORDON_BUF_INIT;
  assert_int_equal(cordon_boundary_encode(b, &base), CORDON_BOUNDARY_OK);
  cordon_boundary_free(b);
  static const char alphabet[] = "{}[]\":,0123456789abcdefnulltrue\\/ .-\n\xff";
  uint32_t seed = 1234;
  size_t decoded = 0;
  char *doc = malloc(base.len + 8);
  assert_non_null(doc);
  for (int round = 0; round < 5000; round++) {
    memcpy(doc, base.data, base.len);
    size_t n = base.len;
    for (int k = 0; k < 3; k++) {
      seed = seed * 1103515245u + 12345u;
      size_t pos = (seed >> 8) % n;
      seed = seed * 1103515245u + 12345u;
      char c = alphabet[(seed >> 8) % (sizeof alphabet - 1)];
      if (k == 2 && n > 1) memmove(doc + pos, doc + pos + 1, n-- - pos - 1); /* and delete one byte */
      else doc[pos] = c;
    }
    cordon_buf err = CORDON_BUF_INIT, a = CORDON_BUF_INIT, c2 = CORDON_BUF_INIT;
    cordon_boundary *d = NULL;
    if (cordon_boundary_decode(doc, n, &d, &err) == CORDON_BOUNDARY_OK) {
      decoded++;
      if (cordon_boundary_encode(d, &a) == CORDON_BOUNDARY_OK) {
        cordon_boundary *again = NULL;
        assert_int_equal(cordon_boundary_decode(a.data, a.len, &again, &err), CORDON_BOUNDARY_OK);
        assert_int_equal(cordon_boundary_encode(again, &c2), CORDON_BOUNDARY_OK);
        assert_string_equal(a.data, c2.data);
        cordon_boundary_free(again);
      }
      cordon_boundary_free(d);
    } else {
      assert_null(d);
      assert_true(err.len > 0); /* every failure says something */
    }
    cordon_buf_free(&err);
    cordon_buf_free(&a);
    cordon_buf_free(&c2);
  }
  assert_true(decoded > 0); /* some mutations (inside strings) still decode */
  free(doc);
  cordon_buf_free(&base);
}

static void decode_refuses_documents_over_the_size_cap(void **state) {
  (void)state;
  size_t n = CORDON_BOUNDARY_JSON_MAX + 1;
  char *big = malloc(n);
  memset(big, ' ', n);
  cordon_buf err = CORDON_BUF_INIT;
  cordon_boundary *b = NULL;
  assert_int_equal(cordon_boundary_decode(big, n, &b, &err), CORDON_BOUNDARY_TOO_LARGE);
  assert_non_null(strstr(cordon_buf_str(&err), "at most"));
  cordon_buf_free(&err);
  free(big);
}

static void encode_refuses_paths_that_are_not_utf8(void **state) {
  (void)state;
  cordon_boundary *b = genesis("read-only");
  cordon_expansion x = CORDON_EXPANSION_INIT;
  one(&x, "/bad\xff", CORDON_ACCESS_WRITE, CORDON_ENTRY_EXACT);
  assert_int_equal(cordon_boundary_apply(b, &x, NULL), CORDON_BOUNDARY_OK);
  cordon_buf out = CORDON_BUF_INIT;
  assert_int_equal(cordon_boundary_encode(b, &out), CORDON_BOUNDARY_INVALID_PATH);
  cordon_buf_free(&out);
  cordon_expansion_free(&x);
  cordon_boundary_free(b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(genesis_starts_at_revision_zero_with_the_kind_its_profile_implies),
      cmocka_unit_test(genesis_refuses_context_paths_that_are_not_normalized),
      cmocka_unit_test(expansion_paths_must_be_normalized_absolute_and_bounded),
      cmocka_unit_test(expansion_total_size_is_capped),
      cmocka_unit_test(compaction_drops_duplicates_and_covered_grants),
      cmocka_unit_test(assess_says_noop_apply_or_conflict_with_a_reason),
      cmocka_unit_test(bypass_is_always_noop_and_external_cannot_be_widened),
      cmocka_unit_test(apply_raises_the_revision_by_exactly_one_and_only_when_something_changes),
      cmocka_unit_test(contains_compares_authority),
      cmocka_unit_test(contains_sees_denies_and_protected_metadata),
      cmocka_unit_test(json_round_trips),
      cmocka_unit_test(decode_is_strict_and_names_what_was_wrong),
      cmocka_unit_test(decode_survives_mutated_documents),
      cmocka_unit_test(decode_refuses_documents_over_the_size_cap),
      cmocka_unit_test(encode_refuses_paths_that_are_not_utf8),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
