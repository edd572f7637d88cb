/* tests/c/test_session.c — the SQLite session store: create, load by prefix, monotonic saves, history. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sqlite3.h>
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

static cordon_boundary *genesis(void) {
  static const char *const roots[] = {"/w"};
  cordon_profile_ctx ctx = {"/w", roots, 1, NULL, "/home/u", NULL};
  cordon_profile *p = NULL;
  assert_int_equal(cordon_profile_standard("workspace-write", &p), CORDON_PROFILE_OK);
  cordon_boundary *b = NULL;
  assert_int_equal(cordon_boundary_genesis("ask", p, &ctx, &b), CORDON_BOUNDARY_OK);
  cordon_profile_free(p);
  return b;
}

static cordon_boundary *grown(const cordon_boundary *b, const char *path) {
  cordon_boundary *c = cordon_boundary_copy(b);
  cordon_expansion x = CORDON_EXPANSION_INIT;
  assert_int_equal(cordon_expansion_add(&x, path, CORDON_ACCESS_WRITE, CORDON_ENTRY_SUBTREE), CORDON_BOUNDARY_OK);
  assert_int_equal(cordon_boundary_apply(c, &x, NULL), CORDON_BOUNDARY_OK);
  cordon_expansion_free(&x);
  return c;
}

static void count(const cordon_session_revision *r, void *ud) {
  (void)r;
  ++*(int *)ud;
}

static void a_session_keeps_its_boundary_and_history(void **state) {
  (void)state;
  cordon_buf err = CORDON_BUF_INIT;
  cordon_session_store *s = NULL;
  assert_int_equal(cordon_session_open(db, &s, &err), CORDON_SESSION_OK);
  cordon_boundary *b0 = genesis();
  char id[CORDON_SESSION_ID_LEN + 1], full[CORDON_SESSION_ID_LEN + 1];
  assert_int_equal(cordon_session_create(s, b0, "/w", id, &err), CORDON_SESSION_OK);
  assert_int_equal(strlen(id), CORDON_SESSION_ID_LEN);
  cordon_boundary *b1 = grown(b0, "/data");
  assert_int_equal(cordon_session_save(s, id, b1, "grants write subtree /data", &err), CORDON_SESSION_OK);
  cordon_session_close(s);

  assert_int_equal(cordon_session_open(db, &s, &err), CORDON_SESSION_OK); /* reopen: it persisted */
  char prefix[5];
  memcpy(prefix, id, 4);
  prefix[4] = '\0';
  cordon_boundary *loaded = NULL;
  assert_int_equal(cordon_session_load(s, prefix, &loaded, full, &err), CORDON_SESSION_OK);
  assert_string_equal(full, id);
  assert_int_equal(cordon_boundary_revision(loaded), 1);
  cordon_session_info info;
  assert_int_equal(cordon_session_info_of(s, id, &info, &err), CORDON_SESSION_OK);
  assert_string_equal(info.mode, "ask");
  assert_string_equal(info.workdir, "/w");
  assert_int_equal(info.revision, 1);
  int n = 0;
  assert_int_equal(cordon_session_history(s, id, count, &n, &err), CORDON_SESSION_OK);
  assert_int_equal(n, 2);
  cordon_boundary_free(loaded);
  cordon_boundary_free(b0);
  cordon_boundary_free(b1);
  cordon_session_close(s);
  cordon_buf_free(&err);
}

static void a_save_must_carry_exactly_the_next_revision(void **state) {
  (void)state;
  cordon_buf err = CORDON_BUF_INIT;
  cordon_session_store *s = NULL;
  assert_int_equal(cordon_session_open(db, &s, &err), CORDON_SESSION_OK);
  cordon_boundary *b0 = genesis();
  char id[CORDON_SESSION_ID_LEN + 1];
  assert_int_equal(cordon_session_create(s, b0, NULL, id, &err), CORDON_SESSION_OK);
  assert_int_equal(cordon_session_save(s, id, b0, NULL, &err), CORDON_SESSION_STALE); /* same revision */
  cordon_boundary *b1 = grown(b0, "/a"), *b2 = grown(b1, "/b");
  assert_int_equal(cordon_session_save(s, id, b2, NULL, &err), CORDON_SESSION_STALE); /* skips one */
  assert_int_equal(cordon_session_save(s, id, b1, NULL, &err), CORDON_SESSION_OK);
  cordon_boundary *racer = grown(b0, "/c");                                          /* also revision 1 */
  assert_int_equal(cordon_session_save(s, id, racer, NULL, &err), CORDON_SESSION_STALE);
  assert_int_equal(cordon_session_create(s, b1, NULL, id, &err), CORDON_SESSION_INVALID); /* new starts at 0 */
  cordon_boundary_free(b0);
  cordon_boundary_free(b1);
  cordon_boundary_free(b2);
  cordon_boundary_free(racer);
  cordon_session_close(s);
  cordon_buf_free(&err);
}

