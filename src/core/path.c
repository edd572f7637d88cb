/* src/core/path.c — absolute POSIX paths (see path.h). */
#include "core/path.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *cordon_path_status_name(cordon_path_status s) {
  switch (s) {
    case CORDON_PATH_OK: return "ok";
    case CORDON_PATH_EMPTY: return "empty";
    case CORDON_PATH_RELATIVE: return "relative";
    case CORDON_PATH_CONTROL_CHAR: return "control_char";
    case CORDON_PATH_DOTDOT: return "dotdot";
    case CORDON_PATH_TOO_LONG: return "too_long";
    case CORDON_PATH_TILDE_USER: return "tilde_user";
    case CORDON_PATH_NO_HOME: return "no_home";
    case CORDON_PATH_IO_ERROR: return "io_error";
  }
  return "unknown";
}

cordon_path_status cordon_path_normalize_n(const char *in, size_t n, char *out, size_t cap) {
  if (!in || n == 0) return CORDON_PATH_EMPTY;
  /* Control bytes first: a path with a newline is refused whatever else is wrong with it. */
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)in[i] < 0x20 || in[i] == 0x7f) return CORDON_PATH_CONTROL_CHAR;
  if (in[0] != '/') return CORDON_PATH_RELATIVE;
  if (n > CORDON_PATH_MAX) return CORDON_PATH_TOO_LONG;
  size_t o = 0;
  size_t i = 0;
  while (i < n) {
    while (i < n && in[i] == '/') i++;
    size_t start = i;
    while (i < n && in[i] != '/') i++;
    size_t len = i - start;
    if (len == 0) break;
    if (len == 1 && in[start] == '.') continue;
    if (len == 2 && in[start] == '.' && in[start + 1] == '.') return CORDON_PATH_DOTDOT;
    if (o + 1 + len + 1 > cap) return CORDON_PATH_TOO_LONG;
    out[o++] = '/';
    memcpy(out + o, in + start, len);
    o += len;
  }
  if (o == 0) {
    if (cap < 2) return CORDON_PATH_TOO_LONG;
    out[o++] = '/';
  }
  out[o] = '\0';
  return CORDON_PATH_OK;
}

cordon_path_status cordon_path_normalize(const char *in, char *out, size_t cap) {
  if (!in) return CORDON_PATH_EMPTY;
  return cordon_path_normalize_n(in, strlen(in), out, cap);
}

bool cordon_path_within(const char *root, const char *p) {
  if (!root || !p) return false;
  if (strcmp(root, "/") == 0) return p[0] == '/';
  size_t n = strlen(root);
  if (strncmp(root, p, n) != 0) return false;
  return p[n] == '\0' || p[n] == '/';
}

bool cordon_path_parent(const char *p, char *out, size_t cap) {
  if (!p || p[0] != '/' || p[1] == '\0') return false;
  const char *slash = strrchr(p, '/');
  size_t n = slash == p ? 1 : (size_t)(slash - p);
  if (n + 1 > cap) return false;
  memcpy(out, p, n);
  out[n] = '\0';
  return true;
}

size_t cordon_path_ancestors(const char *p, void (*fn)(const char *ancestor, void *ud), void *ud) {
  if (!p || p[0] != '/' || p[1] == '\0') return 0;
  size_t n = strlen(p);
  if (n > CORDON_PATH_MAX) return 0;
  char buf[CORDON_PATH_MAX + 1];
  size_t calls = 0;
  fn("/", ud);
  calls++;
  /* Every '/' after the first ends an ancestor; the last segment is p itself and is not visited. */
  for (size_t i = 1; i < n; i++) {
    if (p[i] != '/') continue;
    memcpy(buf, p, i);
    buf[i] = '\0';
    fn(buf, ud);
    calls++;
  }
  return calls;
}

cordon_path_status cordon_path_expand_home(const char *in, const char *home, char *out, size_t cap) {
  if (!in || !*in) return CORDON_PATH_EMPTY;
  if (in[0] != '~') return cordon_path_normalize(in, out, cap);
  if (in[1] != '\0' && in[1] != '/') return CORDON_PATH_TILDE_USER;
  if (!home || home[0] != '/') return CORDON_PATH_NO_HOME;
  size_t hn = strlen(home), rn = strlen(in + 1);
  if (hn + rn > CORDON_PATH_MAX) return CORDON_PATH_TOO_LONG;
  char joined[CORDON_PATH_MAX + 2];
  memcpy(joined, home, hn);
  memcpy(joined + hn, in + 1, rn + 1);
  return cordon_path_normalize(joined, out, cap);
}

/* Joins the canonical prefix `base` with the untouched rest `rest` ("" or "/a/b") into out. */
static cordon_path_status join_rest(const char *base, const char *rest, char *out, size_t cap) {
  size_t bn = strlen(base), rn = strlen(rest);
  if (strcmp(base, "/") == 0) bn = 0;  /* "/" + "/a" must not become "//a" */
  if (bn + rn == 0) {
    if (cap < 2) return CORDON_PATH_TOO_LONG;
    strcpy(out, "/");
    return CORDON_PATH_OK;
  }
  if (bn + rn + 1 > cap || bn + rn > CORDON_PATH_MAX) return CORDON_PATH_TOO_LONG;
  memcpy(out, base, bn);
  memcpy(out + bn, rest, rn + 1);
  return CORDON_PATH_OK;
}

cordon_path_status cordon_path_canonicalize(const char *in, char *out, size_t cap) {
  char norm[CORDON_PATH_MAX + 1];
  cordon_path_status st = cordon_path_normalize(in, norm, sizeof norm);
  if (st != CORDON_PATH_OK) return st;
  /* Walk back from the whole path towards "/" until realpath succeeds; what was cut off is kept. */
  size_t cut = strlen(norm);
  for (;;) {
    char prefix[CORDON_PATH_MAX + 1];
    memcpy(prefix, norm, cut);
    prefix[cut] = '\0';
    if (cut == 0) strcpy(prefix, "/");
    char *real = realpath(prefix, NULL);
    if (real) {
      st = join_rest(real, norm + cut, out, cap);
      free(real);
      return st;
    }
    /* Only absence (or a non-directory on the way) means "the rest is not there yet". */
    if (errno != ENOENT && errno != ENOTDIR) return CORDON_PATH_IO_ERROR;
    if (cut == 0) return CORDON_PATH_IO_ERROR;  /* even "/" failed */
    do cut--;
    while (cut > 0 && norm[cut] != '/');
  }
}

bool cordon_path_join_lexical(const char *dir, const char *rel, char *out, size_t cap) {
  char buf[CORDON_PATH_MAX * 2];
  int n = rel[0] == '/' ? snprintf(buf, sizeof buf, "%s", rel) : snprintf(buf, sizeof buf, "%s/%s", dir, rel);
  if (n < 0 || (size_t)n >= sizeof buf || cap < 2) return false;
  size_t len = 0;
  out[0] = '\0';
  char *save = NULL;
  for (char *seg = strtok_r(buf, "/", &save); seg; seg = strtok_r(NULL, "/", &save)) {
    if (strcmp(seg, ".") == 0) continue;
    if (strcmp(seg, "..") == 0) {
      while (len > 0 && out[len - 1] != '/') len--;
      if (len > 0) len--;
      out[len] = '\0';
      continue;
    }
    size_t sl = strlen(seg);
    if (len + 1 + sl + 1 > cap) return false;
    out[len++] = '/';
    memcpy(out + len, seg, sl + 1);
    len += sl;
  }
  if (len == 0) snprintf(out, cap, "/");
  return true;
}
