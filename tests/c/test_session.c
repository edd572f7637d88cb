/* tests/c/test_session.c — the session store's operations: every transition of a request (pending,
 * approved, noop, denied, conflict), settling twice, re-assessment against the current boundary, kind
 * changes, removal and the paged log. Database-level rules are in test_session_db.c. */
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
  snprintf(dir, sizeof dir, "/tmp/cordon-session-XXXXXX");
  if (!mkdtemp(dir)) return -1;
  snprintf(db, sizeof db, "%s/nested/state/sessions.db", dir); /* parents are created */
  return 0;
}

static int teardown(void **state) {
  (void)state;
  char cmd[256];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : -1;
}

static cordon_boundary *genesis(const char *profile) {
  static const char *const roots[] = {"/w"};
  cordon_profile_ctx ctx = {"/w", roots, 1, NULL, "/home/u", NULL};
  cordon_profile *p = NULL;
  assert_int_equal(cordon_profile_standard(profile, &p), CORDON_PROFILE_OK);
  cordon_boundary *b = NULL;
  assert_int_equal(cordon_boundary_genesis("ask", p, &ctx, &b), CORDON_BOUNDARY_OK);
  cordon_profile_free(p);
  return b;
}

static cordon_session_store *open_store(void) {
  cordon_buf err = CORDON_BUF_INIT;
  cordon_session_store *s = NULL;
  cordon_session_status st = cordon_session_open(db, &s, &err);
  if (st != CORDON_SESSION_OK) fail_msg("open: %s", cordon_buf_str(&err));
  cordon_buf_free(&err);
  return s;
}

static void new_session(cordon_session_store *s, const char *profile, char id[CORDON_SESSION_ID_LEN + 1]) {
  cordon_buf err = CORDON_BUF_INIT;
  cordon_boundary *b = genesis(profile);
  assert_int_equal(cordon_session_create(s, b, "/w", id, &err), CORDON_SESSION_OK);
  cordon_boundary_free(b);
  cordon_buf_free(&err);
}

/* Records a request for write access to `path` (subtree), or network when path is NULL. */
static int64_t ask(cordon_session_store *s, const char *id, const char *path, cordon_request_result *r) {
  cordon_expansion x = CORDON_EXPANSION_INIT;
  if (path) assert_int_equal(cordon_expansion_add(&x, path, CORDON_ACCESS_WRITE, CORDON_ENTRY_SUBTREE), CORDON_BOUNDARY_OK);
  else x.network = true;
  cordon_buf err = CORDON_BUF_INIT;
  cordon_request_result local;
  if (!r) r = &local;
  cordon_session_status st = cordon_session_request(s, id, &x, "the build needs it", r, &err);
  if (st != CORDON_SESSION_OK) fail_msg("request: %s", cordon_buf_str(&err));
  cordon_expansion_free(&x);
  cordon_buf_free(&err);
  return r->request;
}

static cordon_settle_result settle(cordon_session_store *s, const char *id, int64_t req, bool allow) {
  cordon_settle_result r;
  cordon_buf err = CORDON_BUF_INIT;
  cordon_session_status st = cordon_session_settle(s, id, req, allow, "looked at it", &r, &err);
  if (st != CORDON_SESSION_OK) fail_msg("settle: %s", cordon_buf_str(&err));
  cordon_buf_free(&err);
  return r;
}

static uint64_t revision_of(cordon_session_store *s, const char *id) {
  cordon_session_info info;
  cordon_buf err = CORDON_BUF_INIT;
  assert_int_equal(cordon_session_load(s, id, NULL, &info, &err), CORDON_SESSION_OK);
  cordon_buf_free(&err);
  return info.revision;
}

