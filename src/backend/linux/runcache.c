/* src/backend/linux/runcache.c — the run cache (runcache.h): key, load, replay, store */
#include "backend/linux/runcache.h"

#include "backend/linux/landlock.h"
#include "backend/linux/seccomp.h"
#include "core/path.h"
#include "core/record.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

#define MAX_STRINGS 100000  /* records, observations, argv and env entries: far beyond any real run */

/* "TAG LEN:" then the `len` bytes of `s` and a newline; by hand, not printf: ~40 of them per key (every
 * argument and environment name), and each printf took a microsecond of every hit. */
static void key_bytes(cordon_buf *b, const char *tag, const char *s, size_t len) {
  char digits[24];
  int k = 0;
  size_t v = len;
  do digits[k++] = (char)('0' + v % 10), v /= 10;
  while (v);
  cordon_buf_puts(b, tag);
  cordon_buf_putc(b, ' ');
  while (k) cordon_buf_putc(b, digits[--k]);
  cordon_buf_putc(b, ':');
  cordon_buf_append(b, s, len);
  cordon_buf_putc(b, '\n');
}

static void key_str(cordon_buf *b, const char *tag, const char *s) { key_bytes(b, tag, s, strlen(s)); }

/* The binaries that read and write entries: `cordon` and, when it is the static front (src/front/),
 * `cordon-full` beside it, which it execs on a miss. Both compute the same key: the front names itself
 * and its sibling; the full binary, called NAME-full, names NAME and itself. Either may be absent. */
static bool key_binaries(cordon_buf *out) {
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0 || n >= (ssize_t)sizeof self - 8) return false;
  self[n] = '\0';
  if (n > 5 && strcmp(self + n - 5, "-full") == 0) self[n - 5] = '\0';
  char full[4200];
  snprintf(full, sizeof full, "%s-full", self);
  const char *const names[] = {self, full};
  for (int i = 0; i < 2; i++) {
    struct stat st;
    if (stat(names[i], &st) != 0) {
      cordon_buf_printf(out, "exe%d absent\n", i);
      continue;
    }
    cordon_buf_printf(out, "exe%d %llu %llu %lld %lld.%09ld %lld.%09ld\n", i, (unsigned long long)st.st_dev,
                      (unsigned long long)st.st_ino, (long long)st.st_size, (long long)st.st_mtim.tv_sec,
                      (long)st.st_mtim.tv_nsec, (long long)st.st_ctim.tv_sec, (long)st.st_ctim.tv_nsec);
  }
  return true;
}

bool cordon_lx_runcache_key(int argc, char *const *argv, char *const *envp, cordon_buf *out) {
  struct stat cwd;
  char dir[4096];
  if (!getcwd(dir, sizeof dir) || stat(".", &cwd) != 0) return false;
  int lerr = 0, abi = cordon_lx_landlock_abi(&lerr);
  gid_t groups[256];
  int ng = getgroups(256, groups);
  if (ng < 0) return false;
  cordon_buf_printf(out, "cordon run %s format %d\n", CORDON_VERSION, CORDON_RUNCACHE_FORMAT);
  if (!key_binaries(out)) return false;
  cordon_buf_printf(out, "ids %u %u %u %u groups", (unsigned)getuid(), (unsigned)geteuid(), (unsigned)getgid(),
                    (unsigned)getegid());
  for (int i = 0; i < ng; i++) cordon_buf_printf(out, " %u", (unsigned)groups[i]);
  cordon_buf_printf(out, "\nlandlock %d %d\ncwd-inode %llu %llu\n", abi, abi ? 0 : lerr,
                    (unsigned long long)cwd.st_dev, (unsigned long long)cwd.st_ino);
  key_str(out, "cwd", dir);
  for (int i = 0; i < argc; i++) key_str(out, "arg", argv[i]);
  /* Names only: values are checked against the entry (env_values), where a variable the command's
   * environment drops counts by its name alone. */
  for (size_t i = 0; envp && envp[i]; i++) {
    const char *eq = strchr(envp[i], '=');
    key_bytes(out, "env-name", envp[i], eq ? (size_t)(eq - envp[i]) : strlen(envp[i]));
  }
  return !out->oom;
}

