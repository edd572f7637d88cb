/* src/sbpl/eval.h — the SBPL evaluator: data from the reader to IR rules in a policy */
#ifndef CORDON_SBPL_EVAL_H
#define CORDON_SBPL_EVAL_H
#include "sbpl/datum.h"
#include "sbpl/ir.h"
#include "sbpl/parse.h"

/* Where evaluation stopped, with the file it happened in (a borrowed name: valid while the arena
 * lives). */
typedef struct {
  cordon_sbpl_status status;
  const char *file;
  unsigned line, col;
  char message[300];
} cordon_sbpl_eval_error;

/* Reads and evaluates `src` (whose name and text must outlive the call), appending rules and
 * diagnostics to `policy`. All evaluator memory comes from `arena`. `options` must not be NULL; zero
 * limits mean the defaults. */
cordon_sbpl_status cordon_sbpl_eval(cordon_arena *arena, const cordon_source *src, const cordon_sbpl_param *params,
                                    const cordon_sbpl_options *options, cordon_policy *policy,
                                    cordon_sbpl_eval_error *err);
#endif
