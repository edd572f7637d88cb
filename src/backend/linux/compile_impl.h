/* src/backend/linux/compile_impl.h — state shared by the compiler's files (compile.c, walk.c, view.c). */
#ifndef CORDON_LINUX_COMPILE_IMPL_H
#define CORDON_LINUX_COMPILE_IMPL_H
#include "backend/linux/eval.h"
#include "backend/linux/linux.h"
#include "core/path.h"

typedef struct {
  char *path;          /* normalized absolute path (owned) */
  const char *source;  /* the first rule naming it (owned by the rule set) */
  bool allow_named;    /* an allow rule names this very path: bound from the host even inside the run's
                          own /tmp or /dev (a workdir under /tmp, a device an integration grants) */
  bool tree_named;     /* ... as a subtree: only then is a directory there the host's (a literal on a
                          directory, the workdir's ancestors under /tmp, lists its entries' names) */
} lx_node;

typedef struct {
  const cordon_lx_input *in;
  cordon_lx_plan *plan;
  lx_rules rules;
  lx_node *nodes;
  size_t nnodes, nodes_cap;
  const char *unlistable_example;  /* a directory bound without read: listing the view is not granted */
} lx_compiler;

/* Paths ordered so that a directory sorts right before everything beneath it. */
int lx_path_cmp(const char *a, const char *b);

/* Turns cc->nodes and cc->rules into cc->plan's Landlock rules and the view's binds, listing views and
 * masks (walk.c). */
bool lx_walk(lx_compiler *cc);

/* Completes the view (view_plan.c): the run's own /tmp, /dev/shm, /dev and /proc; the unix sockets the
 * policy names; host symlinks on the way to what is bound; the listing rule; then sorts it. */
bool lx_view_complete(lx_compiler *cc);
#endif
