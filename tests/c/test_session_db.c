/* tests/c/test_session_db.c — the session database itself: append-only for every statement (whoever
 * runs it), an empty, truncated, page-damaged or garbage file refused rather than replaced, the
 * migrations from schemas 1 and 2, and the size cap checked before anything is stored. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/session.h"

static char dir[64];
static char db[128];

static int setup(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/cordon-sessdb-XXXXXX");
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

static cordon_boundary *genesis(void) {
  static const char *const roots[] = {"/w"};
  cordon_profile_ctx ctx = {"/w", roots, 1, NULL, "/home/u", NULL};
  cordon_profile *p = NULL;
  assert_int_equal(cordon_profile_standard("read-only", &p), CORDON_PROFILE_OK);
  cordon_boundary *b = NULL;
  assert_int_equal(cordon_boundary_genesis("explore", p, &ctx, &b), CORDON_BOUNDARY_OK);
  cordon_profile_free(p);
  return b;
}

static cordon_session_status try_open(cordon_buf *err) {
  cordon_session_store *s = NULL;
  cordon_session_status st = cordon_session_open(db, &s, err);
  cordon_session_close(s);
  return st;
}

/* A store with one session that went through one approved request (revision 1); its id in `id`. */
static void populate(char id[CORDON_SESSION_ID_LEN + 1], int extra_sessions) {
  cordon_buf err = CORDON_BUF_INIT;
  cordon_session_store *s = NULL;
  assert_int_equal(cordon_session_open(db, &s, &err), CORDON_SESSION_OK);
  cordon_boundary *b = genesis();
  assert_int_equal(cordon_session_create(s, b, "/w", id, &err), CORDON_SESSION_OK);
  char other[CORDON_SESSION_ID_LEN + 1];
  for (int i = 0; i < extra_sessions; i++) assert_int_equal(cordon_session_create(s, b, "/w", other, &err), CORDON_SESSION_OK);
  cordon_expansion x = CORDON_EXPANSION_INIT;
  assert_int_equal(cordon_expansion_add(&x, "/data", CORDON_ACCESS_WRITE, CORDON_ENTRY_SUBTREE), CORDON_BOUNDARY_OK);
  cordon_request_result r;
  assert_int_equal(cordon_session_request(s, id, &x, "fixtures", &r, &err), CORDON_SESSION_OK);
  cordon_settle_result sr;
  assert_int_equal(cordon_session_settle(s, id, r.request, true, NULL, &sr, &err), CORDON_SESSION_OK);
  assert_int_equal(sr.revision, 1);
  cordon_expansion_free(&x);
  cordon_boundary_free(b);
  cordon_session_close(s);
  cordon_buf_free(&err);
}

static uint64_t stored_revision(const char *id) {
  cordon_buf err = CORDON_BUF_INIT;
  cordon_session_store *s = NULL;
  assert_int_equal(cordon_session_open(db, &s, &err), CORDON_SESSION_OK);
  cordon_session_info info;
  cordon_session_status st = cordon_session_load(s, id, NULL, &info, &err);
  if (st != CORDON_SESSION_OK) fail_msg("load: %s", cordon_buf_str(&err));
  uint64_t rev = info.revision;
  cordon_session_close(s);
  cordon_buf_free(&err);
  return rev;
}

