/* src/core/session.c — the session store's operations: create, load, request, settle, set_kind, remove, the log */
#include "core/session_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__APPLE__)
#include <sys/random.h>
#endif

#define db_fail cordon_session_db_fail
#define run cordon_session_run
#define prepare cordon_session_prepare
#define release cordon_session_release

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

static const char *col_text(sqlite3_stmt *q, int i) { return (const char *)sqlite3_column_text(q, i); }

static cordon_session_status encode_boundary(const cordon_boundary *b, cordon_buf *json, cordon_buf *err) {
  cordon_boundary_status bs = cordon_boundary_encode(b, json);
  if (bs == CORDON_BOUNDARY_NOMEM) return CORDON_SESSION_NOMEM;
  if (bs != CORDON_BOUNDARY_OK) {
    cordon_buf_puts(err, "cannot encode the boundary (a path that is not UTF-8?)");
    return CORDON_SESSION_INVALID;
  }
  if (json->len > CORDON_BOUNDARY_JSON_MAX) {
    cordon_buf_printf(err, "the boundary would be %zu bytes of JSON; at most %u are kept", json->len, CORDON_BOUNDARY_JSON_MAX);
    return CORDON_SESSION_TOO_LARGE;
  }
  return CORDON_SESSION_OK;
}

cordon_session_status cordon_session_create(cordon_session_store *s, const cordon_boundary *b, const char *workdir,
                                            char id[CORDON_SESSION_ID_LEN + 1], cordon_buf *err) {
  if (cordon_boundary_revision(b) != 0) {
    cordon_buf_puts(err, "a new session starts at revision 0");
    return CORDON_SESSION_INVALID;
  }
  cordon_buf json = CORDON_BUF_INIT;
  cordon_session_status st = encode_boundary(b, &json, err);
  if (st == CORDON_SESSION_OK && !new_id(id)) {
    cordon_buf_printf(err, "no randomness for a session id: %s", strerror(errno));
    st = CORDON_SESSION_IO_ERROR;
  }
  if (st == CORDON_SESSION_OK) st = cordon_session_begin(s, err);
  if (st != CORDON_SESSION_OK) {
    cordon_buf_free(&json);
    return st;
  }
  int64_t now = (int64_t)time(NULL);
  const char *kind = cordon_boundary_kind_name(cordon_boundary_kind_of(b));
  if (run(s, "INSERT INTO sessions (id, created_at, updated_at, workdir, mode, kind, revision) VALUES (?,?,?,?,?,?,0)",
          "tiittt", id, now, now, workdir, cordon_boundary_mode(b), kind) != SQLITE_OK ||
      run(s, "INSERT INTO log (session, seq, event, created_at, revision, body) VALUES (?,0,'genesis',?,0,?)", "tit", id, now,
          cordon_buf_str(&json)) != SQLITE_OK ||
      run(s, "COMMIT", "") != SQLITE_OK) {
    st = db_fail(s, err, "cannot store the new session");
    run(s, "ROLLBACK", "");
  }
  cordon_buf_free(&json);
  return st;
}

/* Finds the full id of a live session for an id or unique prefix. */
static cordon_session_status resolve_id(cordon_session_store *s, const char *id, char full[CORDON_SESSION_ID_LEN + 1],
                                        cordon_buf *err) {
  size_t n = id ? strlen(id) : 0;
  bool hex = n >= 4 && n <= CORDON_SESSION_ID_LEN;
  for (size_t i = 0; hex && i < n; i++) hex = (id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'f');
  if (!hex) {
    cordon_buf_printf(err, "\"%.64s\" is not a session id (4 to %d characters of 0-9a-f)", id ? id : "", CORDON_SESSION_ID_LEN);
    return CORDON_SESSION_INVALID;
  }
  sqlite3_stmt *q;
  if (!(q = prepare(s, "SELECT id FROM sessions WHERE substr(id, 1, ?) = ? AND removed_at IS NULL LIMIT 2")))
    return db_fail(s, err, "cannot look up the session");
  sqlite3_bind_int64(q, 1, (sqlite3_int64)n);
  sqlite3_bind_text(q, 2, id, -1, SQLITE_TRANSIENT);
  int found = 0, rc;
  while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
    if (found++ == 0) snprintf(full, CORDON_SESSION_ID_LEN + 1, "%s", col_text(q, 0));
  }
  release(s, q);
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

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

#define INFO_COLUMNS "id, created_at, updated_at, workdir, mode, kind, revision"
/* Counting pending requests reads every request of the session: only for what a person looks at. */
#define PENDING_COLUMN                                                                                              \
  ", (SELECT count(*) FROM log r WHERE r.session = sessions.id AND r.event = 'request' AND NOT EXISTS ("        \
  "SELECT 1 FROM log t WHERE t.session = r.session AND t.event = 'settle' AND t.request = r.seq))"

static cordon_session_info info_row(sqlite3_stmt *q, bool with_pending) {
  return (cordon_session_info){col_text(q, 0), sqlite3_column_int64(q, 1), sqlite3_column_int64(q, 2), col_text(q, 3),
                               col_text(q, 4), col_text(q, 5), (uint64_t)sqlite3_column_int64(q, 6),
                               with_pending ? sqlite3_column_int64(q, 7) : -1};
}

