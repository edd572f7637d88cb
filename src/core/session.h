/* src/core/session.h — sessions: execution boundaries kept across commands, in one SQLite file.
 *
 * Each session stores its current boundary (the JSON of boundary_json.c) and every revision it went
 * through. A save must carry exactly the next revision: revisions never go down, and two writers racing
 * on one session cannot both win (the loser gets CORDON_SESSION_STALE). The database enforces the rule
 * a second time with a trigger, so an edited file cannot lower a revision either. */
#ifndef CORDON_SESSION_H
#define CORDON_SESSION_H
#include "core/boundary.h"
#include "core/buf.h"

#include <stdint.h>

#define CORDON_SESSION_ID_LEN 16  /* hex characters */

typedef enum {
  CORDON_SESSION_OK = 0,
  CORDON_SESSION_NOMEM,
  CORDON_SESSION_IO_ERROR,   /* the database could not be opened, read or written (message says why) */
  CORDON_SESSION_NOT_FOUND,  /* no session with that id (or prefix) */
  CORDON_SESSION_AMBIGUOUS,  /* the prefix names more than one session */
  CORDON_SESSION_STALE,      /* the save is not exactly the stored revision + 1 */
  CORDON_SESSION_CORRUPT,    /* a stored boundary does not decode, or disagrees with its row */
  CORDON_SESSION_INVALID,    /* a bad argument: an id with characters other than [0-9a-f], … */
} cordon_session_status;

/* "ok", "nomem", "io_error", "not_found", "ambiguous", "stale", "corrupt", "invalid". */
const char *cordon_session_status_name(cordon_session_status s);

typedef struct cordon_session_store cordon_session_store;

/* Opens (creating when missing, with its parent directories, mode 0700) the database at `path`. */
cordon_session_status cordon_session_open(const char *path, cordon_session_store **out, cordon_buf *err);
void cordon_session_close(cordon_session_store *s);

/* Stores a new session whose boundary must be at revision 0; writes its id (NUL-terminated) to `id`. */
cordon_session_status cordon_session_create(cordon_session_store *s, const cordon_boundary *b, const char *workdir,
                                            char id[CORDON_SESSION_ID_LEN + 1], cordon_buf *err);

/* Loads the current boundary of the session named by `id` (a unique prefix of at least 4 characters
 * is enough); `full_id` (may be NULL) receives the whole id. */
cordon_session_status cordon_session_load(cordon_session_store *s, const char *id, cordon_boundary **out,
                                          char full_id[CORDON_SESSION_ID_LEN + 1], cordon_buf *err);

/* Replaces the session's boundary with `b`, which must be at exactly the stored revision + 1; `reason`
 * (may be NULL) is kept with the revision in the history. */
cordon_session_status cordon_session_save(cordon_session_store *s, const char *id, const cordon_boundary *b,
                                          const char *reason, cordon_buf *err);

typedef struct {
  const char *id;
  int64_t created_at, updated_at;  /* seconds since the epoch */
  const char *workdir;             /* may be NULL */
  const char *mode;                /* may be NULL */
  uint64_t revision;
} cordon_session_info;

/* Calls `fn` for each session, most recently updated first. */
cordon_session_status cordon_session_list(cordon_session_store *s, void (*fn)(const cordon_session_info *, void *),
                                          void *ud, cordon_buf *err);

/* Metadata of one session, by id or unique prefix (strings valid until the next call on the store). */
cordon_session_status cordon_session_info_of(cordon_session_store *s, const char *id, cordon_session_info *out,
                                             cordon_buf *err);

typedef struct {
  uint64_t revision;
  int64_t created_at;
  const char *reason;    /* NULL for genesis */
  const char *boundary;  /* the JSON stored for that revision */
} cordon_session_revision;

/* Calls `fn` for each stored revision of a session (id or unique prefix), oldest first. */
cordon_session_status cordon_session_history(cordon_session_store *s, const char *id,
                                             void (*fn)(const cordon_session_revision *, void *), void *ud,
                                             cordon_buf *err);
#endif
