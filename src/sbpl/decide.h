/* src/sbpl/decide.h — "is operation X on target T allowed, and which rule decided?" */
#ifndef CORDON_SBPL_DECIDE_H
#define CORDON_SBPL_DECIDE_H
#include <stdbool.h>
#include <stddef.h>

#include "core/buf.h"
#include "sbpl/ir.h"
#include "sbpl/match.h"

typedef struct cordon_decider cordon_decider;

/* Indexes `policy`'s rules by operation once. The policy must outlive the decider and must not gain
 * rules meanwhile (filters cache compiled regexes, so matching writes to them). `params` are -D pairs
 * (key, value, …; `nparams` pairs) for builder rules that name parameters; may be NULL. NULL on
 * allocation failure. */
cordon_decider *cordon_decider_new(cordon_policy *policy, const char *const *params, size_t nparams);
void cordon_decider_free(cordon_decider *d);

#define CORDON_DECISION_MAX_CHAIN 8
#define CORDON_DECISION_MAX_ASSUMED 4

typedef enum {
  CORDON_BY_RULE = 0,   /* `rule` decided */
  CORDON_BY_UNCOVERED,  /* (deny default) does not cover the operation: allowed */
  CORDON_BY_NOTHING,    /* no rule on the whole chain, not even default: allowed */
} cordon_decided_by;

typedef struct {
  cordon_action action;
  cordon_decided_by by;
  const cordon_rule *rule;     /* the deciding rule when by == CORDON_BY_RULE */
  bool rule_filtered;          /* it decided as a filtered match (else as the unfiltered fallback) */
  const char *op;              /* canonical requested operation (static string) */
  const char *chain[CORDON_DECISION_MAX_CHAIN]; /* operations consulted in order; the last one decided */
  size_t nchain;
  /* filtered rules skipped because a fact was unknown: the answer could differ if they matched */
  const cordon_rule *assumed[CORDON_DECISION_MAX_ASSUMED];
  const char *assumed_fact[CORDON_DECISION_MAX_ASSUMED]; /* a fact name, or a -D parameter's name; valid
                                                            while the decider and its policy live */
  bool assumed_is_param[CORDON_DECISION_MAX_ASSUMED];
  bool assumed_unknown[CORDON_DECISION_MAX_ASSUMED]; /* the rule uses a filter this build does not know */
  bool assumed_match[CORDON_DECISION_MAX_ASSUMED]; /* taken as matching: a deny on an unknown filter */
  size_t nassumed;              /* may exceed MAX_ASSUMED; only the first ones are stored */
  /* the answer depended on a filter this build does not know: a deny that uses one decides (it may
   * match), an allow that uses one is passed over (it may not); either way the answer is the safe one */
  bool unknown;
} cordon_decision;

typedef enum {
  CORDON_DECIDE_OK = 0,
  CORDON_DECIDE_UNKNOWN_OPERATION, /* not a Seatbelt operation this build knows */
  CORDON_DECIDE_BAD_TARGET,        /* malformed network target */
} cordon_decide_status;

const char *cordon_decide_status_name(cordon_decide_status s); /* "unknown_operation", "bad_target" */

/* Decides one query. `facts` may be NULL. On failure `err` (size errcap) says why. */
cordon_decide_status cordon_decide(cordon_decider *d, const char *op, const char *target,
                                   const cordon_fact *facts, size_t nfacts, cordon_decision *out,
                                   char *err, size_t errcap);

/* Writes "file:line:col" of rule `r` (or "<builder>" when it has no source) into `out`. */
void cordon_rule_where(const cordon_rule *r, cordon_buf *out);

/* Batch mode: `input` holds lines "OPERATION TARGET" (TARGET is the rest of the line, so it may hold
 * spaces; blank lines and lines starting with '#' are echoed as empty answers). For each line one
 * answer line is appended to `out`, in order:
 *   text:  "allow\tOPERATION\tTARGET\tfile:line:col" | "deny\t…\tfile:line:col" | "allow\t…\t(uncovered)"
 *          | "allow\t…\t(no rule)" | "error\tOPERATION\tTARGET\tmessage"
 *   json:  one JSON object per line: {"decision":"allow","operation":…,"target":…,"rule":…}
 * An answer that depended on an unknown filter ends in " (unknown filter)" (text) or has "unknown":true.
 * Returns the number of query lines answered; *nerrors counts "error" answers. */
size_t cordon_decide_batch(cordon_decider *d, const char *input, size_t len, bool json, cordon_buf *out,
                           size_t *nerrors);
#endif