bool cordon_lx_runcache_root(char *out, size_t cap) {
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  int n;
  if (xdg && xdg[0] == '/') n = snprintf(out, cap, "%s/cordon", xdg);
  else if (home && home[0] == '/') n = snprintf(out, cap, "%s/.cache/cordon", home);
  else return false;
  return n > 0 && (size_t)n < cap;
}

/* 128 bits of FNV-1a in two lanes: only a file name; the entry's stored key is compared in full. */
static void key_file(const char *root, const char *key, char *out, size_t cap) {
  uint64_t a = 1469598103934665603ULL, b = 0x6a09e667f3bcc908ULL;
  for (const unsigned char *p = (const unsigned char *)key; *p; p++) {
    a = (a ^ *p) * 1099511628211ULL;
    b = (b ^ *p) * 0x100000001b3ULL * 31 + 0x9e3779b97f4a7c15ULL;
  }
  snprintf(out, cap, "%s/linux-runs/%016llx%016llx.run", root, (unsigned long long)a, (unsigned long long)b);
}

static void free_strv(char **v, size_t n) {
  for (size_t i = 0; v && i < n; i++) free(v[i]);
  free(v);
}

static size_t strv_len(char **v) {
  size_t n = 0;
  while (v && v[n]) n++;
  return n;
}

void cordon_lx_run_entry_free(cordon_lx_run_entry *e) {
  if (!e) return;
  free(e->key);
  free(e->calls);
  free_strv(e->args, e->nrecords);
  free_strv(e->digests, e->nrecords);
  free_strv(e->obs_paths, e->nobs);
  free(e->obs_kinds);
  free_strv(e->argv, strv_len(e->argv));
  free_strv(e->env, strv_len(e->env));
  free_strv(e->environ, e->nenviron);
  free(e->cwd);
  free(e->seccomp_valid_for);
  free(e->seccomp_bpf);
  cordon_lx_plan_free(e->plan);
  memset(e, 0, sizeof *e);
}

/* Why the last replay failed, for CORDON_TRACE: which call on which path. */
static char changed[512];

bool cordon_lx_runcache_holds(const cordon_lx_run_entry *e, const char **why) {
  size_t n = 0;
  for (; environ[n]; n++) {  /* the names and their order are in the key */
    if (n >= e->nenviron || (e->environ[n] && strcmp(e->environ[n], environ[n]) != 0)) {
      *why = "the environment changed";
      return false;
    }
  }
  if (n != e->nenviron) {
    *why = "the environment changed";
    return false;
  }
  for (size_t i = 0; i < e->nrecords; i++)
    if (!cordon_record_replay(e->calls[i], e->args[i], e->digests[i])) {
      snprintf(changed, sizeof changed, "changed: %c %.400s", e->calls[i], e->args[i]);
      *why = changed;
      return false;
    }
  for (size_t i = 0; i < e->nobs; i++) {
    bool follow = strchr("dfs-e", e->obs_kinds[i]) != NULL;
    struct stat st;
    int rc = cordon_record_stat(e->obs_paths[i], follow, &st);
    if (cordon_lx_stat_kind(rc, errno, &st, follow) != e->obs_kinds[i]) {
      snprintf(changed, sizeof changed, "changed for the compiler: %.400s", e->obs_paths[i]);
      *why = changed;
      return false;
    }
  }
  for (size_t i = 0; e->plan && i < e->plan->npass_fds; i++) {  /* the Lua half checks them on a miss */
    int flags = fcntl(e->plan->pass_fds[i], F_GETFD);
    if (flags < 0 || (flags & FD_CLOEXEC)) {
      *why = "a descriptor passed with --pass-fd is not open";
      return false;
    }
  }
  return true;
}

