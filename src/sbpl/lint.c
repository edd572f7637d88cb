/* src/sbpl/lint.c — the SBPL linter: the mistakes that bite profile authors, each with a stable code (docs/lint.md) */
#include "sbpl/lint.h"

#include "core/buf.h"
#include "sbpl/lint_region.h"
#include "sbpl/match.h"
#include "sbpl/ops.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *cordon_diag_severity_name(cordon_diag_severity s) {
  return s == CORDON_DIAG_ERROR ? "error" : "warning";
}

static bool vadd(cordon_lint_report *r, cordon_diag_severity sev, const char *code, cordon_loc loc,
                 const char *fmt, va_list ap) {
  if (r->n == r->cap) {
    size_t n = r->cap ? r->cap * 2 : 16;
    cordon_diag *d = realloc(r->items, n * sizeof *d);
    if (!d) return false;
    r->items = d;
    r->cap = n;
  }
  cordon_buf msg = CORDON_BUF_INIT;
  cordon_buf_vprintf(&msg, fmt, ap);
  cordon_diag *d = &r->items[r->n];
  d->severity = sev;
  d->loc = loc;
  d->code = strdup(code);
  d->message = cordon_buf_take(&msg);
  if (!d->code || !d->message) {
    free(d->code);
    free(d->message);
    return false;
  }
  r->n++;
  return true;
}

bool cordon_lint_add(cordon_lint_report *r, cordon_diag_severity sev, const char *code, cordon_loc loc,
                     const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  bool ok = vadd(r, sev, code, loc, fmt, ap);
  va_end(ap);
  return ok;
}

void cordon_lint_report_free(cordon_lint_report *r) {
  for (size_t i = 0; i < r->n; i++) {
    free(r->items[i].code);
    free(r->items[i].message);
  }
  free(r->items);
  memset(r, 0, sizeof *r);
}

/* ---- the linter's state ------------------------------------------------------------------------- */

typedef struct {
  cordon_policy *p;
  cordon_lint_report *out;
  bool ok;               /* false once an allocation failed */
  cordon_region *regions;/* per rule, built lazily for the relation checks */
  bool *computed;
  const char **canon;    /* canonical operation names of all rules, rule after rule */
  size_t *canon_at;      /* where each rule's names start in `canon` */
} linter;

static void finding(linter *l, cordon_diag_severity sev, const char *code, cordon_loc loc, const char *fmt,
                    ...) __attribute__((format(printf, 5, 6)));

static bool same_loc(cordon_loc a, cordon_loc b) {
  return a.line == b.line && a.col == b.col && (a.file == b.file || (a.file && b.file && !strcmp(a.file, b.file)));
}

static void finding(linter *l, cordon_diag_severity sev, const char *code, cordon_loc loc, const char *fmt, ...) {
  /* the evaluator may already have reported the same thing at the same place */
  for (size_t i = 0; i < l->p->ndiags; i++)
    if (!strcmp(l->p->diags[i].code, code) && same_loc(l->p->diags[i].loc, loc)) return;
  for (size_t i = 0; i < l->out->n; i++)
    if (!strcmp(l->out->items[i].code, code) && same_loc(l->out->items[i].loc, loc)) return;
  va_list ap;
  va_start(ap, fmt);
  if (!vadd(l->out, sev, code, loc, fmt, ap)) l->ok = false;
  va_end(ap);
}

/* Where a finding about filter `f` of rule `r` is reported: the filter itself, unless it was built in
 * another file than the rule, by a helper such as (home-subpath …) defined in a tree's 00-base.sb.
 * The mistake is then in the call, which the rule's place points at, not in the helper's body. */
static cordon_loc filter_loc(const cordon_filter *f, const cordon_rule *r) {
  if (!f || !f->loc.line) return r->loc;
  cordon_loc loc = f->loc;
  if (!loc.file) loc.file = r->loc.file;
  if (r->loc.file && loc.file != r->loc.file && strcmp(loc.file, r->loc.file) != 0) return r->loc;
  return loc;
}

