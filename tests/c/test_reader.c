/* tests/c/test_reader.c — the SBPL reader: lexical syntax, locations, and clean errors on bad input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sbpl/reader.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  cordon_arena *a;
  cordon_symtab *syms;
  cordon_source src;
  cordon_sbpl_read_error err;
} rd;

static cordon_datum *read_n(rd *r, const char *text, size_t len) {
  r->a = cordon_arena_new(0);
  r->syms = cordon_symtab_new(r->a);
  r->src = (cordon_source){"t.sb", text, len};
  memset(&r->err, 0, sizeof r->err);
  return cordon_sbpl_read_all(r->a, r->syms, &r->src, 0, &r->err);
}

static cordon_datum *read_text(rd *r, const char *text) { return read_n(r, text, strlen(text)); }

static void done(rd *r) { cordon_arena_free(r->a); }

static cordon_datum *nth(cordon_datum *l, int i) {
  while (i-- > 0) l = l->u.pair.cdr;
  return l->u.pair.car;
}

static void reads_atoms_with_line_and_column(void **state) {
  (void)state;
  rd r;
  cordon_datum *l = read_text(&r, "(version 1)\n  foo \"bar\"");
  assert_non_null(l);
  assert_int_equal(cordon_datum_list_length(l), 3);
  cordon_datum *form = nth(l, 0);
  assert_int_equal(form->kind, CORDON_D_PAIR);
  assert_int_equal(form->span.line, 1);
  assert_int_equal(form->span.col, 1);
  assert_string_equal(nth(form, 0)->u.sym->name, "version");
  assert_int_equal(nth(form, 1)->u.num, 1);
  cordon_datum *foo = nth(l, 1);
  assert_int_equal(foo->kind, CORDON_D_SYM);
  assert_int_equal(foo->span.line, 2);
  assert_int_equal(foo->span.col, 3);
  cordon_datum *bar = nth(l, 2);
  assert_string_equal(bar->u.str.s, "bar");
  assert_int_equal(bar->span.col, 7);
  done(&r);
}

static void a_datum_span_slices_its_source_text(void **state) {
  (void)state;
  rd r;
  const char *text = "; c\n(allow file-read*\n  (subpath \"/x\"))  ";
  cordon_datum *form = nth(read_text(&r, text), 0);
  assert_int_equal(form->span.end - form->span.start, strlen("(allow file-read*\n  (subpath \"/x\"))"));
  assert_memory_equal(text + form->span.start, "(allow", 6);
  done(&r);
}

static void symbols_are_interned_once_per_name(void **state) {
  (void)state;
  rd r;
  cordon_datum *l = read_text(&r, "abc abc abd");
  assert_ptr_equal(nth(l, 0)->u.sym, nth(l, 1)->u.sym);
  assert_ptr_not_equal(nth(l, 0)->u.sym, nth(l, 2)->u.sym);
  done(&r);
}

static void string_escapes_follow_the_scheme_reader(void **state) {
  (void)state;
  rd r;
  cordon_datum *s = nth(read_text(&r, "\"a\\n\\t\\r\\\"\\\\\\x41\\101\\.\\q\""), 0);
  assert_non_null(s);
  assert_string_equal(s->u.str.s, "a\n\t\r\"\\AA.q"); /* unknown escapes drop the backslash */
  done(&r);
}

static void raw_strings_keep_backslashes(void **state) {
  (void)state;
  rd r;
  cordon_datum *s = nth(read_text(&r, "#\"^/a\\.b$\""), 0);
  assert_string_equal(s->u.str.s, "^/a\\.b$");
  done(&r);
}

static void numbers_read_in_every_radix(void **state) {
  (void)state;
  rd r;
  cordon_datum *l = read_text(&r, "42 -7 #x1F #o17 #b101 #d10 +3");
  int64_t want[] = {42, -7, 31, 15, 5, 10, 3};
  for (int i = 0; i < 7; i++) {
    assert_int_equal(nth(l, i)->kind, CORDON_D_NUM);
    assert_int_equal(nth(l, i)->u.num, want[i]);
  }
  done(&r);
}

