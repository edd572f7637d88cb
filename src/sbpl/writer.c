/* src/sbpl/writer.c — quoting and IR → SBPL text. See writer.h for the rules every string obeys. */
#include "sbpl/writer.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

const char *cordon_sbpl_write_status_name(cordon_sbpl_write_status s) {
  switch (s) {
  case CORDON_SBPL_WRITE_OK: return "ok";
  case CORDON_SBPL_WRITE_NUL: return "nul";
  case CORDON_SBPL_WRITE_CONTROL_CHAR: return "control_char";
  case CORDON_SBPL_WRITE_INVALID_UTF8: return "invalid_utf8";
  case CORDON_SBPL_WRITE_TOO_LONG: return "too_long";
  case CORDON_SBPL_WRITE_BAD_NAME: return "bad_name";
  case CORDON_SBPL_WRITE_BAD_RULE: return "bad_rule";
  case CORDON_SBPL_WRITE_NOMEM: return "nomem";
  }
  return "unknown";
}

/* Length of the well-formed UTF-8 sequence at s[0..n), or 0 when it is not one (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF). */
static size_t utf8_seq(const unsigned char *s, size_t n) {
  unsigned char c = s[0];
  size_t len;
  uint32_t cp;
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf) { len = 2; cp = c & 0x1f; }
  else if (c >= 0xe0 && c <= 0xef) { len = 3; cp = c & 0x0f; }
  else if (c >= 0xf0 && c <= 0xf4) { len = 4; cp = c & 0x07; }
  else return 0;
  if (n < len) return 0;
  for (size_t i = 1; i < len; i++) {
    if ((s[i] & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (s[i] & 0x3f);
  }
  if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff))) return 0;
  if (cp >= 0xd800 && cp <= 0xdfff) return 0;
  return len;
}

cordon_sbpl_write_status cordon_sbpl_check_string(const char *s, size_t len, size_t *offset) {
  const unsigned char *u = (const unsigned char *)s;
  size_t i = 0;
  cordon_sbpl_write_status st = CORDON_SBPL_WRITE_OK;
  while (i < len) {
    if (u[i] == 0) { st = CORDON_SBPL_WRITE_NUL; break; }
    if (u[i] < 0x20 || u[i] == 0x7f) { st = CORDON_SBPL_WRITE_CONTROL_CHAR; break; }
    size_t n = utf8_seq(u + i, len - i);
    if (!n) { st = CORDON_SBPL_WRITE_INVALID_UTF8; break; }
    i += n;
  }
  if (st == CORDON_SBPL_WRITE_OK && len > CORDON_SBPL_MAX_LITERAL) {
    st = CORDON_SBPL_WRITE_TOO_LONG;
    i = CORDON_SBPL_MAX_LITERAL;
  }
  if (offset) *offset = st == CORDON_SBPL_WRITE_OK ? 0 : i;
  return st;
}

/* Writes `s` between `open` and '"', putting a backslash before every `"` and `\` when `escape`. */
static cordon_sbpl_write_status put_string(const char *s, size_t len, const char *open, bool escape, cordon_buf *out) {
  cordon_sbpl_write_status st = cordon_sbpl_check_string(s, len, NULL);
  if (st != CORDON_SBPL_WRITE_OK) return st;
  cordon_buf_puts(out, open);
  size_t start = 0;
  for (size_t i = 0; i < len; i++) {
    if (escape && (s[i] == '"' || s[i] == '\\')) {
      cordon_buf_append(out, s + start, i - start);
      cordon_buf_putc(out, '\\');
      start = i;
    }
  }
  cordon_buf_append(out, s + start, len - start);
  cordon_buf_putc(out, '"');
  return out->oom ? CORDON_SBPL_WRITE_NOMEM : CORDON_SBPL_WRITE_OK;
}

cordon_sbpl_write_status cordon_sbpl_quote(const char *s, size_t len, cordon_buf *out) {
  return put_string(s, len, "\"", true, out);
}

cordon_sbpl_write_status cordon_sbpl_quote_regex(const char *re, size_t len, cordon_buf *out) {
  /* A raw string cannot hold '"' (it has no escapes), so such a regex falls back to the escaped form. */
  bool raw = memchr(re, '"', len) == NULL;
  return put_string(re, len, raw ? "#\"" : "\"", !raw, out);
}