static void a_request_is_pending_until_settled_and_an_allow_applies_it(void **state) {
  (void)state;
  cordon_session_store *s = open_store();
  char id[CORDON_SESSION_ID_LEN + 1];
  new_session(s, "read-only", id);
  cordon_request_result r;
  int64_t req = ask(s, id, "/data", &r);
  assert_int_equal(r.base_revision, 0);
  assert_int_equal(r.preview.outcome, CORDON_ASSESS_APPLY);
  cordon_session_info info;
  cordon_buf err = CORDON_BUF_INIT;
  assert_int_equal(cordon_session_load(s, id, NULL, &info, &err), CORDON_SESSION_OK);
  assert_int_equal(info.pending, 1);
  assert_int_equal(info.revision, 0); /* asking changes nothing */
  cordon_settle_result out = settle(s, id, req, true);
  assert_string_equal(out.state, "approved");
  assert_false(out.already);
  assert_int_equal(out.revision, 1);
  cordon_boundary *b = NULL;
  assert_int_equal(cordon_session_load(s, id, &b, &info, &err), CORDON_SESSION_OK);
  assert_int_equal(info.pending, 0);
  assert_int_equal(cordon_boundary_revision(b), 1);
  cordon_profile_ctx ctx;
  cordon_boundary_ctx(b, &ctx);
  assert_true(cordon_profile_can_write(cordon_boundary_profile(b), &ctx, "/data/x"));
  cordon_boundary_free(b);
  cordon_buf_free(&err);
  cordon_session_close(s);
}

static void settling_twice_returns_the_first_settlement_and_changes_nothing(void **state) {
  (void)state;
  cordon_session_store *s = open_store();
  char id[CORDON_SESSION_ID_LEN + 1];
  new_session(s, "read-only", id);
  int64_t req = ask(s, id, "/data", NULL);
  assert_string_equal(settle(s, id, req, true).state, "approved");
  cordon_settle_result again = settle(s, id, req, false); /* a deny after the allow does not undo it */
  assert_true(again.already);
  assert_string_equal(again.state, "approved");
  assert_int_equal(again.revision, 1);
  assert_int_equal(revision_of(s, id), 1);
  int64_t req2 = ask(s, id, "/other", NULL);
  assert_string_equal(settle(s, id, req2, false).state, "denied");
  cordon_settle_result deny_again = settle(s, id, req2, true); /* an allow after the deny neither */
  assert_true(deny_again.already);
  assert_string_equal(deny_again.state, "denied");
  assert_int_equal(revision_of(s, id), 1);
  cordon_session_close(s);
}

static void an_allow_is_assessed_against_the_current_boundary_not_the_one_asked_against(void **state) {
  (void)state;
  cordon_session_store *s = open_store();
  char id[CORDON_SESSION_ID_LEN + 1];
  new_session(s, "read-only", id);
  int64_t wide = ask(s, id, "/data", NULL);
  int64_t narrow = ask(s, id, "/data/sub", NULL); /* asked at revision 0, where it was new */
  assert_string_equal(settle(s, id, wide, true).state, "approved");
  cordon_settle_result r = settle(s, id, narrow, true);
  assert_string_equal(r.state, "noop"); /* covered since */
  assert_int_equal(r.revision, 1);
  assert_int_equal(revision_of(s, id), 1);
  cordon_session_close(s);
}

static void a_conflict_is_recorded_with_its_reason_and_changes_nothing(void **state) {
  (void)state;
  cordon_session_store *s = open_store();
  char id[CORDON_SESSION_ID_LEN + 1];
  new_session(s, "workspace-write", id);
  cordon_request_result pr;
  int64_t req = ask(s, id, "/w/.git/hooks", &pr);
  assert_int_equal(pr.preview.outcome, CORDON_ASSESS_CONFLICT);
  cordon_settle_result r = settle(s, id, req, true);
  assert_string_equal(r.state, "conflict");
  assert_non_null(strstr(r.detail, "protected metadata"));
  assert_int_equal(revision_of(s, id), 0);
  cordon_session_close(s);
}

