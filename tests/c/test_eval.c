/* tests/c/test_eval.c — the SBPL evaluator through cordon_sbpl_parse: rules, filters, modifiers, the
 * Scheme subset, params, imports, and the limits that stop runaway programs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sbpl/parse.h"
#include "sbpl/writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static cordon_policy *parse_with(const char *text, const cordon_sbpl_param *params, const cordon_sbpl_options *opt) {
  cordon_policy *p = NULL;
  cordon_sbpl_error err;
  cordon_sbpl_status st = cordon_sbpl_parse(text, strlen(text), "t.sb", params, opt, &p, &err);
  if (st != CORDON_SBPL_OK) {
    print_error("unexpected parse failure: %s\n", err.text);
    cordon_sbpl_error_clear(&err);
    fail();
  }
  return p;
}

static cordon_policy *parse(const char *text) { return parse_with(text, NULL, NULL); }

/* Parses text that must fail; returns the error text (caller frees) after checking the status. */
static char *parse_error(const char *text, cordon_sbpl_status want, const cordon_sbpl_options *opt) {
  cordon_policy *p = NULL;
  cordon_sbpl_error err;
  cordon_sbpl_status st = cordon_sbpl_parse(text, strlen(text), "t.sb", NULL, opt, &p, &err);
  assert_null(p);
  if (st != want) fail_msg("%s: want status %s, got %s (%s)", text, cordon_sbpl_status_name(want), cordon_sbpl_status_name(st), err.text);
  char *msg = strdup(err.text);
  cordon_sbpl_error_clear(&err);
  return msg;
}

static void expect_error(const char *text, cordon_sbpl_status want, const char *needle) {
  char *msg = parse_error(text, want, NULL);
  if (!strstr(msg, needle)) fail_msg("error '%s' lacks '%s'", msg, needle);
  free(msg);
}

static bool has_diag(const cordon_policy *p, const char *code, unsigned line) {
  for (size_t i = 0; i < p->ndiags; i++)
    if (!strcmp(p->diags[i].code, code) && p->diags[i].loc.line == line) return true;
  return false;
}

static void an_allow_becomes_a_located_rule_with_its_text(void **state) {
  (void)state;
  cordon_policy *p = parse("(version 1)\n(deny default)\n(allow file-read*\n  (subpath \"/usr\"))\n");
  assert_int_equal(p->version_forms, 1);
  assert_int_equal(p->nrules, 2);
  cordon_rule *r = &p->rules[1];
  assert_int_equal(r->action, CORDON_ALLOW);
  assert_int_equal(r->nops, 1);
  assert_string_equal(r->ops[0], "file-read*");
  assert_string_equal(r->loc.file, "t.sb");
  assert_int_equal(r->loc.line, 3);
  assert_int_equal(r->loc.col, 1);
  assert_string_equal(r->text, "(allow file-read*\n  (subpath \"/usr\"))");
  assert_int_equal(r->filter->kind, CORDON_F_PATH);
  assert_int_equal(r->filter->match, CORDON_MATCH_SUBPATH);
  assert_string_equal(r->filter->args[0].text, "/usr");
  assert_int_equal(r->filter->loc.line, 4);
  assert_null(p->rules[0].filter);
  assert_string_equal(p->rules[0].ops[0], "default");
  cordon_policy_free(p);
}

static void operation_aliases_expand_and_unknown_ones_are_kept_and_reported(void **state) {
  (void)state;
  cordon_policy *p = parse("(allow process-exec file-unlink)\n(deny file-frob)");
  assert_string_equal(p->rules[0].ops[0], "process-exec*");
  assert_string_equal(p->rules[0].ops[1], "file-write-unlink");
  assert_string_equal(p->rules[1].ops[0], "file-frob");
  assert_true(has_diag(p, "unknown-operation", 2));
  assert_int_equal(p->ndiags, 1);
  cordon_policy_free(p);
}

static void several_filters_in_one_rule_mean_any_of_them(void **state) {
  (void)state;
  cordon_policy *p = parse("(allow file-read* (literal \"/dev/random\") (literal \"/dev/urandom\"))");
  cordon_filter *f = p->rules[0].filter;
  assert_int_equal(f->kind, CORDON_F_ANY);
  assert_int_equal(f->loc.line, 0); /* implicit: no location of its own */
  assert_int_equal(f->nchildren, 2);
  assert_string_equal(f->children[1]->args[0].text, "/dev/urandom");
  cordon_policy_free(p);
}

