/* src/backend/linux/cache.c — compiled plans, cached by their inputs */
#include "backend/linux/linux.h"
#include "backend/linux/runcache.h"
#include "backend/linux/seccomp.h"
#include "core/record.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CACHE_FORMAT 4  /* in the key: 3 is the binary file (runcache.h), 4 added gate_names */
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

/* Eight bytes a step in each lane (the policy text is ~85 KB: a byte a step took ~0.1 ms of every
 * miss); each step is a bijection of the lane for a given word, so no two words collide in one step. */
static void feed(hash128 *h, const void *data, size_t n) {
  const unsigned char *p = data;
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    memcpy(&w, p, 8);
    h->a = (h->a ^ w) * 0x9e3779b97f4a7c15ULL, h->a ^= h->a >> 29;
    h->b = (h->b + w) * 0xc2b2ae3d27d4eb4fULL, h->b ^= h->b >> 31;
  }
  for (; n; p++, n--) {
    h->a = (h->a ^ *p) * 1099511628211ULL;
    h->b = (h->b ^ *p) * 0x100000001b3ULL * 31 + 0x9e3779b97f4a7c15ULL;
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
  size_t nnames = 0;
  while (o->gate_names && o->gate_names[nnames]) nnames++;
  feed_u(&h, nnames);
  for (size_t i = 0; i < nnames; i++) feed_str(&h, o->gate_names[i]);
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

/* Whether every stat the compiler made still gives the same answer. */
static bool observations_hold(const cordon_lx_plan *p) {
  for (size_t i = 0; i < p->nobs; i++) {
    bool follow = strchr("dfs-e", p->obs_kinds[i]) != NULL;
    struct stat st;
    int rc = cordon_record_stat(p->obs_paths[i], follow, &st);
    if (cordon_lx_stat_kind(rc, errno, &st, follow) != p->obs_kinds[i]) return false;
  }
  return true;
}

static cordon_lx_plan *load(const char *root, const char *plans, const char *file, const char *key) {
  if (!trusted_dirs(root, plans)) return NULL;
  int fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return NULL;
  struct stat st;
  cordon_lx_plan *plan = NULL;
  if (fstat(fd, &st) == 0 && trusted(&st, false) && (size_t)st.st_size <= CACHE_MAX_BYTES) {
    size_t n = (size_t)st.st_size;
    char *buf = malloc(n ? n : 1);
    if (buf && read(fd, buf, n) == (ssize_t)n) plan = cordon_lx_plancache_parse(buf, n, key);
    free(buf);
  }
  close(fd);
  if (plan && !observations_hold(plan)) {
    cordon_lx_plan_free(plan);
    plan = NULL;
  }
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
  cordon_buf bytes = CORDON_BUF_INIT;
  cordon_lx_plancache_encode(key, p, &bytes);
  char tmp[4400];
  snprintf(tmp, sizeof tmp, "%s/.tmp.%ld.%s", plans, (long)getpid(), key);
  int fd = bytes.oom || bytes.len > CACHE_MAX_BYTES ? -1 : open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd >= 0) {
    size_t done = 0;
    for (ssize_t w; done < bytes.len && (w = write(fd, bytes.data + done, bytes.len - done)) > 0;) done += (size_t)w;
    bool written = close(fd) == 0 && done == bytes.len;
    if (!written || rename(tmp, file) != 0) (void)unlink(tmp);
    else cordon_lx_cache_evict(plans, CACHE_MAX_FILES);
  }
  cordon_buf_free(&bytes);
}

/* The one seccomp program the command will load (seccomp.h), built now so the plan cache keeps it: a
 * miss that finds the plan then builds none (libseccomp takes ~1 ms). Without it the runtime builds it. */
static void with_program(cordon_lx_plan *p) {
  if (p->seccomp_bpf) return;
  cordon_buf bpf = CORDON_BUF_INIT;
  bool gated = cordon_lx_plan_has_gate(p);
  if (!cordon_lx_seccomp_export(p, gated ? CORDON_LX_SECCOMP_GATE : CORDON_LX_SECCOMP_BASE, &bpf) || bpf.oom) {
    cordon_buf_free(&bpf);
    return;
  }
  p->seccomp_base_len = gated ? 0 : bpf.len, p->seccomp_gate_len = gated ? bpf.len : 0;
  p->seccomp_bpf = (unsigned char *)cordon_buf_take(&bpf);
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
  snprintf(file, sizeof file, "%s/%s.plan", plans, key);
  if ((*out = load(root, plans, file, key))) {
    if (cordon_lx_seccomp_stored(*out)) {
      (void)utimensat(AT_FDCWD, file, NULL, AT_SYMLINK_NOFOLLOW);  /* recently used: evicted last */
    } else {  /* its program was built on another kernel (or none was): build it and keep it this time */
      with_program(*out);
      store(root, plans, file, key, *out);
    }
    return CORDON_LX_OK;
  }
  /* the cache root exists before compiling, so the deny protecting it names an existing tree */
  char parent[4096];
  snprintf(parent, sizeof parent, "%s", root);
  char *slash = strrchr(parent, '/');
  if (slash && slash != parent) *slash = '\0', (void)mkdir(parent, 0700);
  (void)mkdir(root, 0700);
  cordon_lx_status st = cordon_lx_compile_text(text, ps, profile, ctx, opts, true, out, msg);
  if (st == CORDON_LX_OK) with_program(*out), store(root, plans, file, key, *out);
  return st;
}