/* A short, one-line form of a rule for messages: its source text (first line, clipped) or its ops. */
static void rule_brief(const cordon_rule *r, char *buf, size_t cap) {
  if (r->text) {
    size_t n = strcspn(r->text, "\n");
    if (n > 70) n = 70;
    snprintf(buf, cap, "%.*s%s", (int)n, r->text, (r->text[n] && n == 70) || r->text[n] == '\n' ? " …" : "");
    return;
  }
  snprintf(buf, cap, "(%s %s%s)", cordon_action_name(r->action), r->nops ? r->ops[0] : "?",
           r->nops > 1 ? " …" : "");
}

static void where(const cordon_rule *r, char *buf, size_t cap) {
  snprintf(buf, cap, "%s:%u", r->loc.file ? r->loc.file : "<input>", r->loc.line);
}

/* ---- single-rule checks ------------------------------------------------------------------------- */

/* network-outbound itself or its family network* (default is too coarse to mean it). */
static bool names_outbound(const cordon_rule *r) {
  for (size_t i = 0; i < r->nops; i++) {
    const char *c = cordon_sbpl_op_canonical(r->ops[i]);
    if (c && (!strcmp(c, "network-outbound") || !strcmp(c, "network*"))) return true;
  }
  return false;
}

static void check_network(linter *l, const cordon_rule *r, const cordon_filter *f) {
  cordon_loc loc = filter_loc(f, r);
  if (r->action == CORDON_ALLOW && !strcmp(f->name, "local") && names_outbound(r))
    finding(l, CORDON_DIAG_WARNING, "outbound-local", loc,
            "(local …) on network-outbound matches the local end of every outbound connection, so it "
            "allows all outbound traffic; use (remote …) to limit destinations");
  if (f->nargs >= 2 && !f->args[1].is_param) {
    const char *addr = f->args[1].text;
    const char *colon = strrchr(addr, ':');
    size_t hl = colon ? (size_t)(colon - addr) : strlen(addr);
    if (!(hl == 1 && addr[0] == '*') && !(hl == 9 && !strncmp(addr, "localhost", 9)))
      finding(l, CORDON_DIAG_ERROR, "network-host", loc,
              "host '%.*s' in (%s … \"%s\"): Seatbelt accepts only '*' or 'localhost' here and refuses to "
              "load the whole profile otherwise", (int)hl, addr, f->name, addr);
  }
}

/* A require-all that also holds a literal, subpath or prefix (or an anchored regex) confines its other
 * children to those paths: an unanchored regex beside one is a deliberate "at any depth below". */
static bool confines(const cordon_filter *f) {
  if (f->kind != CORDON_F_ALL) return false;
  for (size_t i = 0; i < f->nchildren; i++) {
    const cordon_filter *c = f->children[i];
    if (c->kind == CORDON_F_ANY && c->nchildren) {
      bool all = true;
      for (size_t k = 0; k < c->nchildren && all; k++)
        all = c->children[k]->kind == CORDON_F_PATH && c->children[k]->match != CORDON_MATCH_REGEX;
      if (all) return true;
    }
    if (c->kind != CORDON_F_PATH || !c->nargs) continue;
    if (c->match != CORDON_MATCH_REGEX || c->args[0].text[0] == '^') return true;
  }
  return false;
}

