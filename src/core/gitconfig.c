/* src/core/gitconfig.c — git's config reader, and the safe-change check (see gitconfig.h). */
#include "core/gitconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A growing byte string; `oom` sticks once memory ran out. */
typedef struct {
  char *s;
  size_t len, cap;
  bool oom;
} str;

static void str_add(str *b, char c) {
  if (b->oom) return;
  if (b->len + 2 > b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 64;
    char *p = realloc(b->s, cap);
    if (!p) {
      b->oom = true;
      return;
    }
    b->s = p, b->cap = cap;
  }
  b->s[b->len++] = c;
  b->s[b->len] = '\0';
}

/* The reader: git's get_next_char. CRLF reads as '\n'; the end of the text reads as '\n' once more,
 * with `eof` set. */
typedef struct {
  const char *p, *end;
  unsigned line;
  int last;  /* the character read last: an error on a '\n' belongs to the line it ended */
  bool eof;
} reader;

static int next(reader *r) {
  if (r->p >= r->end) {
    if (!r->eof) r->line++;
    r->eof = true;
    return r->last = '\n';
  }
  int c = (unsigned char)*r->p++;
  if (c == '\r' && r->p < r->end && *r->p == '\n') c = *r->p++;
  if (c == '\n') r->line++;
  return r->last = c;
}

static bool is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static bool is_alnum(int c) { return is_alpha(c) || (c >= '0' && c <= '9'); }
static bool is_keychar(int c) { return is_alnum(c) || c == '-'; }
static bool is_space(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }
static int lower(int c) { return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c; }

typedef struct {
  reader r;
  str var;        /* "section." or "section.subsection." of the current header */
  char *err;
  size_t errcap;
} parser;

static bool fail_at(parser *ps, unsigned line, const char *what) {
  if (ps->errcap) snprintf(ps->err, ps->errcap, "line %u: %s", line, what);
  return false;
}

static bool fail(parser *ps, const char *what) { return fail_at(ps, ps->r.line - (ps->r.last == '\n'), what); }

/* [section "subsection"]: after the base name and a blank. */
static bool header_subsection(parser *ps) {
  int c;
  do c = next(&ps->r);
  while (c == ' ' || c == '\t');
  if (c != '"') return fail(ps, "expected '\"' in a section header");
  str_add(&ps->var, '.');
  for (;;) {
    c = next(&ps->r);
    if (c == '\n') return fail(ps, "unterminated subsection name");
    if (c == '"') break;
    if (c == '\\') {
      c = next(&ps->r);
      if (c == '\n') return fail(ps, "unterminated subsection name");
    }
    str_add(&ps->var, (char)c);
  }
  if (next(&ps->r) != ']') return fail(ps, "expected ']' after the subsection name");
  return true;
}

static bool header(parser *ps) {
  ps->var.len = 0;
  for (;;) {
    int c = next(&ps->r);
    if (c == ']') break;
    if (is_space(c) && c != '\n') {
      if (!ps->var.len) return fail(ps, "empty section name");
      if (!header_subsection(ps)) return false;
      break;
    }
    if (!is_keychar(c) && c != '.') return fail(ps, "bad character in a section name");
    str_add(&ps->var, (char)lower(c));
  }
  if (!ps->var.len || ps->var.s[0] == '.' || ps->var.s[ps->var.len - 1] == '.')
    return fail(ps, "bad section name");
  str_add(&ps->var, '.');
  return true;
}

/* git's parse_value: the rest of the line after '='. */
static bool value(parser *ps, str *v) {
  bool quote = false, comment = false;
  size_t space = 0;
  for (;;) {
    int c = next(&ps->r);
    if (c == '\n') {
      if (quote) return fail(ps, "unterminated quote in a value");
      if (!v->s && !(v->s = calloc(1, 1))) v->oom = true;  /* "key =" holds "", which is not "no value" */
      v->cap = v->cap ? v->cap : 1;
      return true;
    }
    if (comment) continue;
    if (is_space(c) && !quote) {
      if (v->len) space++;
      continue;
    }
    if (!quote && (c == ';' || c == '#')) {
      comment = true;
      continue;
    }
    for (; space; space--) str_add(v, ' ');
    if (c == '\\') {
      c = next(&ps->r);
      switch (c) {
      case '\n': continue;
      case 't': c = '\t'; break;
      case 'b': c = '\b'; break;
      case 'n': c = '\n'; break;
      case '\\': case '"': break;
      default:
        return fail(ps, "unknown escape sequence in a value");
      }
      str_add(v, (char)c);
      continue;
    }
    if (c == '"') {
      quote = !quote;
      continue;
    }
    str_add(v, (char)c);
  }
}

static char *dup_n(const char *s, size_t n) {
  char *d = malloc(n + 1);
  if (d) memcpy(d, s, n), d[n] = '\0';
  return d;
}

/* Appends one entry from the full name "section[.subsection].key"; takes `val` (NULL: no value). */
static bool append(cordon_gitconfig *c, const char *name, size_t n, char *val, unsigned line) {
  if (c->count == c->cap) {
    size_t cap = c->cap ? c->cap * 2 : 16;
    cordon_gitconfig_entry *p = realloc(c->items, cap * sizeof *p);
    if (!p) {
      free(val);
      return false;
    }
    c->items = p, c->cap = cap;
  }
  const char *first = memchr(name, '.', n), *last = strrchr(name, '.');
  cordon_gitconfig_entry e = {.line = line};
  e.section = dup_n(name, (size_t)(first - name));
  e.subsection = first != last ? dup_n(first + 1, (size_t)(last - first - 1)) : NULL;
  e.key = dup_n(last + 1, n - (size_t)(last + 1 - name));
  e.value = val;
  if (!e.section || !e.key || (first != last && !e.subsection)) {
    free(e.section), free(e.subsection), free(e.key), free(e.value);
    return false;
  }
  c->items[c->count++] = e;
  return true;
}

