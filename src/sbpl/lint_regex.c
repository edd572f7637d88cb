/* src/sbpl/lint_regex.c — an upper estimate of what compiling an SBPL regex builds (lint_regex.h) */
#include "sbpl/lint_regex.h"

#include <stdbool.h>
#include <string.h>

#define NEST_MAX 256

typedef struct {
  size_t total;  /* completed alternatives of this group */
  size_t seq;    /* the current alternative, without its last piece */
  size_t last;   /* the last piece, which a following quantifier multiplies; 0 when there is none */
  bool alt_null; /* some completed alternative can match the empty string */
  bool seq_null; /* so can every piece of the current alternative before the last */
  bool last_null;
} level;

#define LEVEL_START ((level){0, 0, 0, false, true, false})

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

/* Reads "{m}", "{m,}" or "{m,n}" at p; returns the copies it makes and sets *end and *min, or 0 when p
 * does not start a valid interval (then '{' is an ordinary character). */
static size_t interval(const char *p, const char **end, size_t *min, size_t cap) {
  size_t m = 0, n = 0;
  bool digits = false, comma = false, ndigits = false;
  for (p++; *p >= '0' && *p <= '9'; p++) m = add(mul(m, 10, cap), (size_t)(*p - '0'), cap), digits = true;
  if (*p == ',') {
    comma = true;
    for (p++; *p >= '0' && *p <= '9'; p++) n = add(mul(n, 10, cap), (size_t)(*p - '0'), cap), ndigits = true;
  }
  if (*p != '}' || !digits) return 0;
  *end = p + 1;
  *min = m;
  if (!comma) return m ? m : 1;
  if (!ndigits) return add(m, 1, cap);
  return n > m ? n : (m ? m : 1);
}

/* The current alternative, last piece included, can match the empty string. */
static bool seq_nullable(const level *l) { return l->seq_null && (l->last == 0 || l->last_null); }

size_t cordon_lint_regex_copies(const char *re, size_t cap) {
  level stack[NEST_MAX];
  size_t depth = 0, closure = 0;
  level cur = LEVEL_START;
  for (const char *p = re; *p;) {
    const char *next = p + 1;
    size_t times = 0, min = 1; /* a quantifier's multiplier, and the fewest repetitions it allows */
    switch (*p) {
    case '(':
      if (depth == NEST_MAX) return cap;
      stack[depth++] = cur;
      cur = LEVEL_START;
      break;
    case ')':
      if (depth == 0) goto atom; /* an unmatched ')' is an ordinary character in ERE */
      {
        size_t group = add(add(cur.total, cur.seq, cap), cur.last, cap);
        bool group_null = cur.alt_null || seq_nullable(&cur);
        cur = stack[--depth];
        cur.seq_null = seq_nullable(&cur);
        cur.seq = add(cur.seq, cur.last, cap);
        cur.last = group ? group : 1;
        cur.last_null = group_null;
      }
      break;
    case '|':
      cur.alt_null = cur.alt_null || seq_nullable(&cur);
      cur.total = add(add(cur.total, cur.seq, cap), cur.last, cap);
      cur.seq = cur.last = 0;
      cur.seq_null = true;
      break;
    case '*':
    case '?':
      times = 1, min = 0;
      break;
    case '+':
      times = 2;
      break;
    case '{':
      times = interval(p, &next, &min, cap);
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
      cur.seq_null = seq_nullable(&cur);
      cur.seq = add(cur.seq, cur.last, cap);
      cur.last = 1;
      cur.last_null = false;
      break;
    }
    if (times && cur.last) {
      cur.last = add(mul(cur.last, times, cap), 1, cap);
      /* Repeating what can match nothing is what regcomp's epsilon closures pay for, about the square
       * of the copies made (e*+++++++++++: 2047 copies, 1.5 s to compile; nine '+': 0.1 s). */
      if (times > 1 && cur.last_null) closure = add(closure, mul(cur.last, cur.last, cap), cap);
      if (min == 0) cur.last_null = true;
    }
    p = next;
  }
  while (depth > 0) { /* unclosed groups: regcomp refuses them, count them anyway */
    size_t group = add(add(cur.total, cur.seq, cap), cur.last, cap);
    cur = stack[--depth];
    cur.seq = add(cur.seq, cur.last, cap);
    cur.last = group;
  }
  size_t copies = add(add(cur.total, cur.seq, cap), cur.last, cap);
  return copies > closure ? copies : closure;
}
