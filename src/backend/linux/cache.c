/* src/backend/linux/cache.c — compiled plans, cached by their inputs.
 *
 * Key: a 128-bit hash of everything the compiler reads except the disk — the policy text and its -D
 * parameters, the profile (resolved entries, protected names, kinds), the match context, the options,
 * the caller's uids, $SSH_AUTH_SOCK, cordon's version and the identity of the file holding this code. The disk is checked instead: a cached plan
 * keeps every stat the compiler made, and is used only while each one still gives the same answer.
 * Where: $XDG_CACHE_HOME/cordon/linux-plans (default ~/.cache/…), written atomically (temporary file +
 * rename), read only from a directory and a file owned by the caller and writable by nobody else. Every
 * plan the compiler makes denies writing to $XDG_CACHE_HOME/cordon, so no sandbox can plant a plan for
 * the next run (invariant 2). */
#include "backend/linux/linux.h"
#include "backend/linux/runcache.h"
#include "core/record.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CACHE_FORMAT 2
#define CACHE_MAX_BYTES (16u << 20)
#define CACHE_MAX_FILES 64  /* a new plan beyond this evicts the least recently used */

bool cordon_lx_cache_root(const cordon_profile_ctx *ctx, char *out, size_t cap) {
  const char *xdg = cordon_record_getenv("XDG_CACHE_HOME");
  int n;
  if (xdg && xdg[0] == '/') n = snprintf(out, cap, "%s/cordon", xdg);
  else if (ctx && ctx->home && ctx->home[0] == '/') n = snprintf(out, cap, "%s/.cache/cordon", ctx->home);
  else return false;
  return n > 0 && (size_t)n < cap;
}

typedef struct {
  uint64_t a, b;
} hash128;

static void feed(hash128 *h, const void *data, size_t n) {
  const unsigned char *p = data;
  for (size_t i = 0; i < n; i++) {
    h->a = (h->a ^ p[i]) * 1099511628211ULL;
    h->b = (h->b ^ p[i]) * 0x100000001b3ULL * 31 + 0x9e3779b97f4a7c15ULL;
  }
}

/* Length-prefixed, so ("ab","c") and ("a","bc") differ; NULL differs from "". */
static void feed_str(hash128 *h, const char *s) {
  uint64_t n = s ? strlen(s) : UINT64_MAX;
  feed(h, &n, sizeof n);
  if (s) feed(h, s, n);
}

static void feed_u(hash128 *h, uint64_t v) { feed(h, &v, sizeof v); }

static bool make_key(const char *text, const cordon_params *ps, const cordon_profile *profile,
                     const cordon_profile_ctx *ctx, const cordon_lx_options *o, char out[33]) {
  hash128 h = {1469598103934665603ULL, 0x6a09e667f3bcc908ULL};
  feed_str(&h, "cordon linux plan " CORDON_VERSION);
  feed_u(&h, CACHE_FORMAT);
  /* the compiler that made the plan: any rebuild of the binary or library holding it starts afresh */
  Dl_info info;
  struct stat self;
  /* a static executable has no link map for dladdr: then the code is the executable's own */
  const char *holder = dladdr((void *)cordon_lx_compile_cached, &info) && info.dli_fname && info.dli_fname[0] == '/'
                           ? info.dli_fname : "/proc/self/exe";
  if (stat(holder, &self) != 0) return false;
  feed_u(&h, (uint64_t)self.st_dev), feed_u(&h, (uint64_t)self.st_ino), feed_u(&h, (uint64_t)self.st_size);
  feed_u(&h, (uint64_t)self.st_mtim.tv_sec), feed_u(&h, (uint64_t)self.st_mtim.tv_nsec);
  feed_u(&h, (uint64_t)geteuid());
  feed_u(&h, (uint64_t)getuid());
  feed_str(&h, text);
  feed_u(&h, ps ? ps->count : 0);
  for (size_t i = 0; ps && i < ps->count; i++) feed_str(&h, ps->items[i].name), feed_str(&h, ps->items[i].value);
  feed_u(&h, (uint64_t)cordon_profile_kind_of(profile));
  feed_u(&h, (uint64_t)cordon_profile_fs_kind(profile));
  feed_u(&h, (uint64_t)cordon_profile_network(profile));
  for (size_t i = 0; i < cordon_profile_protected_count(profile); i++) feed_str(&h, cordon_profile_protected_at(profile, i));
  cordon_resolved res = {0};
  if (cordon_profile_resolve(profile, ctx, &res) != CORDON_PROFILE_OK) {
    cordon_resolved_free(&res);
    return false;
  }
  feed_u(&h, res.count);
  for (size_t i = 0; i < res.count; i++) {
    feed_str(&h, res.items[i].path);
    feed_u(&h, (uint64_t)res.items[i].access * 16 + (uint64_t)res.items[i].match * 4 + (uint64_t)res.items[i].special);
  }
  cordon_resolved_free(&res);
  feed_str(&h, ctx->cwd);
  feed_u(&h, ctx->n_workspace_roots);
  for (size_t i = 0; i < ctx->n_workspace_roots; i++) feed_str(&h, ctx->workspace_roots[i]);
  feed_str(&h, ctx->tmpdir);
  feed_str(&h, ctx->home);
  feed_str(&h, ctx->slash_tmp);
  feed_u(&h, (uint64_t)o->best_effort * 2 + (uint64_t)o->shared_tmp);
  size_t nkeys = 0;
  while (o->git_safe_keys && o->git_safe_keys[nkeys]) nkeys++;
  feed_u(&h, nkeys);
  for (size_t i = 0; i < nkeys; i++) feed_str(&h, o->git_safe_keys[i]);
  feed_str(&h, cordon_record_getenv("SSH_AUTH_SOCK"));  /* recorded for the run cache */
  feed_str(&h, cordon_record_getenv("XDG_CACHE_HOME"));
  snprintf(out, 33, "%016llx%016llx", (unsigned long long)h.a, (unsigned long long)h.b);
  return true;
}

