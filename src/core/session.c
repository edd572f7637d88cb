/* src/core/session.c — the SQLite session store (see session.h). */
#include "core/session.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#if defined(__APPLE__)
#include <sys/random.h>
#endif

struct cordon_session_store {
  sqlite3 *db;
  char *info_id, *info_workdir, *info_mode;  /* strings handed out by cordon_session_info_of */
};

const char *cordon_session_status_name(cordon_session_status s) {
  switch (s) {
    case CORDON_SESSION_OK: return "ok";
    case CORDON_SESSION_NOMEM: return "nomem";
    case CORDON_SESSION_IO_ERROR: return "io_error";
    case CORDON_SESSION_NOT_FOUND: return "not_found";
    case CORDON_SESSION_AMBIGUOUS: return "ambiguous";
    case CORDON_SESSION_STALE: return "stale";
    case CORDON_SESSION_CORRUPT: return "corrupt";
    case CORDON_SESSION_INVALID: return "invalid";
  }
  return "unknown";
}

static const char schema[] =
    "PRAGMA foreign_keys = ON;"
    "CREATE TABLE IF NOT EXISTS sessions ("
    "  id TEXT PRIMARY KEY,"
    "  created_at INTEGER NOT NULL,"
    "  updated_at INTEGER NOT NULL,"
    "  workdir TEXT,"
    "  mode TEXT,"
    "  revision INTEGER NOT NULL CHECK (revision >= 0),"
    "  boundary TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS revisions ("
    "  session TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,"
    "  revision INTEGER NOT NULL,"
    "  created_at INTEGER NOT NULL,"
    "  reason TEXT,"
    "  boundary TEXT NOT NULL,"
    "  PRIMARY KEY (session, revision));"
    /* The store's own rule, repeated where an edited file or another client cannot get around it. */
    "CREATE TRIGGER IF NOT EXISTS revision_never_goes_down BEFORE UPDATE OF revision ON sessions"
    "  WHEN NEW.revision < OLD.revision BEGIN SELECT RAISE(ABORT, 'revision would go down'); END;";

