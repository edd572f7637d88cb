/* tests/c/test_session_cache.c — an open store keeps the boundary it last rebuilt and changes it in
 * place on settle: what it hands out must always be what a fresh open rebuilds from the log, whatever
 * other stores wrote meanwhile and whichever way a settle ended. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/session.h"

static char dir[64];
static char db[128];

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/cordon-session-cache-XXXXXX");
  if (!mkdtemp(dir)) return -1;
  snprintf(db, sizeof db, "%s/sessions.db", dir);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  char cmd[256];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : -1;
}

static cordon_session_store *open_store(void) {
  cordon_buf err = CORDON_BUF_INIT;
  cordon_session_store *s = NULL;
  if (cordon_session_open(db, &s, &err) != CORDON_SESSION_OK) fail_msg("open: %s", cordon_buf_str(&err));
  cordon_buf_free(&err);
  return s;
}

static void new_session(cordon_session_store *s, const char *profile, char id[CORDON_SESSION_ID_LEN + 1]) {
  static const char *const roots[] = {"/w"};
  cordon_profile_ctx ctx = {"/w", roots, 1, NULL, "/home/u", NULL};
  cordon_profile *p = NULL;
  assert_int_equal(cordon_profile_standard(profile, &p), CORDON_PROFILE_OK);
  cordon_boundary *b = NULL;
  assert_int_equal(cordon_boundary_genesis("ask", p, &ctx, &b), CORDON_BOUNDARY_OK);
  cordon_profile_free(p);
  cordon_buf err = CORDON_BUF_INIT;
  assert_int_equal(cordon_session_create(s, b, "/w", id, &err), CORDON_SESSION_OK);
  cordon_boundary_free(b);
  cordon_buf_free(&err);
}

/* Requests write access to `n` paths `prefix`/i (each `len` bytes long), or network when n is 0. */
static int64_t ask(cordon_session_store *s, const char *id, const char *prefix, int n, size_t len) {
  cordon_expansion x = CORDON_EXPANSION_INIT;
  char *path = malloc(len + 64);
  for (int i = 0; i < n; i++) {
    int k = snprintf(path, len + 64, "%s/%d/", prefix, i);
    if ((size_t)k < len) memset(path + k, 'p', len - (size_t)k);
    path[(size_t)k < len ? len : (size_t)k - 1] = '\0';
    assert_int_equal(cordon_expansion_add(&x, path, CORDON_ACCESS_WRITE, CORDON_ENTRY_SUBTREE), CORDON_BOUNDARY_OK);
  }
  free(path);
  x.network = n == 0;
  cordon_buf err = CORDON_BUF_INIT;
  cordon_request_result r;
  if (cordon_session_request(s, id, &x, "the build needs it", &r, &err) != CORDON_SESSION_OK)
    fail_msg("request: %s", cordon_buf_str(&err));
  cordon_expansion_free(&x);
  cordon_buf_free(&err);
  return r.request;
}

static const char *settle(cordon_session_store *s, const char *id, int64_t req, bool allow) {
  cordon_settle_result r;
  cordon_buf err = CORDON_BUF_INIT;
  if (cordon_session_settle(s, id, req, allow, NULL, &r, &err) != CORDON_SESSION_OK) fail_msg("settle: %s", cordon_buf_str(&err));
  cordon_buf_free(&err);
  return r.state;
}

/* The boundary `s` gives for `id`, as JSON (to compare), with its revision. */
static char *boundary_json(cordon_session_store *s, const char *id, uint64_t *revision) {
  cordon_buf err = CORDON_BUF_INIT, json = CORDON_BUF_INIT;
  cordon_boundary *b = NULL;
  if (cordon_session_load(s, id, &b, NULL, &err) != CORDON_SESSION_OK) fail_msg("load: %s", cordon_buf_str(&err));
  assert_int_equal(cordon_boundary_encode(b, &json), CORDON_BOUNDARY_OK);
  *revision = cordon_boundary_revision(b);
  cordon_boundary_free(b);
  cordon_buf_free(&err);
  char *out = strdup(cordon_buf_str(&json));
  cordon_buf_free(&json);
  return out;
}