/* Replays one stored delta as what only settle writes: an expansion assessed "apply" against the
 * boundary before it, every grant of it new. A delta that conflicts, adds nothing or skips a revision
 * (a row forged past the triggers) fails here, so a boundary is never more than its assessed history. */
static cordon_boundary_status replay_assessed(cordon_boundary *b, const cordon_expansion *x, int64_t rev, cordon_buf *why) {
  uint64_t at = cordon_boundary_revision(b);
  cordon_boundary_status bs = CORDON_BOUNDARY_OK;
  if (rev < 1 || (uint64_t)rev <= at) {
    cordon_buf_puts(why, "it is not above the revision before it");
    return CORDON_BOUNDARY_INVALID_JSON;
  }
  if (at + 1 < (uint64_t)rev) bs = cordon_boundary_replay(b, NULL, (uint64_t)rev - 1);  /* kind changes in between */
  if (bs != CORDON_BOUNDARY_OK) return bs;
  size_t before = cordon_profile_entry_count(cordon_boundary_profile(b));
  cordon_assess_result res;
  if ((x->count == 1 && !x->network) || (x->count == 0 && x->network)) {
    /* One grant, or network alone (what settle stores): "apply" says it is new, so the delta goes in as
     * stored, without the copy of the whole profile that apply makes (a fresh load is one per delta). */
    bs = cordon_boundary_assess(b, x, &res);
    if (bs == CORDON_BOUNDARY_OK && res.outcome == CORDON_ASSESS_CONFLICT) bs = CORDON_BOUNDARY_CONFLICT;
    if (bs == CORDON_BOUNDARY_OK && res.outcome == CORDON_ASSESS_APPLY) bs = cordon_boundary_replay(b, x, (uint64_t)rev);
  } else {
    bs = cordon_boundary_apply(b, x, &res);
  }
  if (bs == CORDON_BOUNDARY_CONFLICT) cordon_buf_printf(why, "it conflicts: %s", res.reason);
  if (bs != CORDON_BOUNDARY_OK) return bs;
  if (res.outcome != CORDON_ASSESS_APPLY ||
      cordon_profile_entry_count(cordon_boundary_profile(b)) - before != x->count) {
    cordon_buf_printf(why, "it is not a change the boundary lacked (%s)", res.reason);
    return CORDON_BOUNDARY_INVALID_JSON;
  }
  return CORDON_BOUNDARY_OK;
}

/* Forgets the store's boundary: after a failure it may be part way through a change. */
static void drop_cache(cordon_session_store *s) {
  cordon_boundary_free(s->cache);
  s->cache = NULL;
  s->cache_size = 0;
}

/* Decodes the last snapshot in the log of `full` (genesis, or schema 1's last import) into `out`, with
 * its size in JSON bytes. */
static cordon_session_status load_snapshot(cordon_session_store *s, const char *full, cordon_boundary **out, size_t *bytes,
                                           cordon_buf *err) {
  *out = NULL;
  sqlite3_stmt *q = prepare(s, "SELECT body, revision FROM log WHERE session = ? AND event IN ('genesis', 'import') "
                               "ORDER BY revision DESC LIMIT 1");
  if (!q) return db_fail(s, err, "cannot read the session log");
  sqlite3_bind_text(q, 1, full, -1, SQLITE_TRANSIENT);
  int rc = sqlite3_step(q);
  cordon_session_status st = CORDON_SESSION_OK;
  cordon_buf why = CORDON_BUF_INIT;
  if (rc == SQLITE_ROW) {
    const char *json = col_text(q, 0);
    int64_t at = sqlite3_column_int64(q, 1);
    *bytes = (size_t)sqlite3_column_bytes(q, 0);
    cordon_boundary_status bs = cordon_boundary_decode(json ? json : "", json ? *bytes : 0, out, &why);
    if (bs == CORDON_BOUNDARY_NOMEM) st = CORDON_SESSION_NOMEM;
    else if (bs != CORDON_BOUNDARY_OK) {
      cordon_buf_printf(err, "session %s: stored boundary is invalid: %s", full, cordon_buf_str(&why) ? cordon_buf_str(&why) : "");
      st = CORDON_SESSION_CORRUPT;
    } else if ((int64_t)cordon_boundary_revision(*out) != at) {
      cordon_buf_printf(err, "session %s: the boundary stored for revision %lld says %llu", full, (long long)at,
                        (unsigned long long)cordon_boundary_revision(*out));
      st = CORDON_SESSION_CORRUPT;
    }
  } else {
    st = rc == SQLITE_DONE ? CORDON_SESSION_CORRUPT : db_fail(s, err, "cannot read the session log");
    if (rc == SQLITE_DONE) cordon_buf_printf(err, "session %s: its log has no genesis", full);
  }
  release(s, q);
  cordon_buf_free(&why);
  if (st != CORDON_SESSION_OK) {
    cordon_boundary_free(*out);
    *out = NULL;
  }
  return st;
}

