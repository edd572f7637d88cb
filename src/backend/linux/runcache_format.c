/* src/backend/linux/runcache_format.c — the bytes of a run cache entry and of a plan cache file (runcache.h) */
#include "backend/linux/runcache.h"

#include "backend/linux/seccomp.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC "CORDONRC"
#define PLAN_MAGIC "CORDONPC"
#define MAX_COUNT 200000u  /* entries of any list: far beyond a real run */
#define MAX_PASS_FDS 1024u /* procsetup.c's limit */

enum { P_BEST_EFFORT = 1, P_FS_UNRESTRICTED = 2, P_NET_RESTRICTED = 4, P_SCOPE_SIGNALS = 8, P_SCOPE_UNIX = 16,
       P_SHARED_TMP = 32 };
enum { M_DIR = 1, M_READ_ONLY = 2, M_NO_EXEC = 4 };
enum { G_FILTER = 1, G_PATH = 2, G_SUBTREE = 4 };
#define FILTER_DEPTH_MAX 64

/* --- writing ------------------------------------------------------------------------------------------ */
static void put_u32(cordon_buf *b, uint32_t v) {
  unsigned char x[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16), (unsigned char)(v >> 24)};
  cordon_buf_append(b, (const char *)x, 4);
}

static void put_u8(cordon_buf *b, unsigned v) {
  char c = (char)(unsigned char)v;
  cordon_buf_append(b, &c, 1);
}

static void put_str(cordon_buf *b, const char *s) {
  size_t n = s ? strlen(s) : 0;
  if (n > UINT32_MAX) n = 0, b->oom = true;
  put_u32(b, (uint32_t)n);
  cordon_buf_append(b, s ? s : "", n);
}

static void put_strv(cordon_buf *b, const char *const *v) {
  size_t n = 0;
  while (v && v[n]) n++;
  put_u32(b, (uint32_t)n);
  for (size_t i = 0; i < n; i++) put_str(b, v[i]);
}

static void put_filter(cordon_buf *b, const cordon_filter *f) {
  put_u8(b, (unsigned)f->kind), put_u8(b, (unsigned)f->match);
  put_str(b, f->name);
  put_u32(b, (uint32_t)f->nargs);
  for (size_t i = 0; i < f->nargs; i++) put_u8(b, f->args[i].is_param), put_str(b, f->args[i].text);
  put_u32(b, (uint32_t)f->nchildren);
  for (size_t i = 0; i < f->nchildren; i++) put_filter(b, f->children[i]);
}

static void put_gate_part(cordon_buf *b, const cordon_lx_plan *p) {
  put_u32(b, (uint32_t)p->ngrules);
  for (size_t i = 0; i < p->ngrules; i++) {
    const cordon_lx_grule *g = &p->grules[i];
    put_u8(b, g->action);
    for (int c = 0; c < CORDON_LX_NCLASSES; c++) put_u8(b, g->levels[c]);
    put_u8(b, (g->filter ? G_FILTER : 0) | (g->path ? G_PATH : 0) | (g->subtree ? G_SUBTREE : 0));
    if (g->filter) put_filter(b, g->filter);
    if (g->path) put_str(b, g->path);
    put_str(b, g->source);
  }
  put_u32(b, (uint32_t)p->ngit_safe_keys);
  for (size_t i = 0; i < p->ngit_safe_keys; i++) put_str(b, p->git_safe_keys[i]);
  put_u32(b, (uint32_t)p->ngate_names);
  for (size_t i = 0; i < p->ngate_names; i++) put_str(b, p->gate_names[i]);
}

void cordon_lx_plan_gate_encode(const cordon_lx_plan *p, cordon_buf *out) {
  if (p->gate_raw) cordon_buf_append(out, p->gate_raw, p->gate_raw_len);
  else put_gate_part(out, p);
}

static void put_gate(cordon_buf *b, const cordon_lx_plan *p) {
  put_u32(b, p->limits.procs), put_u32(b, p->limits.cpu);
  put_u32(b, (uint32_t)p->limits.memory), put_u32(b, (uint32_t)(p->limits.memory >> 32));
  put_u32(b, (uint32_t)p->npass_fds);
  for (size_t i = 0; i < p->npass_fds; i++) put_u32(b, (uint32_t)p->pass_fds[i]);
  cordon_buf part = CORDON_BUF_INIT;
  cordon_lx_plan_gate_encode(p, &part);  /* read from an entry: kept as is */
  if (part.oom || part.len > UINT32_MAX) b->oom = true;
  put_u32(b, (uint32_t)part.len);
  cordon_buf_append(b, part.data ? part.data : "", part.len);
  cordon_buf_free(&part);
}

