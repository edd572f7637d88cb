/* src/core/session_schema.c — the session database's schema: tables, append-only triggers, migrations */
#include "core/session_impl.h"

#include <string.h>

#define hint_corrupt cordon_session_hint_corrupt
#define STRINGIFY(x) #x
#define AS_TEXT(x) STRINGIFY(x)

/* The revision's log entry is looked up through log_revision_once: the WHERE repeats that index's
 * condition word for word, which is what lets SQLite use a partial index (schema 2 scanned the
 * session's whole log on every approval). */
#define SESSIONS_REVISION_TRIGGER                                                                                      \
  "CREATE TRIGGER sessions_revision BEFORE UPDATE ON sessions"                                                         \
  "  WHEN (NEW.revision IS NOT OLD.revision OR NEW.kind IS NOT OLD.kind)"                                              \
  "    AND (NEW.revision IS NOT OLD.revision + 1 OR NOT EXISTS (SELECT 1 FROM log WHERE session = NEW.id"               \
  "      AND revision = NEW.revision AND (" CORDON_SESSION_REVISION_EVENTS ")"                                                          \
  "      AND (event = 'kind' AND outcome = NEW.kind OR event = 'settle' AND outcome = 'approved' AND NEW.kind IS OLD.kind)))" \
  "  BEGIN SELECT RAISE(ABORT, 'a revision rises only by 1, with its log entry'); END;"

static const char tables_sql[] =
    "CREATE TABLE sessions ("
    "  id TEXT PRIMARY KEY,"
    "  created_at INTEGER NOT NULL,"
    "  updated_at INTEGER NOT NULL,"
    "  workdir TEXT,"
    "  mode TEXT,"
    "  kind TEXT NOT NULL CHECK (kind IN ('managed', 'bypass', 'external')),"
    "  revision INTEGER NOT NULL CHECK (revision >= 0),"
    "  removed_at INTEGER);"
    "CREATE TABLE log ("
    "  session TEXT NOT NULL,"
    "  seq INTEGER NOT NULL CHECK (seq >= 0),"
    "  event TEXT NOT NULL CHECK (event IN ('genesis', 'import', 'request', 'settle', 'kind')),"
    "  created_at INTEGER NOT NULL,"
    "  revision INTEGER NOT NULL CHECK (revision >= 0),"
    "  request INTEGER,"
    "  outcome TEXT CHECK (outcome IS NULL OR outcome IN ('approved', 'denied', 'conflict', 'noop', 'managed', 'bypass')),"
    "  body TEXT,"           /* genesis/import: the boundary's JSON; request: the expansion; approved: what it added */
    "  justification TEXT,"
    "  reason TEXT,"         /* settle: the person's reason */
    "  detail TEXT,"         /* settle: the assessment's line; import: schema 1's reason */
    "  PRIMARY KEY (session, seq)) WITHOUT ROWID;"
    "CREATE UNIQUE INDEX log_settle_once ON log (session, request) WHERE event = 'settle';"
    "CREATE UNIQUE INDEX log_revision_once ON log (session, revision) WHERE " CORDON_SESSION_REVISION_EVENTS ";"
    "CREATE INDEX log_snapshots ON log (session, revision) WHERE event IN ('genesis', 'import');";

/* Every rule holds for any client and statement, INSERT OR REPLACE included: REPLACE deletes without
 * firing delete triggers (unless recursive_triggers is on), so inserts are checked before they happen. */
