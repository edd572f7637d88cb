/* src/sbpl/parse.h — the one entry point from SBPL text to the policy IR (src/sbpl/ir.h) */
#ifndef CORDON_SBPL_PARSE_H
#define CORDON_SBPL_PARSE_H
#include "sbpl/ir.h"

#include <stdbool.h>
#include <stddef.h>

/* One -D parameter: (param "name") evaluates to `value`. */
typedef struct {
  const char *name;
  const char *value;
} cordon_sbpl_param;

typedef struct {
  /* Directories searched, in order, for a relative (import "x.sb") before the importing file's own
   * directory. */
  const char *const *import_dirs;
  size_t nimport_dirs;
  bool no_import;          /* (import …) is an error: for untrusted text and the fuzzer */
  /* An undefined (param "X") stays a parameter reference that filters keep as is_param instead of
   * evaluating to #f: reads back what the writer emitted without knowing the values. */
  bool symbolic_params;
  /* The entitlements the checked program holds: (entitlement "x") is #t for these, #f for any other
   * (by default it holds none). */
  const char *const *entitlements;
  size_t nentitlements;
  unsigned long step_limit;/* evaluation steps; 0 = CORDON_SBPL_DEFAULT_STEPS */
  unsigned depth_limit;    /* nested evaluation depth; 0 = CORDON_SBPL_DEFAULT_DEPTH */
  size_t size_limit;       /* bytes of text per file; 0 = CORDON_SBPL_DEFAULT_SIZE */
  size_t memory_limit;     /* bytes the evaluator may allocate; 0 = CORDON_SBPL_DEFAULT_MEMORY */
} cordon_sbpl_options;

#define CORDON_SBPL_DEFAULT_STEPS 10000000UL
#define CORDON_SBPL_DEFAULT_DEPTH 1000U
#define CORDON_SBPL_NEST_LIMIT 256U /* reader: nested lists and quotes */
#define CORDON_SBPL_DEFAULT_SIZE (16u << 20)
#define CORDON_SBPL_DEFAULT_MEMORY ((size_t)256 << 20)

typedef enum {
  CORDON_SBPL_OK = 0,
  CORDON_SBPL_SYNTAX,  /* the text is not well-formed SBPL: unbalanced parens, bad escape, NUL byte… */
  CORDON_SBPL_EVAL,    /* evaluation failed: unbound variable, wrong argument, bad filter… */
  CORDON_SBPL_IMPORT,  /* an import is missing, unreadable, cyclic or forbidden */
  CORDON_SBPL_LIMIT,   /* step budget, depth, size or memory limit exceeded */
  CORDON_SBPL_NOMEM,
} cordon_sbpl_status;

typedef struct {
  cordon_sbpl_status status;
  char *file;      /* where it went wrong; NULL when no location applies */
  unsigned line, col;
  char *message;   /* without the location */
  char *text;      /* "file:line:col: message", ready to print */
} cordon_sbpl_error;

/* Parses `text` (`len` bytes, may contain anything; NUL bytes are a syntax error) named `name` (used in
 * locations and to resolve relative imports; may be NULL: "<input>"). `params` is terminated by an entry
 * whose name is NULL and may itself be NULL; `options` may be NULL. On success stores a new policy in
 * *out (free it with cordon_policy_free) and returns CORDON_SBPL_OK. On failure stores NULL, fills
 * *err when `err` is not NULL (release it with cordon_sbpl_error_clear) and returns the status. */
cordon_sbpl_status cordon_sbpl_parse(const char *text, size_t len, const char *name,
                                     const cordon_sbpl_param *params, const cordon_sbpl_options *options,
                                     cordon_policy **out, cordon_sbpl_error *err);

void cordon_sbpl_error_clear(cordon_sbpl_error *err);
const char *cordon_sbpl_status_name(cordon_sbpl_status s); /* "ok", "syntax", "eval", "import", … */
#endif
