/* src/core/session.h — sessions: execution boundaries kept across commands, and the approval loop */
#ifndef CORDON_SESSION_H
#define CORDON_SESSION_H
#include "core/boundary.h"
#include "core/buf.h"

#include <stdbool.h>
#include <stdint.h>

#define CORDON_SESSION_ID_LEN 16          /* hex characters */
#define CORDON_SESSION_TEXT_MAX 4096      /* bytes of a justification or a reason */
#define CORDON_SESSION_SCHEMA_VERSION 3   /* PRAGMA user_version; 0 with a `revisions` table is version 1 */

typedef enum {
  CORDON_SESSION_OK = 0,
  CORDON_SESSION_NOMEM,
  CORDON_SESSION_IO_ERROR,   /* the database could not be opened, read or written (message says why) */
  CORDON_SESSION_NOT_FOUND,  /* no session with that id (or prefix), or no such request */
  CORDON_SESSION_AMBIGUOUS,  /* the prefix names more than one session */
  CORDON_SESSION_CORRUPT,    /* empty, truncated, damaged or foreign database, or a stored row that does not decode */
  CORDON_SESSION_INVALID,    /* a bad argument: a malformed id, an invalid expansion, a missing justification */
  CORDON_SESSION_TOO_LARGE,  /* the boundary would exceed CORDON_BOUNDARY_JSON_MAX */
  CORDON_SESSION_REFUSED,    /* the change is not allowed: an external session's kind, a kind already set */
  CORDON_SESSION_BUSY,       /* other writers held the database for longer than the store waits (30 s) */
} cordon_session_status;

/* "ok", "nomem", "io_error", "not_found", "ambiguous", "corrupt", "invalid", "too_large", "refused", "busy". */
const char *cordon_session_status_name(cordon_session_status s);

typedef struct cordon_session_store cordon_session_store;

/* Opens the database at `path`. A missing file is created (parents mode 0700) complete with its schema,
 * atomically: it appears under its name only once it is whole. An existing file must be a cordon
 * session database that passes PRAGMA quick_check: a 0-byte, truncated, damaged or foreign file is
 * CORDON_SESSION_CORRUPT, never replaced. A version 1 or 2 database is migrated in one transaction. */
cordon_session_status cordon_session_open(const char *path, cordon_session_store **out, cordon_buf *err);
void cordon_session_close(cordon_session_store *s);

/* Stores a new session whose boundary must be at revision 0; writes its id (NUL-terminated) to `id`. */
cordon_session_status cordon_session_create(cordon_session_store *s, const cordon_boundary *b, const char *workdir,
                                            char id[CORDON_SESSION_ID_LEN + 1], cordon_buf *err);

typedef struct {
  const char *id;
  int64_t created_at, updated_at;  /* seconds since the epoch */
  const char *workdir;             /* may be NULL */
  const char *mode;                /* may be NULL */
  const char *kind;                /* the session's kind: "managed", "bypass" (a person switched it) or "external" */
  uint64_t revision;
  int64_t pending;                 /* requests not settled yet */
} cordon_session_info;

/* The current boundary of the session named by `id` (a unique prefix of at least 4 characters is
 * enough); `info` (may be NULL) receives its metadata (strings valid until the next call on the store). */
cordon_session_status cordon_session_load(cordon_session_store *s, const char *id, cordon_boundary **out,
                                          cordon_session_info *info, cordon_buf *err);

/* Calls `fn` for each session, most recently changed first. */
cordon_session_status cordon_session_list(cordon_session_store *s, void (*fn)(const cordon_session_info *, void *),
                                          void *ud, cordon_buf *err);

typedef struct {
  int64_t request;          /* the request's number in its session's log */
  uint64_t base_revision;   /* the revision it was asked against */
  cordon_assess_result preview;  /* its assessment against that revision (settle assesses again) */
} cordon_request_result;

