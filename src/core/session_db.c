/* src/core/session_db.c — opening the session database: atomic creation, the integrity check, the
 * schema with its append-only triggers, the migration from schema 1, and the write lock's queue. */
#include "core/session_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BUSY_WAIT_MS 30000

const char *cordon_session_status_name(cordon_session_status s) {
  switch (s) {
    case CORDON_SESSION_OK: return "ok";
    case CORDON_SESSION_NOMEM: return "nomem";
    case CORDON_SESSION_IO_ERROR: return "io_error";
    case CORDON_SESSION_NOT_FOUND: return "not_found";
    case CORDON_SESSION_AMBIGUOUS: return "ambiguous";
    case CORDON_SESSION_CORRUPT: return "corrupt";
    case CORDON_SESSION_INVALID: return "invalid";
    case CORDON_SESSION_TOO_LARGE: return "too_large";
    case CORDON_SESSION_REFUSED: return "refused";
    case CORDON_SESSION_BUSY: return "busy";
  }
  return "unknown";
}

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
    "CREATE UNIQUE INDEX log_revision_once ON log (session, revision)"
    "  WHERE event IN ('genesis', 'import', 'kind') OR (event = 'settle' AND outcome = 'approved');"
    "CREATE INDEX log_approved ON log (session, revision) WHERE event = 'settle' AND outcome = 'approved';"
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
    "CREATE TRIGGER sessions_revision BEFORE UPDATE ON sessions"
    "  WHEN (NEW.revision IS NOT OLD.revision OR NEW.kind IS NOT OLD.kind)"
    "    AND (NEW.revision IS NOT OLD.revision + 1 OR NOT EXISTS (SELECT 1 FROM log WHERE session = NEW.id"
    "      AND revision = NEW.revision AND (event = 'kind' AND outcome = NEW.kind"
    "        OR event = 'settle' AND outcome = 'approved' AND NEW.kind IS OLD.kind)))"
    "  BEGIN SELECT RAISE(ABORT, 'a revision rises only by 1, with its log entry'); END;"
    "CREATE TRIGGER sessions_no_delete BEFORE DELETE ON sessions WHEN OLD.removed_at IS NULL"
    "  BEGIN SELECT RAISE(ABORT, 'a session is removed by cordon session rm'); END;";

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Short, jittered sleeps: SQLite's own timeout sleeps up to 100 ms at a time, which is the p99. */
static int wait_busy(void *ud, int count) {
  cordon_session_store *s = ud;
  if (count == 0) s->busy_since_ms = now_ms();
  else if (now_ms() - s->busy_since_ms > BUSY_WAIT_MS) return 0;
  s->rng ^= s->rng << 13;
  s->rng ^= s->rng >> 7;
  s->rng ^= s->rng << 17;
  unsigned span = count < 8 ? 200u * (unsigned)(count + 1) : 2000u;
  usleep(50 + (useconds_t)(s->rng % span));
  return 1;
}

cordon_session_status cordon_session_db_fail(cordon_session_store *s, cordon_buf *err, const char *what) {
  int code = sqlite3_errcode(s->db);
  cordon_buf_printf(err, "%s: %s", what, sqlite3_errmsg(s->db));
  switch (code) {
    case SQLITE_NOMEM: return CORDON_SESSION_NOMEM;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB: return CORDON_SESSION_CORRUPT;
    case SQLITE_BUSY:
    case SQLITE_LOCKED: return CORDON_SESSION_BUSY;
    case SQLITE_READONLY:
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
      cordon_buf_printf(err, " (%s or its directory cannot be written: is the state directory read-only?)", s->path);
      return CORDON_SESSION_IO_ERROR;
    default: return CORDON_SESSION_IO_ERROR;
  }
}

sqlite3_stmt *cordon_session_prepare(cordon_session_store *s, const char *sql) {
  size_t i = 0;
  while (i < CORDON_SESSION_STMTS && s->stmts[i].sql && s->stmts[i].sql != sql) i++;
  if (i < CORDON_SESSION_STMTS && s->stmts[i].sql && !s->stmts[i].busy) {
    s->stmts[i].busy = true;
    return s->stmts[i].st;
  }
  sqlite3_stmt *q = NULL;
  bool keep = i < CORDON_SESSION_STMTS && !s->stmts[i].sql;  /* a free slot; else one not kept */
  if (sqlite3_prepare_v3(s->db, sql, -1, keep ? SQLITE_PREPARE_PERSISTENT : 0, &q, NULL) != SQLITE_OK) {
    sqlite3_finalize(q);
    return NULL;
  }
  if (keep) {
    s->stmts[i].sql = sql;
    s->stmts[i].st = q;
    s->stmts[i].busy = true;
  }
  return q;
}