/* The current boundary of `full` at revision `rev`: the last snapshot plus every approved delta after
 * it, assessed again and applied in order; a kind change after the last delta only moves the revision.
 * `size` receives the JSON bytes this adds up to (the size cap's measure). A log that does not add up
 * to its row is damage, and never loaded as a boundary. The boundary is the store's own (it stays as
 * the cache, and the next call catches up from it): callers that keep it copy it. */
static cordon_session_status rebuild(cordon_session_store *s, const char *full, int64_t rev, const char *kind,
                                     cordon_boundary **out, size_t *size, cordon_buf *err) {
  *out = NULL;
  cordon_session_status st = CORDON_SESSION_OK;
  bool cached = s->cache && strcmp(s->cache_id, full) == 0 && (int64_t)cordon_boundary_revision(s->cache) <= rev;
  if (!cached) {
    drop_cache(s);
    size_t bytes = 0;
    cordon_boundary *b;
    if ((st = load_snapshot(s, full, &b, &bytes, err)) != CORDON_SESSION_OK) return st;
    s->cache = b;
    s->cache_size = bytes;
    memcpy(s->cache_id, full, sizeof s->cache_id);
  }
  cordon_boundary *b = s->cache;
  cordon_buf why = CORDON_BUF_INIT;
  sqlite3_stmt *q = prepare(s, "SELECT body, revision FROM log WHERE session = ? AND (" CORDON_SESSION_REVISION_EVENTS ") "
                               "AND event = 'settle' AND outcome = 'approved' AND revision > ? ORDER BY revision");
  if (!q) {
    st = db_fail(s, err, "cannot read the session log");
  } else {
    int rc = SQLITE_DONE;
    sqlite3_bind_text(q, 1, full, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(q, 2, (int64_t)cordon_boundary_revision(b));
    while (st == CORDON_SESSION_OK && (rc = sqlite3_step(q)) == SQLITE_ROW) {
      const char *json = col_text(q, 0);
      size_t n = (size_t)sqlite3_column_bytes(q, 0);
      cordon_expansion x = CORDON_EXPANSION_INIT;
      cordon_buf_reset(&why);
      cordon_boundary_status bs = cordon_expansion_decode(json ? json : "", json ? n : 0, &x, &why);
      /* From the snapshot every delta is assessed again; catching up from this store's own cache, the few
       * deltas since are taken as the settles that wrote them left them (the next fresh load checks them). */
      if (bs == CORDON_BOUNDARY_OK)
        bs = cached ? cordon_boundary_replay(b, &x, (uint64_t)sqlite3_column_int64(q, 1))
                    : replay_assessed(b, &x, sqlite3_column_int64(q, 1), &why);
      if (bs == CORDON_BOUNDARY_NOMEM) st = CORDON_SESSION_NOMEM;
      else if (bs != CORDON_BOUNDARY_OK) {
        cordon_buf_printf(err, "session %s: the change stored for revision %lld does not replay: %s", full,
                          (long long)sqlite3_column_int64(q, 1), cordon_buf_str(&why) && *cordon_buf_str(&why) ? cordon_buf_str(&why)
                                                                                           : cordon_boundary_status_name(bs));
        st = CORDON_SESSION_CORRUPT;
      }
      s->cache_size += n;
      cordon_expansion_free(&x);
    }
    if (st == CORDON_SESSION_OK && rc != SQLITE_DONE) st = db_fail(s, err, "cannot read the session log");
    release(s, q);
  }
  cordon_buf_free(&why);
  if (st == CORDON_SESSION_OK && (int64_t)cordon_boundary_revision(b) < rev &&
      cordon_boundary_replay(b, NULL, (uint64_t)rev) != CORDON_BOUNDARY_OK)
    st = CORDON_SESSION_CORRUPT;
  if (st == CORDON_SESSION_OK && (int64_t)cordon_boundary_revision(b) != rev) {
    cordon_buf_printf(err, "session %s: its log adds up to revision %llu but the session says %lld", full,
                      (unsigned long long)cordon_boundary_revision(b), (long long)rev);
    st = CORDON_SESSION_CORRUPT;
  }
  if (st == CORDON_SESSION_OK) {
    /* The session's kind is its profile's, or bypass over a managed profile (a person's switch). */
    const char *implied = cordon_boundary_kind_name(cordon_boundary_kind_of(b));
    if (!kind || (strcmp(kind, implied) != 0 && !(strcmp(kind, "bypass") == 0 && strcmp(implied, "managed") == 0))) {
      cordon_buf_printf(err, "session %s: kind %s does not go with its %s boundary", full, kind ? kind : "NULL", implied);
      st = CORDON_SESSION_CORRUPT;
    }
  }
  if (st != CORDON_SESSION_OK) {
    drop_cache(s);
    return st;
  }
  *out = b;
  if (size) *size = s->cache_size;
  return CORDON_SESSION_OK;
}

/* Reads the session row of `full` (inside or outside a transaction); fills info and/or the boundary
 * (`out` NULL: not rebuilt; else the store's own, as rebuild gives it). */
static cordon_session_status read_current(cordon_session_store *s, const char *full, cordon_boundary **out,
                                          cordon_session_info *info, size_t *json_len, cordon_buf *err) {
  sqlite3_stmt *q;
  const char *sql = info ? "SELECT " INFO_COLUMNS PENDING_COLUMN " FROM sessions WHERE id = ? AND removed_at IS NULL"
                         : "SELECT " INFO_COLUMNS " FROM sessions WHERE id = ? AND removed_at IS NULL";
  if (!(q = prepare(s, sql))) return db_fail(s, err, "cannot read the session");
  sqlite3_bind_text(q, 1, full, -1, SQLITE_TRANSIENT);
  int rc = sqlite3_step(q);
  cordon_session_status st = CORDON_SESSION_OK;
  if (rc == SQLITE_DONE) {
    cordon_buf_printf(err, "no session %s", full);
    st = CORDON_SESSION_NOT_FOUND;
  } else if (rc != SQLITE_ROW) {
    st = db_fail(s, err, "cannot read the session");
  } else {
    if (out) st = rebuild(s, full, sqlite3_column_int64(q, 6), col_text(q, 5), out, json_len, err);
    if (st == CORDON_SESSION_OK && info) {
      free(s->info_id);
      free(s->info_workdir);
      free(s->info_mode);
      free(s->info_kind);
      s->info_id = dup_or_null(col_text(q, 0));
      s->info_workdir = dup_or_null(col_text(q, 3));
      s->info_mode = dup_or_null(col_text(q, 4));
      s->info_kind = dup_or_null(col_text(q, 5));
      *info = info_row(q, true);
      info->id = s->info_id;
      info->workdir = s->info_workdir;
      info->mode = s->info_mode;
      info->kind = s->info_kind;
      if (!s->info_id || !s->info_kind || (col_text(q, 3) && !s->info_workdir) || (col_text(q, 4) && !s->info_mode))
        st = CORDON_SESSION_NOMEM;
    }
    if (st != CORDON_SESSION_OK && out) *out = NULL;
  }
  release(s, q);
  return st;
}

cordon_session_status cordon_session_load(cordon_session_store *s, const char *id, cordon_boundary **out,
                                          cordon_session_info *info, cordon_buf *err) {
  if (out) *out = NULL;
  char full[CORDON_SESSION_ID_LEN + 1];
  cordon_session_status st = resolve_id(s, id, full, err);
  cordon_boundary *b = NULL;
  if (st == CORDON_SESSION_OK) st = read_current(s, full, out ? &b : NULL, info, NULL, err);
  if (st == CORDON_SESSION_OK && out && !(*out = cordon_boundary_copy(b))) st = CORDON_SESSION_NOMEM;
  return st;
}

cordon_session_status cordon_session_list(cordon_session_store *s, void (*fn)(const cordon_session_info *, void *),
                                          void *ud, cordon_buf *err) {
  sqlite3_stmt *q;
  if (!(q = prepare(s, "SELECT " INFO_COLUMNS PENDING_COLUMN " FROM sessions WHERE removed_at IS NULL ORDER BY updated_at DESC, id")))
    return db_fail(s, err, "cannot list sessions");
  int rc;
  while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
    cordon_session_info info = info_row(q, true);
    fn(&info, ud);
  }
  release(s, q);
  return rc == SQLITE_DONE ? CORDON_SESSION_OK : db_fail(s, err, "cannot list sessions");
}