static void booleans_and_characters_read(void **state) {
  (void)state;
  rd r;
  cordon_datum *l = read_text(&r, "#t #f #true #false #\\a #\\space #\\x41 #\\( #\\newline");
  assert_true(nth(l, 0)->u.b);
  assert_false(nth(l, 1)->u.b);
  assert_true(nth(l, 2)->u.b);
  assert_false(nth(l, 3)->u.b);
  assert_int_equal(nth(l, 4)->u.ch, 'a');
  assert_int_equal(nth(l, 5)->u.ch, ' ');
  assert_int_equal(nth(l, 6)->u.ch, 'A');
  assert_int_equal(nth(l, 7)->u.ch, '(');
  assert_int_equal(nth(l, 8)->u.ch, '\n');
  done(&r);
}

static void comments_of_every_kind_are_skipped(void **state) {
  (void)state;
  rd r;
  cordon_datum *l = read_text(&r, "; line\n#| block #| nested |# still |# a #;(skipped datum) b ;; end");
  assert_int_equal(cordon_datum_list_length(l), 2);
  assert_string_equal(nth(l, 0)->u.sym->name, "a");
  assert_string_equal(nth(l, 1)->u.sym->name, "b");
  assert_int_equal(nth(l, 1)->span.line, 2);
  done(&r);
}

static void quote_forms_expand_to_lists(void **state) {
  (void)state;
  rd r;
  cordon_datum *l = read_text(&r, "'a `(b ,c ,@d)");
  cordon_datum *q = nth(l, 0);
  assert_string_equal(nth(q, 0)->u.sym->name, "quote");
  assert_string_equal(nth(q, 1)->u.sym->name, "a");
  cordon_datum *qq = nth(l, 1);
  assert_string_equal(nth(qq, 0)->u.sym->name, "quasiquote");
  cordon_datum *body = nth(qq, 1);
  assert_string_equal(nth(nth(body, 1), 0)->u.sym->name, "unquote");
  assert_string_equal(nth(nth(body, 2), 0)->u.sym->name, "unquote-splicing");
  done(&r);
}

static void dotted_pairs_read(void **state) {
  (void)state;
  rd r;
  cordon_datum *p = nth(read_text(&r, "(a . b)"), 0);
  assert_int_equal(p->kind, CORDON_D_PAIR);
  assert_int_equal(p->u.pair.cdr->kind, CORDON_D_SYM);
  assert_int_equal(cordon_datum_list_length(p), -1);
  done(&r);
}

static void a_byte_order_mark_is_skipped(void **state) {
  (void)state;
  rd r;
  cordon_datum *l = read_text(&r, "\xef\xbb\xbf(version 1)");
  assert_int_equal(cordon_datum_list_length(l), 1);
  assert_int_equal(nth(l, 0)->span.col, 1);
  done(&r);
}

static void the_empty_input_reads_as_no_forms(void **state) {
  (void)state;
  rd r;
  cordon_datum *l = read_text(&r, "  ; nothing\n");
  assert_non_null(l);
  assert_int_equal(l->kind, CORDON_D_NIL);
  done(&r);
}

/* Each bad input fails with the given status, line and column. */
static void expect_error(const char *text, size_t len, cordon_sbpl_status st, unsigned line, unsigned col,
                         const char *needle) {
  rd r;
  cordon_datum *l = read_n(&r, text, len ? len : strlen(text));
  if (l) fail_msg("expected an error for %s", text);
  if (r.err.status != st || r.err.line != line || r.err.col != col)
    fail_msg("%s: got status %d at %u:%u (%s)", text, r.err.status, r.err.line, r.err.col, r.err.message);
  if (!strstr(r.err.message, needle)) fail_msg("message '%s' lacks '%s'", r.err.message, needle);
  done(&r);
}

static void malformed_text_gives_located_errors(void **state) {
  (void)state;
  expect_error("(allow\n  (subpath \"/x\"", 0, CORDON_SBPL_SYNTAX, 2, 3, "missing ')'");
  expect_error("(a))", 0, CORDON_SBPL_SYNTAX, 1, 4, "unexpected ')'");
  expect_error("\n  \"abc", 0, CORDON_SBPL_SYNTAX, 2, 3, "unterminated string");
  expect_error("#| open", 0, CORDON_SBPL_SYNTAX, 1, 1, "unterminated block comment");
  expect_error("\"\\xZZ\"", 0, CORDON_SBPL_SYNTAX, 1, 2, "hex digits");
  expect_error("\"\\777\"", 0, CORDON_SBPL_SYNTAX, 1, 2, "octal");
  expect_error("1.5", 0, CORDON_SBPL_SYNTAX, 1, 1, "integers");
  expect_error("99999999999999999999", 0, CORDON_SBPL_SYNTAX, 1, 1, "out-of-range");
  expect_error("#\\bogus", 0, CORDON_SBPL_SYNTAX, 1, 1, "unknown character");
  expect_error("#(1 . 2)", 0, CORDON_SBPL_SYNTAX, 1, 1, "dotted");
  expect_error("(. a)", 0, CORDON_SBPL_SYNTAX, 1, 2, "'.'");
  expect_error("'", 0, CORDON_SBPL_SYNTAX, 1, 1, "followed by a datum");
}

