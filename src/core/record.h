/* src/core/record.h — the run recorder: what the Lua half of `cordon run` learned from the file system */
#ifndef CORDON_RECORD_H
#define CORDON_RECORD_H
#include "core/buf.h"

#include <stdbool.h>
#include <stddef.h>

struct stat;

/* What a call observed. The letters are stored in cache entries: never renumber. */
typedef enum {
  CORDON_REC_STAT = 's',      /* arg: path; follows symlinks */
  CORDON_REC_LSTAT = 'l',     /* arg: path */
  CORDON_REC_LISTDIR = 'd',   /* arg: path */
  CORDON_REC_READFILE = 'f',  /* arg: "MAX:NOFOLLOW:path" */
  CORDON_REC_REALPATH = 'r',  /* arg: path */
  CORDON_REC_CANON = 'p',     /* arg: path (cordon_path_canonicalize) */
  CORDON_REC_GETCWD = 'c',    /* arg: "" */
  CORDON_REC_HOME = 'h',      /* arg: "" */
  CORDON_REC_ISATTY = 't',    /* arg: the descriptor in decimal */
  CORDON_REC_GETENV = 'g',    /* arg: the variable's name */
  CORDON_REC_DIR = 'i',       /* arg: a directory whose entries are unchanged (cordon_record_dir_digest) */
} cordon_rec_call;

typedef struct {
  char call;     /* cordon_rec_call */
  char *arg;
  char *digest;
} cordon_rec_entry;

/* Starts recording (forgetting anything recorded before) under `key`, the exact text of everything
 * else the run depends on (argv, environment, ids, binary); `key` is copied. */
void cordon_record_arm(const char *key);
/* True between arm and disarm. */
bool cordon_record_armed(void);
/* Stops recording and frees what was recorded. */
void cordon_record_disarm(void);

/* Appends an observation (copied). Out of memory taints. No-op when not armed. */
void cordon_record_add(char call, const char *arg, const char *digest);
/* Marks the run as not cacheable; the first reason is kept (for CORDON_TRACE). No-op when not armed. */
void cordon_record_taint(const char *reason);
/* NULL while the run is still cacheable, else the first taint's reason. */
const char *cordon_record_tainted(void);

const char *cordon_record_key(void);
const cordon_rec_entry *cordon_record_entries(size_t *count);

/* stat (follow) or lstat: the one door through which every fact cached runs depend on is taken. */
int cordon_record_stat(const char *path, bool follow, struct stat *st);

/* getenv that records the answer when armed: for the C half's own reads of the environment (the
 * compiler's $SSH_AUTH_SOCK, the plan cache's $XDG_CACHE_HOME), whose values the command may never see. */
const char *cordon_record_getenv(const char *name);

/* --- digests: what a call returned, as text ---------------------------------------------------------- */
/* stat/lstat: every field cordon.c.sys.stat returns, or the errno; for a directory all but size and
 * mtime (record.c says why). */
void cordon_record_stat_digest(int rc, int err, const struct stat *st, cordon_buf *out);
/* The sorted names of a directory (strcmp order, no "." or ".."), or an errno (ENOMEM included). Free
 * with cordon_record_names_free. Returns 0 or the errno. */
int cordon_record_listdir(const char *path, char ***names, size_t *count);
void cordon_record_names_free(char **names, size_t count);
/* The listing as text: the names joined by '/', which no name can contain; or "e<errno>". */
void cordon_record_listdir_digest(int err, char *const *names, size_t count, cordon_buf *out);
/* readfile: the identity of the file read (fstat before reading: a later change moves ctime), or the
 * errno of the open, or "big" when the file was larger than the limit. */
void cordon_record_file_digest(int err, const struct stat *st, bool too_large, cordon_buf *out);
/* A directory's identity including mtime and ctime: unchanged, no entry was added, removed or renamed
 * in it (valid only when it is not racy). */
void cordon_record_dir_digest(int rc, int err, const struct stat *st, cordon_buf *out);
/* True when st's mtime or ctime is less than a second old: a change within the same timestamp tick
 * might leave them as they are (git's "racy clean" problem), so the identity proves nothing yet. */
bool cordon_record_racy(const struct stat *st);
/* A string result, or "e<errno>" when the call failed. */
void cordon_record_string_digest(const char *result, int err, cordon_buf *out);

/* Performs the call again and compares with `digest`. True when it gives the same answer. */
bool cordon_record_replay(char call, const char *arg, const char *digest);
#endif
