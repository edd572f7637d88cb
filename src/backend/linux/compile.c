/* src/backend/linux/compile.c — policy IR + permission profile → Linux plan (the entry point).
 *
 * Rules, in the order that gives the profile its meaning (DESIGN.md: deny wins):
 *   1. the profile's read and write entries (synthetic allows; any later policy rule overrides them);
 *   2. the policy's file rules (IR), as written;
 *   3. the profile's deny entries (secrets), then protected metadata under every writable root
 *      (synthetic denies, last, so they win).
 * Then walk.c turns rules into Landlock rules and mounts, and this file adds what is not a file rule:
 * the network filter, scoping, masks over the unix sockets the policy denies connecting to, and
 * --private-tmp. --private-proc grants its private procfs whole, with the entries of step 1. Which paths
 * are dangerous is the policy's business (lua/cordon/protect.lua, the profile tree's socket denies);
 * nothing here keeps its own list. */
#include "backend/linux/compile_impl.h"

#include "core/path.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Devices every program may write (stdio redirections, terminals): granted before anything else, so a
 * policy can still take them away. */
static const char *const device_files[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", NULL};

/* A rule on a file class (not only on connecting to sockets): its paths are nodes of the walk. */
static bool on_files(const lx_xrule *x) {
  for (int c = 0; c < LX_FILE_CLASSES; c++)
    if (x->levels[c]) return true;
  return false;
}

static bool add_node(lx_compiler *cc, const char *raw, const char *source) {
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
  cc->nodes[cc->nnodes++] = (lx_node){copy, source};
  return true;
}

/* Every path a filter names becomes a node; a regex or prefix contributes the directory of its literal
 * start, so its matches stay inside one node's subtree (eval.c relies on it). */
static bool nodes_from_filter(lx_compiler *cc, const cordon_filter *f, const char *source) {
  if (f->kind == CORDON_F_PATH && f->nargs == 1) {
    const char *s = lx_arg(&cc->rules, &f->args[0]);
    if (s && (f->match == CORDON_MATCH_LITERAL || f->match == CORDON_MATCH_SUBPATH))
      return add_node(cc, s, source);
    char lit[CORDON_PATH_MAX];
    size_t n = 0;
    if (s && f->match == CORDON_MATCH_PREFIX) n = (size_t)snprintf(lit, sizeof lit, "%s", s);
    if (s && f->match == CORDON_MATCH_REGEX) n = lx_regex_anchor(s, lit, sizeof lit);
    if (n > 0 && n < sizeof lit) {
      char *slash = strrchr(lit, '/');
      if (slash) {
        *(slash == lit ? slash + 1 : slash) = '\0';
        return add_node(cc, lit, source);
      }
    }
    return true;
  }
  for (size_t i = 0; i < f->nchildren; i++)
    if (!nodes_from_filter(cc, f->children[i], source)) return false;
  return true;
}

static bool contains_name(const char *text, const char *name) {
  /* unescape, so "\\.git" reads ".git" */
  char plain[CORDON_PATH_MAX];
  size_t n = 0;
  for (const char *p = text; *p && n + 1 < sizeof plain; p++) {
    if (*p == '\\' && p[1]) p++;
    plain[n++] = *p;
  }
  plain[n] = '\0';
  size_t nl = strlen(name);
  for (const char *hit = strstr(plain, name); hit; hit = strstr(hit + 1, name)) {
    char after = hit[nl];
    if ((hit == plain || hit[-1] == '/' || hit[-1] == '(' || hit[-1] == '|') &&
        (after == '\0' || strchr("/)($|?", after)))
      return true;
  }
  return false;
}

static bool regex_names_protected(const lx_compiler *cc, const cordon_filter *f) {
  if (f->kind == CORDON_F_PATH && f->match == CORDON_MATCH_REGEX && f->nargs == 1) {
    const char *s = lx_arg(&cc->rules, &f->args[0]);
    if (!s) return false;
    /* the Seatbelt profile section writes these regexes from the profile's names, and only from them */
    for (size_t i = 0; i < cordon_profile_protected_count(cc->in->profile); i++)
      if (contains_name(s, cordon_profile_protected_at(cc->in->profile, i))) return true;
    return false;
  }
  for (size_t i = 0; i < f->nchildren; i++)
    if (regex_names_protected(cc, f->children[i])) return true;
  return false;
}

/* A deny-write regex naming protected metadata (the Seatbelt profile section writes them so) is enforced
 * by the masks of step 3 instead of being evaluated as an unknown over whole writable trees. */
static bool recognise_protected_regexes(lx_compiler *cc) {
  for (size_t i = 0; i < cc->rules.count; i++) {
    lx_xrule *x = &cc->rules.items[i];
    if (x->action != CORDON_DENY || !x->filter || x->levels[0] || x->levels[4] || !on_files(x)) continue;
    if (!regex_names_protected(cc, x->filter)) continue;
    x->skip = true;
    if (!cordon_lx_plan_note(cc->plan, x->source, "protected-metadata regex enforced as masks on the protected "
                             "names at each writable root (copies nested deeper are not masked)"))
      return false;
  }
  return true;
}

static bool add_rule_and_node(lx_compiler *cc, cordon_action a, unsigned classes, const char *path, bool subtree,
                              const char *source) {
  if (!lx_rules_add_path(&cc->rules, a, classes, path, subtree, source)) return false;
  return add_node(cc, path, cc->rules.items[cc->rules.count - 1].source);
}

static bool protect_root(lx_compiler *cc, const char *root) {
  const cordon_profile *pr = cc->in->profile;
  char path[CORDON_PATH_MAX], src[CORDON_PATH_MAX + 64];
  const char *sep = strcmp(root, "/") == 0 ? "" : "/";
  for (size_t i = 0; i < cordon_profile_protected_count(pr); i++) {
    const char *name = cordon_profile_protected_at(pr, i);
    snprintf(src, sizeof src, "profile: protected metadata %s under %s", name, root);
    if (strcmp(name, ".git") == 0) {
      /* Narrowed to what runs code on the host, so git commit still works inside (objects, index, refs):
       * hooks, config (core.fsmonitor, aliases) and a .git pointer file. */
      snprintf(path, sizeof path, "%s%s.git/hooks", root, sep);
      if (!add_rule_and_node(cc, CORDON_DENY, CORDON_LX_MODIFY, path, true, src)) return false;
      snprintf(path, sizeof path, "%s%s.git/config", root, sep);
      if (!add_rule_and_node(cc, CORDON_DENY, CORDON_LX_MODIFY, path, false, src)) return false;
      snprintf(path, sizeof path, "%s%s.git", root, sep);
      struct stat st;
      if (cordon_lx_plan_stat(cc->plan, path, false, &st) == 0 && !S_ISDIR(st.st_mode) &&
          !add_rule_and_node(cc, CORDON_DENY, CORDON_LX_MODIFY, path, false, src))
        return false;
      continue;
    }
    snprintf(path, sizeof path, "%s%s%s", root, sep, name);
    if (!add_rule_and_node(cc, CORDON_DENY, CORDON_LX_MODIFY, path, strchr(name + 1, '.') == NULL, src)) return false;
  }
  /* Start-up files matter where a shell reads them: the home directory, when a writable root holds it. */
  const char *home = cc->in->ctx->home, *const *hp = cc->in->home_protected;
  if (!hp || !home || !cordon_path_within(root, home)) return true;
  for (size_t i = 0; hp[i] && hp[i + 1]; i += 2) {
    bool subtree = strcmp(hp[i], "subpath") == 0;
    if (!subtree && strcmp(hp[i], "literal") != 0) continue;  /* a regex names no one path to mask */
    snprintf(path, sizeof path, "%s/%s", strcmp(home, "/") == 0 ? "" : home, hp[i + 1]);
    snprintf(src, sizeof src, "profile: start-up file %s in the writable home %s", hp[i + 1], home);
    if (!add_rule_and_node(cc, CORDON_DENY, CORDON_LX_MODIFY, path, subtree, src)) return false;
  }
  return true;
}

/* The unix socket paths a filter names: plain literal and subpath arguments, inside require-any/-all and
 * (remote unix-socket …). Sockets a regex or prefix would match, or sockets beneath a subpath, cannot be
 * listed without reading directories: they are not masked, and the plan says so. */
static bool socket_paths(const lx_compiler *cc, const cordon_filter *f, const char *source, const char ***v,
                         size_t *n, size_t *cap) {
  if (f->kind == CORDON_F_NETWORK && (!f->name || strcmp(f->name, "remote") != 0)) return true;
  if (f->kind == CORDON_F_NOT) return true;  /* a deny on everything but X names no socket to mask */
  if (f->kind == CORDON_F_PATH) {
    const char *s = f->nargs == 1 ? lx_arg(&cc->rules, &f->args[0]) : NULL;
    if (!s || s[0] != '/') return true;
    if (f->match != CORDON_MATCH_LITERAL &&
        !cordon_lx_plan_note(cc->plan, source, "connecting to a unix socket denied by %s %s: only a socket at exactly "
                             "that path is masked", f->name ? f->name : "pattern", s))
      return false;
    if (f->match != CORDON_MATCH_LITERAL && f->match != CORDON_MATCH_SUBPATH) return true;
    if (*n + 2 > *cap) {
      size_t c = *cap ? *cap * 2 : 32;
      const char **p = realloc(*v, c * sizeof *p);
      if (!p) return false;
      *v = p, *cap = c;
    }
    (*v)[(*n)++] = s;
    (*v)[(*n)++] = source;
    return true;
  }
  for (size_t i = 0; i < f->nchildren; i++)
    if (!socket_paths(cc, f->children[i], source, v, n, cap)) return false;
  return true;
}

/* Before Landlock ABI 9 connect() to a path is no file access, so a socket the policy denies connecting to
 * (a container runtime is root on the host; an agent signs as the user) is masked when it exists as a
 * socket and the policy, read with SBPL precedence, still denies it there: an integration re-enables one
 * by a later allow (docker.sb, ssh.sb). */
static bool mask_socket(lx_compiler *cc, const char *raw, const char *source) {
  char path[CORDON_PATH_MAX];
  struct stat st;
  if (cordon_path_normalize(raw, path, sizeof path) != CORDON_PATH_OK) return true;
  if (cordon_lx_plan_stat(cc->plan, path, true, &st) != 0 || !S_ISSOCK(st.st_mode)) return true;
  if (lx_decide_connect(&cc->rules, path, cc->plan)) return true;
  for (size_t i = 0; i < cc->plan->nmounts; i++)
    if (strcmp(cc->plan->mounts[i].path, path) == 0) return true;
  cordon_mount m = {.kind = CORDON_MOUNT_HIDE, .path = path, .source = (char *)source,
                    .reason = "unix socket the policy denies connecting to (enable its integration to reach it)"};
  return cordon_lx_plan_add_mount(cc->plan, &m);
}

static bool mask_sockets(lx_compiler *cc) {
  const char **v = NULL;
  size_t n = 0, cap = 0;
  bool ok = true;
  for (size_t i = 0; ok && i < cc->rules.count; i++) {
    const lx_xrule *x = &cc->rules.items[i];
    if (x->action == CORDON_DENY && x->filter && x->levels[LX_CONNECT])
      ok = socket_paths(cc, x->filter, x->source, &v, &n, &cap);
  }
  for (size_t i = 0; ok && i < n; i += 2) ok = mask_socket(cc, v[i], v[i + 1]);
  free(v);
  return ok;
}

/* --private-tmp: masks planned for the host's /tmp make no sense on a fresh one. */
static bool private_tmp(cordon_lx_plan *plan) {
  size_t w = 0;
  for (size_t i = 0; i < plan->nmounts; i++) {
    cordon_mount *m = &plan->mounts[i];
    if (cordon_path_within("/tmp", m->path)) {
      free(m->path), free(m->source), free(m->reason);
      continue;
    }
    plan->mounts[w++] = *m;
  }
  plan->nmounts = w;
  cordon_mount m = {.kind = CORDON_MOUNT_TMPFS, .path = "/tmp", .is_dir = true, .source = "--private-tmp",
                    .reason = "a fresh /tmp shared with nothing outside"};
  if (!cordon_lx_plan_add_mount(plan, &m)) return false;
  /* keep outer-first order: /tmp goes before anything beneath it, which was removed */
  cordon_mount t = plan->mounts[plan->nmounts - 1];
  size_t at = 0;
  while (at < plan->nmounts - 1 && strcmp(plan->mounts[at].path, "/tmp") < 0) at++;
  memmove(&plan->mounts[at + 1], &plan->mounts[at], (plan->nmounts - 1 - at) * sizeof t);
  plan->mounts[at] = t;
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
  bool ok = add_node(cc, "/", "policy") && lx_rules_add_default(&cc->rules, CORDON_DENY);
  char src[CORDON_PATH_MAX + 64];
  for (size_t i = 0; ok && device_files[i]; i++)
    ok = add_rule_and_node(cc, CORDON_ALLOW, CORDON_LX_READ | CORDON_LX_WRITE, device_files[i], false,
                           "built-in: device every program writes");
  ok = ok && add_rule_and_node(cc, CORDON_ALLOW, CORDON_LX_READ | CORDON_LX_WRITE, "/dev/pts", true,
                               "built-in: terminals");
  for (size_t i = 0; ok && i < res.count; i++) {
    const cordon_resolved_entry *e = &res.items[i];
    if (e->access == CORDON_ACCESS_DENY) continue;
    unsigned classes = CORDON_LX_READ | CORDON_LX_EXEC | (e->access == CORDON_ACCESS_WRITE ? CORDON_LX_MODIFY : 0);
    snprintf(src, sizeof src, "profile: %s %s%s%s", cordon_access_name(e->access), e->path,
             e->special ? " " : "", e->special ? cordon_special_name(e->special) : "");
    ok = add_rule_and_node(cc, CORDON_ALLOW, classes, e->path, e->match == CORDON_ENTRY_SUBTREE, src);
  }
  /* --private-proc: a grant on /proc/self lands on one process's directory and no child of it can use
   * it; the private procfs lists only the sandbox's processes, so it is granted whole. Ahead of the
   * policy, like the profile's entries, so a deny the policy writes under /proc still wins. */
  if (ok && in->private_proc)
    ok = add_rule_and_node(cc, CORDON_ALLOW, CORDON_LX_READ, "/proc", true, "--private-proc") &&
         cordon_lx_plan_note(cc->plan, "--private-proc", "/proc is readable as a whole (files and listing): it "
                             "is a private procfs showing only the sandbox's own processes, plus kernel-wide "
                             "files (/proc/sys, /proc/net, ...)");
  if (ok && in->policy) ok = lx_rules_add_policy(&cc->rules, in->policy) && recognise_protected_regexes(cc);
  for (size_t i = 0; ok && i < res.count; i++) {
    const cordon_resolved_entry *e = &res.items[i];
    if (e->access != CORDON_ACCESS_DENY) continue;
    snprintf(src, sizeof src, "profile: deny %s", e->path);
    ok = add_rule_and_node(cc, CORDON_DENY, CORDON_LX_ALL, e->path, e->match == CORDON_ENTRY_SUBTREE, src);
  }
  /* the plan cache: no sandbox may plant a plan for the next run */
  char cache[CORDON_PATH_MAX];
  if (ok && cordon_lx_cache_root(in->ctx, cache, sizeof cache))
    ok = add_rule_and_node(cc, CORDON_DENY, CORDON_LX_MODIFY, cache, true, "built-in: the plan cache");
  for (size_t i = 0; ok && i < res.count; i++)
    /* protected metadata belongs to workspaces, not to the temporary directories */
    if (res.items[i].access == CORDON_ACCESS_WRITE && res.items[i].match == CORDON_ENTRY_SUBTREE &&
        res.items[i].special != CORDON_SPECIAL_TMPDIR && res.items[i].special != CORDON_SPECIAL_SLASH_TMP)
      ok = protect_root(cc, res.items[i].path);
  cordon_resolved_free(&res);
  for (size_t i = 0; ok && i < cc->rules.count; i++)
    if (cc->rules.items[i].filter && on_files(&cc->rules.items[i]))
      ok = nodes_from_filter(cc, cc->rules.items[i].filter, cc->rules.items[i].source);
  /* sockets first: the walk sorts every mount into the order they are applied */
  ok = ok && lx_rules_index(&cc->rules) && mask_sockets(cc) && lx_walk(cc);
  if (ok && in->private_tmp) ok = private_tmp(cc->plan);
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
  plan->scope_abstract_unix = plan->network_restricted;
  plan->private_tmp = in->private_tmp;
  plan->private_proc = in->private_proc;
  plan->record = in->record;
  cordon_lx_status st = CORDON_LX_OK;
  if (cordon_profile_fs_kind(in->profile) == CORDON_FS_UNRESTRICTED) {
    plan->fs_unrestricted = true;
    if (in->private_tmp && !private_tmp(plan)) st = CORDON_LX_NOMEM;
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