static void nul_bytes_and_invalid_utf8_are_refused(void **state) {
  (void)state;
  expect_error("(a ;\0 comment\n)", 15, CORDON_SBPL_SYNTAX, 1, 5, "NUL");
  expect_error("\"a\\x00b\"", 8, CORDON_SBPL_SYNTAX, 1, 1, "NUL character");
  expect_error("\"\xff\xfe\"", 4, CORDON_SBPL_SYNTAX, 1, 1, "invalid UTF-8");
  expect_error("sym\xc0\xaf", 5, CORDON_SBPL_SYNTAX, 1, 1, "invalid UTF-8"); /* overlong '/' */
  expect_error("\"\xed\xa0\x80\"", 5, CORDON_SBPL_SYNTAX, 1, 1, "invalid UTF-8"); /* surrogate */
  rd r;
  cordon_datum *ok = read_text(&r, "\"caf\xc3\xa9 \xf0\x9f\x94\x92\"");
  assert_non_null(ok);
  done(&r);
}

static void deep_nesting_stops_at_the_limit(void **state) {
  (void)state;
  size_t n = 100000;
  char *text = malloc(2 * n);
  memset(text, '(', n);
  memset(text + n, ')', n);
  expect_error(text, 2 * n, CORDON_SBPL_LIMIT, 1, CORDON_SBPL_NEST_LIMIT + 1, "nesting deeper");
  memset(text, '\'', n);
  expect_error(text, n, CORDON_SBPL_LIMIT, 1, CORDON_SBPL_NEST_LIMIT + 1, "nesting deeper");
  for (size_t i = 0; i + 1 < n; i += 2) text[i] = '#', text[i + 1] = ';';
  expect_error(text, n, CORDON_SBPL_LIMIT, 1, 2 * CORDON_SBPL_NEST_LIMIT + 1, "nesting deeper");
  free(text);
  char ok[2 * 200 + 1];
  memset(ok, '(', 200);
  memset(ok + 200, ')', 200);
  ok[400] = 0;
  rd r;
  assert_non_null(read_text(&r, ok));
  done(&r);
}

static void huge_strings_read_whole(void **state) {
  (void)state;
  size_t n = 4u << 20;
  char *text = malloc(n + 2);
  text[0] = '"';
  memset(text + 1, 'x', n);
  text[n + 1] = '"';
  rd r;
  cordon_datum *l = read_n(&r, text, n + 2);
  assert_non_null(l);
  assert_int_equal(nth(l, 0)->u.str.len, n);
  done(&r);
  free(text);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(reads_atoms_with_line_and_column),
    cmocka_unit_test(a_datum_span_slices_its_source_text),
    cmocka_unit_test(symbols_are_interned_once_per_name),
    cmocka_unit_test(string_escapes_follow_the_scheme_reader),
    cmocka_unit_test(raw_strings_keep_backslashes),
    cmocka_unit_test(numbers_read_in_every_radix),
    cmocka_unit_test(booleans_and_characters_read),
    cmocka_unit_test(comments_of_every_kind_are_skipped),
    cmocka_unit_test(quote_forms_expand_to_lists),
    cmocka_unit_test(dotted_pairs_read),
    cmocka_unit_test(the_empty_input_reads_as_no_forms),
    cmocka_unit_test(a_byte_order_mark_is_skipped),
    cmocka_unit_test(malformed_text_gives_located_errors),
    cmocka_unit_test(nul_bytes_and_invalid_utf8_are_refused),
    cmocka_unit_test(deep_nesting_stops_at_the_limit),
    cmocka_unit_test(huge_strings_read_whole),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
