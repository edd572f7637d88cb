/* src/sbpl/lint_region.c — regions of simple filters, and proofs of containment and overlap. */
#include "sbpl/lint_region.h"

#include "sbpl/match.h"
#include "core/path.h"

#include <stdlib.h>
#include <string.h>

static bool starts(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

/* s is t or lies under "t/" ("/" holds every absolute path): the one path primitive, compared as text. */
static bool under(const char *s, const char *t) { return cordon_path_within(t, s); }

static bool trailing_slash(const char *s) {
  size_t n = strlen(s);
  return n > 1 && s[n - 1] == '/';
}

static bool push(cordon_region *r, const char *cls, cordon_filter *f) {
  if (r->n == r->cap) {
    size_t n = r->cap ? r->cap * 2 : 4;
    cordon_region_alt *a = realloc(r->alts, n * sizeof *a);
    if (!a) return false;
    r->alts = a;
    r->cap = n;
  }
  r->alts[r->n++] = (cordon_region_alt){cls, f->match, f->args[0].text, f};
  return true;
}

static bool collect(cordon_filter *f, cordon_region *r) {
  switch (f->kind) {
  case CORDON_F_PATH:
  case CORDON_F_NAME:
    if (f->nargs != 1 || f->args[0].is_param || f->match == CORDON_MATCH_NONE) {
      r->known = false;
      return true;
    }
    /* a literal or subpath with a trailing slash never matches; the linter reports it on its own */
    if (f->kind == CORDON_F_PATH && f->match != CORDON_MATCH_PREFIX && f->match != CORDON_MATCH_REGEX &&
        trailing_slash(f->args[0].text)) {
      r->known = false;
      return true;
    }
    if (f->kind == CORDON_F_NAME && f->match == CORDON_MATCH_SUBPATH) {
      r->known = false;
      return true;
    }
    return push(r, f->kind == CORDON_F_PATH ? "path" : f->name, f);
  case CORDON_F_ANY:
    for (size_t i = 0; i < f->nchildren && r->known; i++)
      if (!collect(f->children[i], r)) return false;
    return true;
  case CORDON_F_ALL:
    if (f->nchildren == 1) return collect(f->children[0], r);
    r->known = false;
    return true;
  default:
    r->known = false;
    return true;
  }
}

bool cordon_region_of(cordon_filter *f, cordon_region *out) {
  memset(out, 0, sizeof *out);
  out->known = true;
  if (!f) {
    out->everything = true;
    return true;
  }
  return collect(f, out);
}

void cordon_region_free(cordon_region *r) {
  free(r->alts);
  memset(r, 0, sizeof *r);
}

/* Name filters compare by base name: global-name, global-name-prefix and global-name-regex share one
 * namespace. */
static bool same_class(const char *a, const char *b) {
  if (!strcmp(a, "path") || !strcmp(b, "path")) return !strcmp(a, b);
  size_t la = strlen(a), lb = strlen(b);
  const char *suffixes[] = {"-prefix", "-regex"};
  for (int i = 0; i < 2; i++) {
    size_t m = strlen(suffixes[i]);
    if (la > m && !strcmp(a + la - m, suffixes[i])) la -= m;
    if (lb > m && !strcmp(b + lb - m, suffixes[i])) lb -= m;
  }
  return la == lb && !strncmp(a, b, la);
}

/* Does alternative `b` certainly match the single string `s`? */
static bool alt_matches(const cordon_region_alt *b, const char *s) {
  cordon_target t = {.kind = strcmp(b->cls, "path") ? CORDON_TARGET_NAME : CORDON_TARGET_PATH,
                     .text = s, .len = strlen(s)};
  cordon_match_ctx ctx = {0};
  return cordon_filter_match(b->filter, &t, &ctx) == CORDON_TRI_YES;
}

static bool alt_within(const cordon_region_alt *a, const cordon_region_alt *b) {
  if (!same_class(a->cls, b->cls)) return false;
  if (a->match == CORDON_MATCH_LITERAL) return alt_matches(b, a->text);
  if (a->match == CORDON_MATCH_REGEX) return b->match == CORDON_MATCH_REGEX && !strcmp(a->text, b->text);
  if (a->match == CORDON_MATCH_SUBPATH) {
    if (b->match == CORDON_MATCH_SUBPATH) return under(a->text, b->text);
    if (b->match == CORDON_MATCH_PREFIX) return starts(a->text, b->text);
    return false;
  }
  if (a->match == CORDON_MATCH_PREFIX) {
    if (b->match == CORDON_MATCH_PREFIX) return starts(a->text, b->text);
    if (b->match == CORDON_MATCH_SUBPATH) {
      /* every string starting with P lies under T only when P already starts with "T/" */
      size_t n = strlen(b->text);
      if (n == 1 && b->text[0] == '/') return a->text[0] == '/';
      return !strncmp(a->text, b->text, n) && a->text[n] == '/';
    }
  }
  return false;
}

bool cordon_region_within(const cordon_region *a, const cordon_region *b) {
  if (!a->known || !b->known) return false;
  if (b->everything) return a->everything;  /* callers compare filtered with filtered */
  if (a->everything || a->n == 0) return false;
  for (size_t i = 0; i < a->n; i++) {
    bool inside = false;
    for (size_t k = 0; k < b->n && !inside; k++) inside = alt_within(&a->alts[i], &b->alts[k]);
    if (!inside) return false;
  }
  return true;
}

static bool alt_overlaps(const cordon_region_alt *a, const cordon_region_alt *b) {
  if (!same_class(a->cls, b->cls)) return false;
  if (a->match == CORDON_MATCH_LITERAL) return alt_matches(b, a->text);
  if (b->match == CORDON_MATCH_LITERAL) return alt_matches(a, b->text);
  if (a->match == CORDON_MATCH_REGEX || b->match == CORDON_MATCH_REGEX) return false; /* unsure */
  if (a->match == CORDON_MATCH_SUBPATH && b->match == CORDON_MATCH_SUBPATH)
    return under(a->text, b->text) || under(b->text, a->text);
  if (a->match == CORDON_MATCH_PREFIX && b->match == CORDON_MATCH_PREFIX)
    return starts(a->text, b->text) || starts(b->text, a->text);
  const cordon_region_alt *s = a->match == CORDON_MATCH_SUBPATH ? a : b;
  const cordon_region_alt *p = a->match == CORDON_MATCH_SUBPATH ? b : a;
  /* subpath S and prefix P share a string when S itself starts with P, or P lies under S */
  return starts(s->text, p->text) || under(p->text, s->text);
}

bool cordon_region_overlaps(const cordon_region *a, const cordon_region *b) {
  if (!a->known || !b->known) return false;
  if (a->everything || b->everything) return a->everything ? (b->everything || b->n > 0) : a->n > 0;
  for (size_t i = 0; i < a->n; i++)
    for (size_t k = 0; k < b->n; k++)
      if (alt_overlaps(&a->alts[i], &b->alts[k])) return true;
  return false;
}