/* The plan the runtime applies (everything but explain's notes and skipped paths). */
static void put_plan(cordon_buf *b, const cordon_lx_plan *p) {
  put_u32(b, p->min_abi);
  put_u8(b, (p->best_effort ? P_BEST_EFFORT : 0) | (p->fs_unrestricted ? P_FS_UNRESTRICTED : 0) |
                (p->network_restricted ? P_NET_RESTRICTED : 0) | (p->scope_signals ? P_SCOPE_SIGNALS : 0) |
                (p->scope_abstract_unix ? P_SCOPE_UNIX : 0) | (p->shared_tmp ? P_SHARED_TMP : 0));
  put_u32(b, (uint32_t)p->nrules);
  for (size_t i = 0; i < p->nrules; i++) {
    put_u8(b, p->rules[i].access), put_u8(b, p->rules[i].is_dir);
    put_str(b, p->rules[i].path), put_str(b, p->rules[i].source);
  }
  put_u32(b, (uint32_t)p->nmounts);
  for (size_t i = 0; i < p->nmounts; i++) {
    const cordon_mount *m = &p->mounts[i];
    put_u8(b, m->kind);
    put_u8(b, (m->is_dir ? M_DIR : 0) | (m->read_only ? M_READ_ONLY : 0) | (m->no_exec ? M_NO_EXEC : 0));
    put_str(b, m->path), put_str(b, m->source), put_str(b, m->reason);
  }
  put_gate(b, p);
}

/* One of the two programs, the one the command loads (seccomp.h); the other is empty. Nothing without. */
static void put_programs(cordon_buf *b, const char *valid_for, const char *bpf, size_t base_len, size_t gate_len) {
  if (!valid_for || !bpf || !(base_len || gate_len) || base_len > UINT32_MAX || gate_len > UINT32_MAX) return;
  put_str(b, valid_for);
  put_u32(b, (uint32_t)base_len);
  cordon_buf_append(b, bpf, base_len);
  put_u32(b, (uint32_t)gate_len);
  cordon_buf_append(b, bpf + base_len, gate_len);
}

void cordon_lx_runcache_encode(const cordon_lx_run_entry *e, cordon_buf *b) {
  cordon_buf_append(b, MAGIC, 8);
  put_u32(b, CORDON_RUNCACHE_FORMAT);
  put_str(b, e->key);
  put_u32(b, (uint32_t)e->nrecords);
  for (size_t i = 0; i < e->nrecords; i++) put_u8(b, (unsigned char)e->calls[i]), put_str(b, e->args[i]), put_str(b, e->digests[i]);
  put_u32(b, (uint32_t)e->nobs);
  for (size_t i = 0; i < e->nobs; i++) put_u8(b, (unsigned char)e->obs_kinds[i]), put_str(b, e->obs_paths[i]);
  put_u32(b, (uint32_t)e->nenviron);
  for (size_t i = 0; i < e->nenviron; i++) {
    put_u8(b, e->environ[i] != NULL);
    if (e->environ[i]) put_str(b, e->environ[i]);
  }
  put_strv(b, (const char *const *)e->argv);
  put_strv(b, (const char *const *)e->env);
  put_str(b, e->cwd);
  put_plan(b, e->plan);
  put_programs(b, e->seccomp_valid_for, e->seccomp_bpf, e->seccomp_base_len, e->seccomp_gate_len);
}

/* --- reading ------------------------------------------------------------------------------------------ */
typedef struct {
  const unsigned char *p;
  size_t left;
  bool bad;
} cursor;

static uint32_t get_u32(cursor *c) {
  if (c->bad || c->left < 4) return c->bad = true, 0;
  uint32_t v = (uint32_t)c->p[0] | (uint32_t)c->p[1] << 8 | (uint32_t)c->p[2] << 16 | (uint32_t)c->p[3] << 24;
  c->p += 4, c->left -= 4;
  return v;
}

static unsigned get_u8(cursor *c) {
  if (c->bad || c->left < 1) return c->bad = true, 0;
  c->left--;
  return *c->p++;
}

static uint32_t get_count(cursor *c) {
  uint32_t n = get_u32(c);
  if (n > MAX_COUNT || n > c->left) c->bad = true;  /* every item takes at least one byte */
  return c->bad ? 0 : n;
}