static cordon_session_status db_fail(cordon_session_store *s, cordon_buf *err, const char *what) {
  cordon_buf_printf(err, "%s: %s", what, sqlite3_errmsg(s->db));
  return sqlite3_errcode(s->db) == SQLITE_NOMEM ? CORDON_SESSION_NOMEM : CORDON_SESSION_IO_ERROR;
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

cordon_session_status cordon_session_open(const char *path, cordon_session_store **out, cordon_buf *err) {
  *out = NULL;
  if (!path || !*path) {
    cordon_buf_puts(err, "no database path");
    return CORDON_SESSION_INVALID;
  }
  if (!make_parents(path, err)) return CORDON_SESSION_IO_ERROR;
  cordon_session_store *s = calloc(1, sizeof *s);
  if (!s) return CORDON_SESSION_NOMEM;
  int rc = sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, NULL);
  cordon_session_status st = CORDON_SESSION_OK;
  if (rc != SQLITE_OK) {
    cordon_buf_printf(err, "cannot open %s: %s", path, s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
    st = rc == SQLITE_NOMEM ? CORDON_SESSION_NOMEM : CORDON_SESSION_IO_ERROR;
  } else {
    sqlite3_busy_timeout(s->db, 5000);
    if (sqlite3_exec(s->db, schema, NULL, NULL, NULL) != SQLITE_OK) {
      cordon_buf_printf(err, "%s: ", path);
      st = db_fail(s, err, "cannot prepare the session database");
    }
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
  sqlite3_close(s->db);
  free(s->info_id);
  free(s->info_workdir);
  free(s->info_mode);
  free(s);
}

static bool new_id(char id[CORDON_SESSION_ID_LEN + 1]) {
  unsigned char raw[CORDON_SESSION_ID_LEN / 2];
  if (getentropy(raw, sizeof raw) != 0) return false;
  static const char hex[] = "0123456789abcdef";
  for (size_t i = 0; i < sizeof raw; i++) {
    id[2 * i] = hex[raw[i] >> 4];
    id[2 * i + 1] = hex[raw[i] & 15];
  }
  id[CORDON_SESSION_ID_LEN] = '\0';
  return true;
}

/* Runs one statement with text/int bindings given as a format: 't' text (NULL binds NULL), 'i' int64. */
static int run(sqlite3 *db, const char *sql, const char *fmt, ...) {
  sqlite3_stmt *st;
  int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
  if (rc != SQLITE_OK) return rc;
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
  rc = sqlite3_step(st);
  sqlite3_finalize(st);
  return rc == SQLITE_DONE || rc == SQLITE_ROW ? SQLITE_OK : rc;
}

cordon_session_status cordon_session_create(cordon_session_store *s, const cordon_boundary *b, const char *workdir,
                                            char id[CORDON_SESSION_ID_LEN + 1], cordon_buf *err) {
  if (cordon_boundary_revision(b) != 0) {
    cordon_buf_puts(err, "a new session starts at revision 0");
    return CORDON_SESSION_INVALID;
  }
  cordon_buf json = CORDON_BUF_INIT;
  if (cordon_boundary_encode(b, &json) != CORDON_BOUNDARY_OK) {
    cordon_buf_free(&json);
    cordon_buf_puts(err, "cannot encode the boundary (a path that is not UTF-8?)");
    return CORDON_SESSION_INVALID;
  }
  if (!new_id(id)) {
    cordon_buf_free(&json);
    cordon_buf_printf(err, "no randomness for a session id: %s", strerror(errno));
    return CORDON_SESSION_IO_ERROR;
  }
  int64_t now = (int64_t)time(NULL);
  const char *mode = cordon_boundary_mode(b);
  cordon_session_status st = CORDON_SESSION_OK;
  if (run(s->db, "BEGIN IMMEDIATE", "") != SQLITE_OK ||
      run(s->db, "INSERT INTO sessions (id, created_at, updated_at, workdir, mode, revision, boundary) VALUES (?,?,?,?,?,0,?)",
          "tiitt" "t", id, now, now, workdir, mode, cordon_buf_str(&json)) != SQLITE_OK ||
      run(s->db, "INSERT INTO revisions (session, revision, created_at, reason, boundary) VALUES (?,0,?,NULL,?)", "tit", id,
          now, cordon_buf_str(&json)) != SQLITE_OK ||
      run(s->db, "COMMIT", "") != SQLITE_OK) {
    st = db_fail(s, err, "cannot store the new session");
    run(s->db, "ROLLBACK", "");
  }
  cordon_buf_free(&json);
  return st;
}

/* Finds the full id for an id or unique prefix. */
static cordon_session_status resolve_id(cordon_session_store *s, const char *id, char full[CORDON_SESSION_ID_LEN + 1],
                                        cordon_buf *err) {
  size_t n = id ? strlen(id) : 0;
  bool hex = n >= 4 && n <= CORDON_SESSION_ID_LEN;
  for (size_t i = 0; hex && i < n; i++) hex = (id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'f');
  if (!hex) {
    cordon_buf_printf(err, "\"%s\" is not a session id (4 to %d characters of 0-9a-f)", id ? id : "", CORDON_SESSION_ID_LEN);
    return CORDON_SESSION_INVALID;
  }
  sqlite3_stmt *q;
  if (sqlite3_prepare_v2(s->db, "SELECT id FROM sessions WHERE substr(id, 1, ?) = ? LIMIT 2", -1, &q, NULL) != SQLITE_OK)
    return db_fail(s, err, "cannot look up the session");
  sqlite3_bind_int64(q, 1, (sqlite3_int64)n);
  sqlite3_bind_text(q, 2, id, -1, SQLITE_TRANSIENT);
  int found = 0, rc;
  while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
    if (found++ == 0) snprintf(full, CORDON_SESSION_ID_LEN + 1, "%s", (const char *)sqlite3_column_text(q, 0));
  }
  sqlite3_finalize(q);
  if (rc != SQLITE_DONE) return db_fail(s, err, "cannot look up the session");
  if (found == 0) {
    cordon_buf_printf(err, "no session %s", id);
    return CORDON_SESSION_NOT_FOUND;
  }
  if (found > 1) {
    cordon_buf_printf(err, "\"%s\" names more than one session; give more of the id", id);
    return CORDON_SESSION_AMBIGUOUS;
  }
  return CORDON_SESSION_OK;
}

cordon_session_status cordon_session_load(cordon_session_store *s, const char *id, cordon_boundary **out,
                                          char full_id[CORDON_SESSION_ID_LEN + 1], cordon_buf *err) {
  *out = NULL;
  char full[CORDON_SESSION_ID_LEN + 1];
  cordon_session_status st = resolve_id(s, id, full, err);
  if (st != CORDON_SESSION_OK) return st;
  sqlite3_stmt *q;
  if (sqlite3_prepare_v2(s->db, "SELECT boundary, revision FROM sessions WHERE id = ?", -1, &q, NULL) != SQLITE_OK)
    return db_fail(s, err, "cannot read the session");
  sqlite3_bind_text(q, 1, full, -1, SQLITE_TRANSIENT);
  if (sqlite3_step(q) != SQLITE_ROW) {
    sqlite3_finalize(q);
    return db_fail(s, err, "cannot read the session");
  }
  const char *json = (const char *)sqlite3_column_text(q, 0);
  int len = sqlite3_column_bytes(q, 0);
  int64_t rev = sqlite3_column_int64(q, 1);
  cordon_buf why = CORDON_BUF_INIT;
  cordon_boundary_status bs = cordon_boundary_decode(json ? json : "", json ? (size_t)len : 0, out, &why);
  if (bs == CORDON_BOUNDARY_NOMEM) st = CORDON_SESSION_NOMEM;
  else if (bs != CORDON_BOUNDARY_OK) {
    cordon_buf_printf(err, "session %s: stored boundary is invalid: %s", full, cordon_buf_str(&why) ? cordon_buf_str(&why) : "");
    st = CORDON_SESSION_CORRUPT;
  } else if ((int64_t)cordon_boundary_revision(*out) != rev) {
    cordon_buf_printf(err, "session %s: stored boundary says revision %llu but the row says %lld", full,
                      (unsigned long long)cordon_boundary_revision(*out), (long long)rev);
    cordon_boundary_free(*out);
    *out = NULL;
    st = CORDON_SESSION_CORRUPT;
  }
  cordon_buf_free(&why);
  sqlite3_finalize(q);
  if (st == CORDON_SESSION_OK && full_id) memcpy(full_id, full, sizeof full);
  return st;
}

cordon_session_status cordon_session_save(cordon_session_store *s, const char *id, const cordon_boundary *b,
                                          const char *reason, cordon_buf *err) {
  char full[CORDON_SESSION_ID_LEN + 1];
  cordon_session_status st = resolve_id(s, id, full, err);
  if (st != CORDON_SESSION_OK) return st;
  cordon_buf json = CORDON_BUF_INIT;
  if (cordon_boundary_encode(b, &json) != CORDON_BOUNDARY_OK) {
    cordon_buf_free(&json);
    cordon_buf_puts(err, "cannot encode the boundary (a path that is not UTF-8?)");
    return CORDON_SESSION_INVALID;
  }
  uint64_t next = cordon_boundary_revision(b);
  int64_t now = (int64_t)time(NULL);
  if (run(s->db, "BEGIN IMMEDIATE", "") != SQLITE_OK) {
    cordon_buf_free(&json);
    return db_fail(s, err, "cannot start a transaction");
  }
  sqlite3_stmt *q;
  int64_t stored = -1;
  if (sqlite3_prepare_v2(s->db, "SELECT revision FROM sessions WHERE id = ?", -1, &q, NULL) == SQLITE_OK) {
    sqlite3_bind_text(q, 1, full, -1, SQLITE_TRANSIENT);
    if (sqlite3_step(q) == SQLITE_ROW) stored = sqlite3_column_int64(q, 0);
    sqlite3_finalize(q);
  }
  if (stored < 0) {
    st = db_fail(s, err, "cannot read the stored revision");
  } else if (next != (uint64_t)stored + 1) {
    cordon_buf_printf(err, "session %s is at revision %lld; a save must carry revision %lld, not %llu", full, (long long)stored,
                      (long long)stored + 1, (unsigned long long)next);
    st = CORDON_SESSION_STALE;
  } else if (run(s->db, "UPDATE sessions SET boundary = ?, revision = ?, updated_at = ? WHERE id = ?", "tiit",
                 cordon_buf_str(&json), (int64_t)next, now, full) != SQLITE_OK ||
             run(s->db, "INSERT INTO revisions (session, revision, created_at, reason, boundary) VALUES (?,?,?,?,?)", "tiitt",
                 full, (int64_t)next, now, reason, cordon_buf_str(&json)) != SQLITE_OK ||
             run(s->db, "COMMIT", "") != SQLITE_OK) {
    st = db_fail(s, err, "cannot store the new revision");
  }
  if (st != CORDON_SESSION_OK) run(s->db, "ROLLBACK", "");
  cordon_buf_free(&json);
  return st;
}

static const char *col_text(sqlite3_stmt *q, int i) { return (const char *)sqlite3_column_text(q, i); }

cordon_session_status cordon_session_list(cordon_session_store *s, void (*fn)(const cordon_session_info *, void *),
                                          void *ud, cordon_buf *err) {
  sqlite3_stmt *q;
  if (sqlite3_prepare_v2(s->db,
                         "SELECT id, created_at, updated_at, workdir, mode, revision FROM sessions "
                         "ORDER BY updated_at DESC, id",
                         -1, &q, NULL) != SQLITE_OK)
    return db_fail(s, err, "cannot list sessions");
  int rc;
  while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
    cordon_session_info info = {col_text(q, 0), sqlite3_column_int64(q, 1), sqlite3_column_int64(q, 2), col_text(q, 3),
                                col_text(q, 4), (uint64_t)sqlite3_column_int64(q, 5)};
    fn(&info, ud);
  }
  sqlite3_finalize(q);
  return rc == SQLITE_DONE ? CORDON_SESSION_OK : db_fail(s, err, "cannot list sessions");
}

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

