/* src/backend/linux/compile.c — policy IR + permission profile → Linux plan (the entry point).
 *
 * Rules, in the order that gives the profile its meaning (DESIGN.md: deny wins):
 *   1. the profile's read and write entries (synthetic allows; any later policy rule overrides them);
 *   2. the policy's file rules (IR), as written;
 *   3. the profile's deny entries (secrets), then protected metadata under every writable root
 *      (synthetic denies, last, so they win).
 * Then walk.c turns rules into Landlock rules and mounts, and this file adds what is not a file rule:
 * the network filter, scoping, masks over dangerous unix sockets, and --private-tmp. */
#include "backend/linux/compile_impl.h"

#include "core/path.h"
#include "core/record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Shell and tool start-up files: writing one plants code the user's next shell (or direnv) runs. */
static const char *const persistence_files[] = {".bashrc", ".bash_profile", ".bash_login", ".bash_logout",
                                                ".profile", ".zshrc", ".zshenv", ".zprofile", ".zlogin",
                                                ".envrc", NULL};

/* Unix sockets that hand out more than the sandbox has (a container runtime is root on the host; an agent
 * socket signs as the user). Landlock cannot stop connect() to a path before ABI 9, so they are masked
 * unless the policy allows reaching them (an integration such as docker or ssh). */
static const char *const dangerous_sockets[] = {
    "/run/docker.sock", "/var/run/docker.sock", "/run/podman/podman.sock", "/run/containerd/containerd.sock",
    "/run/crio/crio.sock", "/run/buildkit/buildkitd.sock", "/run/libvirt/libvirt-sock", NULL};
static const char *const user_sockets[] = {"docker.sock", "podman/podman.sock", "gnupg/S.gpg-agent",
                                           "gnupg/S.gpg-agent.ssh", "keyring/ssh", NULL};

/* Devices every program may write (stdio redirections, terminals): granted before anything else, so a
 * policy can still take them away. */
static const char *const device_files[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", NULL};

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
    for (size_t i = 0; i < cordon_profile_protected_count(cc->in->profile); i++)
      if (contains_name(s, cordon_profile_protected_at(cc->in->profile, i))) return true;
    for (size_t i = 0; persistence_files[i]; i++)
      if (contains_name(s, persistence_files[i])) return true;
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
    if (x->action != CORDON_DENY || !x->filter || x->levels[0] || x->levels[4]) continue;
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
  const char *home = cc->in->ctx->home;
  if (!home || !cordon_path_within(root, home)) return true;
  for (size_t i = 0; persistence_files[i]; i++) {
    snprintf(path, sizeof path, "%s/%s", strcmp(home, "/") == 0 ? "" : home, persistence_files[i]);
    snprintf(src, sizeof src, "profile: start-up file %s in the writable home %s", persistence_files[i], home);
    if (!add_rule_and_node(cc, CORDON_DENY, CORDON_LX_MODIFY, path, false, src)) return false;
  }
  return true;
}

static bool filter_mentions(const lx_compiler *cc, const cordon_filter *f, const char *path) {
  for (size_t i = 0; i < f->nargs; i++) {
    const char *s = lx_arg(&cc->rules, &f->args[i]);
    if (s && strcmp(s, path) == 0) return true;
  }
  for (size_t i = 0; i < f->nchildren; i++)
    if (filter_mentions(cc, f->children[i], path)) return true;
  return false;
}

/* An integration enables a socket by allowing a network operation on its path. */
static bool socket_enabled(const lx_compiler *cc, const char *path) {
  const cordon_policy *p = cc->in->policy;
  for (size_t i = 0; p && i < p->nrules; i++) {
    const cordon_rule *r = &p->rules[i];
    if (r->action != CORDON_ALLOW || !r->filter) continue;
    for (size_t k = 0; k < r->nops; k++)
      if (strncmp(r->ops[k], "network", 7) == 0 && filter_mentions(cc, r->filter, path)) return true;
  }
  return false;
}

static bool mask_socket(lx_compiler *cc, const char *path) {
  struct stat st;
  if (cordon_lx_plan_stat(cc->plan, path, true, &st) != 0 || !S_ISSOCK(st.st_mode) || socket_enabled(cc, path))
    return true;
  for (size_t i = 0; i < cc->plan->nmounts; i++)
    if (strcmp(cc->plan->mounts[i].path, path) == 0) return true;
  cordon_mount m = {.kind = CORDON_MOUNT_HIDE, .path = (char *)path, .source = "built-in dangerous sockets",
                    .reason = "unix socket outside the sandbox's authority (enable its integration to reach it)"};
  return cordon_lx_plan_add_mount(cc->plan, &m);
}

static bool mask_sockets(lx_compiler *cc) {
  for (size_t i = 0; dangerous_sockets[i]; i++)
    if (!mask_socket(cc, dangerous_sockets[i])) return false;
  char path[CORDON_PATH_MAX];
  for (size_t i = 0; user_sockets[i]; i++) {
    snprintf(path, sizeof path, "/run/user/%u/%s", (unsigned)getuid(), user_sockets[i]);
    if (!mask_socket(cc, path)) return false;
  }
  const char *agent = cordon_record_getenv("SSH_AUTH_SOCK");  /* recorded: a cached run must see a new agent */
  if (agent && agent[0] == '/' && !mask_socket(cc, agent)) return false;
  return true;
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
    if (cc->rules.items[i].filter) ok = nodes_from_filter(cc, cc->rules.items[i].filter, cc->rules.items[i].source);
  ok = ok && lx_rules_index(&cc->rules) && lx_walk(cc) && mask_sockets(cc);
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
