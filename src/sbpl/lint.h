/* src/sbpl/lint.h — findings about an evaluated policy: the mistakes that bite profile authors */
#ifndef CORDON_SBPL_LINT_H
#define CORDON_SBPL_LINT_H
#include <stdbool.h>
#include <stddef.h>

#include "sbpl/ir.h"
#include "sbpl/writer.h" /* CORDON_SBPL_MAX_LITERAL: the longest literal sandbox-exec accepts */

typedef struct {
  cordon_diag *items; /* sorted by file, line, column */
  size_t n, cap;
} cordon_lint_report;

#define CORDON_LINT_REPORT_INIT {NULL, 0, 0}

/* Lints `p` (regexes get compiled and cached in their filters, hence non-const). Appends findings to
 * `out`; false only on allocation failure. */
bool cordon_sbpl_lint(cordon_policy *p, cordon_lint_report *out);

/* Like cordon_sbpl_lint, but the (version …) checks read `text` (the main file, `len` bytes, named
 * `file`) so each finding points at the form itself: version-missing at 1:1, version-repeated at every
 * top-level (version …) after the first. Imported files may carry their own (version 1). */
bool cordon_sbpl_lint_source(cordon_policy *p, const char *text, size_t len, const char *file,
                             cordon_lint_report *out);

/* Just the (version …) checks on raw text; usable when the text does not even parse. */
bool cordon_sbpl_lint_versions(const char *text, size_t len, const char *file, cordon_lint_report *out);

/* Appends one finding (used by callers for parse/eval errors that produced no policy). */
bool cordon_lint_add(cordon_lint_report *r, cordon_diag_severity sev, const char *code, cordon_loc loc,
                     const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void cordon_lint_report_free(cordon_lint_report *r);

const char *cordon_diag_severity_name(cordon_diag_severity s); /* "error" / "warning" */
#endif
