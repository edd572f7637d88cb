/* src/backend/linux/compile.c — policy IR + permission profile → Linux plan (the entry point) */
#include "backend/linux/compile_impl.h"

#include "core/path.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Devices every program may write (stdio redirections, terminals): granted before anything else, so a
 * policy can still take them away. /dev/pts is the run's own devpts instance (view_plan.c). */
static const char *const device_files[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", NULL};

/* A rule on a file class (not only on connecting to sockets): its paths are nodes of the walk. */
static bool on_files(const lx_xrule *x) {
  for (int c = 0; c < LX_FILE_CLASSES; c++)
    if (x->levels[c]) return true;
  return false;
}

static bool add_node(lx_compiler *cc, const char *raw, const char *source, bool allow_named, bool tree_named) {
  char norm[CORDON_PATH_MAX];
  if (!raw || raw[0] != '/' || cordon_path_normalize(raw, norm, sizeof norm) != CORDON_PATH_OK) return true;
  if (cc->nnodes == cc->nodes_cap) {
    size_t n = cc->nodes_cap ? cc->nodes_cap * 2 : 128;
    lx_node *p = realloc(cc->nodes, n * sizeof *p);
    if (!p) return false;
    cc->nodes = p;
    cc->nodes_cap = n;
  }
  char *copy = strdup(norm);
  if (!copy) return false;
  cc->nodes[cc->nnodes++] = (lx_node){copy, source, allow_named, allow_named && tree_named};
  return true;
}

/* Every path a filter names becomes a node; a regex or prefix contributes the directory of its literal
 * start, so its matches stay inside one node's subtree (eval.c relies on it). */
static bool nodes_from_filter(lx_compiler *cc, const cordon_filter *f, const char *source, bool allow) {
  if (f->kind == CORDON_F_NOT) allow = false;  /* an allow on everything but X does not name X */
  if (f->kind == CORDON_F_PATH && f->nargs == 1) {
    const char *s = lx_arg(&cc->rules, &f->args[0]);
    if (s && (f->match == CORDON_MATCH_LITERAL || f->match == CORDON_MATCH_SUBPATH))
      return add_node(cc, s, source, allow, f->match == CORDON_MATCH_SUBPATH);
    char lit[CORDON_PATH_MAX];
    size_t n = 0;
    if (s && f->match == CORDON_MATCH_PREFIX) n = (size_t)snprintf(lit, sizeof lit, "%s", s);
    if (s && f->match == CORDON_MATCH_REGEX) n = lx_regex_anchor(s, lit, sizeof lit);
    if (n > 0 && n < sizeof lit) {
      char *slash = strrchr(lit, '/');
      if (slash) {
        *(slash == lit ? slash + 1 : slash) = '\0';
        return add_node(cc, lit, source, false, false);
      }
    }
    return true;
  }
  for (size_t i = 0; i < f->nchildren; i++)
    if (!nodes_from_filter(cc, f->children[i], source, allow)) return false;
  return true;
}

static bool add_rule_and_node(lx_compiler *cc, cordon_action a, unsigned classes, const char *path, bool subtree,
                              const char *source) {
  if (!lx_rules_add_path(&cc->rules, a, classes, path, subtree, source)) return false;
  return add_node(cc, path, cc->rules.items[cc->rules.count - 1].source, a == CORDON_ALLOW, subtree);
}

/* The profile's protected entries under a writable root: each name and each "/REL" at the top of the
 * root, and each "~/REL" the root holds. `.git` and what lies in it are the gate's: git's layout rules
 * protect the hooks and config of every git directory, at any depth, and let a config written inside
 * change only the safe keys, which a deny here would beat. */
static bool protect_root(lx_compiler *cc, const char *root) {
  const cordon_profile *pr = cc->in->profile;
  char path[CORDON_PATH_MAX], src[3 * CORDON_PATH_MAX + 64], home[CORDON_PATH_MAX];
  const char *sep = strcmp(root, "/") == 0 ? "" : "/";
  const char *h = cc->in->ctx->home;
  bool have_home = h && cordon_path_normalize(h, home, sizeof home) == CORDON_PATH_OK && cordon_path_within(root, home);
  for (size_t i = 0; i < cordon_profile_protected_count(pr); i++) {
    const char *e = cordon_profile_protected_at(pr, i);
    cordon_protected_form form = cordon_profile_protected_form(e);
    const char *rel = form == CORDON_PROTECTED_NAME ? e : e + (form == CORDON_PROTECTED_IN_HOME ? 2 : 1);
    if (strcmp(rel, ".git") == 0 || strncmp(rel, ".git/", 5) == 0) continue;
    bool subtree = form != CORDON_PROTECTED_NAME || strchr(rel + 1, '.') == NULL;
    if (form == CORDON_PROTECTED_IN_HOME) {
      if (!have_home) continue;
      int n = snprintf(path, sizeof path, "%s/%s", strcmp(home, "/") == 0 ? "" : home, rel);
      if (n < 0 || (size_t)n >= sizeof path) continue;  /* no kernel path is that long */
      snprintf(src, sizeof src, "profile: protected %s in the writable home %s", e, home);
    } else {
      int n = snprintf(path, sizeof path, "%s%s%s", root, sep, rel);
      if (n < 0 || (size_t)n >= sizeof path) continue;
      snprintf(src, sizeof src, "profile: protected metadata %s under %s", rel, root);
    }
    if (!add_rule_and_node(cc, CORDON_DENY, CORDON_LX_MODIFY, path, subtree, src)) return false;
  }
  return true;
}

/* Every rule that names a write class or connecting to a unix socket, for the gate. */
static bool hand_to_gate(lx_compiler *cc) {
  for (size_t i = 0; i < cc->rules.count; i++) {
    const lx_xrule *x = &cc->rules.items[i];
    bool gated = x->levels[1] || x->levels[2] || x->levels[3] || x->levels[LX_CONNECT];
    if (gated && !cordon_lx_plan_add_grule(cc->plan, x->action, x->levels, x->filter, x->path, x->subtree, x->source,
                                           cc->in->params, cc->in->nparams))
      return false;
  }
  for (size_t i = 0; cc->in->git_safe_keys && cc->in->git_safe_keys[i]; i++)
    if (!cordon_lx_plan_add_git_safe_key(cc->plan, cc->in->git_safe_keys[i])) return false;
  for (size_t i = 0; cc->in->gate_names && cc->in->gate_names[i]; i++)
    if (!cordon_lx_plan_add_gate_name(cc->plan, cc->in->gate_names[i])) return false;
  return true;
}

static cordon_lx_status build(lx_compiler *cc, cordon_buf *msg) {
  const cordon_lx_input *in = cc->in;
  cordon_resolved res = {0};
  if (cordon_profile_resolve(in->profile, in->ctx, &res) != CORDON_PROFILE_OK) {
    cordon_resolved_free(&res);
    cordon_buf_puts(msg, "the profile's entries cannot be resolved against the context");
    return CORDON_LX_INVALID;
  }
  /* the root, and the run's own parts of the view, which the walk must meet even when no rule names them */
  bool ok = add_node(cc, "/", "policy", false, false) && add_node(cc, "/tmp", "built-in: the run's own /tmp", false, false) &&
            add_node(cc, "/dev", "built-in: the run's own /dev", false, false) && lx_rules_add_default(&cc->rules, CORDON_DENY);
  char src[CORDON_PATH_MAX + 64];
  for (size_t i = 0; ok && device_files[i]; i++)
    ok = add_rule_and_node(cc, CORDON_ALLOW, CORDON_LX_READ | CORDON_LX_WRITE, device_files[i], false,
                           "built-in: device every program writes");
  ok = ok && add_rule_and_node(cc, CORDON_ALLOW, CORDON_LX_READ | CORDON_LX_WRITE, "/dev/pts", true,
                               "built-in: the run's own terminals (a new devpts instance)");
  /* POSIX shared memory and semaphores (Python's multiprocessing): the run's own /dev/shm */
  ok = ok && add_rule_and_node(cc, CORDON_ALLOW, CORDON_LX_READ | CORDON_LX_MODIFY, "/dev/shm", true,
                               in->shared_tmp ? "--shared-tmp: the host's /dev/shm" : "built-in: the run's own /dev/shm");
  /* The run's procfs shows only its own processes: a grant on /proc/self would land on one process's
   * directory, so /proc is readable whole. Ahead of the policy, so a deny it writes under /proc wins. */
  ok = ok && add_rule_and_node(cc, CORDON_ALLOW, CORDON_LX_READ, "/proc", true, "built-in: the run's own procfs");
  /* With a policy, the profile's entries are already in it: adding them again would grant what the policy
   * cut out of them (HOME's dot-entries). */
  size_t entries = in->policy ? 0 : res.count;
  for (size_t i = 0; ok && i < entries; i++) {
    const cordon_resolved_entry *e = &res.items[i];
    if (e->access == CORDON_ACCESS_DENY) continue;
    unsigned classes = CORDON_LX_READ | CORDON_LX_EXEC | (e->access == CORDON_ACCESS_WRITE ? CORDON_LX_MODIFY : 0);
    snprintf(src, sizeof src, "profile: %s %s%s%s", cordon_access_name(e->access), e->path,
             e->special ? " " : "", e->special ? cordon_special_name(e->special) : "");
    ok = add_rule_and_node(cc, CORDON_ALLOW, classes, e->path, e->match == CORDON_ENTRY_SUBTREE, src);
  }
  if (ok && in->policy) ok = lx_rules_add_policy(&cc->rules, in->policy);
  for (size_t i = 0; ok && i < entries; i++) {
    const cordon_resolved_entry *e = &res.items[i];
    if (e->access != CORDON_ACCESS_DENY) continue;
    snprintf(src, sizeof src, "profile: deny %s", e->path);
    ok = add_rule_and_node(cc, CORDON_DENY, CORDON_LX_ALL, e->path, e->match == CORDON_ENTRY_SUBTREE, src);
  }
  /* the plan cache: no sandbox may plant a plan for the next run */
  char cache[CORDON_PATH_MAX];
  if (ok && cordon_lx_cache_root(in->ctx, cache, sizeof cache))
    ok = add_rule_and_node(cc, CORDON_DENY, CORDON_LX_MODIFY, cache, true, "built-in: the plan cache");
  for (size_t i = 0; ok && i < entries; i++)
    /* protected metadata belongs to workspaces, not to the temporary directories */
    if (res.items[i].access == CORDON_ACCESS_WRITE && res.items[i].match == CORDON_ENTRY_SUBTREE &&
        res.items[i].special != CORDON_SPECIAL_TMPDIR && res.items[i].special != CORDON_SPECIAL_SLASH_TMP)
      ok = protect_root(cc, res.items[i].path);
  cordon_resolved_free(&res);
  for (size_t i = 0; ok && i < cc->rules.count; i++)
    if (cc->rules.items[i].filter && on_files(&cc->rules.items[i]))
      ok = nodes_from_filter(cc, cc->rules.items[i].filter, cc->rules.items[i].source,
                             cc->rules.items[i].action == CORDON_ALLOW);
  cc->rules.writes_upper = true;  /* Landlock and the binds bound writes from above; the gate decides them */
  ok = ok && lx_rules_index(&cc->rules) && lx_walk(cc) && lx_view_complete(cc) && hand_to_gate(cc);
  return ok ? CORDON_LX_OK : CORDON_LX_NOMEM;
}

cordon_lx_status cordon_lx_compile(const cordon_lx_input *in, cordon_lx_plan **out, cordon_buf *msg) {
  *out = NULL;
  if (!in || !in->profile || !in->ctx) {
    cordon_buf_puts(msg, "a profile and a match context are required");
    return CORDON_LX_INVALID;
  }
  if (cordon_profile_kind_of(in->profile) != CORDON_PROFILE_MANAGED) {
    cordon_buf_printf(msg, "a %s profile has nothing for the Linux sandbox to enforce",
                      cordon_profile_kind_name(cordon_profile_kind_of(in->profile)));
    return CORDON_LX_INVALID;
  }
  cordon_lx_plan *plan = cordon_lx_plan_new();
  if (!plan) return CORDON_LX_NOMEM;
  plan->best_effort = in->best_effort;
  plan->min_abi = CORDON_LX_MIN_ABI;
  plan->network_restricted = cordon_profile_network(in->profile) == CORDON_NETWORK_RESTRICTED;
  plan->scope_signals = true;
  /* the host's abstract sockets (X11's, D-Bus's) are servers outside like any other: never reachable */
  plan->scope_abstract_unix = true;
  plan->shared_tmp = in->shared_tmp;
  plan->record = in->record;
  cordon_lx_status st = CORDON_LX_OK;
  if (cordon_profile_fs_kind(in->profile) == CORDON_FS_UNRESTRICTED) {
    plan->fs_unrestricted = true;
  } else {
    lx_compiler cc = {.in = in, .plan = plan};
    cc.rules.params = in->params;
    cc.rules.nparams = in->nparams;
    st = build(&cc, msg);
    lx_rules_free(&cc.rules);
    for (size_t i = 0; i < cc.nnodes; i++) free(cc.nodes[i].path);
    free(cc.nodes);
  }
  if (st != CORDON_LX_OK) {
    if (st == CORDON_LX_NOMEM) cordon_buf_puts(msg, "out of memory while compiling the Linux plan");
    cordon_lx_plan_free(plan);
    return st;
  }
  *out = plan;
  return CORDON_LX_OK;
}
