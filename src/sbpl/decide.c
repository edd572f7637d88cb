/* src/sbpl/decide.c — decisions: rules indexed by operation once, queries answered along the fallback chain */
#include "sbpl/decide.h"

#include "sbpl/decide_index.h"
#include "sbpl/ops.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  size_t *filtered; /* rule indexes in policy order */
  size_t nfiltered, cap;
  long unfiltered;  /* the last unfiltered rule, -1 when none */
  cordon_path_index index; /* answers path queries for the plain rules among `filtered` */
} bucket;

struct cordon_decider {
  cordon_policy *policy;
  bucket *buckets;  /* one per operation index (cordon_sbpl_op_index) */
  unsigned nbuckets;
  int default_index;
  int *parent;      /* parent operation index per operation index, -1 for default */
  char **where;     /* "file:line:col" per rule, made once so batch answers need no formatting */
  size_t nwhere;    /* kept apart from the policy: freeing a decider never touches its policy */
  char **params;    /* owned copies: key, value, … */
  size_t nparams;
  char **facts;     /* fact names decisions reported missing, kept so decisions can point at them */
  size_t nfacts;
};

/* A copy of `name` that lives as long as the decider; "a fact" when memory runs out. */
static const char *keep_fact(cordon_decider *d, const char *name) {
  for (size_t i = 0; i < d->nfacts; i++)
    if (!strcmp(d->facts[i], name)) return d->facts[i];
  char **grown = realloc(d->facts, (d->nfacts + 1) * sizeof *grown);
  if (!grown) return "a fact";
  d->facts = grown;
  if (!(d->facts[d->nfacts] = strdup(name))) return "a fact";
  return d->facts[d->nfacts++];
}

const char *cordon_decide_status_name(cordon_decide_status s) {
  switch (s) {
  case CORDON_DECIDE_OK: return "ok";
  case CORDON_DECIDE_UNKNOWN_OPERATION: return "unknown_operation";
  case CORDON_DECIDE_BAD_TARGET: return "bad_target";
  }
  return "unknown";
}

void cordon_rule_where(const cordon_rule *r, cordon_buf *out) {
  if (!r->loc.file && !r->loc.line) {
    cordon_buf_puts(out, "<builder>");
    return;
  }
  cordon_buf_printf(out, "%s:%u:%u", r->loc.file ? r->loc.file : "<input>", r->loc.line, r->loc.col);
}

static int op_slot(const char *name) {
  int i = cordon_sbpl_op_index(name);
  if (i < 0) i = cordon_sbpl_op_index(cordon_sbpl_op_canonical(name));
  return i;
}

static bool bucket_add(bucket *b, size_t rule) {
  if (b->nfiltered == b->cap) {
    size_t n = b->cap ? b->cap * 2 : 8;
    size_t *p = realloc(b->filtered, n * sizeof *p);
    if (!p) return false;
    b->filtered = p;
    b->cap = n;
  }
  b->filtered[b->nfiltered++] = rule;
  return true;
}

cordon_decider *cordon_decider_new(cordon_policy *policy, const char *const *params, size_t nparams) {
  cordon_decider *d = calloc(1, sizeof *d);
  if (!d) return NULL;
  d->policy = policy;
  d->nbuckets = cordon_sbpl_op_count();
  d->default_index = cordon_sbpl_op_index("default");
  d->buckets = calloc(d->nbuckets, sizeof *d->buckets);
  d->parent = calloc(d->nbuckets, sizeof *d->parent);
  d->where = calloc(policy->nrules ? policy->nrules : 1, sizeof *d->where);
  d->nwhere = policy->nrules;
  d->params = calloc(nparams ? 2 * nparams : 1, sizeof *d->params);
  if (!d->buckets || !d->where || !d->params || !d->parent) goto fail;
  for (unsigned i = 0; i < d->nbuckets; i++) d->parent[i] = cordon_sbpl_op_parent_index((int)i);
  for (unsigned i = 0; i < d->nbuckets; i++) {
    d->buckets[i].unfiltered = -1;
  }
  for (size_t i = 0; i < 2 * nparams; i++)
    if (!(d->params[i] = strdup(params[i] ? params[i] : ""))) goto fail;
  d->nparams = nparams;
  for (size_t i = 0; i < policy->nrules; i++) {
    const cordon_rule *r = &policy->rules[i];
    cordon_buf w = CORDON_BUF_INIT;
    cordon_rule_where(r, &w);
    if (!(d->where[i] = cordon_buf_take(&w))) goto fail;
    for (size_t k = 0; k < r->nops; k++) {
      int slot = op_slot(r->ops[k]);
      if (slot < 0) continue;  /* unknown operation: kept in the IR, reported by the linter */
      bucket *b = &d->buckets[slot];
      if (r->filter) {
        if (!bucket_add(b, i)) goto fail;
      } else {
        b->unfiltered = (long)i;
      }
    }
  }
  for (unsigned i = 0; i < d->nbuckets; i++) {
    bucket *b = &d->buckets[i];
    if (b->nfiltered && !cordon_path_index_build(&b->index, policy, b->filtered, b->nfiltered)) goto fail;
  }
  return d;
fail:
  cordon_decider_free(d);
  return NULL;
}