/* key [= value], the key's first letter already read. */
static bool entry(parser *ps, int c, cordon_gitconfig *out, bool *oom) {
  if (!ps->var.len) return fail(ps, "a key outside any section");
  unsigned line = ps->r.line;
  size_t base = ps->var.len;
  str_add(&ps->var, (char)lower(c));
  for (;;) {
    c = next(&ps->r);
    if (!is_keychar(c)) break;
    str_add(&ps->var, (char)lower(c));
  }
  while (c == ' ' || c == '\t') c = next(&ps->r);
  str v = {0};
  bool has_val = false;
  if (c != '\n') {
    if (c != '=') {
      ps->var.len = base;
      return fail(ps, "expected '=' or the end of the line after a key");
    }
    if (!value(ps, &v)) {
      free(v.s);
      ps->var.len = base;
      return false;
    }
    has_val = true;
  }
  bool ok = !v.oom && !ps->var.oom;
  if (ok) ok = append(out, ps->var.s, ps->var.len, has_val ? v.s : NULL, line);
  else free(v.s);
  ps->var.len = base;
  ps->var.s[base] = '\0';
  if (!ok) *oom = true;
  return ok;
}

bool cordon_gitconfig_parse(const char *text, size_t n, cordon_gitconfig *out, char *err, size_t errcap) {
  parser ps = {.r = {.p = text, .end = text + n, .line = 1}, .err = err, .errcap = errcap};
  if (errcap) err[0] = '\0';
  if (memchr(text, '\0', n)) {
    unsigned line = 1;
    for (const char *p = text; *p; p++) line += *p == '\n';
    return fail_at(&ps, line, "a NUL byte");
  }
  if (n >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) ps.r.p += 3;
  bool comment = false, oom = false, ok = true;
  for (;;) {
    int c = next(&ps.r);
    if (c == '\n') {
      if (ps.r.eof) break;
      comment = false;
      continue;
    }
    if (comment || is_space(c)) continue;
    if (c == '#' || c == ';') {
      comment = true;
      continue;
    }
    if (c == '[') {
      if (!(ok = header(&ps))) break;
      continue;
    }
    if (!is_alpha(c)) {
      ok = fail(&ps, "bad character at the start of a line");
      break;
    }
    if (!(ok = entry(&ps, c, out, &oom))) break;
  }
  if (ps.var.oom) oom = true;
  free(ps.var.s);
  if (oom) {
    if (errcap) snprintf(err, errcap, "out of memory");
    return false;
  }
  return ok;
}

void cordon_gitconfig_free(cordon_gitconfig *c) {
  for (size_t i = 0; i < c->count; i++) {
    free(c->items[i].section);
    free(c->items[i].subsection);
    free(c->items[i].key);
    free(c->items[i].value);
  }
  free(c->items);
  memset(c, 0, sizeof *c);
}

static bool ci_equal_n(const char *a, const char *b, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (lower((unsigned char)a[i]) != lower((unsigned char)b[i]) || !a[i]) return false;
  return a[n] == '\0';
}

bool cordon_gitconfig_key_matches(const cordon_gitconfig_entry *e, const char *pattern) {
  const char *first = strchr(pattern, '.'), *last = strrchr(pattern, '.');
  if (!first) return false;
  if (!ci_equal_n(e->section, pattern, (size_t)(first - pattern))) return false;
  if (!ci_equal_n(e->key, last + 1, strlen(last + 1))) return false;
  if (first == last) return e->subsection == NULL;
  if (!e->subsection) return false;
  size_t sn = (size_t)(last - first - 1);
  if (sn == 1 && first[1] == '*') return true;
  return strlen(e->subsection) == sn && memcmp(e->subsection, first + 1, sn) == 0;
}

static bool same_name(const cordon_gitconfig_entry *a, const cordon_gitconfig_entry *b) {
  if (strcmp(a->section, b->section) != 0 || strcmp(a->key, b->key) != 0) return false;
  if (!a->subsection || !b->subsection) return a->subsection == b->subsection;
  return strcmp(a->subsection, b->subsection) == 0;
}

static bool same_value(const char *a, const char *b) { return (!a || !b) ? a == b : strcmp(a, b) == 0; }

static bool is_safe(const cordon_gitconfig_entry *e, const char *const *safe, size_t nsafe) {
  for (size_t i = 0; i < nsafe; i++)
    if (cordon_gitconfig_key_matches(e, safe[i])) return true;
  return false;
}

bool cordon_gitconfig_changes_safe(const cordon_gitconfig *before, const cordon_gitconfig *after,
                                   const char *const *safe, size_t nsafe, const cordon_gitconfig_entry **bad) {
  for (size_t i = 0; i < after->count; i++) {
    const cordon_gitconfig_entry *e = &after->items[i];
    if (is_safe(e, safe, nsafe)) continue;
    /* Checked once per name, at its first entry: its values in `after`, in order, must be found in
     * `before`'s values for the same name, in order (a subsequence). */
    bool seen = false;
    for (size_t k = 0; k < i && !seen; k++) seen = same_name(&after->items[k], e);
    if (seen) continue;
    size_t j = 0;
    for (size_t k = i; k < after->count; k++) {
      const cordon_gitconfig_entry *a = &after->items[k];
      if (!same_name(a, e)) continue;
      while (j < before->count && !(same_name(&before->items[j], a) && same_value(before->items[j].value, a->value)))
        j++;
      if (j == before->count) {
        if (bad) *bad = a;
        return false;
      }
      j++;
    }
  }
  return true;
}