static void kind_changes_are_revisions_and_an_external_session_cannot_switch(void **state) {
  (void)state;
  cordon_session_store *s = open_store();
  char id[CORDON_SESSION_ID_LEN + 1];
  new_session(s, "read-only", id);
  cordon_buf err = CORDON_BUF_INIT;
  uint64_t rev = 0;
  assert_int_equal(cordon_session_set_kind(s, id, CORDON_BOUNDARY_BYPASS, &rev, &err), CORDON_SESSION_OK);
  assert_int_equal(rev, 1);
  cordon_session_info info;
  assert_int_equal(cordon_session_load(s, id, NULL, &info, &err), CORDON_SESSION_OK);
  assert_string_equal(info.kind, "bypass");
  assert_int_equal(cordon_session_set_kind(s, id, CORDON_BOUNDARY_BYPASS, &rev, &err), CORDON_SESSION_REFUSED);
  assert_int_equal(cordon_session_set_kind(s, id, CORDON_BOUNDARY_MANAGED, &rev, &err), CORDON_SESSION_OK);
  assert_int_equal(rev, 2);
  assert_int_equal(cordon_session_set_kind(s, id, CORDON_BOUNDARY_EXTERNAL, &rev, &err), CORDON_SESSION_INVALID);

  /* A profile that restricts nothing is bypass already and cannot be made managed by a switch. */
  char full[CORDON_SESSION_ID_LEN + 1];
  new_session(s, "danger-full-access", full);
  assert_int_equal(cordon_session_set_kind(s, full, CORDON_BOUNDARY_MANAGED, &rev, &err), CORDON_SESSION_REFUSED);

  cordon_profile *p = cordon_profile_new(CORDON_PROFILE_EXTERNAL);
  assert_non_null(p);
  cordon_boundary *b = NULL;
  assert_int_equal(cordon_boundary_genesis("external", p, NULL, &b), CORDON_BOUNDARY_OK);
  char ext[CORDON_SESSION_ID_LEN + 1];
  assert_int_equal(cordon_session_create(s, b, NULL, ext, &err), CORDON_SESSION_OK);
  cordon_buf_reset(&err);
  assert_int_equal(cordon_session_set_kind(s, ext, CORDON_BOUNDARY_BYPASS, &rev, &err), CORDON_SESSION_REFUSED);
  assert_non_null(strstr(cordon_buf_str(&err), "external"));
  assert_int_equal(revision_of(s, ext), 0);
  cordon_boundary_free(b);
  cordon_profile_free(p);
  cordon_buf_free(&err);
  cordon_session_close(s);
}

typedef struct {
  int n;
  int64_t last;
  int requests, pending;
} log_count;

static void count(const cordon_session_event *e, void *ud) {
  log_count *c = ud;
  c->n++;
  c->last = e->seq;
  if (strcmp(e->event, "request") == 0) c->requests++;
  if (e->state && strcmp(e->state, "pending") == 0) c->pending++;
}

static void the_log_pages_and_lists_pending_requests(void **state) {
  (void)state;
  cordon_session_store *s = open_store();
  char id[CORDON_SESSION_ID_LEN + 1];
  new_session(s, "read-only", id);
  char p[32];
  for (int i = 0; i < 5; i++) {
    snprintf(p, sizeof p, "/d%d", i);
    int64_t req = ask(s, id, p, NULL);
    if (i < 3) settle(s, id, req, true);
  }
  cordon_buf err = CORDON_BUF_INIT;
  log_count all = {0, -1, 0, 0}, page = {0, -1, 0, 0}, rest = {0, -1, 0, 0}, pending = {0, -1, 0, 0};
  assert_int_equal(cordon_session_log(s, id, -1, 0, false, count, &all, &err), CORDON_SESSION_OK);
  assert_int_equal(all.n, 1 + 5 + 3);
  assert_int_equal(all.pending, 2);
  assert_int_equal(cordon_session_log(s, id, -1, 4, false, count, &page, &err), CORDON_SESSION_OK);
  assert_int_equal(page.n, 4);
  assert_int_equal(cordon_session_log(s, id, page.last, 0, false, count, &rest, &err), CORDON_SESSION_OK);
  assert_int_equal(page.n + rest.n, all.n);
  assert_int_equal(cordon_session_log(s, id, -1, 0, true, count, &pending, &err), CORDON_SESSION_OK);
  assert_int_equal(pending.n, 2);
  assert_int_equal(pending.requests, 2);
  cordon_buf_free(&err);
  cordon_session_close(s);
}

