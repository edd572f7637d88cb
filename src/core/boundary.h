/* src/core/boundary.h — the execution boundary: what a session may currently do, and how it grows */
#ifndef CORDON_BOUNDARY_H
#define CORDON_BOUNDARY_H
#include "core/buf.h"
#include "core/profile.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CORDON_EXPANSION_MAX_ENTRIES 32
#define CORDON_EXPANSION_MAX_PATH 4096     /* bytes per path, without the NUL */
#define CORDON_EXPANSION_MAX_BYTES 32768   /* all paths of one expansion together */
#define CORDON_BOUNDARY_JSON_MAX (1u << 20)  /* a stored boundary larger than 1 MiB is refused */
#define CORDON_BOUNDARY_MAX_ROOTS 64

typedef enum {
  CORDON_BOUNDARY_OK = 0,
  CORDON_BOUNDARY_NOMEM,
  CORDON_BOUNDARY_INVALID_PATH,      /* not absolute, not normalized, or with a control byte or ".." */
  CORDON_BOUNDARY_PATH_TOO_LONG,     /* over CORDON_EXPANSION_MAX_PATH */
  CORDON_BOUNDARY_TOO_MANY_ENTRIES,  /* over CORDON_EXPANSION_MAX_ENTRIES */
  CORDON_BOUNDARY_TOO_LARGE,         /* over CORDON_EXPANSION_MAX_BYTES, or JSON over CORDON_BOUNDARY_JSON_MAX */
  CORDON_BOUNDARY_INVALID_ACCESS,    /* an expansion grants read or write; deny is not additive */
  CORDON_BOUNDARY_EMPTY_EXPANSION,   /* nothing asked for */
  CORDON_BOUNDARY_INVALID_CONTEXT,   /* a context path that is not a normalized absolute path */
  CORDON_BOUNDARY_CONFLICT,          /* apply refused: the assessment was conflict */
  CORDON_BOUNDARY_INVALID_JSON,      /* decode: malformed or not the boundary shape (message says what) */
  CORDON_BOUNDARY_REVISION_OVERFLOW, /* the revision cannot grow any further */
} cordon_boundary_status;

/* "ok", "nomem", "invalid_path", "path_too_long", "too_many_entries", "too_large", "invalid_access",
 * "empty_expansion", "invalid_context", "conflict", "invalid_json", "revision_overflow". */
const char *cordon_boundary_status_name(cordon_boundary_status s);

typedef enum {
  CORDON_BOUNDARY_MANAGED = 0,  /* cordon enforces the profile */
  CORDON_BOUNDARY_BYPASS,       /* nothing is restricted (disabled or fully unrestricted profile) */
  CORDON_BOUNDARY_EXTERNAL,     /* isolation is supplied by the environment; cordon cannot widen it */
} cordon_boundary_kind;
const char *cordon_boundary_kind_name(cordon_boundary_kind k);  /* "managed", "bypass", "external" */
int cordon_boundary_kind_parse(const char *s);                  /* -1 when unknown */

/* ---- expansions ------------------------------------------------------------------------------------ */

typedef struct {
  char *path;                /* normalized absolute, owned */
  cordon_access access;      /* CORDON_ACCESS_READ or CORDON_ACCESS_WRITE */
  cordon_entry_match scope;  /* exact or subtree */
} cordon_expansion_entry;

typedef struct {
  cordon_expansion_entry *entries;
  size_t count, cap;
  size_t bytes;  /* sum of path lengths, for the size cap */
  bool network;  /* true: asks for network = enabled */
} cordon_expansion;

#define CORDON_EXPANSION_INIT {NULL, 0, 0, 0, false}

/* Validates and appends one grant. The path must already be normalized and absolute: an expansion is
 * a request from elsewhere, and silently rewriting it would approve something other than was asked. */
cordon_boundary_status cordon_expansion_add(cordon_expansion *x, const char *path, cordon_access access,
                                            cordon_entry_match scope);
void cordon_expansion_free(cordon_expansion *x);

/* Removes duplicates and grants covered by another grant of the same expansion (write covers read; a
 * subtree covers what lies under it), keeping first-seen order of the survivors. */
void cordon_expansion_compact(cordon_expansion *x);