/* Owned by us and writable by nobody else. */
static bool trusted(const struct stat *st, bool dir) {
  return (dir ? S_ISDIR(st->st_mode) : S_ISREG(st->st_mode)) && st->st_uid == geteuid() && !(st->st_mode & 022);
}

static bool trusted_dirs(const char *root, const char *runs) {
  struct stat st;
  return lstat(root, &st) == 0 && trusted(&st, true) && lstat(runs, &st) == 0 && trusted(&st, true);
}

bool cordon_lx_runcache_read(const char *key, cordon_lx_run_entry *out, const char **why) {
  memset(out, 0, sizeof *out);
  char root[4096], runs[4200], file[4300];
  if (!cordon_lx_runcache_root(root, sizeof root)) {
    *why = "no cache directory ($XDG_CACHE_HOME or $HOME)";
    return false;
  }
  snprintf(runs, sizeof runs, "%s/linux-runs", root);
  key_file(root, key, file, sizeof file);
  int fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    *why = errno == ENOENT ? "no entry" : "entry cannot be opened";
    return false;
  }
  struct stat st;
  char *buf = NULL;
  bool ok = false;
  if (fstat(fd, &st) != 0 || !trusted(&st, false)) *why = "entry not owned by the caller or writable by others";
  else if (!trusted_dirs(root, runs)) *why = "cache directory not owned by the caller or writable by others";
  else if ((size_t)st.st_size > CORDON_RUNCACHE_MAX_BYTES) *why = "entry too large";
  else if (!(buf = malloc((size_t)st.st_size + 1))) *why = "out of memory";
  else if (read(fd, buf, (size_t)st.st_size) != (ssize_t)st.st_size) *why = "entry cannot be read";
  else ok = true;
  close(fd);
  ok = ok && cordon_lx_runcache_parse(buf, (size_t)st.st_size, key, out, why);
  free(buf);
  return ok;
}

bool cordon_lx_runcache_accept(const char *key, const cordon_lx_run_entry *e, const char **why) {
  if (!cordon_lx_runcache_holds(e, why)) return false;
  char root[4096], file[4300];
  if (cordon_lx_runcache_root(root, sizeof root)) {
    key_file(root, key, file, sizeof file);
    (void)utimensat(AT_FDCWD, file, NULL, AT_SYMLINK_NOFOLLOW);  /* recently used: evicted last */
  }
  return true;
}

/* --- store ---------------------------------------------------------------------------------------- */
/* Whether the sandbox this plan makes can modify nothing under `dir`: no Landlock rule grants modifying
 * it, or the gate refuses every write there (its rules decide every write of the run). */
static bool plan_protects(const cordon_lx_plan *p, const char *dir) {
  if (p->fs_unrestricted) return false;
  bool writable = false;
  for (size_t i = 0; i < p->nrules; i++)
    if ((p->rules[i].access & CORDON_LX_MODIFY) && cordon_path_within(p->rules[i].path, dir)) writable = true;
  return !writable || cordon_lx_plan_gate_protects(p, dir);
}

/* Paths compared so that a directory sorts right before everything beneath it ('/' lowest). */
static int path_order(const char *a, const char *b) {
  const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
  for (;; x++, y++) {
    unsigned cx = *x == '/' ? 1u : *x, cy = *y == '/' ? 1u : *y;
    if (cx != cy || !cx) return (int)cx - (int)cy;
  }
}

static const cordon_lx_plan *sorting;  /* qsort has no context argument; stores run one at a time */

static int obs_order(const void *a, const void *b) {
  size_t i = *(const size_t *)a, j = *(const size_t *)b;
  int c = path_order(sorting->obs_paths[i], sorting->obs_paths[j]);
  if (c == 0) c = (unsigned char)sorting->obs_kinds[i] - (unsigned char)sorting->obs_kinds[j];
  return c ? c : (i > j) - (i < j);
}

static bool missing(char k) { return k == '-' || k == '_'; }

