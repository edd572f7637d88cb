/* tests/c/test_session_guard.c — a store's guard: a write at or under a guarded subpath, on a guarded
 * literal, or matched by a guarded pattern is assessed conflict in request and recorded a conflict by
 * settle (no new revision), naming the entry; segment boundaries hold; reads pass; a pattern that does
 * not compile guards every write. */
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
  snprintf(dir, sizeof dir, "/tmp/cordon-guard-XXXXXX");
  if (!mkdtemp(dir)) return -1;
  snprintf(db, sizeof db, "%s/sessions.db", dir);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  return system(cmd) == 0 ? 0 : -1;
}

static cordon_session_store *store_with_session(char id[CORDON_SESSION_ID_LEN + 1]) {
  static const char *const roots[] = {"/w"};
  cordon_profile_ctx ctx = {"/w", roots, 1, NULL, "/home/u", NULL};
  cordon_profile *p = NULL;
  assert_int_equal(cordon_profile_standard("workspace-write", &p), CORDON_PROFILE_OK);
  cordon_boundary *b = NULL;
  assert_int_equal(cordon_boundary_genesis("ask", p, &ctx, &b), CORDON_BOUNDARY_OK);
  cordon_profile_free(p);
  cordon_buf err = CORDON_BUF_INIT;
  cordon_session_store *s = NULL;
  assert_int_equal(cordon_session_open(db, &s, &err), CORDON_SESSION_OK);
  assert_int_equal(cordon_session_create(s, b, "/w", id, &err), CORDON_SESSION_OK);
  cordon_boundary_free(b);
  cordon_buf_free(&err);
  return s;
}

/* The preview of a request for `access` on `path` (exact), with its reason in `why` when given. */
static cordon_assessment preview(cordon_session_store *s, const char *id, const char *path, cordon_access access,
                                 char *why, size_t cap) {
  cordon_expansion x = CORDON_EXPANSION_INIT;
  assert_int_equal(cordon_expansion_add(&x, path, access, CORDON_ENTRY_EXACT), CORDON_BOUNDARY_OK);
  cordon_request_result r;
  cordon_buf err = CORDON_BUF_INIT;
  assert_int_equal(cordon_session_request(s, id, &x, "guard test", &r, &err), CORDON_SESSION_OK);
  if (why) snprintf(why, cap, "%s", r.preview.reason);
  cordon_expansion_free(&x);
  cordon_buf_free(&err);
  return r.preview.outcome;
}

static void guard_entries_decide_writes_by_kind_and_segment(void **state) {
  (void)state;
  char id[CORDON_SESSION_ID_LEN + 1];
  cordon_session_store *s = store_with_session(id);
  cordon_buf err = CORDON_BUF_INIT;
  assert_int_equal(cordon_session_guard_add(s, CORDON_GUARD_SUBPATH, "/state/cordon", "the store", &err), CORDON_SESSION_OK);
  assert_int_equal(cordon_session_guard_add(s, CORDON_GUARD_LITERAL, "/w/hooks-file", NULL, &err), CORDON_SESSION_OK);
  assert_int_equal(cordon_session_guard_add(s, CORDON_GUARD_REGEX, "^/w/bare/modules/.+/hooks(/|$)", "submodule hooks", &err),
                   CORDON_SESSION_OK);
  char why[512];
  assert_int_equal(preview(s, id, "/state/cordon/sessions.db", CORDON_ACCESS_WRITE, why, sizeof why),
                   CORDON_ASSESS_CONFLICT);
  assert_non_null(strstr(why, "/state/cordon"));
  assert_non_null(strstr(why, "the store"));
  assert_int_equal(preview(s, id, "/state/cordon", CORDON_ACCESS_WRITE, NULL, 0), CORDON_ASSESS_CONFLICT);
  /* a segment apart */
  assert_int_equal(preview(s, id, "/state/cordon2/x", CORDON_ACCESS_WRITE, NULL, 0),
                   CORDON_ASSESS_APPLY);
  /* reads pass (:root is readable) */
  assert_int_equal(preview(s, id, "/state/cordon/x", CORDON_ACCESS_READ, NULL, 0),
                   CORDON_ASSESS_NOOP);
  assert_int_equal(preview(s, id, "/w/hooks-file", CORDON_ACCESS_WRITE, NULL, 0), CORDON_ASSESS_CONFLICT);
  /* a literal only */
  assert_int_equal(preview(s, id, "/w/hooks-file/x", CORDON_ACCESS_WRITE, NULL, 0),
                   CORDON_ASSESS_NOOP);
  assert_int_equal(preview(s, id, "/w/bare/modules/a/b/hooks/pre-commit", CORDON_ACCESS_WRITE, NULL, 0),
                   CORDON_ASSESS_CONFLICT);
  assert_int_equal(preview(s, id, "/w/bare/modules/a/objects/x", CORDON_ACCESS_WRITE, NULL, 0), CORDON_ASSESS_NOOP);
  cordon_session_guard_clear(s);
  assert_int_equal(preview(s, id, "/state/cordon/sessions.db", CORDON_ACCESS_WRITE, NULL, 0), CORDON_ASSESS_APPLY);
  cordon_buf_free(&err);
  cordon_session_close(s);
}

