/* src/backend/linux/walk.c — the compiler's core: from rules and nodes to Landlock rules and the view */
#include "backend/linux/compile_impl.h"

#include "core/path.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct {
  const char *path;
  unsigned granted;         /* classes the Landlock rules of this node and its ancestors allow */
  bool bound, bound_rw;     /* inside a tree bound from the host; whether that bind is writable */
  bool own;                 /* inside the run's own /tmp or /dev: only what a rule names comes from the host */
  bool noexec, hidden;      /* mount state in effect here */
} walk_state;

/* The run's own parts of the view (docs/linux-sandbox.md): the host's content there is not bound. */
typedef enum { OWN_NONE, OWN_PROC, OWN_DEV, OWN_TMP, OWN_SHM } own_part;

static own_part own_part_at(const lx_compiler *cc, const char *path) {
  if (strcmp(path, "/proc") == 0) return OWN_PROC;
  if (strcmp(path, "/dev") == 0) return OWN_DEV;
  if (cc->in->shared_tmp) return OWN_NONE;
  if (strcmp(path, "/tmp") == 0) return OWN_TMP;
  if (strcmp(path, "/dev/shm") == 0) return OWN_SHM;
  return OWN_NONE;
}

/* What the run's /dev has of its own (view.c makes it), so the host's is never bound there. */
static bool dev_builtin(const char *path) {
  static const char *const names[] = {"null", "zero", "full", "random", "urandom", "tty", "ptmx", "pts",
                                      "shm", "fd", "stdin", "stdout", "stderr", NULL};
  if (strncmp(path, "/dev/", 5) != 0) return false;
  const char *rest = path + 5;
  for (size_t i = 0; names[i]; i++) {
    size_t n = strlen(names[i]);
    if (strncmp(rest, names[i], n) == 0 && (rest[n] == '\0' || rest[n] == '/')) return true;
  }
  return false;
}

/* Paths ordered so that a directory sorts right before everything beneath it ('/' compares lowest). */
int lx_path_cmp(const char *a, const char *b) {
  const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
  for (;; x++, y++) {
    unsigned cx = *x == '/' ? 1u : *x, cy = *y == '/' ? 1u : *y;
    if (cx != cy || !cx) return (int)cx - (int)cy;
  }
}

static int node_cmp(const void *a, const void *b) { return lx_path_cmp(((const lx_node *)a)->path, ((const lx_node *)b)->path); }

static bool add_mount(cordon_lx_plan *plan, cordon_mount_kind kind, const char *path, bool is_dir, bool read_only,
                      bool no_exec, const char *source, const char *reason) {
  cordon_mount m = {.kind = kind, .path = (char *)path, .is_dir = is_dir, .read_only = read_only,
                    .no_exec = no_exec, .source = (char *)source, .reason = (char *)reason};
  return cordon_lx_plan_add_mount(plan, &m);
}

/* A node outside every bound tree: bound from the host when something is granted on it, a listing view
 * when it is a directory granted only by a literal, else nothing of its own (the view makes the
 * directories on the way to what lies beneath). */
static bool outside(lx_compiler *cc, const lx_node *n, const walk_state *s, walk_state *out, bool is_dir,
                    unsigned self, unsigned want) {
  if (s->own && (!n->allow_named || dev_builtin(n->path))) return true;
  /* In the run's own /tmp a directory only a literal names (the workdir's ancestors) is no grant of the
   * host's tree there: what the run's /tmp allows must stay the run's, so it lists its entries' names. */
  if (s->own && is_dir && !n->tree_named)
    return !(self & CORDON_LX_READ) ||
           add_mount(cc->plan, CORDON_MOUNT_VIEW, n->path, true, true, false, n->source,
                     "named by a literal in the run's own /tmp: its entries' names, not the host's tree");
  if (want) {
    bool rw = want & CORDON_LX_MODIFY;
    out->bound = true, out->bound_rw = rw;
    if (is_dir && !(want & CORDON_LX_READ) && !cc->unlistable_example) cc->unlistable_example = n->path;
    return add_mount(cc->plan, CORDON_MOUNT_BIND, n->path, is_dir, !rw, false, n->source,
                     rw ? "writable root" : "granted: bound read-only");
  }
  if (is_dir && (self & CORDON_LX_READ) && !(s->granted & CORDON_LX_READ))
    return add_mount(cc->plan, CORDON_MOUNT_VIEW, n->path, true, true, false, n->source,
                     "granted by a literal: its entries' names, each an empty stub unless granted itself");
  return true;
}

