/* src/sbpl/reader.c — SBPL text to data (see reader.h for the accepted syntax). */
#include "sbpl/reader.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct {
  const cordon_source *src;
  const char *s;
  size_t i, n;
  unsigned line;
  size_t line_start;
  cordon_arena *a;
  cordon_symtab *syms;
  unsigned depth, nest_limit;
  cordon_sbpl_read_error *err;
  jmp_buf fail;
  cordon_symbol *quote, *quasiquote, *unquote, *unquote_splicing;
} reader;

#define EOF_MARK (&cordon_datum_unspec) /* read_datum's end-of-input marker */

__attribute__((format(printf, 4, 5), noreturn)) static void fail_at(reader *r, size_t at, cordon_sbpl_status st,
                                                                      const char *fmt, ...) {
  /* Recompute the line of `at` (errors are rare; positions are cheap to find again). */
  unsigned line = 1;
  size_t ls = 0;
  for (size_t k = 0; k < at && k < r->n; k++)
    if (r->s[k] == '\n') line++, ls = k + 1;
  r->err->status = st;
  r->err->line = line;
  r->err->col = (unsigned)(at - ls + 1);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->err->message, sizeof r->err->message, fmt, ap);
  va_end(ap);
  longjmp(r->fail, 1);
}

static void *need(reader *r, void *p) {
  if (!p) {
    bool over = cordon_arena_over_limit(r->a);
    fail_at(r, r->i, over ? CORDON_SBPL_LIMIT : CORDON_SBPL_NOMEM, over ? "memory limit exceeded" : "out of memory");
  }
  return p;
}

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
static bool is_delim(char c) { return is_space(c) || c == '(' || c == ')' || c == '"' || c == ';'; }

static void newline_at(reader *r, size_t k) {
  r->line++;
  r->line_start = k + 1;
}

/* Length of the well-formed UTF-8 sequence at s[i] (1 for ASCII), 0 when malformed. */
static size_t utf8_len(const char *s, size_t i, size_t n, uint32_t *cp) {
  unsigned char c = (unsigned char)s[i];
  if (c < 0x80) {
    *cp = c;
    return 1;
  }
  size_t len;
  uint32_t v, min;
  if (c >= 0xc2 && c <= 0xdf) len = 2, v = c & 0x1f, min = 0x80;
  else if (c >= 0xe0 && c <= 0xef) len = 3, v = c & 0x0f, min = 0x800;
  else if (c >= 0xf0 && c <= 0xf4) len = 4, v = c & 0x07, min = 0x10000;
  else return 0;
  if (i + len > n) return 0;
  for (size_t k = 1; k < len; k++) {
    unsigned char cc = (unsigned char)s[i + k];
    if ((cc & 0xc0) != 0x80) return 0;
    v = (v << 6) | (cc & 0x3f);
  }
  if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) return 0;
  *cp = v;
  return len;
}

static void check_utf8(reader *r, const char *s, size_t n, size_t at, const char *what) {
  uint32_t cp;
  for (size_t k = 0; k < n;) {
    if ((unsigned char)s[k] < 0x80) { /* the common case: plain ASCII */
      k++;
      continue;
    }
    size_t l = utf8_len(s, k, n, &cp);
    if (!l) fail_at(r, at, CORDON_SBPL_SYNTAX, "invalid UTF-8 in %s", what);
    k += l;
  }
}

static void skip_block_comment(reader *r) {
  size_t start = r->i;
  unsigned nest = 1;
  r->i += 2;
  while (r->i < r->n) {
    char c = r->s[r->i];
    if (c == '\n') newline_at(r, r->i);
    if (c == '|' && r->i + 1 < r->n && r->s[r->i + 1] == '#') {
      r->i += 2;
      if (--nest == 0) return;
    } else if (c == '#' && r->i + 1 < r->n && r->s[r->i + 1] == '|') {
      r->i += 2;
      if (++nest > r->nest_limit) fail_at(r, r->i - 2, CORDON_SBPL_LIMIT, "block comments nested too deeply");
    } else {
      r->i++;
    }
  }
  fail_at(r, start, CORDON_SBPL_SYNTAX, "unterminated block comment '#|'");
}

static cordon_datum *read_datum(reader *r);
static void enter(reader *r, size_t at);