/* A fresh NUL-terminated copy; NULL (and bad) when it does not fit, holds a NUL, or memory runs out. */
static char *get_str(cursor *c) {
  uint32_t n = get_u32(c);
  if (c->bad || n > c->left || memchr(c->p, '\0', n)) return c->bad = true, NULL;
  char *s = malloc((size_t)n + 1);
  if (!s) return c->bad = true, NULL;
  memcpy(s, c->p, n);
  s[n] = '\0';
  c->p += n, c->left -= n;
  return s;
}

static char **get_strv(cursor *c, size_t *count) {
  uint32_t n = get_count(c);
  char **v = c->bad ? NULL : calloc((size_t)n + 1, sizeof *v);
  if (!v) return c->bad = true, NULL;
  for (uint32_t i = 0; i < n && !c->bad; i++) v[i] = get_str(c);
  if (count) *count = n;
  return v;  /* on failure the holes are NULL: freed as a whole by the caller */
}

/* A filter tree, bounded in depth; NULL (and bad) when malformed. */
static cordon_filter *get_filter(cursor *c, int depth) {
  unsigned kind = get_u8(c), match = get_u8(c);
  char *name = get_str(c);
  if (c->bad || depth > FILTER_DEPTH_MAX || kind > CORDON_F_OTHER || match > CORDON_MATCH_REGEX) {
    free(name);
    return c->bad = true, NULL;
  }
  cordon_filter *f = cordon_filter_new((cordon_filter_kind)kind, name, (cordon_match)match);
  free(name);
  if (!f) return c->bad = true, NULL;
  uint32_t n = get_count(c);
  for (uint32_t i = 0; i < n && !c->bad; i++) {
    unsigned is_param = get_u8(c);
    char *text = get_str(c);
    if (c->bad || is_param > 1 || !cordon_filter_add_arg(f, text, is_param)) c->bad = true;
    free(text);
  }
  n = get_count(c);
  for (uint32_t i = 0; i < n && !c->bad; i++) {
    cordon_filter *child = get_filter(c, depth + 1);
    if (!child || !cordon_filter_add_child(f, child)) c->bad = true;
  }
  if (c->bad) cordon_filter_free(f);
  return c->bad ? NULL : f;
}

static bool get_gate_part(cursor *c, cordon_lx_plan *p) {
  uint32_t n = get_count(c);
  for (uint32_t i = 0; i < n && !c->bad; i++) {
    unsigned action = get_u8(c), parts;
    unsigned char levels[CORDON_LX_NCLASSES];
    for (int k = 0; k < CORDON_LX_NCLASSES; k++) levels[k] = (unsigned char)get_u8(c);
    parts = get_u8(c);
    if (c->bad || action > CORDON_DENY || parts > 7) return c->bad = true, false;
    cordon_filter *f = parts & G_FILTER ? get_filter(c, 0) : NULL;
    char *path = parts & G_PATH ? get_str(c) : NULL, *source = get_str(c);
    if (c->bad || (path && path[0] != '/')) {
      cordon_filter_free(f), free(path), free(source);
      return c->bad = true, false;
    }
    /* taken as decoded: init does this on every run, and a copy would double its cost */
    if (!cordon_lx_plan_take_grule(p, (cordon_action)action, levels, f, path, parts & G_SUBTREE, source)) c->bad = true;
  }
  n = get_count(c);
  for (uint32_t i = 0; i < n && !c->bad; i++) {
    char *k = get_str(c);
    if (c->bad || !cordon_lx_plan_add_git_safe_key(p, k)) c->bad = true;
    free(k);
  }
  n = get_count(c);
  for (uint32_t i = 0; i < n && !c->bad; i++) {
    char *k = get_str(c);
    if (c->bad || !cordon_lx_plan_add_gate_name(p, k)) c->bad = true;
    free(k);
  }
  return !c->bad && c->left == 0;
}

bool cordon_lx_plan_gate_decode(cordon_lx_plan *p) {
  if (!p->gate_raw) return true;
  size_t rules = p->ngrules, keys = p->ngit_safe_keys, names = p->ngate_names;
  cursor c = {(const unsigned char *)p->gate_raw, p->gate_raw_len, false};
  if (!get_gate_part(&c, p)) {
    /* all or nothing: half a rule set would be a gate that allows more */
    for (size_t i = rules; i < p->ngrules; i++)
      cordon_filter_free(p->grules[i].filter), free(p->grules[i].path), free(p->grules[i].source);
    for (size_t i = keys; i < p->ngit_safe_keys; i++) free(p->git_safe_keys[i]);
    for (size_t i = names; i < p->ngate_names; i++) free(p->gate_names[i]);
    p->ngrules = rules, p->ngit_safe_keys = keys, p->ngate_names = names;
    return false;
  }
  free(p->gate_raw);
  p->gate_raw = NULL, p->gate_raw_len = 0;
  return true;
}

