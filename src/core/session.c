/* src/core/session.c — the session store's operations (see session.h): create, load, request, settle,
 * set_kind, remove, and reading the log. Opening and the schema are in session_db.c. */
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
  if (run(s->db, "INSERT INTO sessions (id, created_at, updated_at, workdir, mode, kind, revision, boundary) VALUES (?,?,?,?,?,?,0,?)",
          "tiitttt", id, now, now, workdir, cordon_boundary_mode(b), kind, cordon_buf_str(&json)) != SQLITE_OK ||
      run(s->db, "INSERT INTO log (session, seq, event, created_at, revision, body) VALUES (?,0,'genesis',?,0,?)", "tit", id, now,
          cordon_buf_str(&json)) != SQLITE_OK ||
      run(s->db, "COMMIT", "") != SQLITE_OK) {
    st = db_fail(s, err, "cannot store the new session");
    run(s->db, "ROLLBACK", "");
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
  if (sqlite3_prepare_v2(s->db, "SELECT id FROM sessions WHERE substr(id, 1, ?) = ? AND removed_at IS NULL LIMIT 2", -1, &q,
                         NULL) != SQLITE_OK)
    return db_fail(s, err, "cannot look up the session");
  sqlite3_bind_int64(q, 1, (sqlite3_int64)n);
  sqlite3_bind_text(q, 2, id, -1, SQLITE_TRANSIENT);
  int found = 0, rc;
  while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
    if (found++ == 0) snprintf(full, CORDON_SESSION_ID_LEN + 1, "%s", col_text(q, 0));
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

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

#define INFO_COLUMNS                                                                                                  \
  "id, created_at, updated_at, workdir, mode, kind, revision, boundary, (SELECT count(*) FROM log r WHERE "       \
  "r.session = sessions.id AND r.event = 'request' AND NOT EXISTS (SELECT 1 FROM log t WHERE t.session = r.session " \
  "AND t.event = 'settle' AND t.request = r.seq))"

static cordon_session_info info_row(sqlite3_stmt *q) {
  return (cordon_session_info){col_text(q, 0), sqlite3_column_int64(q, 1), sqlite3_column_int64(q, 2), col_text(q, 3),
                               col_text(q, 4), col_text(q, 5), (uint64_t)sqlite3_column_int64(q, 6),
                               sqlite3_column_int64(q, 8)};
}

/* Decodes the current row at `q` and checks it against its columns: a row that does not agree with
 * itself is damage, and never loaded as a boundary. */
static cordon_session_status decode_current(cordon_session_store *s, sqlite3_stmt *q, cordon_boundary **out, cordon_buf *err) {
  const char *json = col_text(q, 7), *id = col_text(q, 0), *kind = col_text(q, 5);
  int64_t rev = sqlite3_column_int64(q, 6);
  cordon_buf why = CORDON_BUF_INIT;
  cordon_boundary_status bs = cordon_boundary_decode(json ? json : "", json ? (size_t)sqlite3_column_bytes(q, 7) : 0, out, &why);
  cordon_session_status st = CORDON_SESSION_OK;
  if (bs == CORDON_BOUNDARY_NOMEM) st = CORDON_SESSION_NOMEM;
  else if (bs != CORDON_BOUNDARY_OK) {
    cordon_buf_printf(err, "session %s: stored boundary is invalid: %s", id, cordon_buf_str(&why) ? cordon_buf_str(&why) : "");
    st = CORDON_SESSION_CORRUPT;
  } else if ((int64_t)cordon_boundary_revision(*out) != rev) {
    cordon_buf_printf(err, "session %s: stored boundary says revision %llu but the row says %lld", id,
                      (unsigned long long)cordon_boundary_revision(*out), (long long)rev);
    st = CORDON_SESSION_CORRUPT;
  } else {
    /* The session's kind is its profile's, or bypass over a managed profile (a person's switch). */
    const char *implied = cordon_boundary_kind_name(cordon_boundary_kind_of(*out));
    if (!kind || (strcmp(kind, implied) != 0 && !(strcmp(kind, "bypass") == 0 && strcmp(implied, "managed") == 0))) {
      cordon_buf_printf(err, "session %s: kind %s does not go with its %s boundary", id, kind ? kind : "NULL", implied);
      st = CORDON_SESSION_CORRUPT;
    }
  }
  if (st != CORDON_SESSION_OK) {
    cordon_boundary_free(*out);
    *out = NULL;
  }
  cordon_buf_free(&why);
  return st;
}

/* Reads the current row of `full` (inside or outside a transaction); fills info and/or the boundary. */
static cordon_session_status read_current(cordon_session_store *s, const char *full, cordon_boundary **out,
                                          cordon_session_info *info, cordon_buf *err) {
  sqlite3_stmt *q;
  if (sqlite3_prepare_v2(s->db, "SELECT " INFO_COLUMNS " FROM sessions WHERE id = ? AND removed_at IS NULL", -1, &q, NULL) !=
      SQLITE_OK)
    return db_fail(s, err, "cannot read the session");
  sqlite3_bind_text(q, 1, full, -1, SQLITE_TRANSIENT);
  int rc = sqlite3_step(q);
  cordon_session_status st = CORDON_SESSION_OK;
  if (rc == SQLITE_DONE) {
    cordon_buf_printf(err, "no session %s", full);
    st = CORDON_SESSION_NOT_FOUND;
  } else if (rc != SQLITE_ROW) {
    st = db_fail(s, err, "cannot read the session");
  } else {
    cordon_boundary *b = NULL;
    st = decode_current(s, q, &b, err);
    if (st == CORDON_SESSION_OK && info) {
      free(s->info_id);
      free(s->info_workdir);
      free(s->info_mode);
      free(s->info_kind);
      s->info_id = dup_or_null(col_text(q, 0));
      s->info_workdir = dup_or_null(col_text(q, 3));
      s->info_mode = dup_or_null(col_text(q, 4));
      s->info_kind = dup_or_null(col_text(q, 5));
      *info = info_row(q);
      info->id = s->info_id;
      info->workdir = s->info_workdir;
      info->mode = s->info_mode;
      info->kind = s->info_kind;
      if (!s->info_id || !s->info_kind || (col_text(q, 3) && !s->info_workdir) || (col_text(q, 4) && !s->info_mode))
        st = CORDON_SESSION_NOMEM;
    }
    if (st == CORDON_SESSION_OK && out) *out = b;
    else cordon_boundary_free(b);
  }
  sqlite3_finalize(q);
  return st;
}

cordon_session_status cordon_session_load(cordon_session_store *s, const char *id, cordon_boundary **out,
                                          cordon_session_info *info, cordon_buf *err) {
  if (out) *out = NULL;
  char full[CORDON_SESSION_ID_LEN + 1];
  cordon_session_status st = resolve_id(s, id, full, err);
  return st == CORDON_SESSION_OK ? read_current(s, full, out, info, err) : st;
}

cordon_session_status cordon_session_list(cordon_session_store *s, void (*fn)(const cordon_session_info *, void *),
                                          void *ud, cordon_buf *err) {
  sqlite3_stmt *q;
  if (sqlite3_prepare_v2(s->db, "SELECT " INFO_COLUMNS " FROM sessions WHERE removed_at IS NULL ORDER BY updated_at DESC, id", -1,
                         &q, NULL) != SQLITE_OK)
    return db_fail(s, err, "cannot list sessions");
  int rc;
  while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
    cordon_session_info info = info_row(q);
    fn(&info, ud);
  }
  sqlite3_finalize(q);
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
  if (sqlite3_prepare_v2(s->db, "SELECT COALESCE(MAX(seq) + 1, 0) FROM log WHERE session = ?", -1, &q, NULL) != SQLITE_OK) return -1;
  sqlite3_bind_text(q, 1, full, -1, SQLITE_TRANSIENT);
  if (sqlite3_step(q) == SQLITE_ROW) v = sqlite3_column_int64(q, 0);
  sqlite3_finalize(q);
  return v;
}