/* Which of the compiler's stats need no replay (flags, calloc'd; NULL when out of memory): a (path, kind)
 * seen before, and a missing path beneath a path recorded as missing (resolving it fails at the same
 * component, so it cannot differ while that holds). Sorted once: the plain pairwise search took ~2 ms
 * for the default tree's ~600 paths. */
static unsigned char *redundant_obs(const cordon_lx_plan *p) {
  size_t n = p->nobs;
  unsigned char *skip = calloc(n + 1, 1);
  size_t *order = calloc(n + 1, sizeof *order), *ancestors = calloc(n + 1, sizeof *ancestors);
  if (!skip || !order || !ancestors) {
    free(skip), free(order), free(ancestors);
    return NULL;
  }
  for (size_t i = 0; i < n; i++) order[i] = i;
  sorting = p;
  qsort(order, n, sizeof *order, obs_order);
  size_t depth = 0;  /* the missing paths above the current one, outermost first */
  for (size_t k = 0; k < n; k++) {
    size_t i = order[k];
    const char *path = p->obs_paths[i];
    if (k > 0 && strcmp(p->obs_paths[order[k - 1]], path) == 0 && p->obs_kinds[order[k - 1]] == p->obs_kinds[i]) {
      skip[i] = 1;  /* the first of equal pairs (in the order seen) is kept */
      continue;
    }
    while (depth > 0) {
      const char *q = p->obs_paths[ancestors[depth - 1]];
      size_t len = strlen(q);
      if (strncmp(q, path, len) == 0 && path[len] == '/') break;
      depth--;
    }
    if (!missing(p->obs_kinds[i])) continue;
    if (depth > 0) skip[i] = 1;
    else if (strcmp(path, "/") != 0) ancestors[depth++] = i;  /* "/" missing implies nothing (as before) */
  }
  free(order), free(ancestors);
  return skip;
}

/* Directories whose unchanged identity stands for what the compiler saw in them (absent paths, and
 * entries that are not symlinks): one stat instead of one per path (~300 under $HOME and ~/.cache
 * for the default tree). */
typedef struct {
  char **dirs;  /* owned */
  bool *stable;
  size_t n;
  /* what stat said of each ancestor asked about (most missing paths share a few: ~400 asks for ~100
   * directories in the default tree): 'd' a directory, '-' absent (ENOENT), 'x' anything else */
  struct {
    char *path;  /* owned */
    char seen;
  } *asked;
  size_t asked_cap;  /* a power of two, or 0: ask the kernel every time */
} parents;

#define ASKED_SLOTS 1024u

/* stat(dir) as `seen` letter, once per directory per store. */
static char ancestor_seen(parents *ps, const char *dir) {
  uint64_t h = 1469598103934665603ULL;
  for (const unsigned char *c = (const unsigned char *)dir; *c; c++) h = (h ^ *c) * 1099511628211ULL;
  size_t mask = ps->asked_cap - 1, i = ps->asked_cap ? (size_t)h & mask : 0;
  for (size_t probes = 0; ps->asked_cap && probes < 16; probes++, i = (i + 1) & mask) {
    if (!ps->asked[i].path) break;
    if (strcmp(ps->asked[i].path, dir) == 0) return ps->asked[i].seen;
  }
  struct stat st;
  char seen = stat(dir, &st) == 0 ? (S_ISDIR(st.st_mode) ? 'd' : 'x') : errno == ENOENT ? '-' : 'x';
  if (ps->asked_cap && !ps->asked[i].path && (ps->asked[i].path = strdup(dir))) ps->asked[i].seen = seen;
  return seen;
}

/* Whether the entry `path` names in its parent still gives the compiler's answer `kind` for as long as
 * the parent's entries are unchanged: no entry at all ('-', '_'; not a dangling symlink a new target
 * could bring to life), or an entry that is not a symlink, of the kind seen (its type cannot change
 * without an unlink or a rename in the parent). *err gets lstat's errno for an absent one. */
