/* src/sbpl/match_regex.c — SBPL regex translation and the compiled-regex cache entry. */
#include "sbpl/match_regex.h"
#include "sbpl/lint_regex.h"

#include "core/buf.h"
#include "sbpl/match.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cordon_regex {
  char *source;
  bool ok;
  bool literal;      /* no metacharacter at all: a substring search */
  char *head;        /* literal text every match must start with (anchored patterns), or NULL */
  size_t head_len;
  char error[128];
  regex_t re;
};

static bool is_meta(char c) { return c && strchr(".[]()*+?{}|^$\\", c) != NULL; }

/* Appends a bracket expression starting at p (just after '['); returns the position after its ']'.
 * Escapes inside brackets are SBPL's, not POSIX's (where '\' is literal), so they are rebuilt: class
 * escapes become [:classes:], and an escaped ']' '-' or '^' moves to the one place POSIX reads it
 * literally. */
static const char *bracket(const char *p, cordon_buf *out) {
  cordon_buf body = CORDON_BUF_INIT;
  bool negate = false, close = false, dash = false, caret = false;
  if (*p == '^') negate = true, p++;
  if (*p == ']') close = true, p++;
  for (; *p && *p != ']'; p++) {
    if (*p == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
      const char *end = strstr(p + 2, (char[]){p[1], ']', 0});
      if (end) {
        cordon_buf_append(&body, p, (size_t)(end + 2 - p));
        p = end + 1;
        continue;
      }
    }
    if (*p == '\\' && p[1]) {
      p++;
      switch (*p) {
      case 'w': cordon_buf_puts(&body, "[:alnum:]_"); break;
      case 'd': cordon_buf_puts(&body, "0-9"); break;
      case 's': cordon_buf_puts(&body, "[:space:]"); break;
      case 'n': cordon_buf_putc(&body, '\n'); break;
      case 't': cordon_buf_putc(&body, '\t'); break;
      case ']': close = true; break;
      case '-': dash = true; break;
      case '^': caret = true; break;
      default: cordon_buf_putc(&body, *p); break;
      }
      continue;
    }
    cordon_buf_putc(&body, *p);
  }
  if (!negate && !close && !dash && caret && body.len == 0) {
    cordon_buf_puts(out, "\\^");
  } else {
    cordon_buf_putc(out, '[');
    if (negate) cordon_buf_putc(out, '^');
    if (close) cordon_buf_putc(out, ']');
    if (body.len) cordon_buf_append(out, body.data, body.len);
    if (caret) cordon_buf_putc(out, '^');
    if (dash) cordon_buf_putc(out, '-');
    cordon_buf_putc(out, ']');
  }
  cordon_buf_free(&body);
  return *p ? p + 1 : p;
}

char *cordon_regex_translate(const char *sbpl) {
  cordon_buf out = CORDON_BUF_INIT;
  cordon_buf_puts(&out, "");
  for (const char *p = sbpl; *p;) {
    if (*p == '[') {
      p = bracket(p + 1, &out);
      continue;
    }
    if (*p != '\\') {
      cordon_buf_putc(&out, *p++);
      continue;
    }
    char c = p[1];
    p += c ? 2 : 1;
    switch (c) {
    case '\0': cordon_buf_puts(&out, "\\\\"); break;
    case 'w': cordon_buf_puts(&out, "[[:alnum:]_]"); break;
    case 'W': cordon_buf_puts(&out, "[^[:alnum:]_]"); break;
    case 'd': cordon_buf_puts(&out, "[0-9]"); break;
    case 'D': cordon_buf_puts(&out, "[^0-9]"); break;
    case 's': cordon_buf_puts(&out, "[[:space:]]"); break;
    case 'S': cordon_buf_puts(&out, "[^[:space:]]"); break;
    case 'n': cordon_buf_putc(&out, '\n'); break;
    case 't': cordon_buf_putc(&out, '\t'); break;
    default:
      if (is_meta(c)) cordon_buf_putc(&out, '\\');  /* \. stays a literal dot */
      cordon_buf_putc(&out, c);                     /* \/ and \- are just the character */
      break;
    }
  }
  return cordon_buf_take(&out);
}

