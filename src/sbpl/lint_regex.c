/* src/sbpl/lint_regex.c — an upper estimate of what compiling an SBPL regex builds (lint_regex.h).
 * It follows the translation in match_regex.c: escapes and bracket expressions are single atoms. */
#include "sbpl/lint_regex.h"

#include <stdbool.h>
#include <string.h>

#define NEST_MAX 256

typedef struct {
  size_t total; /* completed alternatives of this group */
  size_t seq;   /* the current alternative, without its last piece */
  size_t last;  /* the last piece, which a following quantifier multiplies; 0 when there is none */
} level;

static size_t add(size_t a, size_t b, size_t cap) { return a >= cap || b >= cap - a ? cap : a + b; }
static size_t mul(size_t a, size_t b, size_t cap) { return b && a > cap / b ? cap : a * b > cap ? cap : a * b; }

/* After '[': returns the position after the bracket expression's ']' (or the end of the text). */
static const char *skip_bracket(const char *p) {
  if (*p == '^') p++;
  if (*p == ']') p++;
  while (*p && *p != ']') {
    if (p[0] == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
      const char *end = strstr(p + 2, (char[]){p[1], ']', 0});
      if (end) {
        p = end + 2;
        continue;
      }
    }
    p += (p[0] == '\\' && p[1]) ? 2 : 1;
  }
  return *p ? p + 1 : p;
}

/* Reads "{m}", "{m,}" or "{m,n}" at p; returns the copies it makes and sets *end, or 0 when p does not
 * start a valid interval (then '{' is an ordinary character). */
static size_t interval(const char *p, const char **end, size_t cap) {
  size_t m = 0, n = 0;
  bool digits = false, comma = false, ndigits = false;
  for (p++; *p >= '0' && *p <= '9'; p++) m = add(mul(m, 10, cap), (size_t)(*p - '0'), cap), digits = true;
  if (*p == ',') {
    comma = true;
    for (p++; *p >= '0' && *p <= '9'; p++) n = add(mul(n, 10, cap), (size_t)(*p - '0'), cap), ndigits = true;
  }
  if (*p != '}' || !digits) return 0;
  *end = p + 1;
  if (!comma) return m ? m : 1;
  if (!ndigits) return add(m, 1, cap);
  return n > m ? n : (m ? m : 1);
}

size_t cordon_lint_regex_copies(const char *re, size_t cap) {
  level stack[NEST_MAX];
  size_t depth = 0;
  level cur = {0, 0, 0};
  for (const char *p = re; *p;) {
    const char *next = p + 1;
    size_t times = 0; /* a quantifier's multiplier */
    switch (*p) {
    case '(':
      if (depth == NEST_MAX) return cap;
      stack[depth++] = cur;
      cur = (level){0, 0, 0};
      break;
    case ')':
      if (depth == 0) goto atom; /* an unmatched ')' is an ordinary character in ERE */
      {
        size_t group = add(add(cur.total, cur.seq, cap), cur.last, cap);
        cur = stack[--depth];
        cur.seq = add(cur.seq, cur.last, cap);
        cur.last = group ? group : 1;
      }
      break;
    case '|':
      cur.total = add(add(cur.total, cur.seq, cap), cur.last, cap);
      cur.seq = cur.last = 0;
      break;
    case '*':
    case '?':
      times = 1;
      break;
    case '+':
      times = 2;
      break;
    case '{':
      times = interval(p, &next, cap);
      if (!times) goto atom;
      break;
    case '[':
      next = skip_bracket(p + 1);
      goto atom;
    case '\\':
      next = p[1] ? p + 2 : p + 1;
      goto atom;
    default:
    atom:
      cur.seq = add(cur.seq, cur.last, cap);
      cur.last = 1;
      break;
    }
    if (times && cur.last) cur.last = add(mul(cur.last, times, cap), 1, cap);
    p = next;
  }
  while (depth > 0) { /* unclosed groups: regcomp refuses them, count them anyway */
    size_t group = add(add(cur.total, cur.seq, cap), cur.last, cap);
    cur = stack[--depth];
    cur.seq = add(cur.seq, cur.last, cap);
    cur.last = group;
  }
  return add(add(cur.total, cur.seq, cap), cur.last, cap);
}