void cordon_decider_free(cordon_decider *d) {
  if (!d) return;
  if (d->buckets)
    for (unsigned i = 0; i < d->nbuckets; i++) {
      free(d->buckets[i].filtered);
      cordon_path_index_free(&d->buckets[i].index);
    }
  free(d->buckets);
  free(d->parent);
  if (d->where)
    for (size_t i = 0; i < d->nwhere; i++) free(d->where[i]);
  free(d->where);
  if (d->params)
    for (size_t i = 0; i < 2 * d->nparams; i++) free(d->params[i]);
  free(d->params);
  for (size_t i = 0; i < d->nfacts; i++) free(d->facts[i]);
  free(d->facts);
  free(d);
}

static void decided(cordon_decision *out, const cordon_rule *r, bool filtered) {
  out->by = CORDON_BY_RULE;
  out->rule = r;
  out->rule_filtered = filtered;
  out->action = r->action;
}

/* cordon_decide once the operation is known by its table index (batch mode resolves it once per run of
 * equal operation names). */
static cordon_decide_status decide_index(cordon_decider *d, int index, const char *target,
                                         const cordon_fact *facts, size_t nfacts, cordon_decision *out,
                                         char *err, size_t errcap) {
  out->by = CORDON_BY_NOTHING;
  out->rule = NULL;
  out->nchain = 0;
  out->nassumed = 0;
  out->unknown = false;
  const char *canonical = cordon_sbpl_op_at((unsigned)index);
  out->op = canonical;
  cordon_target t;
  if (!cordon_target_parse(canonical, target, &t, err, errcap)) return CORDON_DECIDE_BAD_TARGET;
  cordon_match_ctx ctx = {.facts = facts, .nfacts = nfacts,
                          .params = (const char *const *)d->params, .nparams = d->nparams};
  /* which index answers this target: paths, names, unix sockets by end; other network targets none */
  cordon_index_kind kind = t.kind == CORDON_TARGET_PATH ? CORDON_INDEX_PATH
                           : t.kind == CORDON_TARGET_NAME ? CORDON_INDEX_NAME
                           : !strncmp(t.proto, "unix", 4) ? (t.local ? CORDON_INDEX_UNIX_LOCAL : CORDON_INDEX_UNIX_REMOTE)
                                                          : CORDON_INDEX_KINDS;
  const char *key = kind == CORDON_INDEX_UNIX_LOCAL || kind == CORDON_INDEX_UNIX_REMOTE ? t.host : t.text;
  size_t keylen = strlen(key);
  bool covered = cordon_sbpl_op_default_covers_index(index);
  for (int i = index; i >= 0; i = d->parent[i]) {
    if (i == d->default_index && !covered) {
      out->by = CORDON_BY_UNCOVERED;
      out->action = CORDON_ALLOW;
      return CORDON_DECIDE_OK;
    }
    if (out->nchain < CORDON_DECISION_MAX_CHAIN) out->chain[out->nchain++] = cordon_sbpl_op_at((unsigned)i);
    const bucket *b = &d->buckets[i];
    /* Path and name queries without facts: the index gives the last plain rule that matches; only the
     * other rules after it need testing. Otherwise every filtered rule is tested, last first. */
    bool indexed = nfacts == 0 && b->index.built && kind != CORDON_INDEX_KINDS;
    long best = indexed ? cordon_path_index_best(&b->index, kind, key, keylen) : -1;
    const size_t *scan = indexed ? b->index.complex[kind] : NULL;
    size_t nscan = indexed ? b->index.ncomplex[kind] : b->nfiltered;
    for (size_t c = nscan; c-- > 0;) {
      size_t k = scan ? scan[c] : c;
      if ((long)k < best) break;
      cordon_rule *r = &d->policy->rules[b->filtered[k]];
      ctx.missing = NULL;
      ctx.missing_is_param = false;
      ctx.unknown_filter = false;
      cordon_tri m = cordon_filter_match(r->filter, &t, &ctx);
      if (m == CORDON_TRI_YES) {
        decided(out, r, true);
        return CORDON_DECIDE_OK;
      }
      if (m == CORDON_TRI_UNKNOWN) {
        bool takes = ctx.unknown_filter && r->action == CORDON_DENY; /* sound: an unknown may match a deny */
        if (out->nassumed < CORDON_DECISION_MAX_ASSUMED) {
          out->assumed[out->nassumed] = r;
          out->assumed_fact[out->nassumed] = !ctx.missing ? "a fact" : ctx.missing_is_param ? ctx.missing : keep_fact(d, ctx.missing);
          out->assumed_is_param[out->nassumed] = ctx.missing_is_param;
          out->assumed_match[out->nassumed] = takes;
          out->assumed_unknown[out->nassumed] = ctx.unknown_filter;
        }
        out->nassumed++;
        out->unknown |= ctx.unknown_filter;
        if (takes) {
          decided(out, r, true);
          return CORDON_DECIDE_OK;
        }
      }
    }
    if (best >= 0) {
      decided(out, &d->policy->rules[b->filtered[best]], true);
      return CORDON_DECIDE_OK;
    }
    if (b->unfiltered >= 0) {
      decided(out, &d->policy->rules[b->unfiltered], false);
      return CORDON_DECIDE_OK;
    }
  }
  out->by = CORDON_BY_NOTHING;
  out->action = CORDON_ALLOW;
  return CORDON_DECIDE_OK;
}

