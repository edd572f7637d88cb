/* src/backend/linux/view_plan.c — completing the view the walk began (compile_impl.h, plan.h) */
#include "backend/linux/compile_impl.h"

#include "core/path.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Whether `path` is inside a tree whose content comes from elsewhere: bound from the host, hidden, or the
 * run's procfs. The run's /tmp, /dev and listing views show only what is put there. */
static bool covered(const cordon_lx_plan *p, const char *path) {
  for (size_t i = 0; i < p->nmounts; i++) {
    const cordon_mount *m = &p->mounts[i];
    bool fills = m->kind == CORDON_MOUNT_BIND || m->kind == CORDON_MOUNT_HIDE || m->kind == CORDON_MOUNT_PROC ||
                 (m->kind == CORDON_MOUNT_TMPFS && strcmp(m->path, "/dev/shm") == 0);
    if (fills && cordon_path_within(m->path, path)) return true;
  }
  return false;
}

/* The plain socket paths an allow's filter names (literal and subpath arguments, also inside require-any
 * and (remote unix-socket …)), with its source. */
static bool named_sockets(const lx_compiler *cc, const cordon_filter *f, const char ***v, size_t *n, size_t *cap) {
  if (f->kind == CORDON_F_NETWORK && (!f->name || strcmp(f->name, "remote") != 0)) return true;
  if (f->kind == CORDON_F_NOT) return true;  /* everything but X names no socket */
  if (f->kind == CORDON_F_PATH) {
    const char *s = f->nargs == 1 ? lx_arg(&cc->rules, &f->args[0]) : NULL;
    if (!s || s[0] != '/' || (f->match != CORDON_MATCH_LITERAL && f->match != CORDON_MATCH_SUBPATH)) return true;
    if (*n == *cap) {
      size_t c = *cap ? *cap * 2 : 16;
      const char **p = realloc(*v, c * sizeof *p);
      if (!p) return false;
      *v = p, *cap = c;
    }
    (*v)[(*n)++] = s;
    return true;
  }
  for (size_t i = 0; i < f->nchildren; i++)
    if (!named_sockets(cc, f->children[i], v, n, cap)) return false;
  return true;
}

static bool bind_socket(lx_compiler *cc, const char *raw, const char *source) {
  char path[CORDON_PATH_MAX];
  struct stat st;
  if (cordon_path_normalize(raw, path, sizeof path) != CORDON_PATH_OK || covered(cc->plan, path)) return true;
  if (cordon_lx_plan_stat(cc->plan, path, true, &st) != 0) return true;
  if (!S_ISSOCK(st.st_mode) && !S_ISDIR(st.st_mode)) return true;
  if (!lx_decide_connect(&cc->rules, path, cc->plan)) return true;
  cordon_mount m = {.kind = CORDON_MOUNT_BIND, .path = path, .is_dir = S_ISDIR(st.st_mode), .read_only = true,
                    .source = (char *)source,
                    .reason = "a unix socket the policy names (the gate decides each connect)"};
  return cordon_lx_plan_add_mount(cc->plan, &m);
}

static bool bind_named_sockets(lx_compiler *cc) {
  bool ok = true;
  for (size_t i = 0; ok && i < cc->rules.count; i++) {
    const lx_xrule *x = &cc->rules.items[i];
    if (x->action != CORDON_ALLOW || !x->filter || !x->levels[LX_CONNECT]) continue;
    const char **v = NULL;
    size_t n = 0, cap = 0;
    ok = named_sockets(cc, x->filter, &v, &n, &cap);
    for (size_t k = 0; ok && k < n; k++) ok = bind_socket(cc, v[k], x->source);
    free(v);
  }
  return ok;
}

static bool root_bound(const cordon_lx_plan *p) {
  for (size_t i = 0; i < p->nmounts; i++)
    if (p->mounts[i].kind == CORDON_MOUNT_BIND && strcmp(p->mounts[i].path, "/") == 0) return true;
  return false;
}

static int mount_cmp(const void *a, const void *b) {
  const cordon_mount *x = a, *y = b;
  int c = lx_path_cmp(x->path, y->path);
  return c ? c : (int)x->kind - (int)y->kind;
}

bool lx_view_complete(lx_compiler *cc) {
  cordon_lx_plan *p = cc->plan;
  if (!bind_named_sockets(cc)) return false;
  if (root_bound(p)) {
    /* the whole disk is bound: listing is the policy's own business there */
  } else if (cc->unlistable_example) {
    if (!cordon_lx_plan_note(p, "policy", "listing directories is not granted in the view: %s is bound for "
                             "something other than reading, and a listing grant would reach into it",
                             cc->unlistable_example))
      return false;
  } else if (!cordon_lx_plan_add_rule(p, "/", CORDON_LX_LIST, true, "built-in: listing the view")) {
    return false;
  }
  if (p->nmounts > 1) qsort(p->mounts, p->nmounts, sizeof *p->mounts, mount_cmp);
  return true;
}
