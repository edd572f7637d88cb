/* src/backend/linux/eval.c — subtree-aware SBPL decisions for the Linux compiler (see eval.h). */
#include "backend/linux/eval.h"

#include "core/path.h"
#include "sbpl/match_regex.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef enum { T_NO = 0, T_YES = 1, T_UNKNOWN = 2 } tri;

/* Per-filter acceleration, built on first use: a require-any over many paths (the common shape of a
 * fragment's grant) becomes two sorted arrays searched once per ancestor of the probe, and a regex is
 * compiled once. Keyed by filter address in an open-addressing table. */
typedef struct lx_accel {
  const cordon_filter *f;
  const char **lits, **subs;  /* borrowed argument strings, sorted */
  size_t nlits, nsubs;
  const cordon_filter **rest; /* children that are not plain literal/subpath paths */
  size_t nrest;
  cordon_regex *re;           /* compiled on first use, the same dialect and limits as decisions */
} lx_accel;

static void accel_free(lx_rules *rs) {
  for (size_t i = 0; i < rs->accel_cap; i++) {
    lx_accel *a = &rs->accel[i];
    if (!a->f) continue;
    free(a->lits);
    free(a->subs);
    free(a->rest);
    cordon_regex_free(a->re);
  }
  free(rs->accel);
}

static size_t hash_ptr(const void *p, size_t cap) { return (size_t)(((uintptr_t)p >> 4) * 2654435761u) & (cap - 1); }

/* The slot for `f`, creating it (zeroed, f set); NULL when out of memory. */
static lx_accel *accel_slot(lx_rules *rs, const cordon_filter *f) {
  if (rs->accel_cap) {
    for (size_t i = hash_ptr(f, rs->accel_cap);; i = (i + 1) & (rs->accel_cap - 1)) {
      if (rs->accel[i].f == f) return &rs->accel[i];
      if (!rs->accel[i].f) break;
    }
  }
  if (2 * (rs->naccel + 1) > rs->accel_cap) {
    size_t cap = rs->accel_cap ? rs->accel_cap * 2 : 64;
    lx_accel *t = calloc(cap, sizeof *t);
    if (!t) return NULL;
    for (size_t i = 0; i < rs->accel_cap; i++) {
      if (!rs->accel[i].f) continue;
      size_t j = hash_ptr(rs->accel[i].f, cap);
      while (t[j].f) j = (j + 1) & (cap - 1);
      t[j] = rs->accel[i];
    }
    free(rs->accel);
    rs->accel = t;
    rs->accel_cap = cap;
  }
  size_t i = hash_ptr(f, rs->accel_cap);
  while (rs->accel[i].f) i = (i + 1) & (rs->accel_cap - 1);
  rs->accel[i].f = f;
  rs->naccel++;
  return &rs->accel[i];
}