cordon_sbpl_write_status cordon_sbpl_regex_escape(const char *s, size_t len, cordon_buf *out) {
  /* Checked against the same rules first: the escaped form is longer, and the limit applies to what is
   * finally quoted, which cordon_sbpl_quote_regex checks again. */
  size_t off;
  cordon_sbpl_write_status st = cordon_sbpl_check_string(s, len, &off);
  if (st != CORDON_SBPL_WRITE_OK && st != CORDON_SBPL_WRITE_TOO_LONG) return st;
  for (size_t i = 0; i < len; i++) {
    if (strchr(".[]()*+?{}|^$\\", s[i])) cordon_buf_putc(out, '\\');
    cordon_buf_putc(out, s[i]);
  }
  return out->oom ? CORDON_SBPL_WRITE_NOMEM : CORDON_SBPL_WRITE_OK;
}

bool cordon_sbpl_param_name_ok(const char *name) {
  if (!name || !*name || strlen(name) > 128) return false;
  if (!((*name >= 'A' && *name <= 'Z') || (*name >= 'a' && *name <= 'z') || *name == '_')) return false;
  for (const char *p = name; *p; p++)
    if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
      return false;
  return true;
}

/* Operation, filter and modifier names, and symbol arguments (tcp, REGULAR-FILE, SIGKILL): written
 * bare, so they must not contain anything that ends or starts another token. */
static bool symbol_ok(const char *s) {
  if (!s || !*s) return false;
  for (const char *p = s; *p; p++) {
    char c = *p;
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || strchr("*_.:+/-", c)))
      return false;
  }
  return true;
}

/* Filters whose argument is a symbol, not a string: (target same-sandbox), (socket-domain AF_INET). */
static bool takes_symbol(const char *filter) {
  static const char *const names[] = {"target", "socket-domain", "socket-type", "socket-protocol",
                                      "process-attribute", NULL};
  for (size_t i = 0; names[i]; i++)
    if (strcmp(names[i], filter) == 0) return true;
  return false;
}

static cordon_sbpl_write_status fail(cordon_sbpl_write_error *err, cordon_sbpl_write_status st, size_t offset,
                                     const char *fmt, const char *what) {
  if (err) {
    err->offset = offset;
    snprintf(err->message, sizeof err->message, fmt, what ? what : "");
  }
  return st;
}

static cordon_sbpl_write_status put_symbol(const char *s, cordon_buf *out, cordon_sbpl_write_error *err) {
  if (!symbol_ok(s)) return fail(err, CORDON_SBPL_WRITE_BAD_NAME, 0, "not a plain SBPL name: '%.100s'", s);
  cordon_buf_puts(out, s);
  return CORDON_SBPL_WRITE_OK;
}

/* A string argument: a parameter reference, a regex literal or a plain string literal. */
static cordon_sbpl_write_status put_arg(const cordon_arg *a, bool regex, cordon_buf *out, cordon_sbpl_write_error *err) {
  if (a->is_param) {
    if (!cordon_sbpl_param_name_ok(a->text))
      return fail(err, CORDON_SBPL_WRITE_BAD_NAME, 0, "not a parameter name: '%.100s'", a->text);
    cordon_buf_printf(out, "(param \"%s\")", a->text);
    return CORDON_SBPL_WRITE_OK;
  }
  size_t len = strlen(a->text), off;
  cordon_sbpl_write_status st = cordon_sbpl_check_string(a->text, len, &off);
  if (st != CORDON_SBPL_WRITE_OK)
    return fail(err, st, off, "%s",
                st == CORDON_SBPL_WRITE_TOO_LONG ? "string longer than the SBPL literal limit (pass it as a -D parameter)"
                : st == CORDON_SBPL_WRITE_INVALID_UTF8 ? "string is not valid UTF-8"
                : "string holds a control character or NUL");
  return regex ? cordon_sbpl_quote_regex(a->text, len, out) : cordon_sbpl_quote(a->text, len, out);
}

static cordon_sbpl_write_status put_filter(const cordon_filter *f, cordon_buf *out, cordon_sbpl_write_error *err,
                                           unsigned depth);

static cordon_sbpl_write_status put_children(const cordon_filter *f, cordon_buf *out, cordon_sbpl_write_error *err,
                                             unsigned depth) {
  for (size_t i = 0; i < f->nchildren; i++) {
    cordon_buf_putc(out, ' ');
    cordon_sbpl_write_status st = put_filter(f->children[i], out, err, depth + 1);
    if (st != CORDON_SBPL_WRITE_OK) return st;
  }
  return CORDON_SBPL_WRITE_OK;
}

