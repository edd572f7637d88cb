/* src/backend/linux/walk.c — the compiler's core: from rules and nodes to Landlock rules and mounts.
 *
 * 1. Rules: the IR's file rules, then the profile turned into rules — its allow entries first (any
 *    later policy rule wins over them), its deny entries and protected metadata last (they win).
 * 2. Nodes: every path a rule names, sorted so a directory comes right before its subtree.
 * 3. Walk: per node, what the policy allows at the node and in its interior (eval.h), compared with what
 *    the Landlock rules of its ancestors already grant. More → a Landlock rule here. Less → a mount:
 *    read denied → hide (empty tmpfs or /dev/null); write denied → read-only bind; exec denied → noexec
 *    bind; write allowed again inside a read-only bind → a writable bind. Directories between the mask
 *    and the closest ancestor where renaming is allowed are pinned (bound onto themselves) so the mask
 *    cannot be side-stepped by renaming an ancestor. A denied path that does not exist yet, under a
 *    directory where it could be created, is masked at its first missing component (a placeholder).
 * docs/linux-backend.md explains each choice. */
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
  bool ro, noexec, hidden;  /* mount state in effect here */
  const char *rename_root;  /* deepest ancestor whose Landlock rights allow removing (renaming) entries */
} walk_state;

/* Paths ordered so that a directory sorts right before everything beneath it ('/' compares lowest). */
static int seg_cmp(const void *a, const void *b) {
  const unsigned char *x = (const unsigned char *)((const lx_node *)a)->path;
  const unsigned char *y = (const unsigned char *)((const lx_node *)b)->path;
  for (;; x++, y++) {
    unsigned cx = *x == '/' ? 1u : *x, cy = *y == '/' ? 1u : *y;
    if (cx != cy || !cx) return (int)cx - (int)cy;
  }
}

static int mount_cmp(const void *a, const void *b) {
  const cordon_mount *x = a, *y = b;
  lx_node nx = {.path = x->path}, ny = {.path = y->path};
  int c = seg_cmp(&nx, &ny);
  return c ? c : (int)x->kind - (int)y->kind;
}

static bool has_mount(const cordon_lx_plan *p, const char *path) {
  for (size_t i = 0; i < p->nmounts; i++)
    if (strcmp(p->mounts[i].path, path) == 0) return true;
  return false;
}

/* Pins every existing directory strictly between `root` and `target`: a mount point cannot be renamed
 * or removed, so `target`'s mask cannot be carried away by renaming an ancestor. */
static bool pin_between(cordon_lx_plan *plan, const char *root, const char *target, const char *source) {
  if (!root) return true;
  size_t rl = strlen(root);
  char buf[CORDON_PATH_MAX];
  for (size_t i = rl + (strcmp(root, "/") != 0); target[i]; i++) {
    if (target[i] != '/' || i == 0) continue;
    if (i >= sizeof buf) return true;
    memcpy(buf, target, i);
    buf[i] = '\0';
    if (!cordon_path_within(root, buf) || strcmp(buf, root) == 0 || has_mount(plan, buf)) continue;
    struct stat st;
    if (cordon_lx_plan_stat(plan, buf, true, &st) != 0 || !S_ISDIR(st.st_mode)) continue;
    cordon_mount m = {.kind = CORDON_MOUNT_BIND, .path = buf, .is_dir = true, .source = (char *)source,
                      .reason = "pinned: keeps a mask beneath it from being renamed away"};
    if (!cordon_lx_plan_add_mount(plan, &m)) return false;
  }
  return true;
}

static bool add_mask(cordon_lx_plan *plan, const walk_state *s, cordon_mount *m) {
  if (has_mount(plan, m->path)) return true;
  if (!cordon_lx_plan_add_mount(plan, m)) return false;
  return s->ro || pin_between(plan, s->rename_root, m->path, m->source);
}

/* Whether `dir` or one of its ancestors holds a `.git` (a git work tree), memoized for the last directory
 * asked: the start-up files under HOME share one parent. Every stat is recorded, so a cached plan misses
 * once a repository appears or goes; a live placeholder `.git` counts as missing (it is no repository). */
