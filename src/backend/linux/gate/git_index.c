/* src/backend/linux/gate/git_index.c — an index renamed over a git directory's index: what the host's checkout would write */
#include "backend/linux/gate/gate_impl.h"

#include "core/gitconfig.h"
#include "core/gitindex.h"
#include "core/path.h"
#include "core/sha1.h"
#include "core/sha256.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ROOTS_MAX 3        /* the work trees an index's paths are judged at */
#define BLOB_MAX (64u << 20)  /* a protected file larger than this is not hashed: the entry must be kept */
#define OLD_MAX (64u << 20)   /* the replaced index's entries kept for comparison (mapped lazily) */

typedef struct {
  char *path;
  uint32_t mode;
  unsigned char oid[32];
  int root;                /* which work tree protects it */
  bool kept;               /* the replaced index had the same object id and mode for it */
} protected_entry;

/* The replaced index's entries, in its (git's sorted) order, packed as: mode, stage, object id, then the
 * NUL-terminated path. An entry of the new index equal to one of them would be kept anyway: not decided. */
typedef struct {
  unsigned char *buf;
  size_t len, cursor;
  bool full;               /* OLD_MAX reached: later entries are decided as new ones */
} old_entries;

typedef struct {
  cordon_lx_gate *g;
  size_t oidlen;
  old_entries old;
  char roots[ROOTS_MAX][GATE_PATH_MAX];
  int nroots;
  protected_entry *list;
  size_t n, cap;
  char *why;
  size_t whycap;
  bool failed;             /* out of memory */
} index_check;

/* The object id length of the repository whose git directory is `dir`: 32 with
 * extensions.objectformat = sha256 in its config (or its commondir's), else 20. */