/* Records a pending request for `x` with a justification (1 to CORDON_SESSION_TEXT_MAX bytes). The
 * expansion is validated and the boundary it would make is size-checked before anything is stored. */
cordon_session_status cordon_session_request(cordon_session_store *s, const char *id, const cordon_expansion *x,
                                             const char *justification, cordon_request_result *out, cordon_buf *err);

typedef struct {
  int64_t request;
  const char *state;   /* "approved" (applied), "noop" (approved, already covered), "denied", "conflict" */
  uint64_t revision;   /* the session's revision once settled (approved: the new one) */
  bool already;        /* it had been settled before: this call changed nothing */
  char detail[512];    /* the assessment's line (what was granted, or what it conflicts with) */
} cordon_settle_result;

/* Settles request `request` in one write transaction. Deny records it denied. Allow assesses it
 * against the CURRENT boundary (whatever was approved since it was asked): conflict is recorded with
 * its reason, noop approves without a new revision, apply stores revision + 1. Settling a settled
 * request returns its settlement with `already` set. Writers queue (BEGIN IMMEDIATE); contention alone
 * never fails a settle before the 30 s wait is over. `reason` (may be NULL) is the person's. */
cordon_session_status cordon_session_settle(cordon_session_store *s, const char *id, int64_t request, bool allow,
                                            const char *reason, cordon_settle_result *out, cordon_buf *err);

/* A person's kind change, managed <-> bypass, stored as revision + 1 (`revision` receives it). An
 * external session cannot switch; a profile that restricts nothing cannot become managed. */
cordon_session_status cordon_session_set_kind(cordon_session_store *s, const char *id, cordon_boundary_kind kind,
                                              uint64_t *revision, cordon_buf *err);

/* The store's guard: paths no request or settle may open for writing, whatever the boundary says (the
 * final denies every policy ends with, which the boundary does not hold). The caller decides them
 * (cordon.session: cordon's own directories and the workdir's git entries); a write at or under a
 * subpath, on a literal, or matched by an SBPL regex is assessed conflict with `why` in its reason. */
typedef enum { CORDON_GUARD_LITERAL, CORDON_GUARD_SUBPATH, CORDON_GUARD_REGEX } cordon_session_guard_kind;
void cordon_session_guard_clear(cordon_session_store *s);
cordon_session_status cordon_session_guard_add(cordon_session_store *s, cordon_session_guard_kind kind, const char *path,
                                               const char *why, cordon_buf *err);

/* Removes a session and its whole log. */
cordon_session_status cordon_session_remove(cordon_session_store *s, const char *id, cordon_buf *err);

typedef struct {
  int64_t seq;
  const char *event;          /* "genesis", "import" (from schema 1), "request", "settle", "kind" */
  int64_t created_at;
  uint64_t revision;          /* genesis/import/kind: the revision it made; request: its base; settle: the result */
  int64_t request;            /* settle: the request it settles; else -1 */
  const char *state;          /* request: pending|approved|noop|denied|conflict; settle: its outcome; kind: the kind */
  const char *expansion;      /* request: the expansion's JSON; else NULL */
  const char *justification;  /* request; else NULL */
  const char *reason;         /* settle, and a settled request: the person's reason (may be NULL) */
  const char *detail;         /* settle, and a settled request: the assessment; import: schema 1's reason */
  int64_t settled_at;         /* a settled request: when; else -1 */
  int64_t result_revision;    /* a settled request: the session's revision once settled; else -1 */
} cordon_session_event;

/* Calls `fn` for the events after `since` (a seq; -1 for all), oldest first, at most `limit` of them
 * (0: no limit). With `pending_only`, only requests not settled yet. */
cordon_session_status cordon_session_log(cordon_session_store *s, const char *id, int64_t since, int64_t limit,
                                         bool pending_only, void (*fn)(const cordon_session_event *, void *), void *ud,
                                         cordon_buf *err);
#endif