static void check_filter(linter *l, const cordon_rule *r, cordon_filter *f, bool confined) {
  cordon_loc loc = filter_loc(f, r);
  for (size_t i = 0; i < f->nargs; i++) {
    size_t n = strlen(f->args[i].text);
    if (!f->args[i].is_param && n > CORDON_SBPL_MAX_LITERAL)
      finding(l, CORDON_DIAG_ERROR, "string-too-long", loc,
              "a %zu-byte string in (%s …): sandbox-exec rejects literals over %d bytes; pass it as a -D "
              "parameter", n, f->name, CORDON_SBPL_MAX_LITERAL);
  }
  switch (f->kind) {
  case CORDON_F_PATH:
    if (f->nargs >= 1 && !f->args[0].is_param) {
      const char *s = f->args[0].text;
      size_t n = strlen(s);
      if ((f->match == CORDON_MATCH_LITERAL || f->match == CORDON_MATCH_SUBPATH) && n > 1 && s[n - 1] == '/')
        finding(l, CORDON_DIAG_WARNING, "trailing-slash", loc,
                "(%s \"%s\") never matches: kernel paths never end in '/'; write \"%.*s\"", f->name, s,
                (int)(n - 1), s);
    }
    /* path regexes get the regex checks below */
    __attribute__((fallthrough));
  case CORDON_F_NAME:
    if (f->match == CORDON_MATCH_REGEX && f->nargs >= 1 && !f->args[0].is_param) {
      char err[160] = "";
      /* The regex primitive refuses a pattern too costly to compile (match_regex.c) before regcomp
       * sees it, so linting a hostile policy costs an error, not the machine's memory. */
      if (!cordon_filter_compile_regex(f, f->args[0].text, err, sizeof err))
        finding(l, CORDON_DIAG_ERROR, "regex-invalid", loc, "(%s #\"%.200s%s\") does not compile: %s; simplify it",
                f->name, f->args[0].text, strlen(f->args[0].text) > 200 ? "…" : "", err);
      else if (r->action == CORDON_DENY && f->args[0].text[0] != '^' && !confined)
        finding(l, CORDON_DIAG_WARNING, "unanchored-regex", loc,
                "deny regex #\"%s\" is not anchored: it matches anywhere in the path, so it may deny far "
                "more than meant; start it with ^", f->args[0].text);
    }
    break;
  case CORDON_F_NETWORK:
    check_network(l, r, f);
    break;
  case CORDON_F_OTHER:
    if (!r->text)
      finding(l, CORDON_DIAG_WARNING, "unknown-filter", loc,
              "unknown filter '%s': kept, but never matches unless a query states it as a fact", f->name);
    break;
  default:
    break;
  }
  bool inner = confined || confines(f);
  for (size_t i = 0; i < f->nchildren; i++) check_filter(l, r, f->children[i], inner);
}

static void check_rule(linter *l, cordon_rule *r) {
  /* Rules read from text (they carry it) had unknown names reported by the evaluator, at the name's own
   * column; only builder rules need the check here. */
  bool read = r->text != NULL;
  for (size_t i = 0; i < r->nops && !read; i++)
    if (!cordon_sbpl_op_canonical(r->ops[i]))
      finding(l, CORDON_DIAG_WARNING, "unknown-operation", r->loc,
              "unknown operation '%s': no rule on it can ever decide a known operation", r->ops[i]);
  for (size_t i = 0; i < r->nmods; i++) {
    const char *m = r->mods[i].name;
    bool known = cordon_sbpl_modifier_known(m);
    if (!known && !read) finding(l, CORDON_DIAG_WARNING, "unknown-modifier", r->loc, "unknown modifier (with %s)", m);
    if (!strcmp(m, "no-sandbox"))
      finding(l, CORDON_DIAG_WARNING, "no-sandbox", r->loc,
              "(with no-sandbox) runs the matching program with no sandbox at all: everything it does is "
              "allowed");
    if (r->mods[i].arg && strlen(r->mods[i].arg) > CORDON_SBPL_MAX_LITERAL)
      finding(l, CORDON_DIAG_ERROR, "string-too-long", r->loc,
              "the (with %s …) string is over %d bytes: sandbox-exec rejects it", m, CORDON_SBPL_MAX_LITERAL);
  }
  if (r->filter) check_filter(l, r, r->filter, false);
}

/* ---- rule relations ----------------------------------------------------------------------------- */

static cordon_region *region(linter *l, size_t i) {
  cordon_region *rg = &l->regions[i];
  if (!l->computed[i]) {
    l->computed[i] = true;
    if (!cordon_region_of(l->p->rules[i].filter, rg)) {
      l->ok = false;
      rg->known = false;
    }
  }
  return rg;
}

/* The canonical name of operation k of rule r (NULL when unknown), looked up once per policy: the
 * relation checks compare every pair of rules. */
#define canon(r, k) (l->canon[l->canon_at[(size_t)((r) - l->p->rules)] + (k)])

static bool names_op(const linter *l, const cordon_rule *r, const char *op) {
  for (size_t k = 0; k < r->nops; k++)
    if (canon(r, k) == op) return true; /* canonical names are the table's own pointers */
  return false;
}
#define rule_names(r, op) names_op(l, (r), (op))