/* Ends a write transaction: COMMIT when st is OK (a failing COMMIT turns into the error), else ROLLBACK. */
static cordon_session_status finish(cordon_session_store *s, cordon_session_status st, cordon_buf *err, const char *what) {
  if (st == CORDON_SESSION_OK && run(s->db, "COMMIT", "") != SQLITE_OK) st = db_fail(s, err, what);
  if (st != CORDON_SESSION_OK) run(s->db, "ROLLBACK", "");
  return st;
}

/* What applying `x` to `b` makes, as JSON; a boundary past the cap is refused here, before it is stored. */
static cordon_session_status trial_apply(const cordon_boundary *b, const cordon_expansion *x, cordon_assess_result *res,
                                         cordon_buf *json, cordon_buf *err) {
  cordon_boundary *next = cordon_boundary_copy(b);
  if (!next) return CORDON_SESSION_NOMEM;
  cordon_boundary_status bs = cordon_boundary_apply(next, x, res);
  cordon_session_status st = CORDON_SESSION_OK;
  if (bs == CORDON_BOUNDARY_CONFLICT) bs = CORDON_BOUNDARY_OK;  /* the outcome says so; nothing to encode */
  if (bs == CORDON_BOUNDARY_NOMEM) st = CORDON_SESSION_NOMEM;
  else if (bs != CORDON_BOUNDARY_OK) {
    cordon_buf_printf(err, "cannot assess the expansion: %s", cordon_boundary_status_name(bs));
    st = CORDON_SESSION_INVALID;
  } else if (res->outcome == CORDON_ASSESS_APPLY) {
    st = encode_boundary(next, json, err);
  }
  cordon_boundary_free(next);
  return st;
}

