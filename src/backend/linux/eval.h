/* src/backend/linux/eval.h — SBPL file decisions for the Linux compiler, over whole subtrees */
#ifndef CORDON_LINUX_EVAL_H
#define CORDON_LINUX_EVAL_H
#include "backend/linux/plan.h"
#include "sbpl/ir.h"

#include <stdbool.h>
#include <stddef.h>

#define LX_LEVELS 4   /* e.g. file-read-data, file-read*, file*, default */
#define LX_FILE_CLASSES 5  /* CORDON_LX_READ … CORDON_LX_EXEC, by bit index: what lx_decide answers */
#define LX_CONNECT 5       /* connecting to a unix socket path (network-outbound): lx_decide_connect */
#define LX_CLASSES CORDON_LX_NCLASSES

typedef struct {
  cordon_action action;
  unsigned char levels[LX_CLASSES]; /* bit L set: the rule names level L of that class's chain */
  const cordon_filter *filter;      /* IR rule filter (NULL with path == NULL: unfiltered) */
  const char *path;                 /* synthetic rule: literal/subpath on this path (owned by the set) */
  bool subtree;
  char *source;                     /* "file:line:col" or "profile: …" (owned) */
  bool reported;                    /* an approximation note was already written for it */
} lx_xrule;

typedef struct {
  lx_xrule *items;
  size_t count, cap;
  const char *const *params;  /* name, value pairs */
  size_t nparams;
  size_t *index[LX_CLASSES][LX_LEVELS]; /* rule indices naming each level, ascending */
  size_t nindex[LX_CLASSES][LX_LEVELS];
  unsigned char *memo;        /* per probe: each rule's match, computed once for all classes */
  struct lx_accel *accel;     /* per filter: sorted path sets and compiled regexes (eval.c) */
  struct lx_pindex *pindex;   /* rules by path argument (eval_index.c) */
  size_t accel_cap, naccel;
  bool connect_probe;         /* the probe is a connect to a unix socket, not a file access (eval.c) */
  bool writes_upper;          /* the write classes answer an upper bound: every allow that could apply,
                                 no deny (the compiler's Landlock grants; the gate decides exactly) */
} lx_rules;

/* Appends the file-relevant rules of an IR policy (others are ignored: Linux has no mach services). */
bool lx_rules_add_policy(lx_rules *rs, const cordon_policy *p);
/* Appends a synthetic rule for `classes` on `path` (copied). */
bool lx_rules_add_path(lx_rules *rs, cordon_action a, unsigned classes, const char *path, bool subtree,
                       const char *source);
/* Appends a rule given by its parts (a gate rule, plan.h): `filter` is borrowed and must outlive the set;
 * `path` and `source` are copied. */
bool lx_rules_add_rule(lx_rules *rs, cordon_action a, const unsigned char levels[LX_CLASSES],
                       const cordon_filter *filter, const char *path, bool subtree, const char *source);
/* Appends an unfiltered rule on the default level of every class. The compiler starts with a deny: a
 * policy or profile that says nothing grants nothing (a later (allow default) still wins). */
bool lx_rules_add_default(lx_rules *rs, cordon_action a);
/* Builds the per-level indices; call once after the last add. */
bool lx_rules_index(lx_rules *rs);
void lx_rules_free(lx_rules *rs);

/* The path index (eval_index.c): built by lx_rules_index; prime sets rs->memo for a probe of `path`:
 * "no match" for every indexed rule none of whose arguments is `path` or an ancestor, "unknown yet"
 * for the rest. */
bool lx_pindex_build(lx_rules *rs);
void lx_pindex_prime(lx_rules *rs, const char *path);
void lx_pindex_free(lx_rules *rs);

/* Resolves a filter argument: its text, or a parameter's value; NULL when the parameter is unknown. */
const char *lx_arg(const lx_rules *rs, const cordon_arg *a);

/* The literal text a '^'-anchored regex must start with ("^/h/\\.ssh/id_" -> "/h/.ssh/id_"), written
 * into `out`; returns its length (0 when unanchored). */
size_t lx_regex_anchor(const char *re, char *out, size_t cap);

/* The classes allowed at `path` itself (interior = false) or strictly beneath it where no rule path
 * lies (interior = true). `notes` receives approximations (rules whose filter was unknown there). With
 * rs->writes_upper the write, create and remove classes are an upper bound instead (see lx_rules). */
unsigned lx_decide(lx_rules *rs, const char *path, bool interior, cordon_lx_plan *notes);

/* Whether connecting to the unix socket at `path` is allowed: network-outbound (-> network* -> default)
 * decided as for files, with (remote unix-socket (path-literal …)) and plain path filters matched
 * against `path`, and (remote ip …), (local …) never matching. */
bool lx_decide_connect(lx_rules *rs, const char *path, cordon_lx_plan *notes);

/* For the gate (gate.h), which decides one operation on one exact path and names the rule in its
 * refusals. lx_decide_why answers for the single class `cls` (one CORDON_LX_* bit) at `path` itself;
 * lx_decide_connect_why is lx_decide_connect. Both set *why to the rule that decided (a filtered match,
 * an unknown filtered deny, or the level's unfiltered fallback), or to NULL when no rule on the class's
 * chain decided (then the answer is "allowed", as lx_decide's). */
bool lx_decide_why(lx_rules *rs, unsigned cls, const char *path, const lx_xrule **why);
bool lx_decide_connect_why(lx_rules *rs, const char *path, cordon_lx_plan *notes, const lx_xrule **why);
/* Whether the rule names a path: a synthetic path rule, or a filter holding a path filter (literal,
 * subpath, prefix, regex; inside a require-any/all or a (remote unix-socket (path-literal …)), not under
 * a require-not). An unfiltered rule or (remote unix-socket) alone names none. */
bool lx_rule_names_path(const lx_xrule *x);
/* Calls `fn` with the path argument of every deny rule naming one of `classes` (CORDON_LX_* bits) whose
 * argument lies strictly beneath `path`: a literal or subpath argument (`exact`), a prefix argument or
 * a '^'-anchored regex's literal head (not `exact`: anything starting with it). Rules under a
 * require-not and unanchored regexes are not reported. For the gate: a symlink or a directory moved to
 * `path` would give those protected paths another meaning. */
void lx_deny_args_beneath(lx_rules *rs, unsigned classes, const char *path,
                          void (*fn)(void *ud, const char *arg, bool exact), void *ud);
#endif