static void settle_records_a_guarded_write_as_a_conflict(void **state) {
  (void)state;
  char id[CORDON_SESSION_ID_LEN + 1];
  cordon_session_store *s = store_with_session(id);
  cordon_expansion x = CORDON_EXPANSION_INIT;
  assert_int_equal(cordon_expansion_add(&x, "/state/cordon", CORDON_ACCESS_WRITE, CORDON_ENTRY_SUBTREE), CORDON_BOUNDARY_OK);
  cordon_request_result r;
  cordon_buf err = CORDON_BUF_INIT;
  /* asked before the guard was set: settle assesses again, with the guard the store has then */
  assert_int_equal(cordon_session_request(s, id, &x, "guard test", &r, &err), CORDON_SESSION_OK);
  assert_int_equal(r.preview.outcome, CORDON_ASSESS_APPLY);
  assert_int_equal(cordon_session_guard_add(s, CORDON_GUARD_SUBPATH, "/state", "the store", &err), CORDON_SESSION_OK);
  cordon_settle_result t;
  assert_int_equal(cordon_session_settle(s, id, r.request, true, NULL, &t, &err), CORDON_SESSION_OK);
  assert_string_equal(t.state, "conflict");
  assert_int_equal(t.revision, 0);
  assert_non_null(strstr(t.detail, "every policy keeps read-only"));
  cordon_boundary *b = NULL;
  cordon_session_info info;
  assert_int_equal(cordon_session_load(s, id, &b, &info, &err), CORDON_SESSION_OK);
  assert_int_equal(cordon_boundary_revision(b), 0);
  cordon_boundary_free(b);
  cordon_expansion_free(&x);
  cordon_buf_free(&err);
  cordon_session_close(s);
}

static void a_pattern_that_does_not_compile_guards_every_write(void **state) {
  (void)state;
  char id[CORDON_SESSION_ID_LEN + 1];
  cordon_session_store *s = store_with_session(id);
  cordon_buf err = CORDON_BUF_INIT;
  assert_int_equal(cordon_session_guard_add(s, CORDON_GUARD_REGEX, "^/w/((", NULL, &err), CORDON_SESSION_INVALID);
  assert_int_equal(preview(s, id, "/elsewhere/f", CORDON_ACCESS_WRITE, NULL, 0), CORDON_ASSESS_CONFLICT);
  assert_int_equal(cordon_session_guard_add(s, CORDON_GUARD_SUBPATH, "relative", NULL, &err), CORDON_SESSION_INVALID);
  cordon_buf_free(&err);
  cordon_session_close(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(guard_entries_decide_writes_by_kind_and_segment, setup, teardown),
    cmocka_unit_test_setup_teardown(settle_records_a_guarded_write_as_a_conflict, setup, teardown),
    cmocka_unit_test_setup_teardown(a_pattern_that_does_not_compile_guards_every_write, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