void cordon_session_release(cordon_session_store *s, sqlite3_stmt *q) {
  if (!q) return;
  for (size_t i = 0; i < CORDON_SESSION_STMTS && s->stmts[i].sql; i++) {
    if (s->stmts[i].st != q) continue;
    sqlite3_reset(q);
    sqlite3_clear_bindings(q);
    s->stmts[i].busy = false;
    return;
  }
  sqlite3_finalize(q);
}

int cordon_session_run(cordon_session_store *s, const char *sql, const char *fmt, ...) {
  sqlite3_stmt *st = cordon_session_prepare(s, sql);
  if (!st) return sqlite3_errcode(s->db) != SQLITE_OK ? sqlite3_errcode(s->db) : SQLITE_ERROR;
  va_list ap;
  va_start(ap, fmt);
  for (int i = 0; fmt[i]; i++) {
    if (fmt[i] == 't') {
      const char *v = va_arg(ap, const char *);
      sqlite3_bind_text(st, i + 1, v, -1, SQLITE_TRANSIENT);
    } else {
      sqlite3_bind_int64(st, i + 1, va_arg(ap, int64_t));
    }
  }
  va_end(ap);
  int rc;
  do rc = sqlite3_step(st);
  while (rc == SQLITE_ROW);
  cordon_session_release(s, st);
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

cordon_session_status cordon_session_begin(cordon_session_store *s, cordon_buf *err) {
  int64_t start = now_ms();
  for (;;) {
    int rc = cordon_session_run(s, "BEGIN IMMEDIATE", "");
    if (rc == SQLITE_OK) return CORDON_SESSION_OK;
    /* The busy handler waits inside SQLite; a BUSY that escapes it (WAL recovery) is waited out here. */
    if ((rc & 0xff) != SQLITE_BUSY || now_ms() - start > BUSY_WAIT_MS) return cordon_session_db_fail(s, err, "cannot start a write transaction");
    wait_busy(s, 1);
  }
}

/* mkdir -p for the directory that holds `path`; private, since boundaries say what an agent may touch. */
static bool make_parents(const char *path, cordon_buf *err) {
  char *dir = strdup(path);
  if (!dir) return false;
  char *slash = strrchr(dir, '/');
  bool ok = true;
  if (slash && slash != dir) {
    *slash = '\0';
    for (char *p = dir + 1; ok; p++) {
      if (*p != '/' && *p != '\0') continue;
      char c = *p;
      *p = '\0';
      if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        cordon_buf_printf(err, "cannot create %s: %s", dir, strerror(errno));
        ok = false;
      }
      *p = c;
      if (c == '\0') break;
    }
  }
  free(dir);
  return ok;
}

static const char hint_corrupt[] =
    "; cordon never replaces a session database: move it aside (mv FILE FILE.bad) to start with no sessions";

/* Builds a complete database under a temporary name and links it into place (link never replaces):
 * the name never shows a half-made file, so an empty one is always damage. */