/* What `kept` gives equals what a store opened now rebuilds from the log. */
static void assert_same_as_fresh(cordon_session_store *kept, const char *id) {
  cordon_session_store *fresh = open_store();
  uint64_t rk, rf;
  char *a = boundary_json(kept, id, &rk), *b = boundary_json(fresh, id, &rf);
  assert_int_equal(rk, rf);
  assert_string_equal(a, b);
  free(a);
  free(b);
  cordon_session_close(fresh);
}

static void the_kept_boundary_follows_every_outcome_and_other_writers(void **state) {
  (void)state;
  cordon_session_store *a = open_store(), *b = open_store();
  char id[CORDON_SESSION_ID_LEN + 1];
  new_session(a, "workspace-write", id);
  assert_string_equal(settle(a, id, ask(a, id, "/data", 1, 0), true), "approved");
  assert_string_equal(settle(a, id, ask(a, id, "/data/0/sub", 1, 0), true), "noop");
  assert_string_equal(settle(a, id, ask(a, id, "/w/.git/hooks", 1, 0), true), "conflict");
  assert_string_equal(settle(a, id, ask(a, id, "/denied", 1, 0), false), "denied");
  assert_same_as_fresh(a, id);
  /* Another store approves and switches the kind while `a` holds its boundary: `a` catches up. */
  assert_string_equal(settle(b, id, ask(b, id, "/other", 2, 0), true), "approved");
  uint64_t rev = 0;
  cordon_buf err = CORDON_BUF_INIT;
  assert_int_equal(cordon_session_set_kind(b, id, CORDON_BOUNDARY_BYPASS, &rev, &err), CORDON_SESSION_OK);
  assert_int_equal(cordon_session_set_kind(b, id, CORDON_BOUNDARY_MANAGED, &rev, &err), CORDON_SESSION_OK);
  assert_same_as_fresh(a, id);
  assert_string_equal(settle(a, id, ask(a, id, "/more", 1, 0), true), "approved");
  assert_string_equal(settle(a, id, ask(a, id, NULL, 0, 0), true), "approved"); /* network */
  assert_same_as_fresh(a, id);
  assert_same_as_fresh(b, id);
  cordon_buf_free(&err);
  cordon_session_close(a);
  cordon_session_close(b);
}

static void a_change_the_size_cap_turns_into_a_conflict_is_not_kept(void **state) {
  (void)state;
  cordon_session_store *s = open_store();
  char id[CORDON_SESSION_ID_LEN + 1];
  new_session(s, "read-only", id);
  /* Each request fits when asked (against the same revision); together they pass the cap, so the
   * later settles apply to the kept boundary and are then recorded as conflicts. */
  int64_t reqs[48];
  for (int i = 0; i < 48; i++) {
    char prefix[32];
    snprintf(prefix, sizeof prefix, "/big/%02d", i);
    reqs[i] = ask(s, id, prefix, 8, 3000);
  }
  int approved = 0, conflicts = 0;
  for (int i = 0; i < 48; i++) {
    const char *st = settle(s, id, reqs[i], true);
    approved += strcmp(st, "approved") == 0;
    if (strcmp(st, "conflict") == 0 && conflicts++ == 0) {
      /* Another store makes the revision the refused change had reached in memory (a small one fits). */
      cordon_session_store *other = open_store();
      assert_string_equal(settle(other, id, ask(other, id, "/small", 1, 0), true), "approved");
      cordon_session_close(other);
      assert_same_as_fresh(s, id);
    }
    if (i % 8 == 7) assert_same_as_fresh(s, id);
  }
  assert_true(approved > 10);
  assert_true(conflicts > 0);
  assert_int_equal(approved + conflicts, 48);
  assert_same_as_fresh(s, id);
  cordon_session_close(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(the_kept_boundary_follows_every_outcome_and_other_writers, setup, teardown),
      cmocka_unit_test_setup_teardown(a_change_the_size_cap_turns_into_a_conflict_is_not_kept, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
