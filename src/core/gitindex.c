/* src/core/gitindex.c — git's index file (DIRC v2, v3, v4), bounds-checked: the bytes are attacker-written */
#include "core/gitindex.h"

#include <string.h>
#include <strings.h>

#define STAT_BYTES 40      /* ctime, mtime, dev, ino, mode, uid, gid, size: ten 32-bit fields */
#define FLAG_EXTENDED 0x4000u
#define NAME_MASK 0x0fffu

static uint32_t be32(const unsigned char *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* git's varint (varint.c): each continuation adds one before shifting, so no value has two spellings */
static bool varint(const unsigned char **p, const unsigned char *end, uint64_t *out) {
  const unsigned char *q = *p;
  if (q >= end) return false;
  uint64_t v = *q & 127;
  while (*q++ & 128) {
    if (q >= end || v > (UINT64_MAX >> 7) - 1) return false;
    v = ((v + 1) << 7) | (*q & 127);
  }
  *p = q;
  *out = v;
  return true;
}

const char *cordon_gitindex_status_name(cordon_gitindex_status s) {
  switch (s) {
  case CORDON_GITINDEX_OK: return "ok";
  case CORDON_GITINDEX_TRUNCATED: return "truncated";
  case CORDON_GITINDEX_SIGNATURE: return "not an index (no DIRC signature)";
  case CORDON_GITINDEX_VERSION: return "an index version other than 2, 3 or 4";
  case CORDON_GITINDEX_ENTRY: return "an entry git would not read";
  case CORDON_GITINDEX_PATH_TOO_LONG: return "an entry path too long to check";
  case CORDON_GITINDEX_SPLIT: return "a split index (its entries are in a sharedindex file)";
  case CORDON_GITINDEX_STOPPED: return "stopped";
  }
  return "unknown";
}

cordon_gitindex_status cordon_gitindex_walk(const unsigned char *buf, size_t n, size_t oidlen,
                                            cordon_gitindex_visit visit, void *ctx) {
  if (n < 12 + oidlen) return CORDON_GITINDEX_TRUNCATED;
  if (memcmp(buf, "DIRC", 4) != 0) return CORDON_GITINDEX_SIGNATURE;
  uint32_t version = be32(buf + 4), count = be32(buf + 8);
  if (version < 2 || version > 4) return CORDON_GITINDEX_VERSION;
  const unsigned char *p = buf + 12, *end = buf + n - oidlen;  /* the trailing hash is not ours to read */
  char path[CORDON_GITINDEX_PATH_MAX];
  size_t prev = 0;  /* v4: the previous entry's path length, its bytes still in `path` */
  for (uint32_t i = 0; i < count; i++) {
    size_t head = STAT_BYTES + oidlen + 2;
    if ((size_t)(end - p) < head) return CORDON_GITINDEX_TRUNCATED;
    unsigned flags = (unsigned)p[head - 2] << 8 | p[head - 1];
    if (flags & FLAG_EXTENDED) {
      if (version < 3) return CORDON_GITINDEX_ENTRY;
      head += 2;
      if ((size_t)(end - p) < head) return CORDON_GITINDEX_TRUNCATED;
    }
    const unsigned char *name = p + head;
    size_t len, next;
    if (version == 4) {
      uint64_t strip;
      const unsigned char *s = name;
      if (!varint(&s, end, &strip)) return CORDON_GITINDEX_TRUNCATED;
      if (strip > prev) return CORDON_GITINDEX_ENTRY;
      const unsigned char *nul = memchr(s, '\0', (size_t)(end - s));
      if (!nul) return CORDON_GITINDEX_TRUNCATED;
      size_t keep = prev - (size_t)strip, add = (size_t)(nul - s);
      if (add >= sizeof path - keep) return CORDON_GITINDEX_PATH_TOO_LONG;
      memcpy(path + keep, s, add);
      len = keep + add;
      next = (size_t)(nul + 1 - p);
    } else {
      size_t room = (size_t)(end - name);
      const unsigned char *nul = memchr(name, '\0', room);
      if (!nul) return CORDON_GITINDEX_TRUNCATED;
      len = flags & NAME_MASK;
      if (len == NAME_MASK) len = (size_t)(nul - name);           /* git: a long name is measured */
      else if ((size_t)(nul - name) != len) return CORDON_GITINDEX_ENTRY;  /* a NUL inside, or none after */
      if (len >= sizeof path) return CORDON_GITINDEX_PATH_TOO_LONG;
      memcpy(path, name, len);
      next = (head + len + 8) & ~(size_t)7;  /* one to eight NULs pad the entry to 8 bytes */
      if (next > (size_t)(end - p)) return CORDON_GITINDEX_TRUNCATED;
    }
    path[len] = '\0';
    prev = len;
    cordon_gitindex_entry e = {path, len, be32(p + 24), p + STAT_BYTES, (flags >> 12) & 3};
    if (visit && visit(ctx, &e)) return CORDON_GITINDEX_STOPPED;
    p += next;
  }
  while (p < end) {  /* extensions: a signature and a 32-bit size, until the trailing hash */
    if ((size_t)(end - p) < 8) return CORDON_GITINDEX_TRUNCATED;
    uint32_t size = be32(p + 4);
    if (memcmp(p, "link", 4) == 0) return CORDON_GITINDEX_SPLIT;
    if (size > (size_t)(end - p) - 8) return CORDON_GITINDEX_TRUNCATED;
    p += 8 + (size_t)size;
  }
  return CORDON_GITINDEX_OK;
}

/* Drops the code points HFS+ ignores in names (git's is_hfs_dotgit): U+200C-200F, U+202A-202E,
 * U+206A-206F, U+FEFF, as UTF-8. Writes at most `cap` - 1 bytes; false when the name is longer. */
static bool hfs_fold(const char *c, size_t n, char *out, size_t cap) {
  size_t o = 0;
  for (size_t i = 0; i < n;) {
    const unsigned char *u = (const unsigned char *)c + i;
    if (n - i >= 3) {
      unsigned cp = (u[0] & 0x0fu) << 12 | (u[1] & 0x3fu) << 6 | (u[2] & 0x3fu);
      bool three = (u[0] & 0xf0) == 0xe0 && (u[1] & 0xc0) == 0x80 && (u[2] & 0xc0) == 0x80;
      if (three && ((cp >= 0x200c && cp <= 0x200f) || (cp >= 0x202a && cp <= 0x202e) ||
                    (cp >= 0x206a && cp <= 0x206f) || cp == 0xfeff)) {
        i += 3;
        continue;
      }
    }
    if (o + 1 >= cap) return false;
    out[o++] = c[i++];
  }
  out[o] = '\0';
  return true;
}

/* Whether one component names .git in a spelling git, NTFS or HFS+ takes for it. */
static bool is_dotgit(const char *c, size_t n) {
  if (n >= 4 && strncasecmp(c, ".git", 4) == 0) {
    size_t i = 4;
    while (i < n && (c[i] == ' ' || c[i] == '.')) i++;  /* NTFS drops trailing spaces and dots */
    if (i == n || c[i] == ':') return true;              /* and an alternate stream: .git::$INDEX_ALLOCATION */
  }
  if (n >= 5 && strncasecmp(c, "git~1", 5) == 0) {       /* NTFS short name */
    size_t i = 5;
    while (i < n && (c[i] == ' ' || c[i] == '.')) i++;
    if (i == n || c[i] == ':') return true;
  }
  char f[16];
  return n > 4 && hfs_fold(c, n, f, sizeof f) && strcasecmp(f, ".git") == 0;
}

const char *cordon_gitindex_path_refusal(const char *p, size_t n, bool dir) {
  if (n == 0) return "an empty path";
  if (p[0] == '/') return "a path beginning with '/'";
  if (dir && p[n - 1] == '/') n--;  /* a sparse directory entry ends in '/' */
  for (size_t i = 0; i <= n;) {
    size_t len = 0;
    while (i + len < n && p[i + len] != '/') len++;
    const char *c = p + i;
    if (len == 0) return "an empty path component";
    if ((len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.')) return "a '.' or '..' component";
    if (is_dotgit(c, len)) return "a .git component (or a spelling NTFS or HFS+ takes for .git)";
    i += len + 1;
  }
  return NULL;
}