static void filter_combinators_nest(void **state) {
  (void)state;
  cordon_policy *p = parse("(deny file-write* (require-all (subpath \"/w\") (require-not (regex #\"\\.git(/|$)\"))"
                           " (require-any (vnode-type REGULAR-FILE SYMLINK) (extension \"com.x\"))))");
  cordon_filter *f = p->rules[0].filter;
  assert_int_equal(f->kind, CORDON_F_ALL);
  assert_int_equal(f->loc.line, 1);
  assert_int_equal(f->nchildren, 3);
  cordon_filter *not = f->children[1];
  assert_int_equal(not->kind, CORDON_F_NOT);
  assert_int_equal(not->children[0]->match, CORDON_MATCH_REGEX);
  assert_string_equal(not->children[0]->args[0].text, "\\.git(/|$)");
  cordon_filter *any = f->children[2];
  assert_int_equal(any->children[0]->kind, CORDON_F_VNODE_TYPE);
  assert_int_equal(any->children[0]->nargs, 2);
  assert_string_equal(any->children[0]->args[1].text, "SYMLINK");
  assert_int_equal(any->children[1]->kind, CORDON_F_EXTENSION);
  cordon_policy_free(p);
}

static void network_and_name_filters_keep_their_arguments(void **state) {
  (void)state;
  cordon_policy *p = parse("(allow network-outbound (remote tcp \"localhost:443\") (remote unix-socket (path-literal \"/s\")))\n"
                           "(allow mach-lookup (global-name-prefix \"com.apple.\") (global-name \"x\"))\n"
                           "(allow sysctl-read (sysctl-name-regex #\"^kern\\.\"))");
  cordon_filter *net = p->rules[0].filter;
  assert_int_equal(net->children[0]->kind, CORDON_F_NETWORK);
  assert_string_equal(net->children[0]->name, "remote");
  assert_string_equal(net->children[0]->args[0].text, "tcp");
  assert_string_equal(net->children[0]->args[1].text, "localhost:443");
  assert_int_equal(net->children[1]->nchildren, 1);
  assert_int_equal(net->children[1]->children[0]->match, CORDON_MATCH_LITERAL);
  cordon_filter *mach = p->rules[1].filter;
  assert_int_equal(mach->children[0]->kind, CORDON_F_NAME);
  assert_int_equal(mach->children[0]->match, CORDON_MATCH_PREFIX);
  assert_int_equal(mach->children[1]->match, CORDON_MATCH_LITERAL);
  assert_int_equal(p->rules[2].filter->match, CORDON_MATCH_REGEX);
  assert_int_equal(p->ndiags, 0);
  cordon_policy_free(p);
}

static void unknown_filters_and_modifiers_are_kept_and_reported(void **state) {
  (void)state;
  cordon_policy *p = parse("(allow file-read* (frob-name \"x\" other (literal \"/y\")))\n"
                           "(allow file-read* (with report) (with telemetry) (with sparkle 3) (literal \"/z\"))");
  cordon_filter *f = p->rules[0].filter;
  assert_int_equal(f->kind, CORDON_F_OTHER);
  assert_string_equal(f->name, "frob-name");
  assert_int_equal(f->nargs, 2);
  assert_int_equal(f->nchildren, 1);
  assert_true(has_diag(p, "unknown-filter", 1));
  cordon_rule *r = &p->rules[1];
  assert_int_equal(r->nmods, 3);
  assert_string_equal(r->mods[0].name, "report");
  assert_null(r->mods[0].arg);
  assert_string_equal(r->mods[2].name, "sparkle");
  assert_string_equal(r->mods[2].arg, "3");
  assert_true(has_diag(p, "unknown-modifier", 2));
  assert_int_equal(p->ndiags, 2);
  cordon_policy_free(p);
}

static void modifiers_take_their_argument(void **state) {
  (void)state;
  cordon_policy *p = parse("(deny process-exec (with send-signal SIGKILL) (with message \"no exec\") (with no-log))");
  cordon_rule *r = &p->rules[0];
  assert_string_equal(r->mods[0].arg, "SIGKILL");
  assert_string_equal(r->mods[1].arg, "no exec");
  assert_null(r->mods[2].arg);
  assert_int_equal(p->ndiags, 0);
  cordon_policy_free(p);
}