static const char triggers_sql[] =
    "CREATE TRIGGER log_no_update BEFORE UPDATE ON log"
    "  BEGIN SELECT RAISE(ABORT, 'the session log is append-only'); END;"
    "CREATE TRIGGER log_no_delete BEFORE DELETE ON log"
    "  WHEN (SELECT removed_at FROM sessions WHERE id = OLD.session) IS NULL"
    "  BEGIN SELECT RAISE(ABORT, 'the session log is append-only (cordon session rm removes a whole session)'); END;"
    "CREATE TRIGGER log_at_the_end BEFORE INSERT ON log"
    "  WHEN NEW.seq IS NOT (SELECT COALESCE(MAX(seq) + 1, 0) FROM log WHERE session = NEW.session)"
    "    OR NOT EXISTS (SELECT 1 FROM sessions WHERE id = NEW.session AND removed_at IS NULL)"
    "  BEGIN SELECT RAISE(ABORT, 'a log entry goes at the end of a live session''s log'); END;"
    "CREATE TRIGGER log_settle_once BEFORE INSERT ON log WHEN NEW.event = 'settle' AND ("
    "    EXISTS (SELECT 1 FROM log WHERE session = NEW.session AND event = 'settle' AND request = NEW.request)"
    "    OR NOT EXISTS (SELECT 1 FROM log WHERE session = NEW.session AND seq = NEW.request AND event = 'request'))"
    "  BEGIN SELECT RAISE(ABORT, 'a request is settled once'); END;"
    "CREATE TRIGGER log_revision_once BEFORE INSERT ON log"
    "  WHEN (NEW.event IN ('genesis', 'import', 'kind') OR (NEW.event = 'settle' AND NEW.outcome = 'approved'))"
    "    AND NEW.revision IS NOT (SELECT revision + 1 FROM sessions WHERE id = NEW.session)"
    "    AND NOT (NEW.event = 'genesis' AND NEW.revision = 0 AND NEW.seq = 0)"
    "  BEGIN SELECT RAISE(ABORT, 'a revision is made once, one above the current one'); END;"
    "CREATE TRIGGER sessions_new BEFORE INSERT ON sessions"
    "  WHEN NEW.revision != 0 OR NEW.removed_at IS NOT NULL OR EXISTS (SELECT 1 FROM sessions WHERE id = NEW.id)"
    "  BEGIN SELECT RAISE(ABORT, 'a session starts at revision 0, under a new id'); END;"
    "CREATE TRIGGER sessions_fixed BEFORE UPDATE ON sessions"
    "  WHEN OLD.removed_at IS NOT NULL OR NEW.id IS NOT OLD.id OR NEW.created_at IS NOT OLD.created_at"
    "    OR NEW.workdir IS NOT OLD.workdir OR NEW.mode IS NOT OLD.mode"
    "  BEGIN SELECT RAISE(ABORT, 'a session''s identity does not change, and a removed one not at all'); END;"
    SESSIONS_REVISION_TRIGGER
    "CREATE TRIGGER sessions_no_delete BEFORE DELETE ON sessions WHEN OLD.removed_at IS NULL"
    "  BEGIN SELECT RAISE(ABORT, 'a session is removed by cordon session rm'); END;";

static const char version_sql[] = "PRAGMA user_version = " AS_TEXT(CORDON_SESSION_SCHEMA_VERSION);