static cordon_session_status create_file(const char *path, cordon_buf *err) {
  size_t n = strlen(path) + 64;
  char *tmp = malloc(n);
  if (!tmp) return CORDON_SESSION_NOMEM;
  snprintf(tmp, n, "%s.new-%ld-%lld", path, (long)getpid(), (long long)now_ms());
  sqlite3 *db = NULL;
  cordon_session_status st = CORDON_SESSION_OK;
  int rc = sqlite3_open_v2(tmp, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_EXCLUSIVE, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_exec(db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_exec(db, tables_sql, NULL, NULL, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_exec(db, triggers_sql, NULL, NULL, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_exec(db, "PRAGMA user_version = 2; COMMIT", NULL, NULL, NULL);
  if (rc != SQLITE_OK) {
    cordon_buf_printf(err, "cannot create %s: %s (is the state directory read-only?)", path, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    st = rc == SQLITE_NOMEM ? CORDON_SESSION_NOMEM : CORDON_SESSION_IO_ERROR;
  }
  sqlite3_close(db);
  if (st == CORDON_SESSION_OK && link(tmp, path) != 0 && errno != EEXIST) {
    cordon_buf_printf(err, "cannot create %s: %s", path, strerror(errno));
    st = CORDON_SESSION_IO_ERROR;
  }
  unlink(tmp);
  free(tmp);
  return st;
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

/* quick_check reads every page (not the index cross-checks of integrity_check): see docs/model.md for
 * what it costs. */
static cordon_session_status check_integrity(cordon_session_store *s, cordon_buf *err) {
  sqlite3_stmt *q;
  if (sqlite3_prepare_v2(s->db, "PRAGMA quick_check(1)", -1, &q, NULL) != SQLITE_OK) {
    cordon_session_status st = cordon_session_db_fail(s, err, s->path);
    if (st == CORDON_SESSION_CORRUPT) cordon_buf_puts(err, hint_corrupt);
    return st;
  }
  int rc = sqlite3_step(q);
  cordon_session_status st = CORDON_SESSION_OK;
  if (rc == SQLITE_ROW) {
    const char *res = (const char *)sqlite3_column_text(q, 0);
    if (!res || strcmp(res, "ok") != 0) {
      cordon_buf_printf(err, "%s: damaged (quick_check: %s)%s", s->path, res ? res : "?", hint_corrupt);
      st = CORDON_SESSION_CORRUPT;
    }
  } else {
    st = cordon_session_db_fail(s, err, s->path);
    if (st == CORDON_SESSION_CORRUPT) cordon_buf_puts(err, hint_corrupt);
  }
  sqlite3_finalize(q);
  return st;
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
      "DROP TABLE revisions_v1; DROP TABLE sessions_v1; PRAGMA user_version = 2;";
  if (sqlite3_exec(s->db, copy_sql, NULL, NULL, NULL) != SQLITE_OK || sqlite3_exec(s->db, tables_sql, NULL, NULL, NULL) != SQLITE_OK ||
      sqlite3_exec(s->db, fill_sql, NULL, NULL, NULL) != SQLITE_OK ||
      sqlite3_exec(s->db, triggers_sql, NULL, NULL, NULL) != SQLITE_OK) {
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

static cordon_session_status check_schema(cordon_session_store *s, cordon_buf *err) {
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
  return corrupt(s, err, "not a cordon session database (no schema this cordon knows)");
}

cordon_session_status cordon_session_open(const char *path, cordon_session_store **out, cordon_buf *err) {
  *out = NULL;
  if (!path || path[0] != '/') {
    cordon_buf_printf(err, "the session database path must be absolute: \"%s\"", path ? path : "");
    return CORDON_SESSION_INVALID;
  }
  struct stat sb;
  if (stat(path, &sb) != 0) {
    if (errno != ENOENT) {
      cordon_buf_printf(err, "cannot read %s: %s", path, strerror(errno));
      return CORDON_SESSION_IO_ERROR;
    }
    if (!make_parents(path, err)) return CORDON_SESSION_IO_ERROR;
    cordon_session_status st = create_file(path, err);
    if (st != CORDON_SESSION_OK) return st;
  } else if (!S_ISREG(sb.st_mode)) {
    cordon_buf_printf(err, "%s is not a regular file", path);
    return CORDON_SESSION_CORRUPT;
  } else if (sb.st_size == 0) {
    cordon_buf_printf(err, "%s is empty (0 bytes), not a session database%s", path, hint_corrupt);
    return CORDON_SESSION_CORRUPT;
  }
  cordon_session_store *s = calloc(1, sizeof *s);
  if (!s || !(s->path = strdup(path))) {
    free(s);
    return CORDON_SESSION_NOMEM;
  }
  s->rng = ((uint64_t)getpid() << 32) ^ (uint64_t)now_ms() ^ 0x9e3779b97f4a7c15ull;
  int rc = sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX, NULL);
  cordon_session_status st = CORDON_SESSION_OK;
  if (rc != SQLITE_OK) {
    st = s->db ? cordon_session_db_fail(s, err, "cannot open the session database") : CORDON_SESSION_NOMEM;
  } else {
    sqlite3_busy_handler(s->db, wait_busy, s);
    st = check_schema(s, err);
    if (st == CORDON_SESSION_OK) st = check_integrity(s, err);
    /* NORMAL in WAL: a commit survives a crash of cordon (kill -9), not necessarily a power cut, which
     * loses the last transactions whole: never half of one, and never a wider boundary. */
    if (st == CORDON_SESSION_OK && sqlite3_exec(s->db, "PRAGMA synchronous = NORMAL", NULL, NULL, NULL) != SQLITE_OK)
      st = cordon_session_db_fail(s, err, "cannot set up the session database");
  }
  if (st != CORDON_SESSION_OK) {
    cordon_session_close(s);
    return st;
  }
  *out = s;
  return CORDON_SESSION_OK;
}

void cordon_session_close(cordon_session_store *s) {
  if (!s) return;
  for (size_t i = 0; i < CORDON_SESSION_STMTS; i++) sqlite3_finalize(s->stmts[i].st);
  sqlite3_close(s->db);
  free(s->path);
  free(s->info_id);
  free(s->info_workdir);
  free(s->info_mode);
  free(s->info_kind);
  cordon_boundary_free(s->cache);
  free(s);
}