/* A node inside a bound tree: the masks Landlock cannot express. */
static bool inside(lx_compiler *cc, const lx_node *n, const walk_state *s, walk_state *out, bool is_dir,
                   unsigned want) {
  if ((s->granted & CORDON_LX_READ) && !(want & CORDON_LX_READ)) {
    out->hidden = true;
    return add_mount(cc->plan, CORDON_MOUNT_HIDE, n->path, is_dir, true, false, n->source,
                     "read denied inside a readable tree");
  }
  bool exec_removed = (s->granted & CORDON_LX_EXEC) && !(want & CORDON_LX_EXEC) && !s->noexec;
  bool write_back = !s->bound_rw && (want & CORDON_LX_MODIFY);
  if (s->noexec && (want & CORDON_LX_EXEC))
    cordon_lx_plan_note(cc->plan, n->source, "%s: exec allowed again inside a noexec mask is not granted", n->path);
  if (!exec_removed && !write_back) return true;
  out->noexec = s->noexec || exec_removed;
  out->bound_rw = s->bound_rw || write_back;
  return add_mount(cc->plan, CORDON_MOUNT_BIND, n->path, is_dir, !out->bound_rw, out->noexec, n->source,
                   exec_removed ? "exec denied inside an executable tree" : "writable inside a read-only tree");
}

/* The run's own parts replace what the host has there, inside a bound tree too (--workdir /, a profile
 * that reads the whole disk). Returns -1 when `n` is none of them. */
static int own(lx_compiler *cc, const lx_node *n, walk_state *out) {
  own_part part = own_part_at(cc, n->path);
  if (part == OWN_NONE) return -1;
  /* procfs and /dev/shm hold nothing of the host's; the run's /tmp and /dev only what a rule names */
  out->bound = part == OWN_PROC || part == OWN_SHM;
  out->own = !out->bound;
  out->bound_rw = true, out->noexec = false;
  static const char *const reasons[] = {
      [OWN_PROC] = "the run's own procfs: only its own processes",
      [OWN_DEV] = "the run's own /dev: null zero full random urandom tty, a new devpts instance, fd links",
      [OWN_TMP] = "the run's own, empty at start, 3/4 of the memory limit or of half the host's memory (the "
                  "host's stays out: --shared-tmp)",
      [OWN_SHM] = "the run's own, empty at start, 1/4 of the memory limit or of half the host's memory (the "
                  "host's stays out: --shared-tmp)"};
  cordon_mount_kind kind = part == OWN_PROC ? CORDON_MOUNT_PROC : part == OWN_DEV ? CORDON_MOUNT_DEV : CORDON_MOUNT_TMPFS;
  return add_mount(cc->plan, kind, n->path, true, false, false, n->source, reasons[part]);
}

/* Whether `want` at a node inside a bound tree changes nothing there: no Landlock right added, no mask. */
static bool inert_inside(const walk_state *s, unsigned want) {
  if (want & ~s->granted) return false;
  if ((s->granted & CORDON_LX_READ) && !(want & CORDON_LX_READ)) return false;
  if ((s->granted & CORDON_LX_EXEC) && !(want & CORDON_LX_EXEC) && !s->noexec) return false;
  return s->bound_rw || !(want & CORDON_LX_MODIFY);
}

