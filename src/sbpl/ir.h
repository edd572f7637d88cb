/* src/sbpl/ir.h — the policy IR: one ordered list of rules */
#ifndef CORDON_SBPL_IR_H
#define CORDON_SBPL_IR_H
#include <stdbool.h>
#include <stddef.h>

typedef enum { CORDON_ALLOW = 0, CORDON_DENY = 1 } cordon_action;

typedef struct {
  const char *file;  /* owned by the policy (interned with cordon_policy_intern); may be NULL */
  unsigned line, col;
} cordon_loc;

typedef enum {
  CORDON_F_PATH = 0,  /* literal/path, subpath, prefix/path-prefix, regex/path-regex: see `match` */
  CORDON_F_ALL,       /* require-all: every child matches */
  CORDON_F_ANY,       /* require-any */
  CORDON_F_NOT,       /* require-not: exactly one child */
  CORDON_F_VNODE_TYPE,/* (vnode-type REGULAR-FILE …): args are the type names */
  CORDON_F_NETWORK,   /* (local …) / (remote …): name says which; args e.g. "tcp" "*:80"; children for
                         unix-socket forms such as (remote unix-socket (path-literal "/x")) */
  CORDON_F_NAME,      /* name filters: global-name, local-name, sysctl-name, iokit-user-client-class,
                         xattr, target, … with their -prefix/-regex variants: see `match` */
  CORDON_F_EXTENSION, /* (extension "class"): needs a query input */
  CORDON_F_OTHER,     /* a filter this build does not know: kept and reported, never dropped */
} cordon_filter_kind;

typedef enum {
  CORDON_MATCH_NONE = 0,
  CORDON_MATCH_LITERAL,  /* exact string */
  CORDON_MATCH_SUBPATH,  /* S itself or anything under "S/" */
  CORDON_MATCH_PREFIX,   /* raw string prefix */
  CORDON_MATCH_REGEX,    /* unanchored POSIX ERE search */
} cordon_match;

typedef struct {
  char *text;
  bool is_param;  /* builders only: text names a -D parameter, written as (param "text") */
} cordon_arg;

typedef struct cordon_filter {
  cordon_filter_kind kind;
  char *name;           /* as written, canonical spelling: "literal", "subpath", "global-name-regex" */
  cordon_match match;   /* for PATH and NAME kinds */
  size_t nargs;
  cordon_arg *args;
  size_t nchildren;
  struct cordon_filter **children;
  void *compiled;       /* matcher-private (e.g. a compiled regex); freed by cordon_filter_free */
  void (*compiled_free)(void *);
  cordon_loc loc;
} cordon_filter;

typedef struct {
  char *name;  /* "report", "no-log", "no-sandbox", "message", "send-signal", … */
  char *arg;   /* NULL when the modifier takes none */
} cordon_modifier;

typedef struct {
  cordon_action action;
  size_t nops;
  char **ops;            /* canonical operation names, aliases expanded ("process-exec" -> "process-exec*") */
  cordon_filter *filter; /* NULL: unfiltered. Several filters side by side in SBPL text mean any-of, so the
                            evaluator wraps them in one CORDON_F_ANY; the writer always emits explicit groups */
  size_t nmods;
  cordon_modifier *mods;
  cordon_loc loc;
  char *text;            /* the rule's source text, for explanations; may be NULL */
  char *comment;         /* builders: a ";; why" line the writer puts before the rule; may be NULL */
} cordon_rule;

typedef enum { CORDON_DIAG_ERROR, CORDON_DIAG_WARNING } cordon_diag_severity;

typedef struct {
  cordon_diag_severity severity;
  char *code;     /* stable, e.g. "unknown-operation" */
  char *message;
  cordon_loc loc;
} cordon_diag;

typedef struct {
  cordon_rule *rules;
  size_t nrules, cap;
  char **files;          /* interned source names */
  size_t nfiles;
  unsigned version_forms;/* how many (version …) forms were evaluated */
  cordon_diag *diags;    /* reader/evaluator findings: unknown operations, filters, modifiers, … */
  size_t ndiags, diag_cap;
} cordon_policy;

cordon_policy *cordon_policy_new(void);
void cordon_policy_free(cordon_policy *p);
/* Returns a copy of `file` owned by the policy; equal names share one copy. */
const char *cordon_policy_intern(cordon_policy *p, const char *file);
/* Appends a zeroed rule and returns it (NULL on allocation failure). The pointer is valid until the next
 * append. */
cordon_rule *cordon_policy_add_rule(cordon_policy *p, cordon_action action, cordon_loc loc);
bool cordon_rule_add_op(cordon_rule *r, const char *op);
bool cordon_rule_add_modifier(cordon_rule *r, const char *name, const char *arg);
void cordon_policy_diag(cordon_policy *p, cordon_diag_severity sev, const char *code, cordon_loc loc,
                        const char *fmt, ...) __attribute__((format(printf, 5, 6)));

cordon_filter *cordon_filter_new(cordon_filter_kind kind, const char *name, cordon_match match);
bool cordon_filter_add_arg(cordon_filter *f, const char *text, bool is_param);
bool cordon_filter_add_child(cordon_filter *f, cordon_filter *child);  /* takes ownership */
void cordon_filter_free(cordon_filter *f);
/* Convenience: a PATH filter ("literal", "subpath", "prefix", "regex") on one string or parameter. */
cordon_filter *cordon_filter_path(const char *name, const char *text, bool is_param);
/* The match kind a path or name filter's spelling implies: "subpath" -> SUBPATH, "*-regex" -> REGEX, … */
cordon_match cordon_match_for_name(const char *name);

const char *cordon_action_name(cordon_action a);  /* "allow" / "deny" */
#endif