static void every_statement_that_would_rewrite_history_is_refused_by_the_database(void **state) {
  (void)state;
  char id[CORDON_SESSION_ID_LEN + 1];
  populate(id, 0);
  sqlite3 *raw = NULL;
  assert_int_equal(sqlite3_open(db, &raw), SQLITE_OK);
  char sql[512];
  const char *const attempts[] = {
      "UPDATE log SET outcome = 'denied' WHERE session = '%s' AND event = 'settle'",
      "DELETE FROM log WHERE session = '%s'",
      "DELETE FROM sessions WHERE id = '%s'",
      "UPDATE sessions SET revision = 0 WHERE id = '%s'",
      "UPDATE sessions SET revision = 5 WHERE id = '%s'",
      "UPDATE sessions SET revision = revision + 1 WHERE id = '%s'", /* no log entry for it */
      "UPDATE sessions SET kind = 'bypass' WHERE id = '%s'",
      "INSERT OR REPLACE INTO sessions (id, created_at, updated_at, kind, revision, boundary) "
      "VALUES ('%s', 0, 0, 'managed', 0, '{}')",
      "INSERT OR REPLACE INTO log (session, seq, event, created_at, revision) VALUES ('%s', 0, 'genesis', 0, 0)",
      "INSERT OR REPLACE INTO log (session, seq, event, created_at, revision, request, outcome) "
      "VALUES ('%s', 2, 'settle', 0, 1, 1, 'denied')",
      "INSERT INTO log (session, seq, event, created_at, revision, request, outcome) VALUES ('%s', 3, 'settle', 0, 2, 1, 'approved')",
      "INSERT INTO log (session, seq, event, created_at, revision, outcome) VALUES ('%s', 3, 'kind', 0, 1, 'bypass')",
      "REPLACE INTO log (session, seq, event, created_at, revision) VALUES ('%s', 1, 'genesis', 0, 0)",
  };
  for (size_t i = 0; i < sizeof attempts / sizeof *attempts; i++) {
    snprintf(sql, sizeof sql, attempts[i], id);
    if (sqlite3_exec(raw, sql, NULL, NULL, NULL) == SQLITE_OK) fail_msg("accepted: %s", sql);
  }
  /* An UPDATE that goes through is the one cordon makes: +1 with its log entry (here: a kind change). */
  snprintf(sql, sizeof sql,
           "BEGIN; INSERT INTO log (session, seq, event, created_at, revision, outcome) VALUES ('%s', 3, 'kind', 0, 2, 'bypass');"
           "UPDATE sessions SET revision = 2, kind = 'bypass' WHERE id = '%s'; ROLLBACK;",
           id, id);
  assert_int_equal(sqlite3_exec(raw, sql, NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close(raw);
  assert_int_equal(stored_revision(id), 1);
}

static void a_log_that_does_not_add_up_is_corrupt_never_loaded(void **state) {
  (void)state;
  char id[CORDON_SESSION_ID_LEN + 1];
  populate(id, 0);
  sqlite3 *raw = NULL;
  assert_int_equal(sqlite3_open(db, &raw), SQLITE_OK);
  char sql[512];
  /* Whoever can drop the triggers can edit anything; what they leave must still not load as a boundary. */
  snprintf(sql, sizeof sql,
           "DROP TRIGGER log_no_update; UPDATE log SET body = '{\"network\":true,\"filesystem\":[{\"path\":\"/\",\"access\":\"write\","
           "\"scope\":\"subtree\"},{\"path\":\"rel\",\"access\":\"write\",\"scope\":\"exact\"}]}' "
           "WHERE session = '%s' AND event = 'settle'",
           id);
  assert_int_equal(sqlite3_exec(raw, sql, NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close(raw);
  cordon_buf err = CORDON_BUF_INIT;
  cordon_session_store *s = NULL;
  assert_int_equal(cordon_session_open(db, &s, &err), CORDON_SESSION_OK);
  cordon_boundary *b = NULL;
  assert_int_equal(cordon_session_load(s, id, &b, NULL, &err), CORDON_SESSION_CORRUPT);
  assert_null(b);
  assert_non_null(strstr(cordon_buf_str(&err), "does not replay"));
  cordon_session_close(s);
  cordon_buf_free(&err);
}

static void a_forged_approval_is_corrupt_because_it_does_not_assess(void **state) {
  (void)state;
  char id[CORDON_SESSION_ID_LEN + 1];
  populate(id, 0);
  sqlite3 *raw = NULL;
  assert_int_equal(sqlite3_open(db, &raw), SQLITE_OK);
  char sql[1024];
  /* Past the triggers, a request and an approval that would make .git writable: settle would have
   * assessed it a conflict, so a load must not take it either. */
  snprintf(sql, sizeof sql,
           "DROP TRIGGER log_at_the_end; DROP TRIGGER log_revision_once; DROP TRIGGER sessions_revision;"
           "INSERT INTO log (session, seq, event, created_at, revision, body, justification) VALUES ('%s', 3, 'request', 0, 1,"
           " '{\"filesystem\":[{\"path\":\"/w/.git/hooks\",\"access\":\"write\",\"scope\":\"subtree\"}]}', 'x');"
           "INSERT INTO log (session, seq, event, created_at, revision, request, outcome, body) VALUES ('%s', 4, 'settle', 0, 2, 3,"
           " 'approved', '{\"filesystem\":[{\"path\":\"/w/.git/hooks\",\"access\":\"write\",\"scope\":\"subtree\"}]}');"
           "UPDATE sessions SET revision = 2 WHERE id = '%s';",
           id, id, id);
  assert_int_equal(sqlite3_exec(raw, sql, NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close(raw);
  cordon_buf err = CORDON_BUF_INIT;
  cordon_session_store *s = NULL;
  assert_int_equal(cordon_session_open(db, &s, &err), CORDON_SESSION_OK);
  cordon_boundary *b = NULL;
  assert_int_equal(cordon_session_load(s, id, &b, NULL, &err), CORDON_SESSION_CORRUPT);
  assert_null(b);
  assert_non_null(strstr(cordon_buf_str(&err), "conflicts"));
  cordon_session_close(s);
  cordon_buf_free(&err);
}

/* Forges approvals of `deltas` (NULL-terminated) after the populated revision 1, past the triggers. */
static void forge_approvals(const char *id, const char *const *deltas) {
  sqlite3 *raw = NULL;
  assert_int_equal(sqlite3_open(db, &raw), SQLITE_OK);
  assert_int_equal(sqlite3_exec(raw, "DROP TRIGGER IF EXISTS log_at_the_end; DROP TRIGGER IF EXISTS log_revision_once;"
                                     "DROP TRIGGER IF EXISTS sessions_revision;", NULL, NULL, NULL),
                   SQLITE_OK);
  char sql[1024];
  int rev = 1;
  for (int i = 0; deltas[i]; i++) {
    rev++;
    snprintf(sql, sizeof sql,
             "INSERT INTO log (session, seq, event, created_at, revision, body, justification) VALUES ('%s', %d, 'request', 0, %d, '%s', 'x');"
             "INSERT INTO log (session, seq, event, created_at, revision, request, outcome, body) VALUES ('%s', %d, 'settle', 0, %d, %d,"
             " 'approved', '%s'); UPDATE sessions SET revision = %d WHERE id = '%s';",
             id, 1 + 2 * rev - 2, rev - 1, deltas[i], id, 2 * rev, rev, 1 + 2 * rev - 2, deltas[i], rev, id);
    if (sqlite3_exec(raw, sql, NULL, NULL, NULL) != SQLITE_OK) fail_msg("forge: %s", sqlite3_errmsg(raw));
  }
  sqlite3_close(raw);
}

static void a_forged_approval_that_adds_nothing_is_corrupt_whatever_its_shape(void **state) {
  (void)state;
  /* The populated session reads everything and writes /data (subtree) at revision 1. */
  static const char *const cases[][3] = {
      {"{\"filesystem\":[{\"path\":\"/data/x\",\"access\":\"write\",\"scope\":\"exact\"}]}", NULL}, /* one grant, covered */
      {"{\"filesystem\":[{\"path\":\"/etc\",\"access\":\"read\",\"scope\":\"subtree\"}]}", NULL},    /* read: covered */
      {"{\"network\":true,\"filesystem\":[]}", "{\"network\":true,\"filesystem\":[]}", NULL},                                                  /* network twice */
      {"{\"filesystem\":[{\"path\":\"/new\",\"access\":\"write\",\"scope\":\"exact\"},"
       "{\"path\":\"/data/y\",\"access\":\"write\",\"scope\":\"exact\"}]}", NULL},                         /* one of two new */
      {"{\"network\":true,\"filesystem\":[{\"path\":\"/data/z\",\"access\":\"write\",\"scope\":\"exact\"}]}",
       NULL},                                                                                              /* network new, grant not */
  };
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    char id[CORDON_SESSION_ID_LEN + 1];
    populate(id, 0);
    forge_approvals(id, cases[c]);
    cordon_buf err = CORDON_BUF_INIT;
    cordon_session_store *s = NULL;
    assert_int_equal(cordon_session_open(db, &s, &err), CORDON_SESSION_OK);
    cordon_boundary *b = NULL;
    cordon_session_status st = cordon_session_load(s, id, &b, NULL, &err);
    if (st != CORDON_SESSION_CORRUPT) fail_msg("case %zu loaded (%s)", c, cordon_session_status_name(st));
    assert_null(b);
    if (!strstr(cordon_buf_str(&err), "not a change the boundary lacked")) fail_msg("case %zu: %s", c, cordon_buf_str(&err));
    cordon_session_close(s);
    cordon_buf_free(&err);
  }
}

static void write_file(const char *bytes, size_t n) {
  FILE *f = fopen(db, "wb");
  assert_non_null(f);
  if (n) assert_int_equal(fwrite(bytes, 1, n, f), n);
  fclose(f);
}

static void an_empty_file_is_an_error_never_a_fresh_database(void **state) {
  (void)state;
  write_file("", 0);
  cordon_buf err = CORDON_BUF_INIT;
  assert_int_equal(try_open(&err), CORDON_SESSION_CORRUPT);
  assert_non_null(strstr(cordon_buf_str(&err), "empty"));
  assert_non_null(strstr(cordon_buf_str(&err), "move it aside"));
  struct stat sb;
  assert_int_equal(stat(db, &sb), 0);
  assert_int_equal(sb.st_size, 0); /* left as it was */
  cordon_buf_free(&err);
}

static void a_garbage_file_is_an_error(void **state) {
  (void)state;
  char junk[8192];
  for (size_t i = 0; i < sizeof junk; i++) junk[i] = (char)(i * 131 + 7);
  write_file(junk, sizeof junk);
  cordon_buf err = CORDON_BUF_INIT;
  assert_int_equal(try_open(&err), CORDON_SESSION_CORRUPT);
  cordon_buf_free(&err);
}

static void a_sqlite_file_of_someone_else_is_an_error(void **state) {
  (void)state;
  sqlite3 *raw = NULL;
  assert_int_equal(sqlite3_open(db, &raw), SQLITE_OK);
  assert_int_equal(sqlite3_exec(raw, "CREATE TABLE notes (x TEXT); INSERT INTO notes VALUES ('hi')", NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close(raw);
  cordon_buf err = CORDON_BUF_INIT;
  assert_int_equal(try_open(&err), CORDON_SESSION_CORRUPT);
  assert_non_null(strstr(cordon_buf_str(&err), "not a cordon session database"));
  cordon_buf_free(&err);
}

static void a_truncated_file_is_an_error(void **state) {
  (void)state;
  char id[CORDON_SESSION_ID_LEN + 1];
  populate(id, 40);
  struct stat sb;
  assert_int_equal(stat(db, &sb), 0);
  assert_true(sb.st_size > 4 * 4096);
  assert_int_equal(truncate(db, sb.st_size / 2 + 100), 0);
  cordon_buf err = CORDON_BUF_INIT;
  assert_int_equal(try_open(&err), CORDON_SESSION_CORRUPT);
  cordon_buf_free(&err);
}

static void a_damaged_page_is_an_error_and_takes_no_writes(void **state) {
  (void)state;
  char id[CORDON_SESSION_ID_LEN + 1];
  populate(id, 40);
  int fd = open(db, O_WRONLY);
  assert_true(fd >= 0);
  char page[4096];
  memset(page, 0xa5, sizeof page);
  assert_int_equal(pwrite(fd, page, sizeof page, 2 * 4096), (ssize_t)sizeof page); /* the third page */
  close(fd);
  cordon_buf err = CORDON_BUF_INIT;
  assert_int_equal(try_open(&err), CORDON_SESSION_CORRUPT);
  assert_non_null(strstr(cordon_buf_str(&err), "move it aside"));
  cordon_buf_free(&err);
}

static void a_schema_1_database_is_migrated_with_its_history(void **state) {
  (void)state;
  cordon_boundary *b0 = genesis();
  cordon_boundary *b1 = cordon_boundary_copy(b0);
  cordon_expansion x = CORDON_EXPANSION_INIT;
  assert_int_equal(cordon_expansion_add(&x, "/data", CORDON_ACCESS_WRITE, CORDON_ENTRY_SUBTREE), CORDON_BOUNDARY_OK);
  assert_int_equal(cordon_boundary_apply(b1, &x, NULL), CORDON_BOUNDARY_OK);
  cordon_buf j0 = CORDON_BUF_INIT, j1 = CORDON_BUF_INIT;
  assert_int_equal(cordon_boundary_encode(b0, &j0), CORDON_BOUNDARY_OK);
  assert_int_equal(cordon_boundary_encode(b1, &j1), CORDON_BOUNDARY_OK);
  sqlite3 *raw = NULL;
  assert_int_equal(sqlite3_open(db, &raw), SQLITE_OK);
  /* Schema 1 as cordon wrote it. */
  assert_int_equal(sqlite3_exec(raw,
                                "CREATE TABLE sessions (id TEXT PRIMARY KEY, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,"
                                " workdir TEXT, mode TEXT, revision INTEGER NOT NULL CHECK (revision >= 0), boundary TEXT NOT NULL);"
                                "CREATE TABLE revisions (session TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,"
                                " revision INTEGER NOT NULL, created_at INTEGER NOT NULL, reason TEXT, boundary TEXT NOT NULL,"
                                " PRIMARY KEY (session, revision));"
                                "CREATE TRIGGER revision_never_goes_down BEFORE UPDATE OF revision ON sessions"
                                " WHEN NEW.revision < OLD.revision BEGIN SELECT RAISE(ABORT, 'revision would go down'); END;",
                                NULL, NULL, NULL),
                   SQLITE_OK);
  sqlite3_stmt *q;
  assert_int_equal(sqlite3_prepare_v2(raw,
                                      "INSERT INTO sessions VALUES ('0123456789abcdef', 10, 20, '/w', 'explore', 1, ?1);"
                                      , -1, &q, NULL), SQLITE_OK);
  sqlite3_bind_text(q, 1, cordon_buf_str(&j1), -1, SQLITE_TRANSIENT);
  assert_int_equal(sqlite3_step(q), SQLITE_DONE);
  sqlite3_finalize(q);
  assert_int_equal(sqlite3_prepare_v2(raw, "INSERT INTO revisions VALUES ('0123456789abcdef', ?1, ?2, ?3, ?4)", -1, &q, NULL), SQLITE_OK);
  for (int r = 0; r < 2; r++) {
    sqlite3_bind_int(q, 1, r);
    sqlite3_bind_int(q, 2, 10 + r);
    if (r) sqlite3_bind_text(q, 3, "grants write subtree /data", -1, SQLITE_STATIC);
    else sqlite3_bind_null(q, 3);
    sqlite3_bind_text(q, 4, cordon_buf_str(r ? &j1 : &j0), -1, SQLITE_TRANSIENT);
    assert_int_equal(sqlite3_step(q), SQLITE_DONE);
    sqlite3_reset(q);
  }
  sqlite3_finalize(q);
  sqlite3_close(raw);

  cordon_buf err = CORDON_BUF_INIT;
  cordon_session_store *s = NULL;
  cordon_session_status st = cordon_session_open(db, &s, &err);
  if (st != CORDON_SESSION_OK) fail_msg("open: %s", cordon_buf_str(&err));
  cordon_boundary *b = NULL;
  cordon_session_info info;
  assert_int_equal(cordon_session_load(s, "0123", &b, &info, &err), CORDON_SESSION_OK);
  assert_int_equal(info.revision, 1);
  assert_string_equal(info.kind, "managed");
  assert_true(cordon_boundary_contains(b, b1) && cordon_boundary_contains(b1, b));
  /* And it goes on growing as the current schema does. */
  cordon_expansion net = CORDON_EXPANSION_INIT;
  net.network = true;
  cordon_request_result r;
  assert_int_equal(cordon_session_request(s, "0123", &net, "downloads", &r, &err), CORDON_SESSION_OK);
  assert_int_equal(r.request, 2); /* after genesis (0) and the imported revision (1) */
  cordon_settle_result sr;
  assert_int_equal(cordon_session_settle(s, "0123", r.request, true, NULL, &sr, &err), CORDON_SESSION_OK);
  assert_int_equal(sr.revision, 2);
  cordon_session_close(s);
  raw = NULL;
  assert_int_equal(sqlite3_open(db, &raw), SQLITE_OK);
  assert_int_equal(sqlite3_prepare_v2(raw, "PRAGMA user_version", -1, &q, NULL), SQLITE_OK);
  assert_int_equal(sqlite3_step(q), SQLITE_ROW);
  assert_int_equal(sqlite3_column_int(q, 0), CORDON_SESSION_SCHEMA_VERSION);
  sqlite3_finalize(q);
  assert_int_equal(sqlite3_exec(raw, "DELETE FROM log", NULL, NULL, NULL) == SQLITE_OK, 0); /* triggers came with it */
  sqlite3_close(raw);
  cordon_boundary_free(b);
  cordon_boundary_free(b0);
  cordon_boundary_free(b1);
  cordon_expansion_free(&x);
  cordon_buf_free(&j0);
  cordon_buf_free(&j1);
  cordon_buf_free(&err);
}

/* One integer from `sql` on a raw connection to the store. */
static int raw_int(sqlite3 *raw, const char *sql) {
  sqlite3_stmt *q;
  assert_int_equal(sqlite3_prepare_v2(raw, sql, -1, &q, NULL), SQLITE_OK);
  assert_int_equal(sqlite3_step(q), SQLITE_ROW);
  int v = sqlite3_column_int(q, 0);
  sqlite3_finalize(q);
  return v;
}

static void a_schema_2_database_is_migrated_and_keeps_every_rule(void **state) {
  (void)state;
  char id[CORDON_SESSION_ID_LEN + 1];
  populate(id, 1);
  sqlite3 *raw = NULL;
  assert_int_equal(sqlite3_open(db, &raw), SQLITE_OK);
  /* Back to schema 2 as cordon wrote it: the trigger that scanned the log, and the extra index. */
  assert_int_equal(sqlite3_exec(raw,
                                "BEGIN; DROP TRIGGER sessions_revision;"
                                "CREATE TRIGGER sessions_revision BEFORE UPDATE ON sessions"
                                "  WHEN (NEW.revision IS NOT OLD.revision OR NEW.kind IS NOT OLD.kind)"
                                "    AND (NEW.revision IS NOT OLD.revision + 1 OR NOT EXISTS (SELECT 1 FROM log WHERE session = NEW.id"
                                "      AND revision = NEW.revision AND (event = 'kind' AND outcome = NEW.kind"
                                "        OR event = 'settle' AND outcome = 'approved' AND NEW.kind IS OLD.kind)))"
                                "  BEGIN SELECT RAISE(ABORT, 'a revision rises only by 1, with its log entry'); END;"
                                "CREATE INDEX log_approved ON log (session, revision) WHERE event = 'settle' AND outcome = 'approved';"
                                "PRAGMA user_version = 2; COMMIT;",
                                NULL, NULL, NULL),
                   SQLITE_OK);
  sqlite3_close(raw);
  assert_int_equal(stored_revision(id), 1); /* opening migrates */
  assert_int_equal(sqlite3_open(db, &raw), SQLITE_OK);
  assert_int_equal(raw_int(raw, "PRAGMA user_version"), CORDON_SESSION_SCHEMA_VERSION);
  assert_int_equal(raw_int(raw, "SELECT count(*) FROM sqlite_schema WHERE name = 'log_approved'"), 0);
  assert_int_equal(raw_int(raw, "SELECT count(*) FROM sqlite_schema WHERE name = 'sessions_revision' AND sql LIKE '%outcome = ''approved'')%'"), 1);
  char sql[512];
  snprintf(sql, sizeof sql, "UPDATE sessions SET revision = revision + 1 WHERE id = '%s'", id);
  assert_int_not_equal(sqlite3_exec(raw, sql, NULL, NULL, NULL), SQLITE_OK); /* still no revision without its entry */
  snprintf(sql, sizeof sql, "UPDATE sessions SET revision = 2 WHERE id = '%s'", id);
  assert_int_not_equal(sqlite3_exec(raw, sql, NULL, NULL, NULL), SQLITE_OK);
  snprintf(sql, sizeof sql,
           "BEGIN; INSERT INTO log (session, seq, event, created_at, revision, outcome) VALUES ('%s', 3, 'kind', 0, 2, 'bypass');"
           "UPDATE sessions SET revision = 2, kind = 'managed' WHERE id = '%s'; ROLLBACK;",
           id, id);
  assert_int_not_equal(sqlite3_exec(raw, sql, NULL, NULL, NULL), SQLITE_OK); /* the entry says another kind */
  sqlite3_exec(raw, "ROLLBACK", NULL, NULL, NULL);
  sqlite3_close(raw);
  /* And it goes on growing. */
  cordon_buf err = CORDON_BUF_INIT;
  cordon_session_store *s = NULL;
  assert_int_equal(cordon_session_open(db, &s, &err), CORDON_SESSION_OK);
  cordon_expansion net = CORDON_EXPANSION_INIT;
  net.network = true;
  cordon_request_result r;
  assert_int_equal(cordon_session_request(s, id, &net, "downloads", &r, &err), CORDON_SESSION_OK);
  cordon_settle_result sr;
  assert_int_equal(cordon_session_settle(s, id, r.request, true, NULL, &sr, &err), CORDON_SESSION_OK);
  assert_int_equal(sr.revision, 2);
  cordon_session_close(s);
  cordon_buf_free(&err);
  assert_int_equal(stored_revision(id), 2);
}

static void the_size_cap_is_checked_before_a_request_is_stored(void **state) {
  (void)state;
  char id[CORDON_SESSION_ID_LEN + 1];
  populate(id, 0);
  cordon_buf err = CORDON_BUF_INIT;
  cordon_session_store *s = NULL;
  assert_int_equal(cordon_session_open(db, &s, &err), CORDON_SESSION_OK);
  char path[4000];
  cordon_session_status st = CORDON_SESSION_OK;
  uint64_t applied = 1;
  for (int round = 0; round < 200 && st == CORDON_SESSION_OK; round++) {
    cordon_expansion x = CORDON_EXPANSION_INIT;
    for (int i = 0; i < 8; i++) {
      int n = snprintf(path, sizeof path, "/big/%03d/%d/", round, i);
      memset(path + n, 'p', sizeof path - (size_t)n - 1);
      path[sizeof path - 1] = '\0';
      assert_int_equal(cordon_expansion_add(&x, path, CORDON_ACCESS_WRITE, CORDON_ENTRY_EXACT), CORDON_BOUNDARY_OK);
    }
    cordon_request_result r;
    st = cordon_session_request(s, id, &x, "a lot of paths", &r, &err);
    if (st == CORDON_SESSION_OK) {
      cordon_settle_result sr;
      assert_int_equal(cordon_session_settle(s, id, r.request, true, NULL, &sr, &err), CORDON_SESSION_OK);
      assert_string_equal(sr.state, "approved");
      applied = sr.revision;
    }
    cordon_expansion_free(&x);
  }
  assert_int_equal(st, CORDON_SESSION_TOO_LARGE);
  assert_true(applied > 20);
  cordon_session_info info;
  assert_int_equal(cordon_session_load(s, id, NULL, &info, &err), CORDON_SESSION_OK); /* still loads */
  assert_int_equal(info.revision, applied);
  assert_int_equal(info.pending, 0); /* the refused request was not stored */
  assert_int_equal(cordon_session_remove(s, id, &err), CORDON_SESSION_OK); /* and can go */
  cordon_session_close(s);
  cordon_buf_free(&err);
}

static void a_new_database_appears_whole_and_private(void **state) {
  (void)state;
  snprintf(db, sizeof db, "%s/a/b/sessions.db", dir);
  cordon_buf err = CORDON_BUF_INIT;
  assert_int_equal(try_open(&err), CORDON_SESSION_OK);
  struct stat sb;
  char parent[160];
  snprintf(parent, sizeof parent, "%s/a/b", dir);
  assert_int_equal(stat(parent, &sb), 0);
  assert_int_equal(sb.st_mode & 0777, 0700);
  assert_int_equal(stat(db, &sb), 0);
  assert_true(sb.st_size > 0);
  assert_int_equal(try_open(&err), CORDON_SESSION_OK); /* and opens again as it is */
  assert_int_equal(cordon_session_open("relative.db", &(cordon_session_store *){NULL}, &err), CORDON_SESSION_INVALID);
  cordon_buf_free(&err);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(every_statement_that_would_rewrite_history_is_refused_by_the_database, setup, teardown),
      cmocka_unit_test_setup_teardown(a_log_that_does_not_add_up_is_corrupt_never_loaded, setup, teardown),
      cmocka_unit_test_setup_teardown(a_forged_approval_is_corrupt_because_it_does_not_assess, setup, teardown),
      cmocka_unit_test_setup_teardown(a_forged_approval_that_adds_nothing_is_corrupt_whatever_its_shape, setup, teardown),
      cmocka_unit_test_setup_teardown(an_empty_file_is_an_error_never_a_fresh_database, setup, teardown),
      cmocka_unit_test_setup_teardown(a_garbage_file_is_an_error, setup, teardown),
      cmocka_unit_test_setup_teardown(a_sqlite_file_of_someone_else_is_an_error, setup, teardown),
      cmocka_unit_test_setup_teardown(a_truncated_file_is_an_error, setup, teardown),
      cmocka_unit_test_setup_teardown(a_damaged_page_is_an_error_and_takes_no_writes, setup, teardown),
      cmocka_unit_test_setup_teardown(a_schema_1_database_is_migrated_with_its_history, setup, teardown),
      cmocka_unit_test_setup_teardown(a_schema_2_database_is_migrated_and_keeps_every_rule, setup, teardown),
      cmocka_unit_test_setup_teardown(the_size_cap_is_checked_before_a_request_is_stored, setup, teardown),
      cmocka_unit_test_setup_teardown(a_new_database_appears_whole_and_private, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