/* True when `ere` has a '|' outside every group and bracket: then an alternative may start anywhere. */
static bool top_level_alternation(const char *ere) {
  int depth = 0;
  for (const char *p = ere; *p; p++) {
    if (*p == '\\' && p[1]) p++;
    else if (*p == '[') {
      p++;
      if (*p == '^') p++;
      if (*p == ']') p++;
      while (*p && *p != ']') {
        const char *end = p[0] == '[' && p[1] == ':' ? strstr(p + 2, ":]") : NULL;
        p = end ? end + 2 : p + 1;
      }
      if (!*p) return true; /* unbalanced: be safe */
    } else if (*p == '(') depth++;
    else if (*p == ')') depth--;
    else if (*p == '|' && depth <= 0) return true;
  }
  return false;
}

/* The literal text an anchored translated pattern starts with: "^/Users/[^/]+" -> "/Users/". A
 * character followed by a quantifier that may drop it (* ? {) does not count. A '|' outside groups
 * means an alternative could start differently, so there is no head then. */
static void find_head(cordon_regex *re, const char *ere) {
  if (ere[0] != '^' || top_level_alternation(ere)) return;
  size_t n = strlen(ere);
  char *head = malloc(n + 1);
  if (!head) return;
  size_t len = 0;
  for (const char *p = ere + 1; *p;) {
    char c;
    const char *next;
    if (*p == '\\' && p[1] && is_meta(p[1])) c = p[1], next = p + 2;
    else if (is_meta(*p) || *p == '\\') break;
    else c = *p, next = p + 1;
    if (*next == '*' || *next == '?' || *next == '{') break;
    head[len++] = c;
    p = next;
    if (*next == '+') break;
  }
  head[len] = '\0';
  if (len) re->head = head, re->head_len = len;
  else free(head);
}

cordon_regex *cordon_regex_new(const char *sbpl, char *err, size_t errcap) {
  cordon_regex *re = calloc(1, sizeof *re);
  if (!re) return NULL;
  char *ere = cordon_regex_translate(sbpl);
  if (!(re->source = strdup(sbpl)) || !ere) {
    free(ere);
    free(re->source);
    free(re);
    return NULL;
  }
  /* Stacked quantifiers make glibc's regcomp allocate without bound, and repeating what can match
   * nothing makes it compute for seconds (lint_regex.h): refuse those before compiling, so a hostile
   * profile costs an error, not the machine's memory or time. */
  if (cordon_lint_regex_copies(sbpl, CORDON_LINT_REGEX_MAX_COPIES + 1) > CORDON_LINT_REGEX_MAX_COPIES) {
    snprintf(re->error, sizeof re->error, "too costly to compile (quantifiers multiply past %u copies, or "
             "repeat what can match nothing)", CORDON_LINT_REGEX_MAX_COPIES);
    if (err && errcap) snprintf(err, errcap, "%s", re->error);
    free(ere);
    return re;
  }
  int rc = regcomp(&re->re, ere, REG_EXTENDED | REG_NOSUB);
  if (rc != 0) {
    regerror(rc, &re->re, re->error, sizeof re->error);
    if (err && errcap) snprintf(err, errcap, "%s", re->error);
  } else {
    re->ok = true;
    re->literal = true;
    for (const char *p = sbpl; *p; p++)
      if (is_meta(*p)) re->literal = false;
    find_head(re, ere);
  }
  free(ere);
  return re;
}

bool cordon_regex_ok(const cordon_regex *re, char *err, size_t errcap) {
  if (!re->ok && err && errcap) snprintf(err, errcap, "%s", re->error);
  return re->ok;
}

const char *cordon_regex_source(const cordon_regex *re) { return re->source; }

int cordon_regex_search(const cordon_regex *re, const char *s, size_t len) {
  if (!re->ok) return -1;
  if (re->literal) return strstr(s, re->source) != NULL;
  if (re->head && (len < re->head_len || memcmp(s, re->head, re->head_len) != 0)) return 0;
  return regexec(&re->re, s, 0, NULL, 0) == 0;
}

void cordon_regex_free(cordon_regex *re) {
  if (!re) return;
  if (re->ok) regfree(&re->re);
  free(re->source);
  free(re->head);
  free(re);
}

void cordon_regex_free_void(void *re) { cordon_regex_free(re); }
