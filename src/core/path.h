/* src/core/path.h — absolute POSIX paths: normalize, compare, walk ancestors, canonicalize, expand `~` */
#ifndef CORDON_PATH_H
#define CORDON_PATH_H
#include <stdbool.h>
#include <stddef.h>

/* Longest path (in bytes, without the NUL) any cordon_path_* function accepts or produces. */
#define CORDON_PATH_MAX 4096

typedef enum {
  CORDON_PATH_OK = 0,
  CORDON_PATH_EMPTY,         /* "" */
  CORDON_PATH_RELATIVE,      /* does not start with '/' (nor with "~/" where `~` is accepted) */
  CORDON_PATH_CONTROL_CHAR,  /* newline, tab or another control byte (NUL cannot be seen in a C string) */
  CORDON_PATH_DOTDOT,        /* a ".." segment: refused rather than resolved, see cordon_path_normalize */
  CORDON_PATH_TOO_LONG,      /* longer than CORDON_PATH_MAX, or than the caller's buffer */
  CORDON_PATH_TILDE_USER,    /* "~name/…": only the caller's own home may be named */
  CORDON_PATH_NO_HOME,       /* "~" used but no (valid) home directory was given */
  CORDON_PATH_IO_ERROR,      /* canonicalize: the disk answered with something other than "not found" */
} cordon_path_status;

/* "ok", "empty", "relative", "control_char", "dotdot", "too_long", "tilde_user", "no_home", "io_error". */
const char *cordon_path_status_name(cordon_path_status s);

/* Writes the normalized form of `in` into `out` (size `cap`): "//" and "/./" collapse, a trailing '/'
 * goes ("/" stays "/"). ".." is refused rather than resolved: resolving it lexically is wrong when a
 * component is a symlink, and resolving it on disk would make a policy depend on the disk; a caller who
 * wants the disk's answer uses cordon_path_canonicalize on a path without "..". */
cordon_path_status cordon_path_normalize(const char *in, char *out, size_t cap);

/* Same, for a string of known length: a NUL inside the first `n` bytes is CORDON_PATH_CONTROL_CHAR. */
cordon_path_status cordon_path_normalize_n(const char *in, size_t n, char *out, size_t cap);

/* True when `p` is `root` or lies under it; "/repo" never contains "/repo2". Both must be normalized. */
bool cordon_path_within(const char *root, const char *p);

/* `rel` taken from the directory `dir` with "." and ".." resolved lexically, as the kernel would only where
 * nothing on the way is a symbolic link (a view's own directories; git's relative core.worktree). An
 * absolute `rel` stands alone; ".." at "/" stays at "/". False when the result does not fit in `cap`. */
bool cordon_path_join_lexical(const char *dir, const char *rel, char *out, size_t cap);

/* Writes the parent of normalized `p` into `out`; false for "/" (which has none) or a short buffer. */
bool cordon_path_parent(const char *p, char *out, size_t cap);

/* Calls `fn` for each proper ancestor of normalized `p`, from "/" down to its parent ("/a/b" gives "/"
 * then "/a"). Returns the number of calls. `p` itself is not visited. */
size_t cordon_path_ancestors(const char *p, void (*fn)(const char *ancestor, void *ud), void *ud);

/* Expands a leading "~" or "~/" against `home` (an absolute path) and normalizes the result. Paths not
 * starting with '~' are just normalized. "~user" is CORDON_PATH_TILDE_USER. */
cordon_path_status cordon_path_expand_home(const char *in, const char *home, char *out, size_t cap);

/* Normalizes `in`, then resolves symlinks in its longest existing prefix and keeps the rest as written
 * (so a path that will be created later still canonicalizes). On macOS "/tmp/x" becomes "/private/tmp/x"
 * because realpath says so. Touches the disk; never fails because a component does not exist. */
cordon_path_status cordon_path_canonicalize(const char *in, char *out, size_t cap);
#endif