static void helper_functions_build_filters(void **state) {
  (void)state;
  cordon_policy *p = parse("(define HOME_DIR \"/Users/u\")\n"
                           "(define (home-subpath rel) (subpath (string-append HOME_DIR rel)))\n"
                           "(define (grant path) (allow file-read* (literal path)))\n"
                           "(allow file-read* (home-subpath \"/.config\"))\n"
                           "(grant \"/etc/hosts\")\n");
  assert_string_equal(p->rules[0].filter->args[0].text, "/Users/u/.config");
  assert_int_equal(p->rules[0].loc.line, 4);
  /* A rule made inside a helper is located at the call that ran it. */
  assert_int_equal(p->rules[1].loc.line, 5);
  assert_string_equal(p->rules[1].text, "(grant \"/etc/hosts\")");
  cordon_policy_free(p);
}

static void the_scheme_subset_evaluates(void **state) {
  (void)state;
  cordon_policy *p = parse(
      "(define paths (list \"/a\" \"/b\"))\n"
      "(define (twice f x) (f (f x)))\n"
      "(define counter 0)\n"
      "(set! counter (+ counter 2))\n"
      "(let ((x \"/c\") (y \"/d\")) (allow file-read* (literal x) (literal y)))\n"
      "(let* ((x \"/e\") (y (string-append x \"/f\"))) (allow file-read* (literal y)))\n"
      "(letrec ((even? (lambda (n) (if (= n 0) #t (odd? (- n 1))))) (odd? (lambda (n) (if (= n 0) #f (even? (- n 1))))))\n"
      "  (when (even? 10) (allow file-read* (literal \"/even\"))))\n"
      "(let loop ((i 0)) (unless (>= i 3) (allow file-read* (literal (string-append \"/n\" (number->string i)))) (loop (+ i 1))))\n"
      "(for-each (lambda (p) (allow file-write* (subpath p))) paths)\n"
      "(apply allow 'file-read-data (map (lambda (p) (literal p)) (append paths '(\"/z\"))))\n"
      "(cond ((string=? \"a\" \"b\") (allow file-read* (literal \"/no\")))\n"
      "      ((and (= counter 2) (or #f (not #f))) (allow file-read* (literal \"/cond\")))\n"
      "      (else (allow file-read* (literal \"/else\"))))\n"
      "(if (null? '()) (begin (allow file-read* (literal `,(car (cdr paths)))) (allow file-read* (literal \"/begin\"))))\n"
      "(define q `(1 ,@(list 2 3) ,(+ 2 2)))\n"
      "(when (and (= (length q) 4) (equal? q '(1 2 3 4)) (= (twice (lambda (n) (* n 3)) 2) 18))\n"
      "  (allow file-read* (literal \"/qq\")))\n");
  const char *want[] = {"/c", "/e/f", "/even", "/n0", "/n1", "/n2", "/a", "/b", "/a", "/cond", "/b", "/begin", "/qq"};
  assert_int_equal(p->nrules, 13);
  for (int i = 0; i < 13; i++) {
    cordon_filter *f = p->rules[i].filter;
    if (f->kind == CORDON_F_ANY) f = f->children[0];
    if (strcmp(f->args[0].text, want[i])) fail_msg("rule %d: want %s, got %s", i, want[i], f->args[0].text);
  }
  assert_int_equal(p->rules[8].filter->nchildren, 3); /* apply spread the list into three filters */
  cordon_policy_free(p);
}

static void params_come_from_the_caller_and_are_false_when_undefined(void **state) {
  (void)state;
  cordon_sbpl_param params[] = {{"HOME", "/h"}, {"HOME", "/h2"}, {NULL, NULL}};
  cordon_policy *p = parse_with("(allow file-read* (subpath (param \"HOME\")))\n"
                                "(if (param \"NOPE\") (allow file-read* (literal \"/x\")) (allow file-read* (literal \"/nope\")))",
                                params, NULL);
  assert_string_equal(p->rules[0].filter->args[0].text, "/h2"); /* a later -D wins */
  assert_false(p->rules[0].filter->args[0].is_param);
  assert_string_equal(p->rules[1].filter->args[0].text, "/nope");
  cordon_policy_free(p);
  expect_error("(allow file-read* (subpath (param \"NOPE\")))", CORDON_SBPL_EVAL, "t.sb:1:19: subpath: expected a string, got #f");
}