/* Skips whitespace and comments (including #; datum comments). */
static void skip_atmosphere(reader *r) {
  while (r->i < r->n) {
    char c = r->s[r->i];
    if (c == '\n') {
      newline_at(r, r->i);
      r->i++;
    } else if (is_space(c)) {
      r->i++;
    } else if (c == ';') {
      const char *nl = memchr(r->s + r->i, '\n', r->n - r->i);
      r->i = nl ? (size_t)(nl - r->s) : r->n;
    } else if (c == '#' && r->i + 1 < r->n && r->s[r->i + 1] == '|') {
      skip_block_comment(r);
    } else if (c == '#' && r->i + 1 < r->n && r->s[r->i + 1] == ';') {
      size_t at = r->i;
      r->i += 2;
      enter(r, at); /* "#;#;#;…" recurses like nesting does */
      if (read_datum(r) == EOF_MARK) fail_at(r, at, CORDON_SBPL_SYNTAX, "'#;' comments out nothing");
      r->depth--;
    } else {
      return;
    }
  }
}

static cordon_datum *make(reader *r, cordon_datum_kind kind, size_t start, unsigned line, size_t line_start) {
  cordon_datum *d = need(r, cordon_datum_new(r->a, kind));
  d->span.src = r->src;
  d->span.line = line;
  d->span.col = (unsigned)(start - line_start + 1);
  d->span.start = (uint32_t)start;
  d->span.end = (uint32_t)r->i;
  return d;
}

static int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* A string "…" with escapes, or a raw string #"…" (r->i at the opening quote). */
static cordon_datum *read_string(reader *r, size_t start, bool raw) {
  unsigned line = r->line;
  size_t ls = r->line_start;
  size_t body = r->i + 1, k = body;
  while (k < r->n && r->s[k] != '"') {
    if (r->s[k] == '\\' && !raw) k++;
    if (k < r->n && r->s[k] == '\n') newline_at(r, k);
    k++;
  }
  if (k >= r->n) fail_at(r, start, CORDON_SBPL_SYNTAX, "unterminated string");
  char *out = need(r, cordon_arena_alloc(r->a, k - body + 1));
  size_t o = 0;
  for (size_t j = body; j < k; j++) {
    char c = r->s[j];
    if (c != '\\' || raw) {
      out[o++] = c;
      continue;
    }
    size_t esc = j++;
    c = r->s[j];
    switch (c) {
    case 'n': out[o++] = '\n'; break;
    case 't': out[o++] = '\t'; break;
    case 'r': out[o++] = '\r'; break;
    case 'a': out[o++] = '\a'; break;
    case 'b': out[o++] = '\b'; break;
    case 'f': out[o++] = '\f'; break;
    case 'v': out[o++] = '\v'; break;
    case 'x': {
      int v = 0, digits = 0, h;
      while (digits < 2 && j + 1 < k && (h = hex_digit(r->s[j + 1])) >= 0) v = v * 16 + h, j++, digits++;
      if (!digits) fail_at(r, esc, CORDON_SBPL_SYNTAX, "'\\x' needs one or two hex digits");
      out[o++] = (char)v;
      break;
    }
    default:
      if (c >= '0' && c <= '7') {
        int v = c - '0', digits = 1;
        while (digits < 3 && j + 1 < k && r->s[j + 1] >= '0' && r->s[j + 1] <= '7') v = v * 8 + (r->s[++j] - '0'), digits++;
        if (v > 255) fail_at(r, esc, CORDON_SBPL_SYNTAX, "octal escape '\\%.3s' is above \\377", r->s + esc + 1);
        out[o++] = (char)v;
      } else {
        out[o++] = c; /* \" \\ and unknown escapes: the character itself */
      }
    }
  }
  out[o] = 0;
  if (memchr(out, 0, o)) fail_at(r, start, CORDON_SBPL_SYNTAX, "string contains a NUL character");
  check_utf8(r, out, o, start, "string");
  r->i = k + 1;
  cordon_datum *d = make(r, CORDON_D_STR, start, line, ls);
  d->u.str.s = out;
  d->u.str.len = o;
  return d;
}

static size_t token_end(reader *r, size_t from) {
  size_t k = from;
  while (k < r->n && !is_delim(r->s[k])) k++;
  return k;
}

/* Parses digits of `base` in s[from, to) with an optional sign; false when malformed or out of range. */
static bool parse_int(const char *s, size_t from, size_t to, int base, int64_t *out) {
  bool neg = false;
  if (from < to && (s[from] == '+' || s[from] == '-')) neg = s[from++] == '-';
  if (from >= to) return false;
  uint64_t v = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
  for (size_t k = from; k < to; k++) {
    int d = hex_digit(s[k]);
    if (d < 0 || d >= base) return false;
    if (v > (lim - (uint64_t)d) / (uint64_t)base) return false;
    v = v * (uint64_t)base + (uint64_t)d;
  }
  *out = neg ? (int64_t)(0 - v) : (int64_t)v;
  return true;
}