static bool in_git_work_tree(lx_compiler *cc, const char *dir) {
  if (strcmp(cc->git_memo_dir, dir) == 0) return cc->git_memo_inside;
  char d[CORDON_PATH_MAX], probe[CORDON_PATH_MAX];
  bool inside = false;
  snprintf(d, sizeof d, "%s", dir);
  for (bool more = true; more && !inside;) {
    struct stat st;
    if (snprintf(probe, sizeof probe, "%s/.git", strcmp(d, "/") == 0 ? "" : d) >= (int)sizeof probe) return true;
    /* anything named .git counts (a directory, a gitfile, a link); so does a .git we cannot look at */
    inside = cordon_lx_plan_stat(cc->plan, probe, false, &st) == 0 || (errno != ENOENT && errno != ENOTDIR);
    char parent[CORDON_PATH_MAX];
    more = cordon_path_parent(d, parent, sizeof parent);
    if (more) memcpy(d, parent, strlen(parent) + 1);
  }
  snprintf(cc->git_memo_dir, sizeof cc->git_memo_dir, "%s", dir);
  cc->git_memo_inside = inside;
  return inside;
}

/* A denied path that does not exist: mask its first missing component when the sandbox could create it. */
static bool mask_missing(lx_compiler *cc, const lx_node *n, const walk_state *s, unsigned want_self) {
  bool can_create = (s->granted & CORDON_LX_CREATE) && !s->ro && !s->hidden;
  if (!can_create || (want_self & CORDON_LX_CREATE)) return cordon_lx_plan_skip(cc->plan, n->source, n->path);
  char first[CORDON_PATH_MAX], parent[CORDON_PATH_MAX];
  size_t len = strlen(n->path);
  if (len >= sizeof first) return true;
  memcpy(first, n->path, len + 1);
  /* shorten to the shallowest missing ancestor */
  for (;;) {
    struct stat st;
    if (!cordon_path_parent(first, parent, sizeof parent)) return true;
    if (cordon_lx_plan_stat(cc->plan, parent, false, &st) == 0) {
      if (!S_ISDIR(st.st_mode)) return cordon_lx_plan_skip(cc->plan, n->source, n->path); /* cannot exist */
      break;
    }
    memcpy(first, parent, strlen(parent) + 1);
  }
  /* A file where the policy protects one file (a literal: everything it denies here, the path's interior
   * would allow): git reads a missing ~/.gitconfig fine but dies on a directory ("Is a directory"), and
   * ssh, bash and readline stumble likewise over theirs. A directory where the protection covers a subtree
   * or the first missing component is an ancestor, and inside a git work tree, where `git add -A` would
   * commit an empty file but skips an empty directory. */
  unsigned denied = s->granted & ~want_self;
  bool one_file = strcmp(first, n->path) == 0 && (lx_decide(&cc->rules, n->path, true, NULL) & denied) == denied;
  bool in_git = one_file && in_git_work_tree(cc, parent);
  cordon_mount m = {.kind = (want_self & CORDON_LX_READ) ? CORDON_MOUNT_BIND : CORDON_MOUNT_HIDE,
                    .path = first, .is_dir = !one_file || in_git, .read_only = true, .placeholder = true,
                    .source = (char *)n->source,
                    .reason = !one_file ? "denied path does not exist yet: an empty directory placeholder keeps it from "
                                          "being created"
                              : in_git ? "denied file does not exist yet: an empty directory placeholder keeps it from "
                                         "being created (in a git work tree: git add -A skips an empty directory)"
                                       : "denied file does not exist yet: an empty file placeholder keeps it from being "
                                         "created (a file: tools that read it fail on a directory)"};
  return add_mask(cc->plan, s, &m);
}