/* Owned by us and writable by nobody else: the only places a plan is read from or written to. */
static bool trusted(const struct stat *st, bool dir) {
  return (dir ? S_ISDIR(st->st_mode) : S_ISREG(st->st_mode)) && st->st_uid == geteuid() && !(st->st_mode & 022);
}

static bool trusted_dirs(const char *root, const char *plans) {
  struct stat st;
  return lstat(root, &st) == 0 && trusted(&st, true) && lstat(plans, &st) == 0 && trusted(&st, true);
}

static bool observations_hold(const json_t *obs) {
  size_t i;
  const json_t *v;
  json_array_foreach(obs, i, v) {
    const char *path = json_string_value(json_array_get(v, 0)), *kind = json_string_value(json_array_get(v, 1));
    if (!path || !kind || strlen(kind) != 1) return false;
    bool follow = strchr("dfs-e", kind[0]) != NULL;
    struct stat st;
    int rc = cordon_record_stat(path, follow, &st);
    if (cordon_lx_stat_kind(rc, errno, &st, follow) != kind[0]) return false;
  }
  return true;
}

/* A plan from the cache keeps the observations it was valid under, so the run cache can replay them. */
static cordon_lx_plan *with_observations(cordon_lx_plan *p, const json_t *obs) {
  size_t i;
  const json_t *v;
  p->record = true;
  json_array_foreach(obs, i, v) {
    const char *path = json_string_value(json_array_get(v, 0)), *kind = json_string_value(json_array_get(v, 1));
    if (!path || !kind || !cordon_lx_plan_observe(p, path, kind[0])) {
      p->record = false;
      break;
    }
  }
  return p;
}

static cordon_lx_plan *load(const char *root, const char *plans, const char *file, const char *key) {
  if (!trusted_dirs(root, plans)) return NULL;
  int fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return NULL;
  struct stat st;
  json_t *doc = NULL;
  if (fstat(fd, &st) == 0 && trusted(&st, false) && (size_t)st.st_size <= CACHE_MAX_BYTES) {
    /* one read: json_loadfd reads a byte per system call */
    size_t n = (size_t)st.st_size;
    char *buf = malloc(n ? n : 1);
    if (buf && read(fd, buf, n) == (ssize_t)n) doc = json_loadb(buf, n, JSON_REJECT_DUPLICATES, NULL);
    free(buf);
  }
  close(fd);
  cordon_lx_plan *plan = NULL;
  const char *k = doc ? json_string_value(json_object_get(doc, "key")) : NULL;
  if (doc && json_integer_value(json_object_get(doc, "format")) == CACHE_FORMAT && k && strcmp(k, key) == 0 &&
      json_is_array(json_object_get(doc, "observed")) && observations_hold(json_object_get(doc, "observed")))
    plan = cordon_lx_plan_from_jsonv(json_object_get(doc, "plan"));
  if (plan) plan = with_observations(plan, json_object_get(doc, "observed"));
  json_decref(doc);
  return plan;
}

/* Keeps a cache directory bounded (runcache.h): beyond `max` files, the least recently used go (a hit
 * refreshes a file's mtime). Stray temporary files older than a minute go too. */
typedef struct {
  char name[48];
  time_t mtime;
} entry;