/* Limits and descriptors now; the gate's part kept as bytes for init (cordon_lx_plan_gate_decode). */
static bool get_gate(cursor *c, cordon_lx_plan *p) {
  p->limits.procs = get_u32(c), p->limits.cpu = get_u32(c);
  p->limits.memory = get_u32(c);
  p->limits.memory |= (unsigned long long)get_u32(c) << 32;
  uint32_t n = get_count(c);
  if (c->bad || n > MAX_PASS_FDS || (n && !(p->pass_fds = calloc(n, sizeof *p->pass_fds)))) return c->bad = true, false;
  for (uint32_t i = 0; i < n && !c->bad; i++) {
    uint32_t fd = get_u32(c);
    if (fd < 3 || fd > INT32_MAX) c->bad = true;
    else p->pass_fds[p->npass_fds++] = (int)fd;
  }
  uint32_t len = get_u32(c);
  if (c->bad || len > c->left || !(p->gate_raw = malloc(len ? len : 1))) return c->bad = true, false;
  memcpy(p->gate_raw, c->p, len);
  p->gate_raw_len = len;
  c->p += len, c->left -= len;
  return true;
}

static bool get_plan(cursor *c, cordon_lx_plan *p) {
  p->min_abi = get_u32(c);
  unsigned f = get_u8(c);
  if (c->bad || p->min_abi < 1 || p->min_abi > 64 || f > 63) return false;
  p->best_effort = f & P_BEST_EFFORT, p->fs_unrestricted = f & P_FS_UNRESTRICTED;
  p->network_restricted = f & P_NET_RESTRICTED, p->scope_signals = f & P_SCOPE_SIGNALS;
  p->scope_abstract_unix = f & P_SCOPE_UNIX, p->shared_tmp = f & P_SHARED_TMP;
  uint32_t n = get_count(c);
  for (uint32_t i = 0; i < n && !c->bad; i++) {
    unsigned access = get_u8(c), is_dir = get_u8(c);
    char *path = get_str(c), *source = get_str(c);
    bool ok = !c->bad && access <= (CORDON_LX_ALL | CORDON_LX_LIST) && is_dir <= 1 && path[0] == '/' &&
              cordon_lx_plan_add_rule(p, path, access, is_dir, source);
    free(path), free(source);
    if (!ok) c->bad = true;
  }
  n = get_count(c);
  for (uint32_t i = 0; i < n && !c->bad; i++) {
    unsigned kind = get_u8(c), mf = get_u8(c);
    char *path = get_str(c), *source = get_str(c), *reason = get_str(c);
    cordon_mount m = {.kind = (cordon_mount_kind)kind, .path = path, .is_dir = mf & M_DIR,
                      .read_only = mf & M_READ_ONLY, .no_exec = mf & M_NO_EXEC, .source = source, .reason = reason};
    bool ok = !c->bad && kind <= CORDON_MOUNT_KIND_LAST && mf <= 7 && path[0] == '/' && cordon_lx_plan_add_mount(p, &m);
    free(path), free(source), free(reason);
    if (!ok) c->bad = true;
  }
  return !c->bad && get_gate(c, p);
}

/* One stored program: u32 length, then that many bytes of struct sock_filter (8 bytes each, at most
 * BPF_MAXINSNS of them), appended to `out`. An empty one only where `may_be_empty`. */
static bool get_program(cursor *c, cordon_buf *out, size_t *len, bool may_be_empty) {
  uint32_t n = get_u32(c);
  if (c->bad || (n == 0 && !may_be_empty) || n > c->left || n % 8 != 0 || n / 8 > 4096) return c->bad = true, false;
  cordon_buf_append(out, (const char *)c->p, n);
  c->p += n, c->left -= n;
  *len = n;
  return !out->oom || (c->bad = true, false);
}

/* The stored seccomp programs as read (*bpf: base then gate; so an entry encodes back the same); `plan`
 * gets a copy only when they were built for this machine, kernel and libseccomp (otherwise the runtime
 * builds the filters itself). */