static bool entry_fixed_by_parent(const char *path, char kind, int *err) {
  struct stat st;
  *err = 0;
  if (kind == '-' || kind == '_') return lstat(path, &st) != 0 && ((*err = errno) == ENOENT || errno == ENOTDIR);
  if (!strchr("dDfFsS", kind) || lstat(path, &st) != 0 || S_ISLNK(st.st_mode)) return false;
  char k = S_ISDIR(st.st_mode) ? 'd' : S_ISSOCK(st.st_mode) ? 's' : 'f';
  return k == (kind | 0x20);  /* lower case: the followed and the not followed letters agree here */
}

/* Whether `path` is absolute with no empty, "." or ".." component: then each of its prefixes names the
 * directory resolution passes through, which is what vouching by an ancestor relies on. */
static bool plain_path(const char *path) {
  if (path[0] != '/') return false;
  for (const char *c = path; c; c = strchr(c + 1, '/')) {
    const char *e = c + 1;
    size_t n = strcspn(e, "/");
    if ((n == 0 && *e) || (n == 1 && e[0] == '.') || (n == 2 && e[0] == '.' && e[1] == '.')) return false;
  }
  return true;
}

/* The length of the directory prefix of `path` whose unchanged identity keeps the compiler's answer
 * `kind` for `path` (0 stands for "/"), or -1 when none does. An entry fixed by its parent is vouched
 * for by the parent. A missing path is vouched for by its nearest ancestor that exists as a directory,
 * when the component just below that ancestor has no entry at all (not even a dangling symlink):
 * resolving the path fails there for as long as the ancestor's entries are unchanged (~60 stats of
 * absent tool directories under $HOME, /run and / for the default tree). */
static long vouching_prefix(parents *ps, const char *path, char kind) {
  const char *slash = strrchr(path, '/');
  int err;
  if (!slash || !path[1] || !plain_path(path) || strlen(path) >= 4096) return -1;
  if (!entry_fixed_by_parent(path, kind, &err)) return -1;
  long at = (long)(slash - path);
  if (kind != '-' && kind != '_') return at;
  char buf[4096];
  struct stat st;
  for (;;) {
    memcpy(buf, path, (size_t)at);
    buf[at] = '\0';
    char seen = ancestor_seen(ps, at ? buf : "/");
    if (seen == 'd') {
      size_t below = (size_t)at + 1 + strcspn(path + at + 1, "/");
      if (path[below] == '\0') return err == ENOENT ? at : -1;  /* `path` itself: lstat'ed just now */
      memcpy(buf, path, below);
      buf[below] = '\0';
      return lstat(buf, &st) != 0 && errno == ENOENT ? at : -1;
    }
    if (seen != '-' || at == 0) return -1;
    while (--at > 0 && path[at] != '/') {}
  }
}

/* Whether observation (path, kind) can be implied by an ancestor's identity (vouching_prefix); adds the
 * ancestor to `ps` (and a CORDON_REC_DIR record to `e`) the first time. */
static bool implied_by_parent(const cordon_lx_plan *plan, parents *ps, cordon_lx_run_entry *e, const char *path,
                              char kind) {
  long at = vouching_prefix(ps, path, kind);
  if (at < 0) return false;
  size_t len = at ? (size_t)at : 1;  /* "/" for the root */
  size_t k = 0;
  while (k < ps->n && !(strlen(ps->dirs[k]) == len && strncmp(ps->dirs[k], path, len) == 0)) k++;
  if (k < ps->n) return ps->stable[k];
  char *dir = strndup(path, len);
  char **nd = dir ? realloc(ps->dirs, (ps->n + 1) * sizeof *nd) : NULL;
  if (nd) ps->dirs = nd;
  bool *ns = nd ? realloc(ps->stable, (ps->n + 1) * sizeof *ns) : NULL;
  if (!ns) {
    free(dir);
    return false;
  }
  ps->stable = ns;
  cordon_buf b = CORDON_BUF_INIT;
  struct stat st;
  bool stable = stat(dir, &st) == 0 && S_ISDIR(st.st_mode) && !cordon_record_racy(&st);
  if (stable) cordon_record_dir_digest(0, 0, &st, &b);
  stable = stable && !b.oom;
  if (stable) {
    e->calls[e->nrecords] = CORDON_REC_DIR, e->args[e->nrecords] = dir;
    e->digests[e->nrecords++] = cordon_buf_take(&b);
    stable = e->digests[e->nrecords - 1] != NULL;
  }
  cordon_buf_free(&b);
  ps->dirs[ps->n] = dir, ps->stable[ps->n++] = stable;
  return stable;
}