static bool text_ok(const char *t, const char *what, bool required, cordon_buf *err) {
  size_t n = t ? strlen(t) : 0;
  if (required && n == 0) {
    cordon_buf_printf(err, "a %s is required", what);
    return false;
  }
  if (n > CORDON_SESSION_TEXT_MAX) {
    cordon_buf_printf(err, "the %s is %zu bytes; at most %d", what, n, CORDON_SESSION_TEXT_MAX);
    return false;
  }
  return true;
}

/* The next seq of a session's log (inside the write transaction); -1 on failure. */
static int64_t next_seq(cordon_session_store *s, const char *full) {
  sqlite3_stmt *q;
  int64_t v = -1;
  if (!(q = prepare(s, "SELECT COALESCE(MAX(seq) + 1, 0) FROM log WHERE session = ?"))) return -1;
  sqlite3_bind_text(q, 1, full, -1, SQLITE_TRANSIENT);
  if (sqlite3_step(q) == SQLITE_ROW) v = sqlite3_column_int64(q, 0);
  release(s, q);
  return v;
}

/* Ends a write transaction: COMMIT when st is OK (a failing COMMIT turns into the error), else ROLLBACK. */
static cordon_session_status finish(cordon_session_store *s, cordon_session_status st, cordon_buf *err, const char *what) {
  if (st == CORDON_SESSION_OK && run(s, "COMMIT", "") != SQLITE_OK) st = db_fail(s, err, what);
  if (st != CORDON_SESSION_OK) run(s, "ROLLBACK", "");
  return st;
}

/* Applies `x` to `b` in place; on apply, `delta` receives what it added (the new grants, and network
 * when it was off), which is what the log keeps. On conflict or noop `b` is unchanged. */