static bool get_programs(cursor *c, char **valid_for, char **bpf, size_t *base_len, size_t *gate_len,
                         cordon_lx_plan *plan) {
  *valid_for = get_str(c);
  cordon_buf both = CORDON_BUF_INIT;
  if (c->bad || !get_program(c, &both, base_len, true) || !get_program(c, &both, gate_len, true) ||
      !(*base_len || *gate_len)) {
    cordon_buf_free(&both);
    return c->bad = true, false;
  }
  size_t n = *base_len + *gate_len;
  if (!(*bpf = cordon_buf_take(&both))) return c->bad = true, false;
  cordon_buf here = CORDON_BUF_INIT;
  cordon_lx_seccomp_kernel(&here);
  bool same = cordon_buf_str(&here) && !here.oom && strcmp(cordon_buf_str(&here), *valid_for) == 0;
  cordon_buf_free(&here);
  if (same && (plan->seccomp_bpf = malloc(n))) {
    memcpy(plan->seccomp_bpf, *bpf, n);
    plan->seccomp_base_len = *base_len, plan->seccomp_gate_len = *gate_len;
  }
  return true;
}

static bool get_seccomp(cursor *c, cordon_lx_run_entry *e) {
  return get_programs(c, &e->seccomp_valid_for, &e->seccomp_bpf, &e->seccomp_base_len, &e->seccomp_gate_len, e->plan);
}

static bool get_entry(cursor *c, cordon_lx_run_entry *e, const char **why) {
  size_t n;
  e->nrecords = get_count(c);
  e->calls = calloc(e->nrecords + 1, 1);
  e->args = calloc(e->nrecords + 1, sizeof *e->args), e->digests = calloc(e->nrecords + 1, sizeof *e->digests);
  if (!e->calls || !e->args || !e->digests) return *why = "out of memory", false;
  for (size_t i = 0; i < e->nrecords && !c->bad; i++) {
    unsigned call = get_u8(c);
    e->args[i] = get_str(c), e->digests[i] = get_str(c);
    if (!call || !strchr("sldfrpchtgi", (int)call)) c->bad = true;
    e->calls[i] = (char)call;
  }
  if (c->bad) return *why = "entry records malformed", false;
  e->nobs = get_count(c);
  e->obs_kinds = calloc(e->nobs + 1, 1), e->obs_paths = calloc(e->nobs + 1, sizeof *e->obs_paths);
  if (!e->obs_kinds || !e->obs_paths) return *why = "out of memory", false;
  for (size_t i = 0; i < e->nobs && !c->bad; i++) {
    unsigned kind = get_u8(c);
    e->obs_paths[i] = get_str(c);
    if (!kind || !strchr("dfs-eDFSL_E", (int)kind) || (!c->bad && e->obs_paths[i][0] != '/')) c->bad = true;
    e->obs_kinds[i] = (char)kind;
  }
  if (c->bad) return *why = "entry observations malformed", false;
  e->nenviron = get_count(c);
  if (!(e->environ = calloc(e->nenviron + 1, sizeof *e->environ))) return *why = "out of memory", false;
  for (size_t i = 0; i < e->nenviron && !c->bad; i++) {
    unsigned has = get_u8(c);
    if (has > 1) c->bad = true;
    else if (has) e->environ[i] = get_str(c);
  }
  if (c->bad) return *why = "entry environment malformed", false;
  e->argv = get_strv(c, &n);
  if (c->bad || n == 0 || !e->argv[0][0]) return *why = "entry argv malformed", false;
  e->env = get_strv(c, &n);
  e->cwd = get_str(c);
  if (c->bad || e->cwd[0] != '/') return *why = "entry env or cwd malformed", false;
  if (!(e->plan = cordon_lx_plan_new())) return *why = "out of memory", false;
  if (!get_plan(c, e->plan)) return *why = "entry plan malformed", false;
  if (c->left != 0 && !get_seccomp(c, e)) return *why = "entry seccomp program malformed", false;
  if (c->left != 0) return *why = "entry has trailing bytes", false;
  return true;
}