static const struct { const char *name; uint32_t cp; } char_names[] = {
  {"space", ' '}, {"newline", '\n'}, {"linefeed", '\n'}, {"tab", '\t'}, {"return", '\r'},
  {"nul", 0}, {"null", 0}, {"alarm", 7}, {"backspace", 8}, {"delete", 127}, {"escape", 27},
  {"altmode", 27}, {"page", 12}, {NULL, 0},
};

static cordon_datum *read_char(reader *r, size_t start, unsigned line, size_t ls) {
  size_t from = r->i + 2; /* after #\ */
  if (from >= r->n) fail_at(r, start, CORDON_SBPL_SYNTAX, "'#\\' at end of input");
  uint32_t cp;
  size_t first = utf8_len(r->s, from, r->n, &cp);
  if (!first) fail_at(r, start, CORDON_SBPL_SYNTAX, "invalid UTF-8 in character literal");
  size_t end = from + first;
  if (end < r->n && !is_delim(r->s[end])) end = token_end(r, end);
  size_t len = end - from;
  if (len > first) {
    int64_t v;
    bool found = false;
    for (int k = 0; char_names[k].name; k++)
      if (strlen(char_names[k].name) == len && memcmp(char_names[k].name, r->s + from, len) == 0) {
        cp = char_names[k].cp;
        found = true;
      }
    if (!found && r->s[from] == 'x' && parse_int(r->s, from + 1, end, 16, &v) && r->s[from + 1] != '-' &&
        r->s[from + 1] != '+' && v <= 0x10ffff && !(v >= 0xd800 && v <= 0xdfff)) {
      cp = (uint32_t)v;
      found = true;
    }
    if (!found) fail_at(r, start, CORDON_SBPL_SYNTAX, "unknown character name '#\\%.*s'", (int)(len > 40 ? 40 : len), r->s + from);
  }
  r->i = end;
  cordon_datum *d = make(r, CORDON_D_CHAR, start, line, ls);
  d->u.ch = cp;
  return d;
}

static cordon_datum *read_list(reader *r, size_t start, unsigned line, size_t ls);

/* #(a b c): read as a list, then laid out as an array. */
static cordon_datum *read_vector(reader *r, size_t start, unsigned line, size_t ls) {
  r->i++; /* '#' */
  cordon_datum *list = read_list(r, start + 1, line, ls);
  long n = cordon_datum_list_length(list);
  if (n < 0) fail_at(r, start, CORDON_SBPL_SYNTAX, "a vector cannot hold a dotted pair");
  cordon_datum *d = make(r, CORDON_D_VECTOR, start, line, ls);
  d->span.end = list->span.end;
  d->u.vec.n = (size_t)n;
  d->u.vec.items = need(r, cordon_arena_alloc(r->a, (size_t)(n ? n : 1) * sizeof *d->u.vec.items));
  size_t k = 0;
  for (cordon_datum *p = list; p->kind == CORDON_D_PAIR; p = p->u.pair.cdr) d->u.vec.items[k++] = p->u.pair.car;
  return d;
}

static cordon_datum *read_hash(reader *r, size_t start, unsigned line, size_t ls) {
  char c = r->i + 1 < r->n ? r->s[r->i + 1] : 0;
  if (c == '"') {
    r->i++;
    return read_string(r, start, true);
  }
  if (c == '\\') return read_char(r, start, line, ls);
  size_t end = token_end(r, r->i + 1);
  const char *tok = r->s + r->i + 1;
  size_t len = end - (r->i + 1);
  int base = 0;
  switch (c) {
  case 'x': case 'X': base = 16; break;
  case 'o': case 'O': base = 8; break;
  case 'b': case 'B': base = 2; break;
  case 'd': case 'D': base = 10; break;
  }
  if (base) {
    int64_t v;
    if (!parse_int(r->s, r->i + 2, end, base, &v))
      fail_at(r, start, CORDON_SBPL_SYNTAX, "invalid or out-of-range number '#%.*s'", (int)(len > 40 ? 40 : len), tok);
    r->i = end;
    cordon_datum *d = make(r, CORDON_D_NUM, start, line, ls);
    d->u.num = v;
    return d;
  }
  bool t = (len == 1 && c == 't') || (len == 4 && memcmp(tok, "true", 4) == 0);
  bool f = (len == 1 && c == 'f') || (len == 5 && memcmp(tok, "false", 5) == 0);
  if (t || f) {
    r->i = end;
    cordon_datum *d = make(r, CORDON_D_BOOL, start, line, ls);
    d->u.b = t;
    return d;
  }
  if (c == '(') return read_vector(r, start, line, ls);
  fail_at(r, start, CORDON_SBPL_SYNTAX, "unknown syntax '#%.*s'", (int)(len > 40 ? 40 : len), tok);
}