static cordon_session_status apply_delta(cordon_boundary *b, const cordon_expansion *x, cordon_assess_result *res,
                                         cordon_buf *delta, cordon_buf *err) {
  const cordon_profile *p = cordon_boundary_profile(b);
  size_t before = cordon_profile_entry_count(p);
  bool net_before = cordon_profile_network(p) == CORDON_NETWORK_ENABLED;
  cordon_boundary_status bs = cordon_boundary_apply(b, x, res);
  if (bs == CORDON_BOUNDARY_CONFLICT) return CORDON_SESSION_OK;  /* the outcome says so */
  if (bs == CORDON_BOUNDARY_NOMEM) return CORDON_SESSION_NOMEM;
  if (bs != CORDON_BOUNDARY_OK) {
    cordon_buf_printf(err, "cannot assess the expansion: %s", cordon_boundary_status_name(bs));
    return CORDON_SESSION_INVALID;
  }
  if (res->outcome != CORDON_ASSESS_APPLY) return CORDON_SESSION_OK;
  p = cordon_boundary_profile(b);
  cordon_expansion d = CORDON_EXPANSION_INIT;
  d.network = !net_before && cordon_profile_network(p) == CORDON_NETWORK_ENABLED;
  for (size_t i = before; bs == CORDON_BOUNDARY_OK && i < cordon_profile_entry_count(p); i++) {
    const cordon_profile_entry *e = cordon_profile_entry_at(p, i);
    bs = cordon_expansion_add(&d, e->path, e->access, e->match);
  }
  if (bs == CORDON_BOUNDARY_OK) bs = cordon_expansion_encode(&d, delta);
  cordon_expansion_free(&d);
  if (bs == CORDON_BOUNDARY_NOMEM) return CORDON_SESSION_NOMEM;
  if (bs != CORDON_BOUNDARY_OK) {
    cordon_buf_printf(err, "cannot record the change: %s", cordon_boundary_status_name(bs));
    return CORDON_SESSION_INVALID;
  }
  return CORDON_SESSION_OK;
}

/* An upper bound on the JSON an expansion adds to a boundary: each entry's path (at most doubled by
 * escaping) plus its keys, and the network field. */
static size_t growth_bound(const cordon_expansion *x) {
  size_t n = x->network ? 32 : 0;
  for (size_t i = 0; i < x->count; i++) n += 2 * strlen(x->entries[i].path) + 64;
  return n;
}

cordon_session_status cordon_session_request(cordon_session_store *s, const char *id, const cordon_expansion *x,
                                             const char *justification, cordon_request_result *out, cordon_buf *err) {
  if (!text_ok(justification, "justification", true, err)) return CORDON_SESSION_INVALID;
  cordon_buf xjson = CORDON_BUF_INIT;
  cordon_boundary_status bs = cordon_expansion_encode(x, &xjson);
  if (bs == CORDON_BOUNDARY_OK && x->count == 0 && !x->network) bs = CORDON_BOUNDARY_EMPTY_EXPANSION;
  if (bs != CORDON_BOUNDARY_OK) {
    cordon_buf_free(&xjson);
    cordon_buf_printf(err, "cannot store the expansion: %s", cordon_boundary_status_name(bs));
    return bs == CORDON_BOUNDARY_NOMEM ? CORDON_SESSION_NOMEM : CORDON_SESSION_INVALID;
  }
  char full[CORDON_SESSION_ID_LEN + 1];
  cordon_session_status st = resolve_id(s, id, full, err);
  /* The preview and the size check read the boundary outside the write lock (WAL readers do not block
   * writers); settle assesses again under the lock, against whatever is current then. */
  cordon_boundary *b = NULL;
  size_t json_len = 0;
  if (st == CORDON_SESSION_OK) st = read_current(s, full, &b, NULL, &json_len, err);
  if (st == CORDON_SESSION_OK) {
    bs = cordon_boundary_assess(b, x, &out->preview);
    if (bs != CORDON_BOUNDARY_OK) {
      cordon_buf_printf(err, "cannot assess the expansion: %s", cordon_boundary_status_name(bs));
      st = bs == CORDON_BOUNDARY_NOMEM ? CORDON_SESSION_NOMEM : CORDON_SESSION_INVALID;
    } else if (out->preview.outcome != CORDON_ASSESS_CONFLICT && cordon_session_guarded(s, x, &out->preview)) {
      /* a conflict beyond the boundary: nothing grows, so the size check has nothing to say */
    } else if (out->preview.outcome == CORDON_ASSESS_APPLY && json_len + growth_bound(x) > CORDON_BOUNDARY_JSON_MAX) {
      cordon_buf_printf(err, "session %s: the boundary is %zu bytes of JSON and this expansion could take it past the %u kept",
                        full, json_len, CORDON_BOUNDARY_JSON_MAX);
      st = CORDON_SESSION_TOO_LARGE;
    }
  }
  if (st == CORDON_SESSION_OK) st = cordon_session_begin(s, err);
  if (st != CORDON_SESSION_OK) {
    cordon_buf_free(&xjson);
    return st;
  }
  sqlite3_stmt *q;
  int64_t base = -1;
  if ((q = prepare(s, "SELECT revision FROM sessions WHERE id = ? AND removed_at IS NULL"))) {
    sqlite3_bind_text(q, 1, full, -1, SQLITE_TRANSIENT);
    if (sqlite3_step(q) == SQLITE_ROW) base = sqlite3_column_int64(q, 0);
    release(s, q);
  }
  int64_t seq = next_seq(s, full);
  if (base < 0 || seq < 0) {
    st = base < 0 && seq >= 0 ? CORDON_SESSION_NOT_FOUND : db_fail(s, err, "cannot read the session");
    if (st == CORDON_SESSION_NOT_FOUND) cordon_buf_printf(err, "no session %s", full);
  } else {
    out->request = seq;
    out->base_revision = (uint64_t)base;
    if (run(s,
            "INSERT INTO log (session, seq, event, created_at, revision, body, justification) VALUES (?,?,'request',?,?,?,?)",
            "tiiitt", full, seq, (int64_t)time(NULL), base, cordon_buf_str(&xjson), justification) != SQLITE_OK)
      st = db_fail(s, err, "cannot store the request");
  }
  cordon_buf_free(&xjson);
  return finish(s, st, err, "cannot store the request");
}