static size_t oid_length(int dir) {
  size_t len = 20;
  int cfg = openat(dir, "config", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (cfg < 0) {
    char common[GATE_PATH_MAX];
    int cd = openat(dir, "commondir", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    ssize_t r = cd < 0 ? -1 : read(cd, common, sizeof common - 8);
    if (cd >= 0) close(cd);
    if (r <= 0) return len;
    while (r > 0 && (common[r - 1] == '\n' || common[r - 1] == '\r')) r--;
    memcpy(common + r, "/config", 8);
    cfg = openat(dir, common, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (cfg < 0) return len;
  }
  char *text = git_big_alloc(1u << 20);
  ssize_t r = text ? read(cfg, text, (1u << 20) - 1) : -1;
  close(cfg);
  cordon_gitconfig c = {0};
  char err[160];
  if (r > 0 && cordon_gitconfig_parse(text, (size_t)r, &c, err, sizeof err))
    for (size_t i = 0; i < c.count; i++)
      if (!c.items[i].subsection && strcmp(c.items[i].section, "extensions") == 0 &&
          strcmp(c.items[i].key, "objectformat") == 0 && c.items[i].value)
        len = strcasecmp(c.items[i].value, "sha256") == 0 ? 32 : 20;
  cordon_gitconfig_free(&c);
  git_big_free(text, 1u << 20);
  return len;
}

static void add_root(index_check *k, const char *p) {
  for (int i = 0; i < k->nroots; i++)
    if (strcmp(k->roots[i], p) == 0) return;
  if (k->nroots < ROOTS_MAX && p[0] == '/' && strlen(p) < GATE_PATH_MAX) snprintf(k->roots[k->nroots++], GATE_PATH_MAX, "%s", p);
}

/* Where the host's checkout may write this index's paths. Always the directory holding the outermost
 * .git of `gitdir` (or its parent): when nothing better is known, protected names are judged there.
 * Also a linked worktree's (its gitdir file) and a submodule's (core.worktree, relative to `gitdir`). */
static void work_trees(index_check *k, int dir, const char *gitdir) {
  char p[GATE_PATH_MAX];
  const char *dotgit = strstr(gitdir, "/.git");
  while (dotgit && dotgit[5] != '/' && dotgit[5] != '\0') dotgit = strstr(dotgit + 1, "/.git");
  size_t top = dotgit ? (size_t)(dotgit - gitdir) : (size_t)(strrchr(gitdir, '/') - gitdir);
  snprintf(p, sizeof p, "%.*s", (int)(top ? top : 1), gitdir);
  add_root(k, p);
  int fd = openat(dir, "gitdir", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) {
    ssize_t r = read(fd, p, sizeof p - 1);
    close(fd);
    while (r > 0 && (p[r - 1] == '\n' || p[r - 1] == '\r')) r--;
    char *s = r > 0 ? (p[r] = '\0', strrchr(p, '/')) : NULL;
    if (s && s > p) {
      *s = '\0';
      add_root(k, p);
    }
  }
  int cfg = openat(dir, "config", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  char text[16384];
  ssize_t r = cfg < 0 ? -1 : read(cfg, text, sizeof text);
  if (cfg >= 0) close(cfg);
  cordon_gitconfig c = {0};
  char err[160];
  if (r > 0 && cordon_gitconfig_parse(text, (size_t)r, &c, err, sizeof err))
    for (size_t i = 0; i < c.count; i++)
      if (!c.items[i].subsection && strcmp(c.items[i].section, "core") == 0 &&
          strcmp(c.items[i].key, "worktree") == 0 && c.items[i].value &&
          cordon_path_join_lexical(gitdir, c.items[i].value, p, sizeof p))
        add_root(k, p);
  cordon_gitconfig_free(&c);
}

/* The first work tree at which the policy keeps `path` from being written or made, or -1. */
static int protecting_root(index_check *k, const char *path) {
  char full[GATE_PATH_MAX];
  for (int i = 0; i < k->nroots; i++) {
    const char *r = k->roots[i];
    if (snprintf(full, sizeof full, "%s/%s", strcmp(r, "/") == 0 ? "" : r, path) >= (int)sizeof full) return i;
    unsigned need = CORDON_LX_WRITE | CORDON_LX_CREATE;  /* one priming of the rule index for both */
    if ((lx_decide(&k->g->rules, full, false, NULL) & need) != need) return i;
  }
  return -1;
}

#define OLD_HEAD(oidlen) (8 + (oidlen))

static int remember_old(void *ctx, const cordon_gitindex_entry *e) {
  index_check *k = ctx;
  old_entries *o = &k->old;
  size_t need = OLD_HEAD(k->oidlen) + e->len + 1;
  if (o->full || o->len + need > OLD_MAX) return o->full = true, 0;
  unsigned char *r = o->buf + o->len;
  uint32_t words[2] = {e->mode, e->stage};
  memcpy(r, words, 8);
  memcpy(r + 8, e->oid, k->oidlen);
  memcpy(r + OLD_HEAD(k->oidlen), e->path, e->len + 1);
  o->len += need;
  return 0;
}

/* Whether the replaced index holds exactly this entry. Both are in git's order (path, then stage), so one
 * cursor moves forward through the old entries; a new index out of order only finds fewer matches. */
static bool unchanged(index_check *k, const cordon_gitindex_entry *e) {
  old_entries *o = &k->old;
  while (o->cursor < o->len) {
    const unsigned char *r = o->buf + o->cursor;
    const char *path = (const char *)r + OLD_HEAD(k->oidlen);
    uint32_t words[2];
    memcpy(words, r, 8);
    int c = strcmp(path, e->path);
    if (c == 0) c = words[1] < e->stage ? -1 : words[1] > e->stage;
    if (c > 0) return false;
    o->cursor += OLD_HEAD(k->oidlen) + strlen(path) + 1;
    if (c == 0) return words[0] == e->mode && memcmp(r + 8, e->oid, k->oidlen) == 0;
  }
  return false;
}

static int visit_new(void *ctx, const cordon_gitindex_entry *e) {
  index_check *k = ctx;
  const char *bad = cordon_gitindex_path_refusal(e->path, e->len, e->mode == 040000);
  if (bad) {
    snprintf(k->why, k->whycap, "its entry %.400s has %s, a path git itself refuses to stage, and the host's "
             "checkout would write it", e->path, bad);
    return 1;
  }
  if (k->old.buf && unchanged(k, e)) return 0;  /* the replaced index's own entry: kept, as below */
  /* a sparse directory entry stands for a whole tree the host's checkout may expand: kept, or refused */
  int root = e->mode == 040000 ? 0 : protecting_root(k, e->path);
  if (root < 0) return 0;
  if (k->n == k->cap) {
    size_t cap = k->cap ? 2 * k->cap : 16;
    protected_entry *l = realloc(k->list, cap * sizeof *l);
    if (!l) return k->failed = true, 1;
    k->list = l, k->cap = cap;
  }
  protected_entry *p = &k->list[k->n];
  if (!(p->path = strdup(e->path))) return k->failed = true, 1;
  p->mode = e->mode, p->root = root, p->kept = false;
  memcpy(p->oid, e->oid, k->oidlen);
  k->n++;
  return 0;
}

static int visit_old(void *ctx, const cordon_gitindex_entry *e) {
  index_check *k = ctx;
  for (size_t i = 0; i < k->n; i++)  /* few entries are protected: a scan is cheaper than a sort */
    if (!k->list[i].kept && k->list[i].mode == e->mode && strcmp(k->list[i].path, e->path) == 0 &&
        memcmp(k->list[i].oid, e->oid, k->oidlen) == 0)
      k->list[i].kept = true;
  return 0;
}

/* Whether the file at `root`/`path` (no symbolic link on the way) is what the entry stages: the same
 * kind and execute bit, and the blob of its content has the entry's object id. */
static bool matches_disk(index_check *k, const protected_entry *p) {
  char rel[GATE_PATH_MAX];
  const char *r = k->roots[p->root];
  snprintf(rel, sizeof rel, "%s/%s", strcmp(r, "/") == 0 ? "" : r + 1, p->path);
  bool link = p->mode == 0120000;
  if (!link && p->mode != 0100644 && p->mode != 0100755) return false;
  struct open_how how = {.flags = (link ? O_PATH | O_NOFOLLOW : O_RDONLY | O_NOFOLLOW | O_NONBLOCK) | O_CLOEXEC,
                         .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
  int fd = (int)syscall(SYS_openat2, k->g->root_fd, rel[0] ? rel : ".", &how, sizeof how);
  if (fd < 0 && link) {  /* RESOLVE_NO_SYMLINKS refuses the final link itself: open its directory instead */
    char *s = strrchr(rel, '/');
    if (!s) return false;
    *s = '\0';
    how.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
    int d = (int)syscall(SYS_openat2, k->g->root_fd, rel, &how, sizeof how);
    *s = '/';
    if (d < 0) return false;
    fd = openat(d, s + 1, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    close(d);
  }
  if (fd < 0) return false;
  struct stat st;
  char *data = NULL;
  size_t n = 0;
  bool ok = fstat(fd, &st) == 0 && (link ? S_ISLNK(st.st_mode) : S_ISREG(st.st_mode)) &&
            (link || ((st.st_mode & S_IXUSR) != 0) == (p->mode == 0100755)) && (size_t)st.st_size <= BLOB_MAX;
  size_t dcap = ok ? (size_t)st.st_size + 1 : 0;
  if (ok && (data = git_big_alloc(dcap))) {
    ssize_t got = link ? readlinkat(fd, "", data, (size_t)st.st_size + 1) : 0;
    if (!link)
      for (ssize_t rr = 1; rr > 0 && n <= (size_t)st.st_size;) {
        rr = read(fd, data + n, (size_t)st.st_size + 1 - n);
        if (rr > 0) n += (size_t)rr;
        else if (rr < 0) ok = false;
      }
    else n = got < 0 ? (ok = false, 0) : (size_t)got;
    ok = ok && n == (size_t)st.st_size;
  } else ok = false;
  close(fd);
  unsigned char oid[32];
  char head[40];
  int hn = snprintf(head, sizeof head, "blob %zu", n) + 1;  /* the NUL is part of git's header */
  if (ok && k->oidlen == 20) {
    cordon_sha1 h;
    cordon_sha1_init(&h);
    cordon_sha1_update(&h, head, (size_t)hn);
    cordon_sha1_update(&h, data, n);
    cordon_sha1_final(&h, oid);
  } else if (ok) {
    cordon_sha256 h;
    cordon_sha256_init(&h);
    cordon_sha256_update(&h, head, (size_t)hn);
    cordon_sha256_update(&h, data, n);
    cordon_sha256_final(&h, oid);
  }
  git_big_free(data, dcap);
  return ok && memcmp(oid, p->oid, k->oidlen) == 0;
}

bool git_index_ok(cordon_lx_gate *g, int dir, const char *gitdir, const unsigned char *before, size_t nb,
                  const unsigned char *after, size_t na, char *why, size_t cap) {
  index_check k = {.g = g, .oidlen = oid_length(dir), .why = why, .whycap = cap};
  why[0] = '\0';
  work_trees(&k, dir, gitdir);
  /* entries the replaced index already had are not asked of the policy: `git add` of one file in a
   * 100,000-entry index decides one entry, not all (each decision costs microseconds) */
  if (before && (k.old.buf = git_big_alloc(OLD_MAX)) &&
      cordon_gitindex_walk(before, nb, k.oidlen, remember_old, &k) != CORDON_GITINDEX_OK)
    k.old.len = 0;  /* an old index that does not parse vouches for nothing */
  cordon_gitindex_status st = cordon_gitindex_walk(after, na, k.oidlen, visit_new, &k);
  bool ok = st == CORDON_GITINDEX_OK;
  if (k.failed) snprintf(why, cap, "out of memory while checking it");
  else if (st == CORDON_GITINDEX_SPLIT)
    snprintf(why, cap, "it is a split index, whose entries in a sharedindex file cannot be checked here; run git "
             "update-index --no-split-index (or set core.splitIndex false) outside the sandbox");
  else if (!ok && !why[0])
    snprintf(why, cap, "it does not parse as an index (%s)", cordon_gitindex_status_name(st));
  if (ok && k.n > 0 && before) (void)cordon_gitindex_walk(before, nb, k.oidlen, visit_old, &k);
  for (size_t i = 0; ok && i < k.n; i++) {
    protected_entry *p = &k.list[i];
    if (p->kept || matches_disk(&k, p)) continue;
    snprintf(why, cap, "it stages new content for %.400s, which the policy protects, so the host's next checkout "
             "or restore would write it; stage that file outside the sandbox", p->path);
    ok = false;
  }
  for (size_t i = 0; i < k.n; i++) free(k.list[i].path);
  free(k.list);
  git_big_free(k.old.buf, OLD_MAX);
  return ok;
}
