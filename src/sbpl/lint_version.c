/* src/sbpl/lint_version.c — the (version …) checks, on raw text so findings point at the form itself */
#include "sbpl/lint.h"

#include <string.h>

typedef struct {
  const char *s;
  size_t i, n;
  unsigned line, col;
} scan;

static void step(scan *c) {
  if (c->s[c->i] == '\n') c->line++, c->col = 1;
  else c->col++;
  c->i++;
}

static bool at(const scan *c, const char *word) {
  size_t k = strlen(word);
  return c->n - c->i >= k && !memcmp(c->s + c->i, word, k);
}

static void skip_string(scan *c, bool raw) {
  step(c); /* the opening quote */
  while (c->i < c->n && c->s[c->i] != '"') {
    if (!raw && c->s[c->i] == '\\' && c->i + 1 < c->n) step(c);
    step(c);
  }
  if (c->i < c->n) step(c);
}

static void skip_block_comment(scan *c) {
  unsigned depth = 0;
  while (c->i < c->n) {
    if (at(c, "#|")) depth++, step(c), step(c);
    else if (at(c, "|#")) {
      step(c), step(c);
      if (--depth == 0) return;
    } else step(c);
  }
}

bool cordon_sbpl_lint_versions(const char *text, size_t len, const char *file, cordon_lint_report *out) {
  scan c = {text, 0, len, 1, 1};
  unsigned depth = 0, seen = 0;
  while (c.i < c.n) {
    char ch = c.s[c.i];
    if (ch == ';') {
      while (c.i < c.n && c.s[c.i] != '\n') step(&c);
    } else if (at(&c, "#|")) {
      skip_block_comment(&c);
    } else if (ch == '"') {
      skip_string(&c, false);
    } else if (at(&c, "#\"")) {
      step(&c);
      skip_string(&c, true);
    } else if (at(&c, "#\\")) {
      step(&c), step(&c);
      if (c.i < c.n) step(&c); /* a character literal such as #\( */
    } else if (ch == '(') {
      cordon_loc loc = {file, c.line, c.col};
      step(&c);
      if (depth++ == 0) {
        while (c.i < c.n && (c.s[c.i] == ' ' || c.s[c.i] == '\t' || c.s[c.i] == '\n' || c.s[c.i] == '\r'))
          step(&c);
        size_t k = strlen("version");
        if (at(&c, "version") && (c.i + k == c.n || strchr(" \t\r\n()", c.s[c.i + k]))) {
          if (seen++ > 0 &&
              !cordon_lint_add(out, CORDON_DIAG_WARNING, "version-repeated", loc,
                               "(version …) again: write it once, as the first form"))
            return false;
        }
      }
    } else if (ch == ')') {
      if (depth) depth--;
      step(&c);
    } else {
      step(&c);
    }
  }
  if (seen == 0) {
    cordon_loc loc = {file, 1, 1};
    return cordon_lint_add(out, CORDON_DIAG_WARNING, "version-missing", loc,
                           "no (version 1) form: sandbox-exec expects every profile to start with it");
  }
  return true;
}