static void the_database_itself_refuses_a_lower_revision(void **state) {
  (void)state;
  cordon_buf err = CORDON_BUF_INIT;
  cordon_session_store *s = NULL;
  assert_int_equal(cordon_session_open(db, &s, &err), CORDON_SESSION_OK);
  cordon_boundary *b0 = genesis();
  char id[CORDON_SESSION_ID_LEN + 1];
  assert_int_equal(cordon_session_create(s, b0, NULL, id, &err), CORDON_SESSION_OK);
  cordon_boundary_free(b0);
  cordon_session_close(s);
  sqlite3 *raw;
  assert_int_equal(sqlite3_open(db, &raw), SQLITE_OK);
  assert_int_equal(sqlite3_exec(raw, "UPDATE sessions SET revision = 5", NULL, NULL, NULL), SQLITE_OK);
  assert_int_equal(sqlite3_changes(raw), 1);
  assert_int_not_equal(sqlite3_exec(raw, "UPDATE sessions SET revision = 4", NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close(raw);
  cordon_buf_free(&err);
}

static void a_tampered_row_is_reported_as_corrupt(void **state) {
  (void)state;
  cordon_buf err = CORDON_BUF_INIT;
  cordon_session_store *s = NULL;
  assert_int_equal(cordon_session_open(db, &s, &err), CORDON_SESSION_OK);
  cordon_boundary *b0 = genesis();
  char id[CORDON_SESSION_ID_LEN + 1];
  assert_int_equal(cordon_session_create(s, b0, NULL, id, &err), CORDON_SESSION_OK);
  cordon_session_close(s);
  sqlite3 *raw;
  assert_int_equal(sqlite3_open(db, &raw), SQLITE_OK);
  char sql[256];
  snprintf(sql, sizeof sql, "UPDATE sessions SET revision = 3 WHERE id = '%s'", id);
  assert_int_equal(sqlite3_exec(raw, sql, NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close(raw);
  assert_int_equal(cordon_session_open(db, &s, &err), CORDON_SESSION_OK);
  cordon_boundary *b = NULL;
  assert_int_equal(cordon_session_load(s, id, &b, NULL, &err), CORDON_SESSION_CORRUPT);
  assert_non_null(strstr(cordon_buf_str(&err), "revision"));
  assert_null(b);
  cordon_boundary_free(b0);
  cordon_session_close(s);
  cordon_buf_free(&err);
}

static void ids_are_validated_and_unknown_ones_not_found(void **state) {
  (void)state;
  cordon_buf err = CORDON_BUF_INIT;
  cordon_session_store *s = NULL;
  assert_int_equal(cordon_session_open(db, &s, &err), CORDON_SESSION_OK);
  cordon_boundary *b = NULL;
  assert_int_equal(cordon_session_load(s, "abc", &b, NULL, &err), CORDON_SESSION_INVALID);
  assert_int_equal(cordon_session_load(s, "ABCD'--", &b, NULL, &err), CORDON_SESSION_INVALID);
  assert_int_equal(cordon_session_load(s, "ffffffffffffffff", &b, NULL, &err), CORDON_SESSION_NOT_FOUND);
  cordon_session_close(s);
  cordon_buf_free(&err);
}

static void opening_an_unusable_path_fails_with_a_message(void **state) {
  (void)state;
  cordon_buf err = CORDON_BUF_INIT;
  cordon_session_store *s = NULL;
  char bad[160];
  snprintf(bad, sizeof bad, "%s/file", dir);
  FILE *f = fopen(bad, "w");
  assert_non_null(f);
  fclose(f);
  snprintf(bad, sizeof bad, "%s/file/sessions.db", dir); /* a parent that is a file */
  assert_int_equal(cordon_session_open(bad, &s, &err), CORDON_SESSION_IO_ERROR);
  assert_non_null(strstr(cordon_buf_str(&err), "file"));
  assert_null(s);
  cordon_buf_free(&err);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(a_session_keeps_its_boundary_and_history, setup, teardown),
      cmocka_unit_test_setup_teardown(a_save_must_carry_exactly_the_next_revision, setup, teardown),
      cmocka_unit_test_setup_teardown(the_database_itself_refuses_a_lower_revision, setup, teardown),
      cmocka_unit_test_setup_teardown(a_tampered_row_is_reported_as_corrupt, setup, teardown),
      cmocka_unit_test_setup_teardown(ids_are_validated_and_unknown_ones_not_found, setup, teardown),
      cmocka_unit_test_setup_teardown(opening_an_unusable_path_fails_with_a_message, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