cordon_decide_status cordon_decide(cordon_decider *d, const char *op, const char *target,
                                   const cordon_fact *facts, size_t nfacts, cordon_decision *out,
                                   char *err, size_t errcap) {
  int index = cordon_sbpl_op_index(op);
  if (index < 0) index = cordon_sbpl_op_index(cordon_sbpl_op_canonical(op));
  if (index < 0) {
    memset(out, 0, sizeof *out);
    snprintf(err, errcap, "unknown operation '%s'", op);
    return CORDON_DECIDE_UNKNOWN_OPERATION;
  }
  return decide_index(d, index, target, facts, nfacts, out, err, errcap);
}

/* ---- batch -------------------------------------------------------------------------------------- */

static void json_string(cordon_buf *out, const char *s, size_t n) {
  static const char hex[] = "0123456789abcdef";
  cordon_buf_putc(out, '"');
  size_t run = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    cordon_buf_append(out, s + run, i - run);
    run = i + 1;
    if (c == '"' || c == '\\') {
      char e[2] = {'\\', (char)c};
      cordon_buf_append(out, e, 2);
    } else {
      char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
      cordon_buf_append(out, e, 6);
    }
  }
  cordon_buf_append(out, s + run, n - run);
  cordon_buf_putc(out, '"');
}

static const char *by_text(const cordon_decider *d, const cordon_decision *dec) {
  switch (dec->by) {
  case CORDON_BY_RULE: return d->where[dec->rule - d->policy->rules];
  case CORDON_BY_UNCOVERED: return "(uncovered)";
  case CORDON_BY_NOTHING: return "(no rule)";
  }
  return "";
}