/* The entry for the armed recorder's run, borrowing the recorder's and the plan's strings; the parent
 * records it adds are owned by `ps`. Free both with free_view. */
static bool entry_view(const cordon_lx_plan *plan, const char *const *argv, const char *const *env, const char *cwd,
                       cordon_lx_run_entry *e, parents *ps) {
  memset(e, 0, sizeof *e);
  size_t n, ne = 0;
  const cordon_rec_entry *recs = cordon_record_entries(&n);
  while (environ[ne]) ne++;
  e->key = (char *)cordon_record_key();
  size_t cap = n + plan->nobs + 1;
  e->calls = calloc(cap, 1), e->args = calloc(cap, sizeof *e->args), e->digests = calloc(cap, sizeof *e->digests);
  e->obs_paths = calloc(plan->nobs + 1, sizeof *e->obs_paths), e->obs_kinds = calloc(plan->nobs + 1, 1);
  e->environ = calloc(ne + 1, sizeof *e->environ);
  if (!e->calls || !e->args || !e->digests || !e->obs_paths || !e->obs_kinds || !e->environ) return false;
  for (size_t i = 0; i < n; i++) e->calls[i] = recs[i].call, e->args[i] = recs[i].arg, e->digests[i] = recs[i].digest;
  e->nrecords = n;
  unsigned char *skip = redundant_obs(plan);
  if (!skip) return false;
  for (size_t i = 0; i < plan->nobs; i++) {
    char k = plan->obs_kinds[i];
    if (skip[i] || implied_by_parent(plan, ps, e, plan->obs_paths[i], k)) continue;
    e->obs_paths[e->nobs] = plan->obs_paths[i], e->obs_kinds[e->nobs++] = k;
  }
  free(skip);
  for (size_t i = 0; i < ne; i++) {
    /* a variable the command's environment keeps (by name) is compared by value; a dropped one is not */
    const char *eq = strchr(environ[i], '=');
    size_t len = eq ? (size_t)(eq - environ[i]) + 1 : strlen(environ[i]);
    bool kept = !eq;
    for (size_t k = 0; !kept && env && env[k]; k++) kept = strncmp(env[k], environ[i], len) == 0;
    e->environ[i] = kept ? environ[i] : NULL;
  }
  e->nenviron = ne;
  e->argv = (char **)argv, e->env = (char **)env, e->cwd = (char *)cwd, e->plan = (cordon_lx_plan *)plan;
  return e->key && argv && argv[0] && cwd;
}

static void free_view(cordon_lx_run_entry *e, parents *ps) {
  size_t n;
  (void)cordon_record_entries(&n);
  for (size_t i = n; e->digests && i < e->nrecords; i++) free(e->digests[i]);  /* the parent records */
  for (size_t i = 0; i < ps->n; i++) free(ps->dirs[i]);
  for (size_t i = 0; i < ps->asked_cap; i++) free(ps->asked[i].path);
  free(ps->dirs), free(ps->stable), free(ps->asked);
  free(e->calls), free(e->args), free(e->digests), free(e->obs_paths), free(e->obs_kinds), free(e->environ);
}