/* A rule never decides when, for each of its operations, a later rule on the same operation covers
 * all its targets (filtered by filtered, unfiltered by unfiltered). */
static void check_shadowed(linter *l) {
  cordon_policy *p = l->p;
  for (size_t i = 0; i < p->nrules && l->ok; i++) {
    cordon_rule *r = &p->rules[i];
    if (!r->nops) continue;
    cordon_region *ri = region(l, i);
    if (!ri->known) continue;
    size_t by = SIZE_MAX;
    bool all = true;
    for (size_t k = 0; k < r->nops && all; k++) {
      const char *op = canon(r, k);
      bool covered = false;
      for (size_t j = p->nrules; op && j-- > i + 1 && !covered;) {
        if (!rule_names(&p->rules[j], op)) continue;
        cordon_region *rj = region(l, j);
        if ((r->filter == NULL) != (p->rules[j].filter == NULL)) continue;
        if (r->filter ? cordon_region_within(ri, rj) : true) covered = true, by = by == SIZE_MAX ? j : by;
      }
      all = covered;
    }
    if (!all || by == SIZE_MAX) continue;
    char brief[128], at[256], later[128];
    rule_brief(r, brief, sizeof brief);
    where(&p->rules[by], at, sizeof at);
    rule_brief(&p->rules[by], later, sizeof later);
    finding(l, CORDON_DIAG_WARNING, "shadowed-rule", r->loc,
            "%s never decides anything: the later rule at %s, %s, covers all of it%s", brief, at, later,
            p->rules[by].action == r->action ? " with the same action" : " and decides the opposite way");
  }
}

/* A cheap necessary condition for one operation to lie in the other's family: family names are
 * their members' stem plus '*' (file-read* holds file-read-data). cordon_sbpl_op_within decides. */
static bool may_nest(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  if (lb && b[lb - 1] == '*' && !strncmp(a, b, lb - 1)) return true;
  return la && a[la - 1] == '*' && !strncmp(a, b, la - 1);
}

/* A deny meant to beat an allow must name the same operation: a rule on a more specific operation is
 * consulted first (so a coarser deny loses), and a finer deny leaves the allow's other operations
 * open. */
static void check_deny_ops(linter *l) {
  cordon_policy *p = l->p;
  for (size_t i = 0; i < p->nrules && l->ok; i++) {
    cordon_rule *d = &p->rules[i];
    if (d->action != CORDON_DENY) continue;
    cordon_region *rd = region(l, i);
    if (!rd->known) continue;
    bool reported = false;
    for (size_t k = 0; k < d->nops && !reported; k++) {
      const char *od = canon(d, k);
      if (!od || !strcmp(od, "default")) continue;
      for (size_t j = 0; j < p->nrules && !reported; j++) {
        cordon_rule *a = &p->rules[j];
        if (a->action != CORDON_ALLOW) continue;
        for (size_t m = 0; m < a->nops && !reported; m++) {
          const char *oa = canon(a, m);
          /* (allow default) is a posture, not a grant a deny means to beat */
          if (!oa || oa == od || rule_names(d, oa) || !strcmp(oa, "default")) continue;
          if (!may_nest(oa, od)) continue;
          bool coarser = cordon_sbpl_op_within(oa, od), finer = cordon_sbpl_op_within(od, oa);
          if (!coarser && !finer) continue;
          cordon_region *ra = region(l, j);
          if (!ra->known) continue;
          if (coarser ? !cordon_region_overlaps(ra, rd) : !cordon_region_within(rd, ra)) continue;
          /* a deny on the allow's own operation over the same targets already does the job */
          bool handled = false;
          for (size_t q = 0; q < p->nrules && !handled; q++) {
            cordon_rule *o = &p->rules[q];
            if (o->action != CORDON_DENY || q == i || !rule_names(o, coarser ? oa : od)) continue;
            cordon_region *ro = region(l, q);
            handled = cordon_region_within(rd, ro) || (ro->everything && rd->everything);
          }
          if (handled) continue;
          char brief[128], at[256];
          rule_brief(a, brief, sizeof brief);
          where(a, at, sizeof at);
          if (coarser)
            finding(l, CORDON_DIAG_WARNING, "deny-op-mismatch", d->loc,
                    "this deny names %s, coarser than %s in %s at %s: rules on the more specific operation "
                    "are consulted first, so the allow still wins for %s; deny %s as well", od, oa, brief, at,
                    oa, oa);
          else
            finding(l, CORDON_DIAG_WARNING, "deny-op-mismatch", d->loc,
                    "this deny names only %s, finer than %s in %s at %s: the other operations under %s stay "
                    "allowed on these targets; deny %s if that is what you mean", od, oa, brief, at, oa, oa);
          reported = true;
        }
      }
    }
  }
}