static cordon_sbpl_write_status put_filter(const cordon_filter *f, cordon_buf *out, cordon_sbpl_write_error *err,
                                           unsigned depth) {
  if (!f) return fail(err, CORDON_SBPL_WRITE_BAD_RULE, 0, "missing filter%s", NULL);
  if (depth > 64) return fail(err, CORDON_SBPL_WRITE_BAD_RULE, 0, "filters nested too deeply%s", NULL);
  cordon_sbpl_write_status st = CORDON_SBPL_WRITE_OK;
  switch (f->kind) {
  case CORDON_F_ALL:
  case CORDON_F_ANY:
  case CORDON_F_NOT:
    if (f->kind == CORDON_F_NOT && f->nchildren != 1)
      return fail(err, CORDON_SBPL_WRITE_BAD_RULE, 0, "require-not needs exactly one filter%s", NULL);
    if (f->nargs) return fail(err, CORDON_SBPL_WRITE_BAD_RULE, 0, "a filter group takes no strings%s", NULL);
    cordon_buf_puts(out, f->kind == CORDON_F_ALL ? "(require-all" : f->kind == CORDON_F_ANY ? "(require-any" : "(require-not");
    st = put_children(f, out, err, depth);
    break;
  case CORDON_F_PATH:
  case CORDON_F_NAME:
  case CORDON_F_EXTENSION:
    if (f->nargs != 1 || f->nchildren)
      return fail(err, CORDON_SBPL_WRITE_BAD_RULE, 0, "filter %.100s takes exactly one argument", f->name);
    cordon_buf_putc(out, '(');
    if ((st = put_symbol(f->name, out, err)) != CORDON_SBPL_WRITE_OK) return st;
    cordon_buf_putc(out, ' ');
    if (f->kind == CORDON_F_NAME && takes_symbol(f->name) && !f->args[0].is_param)
      st = put_symbol(f->args[0].text, out, err);
    else
      st = put_arg(&f->args[0], f->match == CORDON_MATCH_REGEX, out, err);
    break;
  case CORDON_F_VNODE_TYPE:
    if (!f->nargs) return fail(err, CORDON_SBPL_WRITE_BAD_RULE, 0, "vnode-type needs a type%s", NULL);
    cordon_buf_puts(out, "(vnode-type");
    for (size_t i = 0; i < f->nargs && st == CORDON_SBPL_WRITE_OK; i++) {
      cordon_buf_putc(out, ' ');
      st = put_symbol(f->args[i].text, out, err);
    }
    break;
  case CORDON_F_NETWORK:
    /* (remote tcp "host:port"), (remote ip), (remote unix-socket (path-literal "/x")): the first
     * argument is the protocol symbol, the others are address strings. */
    cordon_buf_putc(out, '(');
    if ((st = put_symbol(f->name, out, err)) != CORDON_SBPL_WRITE_OK) return st;
    for (size_t i = 0; i < f->nargs && st == CORDON_SBPL_WRITE_OK; i++) {
      cordon_buf_putc(out, ' ');
      st = i == 0 && !f->args[i].is_param ? put_symbol(f->args[i].text, out, err) : put_arg(&f->args[i], false, out, err);
    }
    if (st == CORDON_SBPL_WRITE_OK) st = put_children(f, out, err, depth);
    break;
  case CORDON_F_OTHER:
    cordon_buf_putc(out, '(');
    if ((st = put_symbol(f->name, out, err)) != CORDON_SBPL_WRITE_OK) return st;
    for (size_t i = 0; i < f->nargs && st == CORDON_SBPL_WRITE_OK; i++) {
      cordon_buf_putc(out, ' ');
      st = put_arg(&f->args[i], false, out, err);
    }
    if (st == CORDON_SBPL_WRITE_OK) st = put_children(f, out, err, depth);
    break;
  }
  if (st != CORDON_SBPL_WRITE_OK) return st;
  cordon_buf_putc(out, ')');
  return out->oom ? CORDON_SBPL_WRITE_NOMEM : CORDON_SBPL_WRITE_OK;
}