static int str_cmp(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

static bool in_sorted(const char **v, size_t n, const char *key) {
  return n && bsearch(&key, v, n, sizeof *v, str_cmp) != NULL;
}


/* The operation chains, one per class, most specific first (the fallback hierarchy of ops.h). */
static const char *const chains[LX_CLASSES][LX_LEVELS] = {
    {"file-read-data", "file-read*", "file*", "default"},
    {"file-write-data", "file-write*", "file*", "default"},
    {"file-write-create", "file-write*", "file*", "default"},
    {"file-write-unlink", "file-write*", "file*", "default"},
    {"process-exec*", "process*", "default", NULL},
    {"network-outbound", "network*", "default", NULL},  /* LX_CONNECT: connect() to a unix socket path */
};

static bool grow(lx_rules *rs) {
  if (rs->count < rs->cap) return true;
  size_t n = rs->cap ? rs->cap * 2 : 64;
  lx_xrule *p = realloc(rs->items, n * sizeof *p);
  if (!p) return false;
  rs->items = p;
  rs->cap = n;
  return true;
}

static bool levels_for(const char *const *ops, size_t nops, unsigned char levels[LX_CLASSES]) {
  bool any = false;
  memset(levels, 0, LX_CLASSES);
  for (size_t i = 0; i < nops; i++)
    for (int c = 0; c < LX_CLASSES; c++)
      for (int l = 0; l < LX_LEVELS && chains[c][l]; l++)
        if (strcmp(ops[i], chains[c][l]) == 0) {
          levels[c] |= (unsigned char)(1u << l);
          any = true;
        }
  return any;
}

static char *where(const cordon_loc *loc) {
  cordon_buf b = CORDON_BUF_INIT;
  cordon_buf_printf(&b, "%s:%u:%u", loc->file ? loc->file : "<policy>", loc->line, loc->col);
  return cordon_buf_take(&b);
}

bool lx_rules_add_policy(lx_rules *rs, const cordon_policy *p) {
  for (size_t i = 0; i < p->nrules; i++) {
    const cordon_rule *r = &p->rules[i];
    unsigned char levels[LX_CLASSES];
    if (!levels_for((const char *const *)r->ops, r->nops, levels)) continue;
    if (!grow(rs)) return false;
    lx_xrule *x = &rs->items[rs->count];
    memset(x, 0, sizeof *x);
    x->action = r->action;
    memcpy(x->levels, levels, sizeof levels);
    x->filter = r->filter;
    if (!(x->source = where(&r->loc))) return false;
    rs->count++;
  }
  return true;
}

bool lx_rules_add_path(lx_rules *rs, cordon_action a, unsigned classes, const char *path, bool subtree,
                       const char *source) {
  if (!grow(rs)) return false;
  lx_xrule *x = &rs->items[rs->count];
  memset(x, 0, sizeof *x);
  x->action = a;
  /* Synthetic allows go first and name only the wildcard level (file-read*, file-write*; process-exec*
   * for exec), as the Seatbelt profile section writes them: a later policy rule on the same level wins,
   * and so does any rule on a more specific operation. Synthetic denies go last and name every level but
   * default, so nothing in the policy overrides them. */
  for (int c = 0; c < LX_CLASSES; c++)
    if (classes & (1u << c)) {
      if (a == CORDON_ALLOW) x->levels[c] = c == 4 ? 0x1 : 0x2;
      else x->levels[c] = c == 4 ? 0x3 : 0x7;
    }
  x->path = strdup(path);
  x->subtree = subtree;
  x->source = strdup(source);
  if (!x->path || !x->source) {
    free((char *)x->path);
    free(x->source);
    return false;
  }
  rs->count++;
  return true;
}

bool lx_rules_add_rule(lx_rules *rs, cordon_action a, const unsigned char levels[LX_CLASSES],
                       const cordon_filter *filter, const char *path, bool subtree, const char *source) {
  if (!grow(rs)) return false;
  lx_xrule *x = &rs->items[rs->count];
  memset(x, 0, sizeof *x);
  x->action = a;
  memcpy(x->levels, levels, sizeof x->levels);
  x->filter = filter;
  x->subtree = subtree;
  x->path = path ? strdup(path) : NULL;
  x->source = strdup(source ? source : "");
  if ((path && !x->path) || !x->source) {
    free((char *)x->path);
    free(x->source);
    return false;
  }
  rs->count++;
  return true;
}

bool lx_rules_add_default(lx_rules *rs, cordon_action a) {
  if (!grow(rs)) return false;
  lx_xrule *x = &rs->items[rs->count];
  memset(x, 0, sizeof *x);
  x->action = a;
  for (int c = 0; c < LX_CLASSES; c++)
    for (int l = 0; l < LX_LEVELS && chains[c][l]; l++)
      if (strcmp(chains[c][l], "default") == 0) x->levels[c] = (unsigned char)(1u << l);
  if (!(x->source = strdup("built-in (deny default)"))) return false;
  rs->count++;
  return true;
}

bool lx_rules_index(lx_rules *rs) {
  rs->memo = malloc(rs->count ? rs->count : 1);
  if (!rs->memo || !lx_pindex_build(rs)) return false;
  for (int c = 0; c < LX_CLASSES; c++)
    for (int l = 0; l < LX_LEVELS; l++) {
      size_t n = 0;
      for (size_t i = 0; i < rs->count; i++) n += (rs->items[i].levels[c] >> l) & 1u;
      rs->index[c][l] = n ? malloc(n * sizeof(size_t)) : NULL;
      if (n && !rs->index[c][l]) return false;
      rs->nindex[c][l] = 0;
      for (size_t i = 0; i < rs->count; i++)
        if ((rs->items[i].levels[c] >> l) & 1u) rs->index[c][l][rs->nindex[c][l]++] = i;
    }
  return true;
}

void lx_rules_free(lx_rules *rs) {
  for (size_t i = 0; i < rs->count; i++) {
    free((char *)rs->items[i].path);
    free(rs->items[i].source);
  }
  free(rs->items);
  for (int c = 0; c < LX_CLASSES; c++)
    for (int l = 0; l < LX_LEVELS; l++) free(rs->index[c][l]);
  free(rs->memo);
  lx_pindex_free(rs);
  accel_free(rs);
  memset(rs, 0, sizeof *rs);
}

const char *lx_arg(const lx_rules *rs, const cordon_arg *a) {
  if (!a->is_param) return a->text;
  for (size_t i = 0; i < rs->nparams; i++)
    if (strcmp(rs->params[2 * i], a->text) == 0) return rs->params[2 * i + 1];
  return NULL;
}

size_t lx_regex_anchor(const char *re, char *out, size_t cap) {
  size_t n = 0;
  if (re[0] != '^' || cap == 0) return 0;
  /* a top-level alternative ("^/a|/b") has no common prefix */
  int depth = 0;
  for (const char *p = re; *p; p++) {
    if (*p == '\\' && p[1]) p++;
    else if (*p == '(') depth++;
    else if (*p == ')') depth--;
    else if (*p == '|' && depth == 0) return 0;
  }
  for (const char *p = re + 1; *p && n + 1 < cap; p++) {
    if (*p == '\\') {
      /* an escaped punctuation character is itself; an escaped letter is a class (\w, \d): stop */
      if (!p[1] || (p[1] >= 'a' && p[1] <= 'z') || (p[1] >= 'A' && p[1] <= 'Z') || (p[1] >= '0' && p[1] <= '9')) break;
      out[n++] = *++p;
      continue;
    }
    if (strchr(".[]()*+?{}|^$", *p)) {
      if (n > 0 && strchr("*?{", *p)) n--;  /* the character before an optional quantifier may be absent */
      break;
    }
    out[n++] = *p;
  }
  out[n] = '\0';
  return n;
}

/* A regex over the interior of `path`: its anchored literal prefix tells where it can match at all. The
 * compiler adds the prefix's directory as a node, so a prefix reaching strictly deeper than `path` only
 * matches inside that node's subtree, never in `path`'s interior. */
static tri regex_interior(const char *re, const char *path) {
  char lit[CORDON_PATH_MAX];
  size_t n = lx_regex_anchor(re, lit, sizeof lit);
  if (n == 0) return T_UNKNOWN;
  size_t pl = strlen(path);
  if (strncmp(path, lit, n) == 0) return T_UNKNOWN;  /* every path beneath starts with the prefix */
  bool root = strcmp(path, "/") == 0;
  if (root ? lit[0] == '/' : (strncmp(lit, path, pl) == 0 && lit[pl] == '/')) {
    const char *rest = lit + (root ? 1 : pl + 1);
    return strchr(rest, '/') ? T_NO : T_UNKNOWN;  /* deeper directory: a node of its own */
  }
  return T_NO;
}

/* One path filter against a probe. An interior probe stands for any path strictly beneath `path` that
 * no rule names, so a literal never equals it and a subpath covers it exactly when it covers `path`. */
static tri match_path(lx_rules *rs, const cordon_filter *f, const char *path, bool interior) {
  if (f->nargs != 1) return T_UNKNOWN;
  const char *s = lx_arg(rs, &f->args[0]);
  if (!s) return T_UNKNOWN;
  size_t n = strlen(s);
  switch (f->match) {
  case CORDON_MATCH_LITERAL:
    return !interior && strcmp(s, path) == 0 ? T_YES : T_NO;
  case CORDON_MATCH_SUBPATH:
    return n > 0 && s[0] == '/' && cordon_path_within(s, path) ? T_YES : T_NO;
  case CORDON_MATCH_PREFIX:
    if (strncmp(path, s, n) == 0) return T_YES;  /* then every path beneath starts with it too */
    if (!interior) return T_NO;
    /* the prefix reaches below `path`: some interior paths match, others do not */
    return strncmp(s, path, strlen(path)) == 0 && s[strlen(path)] == '/' ? T_UNKNOWN : T_NO;
  case CORDON_MATCH_REGEX: {
    if (interior) return regex_interior(s, path);
    lx_accel *a = accel_slot(rs, f);
    if (!a) return T_UNKNOWN;
    if (!a->re && !(a->re = cordon_regex_new(s, NULL, 0))) return T_UNKNOWN;
    int found = cordon_regex_search(a->re, path, strlen(path));
    return found < 0 ? T_UNKNOWN : found ? T_YES : T_NO;
  }
  default:
    return T_UNKNOWN;
  }
}

static tri match(lx_rules *rs, const cordon_filter *f, const char *path, bool interior);

/* A network filter against a connect to the unix socket at `path`, as the decision evaluator reads it
 * (src/sbpl/match.c): (remote unix-socket (path-literal …)) matches through its path filters, a bare
 * (remote unix-socket) any socket; an ip or tcp address, or a local one, never names a socket path. */
static tri match_network(lx_rules *rs, const cordon_filter *f, const char *path) {
  if (!f->name || strcmp(f->name, "remote") != 0 || f->nargs == 0) return T_NO;
  const char *proto = lx_arg(rs, &f->args[0]);
  if (!proto) return T_UNKNOWN;
  if (strncmp(proto, "unix", 4) != 0) return T_NO;
  if (f->nchildren == 0) return f->nargs < 2 ? T_YES : T_UNKNOWN;
  tri r = T_NO;
  for (size_t i = 0; i < f->nchildren && r != T_YES; i++) {
    tri c = match(rs, f->children[i], path, false);
    if (c == T_YES) r = T_YES;
    else if (c == T_UNKNOWN) r = T_UNKNOWN;
  }
  return r;
}

static bool plain_path(const lx_rules *rs, const cordon_filter *c, const char **arg) {
  if (c->kind != CORDON_F_PATH || c->nargs != 1) return false;
  if (c->match != CORDON_MATCH_LITERAL && c->match != CORDON_MATCH_SUBPATH) return false;
  *arg = lx_arg(rs, &c->args[0]);
  return *arg != NULL;
}

static bool build_any(lx_rules *rs, lx_accel *a, const cordon_filter *f) {
  a->lits = calloc(f->nchildren, sizeof *a->lits);
  a->subs = calloc(f->nchildren, sizeof *a->subs);
  a->rest = calloc(f->nchildren, sizeof *a->rest);
  if (!a->lits || !a->subs || !a->rest) return false;
  for (size_t i = 0; i < f->nchildren; i++) {
    const char *arg;
    const cordon_filter *c = f->children[i];
    if (!plain_path(rs, c, &arg)) a->rest[a->nrest++] = c;
    else if (c->match == CORDON_MATCH_LITERAL) a->lits[a->nlits++] = arg;
    else a->subs[a->nsubs++] = arg;
  }
  qsort(a->lits, a->nlits, sizeof *a->lits, str_cmp);
  qsort(a->subs, a->nsubs, sizeof *a->subs, str_cmp);
  return true;
}

static tri match_any_fast(lx_rules *rs, const cordon_filter *f, const char *path, bool interior) {
  lx_accel *a = accel_slot(rs, f);
  if (!a || (!a->lits && !build_any(rs, a, f))) return T_UNKNOWN;
  if (!interior && in_sorted(a->lits, a->nlits, path)) return T_YES;
  if (a->nsubs) {
    /* a subpath matches when it is the path or one of its ancestors */
    char buf[CORDON_PATH_MAX];
    size_t n = strlen(path);
    if (n < sizeof buf) {
      memcpy(buf, path, n + 1);
      if (in_sorted(a->subs, a->nsubs, "/") || in_sorted(a->subs, a->nsubs, buf)) return T_YES;
      for (size_t i = n; i-- > 1;)
        if (buf[i] == '/') {
          buf[i] = '\0';
          if (in_sorted(a->subs, a->nsubs, buf)) return T_YES;
        }
    }
  }
  tri r = T_NO;
  for (size_t i = 0; i < a->nrest && r != T_YES; i++) {
    tri c = match(rs, a->rest[i], path, interior);
    if (c == T_YES) r = T_YES;
    else if (c == T_UNKNOWN) r = T_UNKNOWN;
  }
  return r;
}

static tri match(lx_rules *rs, const cordon_filter *f, const char *path, bool interior) {
  switch (f->kind) {
  case CORDON_F_PATH:
    return match_path(rs, f, path, interior);
  case CORDON_F_ALL: {
    tri r = T_YES;
    for (size_t i = 0; i < f->nchildren && r != T_NO; i++) {
      tri c = match(rs, f->children[i], path, interior);
      if (c == T_NO) r = T_NO;
      else if (c == T_UNKNOWN) r = T_UNKNOWN;
    }
    return r;
  }
  case CORDON_F_ANY: {
    if (f->nchildren >= 8) return match_any_fast(rs, f, path, interior);
    tri r = T_NO;
    for (size_t i = 0; i < f->nchildren && r != T_YES; i++) {
      tri c = match(rs, f->children[i], path, interior);
      if (c == T_YES) r = T_YES;
      else if (c == T_UNKNOWN) r = T_UNKNOWN;
    }
    return r;
  }
  case CORDON_F_NOT: {
    if (f->nchildren != 1) return T_UNKNOWN;
    tri c = match(rs, f->children[0], path, interior);
    return c == T_UNKNOWN ? T_UNKNOWN : c == T_YES ? T_NO : T_YES;
  }
  case CORDON_F_NETWORK:
    return rs->connect_probe ? match_network(rs, f, path) : T_UNKNOWN;
  default:
    return T_UNKNOWN;  /* vnode-type, extensions, unknown filters: the path alone cannot tell */
  }
}

static tri rule_matches(lx_rules *rs, const lx_xrule *x, const char *path, bool interior) {
  if (x->path) {
    if (!cordon_path_within(x->path, path)) return T_NO;
    if (x->subtree) return T_YES;
    return !interior && strcmp(x->path, path) == 0 ? T_YES : T_NO;
  }
  return x->filter ? match(rs, x->filter, path, interior) : T_YES;
}

static void report(lx_xrule *x, const char *path, cordon_lx_plan *notes) {
  if (x->reported || !notes) return;
  x->reported = true;
  cordon_lx_plan_note(notes, x->source,
                      "%s rule whose filter the path alone cannot decide (first met at %s) taken as %s",
                      cordon_action_name(x->action), path,
                      x->action == CORDON_DENY ? "matching: denied there" : "not matching: not granted");
}

static bool is_write_class(int c) { return c == 1 || c == 2 || c == 3; }

/* `why` (may be NULL) receives the rule that decided, NULL when none on the chain did. */
static bool decide_class(lx_rules *rs, int c, const char *path, bool interior, cordon_lx_plan *notes,
                         const lx_xrule **why) {
  if (why) *why = NULL;
  /* upper bound: a filtered deny never decides, a filtered allow that may match does */
  bool upper = rs->writes_upper && is_write_class(c);
  for (int l = 0; l < LX_LEVELS && chains[c][l]; l++) {
    const size_t *idx = rs->index[c][l];
    size_t n = rs->nindex[c][l];
    const lx_xrule *fallback = NULL;
    for (size_t k = n; k-- > 0;) {
      lx_xrule *x = &rs->items[idx[k]];
      if (!x->filter && !x->path) {
        if (!fallback) fallback = x;
        continue;
      }
      if (upper && x->action == CORDON_DENY) continue;
      size_t id = idx[k];
      if (rs->memo[id] == 0xff) rs->memo[id] = (unsigned char)rule_matches(rs, x, path, interior);
      tri t = (tri)rs->memo[id];
      if (t == T_YES || (t == T_UNKNOWN && (upper || x->action == CORDON_DENY))) {
        if (t == T_UNKNOWN && !upper) report(x, path, notes);
        if (why) *why = x;
        return x->action == CORDON_ALLOW;
      }
      if (t == T_UNKNOWN) report(x, path, notes);
    }
    if (fallback) {
      if (why) *why = fallback;
      return fallback->action == CORDON_ALLOW;
    }
  }
  return true;  /* no rule on the whole chain, not even default */
}

unsigned lx_decide(lx_rules *rs, const char *path, bool interior, cordon_lx_plan *notes) {
  unsigned out = 0;
  lx_pindex_prime(rs, path);
  for (int c = 0; c < LX_FILE_CLASSES; c++)
    if (decide_class(rs, c, path, interior, notes, NULL)) out |= 1u << c;
  return out;
}

bool lx_decide_why(lx_rules *rs, unsigned cls, const char *path, const lx_xrule **why) {
  int c = 0;
  while (c < LX_FILE_CLASSES - 1 && !(cls & (1u << c))) c++;
  lx_pindex_prime(rs, path);
  return decide_class(rs, c, path, false, NULL, why);
}

bool lx_decide_connect_why(lx_rules *rs, const char *path, cordon_lx_plan *notes, const lx_xrule **why) {
  /* the memo is per probe and filled under this mode: the next lx_decide primes it afresh */
  rs->connect_probe = true;
  lx_pindex_prime(rs, path);
  bool allowed = decide_class(rs, LX_CONNECT, path, false, notes, why);
  rs->connect_probe = false;
  return allowed;
}

bool lx_decide_connect(lx_rules *rs, const char *path, cordon_lx_plan *notes) {
  return lx_decide_connect_why(rs, path, notes, NULL);
}

static bool filter_names_path(const cordon_filter *f) {
  if (f->kind == CORDON_F_PATH) return f->nargs == 1;
  if (f->kind == CORDON_F_NOT) return false;  /* "anything but P" names no socket */
  for (size_t i = 0; i < f->nchildren; i++)
    if (filter_names_path(f->children[i])) return true;
  return false;
}

bool lx_rule_names_path(const lx_xrule *x) { return x->path || (x->filter && filter_names_path(x->filter)); }

static bool strictly_beneath(const char *base, const char *arg) {
  size_t n = strlen(base);
  if (n == 1 && base[0] == '/') return arg[0] == '/' && arg[1] != '\0';
  return strncmp(arg, base, n) == 0 && arg[n] == '/' && arg[n + 1] != '\0';
}

static void deny_args(lx_rules *rs, const cordon_filter *f, const char *path,
                      void (*fn)(void *ud, const char *arg, bool exact), void *ud) {
  if (f->kind == CORDON_F_NOT) return;
  if (f->kind == CORDON_F_PATH && f->nargs == 1) {
    const char *a = lx_arg(rs, &f->args[0]);
    if (!a) return;
    char head[CORDON_PATH_MAX];
    bool exact = f->match == CORDON_MATCH_LITERAL || f->match == CORDON_MATCH_SUBPATH;
    if (f->match == CORDON_MATCH_REGEX) {
      if (lx_regex_anchor(a, head, sizeof head) == 0) return;
      a = head;
    }
    if (strictly_beneath(path, a)) fn(ud, a, exact);
    return;
  }
  for (size_t i = 0; i < f->nchildren; i++) deny_args(rs, f->children[i], path, fn, ud);
}

void lx_deny_args_beneath(lx_rules *rs, unsigned classes, const char *path,
                          void (*fn)(void *ud, const char *arg, bool exact), void *ud) {
  for (size_t i = 0; i < rs->count; i++) {
    const lx_xrule *x = &rs->items[i];
    bool names = false;
    for (int c = 0; c < LX_FILE_CLASSES; c++)
      if ((classes & (1u << c)) && x->levels[c]) names = true;
    if (!names || x->action != CORDON_DENY) continue;
    if (x->path) {
      if (strictly_beneath(path, x->path)) fn(ud, x->path, true);
    } else if (x->filter) {
      deny_args(rs, x->filter, path, fn, ud);
    }
  }
}