static void answer(cordon_buf *out, bool json, const char *verdict, const char *op, size_t oplen,
                   const char *target, size_t tlen, const char *detail, bool is_error, bool unknown) {
  if (json) {
    cordon_buf_puts(out, "{\"decision\":\"");
    cordon_buf_puts(out, verdict);
    cordon_buf_puts(out, "\",\"operation\":");
    json_string(out, op, oplen);
    cordon_buf_puts(out, ",\"target\":");
    json_string(out, target, tlen);
    cordon_buf_puts(out, is_error ? ",\"error\":" : ",\"rule\":");
    json_string(out, detail, strlen(detail));
    cordon_buf_puts(out, unknown ? ",\"unknown\":true}\n" : "}\n");
    return;
  }
  cordon_buf_puts(out, verdict);
  cordon_buf_putc(out, '\t');
  cordon_buf_append(out, op, oplen);
  cordon_buf_putc(out, '\t');
  cordon_buf_append(out, target, tlen);
  cordon_buf_putc(out, '\t');
  cordon_buf_puts(out, detail);
  if (unknown) cordon_buf_puts(out, " (unknown filter)");
  cordon_buf_putc(out, '\n');
}

size_t cordon_decide_batch(cordon_decider *d, const char *input, size_t len, bool json, cordon_buf *out,
                           size_t *nerrors) {
  size_t answered = 0, errors = 0;
  char opbuf[128], *tbuf = NULL, err[256];
  size_t tcap = 0, cached_len = SIZE_MAX;
  int cached = -1;
  const char *p = input, *end = input + len;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *eol = nl ? nl : end;
    const char *next = nl ? nl + 1 : end;
    const char *e = eol;
    if (e > p && e[-1] == '\r') e--;
    const char *s = p;
    while (s < e && (*s == ' ' || *s == '\t')) s++;
    p = next;
    if (s == e || *s == '#') {
      cordon_buf_putc(out, '\n');
      continue;
    }
    const char *ope = s;
    while (ope < e && *ope != ' ' && *ope != '\t') ope++;
    const char *ts = ope;
    while (ts < e && (*ts == ' ' || *ts == '\t')) ts++;
    size_t oplen = (size_t)(ope - s), tlen = (size_t)(e - ts);
    answered++;
    if (oplen >= sizeof opbuf || memchr(ts, '\0', tlen)) {
      answer(out, json, "error", s, oplen < 64 ? oplen : 64, ts, tlen,
             oplen >= sizeof opbuf ? "operation name too long" : "NUL byte in target", true, false);
      errors++;
      continue;
    }
    /* queries come in runs of one operation: resolve its name only when it changes */
    if (oplen != cached_len || memcmp(opbuf, s, oplen) != 0) {
      memcpy(opbuf, s, oplen);
      opbuf[oplen] = '\0';
      cached_len = oplen;
      cached = cordon_sbpl_op_index(opbuf);
      if (cached < 0) cached = cordon_sbpl_op_index(cordon_sbpl_op_canonical(opbuf));
    }
    if (tlen + 1 > tcap) {
      size_t n = tcap ? tcap : 256;
      while (n < tlen + 1) n *= 2;
      char *t = realloc(tbuf, n);
      if (!t) {
        out->oom = true;
        break;
      }
      tbuf = t;
      tcap = n;
    }
    memcpy(tbuf, ts, tlen);
    tbuf[tlen] = '\0';
    cordon_decision dec;
    if (tlen == 0) {
      answer(out, json, "error", s, oplen, ts, 0, "missing target", true, false);
      errors++;
      continue;
    }
    if (cached < 0) {
      snprintf(err, sizeof err, "unknown operation '%s'", opbuf);
      answer(out, json, "error", s, oplen, ts, tlen, err, true, false);
      errors++;
      continue;
    }
    if (decide_index(d, cached, tbuf, NULL, 0, &dec, err, sizeof err) != CORDON_DECIDE_OK) {
      answer(out, json, "error", s, oplen, ts, tlen, err, true, false);
      errors++;
      continue;
    }
    answer(out, json, cordon_action_name(dec.action), s, oplen, ts, tlen, by_text(d, &dec), false, dec.unknown);
  }
  free(tbuf);
  if (nerrors) *nerrors = errors;
  return answered;
}