cordon_sbpl_write_status cordon_sbpl_write_filter(const cordon_filter *f, cordon_buf *out, cordon_sbpl_write_error *err) {
  if (err) { err->rule = SIZE_MAX; err->offset = 0; err->message[0] = 0; }
  return put_filter(f, out, err, 0);
}

/* ";; " before each line of a rule's comment; the comment obeys the string rules, newlines aside. */
static cordon_sbpl_write_status put_comment(const char *c, cordon_buf *out, cordon_sbpl_write_error *err) {
  while (*c) {
    const char *nl = strchr(c, '\n');
    size_t n = nl ? (size_t)(nl - c) : strlen(c), off;
    cordon_sbpl_write_status st = cordon_sbpl_check_string(c, n, &off);
    if (st == CORDON_SBPL_WRITE_TOO_LONG) st = CORDON_SBPL_WRITE_OK;  /* comments are not literals */
    if (st != CORDON_SBPL_WRITE_OK)
      return fail(err, st, off, "comment refused: %s", cordon_sbpl_write_status_name(st));
    cordon_buf_puts(out, ";; ");
    cordon_buf_append(out, c, n);
    cordon_buf_putc(out, '\n');
    c += n + (nl ? 1 : 0);
  }
  return CORDON_SBPL_WRITE_OK;
}

static cordon_sbpl_write_status put_rule(const cordon_rule *r, cordon_buf *out, cordon_sbpl_write_error *err) {
  cordon_sbpl_write_status st;
  if (r->comment && (st = put_comment(r->comment, out, err)) != CORDON_SBPL_WRITE_OK) return st;
  if (!r->nops) return fail(err, CORDON_SBPL_WRITE_BAD_RULE, 0, "a rule needs at least one operation%s", NULL);
  cordon_buf_puts(out, r->action == CORDON_DENY ? "(deny" : "(allow");
  for (size_t i = 0; i < r->nops; i++) {
    cordon_buf_putc(out, ' ');
    if ((st = put_symbol(r->ops[i], out, err)) != CORDON_SBPL_WRITE_OK) return st;
  }
  /* One filter, always: several filters side by side in a rule mean "any of them" to Seatbelt, so
   * groups are written as explicit (require-all …) / (require-any …) and no reading can differ. */
  const cordon_filter *f = r->filter;
  if (f) {
    cordon_buf_putc(out, ' ');
    if ((st = put_filter(f, out, err, 0)) != CORDON_SBPL_WRITE_OK) return st;
  }
  for (size_t i = 0; i < r->nmods; i++) {
    cordon_buf_puts(out, " (with ");
    if ((st = put_symbol(r->mods[i].name, out, err)) != CORDON_SBPL_WRITE_OK) return st;
    const char *arg = r->mods[i].arg;
    if (arg) {
      cordon_buf_putc(out, ' ');
      /* (with message "text") takes a string; the others take a symbol such as SIGKILL. */
      if (strcmp(r->mods[i].name, "message") != 0 && symbol_ok(arg)) {
        cordon_buf_puts(out, arg);
      } else {
        cordon_arg a = {(char *)arg, false};
        if ((st = put_arg(&a, false, out, err)) != CORDON_SBPL_WRITE_OK) return st;
      }
    }
    cordon_buf_putc(out, ')');
  }
  cordon_buf_puts(out, ")\n");
  return out->oom ? CORDON_SBPL_WRITE_NOMEM : CORDON_SBPL_WRITE_OK;
}

cordon_sbpl_write_status cordon_sbpl_write_rule(const cordon_rule *r, cordon_buf *out, cordon_sbpl_write_error *err) {
  if (err) { err->rule = SIZE_MAX; err->offset = 0; err->message[0] = 0; }
  return put_rule(r, out, err);
}

cordon_sbpl_write_status cordon_sbpl_write_policy(const cordon_policy *p, bool version, cordon_buf *out,
                                                  cordon_sbpl_write_error *err) {
  if (err) { err->rule = SIZE_MAX; err->offset = 0; err->message[0] = 0; }
  if (version) cordon_buf_puts(out, "(version 1)\n");
  for (size_t i = 0; i < p->nrules; i++) {
    cordon_sbpl_write_status st = put_rule(&p->rules[i], out, err);
    if (st != CORDON_SBPL_WRITE_OK) {
      if (err) err->rule = i;
      return st;
    }
  }
  return out->oom ? CORDON_SBPL_WRITE_NOMEM : CORDON_SBPL_WRITE_OK;
}