static const char *settle_state(const char *outcome) {
  static const char *const states[] = {"approved", "denied", "conflict", "noop"};
  for (size_t i = 0; outcome && i < sizeof states / sizeof *states; i++)
    if (strcmp(states[i], outcome) == 0) return states[i];
  return "corrupt";
}

/* Looks at request `req` of `full`: its expansion (decoded into x) and any settlement (into out). */
static cordon_session_status read_request(cordon_session_store *s, const char *full, int64_t req, cordon_expansion *x,
                                          cordon_settle_result *out, cordon_buf *err) {
  sqlite3_stmt *q;
  if (!(q = prepare(s, "SELECT r.body, t.outcome, t.revision, t.detail FROM log r LEFT JOIN log t ON t.session = r.session "
                      "AND t.event = 'settle' AND t.request = r.seq WHERE r.session = ? AND r.seq = ? AND r.event = 'request'")))
    return db_fail(s, err, "cannot read the request");
  sqlite3_bind_text(q, 1, full, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(q, 2, req);
  int rc = sqlite3_step(q);
  cordon_session_status st = CORDON_SESSION_OK;
  if (rc == SQLITE_DONE) {
    cordon_buf_printf(err, "session %s has no request %lld", full, (long long)req);
    st = CORDON_SESSION_NOT_FOUND;
  } else if (rc != SQLITE_ROW) {
    st = db_fail(s, err, "cannot read the request");
  } else if (sqlite3_column_type(q, 1) != SQLITE_NULL) {
    out->already = true;
    out->state = settle_state(col_text(q, 1));
    out->revision = (uint64_t)sqlite3_column_int64(q, 2);
    snprintf(out->detail, sizeof out->detail, "%s", col_text(q, 3) ? col_text(q, 3) : "");
  } else {
    cordon_buf why = CORDON_BUF_INIT;
    const char *body = col_text(q, 0);
    cordon_boundary_status bs = cordon_expansion_decode(body ? body : "", body ? (size_t)sqlite3_column_bytes(q, 0) : 0, x, &why);
    if (bs != CORDON_BOUNDARY_OK) {
      cordon_buf_printf(err, "session %s request %lld: %s", full, (long long)req,
                        cordon_buf_str(&why) && *cordon_buf_str(&why) ? cordon_buf_str(&why) : cordon_boundary_status_name(bs));
      st = bs == CORDON_BOUNDARY_NOMEM ? CORDON_SESSION_NOMEM : CORDON_SESSION_CORRUPT;
    }
    cordon_buf_free(&why);
  }
  release(s, q);
  return st;
}

cordon_session_status cordon_session_settle(cordon_session_store *s, const char *id, int64_t request, bool allow,
                                            const char *reason, cordon_settle_result *out, cordon_buf *err) {
  *out = (cordon_settle_result){request, NULL, 0, false, ""};
  if (!text_ok(reason, "reason", false, err)) return CORDON_SESSION_INVALID;
  char full[CORDON_SESSION_ID_LEN + 1];
  cordon_session_status st = resolve_id(s, id, full, err);
  if (st == CORDON_SESSION_OK) st = cordon_session_begin(s, err);
  if (st != CORDON_SESSION_OK) return st;
  /* Everything from here reads and writes under the write lock: the boundary assessed is the current one. */
  cordon_boundary *b = NULL;
  cordon_expansion x = CORDON_EXPANSION_INIT;
  cordon_buf json = CORDON_BUF_INIT;
  size_t size = 0;
  st = read_current(s, full, &b, NULL, &size, err);
  uint64_t base = b ? cordon_boundary_revision(b) : 0;
  if (st == CORDON_SESSION_OK) st = read_request(s, full, request, &x, out, err);
  if (st == CORDON_SESSION_OK && !out->already) {
    uint64_t rev = base;
    cordon_assess_result res = {CORDON_ASSESS_CONFLICT, ""};
    if (!allow) {
      out->state = "denied";
      snprintf(res.reason, sizeof res.reason, "refused by the person settling it");
    } else {
      cordon_buf why = CORDON_BUF_INIT;
      if (!cordon_session_guarded(s, &x, &res)) {
        st = apply_delta(b, &x, &res, &json, &why);
      } else {
        /* the boundary's own conflict, when it has one, is the reason a person reads first */
        cordon_assess_result own;
        if (cordon_boundary_assess(b, &x, &own) == CORDON_BOUNDARY_OK && own.outcome == CORDON_ASSESS_CONFLICT) res = own;
      }
      if (st == CORDON_SESSION_OK && res.outcome == CORDON_ASSESS_APPLY && size + json.len > CORDON_BOUNDARY_JSON_MAX) {
        /* Recorded as a conflict, so the request does not stay pending forever and the session still loads. */
        res.outcome = CORDON_ASSESS_CONFLICT;
        snprintf(res.reason, sizeof res.reason, "the boundary would be over %u bytes of JSON, the most a session keeps",
                 CORDON_BOUNDARY_JSON_MAX);
      } else if (st != CORDON_SESSION_OK) {
        cordon_buf_puts(err, cordon_buf_str(&why) ? cordon_buf_str(&why) : "cannot assess the request");
      }
      cordon_buf_free(&why);
      out->state = res.outcome == CORDON_ASSESS_APPLY ? "approved" : res.outcome == CORDON_ASSESS_NOOP ? "noop" : "conflict";
    }
    out->revision = res.outcome == CORDON_ASSESS_APPLY && allow ? rev + 1 : rev;
    snprintf(out->detail, sizeof out->detail, "%s", res.reason);
    int64_t seq = st == CORDON_SESSION_OK ? next_seq(s, full) : -1;
    if (st == CORDON_SESSION_OK && seq < 0) st = db_fail(s, err, "cannot read the session log");
    int64_t now = (int64_t)time(NULL);
    if (st == CORDON_SESSION_OK &&
        run(s,
            "INSERT INTO log (session, seq, event, created_at, revision, request, outcome, body, reason, detail) "
            "VALUES (?,?,'settle',?,?,?,?,?,?,?)",
            "tiiiitttt", full, seq, now, (int64_t)out->revision, request, out->state,
            strcmp(out->state, "approved") == 0 ? cordon_buf_str(&json) : NULL, reason, out->detail) != SQLITE_OK)
      st = db_fail(s, err, "cannot store the settlement");
    if (st == CORDON_SESSION_OK && strcmp(out->state, "approved") == 0 &&
        run(s, "UPDATE sessions SET revision = ?, updated_at = ? WHERE id = ?", "iit", (int64_t)out->revision, now, full) != SQLITE_OK)
      st = db_fail(s, err, "cannot store the new revision");
  }
  cordon_expansion_free(&x);
  st = finish(s, st, err, "cannot store the settlement");
  /* The store's boundary took the change in place: it stays only as what was stored (a change the
   * size cap turned into a conflict, or one whose transaction failed, is forgotten with it). */
  bool applied = st == CORDON_SESSION_OK && !out->already && strcmp(out->state, "approved") == 0;
  if (b && (st != CORDON_SESSION_OK || cordon_boundary_revision(b) != base + applied)) drop_cache(s);
  else if (applied) s->cache_size += json.len;
  cordon_buf_free(&json);
  return st;
}

cordon_session_status cordon_session_set_kind(cordon_session_store *s, const char *id, cordon_boundary_kind kind,
                                              uint64_t *revision, cordon_buf *err) {
  if (kind != CORDON_BOUNDARY_MANAGED && kind != CORDON_BOUNDARY_BYPASS) {
    cordon_buf_puts(err, "a session's kind is switched to managed or bypass");
    return CORDON_SESSION_INVALID;
  }
  char full[CORDON_SESSION_ID_LEN + 1];
  cordon_session_status st = resolve_id(s, id, full, err);
  /* Back to managed narrows the session: this commit waits for the disk, so that no power cut can undo
   * it and leave the session in bypass (losing any other commit only loses a grant: docs/model.md). */
  bool narrows = kind == CORDON_BOUNDARY_MANAGED;
  if (st == CORDON_SESSION_OK && narrows && run(s, "PRAGMA synchronous = FULL", "") != SQLITE_OK)
    st = db_fail(s, err, "cannot store the kind change");
  if (st == CORDON_SESSION_OK) st = cordon_session_begin(s, err);
  if (st != CORDON_SESSION_OK) {
    if (narrows) run(s, "PRAGMA synchronous = NORMAL", "");
    return st;
  }
  cordon_boundary *b = NULL;
  cordon_session_info info;
  st = read_current(s, full, &b, &info, NULL, err);
  const char *want = cordon_boundary_kind_name(kind);
  if (st == CORDON_SESSION_OK) {
    if (strcmp(info.kind, "external") == 0) {
      cordon_buf_printf(err, "session %s is external: its isolation comes from the environment, and cordon cannot switch it", full);
      st = CORDON_SESSION_REFUSED;
    } else if (strcmp(info.kind, want) == 0) {
      cordon_buf_printf(err, "session %s is already %s", full, want);
      st = CORDON_SESSION_REFUSED;
    } else if (kind == CORDON_BOUNDARY_MANAGED && cordon_boundary_kind_of(b) != CORDON_BOUNDARY_MANAGED) {
      cordon_buf_printf(err, "session %s has a profile that restricts nothing; start a new session to be managed", full);
      st = CORDON_SESSION_REFUSED;
    }
  }
  if (st == CORDON_SESSION_OK && cordon_boundary_revision(b) >= (uint64_t)INT64_MAX) {
    cordon_buf_puts(err, "the revision cannot grow any further");
    st = CORDON_SESSION_REFUSED;
  }
  int64_t seq = st == CORDON_SESSION_OK ? next_seq(s, full) : -1;
  if (st == CORDON_SESSION_OK && seq < 0) st = db_fail(s, err, "cannot read the session log");
  int64_t now = (int64_t)time(NULL), rev = st == CORDON_SESSION_OK ? (int64_t)cordon_boundary_revision(b) + 1 : 0;
  if (st == CORDON_SESSION_OK &&
      (run(s, "INSERT INTO log (session, seq, event, created_at, revision, outcome) VALUES (?,?,'kind',?,?,?)", "tiiit", full, seq,
           now, rev, want) != SQLITE_OK ||
       run(s, "UPDATE sessions SET revision = ?, kind = ?, updated_at = ? WHERE id = ?", "itit", rev, want, now, full) !=
           SQLITE_OK))
    st = db_fail(s, err, "cannot store the kind change");
  if (st == CORDON_SESSION_OK && revision) *revision = (uint64_t)rev;
  st = finish(s, st, err, "cannot store the kind change");
  if (narrows) run(s, "PRAGMA synchronous = NORMAL", "");
  return st;
}

cordon_session_status cordon_session_remove(cordon_session_store *s, const char *id, cordon_buf *err) {
  char full[CORDON_SESSION_ID_LEN + 1];
  cordon_session_status st = resolve_id(s, id, full, err);
  if (st == CORDON_SESSION_OK) st = cordon_session_begin(s, err);
  if (st != CORDON_SESSION_OK) return st;
  /* Marked first: the triggers let a log go only with its session, and a marked session never comes back. */
  if (run(s, "UPDATE sessions SET removed_at = ? WHERE id = ? AND removed_at IS NULL", "it", (int64_t)time(NULL), full) != SQLITE_OK ||
      run(s, "DELETE FROM log WHERE session = ?", "t", full) != SQLITE_OK ||
      run(s, "DELETE FROM sessions WHERE id = ?", "t", full) != SQLITE_OK)
    st = db_fail(s, err, "cannot remove the session");
  return finish(s, st, err, "cannot remove the session");
}

cordon_session_status cordon_session_log(cordon_session_store *s, const char *id, int64_t since, int64_t limit,
                                         bool pending_only, void (*fn)(const cordon_session_event *, void *), void *ud,
                                         cordon_buf *err) {
  char full[CORDON_SESSION_ID_LEN + 1];
  cordon_session_status st = resolve_id(s, id, full, err);
  if (st != CORDON_SESSION_OK) return st;
  sqlite3_stmt *q;
  if (!(q = prepare(s, "SELECT l.seq, l.event, l.created_at, l.revision, l.request, "
                         "  CASE l.event WHEN 'request' THEN COALESCE(t.outcome, 'pending') ELSE l.outcome END, "
                         "  CASE l.event WHEN 'request' THEN l.body END, l.justification, COALESCE(l.reason, t.reason), "
                         "  COALESCE(l.detail, t.detail), t.created_at, t.revision "
                         "FROM log l LEFT JOIN log t ON l.event = 'request' AND t.session = l.session AND t.event = 'settle' "
                         "  AND t.request = l.seq "
                         "WHERE l.session = ? AND l.seq > ? AND (? = 0 OR (l.event = 'request' AND t.outcome IS NULL)) "
                         "ORDER BY l.seq LIMIT ?")))
    return db_fail(s, err, "cannot read the session log");
  sqlite3_bind_text(q, 1, full, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(q, 2, since);
  sqlite3_bind_int(q, 3, pending_only ? 1 : 0);
  sqlite3_bind_int64(q, 4, limit > 0 ? limit : -1);
  int rc;
  while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
    cordon_session_event e = {sqlite3_column_int64(q, 0),
                              col_text(q, 1),
                              sqlite3_column_int64(q, 2),
                              (uint64_t)sqlite3_column_int64(q, 3),
                              sqlite3_column_type(q, 4) == SQLITE_NULL ? -1 : sqlite3_column_int64(q, 4),
                              col_text(q, 5),
                              col_text(q, 6),
                              col_text(q, 7),
                              col_text(q, 8),
                              col_text(q, 9),
                              sqlite3_column_type(q, 10) == SQLITE_NULL ? -1 : sqlite3_column_int64(q, 10),
                              sqlite3_column_type(q, 11) == SQLITE_NULL ? -1 : sqlite3_column_int64(q, 11)};
    fn(&e, ud);
  }
  release(s, q);
  return rc == SQLITE_DONE ? CORDON_SESSION_OK : db_fail(s, err, "cannot read the session log");
}