/* Digits with an optional sign, point or exponent: a number (or a number SBPL refuses, such as 1.5 or
 * one out of range). Any other token that starts with a digit is a symbol, as in the TinyScheme reader
 * libsandbox embeds: Apple's profiles write hexadecimal ids such as 00f1 bare. */
static bool is_number_shaped(const char *tok, size_t len) {
  size_t k = (tok[0] == '+' || tok[0] == '-') ? 1 : 0;
  for (; k < len; k++)
    if (!((tok[k] >= '0' && tok[k] <= '9') || tok[k] == '.' || tok[k] == 'e' || tok[k] == 'E')) return false;
  return true;
}

static cordon_datum *read_atom(reader *r, size_t start, unsigned line, size_t ls) {
  size_t end = token_end(r, r->i);
  const char *tok = r->s + start;
  size_t len = end - start;
  for (size_t k = 0; k < len; k++)
    if ((unsigned char)tok[k] < 0x20 || tok[k] == 0x7f)
      fail_at(r, start + k, CORDON_SBPL_SYNTAX, "control character 0x%02x in a symbol", (unsigned char)tok[k]);
  bool numeric = (tok[0] >= '0' && tok[0] <= '9') ||
                 ((tok[0] == '+' || tok[0] == '-') && len > 1 && tok[1] >= '0' && tok[1] <= '9');
  if (numeric && !is_number_shaped(tok, len)) numeric = false; /* 00f1, 12ab: symbols, as in TinyScheme */
  if (numeric) {
    int64_t v;
    if (!parse_int(r->s, start, end, 10, &v))
      fail_at(r, start, CORDON_SBPL_SYNTAX, "invalid or out-of-range number '%.*s' (SBPL numbers are integers)",
              (int)(len > 40 ? 40 : len), tok);
    r->i = end;
    cordon_datum *d = make(r, CORDON_D_NUM, start, line, ls);
    d->u.num = v;
    return d;
  }
  check_utf8(r, tok, len, start, "symbol");
  r->i = end;
  cordon_datum *d = make(r, CORDON_D_SYM, start, line, ls);
  d->u.sym = need(r, cordon_symtab_intern(r->syms, tok, len));
  return d;
}

static void enter(reader *r, size_t at) {
  if (++r->depth > r->nest_limit)
    fail_at(r, at, CORDON_SBPL_LIMIT, "nesting deeper than %u levels", r->nest_limit);
}

static cordon_datum *read_list(reader *r, size_t start, unsigned line, size_t ls) {
  enter(r, start);
  r->i++;
  cordon_datum *head = &cordon_datum_nil, **tail = &head;
  for (;;) {
    skip_atmosphere(r);
    if (r->i >= r->n) fail_at(r, start, CORDON_SBPL_SYNTAX, "unbalanced '(': missing ')'");
    char c = r->s[r->i];
    if (c == ')') break;
    if (c == '.' && r->i + 1 < r->n && is_delim(r->s[r->i + 1])) {
      size_t dot = r->i;
      if (head->kind == CORDON_D_NIL) fail_at(r, dot, CORDON_SBPL_SYNTAX, "'.' needs a datum before it");
      r->i++;
      skip_atmosphere(r);
      cordon_datum *last = r->i < r->n && r->s[r->i] != ')' ? read_datum(r) : EOF_MARK;
      if (last == EOF_MARK) fail_at(r, dot, CORDON_SBPL_SYNTAX, "'.' needs a datum after it");
      *tail = last;
      skip_atmosphere(r);
      if (r->i >= r->n || r->s[r->i] != ')') fail_at(r, dot, CORDON_SBPL_SYNTAX, "only one datum may follow '.'");
      break;
    }
    cordon_datum *item = read_datum(r);
    cordon_datum *cell = need(r, cordon_datum_cons(r->a, item, &cordon_datum_nil));
    cell->span = item->span;
    *tail = cell;
    tail = &cell->u.pair.cdr;
  }
  r->i++; /* ')' */
  r->depth--;
  if (head->kind == CORDON_D_NIL) return make(r, CORDON_D_NIL, start, line, ls);
  /* The list's own span covers the parentheses; its cells keep their items' spans. */
  cordon_datum *d = make(r, CORDON_D_PAIR, start, line, ls);
  d->u.pair = head->u.pair;
  return d;
}