/* ---- version forms ------------------------------------------------------------------------------ */

static void check_version_count(linter *l) {
  cordon_loc start = {l->p->nfiles ? l->p->files[0] : NULL, 1, 1};
  if (l->p->version_forms == 0)
    finding(l, CORDON_DIAG_WARNING, "version-missing", start, "no (version 1) form: sandbox-exec expects "
            "every profile to start with it");
  else if (l->p->version_forms > 1)
    finding(l, CORDON_DIAG_WARNING, "version-repeated", start, "(version …) appears %u times; write it once, "
            "first", l->p->version_forms);
}

/* ---- driver ------------------------------------------------------------------------------------- */

static int by_location(const void *a, const void *b) {
  const cordon_diag *x = a, *y = b;
  int c = strcmp(x->loc.file ? x->loc.file : "", y->loc.file ? y->loc.file : "");
  if (c) return c;
  if (x->loc.line != y->loc.line) return x->loc.line < y->loc.line ? -1 : 1;
  if (x->loc.col != y->loc.col) return x->loc.col < y->loc.col ? -1 : 1;
  return strcmp(x->code, y->code);
}

static bool run(cordon_policy *p, cordon_lint_report *out, const char *text, size_t len, const char *file) {
  linter l = {.p = p, .out = out, .ok = true};
  size_t first = out->n;
  for (size_t i = 0; i < p->ndiags; i++)
    if (!cordon_lint_add(out, p->diags[i].severity, p->diags[i].code, p->diags[i].loc, "%s", p->diags[i].message))
      return false;
  if (text) {
    if (!cordon_sbpl_lint_versions(text, len, file, out)) return false;
  } else {
    check_version_count(&l);
  }
  for (size_t i = 0; i < p->nrules; i++) check_rule(&l, &p->rules[i]);
  size_t nops = 0;
  for (size_t i = 0; i < p->nrules; i++) nops += p->rules[i].nops;
  l.regions = calloc(p->nrules ? p->nrules : 1, sizeof *l.regions);
  l.computed = calloc(p->nrules ? p->nrules : 1, sizeof *l.computed);
  l.canon = calloc(nops ? nops : 1, sizeof *l.canon);
  l.canon_at = calloc(p->nrules ? p->nrules : 1, sizeof *l.canon_at);
  if (!l.regions || !l.computed || !l.canon || !l.canon_at) {
    free(l.regions);
    free(l.computed);
    free(l.canon);
    free(l.canon_at);
    return false;
  }
  for (size_t i = 0, at = 0; i < p->nrules; i++) {
    l.canon_at[i] = at;
    for (size_t k = 0; k < p->rules[i].nops; k++) l.canon[at++] = cordon_sbpl_op_canonical(p->rules[i].ops[k]);
  }
  check_shadowed(&l);
  check_deny_ops(&l);
  for (size_t i = 0; i < p->nrules; i++) cordon_region_free(&l.regions[i]);
  free(l.regions);
  free(l.computed);
  free(l.canon);
  free(l.canon_at);
  if (out->n > first) qsort(out->items + first, out->n - first, sizeof *out->items, by_location);
  return l.ok;
}

bool cordon_sbpl_lint(cordon_policy *p, cordon_lint_report *out) { return run(p, out, NULL, 0, NULL); }

bool cordon_sbpl_lint_source(cordon_policy *p, const char *text, size_t len, const char *file,
                             cordon_lint_report *out) {
  return run(p, out, text, len, file);
}