bool cordon_lx_runcache_parse(const char *data, size_t n, const char *key, cordon_lx_run_entry *out, const char **why) {
  memset(out, 0, sizeof *out);
  cursor c = {(const unsigned char *)data, n, false};
  if (n > CORDON_RUNCACHE_MAX_BYTES || n < 12 || memcmp(data, MAGIC, 8) != 0) {
    *why = "not a run cache entry";
    return false;
  }
  c.p += 8, c.left -= 8;
  if (get_u32(&c) != CORDON_RUNCACHE_FORMAT) {
    *why = "entry format differs";
    return false;
  }
  out->key = get_str(&c);
  bool ok;
  if (c.bad) ok = false, *why = "entry key malformed";
  else if (!key || strcmp(out->key, key) != 0) ok = false, *why = "entry is for another key";
  else ok = get_entry(&c, out, why);
  if (!ok) cordon_lx_run_entry_free(out);
  return ok;
}

/* --- the plan cache's file (cache.c) --------------------------------------------------------------- */
void cordon_lx_plancache_encode(const char *key, const cordon_lx_plan *p, cordon_buf *b) {
  cordon_buf_append(b, PLAN_MAGIC, 8);
  put_u32(b, CORDON_PLANCACHE_FORMAT);
  put_str(b, key);
  put_u32(b, (uint32_t)p->nobs);
  for (size_t i = 0; i < p->nobs; i++) put_u8(b, (unsigned char)p->obs_kinds[i]), put_str(b, p->obs_paths[i]);
  put_plan(b, p);
  put_u32(b, (uint32_t)p->nnotes);
  for (size_t i = 0; i < p->nnotes; i++) put_str(b, p->notes[i].source), put_str(b, p->notes[i].message);
  put_u32(b, (uint32_t)p->nskipped);
  for (size_t i = 0; i < p->nskipped; i++) put_str(b, p->skipped[i].source), put_str(b, p->skipped[i].message);
  if (!cordon_lx_seccomp_stored(p)) return;
  cordon_buf here = CORDON_BUF_INIT;
  cordon_lx_seccomp_kernel(&here);
  if (cordon_buf_str(&here) && !here.oom)
    put_programs(b, cordon_buf_str(&here), (const char *)p->seccomp_bpf, p->seccomp_base_len, p->seccomp_gate_len);
  cordon_buf_free(&here);
}

/* The compiler's stats, into the plan as it recorded them (p->record set); false when malformed. */
static bool get_observations(cursor *c, cordon_lx_plan *p) {
  uint32_t n = get_count(c);
  for (uint32_t i = 0; i < n && !c->bad; i++) {
    unsigned kind = get_u8(c);
    char *path = get_str(c);
    if (c->bad || !kind || !strchr("dfs-eDFSL_E", (int)kind) || path[0] != '/' ||
        !cordon_lx_plan_observe(p, path, (char)kind) || !p->record)
      c->bad = true;
    free(path);
  }
  return !c->bad;
}

/* explain's parts: the approximations, then the skipped paths. */
static bool get_notes(cursor *c, cordon_lx_plan *p) {
  for (int list = 0; list < 2 && !c->bad; list++) {
    uint32_t n = get_count(c);
    for (uint32_t i = 0; i < n && !c->bad; i++) {
      char *source = get_str(c), *text = get_str(c);
      if (c->bad || !(list == 0 ? cordon_lx_plan_note(p, source, "%s", text) : cordon_lx_plan_skip(p, source, text)))
        c->bad = true;
      free(source), free(text);
    }
  }
  return !c->bad;
}

cordon_lx_plan *cordon_lx_plancache_parse(const char *data, size_t n, const char *key) {
  cursor c = {(const unsigned char *)data, n, false};
  if (!key || n < 12 || memcmp(data, PLAN_MAGIC, 8) != 0) return NULL;
  c.p += 8, c.left -= 8;
  if (get_u32(&c) != CORDON_PLANCACHE_FORMAT) return NULL;
  char *k = get_str(&c);
  bool same = !c.bad && strcmp(k, key) == 0;
  free(k);
  cordon_lx_plan *p = same ? cordon_lx_plan_new() : NULL;
  if (!p) return NULL;
  p->record = true;  /* a run stored from this plan replays its observations (runcache.h) */
  char *valid_for = NULL, *bpf = NULL;
  size_t base_len = 0, gate_len = 0;
  bool ok = get_observations(&c, p) && get_plan(&c, p) && get_notes(&c, p) &&
            p->npass_fds == 0 && (c.left == 0 || get_programs(&c, &valid_for, &bpf, &base_len, &gate_len, p)) && c.left == 0 &&
            cordon_lx_plan_gate_decode(p);  /* decoded now: the run cache's store asks the gate */
  free(valid_for), free(bpf);
  if (ok) return p;
  cordon_lx_plan_free(p);
  return NULL;
}
