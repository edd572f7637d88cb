/* src/core/session_db.c — opening the session database: atomic creation, integrity check, write lock, statements */
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
#define CONTENDED_MS 50  /* how long after meeting a held write lock a writer stays courteous */

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

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A random number of microseconds in [lo, lo + span). */
static useconds_t jitter(cordon_session_store *s, unsigned lo, unsigned span) {
  s->rng ^= s->rng << 13;
  s->rng ^= s->rng >> 7;
  s->rng ^= s->rng << 17;
  return (useconds_t)(lo + s->rng % span);
}

/* Short, jittered sleeps of the same length however long the wait: SQLite's own timeout sleeps up to
 * 100 ms at a time, and sleeps that grow with the wait let newcomers pass those who waited longest. */
static int wait_busy(void *ud, int count) {
  cordon_session_store *s = ud;
  s->contended_ms = now_ms();
  if (count == 0) s->busy_since_ms = s->contended_ms;
  else if (s->contended_ms - s->busy_since_ms > BUSY_WAIT_MS) return 0;
  usleep(jitter(s, 50, 450));
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
  /* A writer that met contention lately lets the sleeping waiters have the lock first: coming
   * straight back from its last commit, it would otherwise take it again before any of them woke
   * (docs/benchmarks.md: it trades some throughput for the worst writer's p99; a lone writer never
   * meets contention, so it never pauses). */
  int64_t start = now_ms();
  if (start - s->contended_ms < CONTENDED_MS) usleep(jitter(s, 150, 300));
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

const char cordon_session_hint_corrupt[] =
    "; cordon never replaces a session database: move it aside (mv FILE FILE.bad) to start with no sessions";
#define hint_corrupt cordon_session_hint_corrupt

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
  if (rc == SQLITE_OK) rc = cordon_session_schema_write(db);
  if (rc == SQLITE_OK) rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
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
  s->contended_ms = INT64_MIN / 2;
  int rc = sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX, NULL);
  cordon_session_status st = CORDON_SESSION_OK;
  if (rc != SQLITE_OK) {
    st = s->db ? cordon_session_db_fail(s, err, "cannot open the session database") : CORDON_SESSION_NOMEM;
  } else {
    sqlite3_busy_handler(s->db, wait_busy, s);
    st = cordon_session_schema_check(s, err);
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
  cordon_session_guard_clear(s);
  free(s);
}