/* A node inside a bound tree that changes nothing whether it is a file, a directory or absent (a write
 * deny in a writable tree, which the gate decides): not looked at, so the plan does not depend on it and
 * a run that creates a file beside it (the workdir's .envrc) keeps the run cache's entry. */
static bool inert(lx_compiler *cc, const lx_node *n, const walk_state *s) {
  if (!s->bound || own_part_at(cc, n->path) != OWN_NONE) return false;
  unsigned self = lx_decide(&cc->rules, n->path, false, NULL);
  unsigned in = lx_decide(&cc->rules, n->path, true, NULL);
  return !(in & ~self) && inert_inside(s, in & self) &&
         inert_inside(s, self & ~(unsigned)(CORDON_LX_CREATE | CORDON_LX_REMOVE));
}

static bool visit(lx_compiler *cc, const lx_node *n, const walk_state *s, walk_state *out) {
  *out = *s;
  out->path = n->path;
  if (s->hidden) return true;  /* beneath a hidden directory nothing can be reached anyway */
  if (inert(cc, n, s)) return true;
  struct stat st;
  if (cordon_lx_plan_stat(cc->plan, n->path, true, &st) != 0) return cordon_lx_plan_skip(cc->plan, n->source, n->path);
  bool is_dir = S_ISDIR(st.st_mode);
  unsigned self = lx_decide(&cc->rules, n->path, false, cc->plan);
  unsigned want = self;
  if (is_dir) {
    unsigned in = lx_decide(&cc->rules, n->path, true, cc->plan);
    want = in & self;
    if (in & ~self)
      cordon_lx_plan_note(cc->plan, n->source, "%s: a rule on the directory itself denies what its subtree "
                                               "allows; denied for the whole subtree", n->path);
  }
  if (!is_dir) want &= ~(unsigned)(CORDON_LX_CREATE | CORDON_LX_REMOVE);  /* directory rights: meaningless on a file */
  unsigned add = want & ~s->granted;
  if (add && !cordon_lx_plan_add_rule(cc->plan, n->path, want, is_dir, n->source)) return false;
  out->granted = s->granted | add;
  int part = own(cc, n, out);
  if (part >= 0) return part;
  /* outside every bound tree nothing is granted above, so what it wants is what it adds */
  return s->bound ? inside(cc, n, s, out, is_dir, want) : outside(cc, n, s, out, is_dir, self, want);
}

bool lx_walk(lx_compiler *cc) {
  qsort(cc->nodes, cc->nnodes, sizeof *cc->nodes, node_cmp);
  for (size_t i = 1; i < cc->nnodes; i++)  /* the first of equal paths is visited: it carries them all */
    if (strcmp(cc->nodes[i].path, cc->nodes[i - 1].path) == 0) {
      size_t k = i - 1;
      while (k > 0 && strcmp(cc->nodes[k - 1].path, cc->nodes[i].path) == 0) k--;
      cc->nodes[k].allow_named = cc->nodes[k].allow_named || cc->nodes[i].allow_named;
      cc->nodes[k].tree_named = cc->nodes[k].tree_named || cc->nodes[i].tree_named;
    }
  walk_state *stack = malloc((cc->nnodes + 1) * sizeof *stack);
  if (!stack) return false;
  size_t depth = 0;
  walk_state top = {.path = NULL};
  bool ok = true;
  for (size_t i = 0; i < cc->nnodes && ok; i++) {
    if (i > 0 && strcmp(cc->nodes[i].path, cc->nodes[i - 1].path) == 0) continue;
    while (depth > 0 && !cordon_path_within(stack[depth - 1].path, cc->nodes[i].path)) depth--;
    const walk_state *parent = depth ? &stack[depth - 1] : &top;
    ok = visit(cc, &cc->nodes[i], parent, &stack[depth]);
    depth++;
  }
  free(stack);
  return ok;
}