void cordon_lx_runcache_store(cordon_lx_plan *plan, const char *const *argv, const char *const *env,
                              const char *cwd, const char **why) {
  char root[4096], runs[4200], file[4300], tmp[4400];
  if (cordon_record_tainted()) {
    *why = cordon_record_tainted();
    return;
  }
  if (!plan->record) {
    *why = "the plan was not compiled through the plan cache";
    return;
  }
  if (!cordon_lx_runcache_root(root, sizeof root) || !cordon_record_key()) {
    *why = "no cache directory ($XDG_CACHE_HOME or $HOME)";
    return;
  }
  if (!plan_protects(plan, root)) {
    *why = "the plan does not keep the sandbox from writing the cache";
    return;
  }
  snprintf(runs, sizeof runs, "%s/linux-runs", root);
  (void)mkdir(runs, 0700);
  if (!trusted_dirs(root, runs)) {
    *why = "cache directory not owned by the caller or writable by others";
    return;
  }
  cordon_lx_run_entry view;
  cordon_buf bytes = CORDON_BUF_INIT;
  parents ps = {.asked = calloc(ASKED_SLOTS, sizeof *ps.asked)};
  ps.asked_cap = ps.asked ? ASKED_SLOTS : 0;
  cordon_buf bpf = CORDON_BUF_INIT, valid = CORDON_BUF_INIT;  /* without them a hit builds the filters */
  /* only the program the command will load: building one with libseccomp costs ~1 ms, so the one the
   * plan cache kept (built on this machine) is taken as it is */
  bool gated = cordon_lx_plan_has_gate(plan), have_bpf;
  size_t base_len;
  if (cordon_lx_seccomp_stored(plan)) {
    cordon_buf_append(&bpf, (const char *)plan->seccomp_bpf, plan->seccomp_base_len + plan->seccomp_gate_len);
    base_len = plan->seccomp_base_len, have_bpf = !bpf.oom;
  } else {
    have_bpf = gated || cordon_lx_seccomp_export(plan, CORDON_LX_SECCOMP_BASE, &bpf);
    base_len = bpf.len;
    if (gated) have_bpf = cordon_lx_seccomp_export(plan, CORDON_LX_SECCOMP_GATE, &bpf);
  }
  cordon_lx_seccomp_kernel(&valid);
  if (entry_view(plan, argv, env, cwd, &view, &ps)) {
    if (have_bpf && cordon_buf_str(&valid) && !valid.oom)  /* borrowed: free_view leaves them */
      view.seccomp_valid_for = valid.data, view.seccomp_bpf = bpf.data, view.seccomp_base_len = base_len,
      view.seccomp_gate_len = bpf.len - base_len;
    cordon_lx_runcache_encode(&view, &bytes);
  }
  if (have_bpf && !plan->seccomp_bpf && !bpf.oom && bpf.len) {  /* built for this machine just now */
    plan->seccomp_base_len = base_len, plan->seccomp_gate_len = bpf.len - base_len;
    plan->seccomp_bpf = (unsigned char *)cordon_buf_take(&bpf);
  }
  cordon_buf_free(&bpf);
  cordon_buf_free(&valid);
  free_view(&view, &ps);
  if (!bytes.len || bytes.oom || bytes.len > CORDON_RUNCACHE_MAX_BYTES) {
    cordon_buf_free(&bytes);
    *why = "the entry cannot be serialized";
    return;
  }
  key_file(root, cordon_record_key(), file, sizeof file);
  snprintf(tmp, sizeof tmp, "%s/.tmp.%ld", runs, (long)getpid());
  (void)unlink(tmp);
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  *why = "the entry cannot be written";
  if (fd >= 0) {
    size_t done = 0;
    while (done < bytes.len) {
      ssize_t w = write(fd, bytes.data + done, bytes.len - done);
      if (w <= 0) break;
      done += (size_t)w;
    }
    bool written = done == bytes.len;
    written = close(fd) == 0 && written;
    if (!written || rename(tmp, file) != 0) {
      (void)unlink(tmp);
    } else {
      *why = "stored";
      cordon_lx_cache_evict(runs, CORDON_RUNCACHE_MAX_FILES);
    }
  }
  cordon_buf_free(&bytes);
}