int cordon_session_schema_write(sqlite3 *db) {
  int rc = sqlite3_exec(db, tables_sql, NULL, NULL, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_exec(db, triggers_sql, NULL, NULL, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_exec(db, version_sql, NULL, NULL, NULL);
  return rc;
}

/* One integer from a pragma or a count query; -1 on failure. */
static int64_t query_int(sqlite3 *db, const char *sql) {
  sqlite3_stmt *q;
  int64_t v = -1;
  if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK) return -1;
  if (sqlite3_step(q) == SQLITE_ROW) v = sqlite3_column_int64(q, 0);
  sqlite3_finalize(q);
  return v;
}

static cordon_session_status corrupt(cordon_session_store *s, cordon_buf *err, const char *what) {
  cordon_buf_printf(err, "%s: %s%s", s->path, what, hint_corrupt);
  return CORDON_SESSION_CORRUPT;
}

/* Schema 1 kept a full boundary per revision in `revisions`: its rows become genesis and import
 * events (kept whole, as they were: the last one is where a load starts), and new changes are stored
 * as deltas. */
static cordon_session_status migrate_v1(cordon_session_store *s, cordon_buf *err) {
  if (sqlite3_exec(s->db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL) != SQLITE_OK)
    return cordon_session_db_fail(s, err, "cannot migrate the session database");
  cordon_session_status st = cordon_session_begin(s, err);
  if (st != CORDON_SESSION_OK) return st;
  if (query_int(s->db, "PRAGMA user_version") != 0) return sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL), CORDON_SESSION_OK;
  static const char copy_sql[] =
      "DROP TRIGGER IF EXISTS revision_never_goes_down;"
      "ALTER TABLE sessions RENAME TO sessions_v1;"
      "ALTER TABLE revisions RENAME TO revisions_v1;";
  static const char fill_sql[] =
      "INSERT INTO sessions (id, created_at, updated_at, workdir, mode, kind, revision)"
      "  SELECT id, created_at, updated_at, workdir, mode, json_extract(boundary, '$.kind'), revision FROM sessions_v1;"
      "INSERT INTO log (session, seq, event, created_at, revision, body, detail)"
      "  SELECT session, revision, CASE revision WHEN 0 THEN 'genesis' ELSE 'import' END, created_at, revision, boundary, reason"
      "  FROM revisions_v1 ORDER BY session, revision;"
      "DROP TABLE revisions_v1; DROP TABLE sessions_v1;";
  if (sqlite3_exec(s->db, copy_sql, NULL, NULL, NULL) != SQLITE_OK || sqlite3_exec(s->db, tables_sql, NULL, NULL, NULL) != SQLITE_OK ||
      sqlite3_exec(s->db, fill_sql, NULL, NULL, NULL) != SQLITE_OK ||
      sqlite3_exec(s->db, triggers_sql, NULL, NULL, NULL) != SQLITE_OK || sqlite3_exec(s->db, version_sql, NULL, NULL, NULL) != SQLITE_OK) {
    st = cordon_session_db_fail(s, err, "cannot migrate the session database from schema 1");
    sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    return st;
  }
  if (sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
    st = cordon_session_db_fail(s, err, "cannot migrate the session database from schema 1");
    sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
  }
  return st;
}

/* Schema 2 differed in one trigger, which scanned a session's whole log on every approval, and in an
 * index that duplicated part of log_revision_once. */
static cordon_session_status migrate_v2(cordon_session_store *s, cordon_buf *err) {
  cordon_session_status st = cordon_session_begin(s, err);
  if (st != CORDON_SESSION_OK) return st;
  if (query_int(s->db, "PRAGMA user_version") != 2) return sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL), CORDON_SESSION_OK;
  static const char v3_sql[] = "DROP INDEX log_approved; DROP TRIGGER sessions_revision; " SESSIONS_REVISION_TRIGGER;
  if (sqlite3_exec(s->db, v3_sql, NULL, NULL, NULL) != SQLITE_OK || sqlite3_exec(s->db, version_sql, NULL, NULL, NULL) != SQLITE_OK ||
      sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
    st = cordon_session_db_fail(s, err, "cannot migrate the session database from schema 2");
    sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
  }
  return st;
}

cordon_session_status cordon_session_schema_check(cordon_session_store *s, cordon_buf *err) {
  int64_t version = query_int(s->db, "PRAGMA user_version");
  if (version == CORDON_SESSION_SCHEMA_VERSION) return CORDON_SESSION_OK;
  if (version < 0) {
    cordon_session_status st = cordon_session_db_fail(s, err, s->path);
    if (st == CORDON_SESSION_CORRUPT) cordon_buf_puts(err, hint_corrupt);
    return st;
  }
  if (version > CORDON_SESSION_SCHEMA_VERSION) {
    cordon_buf_printf(err, "%s: schema %lld is newer than this cordon's (%d); use a newer cordon", s->path, (long long)version,
                      CORDON_SESSION_SCHEMA_VERSION);
    return CORDON_SESSION_CORRUPT;
  }
  if (version == 0 && query_int(s->db, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN ('sessions', 'revisions')") == 2)
    return migrate_v1(s, err);
  if (version == 2) return migrate_v2(s, err);
  return corrupt(s, err, "not a cordon session database (no schema this cordon knows)");
}

