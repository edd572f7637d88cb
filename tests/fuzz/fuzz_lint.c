/* tests/fuzz/fuzz_lint.c — libFuzzer target over the linter (src/sbpl/lint*.c): `cordon lint` reads
 * profiles people download, so whatever parses must also lint without a crash, a leak or a hang.
 *
 * The input is parsed as fuzz_sbpl does (no imports, tight limits), then linted with its own text as
 * the main file (the (version …) checks read it) and without. Every finding must have a code, a
 * severity, a message and a line; the raw-text version check must also survive text that does not
 * parse at all. */
#include "sbpl/lint.h"
#include "sbpl/parse.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_report(const cordon_lint_report *r) {
  for (size_t i = 0; i < r->n; i++) {
    const cordon_diag *d = &r->items[i];
    if (!d->code || !*d->code || !d->message || !d->loc.line) __builtin_trap();
    if (d->severity != CORDON_DIAG_ERROR && d->severity != CORDON_DIAG_WARNING) __builtin_trap();
    if (i > 0 && d->loc.file && r->items[i - 1].loc.file && strcmp(r->items[i - 1].loc.file, d->loc.file) == 0 &&
        r->items[i - 1].loc.line > d->loc.line)
      __builtin_trap(); /* sorted by place within a file */
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const cordon_sbpl_param params[] = {{"HOME_DIR", "/Users/fuzz"}, {"WORKDIR", "/w/"}, {NULL, NULL}};
  cordon_sbpl_options opt = {
    .no_import = true,
    .symbolic_params = size & 1,
    .depth_limit = 200,  /* this build's frames (sanitizers, -O0) are several times larger: 1000 levels would overflow the stack first */
    .step_limit = 200000,
    .memory_limit = 32u << 20,
  };
  const char *text = (const char *)data;
  cordon_lint_report raw = CORDON_LINT_REPORT_INIT;
  if (!cordon_sbpl_lint_versions(text, size, "fuzz.sb", &raw)) __builtin_trap();
  check_report(&raw);
  cordon_lint_report_free(&raw);

  cordon_policy *p = NULL;
  cordon_sbpl_error err;
  if (cordon_sbpl_parse(text, size, "fuzz.sb", params, &opt, &p, &err) != CORDON_SBPL_OK) {
    cordon_sbpl_error_clear(&err);
    return 0;
  }
  cordon_lint_report with_text = CORDON_LINT_REPORT_INIT, without = CORDON_LINT_REPORT_INIT;
  if (!cordon_sbpl_lint_source(p, text, size, "fuzz.sb", &with_text)) __builtin_trap();
  if (!cordon_sbpl_lint(p, &without)) __builtin_trap();
  check_report(&with_text);
  check_report(&without);
  cordon_lint_report_free(&with_text);
  cordon_lint_report_free(&without);
  cordon_policy_free(p);
  return 0;
}