static bool visit(lx_compiler *cc, const lx_node *n, const walk_state *s, walk_state *out) {
  *out = *s;
  out->path = n->path;
  if (s->hidden) return true;  /* beneath a hidden directory nothing can be reached anyway */
  struct stat st;
  if (cordon_lx_plan_stat(cc->plan, n->path, true, &st) != 0) {
    if (errno != ENOENT && errno != ENOTDIR) return cordon_lx_plan_skip(cc->plan, n->source, n->path);
    return mask_missing(cc, n, s, lx_decide(&cc->rules, n->path, false, cc->plan));
  }
  bool is_dir = S_ISDIR(st.st_mode);
  unsigned self = lx_decide(&cc->rules, n->path, false, cc->plan);
  unsigned want = self;
  if (is_dir) {
    unsigned in = lx_decide(&cc->rules, n->path, true, cc->plan);
    want = in & self;
    if (self & ~in & ~s->granted) {
      /* SBPL lets a literal grant one directory (e.g. listing an ancestor of the workdir); Landlock rights
       * on a directory reach its whole subtree, so granting it would give more: it is not granted. */
      if (cc->dir_literals++ == 0) cc->dir_literal_example = n->path;
    }
    if (in & ~self)
      cordon_lx_plan_note(cc->plan, n->source, "%s: a rule on the directory itself denies what its subtree "
                                               "allows; denied for the whole subtree", n->path);
  }
  if (!is_dir) want &= ~(unsigned)(CORDON_LX_CREATE | CORDON_LX_REMOVE);  /* directory rights: meaningless on a file */
  unsigned add = want & ~s->granted;
  if (add && !cordon_lx_plan_add_rule(cc->plan, n->path, want, is_dir, n->source)) return false;
  out->granted = s->granted | add;
  if (add & CORDON_LX_REMOVE) out->rename_root = n->path;

  cordon_mount m = {.kind = CORDON_MOUNT_BIND, .path = (char *)n->path, .is_dir = is_dir, .source = (char *)n->source};
  if ((s->granted & CORDON_LX_READ) && !(want & CORDON_LX_READ)) {
    m.kind = CORDON_MOUNT_HIDE;
    m.reason = "read denied inside a readable tree";
    out->hidden = true;
    return add_mask(cc->plan, s, &m);
  }
  bool modify_removed = (s->granted & CORDON_LX_MODIFY & ~want) && !s->ro;
  bool modify_restored = s->ro && (want & CORDON_LX_MODIFY);
  bool exec_removed = (s->granted & CORDON_LX_EXEC) && !(want & CORDON_LX_EXEC) && !s->noexec;
  if (s->noexec && (want & CORDON_LX_EXEC))
    cordon_lx_plan_note(cc->plan, n->source, "%s: exec allowed again inside a noexec mask is not granted", n->path);
  if (modify_removed && (want & CORDON_LX_MODIFY))
    cordon_lx_plan_note(cc->plan, n->source, "%s: part of write access denied inside a writable tree; the "
                                             "whole path is made read-only", n->path);
  if (!modify_removed && !modify_restored && !exec_removed) return true;
  out->ro = modify_removed ? true : modify_restored ? false : s->ro;
  out->noexec = s->noexec || exec_removed;
  m.read_only = out->ro;
  m.no_exec = out->noexec;
  m.reason = modify_removed ? "write denied inside a writable tree"
             : modify_restored ? "write allowed again inside a read-only mask"
                               : "exec denied inside an executable tree";
  if (modify_restored && !modify_removed && !exec_removed) {
    if (has_mount(cc->plan, m.path)) return true;
    return cordon_lx_plan_add_mount(cc->plan, &m);
  }
  return add_mask(cc->plan, s, &m);
}

bool lx_walk(lx_compiler *cc) {
  qsort(cc->nodes, cc->nnodes, sizeof *cc->nodes, seg_cmp);
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
  if (ok && cc->dir_literals)
    ok = cordon_lx_plan_note(cc->plan, "policy", "%zu director%s granted only by a literal rule (e.g. %s, listing an "
                             "ancestor) not made listable: Landlock rights on a directory cover its whole subtree",
                             cc->dir_literals, cc->dir_literals == 1 ? "y" : "ies", cc->dir_literal_example);
  if (ok && cc->plan->nmounts > 1) qsort(cc->plan->mounts, cc->plan->nmounts, sizeof *cc->plan->mounts, mount_cmp);
  return ok;
}