static cordon_datum *read_quoted(reader *r, size_t start, unsigned line, size_t ls, cordon_symbol *which, size_t skip) {
  enter(r, start);
  r->i += skip;
  skip_atmosphere(r);
  cordon_datum *x = r->i < r->n && r->s[r->i] != ')' ? read_datum(r) : EOF_MARK;
  if (x == EOF_MARK) fail_at(r, start, CORDON_SBPL_SYNTAX, "'%s' must be followed by a datum", which->name);
  r->depth--;
  cordon_datum *sym = make(r, CORDON_D_SYM, start, line, ls);
  sym->u.sym = which;
  cordon_datum *d = make(r, CORDON_D_PAIR, start, line, ls);
  d->u.pair.car = sym;
  d->u.pair.cdr = need(r, cordon_datum_cons(r->a, x, &cordon_datum_nil));
  d->u.pair.cdr->span = x->span;
  return d;
}

/* Reads one datum; EOF_MARK at end of input. */
static cordon_datum *read_datum(reader *r) {
  skip_atmosphere(r);
  if (r->i >= r->n) return EOF_MARK;
  size_t start = r->i;
  unsigned line = r->line;
  size_t ls = r->line_start;
  char c = r->s[start];
  switch (c) {
  case '(': return read_list(r, start, line, ls);
  case ')': fail_at(r, start, CORDON_SBPL_SYNTAX, "unexpected ')'");
  case '"': return read_string(r, start, false);
  case '#': return read_hash(r, start, line, ls);
  case '\'': return read_quoted(r, start, line, ls, r->quote, 1);
  case '`': return read_quoted(r, start, line, ls, r->quasiquote, 1);
  case ',':
    if (start + 1 < r->n && r->s[start + 1] == '@') return read_quoted(r, start, line, ls, r->unquote_splicing, 2);
    return read_quoted(r, start, line, ls, r->unquote, 1);
  case '.':
    if (start + 1 >= r->n || is_delim(r->s[start + 1])) fail_at(r, start, CORDON_SBPL_SYNTAX, "unexpected '.'");
    return read_atom(r, start, line, ls);
  default:
    if (c == 0) fail_at(r, start, CORDON_SBPL_SYNTAX, "NUL byte in input");
    return read_atom(r, start, line, ls);
  }
}

cordon_datum *cordon_sbpl_read_all(cordon_arena *a, cordon_symtab *syms, const cordon_source *src,
                                   unsigned nest_limit, cordon_sbpl_read_error *err) {
  reader r = {.src = src, .s = src->text, .n = src->len, .line = 1, .a = a, .syms = syms, .err = err,
              .nest_limit = nest_limit ? nest_limit : CORDON_SBPL_NEST_LIMIT};
  if (src->len > UINT32_MAX) {
    err->status = CORDON_SBPL_LIMIT;
    err->line = err->col = 1;
    snprintf(err->message, sizeof err->message, "input larger than 4 GiB");
    return NULL;
  }
  if (setjmp(r.fail)) return NULL;
  /* A NUL can only come from a damaged or hostile file; refusing it anywhere (comments included) keeps
   * what a C string of the text shows equal to what is evaluated. */
  const char *nul = src->len ? memchr(src->text, 0, src->len) : NULL;
  if (nul) fail_at(&r, (size_t)(nul - src->text), CORDON_SBPL_SYNTAX, "NUL byte in input");
  if (src->len >= 3 && memcmp(src->text, "\xef\xbb\xbf", 3) == 0) r.i = r.line_start = 3; /* a UTF-8 byte order mark */
  r.quote = need(&r, cordon_symtab_intern(syms, "quote", 5));
  r.quasiquote = need(&r, cordon_symtab_intern(syms, "quasiquote", 10));
  r.unquote = need(&r, cordon_symtab_intern(syms, "unquote", 7));
  r.unquote_splicing = need(&r, cordon_symtab_intern(syms, "unquote-splicing", 16));
  cordon_datum *head = &cordon_datum_nil, **tail = &head;
  for (;;) {
    cordon_datum *d = read_datum(&r);
    if (d == EOF_MARK) break;
    cordon_datum *cell = need(&r, cordon_datum_cons(a, d, &cordon_datum_nil));
    cell->span = d->span;
    *tail = cell;
    tail = &cell->u.pair.cdr;
  }
  return head;
}