static int by_mtime(const void *a, const void *b) {
  time_t x = ((const entry *)a)->mtime, y = ((const entry *)b)->mtime;
  return x < y ? -1 : x > y;
}

void cordon_lx_cache_evict(const char *plans, size_t max) {
  DIR *d = opendir(plans);
  if (!d) return;
  entry *items = NULL;
  size_t n = 0, cap = 0;
  char path[4300];
  time_t now = time(NULL);
  for (struct dirent *e; (e = readdir(d));) {
    struct stat st;
    size_t len = strlen(e->d_name);
    if (len >= sizeof items[0].name) continue;  /* not ours */
    snprintf(path, sizeof path, "%s/%s", plans, e->d_name);
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
    if (strncmp(e->d_name, ".tmp.", 5) == 0) {
      if (st.st_mtime < now - 60) (void)unlink(path);
      continue;
    }
    if (n == cap) {
      size_t c = cap ? cap * 2 : 128;
      entry *p = realloc(items, c * sizeof *p);
      if (!p) break;
      items = p, cap = c;
    }
    memcpy(items[n].name, e->d_name, len + 1);
    items[n++].mtime = st.st_mtime;
  }
  closedir(d);
  if (n > max) {
    qsort(items, n, sizeof *items, by_mtime);
    for (size_t i = 0; i < n - max; i++) {
      snprintf(path, sizeof path, "%s/%s", plans, items[i].name);
      (void)unlink(path);
    }
  }
  free(items);
}

static void store(const char *root, const char plans[4200], const char *file, const char *key, const cordon_lx_plan *p) {
  if (!p->record) return;  /* observations incomplete (out of memory): never cache */
  (void)mkdir(plans, 0700);
  if (!trusted_dirs(root, plans)) return;
  json_t *doc = json_object(), *obs = json_array(), *pj = cordon_lx_plan_to_jsonv(p);
  if (pj) json_object_set_new(pj, "gate", cordon_lx_plan_gate_to_hexv(p));  /* compact: read on every miss */
  bool ok = doc && obs && pj;
  for (size_t i = 0; ok && i < p->nobs; i++) {
    char kind[2] = {p->obs_kinds[i], '\0'};
    ok = json_array_append_new(obs, json_pack("[s, s]", p->obs_paths[i], kind)) == 0;
  }
  if (ok) {
    json_object_set_new(doc, "format", json_integer(CACHE_FORMAT));
    json_object_set_new(doc, "key", json_string(key));
    json_object_set_new(doc, "observed", obs);
    json_object_set_new(doc, "plan", pj);
    obs = pj = NULL;
    char tmp[4400];
    snprintf(tmp, sizeof tmp, "%s/.tmp.%ld.%s", plans, (long)getpid(), key);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) {
      bool written = json_dumpfd(doc, fd, JSON_COMPACT) == 0;
      written = close(fd) == 0 && written;
      if (!written || rename(tmp, file) != 0) (void)unlink(tmp);
      else cordon_lx_cache_evict(plans, CACHE_MAX_FILES);
    }
  }
  json_decref(obs);
  json_decref(pj);
  json_decref(doc);
}

cordon_lx_status cordon_lx_compile_cached(const char *text, const cordon_params *ps, const cordon_profile *profile,
                                          const cordon_profile_ctx *ctx, const cordon_lx_options *opts,
                                          cordon_lx_plan **out, cordon_buf *msg) {
  static const cordon_lx_options none = {0};
  if (!opts) opts = &none;
  char root[4096], plans[4200], file[4300], key[33];
  if (!profile || !ctx || !cordon_lx_cache_root(ctx, root, sizeof root) ||
      !make_key(text, ps, profile, ctx, opts, key))
    return cordon_lx_compile_text(text, ps, profile, ctx, opts, false, out, msg);
  snprintf(plans, sizeof plans, "%s/linux-plans", root);
  snprintf(file, sizeof file, "%s/%s.json", plans, key);
  if ((*out = load(root, plans, file, key))) {
    (void)utimensat(AT_FDCWD, file, NULL, AT_SYMLINK_NOFOLLOW);  /* recently used: evicted last */
    return CORDON_LX_OK;
  }
  /* the cache root exists before compiling, so the deny protecting it names an existing tree */
  char parent[4096];
  snprintf(parent, sizeof parent, "%s", root);
  char *slash = strrchr(parent, '/');
  if (slash && slash != parent) *slash = '\0', (void)mkdir(parent, 0700);
  (void)mkdir(root, 0700);
  cordon_lx_status st = cordon_lx_compile_text(text, ps, profile, ctx, opts, true, out, msg);
  if (st == CORDON_LX_OK) store(root, plans, file, key, *out);
  return st;
}
