/* src/core/session_impl.h — the store struct and SQL helpers, private to session.c, session_db.c, session_schema.c */
#ifndef CORDON_SESSION_IMPL_H
#define CORDON_SESSION_IMPL_H
#include "core/session.h"

#include <sqlite3.h>

/* The events that make a revision: the condition of the partial index log_revision_once. A query that
 * repeats it word for word (SQLite's rule for partial indexes) finds them through that index. */
#define CORDON_SESSION_REVISION_EVENTS "event IN ('genesis', 'import', 'kind') OR (event = 'settle' AND outcome = 'approved')"

#define CORDON_SESSION_STMTS 32  /* more distinct statements than the store has */

struct cordon_session_store {
  sqlite3 *db;
  char *path;
  /* Strings handed out through cordon_session_info, valid until the next call on the store. */
  char *info_id, *info_workdir, *info_mode, *info_kind;
  /* The last boundary rebuilt, so the next load replays only what was approved since (the log never
   * changes behind it: triggers keep it append-only). */
  char cache_id[CORDON_SESSION_ID_LEN + 1];
  cordon_boundary *cache;
  size_t cache_size;
  /* Prepared statements, kept for the store's life: preparing one that inserts into the log compiles
   * its triggers, which cost more than running it. Keyed by the address of the SQL literal. */
  struct {
    const char *sql;
    sqlite3_stmt *st;
    bool busy;  /* handed out and not yet released (a callback may run the same query again) */
  } stmts[CORDON_SESSION_STMTS];
  int64_t busy_since_ms;  /* when the current wait for the write lock began */
  int64_t contended_ms;   /* when this store last found the write lock taken */
  uint64_t rng;           /* for the jitter of those waits, so queued writers do not wake in step */
  /* What request and settle assess as conflict beyond the boundary (session_guard.c). */
  struct cordon_session_guard_entry *guard;
  size_t guard_count;
};

struct cordon_regex;
typedef struct cordon_session_guard_entry {
  cordon_session_guard_kind kind;
  char *path, *why;
  struct cordon_regex *re;  /* CORDON_GUARD_REGEX only */
} cordon_session_guard_entry;

/* True, with `out` a conflict, when a write of `x` falls on the store's guard. */
bool cordon_session_guarded(const cordon_session_store *s, const cordon_expansion *x, cordon_assess_result *out);

/* The hint that follows every "this file is damaged" message. */
extern const char cordon_session_hint_corrupt[];

/* Creates the tables, indexes and triggers and sets user_version (inside the caller's transaction). */
int cordon_session_schema_write(sqlite3 *db);
/* Checks user_version on an open store, migrating an older schema in one write transaction. */
cordon_session_status cordon_session_schema_check(cordon_session_store *s, cordon_buf *err);

/* Puts "what: sqlite's message" in err and maps the error to a status (a damaged file is corrupt). */
cordon_session_status cordon_session_db_fail(cordon_session_store *s, cordon_buf *err, const char *what);

/* The prepared statement for `sql`, which must be a string literal (the cache is keyed by its address);
 * NULL on failure (sqlite3_errmsg says why). Each one is given back with cordon_session_release. */
sqlite3_stmt *cordon_session_prepare(cordon_session_store *s, const char *sql);
/* Resets a statement from cordon_session_prepare (so it holds no read transaction) for its next use. */
void cordon_session_release(cordon_session_store *s, sqlite3_stmt *q);

/* Runs one statement with bindings given as a format: 't' text (NULL binds NULL), 'i' int64. Returns
 * an SQLite result code (SQLITE_OK for a statement that completed). */
int cordon_session_run(cordon_session_store *s, const char *sql, const char *fmt, ...);

/* BEGIN IMMEDIATE, waiting (short random sleeps) while other writers hold the lock, for up to 30 s. */
cordon_session_status cordon_session_begin(cordon_session_store *s, cordon_buf *err);
#endif