/* The stored form of an expansion (expansion_json.c): {"network":true,"filesystem":[{path,access,scope}]}.
 * Decode validates every grant as cordon_expansion_add does; `err` says what was wrong. */
cordon_boundary_status cordon_expansion_encode(const cordon_expansion *x, cordon_buf *out);
cordon_boundary_status cordon_expansion_decode(const char *json, size_t n, cordon_expansion *out, cordon_buf *err);

/* ---- boundaries ------------------------------------------------------------------------------------ */

typedef struct cordon_boundary cordon_boundary;

/* Revision 0 from a profile (copied) and a context (copied; paths must be normalized absolute).
 * `mode` (the legacy mode or profile name it came from) may be NULL. The kind follows the profile:
 * external → external; disabled or not requiring a sandbox → bypass; else managed. */
cordon_boundary_status cordon_boundary_genesis(const char *mode, const cordon_profile *profile,
                                               const cordon_profile_ctx *ctx, cordon_boundary **out);
cordon_boundary *cordon_boundary_copy(const cordon_boundary *b);
void cordon_boundary_free(cordon_boundary *b);

cordon_boundary_kind cordon_boundary_kind_of(const cordon_boundary *b);
const char *cordon_boundary_mode(const cordon_boundary *b);      /* NULL when none */
uint64_t cordon_boundary_revision(const cordon_boundary *b);
const cordon_profile *cordon_boundary_profile(const cordon_boundary *b);
/* The boundary's context; its strings belong to the boundary. */
void cordon_boundary_ctx(const cordon_boundary *b, cordon_profile_ctx *out);

typedef enum { CORDON_ASSESS_APPLY = 0, CORDON_ASSESS_NOOP, CORDON_ASSESS_CONFLICT } cordon_assessment;
const char *cordon_assessment_name(cordon_assessment a);  /* "apply", "noop", "conflict" */

typedef struct {
  cordon_assessment outcome;
  char reason[512];  /* one line a person can read: what conflicts with what, or what is new */
} cordon_assess_result;

/* Assesses `x` (compacted first, on a copy) against `b`. A non-OK status means the expansion itself is
 * invalid (empty); the outcome is only meaningful with CORDON_BOUNDARY_OK. */
cordon_boundary_status cordon_boundary_assess(const cordon_boundary *b, const cordon_expansion *x, cordon_assess_result *out);

/* Assesses, then on "apply" adds the new grants (and network) to the profile and raises the revision by
 * exactly 1. On "noop" nothing changes; on "conflict" nothing changes and CORDON_BOUNDARY_CONFLICT is
 * returned. `out` (may be NULL) receives the assessment. */
cordon_boundary_status cordon_boundary_apply(cordon_boundary *b, const cordon_expansion *x, cordon_assess_result *out);

/* Replays a change that the session store assessed and recorded earlier: adds the grants of `delta`
 * (NULL: none) and its network, unassessed, and sets the revision to `revision`, which must be above
 * the current one. Only for rebuilding a stored boundary from its log (a kind change replays with no
 * delta); new changes go through cordon_boundary_apply. */
cordon_boundary_status cordon_boundary_replay(cordon_boundary *b, const cordon_expansion *delta, uint64_t revision);

/* True when `parent` grants at least everything `child` grants (compared by authority, not revision):
 * bypass contains all; external contains only external; between managed boundaries the child's network
 * must be no wider, each of its grants covered by the parent's, the parent's denies and protected names
 * kept by the child. */
bool cordon_boundary_contains(const cordon_boundary *parent, const cordon_boundary *child);

/* ---- JSON (boundary_json.c) ------------------------------------------------------------------------ */

/* Appends the JSON form of `b` to `out` (compact, keys in a fixed order). */
cordon_boundary_status cordon_boundary_encode(const cordon_boundary *b, cordon_buf *out);

/* Parses `n` bytes of JSON. On failure `err` gets a message naming what was wrong ("line 3 column 5:
 * …", "profile.filesystem.entries[2]: unknown key 'mode'"). */
cordon_boundary_status cordon_boundary_decode(const char *json, size_t n, cordon_boundary **out, cordon_buf *err);
#endif