cordon_session_status cordon_session_request(cordon_session_store *s, const char *id, const cordon_expansion *x,
                                             const char *justification, cordon_request_result *out, cordon_buf *err) {
  if (!text_ok(justification, "justification", true, err)) return CORDON_SESSION_INVALID;
  cordon_buf xjson = CORDON_BUF_INIT, bjson = CORDON_BUF_INIT;
  cordon_boundary_status bs = cordon_expansion_encode(x, &xjson);
  if (bs != CORDON_BOUNDARY_OK) {
    cordon_buf_free(&xjson);
    cordon_buf_printf(err, "cannot store the expansion: %s", cordon_boundary_status_name(bs));
    return bs == CORDON_BOUNDARY_NOMEM ? CORDON_SESSION_NOMEM : CORDON_SESSION_INVALID;
  }
  char full[CORDON_SESSION_ID_LEN + 1];
  cordon_session_status st = resolve_id(s, id, full, err);
  if (st == CORDON_SESSION_OK) st = cordon_session_begin(s, err);
  if (st != CORDON_SESSION_OK) {
    cordon_buf_free(&xjson);
    return st;
  }
  cordon_boundary *b = NULL;
  st = read_current(s, full, &b, NULL, err);
  if (st == CORDON_SESSION_OK) st = trial_apply(b, x, &out->preview, &bjson, err);
  int64_t seq = st == CORDON_SESSION_OK ? next_seq(s, full) : -1;
  if (st == CORDON_SESSION_OK && seq < 0) st = db_fail(s, err, "cannot read the session log");
  if (st == CORDON_SESSION_OK) {
    out->request = seq;
    out->base_revision = cordon_boundary_revision(b);
    if (run(s->db,
            "INSERT INTO log (session, seq, event, created_at, revision, body, justification) VALUES (?,?,'request',?,?,?,?)",
            "tiiitt", full, seq, (int64_t)time(NULL), (int64_t)out->base_revision, cordon_buf_str(&xjson), justification) != SQLITE_OK)
      st = db_fail(s, err, "cannot store the request");
  }
  cordon_boundary_free(b);
  cordon_buf_free(&xjson);
  cordon_buf_free(&bjson);
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
  if (sqlite3_prepare_v2(s->db,
                         "SELECT r.body, t.outcome, t.revision, t.detail FROM log r LEFT JOIN log t ON t.session = r.session "
                         "AND t.event = 'settle' AND t.request = r.seq WHERE r.session = ? AND r.seq = ? AND r.event = 'request'",
                         -1, &q, NULL) != SQLITE_OK)
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
  sqlite3_finalize(q);
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
  st = read_current(s, full, &b, NULL, err);
  if (st == CORDON_SESSION_OK) st = read_request(s, full, request, &x, out, err);
  if (st == CORDON_SESSION_OK && !out->already) {
    uint64_t rev = cordon_boundary_revision(b);
    cordon_assess_result res = {CORDON_ASSESS_CONFLICT, ""};
    if (!allow) {
      out->state = "denied";
      snprintf(res.reason, sizeof res.reason, "denied");
    } else {
      cordon_buf why = CORDON_BUF_INIT;
      st = trial_apply(b, &x, &res, &json, &why);
      if (st == CORDON_SESSION_TOO_LARGE) {  /* recorded, so the request does not stay pending forever */
        st = CORDON_SESSION_OK;
        res.outcome = CORDON_ASSESS_CONFLICT;
        snprintf(res.reason, sizeof res.reason, "%s", cordon_buf_str(&why) ? cordon_buf_str(&why) : "too large");
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
        run(s->db,
            "INSERT INTO log (session, seq, event, created_at, revision, request, outcome, reason, detail) "
            "VALUES (?,?,'settle',?,?,?,?,?,?)",
            "tiiiittt", full, seq, now, (int64_t)out->revision, request, out->state, reason, out->detail) != SQLITE_OK)
      st = db_fail(s, err, "cannot store the settlement");
    if (st == CORDON_SESSION_OK && strcmp(out->state, "approved") == 0 &&
        run(s->db, "UPDATE sessions SET boundary = ?, revision = ?, updated_at = ? WHERE id = ?", "tiit", cordon_buf_str(&json),
            (int64_t)out->revision, now, full) != SQLITE_OK)
      st = db_fail(s, err, "cannot store the new revision");
  }
  cordon_boundary_free(b);
  cordon_expansion_free(&x);
  cordon_buf_free(&json);
  return finish(s, st, err, "cannot store the settlement");
}

cordon_session_status cordon_session_set_kind(cordon_session_store *s, const char *id, cordon_boundary_kind kind,
                                              uint64_t *revision, cordon_buf *err) {
  if (kind != CORDON_BOUNDARY_MANAGED && kind != CORDON_BOUNDARY_BYPASS) {
    cordon_buf_puts(err, "a session's kind is switched to managed or bypass");
    return CORDON_SESSION_INVALID;
  }
  char full[CORDON_SESSION_ID_LEN + 1];
  cordon_session_status st = resolve_id(s, id, full, err);
  if (st == CORDON_SESSION_OK) st = cordon_session_begin(s, err);
  if (st != CORDON_SESSION_OK) return st;
  cordon_boundary *b = NULL;
  cordon_session_info info;
  cordon_buf json = CORDON_BUF_INIT;
  st = read_current(s, full, &b, &info, err);
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
  if (st == CORDON_SESSION_OK && cordon_boundary_next_revision(b) != CORDON_BOUNDARY_OK) {
    cordon_buf_puts(err, "the revision cannot grow any further");
    st = CORDON_SESSION_REFUSED;
  }
  if (st == CORDON_SESSION_OK) st = encode_boundary(b, &json, err);
  int64_t seq = st == CORDON_SESSION_OK ? next_seq(s, full) : -1;
  if (st == CORDON_SESSION_OK && seq < 0) st = db_fail(s, err, "cannot read the session log");
  int64_t now = (int64_t)time(NULL), rev = st == CORDON_SESSION_OK ? (int64_t)cordon_boundary_revision(b) : 0;
  if (st == CORDON_SESSION_OK &&
      (run(s->db, "INSERT INTO log (session, seq, event, created_at, revision, outcome) VALUES (?,?,'kind',?,?,?)", "tiiit", full, seq,
           now, rev, want) != SQLITE_OK ||
       run(s->db, "UPDATE sessions SET boundary = ?, revision = ?, kind = ?, updated_at = ? WHERE id = ?", "titit",
           cordon_buf_str(&json), rev, want, now, full) != SQLITE_OK))
    st = db_fail(s, err, "cannot store the kind change");
  if (st == CORDON_SESSION_OK && revision) *revision = (uint64_t)rev;
  cordon_boundary_free(b);
  cordon_buf_free(&json);
  return finish(s, st, err, "cannot store the kind change");
}

cordon_session_status cordon_session_remove(cordon_session_store *s, const char *id, cordon_buf *err) {
  char full[CORDON_SESSION_ID_LEN + 1];
  cordon_session_status st = resolve_id(s, id, full, err);
  if (st == CORDON_SESSION_OK) st = cordon_session_begin(s, err);
  if (st != CORDON_SESSION_OK) return st;
  /* Marked first: the triggers let a log go only with its session, and a marked session never comes back. */
  if (run(s->db, "UPDATE sessions SET removed_at = ? WHERE id = ? AND removed_at IS NULL", "it", (int64_t)time(NULL), full) != SQLITE_OK ||
      run(s->db, "DELETE FROM log WHERE session = ?", "t", full) != SQLITE_OK ||
      run(s->db, "DELETE FROM sessions WHERE id = ?", "t", full) != SQLITE_OK)
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
  if (sqlite3_prepare_v2(s->db,
                         "SELECT l.seq, l.event, l.created_at, l.revision, l.request, "
                         "  CASE l.event WHEN 'request' THEN COALESCE(t.outcome, 'pending') ELSE l.outcome END, "
                         "  CASE l.event WHEN 'request' THEN l.body END, l.justification, l.reason, l.detail "
                         "FROM log l LEFT JOIN log t ON l.event = 'request' AND t.session = l.session AND t.event = 'settle' "
                         "  AND t.request = l.seq "
                         "WHERE l.session = ? AND l.seq > ? AND (? = 0 OR (l.event = 'request' AND t.outcome IS NULL)) "
                         "ORDER BY l.seq LIMIT ?",
                         -1, &q, NULL) != SQLITE_OK)
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
                              col_text(q, 9)};
    fn(&e, ud);
  }
  sqlite3_finalize(q);
  return rc == SQLITE_DONE ? CORDON_SESSION_OK : db_fail(s, err, "cannot read the session log");
}