static void symbolic_params_stay_parameter_references(void **state) {
  (void)state;
  cordon_sbpl_options opt = {.symbolic_params = true};
  cordon_policy *p = parse_with("(allow file-read* (subpath (param \"ROOT\")))", NULL, &opt);
  assert_string_equal(p->rules[0].filter->args[0].text, "ROOT");
  assert_true(p->rules[0].filter->args[0].is_param);
  cordon_policy_free(p);
  char *msg = parse_error("(allow file-read* (subpath (string-append (param \"ROOT\") \"/x\")))", CORDON_SBPL_EVAL, &opt);
  assert_non_null(strstr(msg, "parameter \"ROOT\" has no value"));
  free(msg);
}

static void sbpl_helpers_behave(void **state) {
  (void)state;
  cordon_policy *p = parse("(allow file-read* (regex (string-append \"^\" (regex-quote \"/a.b+(c)\") \"$\")))\n"
                           "(if (entitlement \"com.apple.x\") (allow default))\n(debug deny)\n(trace \"/tmp/t.sb\")\n"
                           "(version 1)\n(version 2)");
  assert_int_equal(p->nrules, 1);
  assert_string_equal(p->rules[0].filter->args[0].text, "^/a\\.b\\+\\(c\\)$");
  assert_int_equal(p->version_forms, 2);
  assert_true(has_diag(p, "unsupported-version", 6));
  cordon_policy_free(p);
}

static void evaluation_errors_name_file_line_and_column(void **state) {
  (void)state;
  expect_error("(allow file-read*\n  (subpath #t))", CORDON_SBPL_EVAL, "t.sb:2:3: subpath: expected a string");
  expect_error("\n (list (frobnicate 1))", CORDON_SBPL_EVAL, "t.sb:2:9: unbound procedure 'frobnicate'");
  expect_error("(define x y)", CORDON_SBPL_EVAL, "unbound variable 'y'");
  expect_error("(allow (subpath \"/x\"))", CORDON_SBPL_EVAL, "no operation");
  expect_error("(allow file-read* \"/x\")", CORDON_SBPL_EVAL, "expected an operation, a filter");
  expect_error("(require-not)", CORDON_SBPL_EVAL, "expected at least 1 argument");
  expect_error("(allow file-read* (require-not (literal \"/a\") (literal \"/b\")))", CORDON_SBPL_EVAL, "at most 1");
  expect_error("(car '())", CORDON_SBPL_EVAL, "car: expected a pair");
  expect_error("(error \"custom failure\")", CORDON_SBPL_EVAL, "custom failure");
  expect_error("(allow file-read* (literal \"/a\"", CORDON_SBPL_SYNTAX, "t.sb:1:19: unbalanced");
  expect_error("(+ 9223372036854775807 1)", CORDON_SBPL_EVAL, "overflow");
  expect_error("(1 2)", CORDON_SBPL_EVAL, "cannot call a number");
}

static void runaway_programs_stop_with_a_limit_error(void **state) {
  (void)state;
  cordon_sbpl_options opt = {.step_limit = 100000};
  char *msg = parse_error("(define (f n) (f n))\n(f 1)", CORDON_SBPL_LIMIT, &opt);
  assert_non_null(strstr(msg, "step budget"));
  free(msg);
  msg = parse_error("(define (f n) (+ 1 (f n)))\n(f 1)", CORDON_SBPL_LIMIT, NULL);
  assert_non_null(strstr(msg, "nested deeper"));
  free(msg);
  cordon_sbpl_options small = {.memory_limit = 1 << 20};
  msg = parse_error("(define (f s) (f (string-append s s)))\n(f \"x\")", CORDON_SBPL_LIMIT, &small);
  assert_non_null(strstr(msg, "memory limit"));
  free(msg);
  msg = parse_error("(define (f x) (f (require-not x)))\n(f (literal \"/x\"))", CORDON_SBPL_LIMIT, NULL);
  assert_non_null(strstr(msg, "filters nested deeper"));
  free(msg);
}