static void a_removed_session_is_gone_with_its_log(void **state) {
  (void)state;
  cordon_session_store *s = open_store();
  char id[CORDON_SESSION_ID_LEN + 1], other[CORDON_SESSION_ID_LEN + 1];
  new_session(s, "read-only", id);
  new_session(s, "read-only", other);
  settle(s, id, ask(s, id, "/data", NULL), true);
  cordon_buf err = CORDON_BUF_INIT;
  assert_int_equal(cordon_session_remove(s, id, &err), CORDON_SESSION_OK);
  assert_int_equal(cordon_session_load(s, id, NULL, NULL, &err), CORDON_SESSION_NOT_FOUND);
  assert_int_equal(cordon_session_remove(s, id, &err), CORDON_SESSION_NOT_FOUND);
  assert_int_equal(revision_of(s, other), 0); /* the other one is untouched */
  cordon_buf_free(&err);
  cordon_session_close(s);
}

static void bad_arguments_are_refused_before_anything_is_stored(void **state) {
  (void)state;
  cordon_session_store *s = open_store();
  char id[CORDON_SESSION_ID_LEN + 1];
  new_session(s, "read-only", id);
  cordon_buf err = CORDON_BUF_INIT;
  cordon_expansion x = CORDON_EXPANSION_INIT;
  assert_int_equal(cordon_expansion_add(&x, "/data", CORDON_ACCESS_READ, CORDON_ENTRY_EXACT), CORDON_BOUNDARY_OK);
  cordon_request_result r;
  assert_int_equal(cordon_session_request(s, id, &x, "", &r, &err), CORDON_SESSION_INVALID);
  assert_int_equal(cordon_session_request(s, id, &x, NULL, &r, &err), CORDON_SESSION_INVALID);
  char *long_text = malloc(CORDON_SESSION_TEXT_MAX + 2);
  memset(long_text, 'j', CORDON_SESSION_TEXT_MAX + 1);
  long_text[CORDON_SESSION_TEXT_MAX + 1] = '\0';
  assert_int_equal(cordon_session_request(s, id, &x, long_text, &r, &err), CORDON_SESSION_INVALID);
  free(long_text);
  cordon_expansion empty = CORDON_EXPANSION_INIT;
  assert_int_equal(cordon_session_request(s, id, &empty, "why", &r, &err), CORDON_SESSION_INVALID);
  assert_int_equal(cordon_session_request(s, "zzzz", &x, "why", &r, &err), CORDON_SESSION_INVALID);
  assert_int_equal(cordon_session_request(s, "ffffffffffffffff", &x, "why", &r, &err), CORDON_SESSION_NOT_FOUND);
  cordon_settle_result sr;
  assert_int_equal(cordon_session_settle(s, id, 99, true, NULL, &sr, &err), CORDON_SESSION_NOT_FOUND);
  assert_int_equal(cordon_session_settle(s, id, 0, true, NULL, &sr, &err), CORDON_SESSION_NOT_FOUND); /* genesis */
  log_count all = {0, -1, 0, 0};
  assert_int_equal(cordon_session_log(s, id, -1, 0, false, count, &all, &err), CORDON_SESSION_OK);
  assert_int_equal(all.n, 1); /* genesis only */
  cordon_expansion_free(&x);
  cordon_buf_free(&err);
  cordon_session_close(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(a_request_is_pending_until_settled_and_an_allow_applies_it, setup, teardown),
      cmocka_unit_test_setup_teardown(settling_twice_returns_the_first_settlement_and_changes_nothing, setup, teardown),
      cmocka_unit_test_setup_teardown(an_allow_is_assessed_against_the_current_boundary_not_the_one_asked_against, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(a_conflict_is_recorded_with_its_reason_and_changes_nothing, setup, teardown),
      cmocka_unit_test_setup_teardown(kind_changes_are_revisions_and_an_external_session_cannot_switch, setup, teardown),
      cmocka_unit_test_setup_teardown(the_log_pages_and_lists_pending_requests, setup, teardown),
      cmocka_unit_test_setup_teardown(a_removed_session_is_gone_with_its_log, setup, teardown),
      cmocka_unit_test_setup_teardown(bad_arguments_are_refused_before_anything_is_stored, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
