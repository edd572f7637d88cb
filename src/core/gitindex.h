/* src/core/gitindex.h — git's index file (DIRC v2, v3, v4) read as an attacker may have written it */
#ifndef CORDON_GITINDEX_H
#define CORDON_GITINDEX_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CORDON_GITINDEX_PATH_MAX 4096  /* longer entry paths are refused: no file system here holds them */

typedef enum {
  CORDON_GITINDEX_OK = 0,
  CORDON_GITINDEX_TRUNCATED,     /* an entry, extension or the trailing hash runs past the end */
  CORDON_GITINDEX_SIGNATURE,     /* not "DIRC" */
  CORDON_GITINDEX_VERSION,       /* not 2, 3 or 4 */
  CORDON_GITINDEX_ENTRY,         /* an entry git would not read (bad name length, v4 prefix overflow, NUL) */
  CORDON_GITINDEX_PATH_TOO_LONG,
  CORDON_GITINDEX_SPLIT,         /* a `link` extension: the entries live in a sharedindex.* file */
  CORDON_GITINDEX_STOPPED,       /* the visitor stopped the walk */
} cordon_gitindex_status;

typedef struct {
  const char *path;              /* NUL-terminated; valid only during the visit */
  size_t len;
  uint32_t mode;                 /* 0100644, 0100755, 0120000, 0160000, 040000 (sparse directory) */
  const unsigned char *oid;      /* `oidlen` bytes */
  unsigned stage;                /* 0, or 1-3 in a conflict */
} cordon_gitindex_entry;

/* Called for each entry in order; a nonzero return stops the walk (CORDON_GITINDEX_STOPPED). */
typedef int (*cordon_gitindex_visit)(void *ctx, const cordon_gitindex_entry *e);

/* Walks the `n` bytes of an index whose object ids are `oidlen` bytes (20: SHA-1, 32: SHA-256), calling
 * `visit` (may be NULL) for each entry. Extensions are skipped by their size, save `link`, which is
 * refused. The trailing checksum is not verified: git refuses an index whose checksum is wrong. */
cordon_gitindex_status cordon_gitindex_walk(const unsigned char *buf, size_t n, size_t oidlen,
                                            cordon_gitindex_visit visit, void *ctx);

/* Why git's verify_path would refuse the entry path `p` (`n` bytes), or NULL: a leading '/', an empty,
 * "." or ".." component, or a component that is .git in any case or any spelling NTFS or HFS+ takes
 * for it (".git.", ".git ", "git~1", ".git::$INDEX_ALLOCATION", ".g\u200cit"). A sparse directory
 * entry (`dir`) ends in '/'. */
const char *cordon_gitindex_path_refusal(const char *p, size_t n, bool dir);

const char *cordon_gitindex_status_name(cordon_gitindex_status s);
#endif