static void work_on_big_data_counts_against_the_step_budget(void **state) {
  (void)state;
  /* Without charging list walks, this is ~12k evaluation steps; walking the list 2000 times is 2M. */
  cordon_sbpl_options opt = {.step_limit = 100000};
  char *msg = parse_error("(define (mk n acc) (if (= n 0) acc (mk (- n 1) (cons n acc))))\n"
                          "(define l (mk 1000 '()))\n"
                          "(define (spin k) (when (> k 0) (length l) (spin (- k 1))))\n"
                          "(spin 2000)", CORDON_SBPL_LIMIT, &opt);
  assert_non_null(strstr(msg, "step budget"));
  free(msg);
}

static void tail_calls_run_in_constant_depth(void **state) {
  (void)state;
  cordon_policy *p = parse("(define (loop n) (if (> n 0) (loop (- n 1)) (allow file-read* (literal \"/done\"))))\n(loop 50000)");
  assert_int_equal(p->nrules, 1);
  cordon_policy_free(p);
}

/* --- imports ------------------------------------------------------------------------------------ */

static char dir[64];

static void write_file(const char *name, const char *text) {
  char path[256];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static int make_dir(void **state) {
  (void)state;
  snprintf(dir, sizeof dir, "/tmp/cordon-test-eval-XXXXXX");
  if (!mkdtemp(dir)) return -1;
  char sub[128];
  snprintf(sub, sizeof sub, "%s/lib", dir);
  mkdir(sub, 0700);
  write_file("lib/base.sb", "(define BASE \"/base\")\n(allow file-read* (subpath BASE))\n");
  write_file("main.sb", "(import \"base.sb\")\n(allow file-write* (subpath BASE))\n");
  write_file("near.sb", "(allow file-read* (literal \"/near\"))\n");
  write_file("uses-near.sb", "(import \"near.sb\")\n");
  write_file("cycle-a.sb", "(import \"cycle-b.sb\")\n");
  write_file("cycle-b.sb", "\n(import \"cycle-a.sb\")\n");
  write_file("broken.sb", "(allow file-read*\n  (subpath #t))\n");
  write_file("imports-broken.sb", "(import \"broken.sb\")\n");
  return 0;
}

static int remove_dir(void **state) {
  (void)state;
  const char *names[] = {"lib/base.sb", "main.sb", "near.sb", "uses-near.sb", "cycle-a.sb", "cycle-b.sb", "broken.sb", "imports-broken.sb", "lib", NULL};
  char path[256];
  for (int i = 0; names[i]; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    remove(path);
  }
  rmdir(dir);
  return 0;
}

static cordon_sbpl_status parse_file(const char *name, const cordon_sbpl_options *opt, cordon_policy **p, cordon_sbpl_error *err) {
  char path[256];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "r");
  char text[4096];
  size_t n = fread(text, 1, sizeof text, f);
  fclose(f);
  return cordon_sbpl_parse(text, n, path, NULL, opt, p, err);
}

static void imports_search_import_dirs_then_the_importing_files_directory(void **state) {
  (void)state;
  char lib[128];
  snprintf(lib, sizeof lib, "%s/lib", dir);
  const char *dirs[] = {lib};
  cordon_sbpl_options opt = {.import_dirs = dirs, .nimport_dirs = 1};
  cordon_policy *p = NULL;
  cordon_sbpl_error err;
  assert_int_equal(parse_file("main.sb", &opt, &p, &err), CORDON_SBPL_OK);
  assert_int_equal(p->nrules, 2);
  assert_non_null(strstr(p->rules[0].loc.file, "lib/base.sb"));
  assert_int_equal(p->rules[0].loc.line, 2);
  assert_string_equal(p->rules[0].text, "(allow file-read* (subpath BASE))");
  assert_non_null(strstr(p->rules[1].loc.file, "main.sb"));
  cordon_policy_free(p);
  assert_int_equal(parse_file("uses-near.sb", NULL, &p, &err), CORDON_SBPL_OK);
  assert_string_equal(p->rules[0].filter->args[0].text, "/near");
  cordon_policy_free(p);
}