cordon_session_status cordon_session_info_of(cordon_session_store *s, const char *id, cordon_session_info *out,
                                             cordon_buf *err) {
  char full_id[CORDON_SESSION_ID_LEN + 1];
  cordon_session_status rs = resolve_id(s, id, full_id, err);
  if (rs != CORDON_SESSION_OK) return rs;
  sqlite3_stmt *q;
  if (sqlite3_prepare_v2(s->db, "SELECT id, created_at, updated_at, workdir, mode, revision FROM sessions WHERE id = ?", -1, &q,
                         NULL) != SQLITE_OK)
    return db_fail(s, err, "cannot read the session");
  sqlite3_bind_text(q, 1, full_id, -1, SQLITE_TRANSIENT);
  int rc = sqlite3_step(q);
  cordon_session_status st = CORDON_SESSION_OK;
  if (rc == SQLITE_ROW) {
    free(s->info_id);
    free(s->info_workdir);
    free(s->info_mode);
    s->info_id = dup_or_null(col_text(q, 0));
    s->info_workdir = dup_or_null(col_text(q, 3));
    s->info_mode = dup_or_null(col_text(q, 4));
    if (!s->info_id || (col_text(q, 3) && !s->info_workdir) || (col_text(q, 4) && !s->info_mode)) st = CORDON_SESSION_NOMEM;
    *out = (cordon_session_info){s->info_id, sqlite3_column_int64(q, 1), sqlite3_column_int64(q, 2), s->info_workdir,
                                 s->info_mode, (uint64_t)sqlite3_column_int64(q, 5)};
  } else if (rc == SQLITE_DONE) {
    cordon_buf_printf(err, "no session %s", full_id);
    st = CORDON_SESSION_NOT_FOUND;
  } else {
    st = db_fail(s, err, "cannot read the session");
  }
  sqlite3_finalize(q);
  return st;
}

cordon_session_status cordon_session_history(cordon_session_store *s, const char *id,
                                             void (*fn)(const cordon_session_revision *, void *), void *ud,
                                             cordon_buf *err) {
  char full_id[CORDON_SESSION_ID_LEN + 1];
  cordon_session_status rs = resolve_id(s, id, full_id, err);
  if (rs != CORDON_SESSION_OK) return rs;
  sqlite3_stmt *q;
  if (sqlite3_prepare_v2(s->db,
                         "SELECT revision, created_at, reason, boundary FROM revisions WHERE session = ? ORDER BY revision",
                         -1, &q, NULL) != SQLITE_OK)
    return db_fail(s, err, "cannot read the history");
  sqlite3_bind_text(q, 1, full_id, -1, SQLITE_TRANSIENT);
  int rc;
  while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
    cordon_session_revision r = {(uint64_t)sqlite3_column_int64(q, 0), sqlite3_column_int64(q, 1), col_text(q, 2), col_text(q, 3)};
    fn(&r, ud);
  }
  sqlite3_finalize(q);
  return rc == SQLITE_DONE ? CORDON_SESSION_OK : db_fail(s, err, "cannot read the history");
}
