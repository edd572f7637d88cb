/* src/sbpl/writer.h — the SBPL writer: the one way any string reaches SBPL text, and IR → text */
#ifndef CORDON_SBPL_WRITER_H
#define CORDON_SBPL_WRITER_H
#include "core/buf.h"
#include "sbpl/ir.h"

#include <stdbool.h>
#include <stddef.h>

/* sandbox-exec refuses string literals of about 1 KB and more (FIELD-NOTES, "Limits and cost"). */
#define CORDON_SBPL_MAX_LITERAL 1000

typedef enum {
  CORDON_SBPL_WRITE_OK = 0,
  CORDON_SBPL_WRITE_NUL,           /* a NUL byte inside the string */
  CORDON_SBPL_WRITE_CONTROL_CHAR,  /* another byte below 0x20, or 0x7f */
  CORDON_SBPL_WRITE_INVALID_UTF8,  /* not well-formed UTF-8 (overlong forms and surrogates included) */
  CORDON_SBPL_WRITE_TOO_LONG,      /* more than CORDON_SBPL_MAX_LITERAL bytes: pass it as a -D param */
  CORDON_SBPL_WRITE_BAD_NAME,      /* an operation, filter, modifier or parameter name that is not a
                                      plain SBPL symbol/identifier ([A-Za-z0-9*_.:+/-], not empty) */
  CORDON_SBPL_WRITE_BAD_RULE,      /* a rule without operations, a require-not without exactly one
                                      child, a filter without arguments, … */
  CORDON_SBPL_WRITE_NOMEM,
} cordon_sbpl_write_status;

/* "ok", "nul", "control_char", "invalid_utf8", "too_long", "bad_name", "bad_rule", "nomem". */
const char *cordon_sbpl_write_status_name(cordon_sbpl_write_status s);

/* Where a write failed: the rule index (SIZE_MAX when not inside a rule) and the byte offset inside the
 * offending string (0 when not about a string), plus a short human message. */
typedef struct {
  size_t rule;
  size_t offset;
  char message[160];
} cordon_sbpl_write_error;

/* Checks `s` (length `len`, NULs counted) against the rules above without writing anything. `offset`
 * (may be NULL) receives the position of the first bad byte. */
cordon_sbpl_write_status cordon_sbpl_check_string(const char *s, size_t len, size_t *offset);

/* Appends `s` as an SBPL string literal: "…" with `"` and `\` escaped by a backslash; every other byte
 * (valid UTF-8 above 0x7f included) is written as is. Nothing is appended on failure. */
cordon_sbpl_write_status cordon_sbpl_quote(const char *s, size_t len, cordon_buf *out);

/* Appends the regular expression source `re` as a regex literal: the raw form #"…" (where a backslash
 * is just a backslash, so "\." stays a literal dot) whenever `re` holds no `"`; otherwise the escaped
 * form "…" with `"` and `\` doubled by a backslash, which reads back to the same source. Same checks
 * as cordon_sbpl_quote. */
cordon_sbpl_write_status cordon_sbpl_quote_regex(const char *re, size_t len, cordon_buf *out);

/* Appends `s` with every POSIX ERE metacharacter (. [ ] ( ) * + ? { } | ^ $ \) escaped by a
 * backslash, so the result matches exactly `s`. The result is regex *source*: write it with
 * cordon_sbpl_quote_regex. Checks `s` like cordon_sbpl_quote. */
cordon_sbpl_write_status cordon_sbpl_regex_escape(const char *s, size_t len, cordon_buf *out);

/* Checks a -D parameter name: [A-Za-z_][A-Za-z0-9_]* and at most 128 bytes. */
bool cordon_sbpl_param_name_ok(const char *name);

/* Appends one filter as SBPL: (literal "…"), (subpath (param "X")), (require-not …), (remote tcp
 * "localhost:*"), … Regex filters (match == CORDON_MATCH_REGEX) use cordon_sbpl_quote_regex. */
cordon_sbpl_write_status cordon_sbpl_write_filter(const cordon_filter *f, cordon_buf *out,
                                                  cordon_sbpl_write_error *err);

/* Appends one rule: its comment as ";; " lines, then (allow|deny OPS… FILTER (with MOD …)…) and a
 * newline. The rule's filter is written as one form: a CORDON_F_ALL group as (require-all …), a
 * CORDON_F_ANY group as (require-any …). Never side by side: Seatbelt reads several filters in one rule
 * as "any of them" (docs/sbpl-reader.md), so explicit groups leave no room for a different reading. */
cordon_sbpl_write_status cordon_sbpl_write_rule(const cordon_rule *r, cordon_buf *out, cordon_sbpl_write_error *err);

/* Appends every rule of `p` in order; with `version` true, "(version 1)\n" first. On failure `out`
 * holds a partial text the caller must discard; `err` says which rule failed and why. */
cordon_sbpl_write_status cordon_sbpl_write_policy(const cordon_policy *p, bool version, cordon_buf *out,
                                                  cordon_sbpl_write_error *err);
#endif