static void import_failures_are_located_errors(void **state) {
  (void)state;
  cordon_policy *p = NULL;
  cordon_sbpl_error err;
  assert_int_equal(parse_file("main.sb", NULL, &p, &err), CORDON_SBPL_IMPORT); /* lib/ not searched */
  assert_non_null(strstr(err.text, "main.sb:1:1: import \"base.sb\": file not found"));
  cordon_sbpl_error_clear(&err);
  assert_int_equal(parse_file("cycle-a.sb", NULL, &p, &err), CORDON_SBPL_IMPORT);
  assert_non_null(strstr(err.text, "cycle-b.sb:2:1: import \"cycle-a.sb\": import cycle"));
  cordon_sbpl_error_clear(&err);
  assert_int_equal(parse_file("imports-broken.sb", NULL, &p, &err), CORDON_SBPL_EVAL);
  assert_non_null(strstr(err.text, "broken.sb:2:3: subpath"));
  cordon_sbpl_error_clear(&err);
  cordon_sbpl_options closed = {.no_import = true};
  assert_int_equal(parse_file("uses-near.sb", &closed, &p, &err), CORDON_SBPL_IMPORT);
  assert_non_null(strstr(err.text, "imports are disabled"));
  cordon_sbpl_error_clear(&err);
  assert_null(p);
}


/* --- round trip with the writer ----------------------------------------------------------------- */

static bool same_filter(const cordon_filter *a, const cordon_filter *b) {
  if (!a || !b) return a == b;
  if (a->kind != b->kind || strcmp(a->name, b->name) || a->match != b->match || a->nargs != b->nargs ||
      a->nchildren != b->nchildren)
    return false;
  for (size_t i = 0; i < a->nargs; i++)
    if (strcmp(a->args[i].text, b->args[i].text) || a->args[i].is_param != b->args[i].is_param) return false;
  for (size_t i = 0; i < a->nchildren; i++)
    if (!same_filter(a->children[i], b->children[i])) return false;
  return true;
}

static void assert_same_rules(const cordon_policy *a, const cordon_policy *b) {
  assert_int_equal(a->nrules, b->nrules);
  for (size_t i = 0; i < a->nrules; i++) {
    const cordon_rule *x = &a->rules[i], *y = &b->rules[i];
    assert_int_equal(x->action, y->action);
    assert_int_equal(x->nops, y->nops);
    for (size_t k = 0; k < x->nops; k++) assert_string_equal(x->ops[k], y->ops[k]);
    if (!same_filter(x->filter, y->filter)) fail_msg("rule %zu: filters differ", i);
    assert_int_equal(x->nmods, y->nmods);
    for (size_t k = 0; k < x->nmods; k++) {
      assert_string_equal(x->mods[k].name, y->mods[k].name);
      if (x->mods[k].arg || y->mods[k].arg) assert_string_equal(x->mods[k].arg, y->mods[k].arg);
    }
  }
}

static cordon_policy *reparse(const cordon_policy *p) {
  cordon_buf text = CORDON_BUF_INIT;
  cordon_sbpl_write_error werr;
  cordon_sbpl_write_status ws = cordon_sbpl_write_policy(p, true, &text, &werr);
  if (ws != CORDON_SBPL_WRITE_OK) fail_msg("writer refused rule %zu: %s", werr.rule, werr.message);
  cordon_sbpl_options opt = {.symbolic_params = true, .no_import = true};
  cordon_policy *back = parse_with(cordon_buf_str(&text), NULL, &opt);
  assert_int_equal(back->ndiags, 0);
  cordon_buf_free(&text);
  return back;
}

static void ir_written_by_the_writer_reads_back_as_the_same_rules(void **state) {
  (void)state;
  cordon_policy *p = cordon_policy_new();
  cordon_loc loc = {NULL, 0, 0};
  cordon_rule *r = cordon_policy_add_rule(p, CORDON_DENY, loc);
  cordon_rule_add_op(r, "default");
  r = cordon_policy_add_rule(p, CORDON_ALLOW, loc);
  r->comment = strdup("tools read their config");
  cordon_rule_add_op(r, "file-read*");
  cordon_rule_add_op(r, "file-write-data");
  cordon_filter *all = cordon_filter_new(CORDON_F_ALL, "require-all", CORDON_MATCH_NONE);
  cordon_filter_add_child(all, cordon_filter_path("subpath", "WRITABLE_ROOT_0", true));
  cordon_filter *not = cordon_filter_new(CORDON_F_NOT, "require-not", CORDON_MATCH_NONE);
  cordon_filter_add_child(not, cordon_filter_path("regex", "(^|/)\\.git(/|$)", false));
  cordon_filter_add_child(all, not);
  r->filter = all;
  cordon_rule_add_modifier(r, "report", NULL);
  r = cordon_policy_add_rule(p, CORDON_ALLOW, loc);
  cordon_rule_add_op(r, "network-outbound");
  cordon_filter *any = cordon_filter_new(CORDON_F_ANY, "require-any", CORDON_MATCH_NONE);
  cordon_filter *net = cordon_filter_new(CORDON_F_NETWORK, "remote", CORDON_MATCH_NONE);
  cordon_filter_add_arg(net, "tcp", false);
  cordon_filter_add_arg(net, "localhost:443", false);
  cordon_filter_add_child(any, net);
  cordon_filter_add_child(any, cordon_filter_path("literal", "/path with \"quotes\" and \\ back", false));
  cordon_filter *vt = cordon_filter_new(CORDON_F_VNODE_TYPE, "vnode-type", CORDON_MATCH_NONE);
  cordon_filter_add_arg(vt, "REGULAR-FILE", false);
  cordon_filter_add_child(any, vt);
  cordon_filter *gn = cordon_filter_new(CORDON_F_NAME, "global-name-prefix", CORDON_MATCH_PREFIX);
  cordon_filter_add_arg(gn, "com.apple.", false);
  cordon_filter_add_child(any, gn);
  cordon_filter *ext = cordon_filter_new(CORDON_F_EXTENSION, "extension", CORDON_MATCH_NONE);
  cordon_filter_add_arg(ext, "com.apple.app-sandbox.read", false);
  cordon_filter_add_child(any, ext);
  r->filter = any;
  r = cordon_policy_add_rule(p, CORDON_DENY, loc);
  cordon_rule_add_op(r, "process-exec*");
  r->filter = cordon_filter_path("literal", "/bin/rm", false);
  cordon_rule_add_modifier(r, "message", "no \"rm\" here");
  cordon_rule_add_modifier(r, "send-signal", "SIGKILL");

  cordon_policy *back = reparse(p);
  assert_same_rules(p, back);
  cordon_policy_free(back);
  cordon_policy_free(p);
}

static void parsed_text_written_and_read_again_gives_the_same_rules(void **state) {
  (void)state;
  cordon_sbpl_options opt = {.symbolic_params = true};
  cordon_policy *p = parse_with("(version 1)\n(deny default)\n"
                                "(allow file-read* (literal \"/dev/random\") (literal \"/dev/urandom\"))\n"
                                "(allow file-write* (require-all (subpath (param \"W\")) (require-not (literal \"/w/.git\"))))\n"
                                "(allow mach-lookup (global-name \"com.apple.trustd.agent\") (with no-log))\n"
                                "(deny file-write* (regex #\"\\.ssh/\") (with message \"keys\"))\n",
                                NULL, &opt);
  cordon_policy *back = reparse(p);
  assert_same_rules(p, back);
  cordon_policy_free(back);
  cordon_policy_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(an_allow_becomes_a_located_rule_with_its_text),
    cmocka_unit_test(operation_aliases_expand_and_unknown_ones_are_kept_and_reported),
    cmocka_unit_test(several_filters_in_one_rule_mean_any_of_them),
    cmocka_unit_test(filter_combinators_nest),
    cmocka_unit_test(network_and_name_filters_keep_their_arguments),
    cmocka_unit_test(unknown_filters_and_modifiers_are_kept_and_reported),
    cmocka_unit_test(modifiers_take_their_argument),
    cmocka_unit_test(helper_functions_build_filters),
    cmocka_unit_test(the_scheme_subset_evaluates),
    cmocka_unit_test(params_come_from_the_caller_and_are_false_when_undefined),
    cmocka_unit_test(symbolic_params_stay_parameter_references),
    cmocka_unit_test(sbpl_helpers_behave),
    cmocka_unit_test(evaluation_errors_name_file_line_and_column),
    cmocka_unit_test(runaway_programs_stop_with_a_limit_error),
    cmocka_unit_test(tail_calls_run_in_constant_depth),
    cmocka_unit_test(work_on_big_data_counts_against_the_step_budget),
    cmocka_unit_test(ir_written_by_the_writer_reads_back_as_the_same_rules),
    cmocka_unit_test(parsed_text_written_and_read_again_gives_the_same_rules),
    cmocka_unit_test_setup_teardown(imports_search_import_dirs_then_the_importing_files_directory, make_dir, remove_dir),
    cmocka_unit_test_setup_teardown(import_failures_are_located_errors, make_dir, remove_dir),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
