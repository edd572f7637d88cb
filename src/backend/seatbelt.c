/* src/backend/seatbelt.c — the macOS Seatbelt backend: profile → IR rules → SBPL, and the sandbox-exec wrapper */
#include "backend/seatbelt.h"

#include "backend/seatbelt_build.h"
#include "core/path.h"
#include "lua/embedded.h"
#include "sbpl/parse.h"
#include "sbpl/writer.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One resolved root: a path (with Darwin firmlinks applied) and whether it is exact or a subtree. */
typedef struct {
  char *path;
  cordon_entry_match match;
  char param[40];
} sb_root;

typedef struct {
  sb_root *items;
  size_t count;
} sb_roots;

static void roots_free(sb_roots *r) {
  for (size_t i = 0; i < r->count; i++) free(r->items[i].path);
  free(r->items);
  r->items = NULL;
  r->count = 0;
}

/* The kernel checks real paths, and on macOS /tmp, /var and /etc are symlinks into /private. A caller
 * on a Mac already passes canonical paths; this makes a policy previewed elsewhere right too. A linux
 * target has no such links: its paths are kept as given. */
static char *target_real_path(const char *path, bool darwin) {
  static const char *const links[] = {"/tmp", "/var", "/etc", NULL};
  for (size_t i = 0; darwin && links[i]; i++) {
    if (cordon_path_within(links[i], path)) {
      char *out = malloc(strlen(path) + sizeof "/private");
      if (out) {
        strcpy(out, "/private");
        strcat(out, path);
      }
      return out;
    }
  }
  return strdup(path);
}

/* Adds (path, match) unless already present; the parameter is named PREFIX_<index>. */
static cordon_sandbox_status roots_add(sb_roots *r, const char *prefix, const char *path, cordon_entry_match match,
                                       bool darwin, cordon_buf *msg) {
  size_t off;
  cordon_sbpl_write_status ws = cordon_sbpl_check_string(path, strlen(path), &off);
  if (ws != CORDON_SBPL_WRITE_OK && ws != CORDON_SBPL_WRITE_TOO_LONG) {
    cordon_buf_printf(msg, "path cannot be passed to Seatbelt (%s at byte %zu): %s", cordon_sbpl_write_status_name(ws),
                      off, path);
    return CORDON_SANDBOX_INVALID_REQUEST;
  }
  char *real = target_real_path(path, darwin);
  if (!real) return CORDON_SANDBOX_NOMEM;
  for (size_t i = 0; i < r->count; i++) {
    if (r->items[i].match == match && strcmp(r->items[i].path, real) == 0) {
      free(real);
      return CORDON_SANDBOX_OK;
    }
  }
  sb_root *items = realloc(r->items, (r->count + 1) * sizeof *items);
  if (!items) {
    free(real);
    return CORDON_SANDBOX_NOMEM;
  }
  r->items = items;
  sb_root *root = &items[r->count];
  root->path = real;
  root->match = match;
  snprintf(root->param, sizeof root->param, "%s_%zu", prefix, r->count);
  r->count++;
  return CORDON_SANDBOX_OK;
}

static cordon_filter *root_filter(sb_builder *b, const sb_root *r) {
  return sb_path(b, r->match == CORDON_ENTRY_SUBTREE ? "subpath" : "literal", r->param, true);
}

/* Whether a deny can match anything the root grants; a disjoint deny is left out of the root's clause
 * because it could never match there. */
static bool overlaps(const sb_root *root, const sb_root *deny) {
  bool d_in_r = root->match == CORDON_ENTRY_SUBTREE ? cordon_path_within(root->path, deny->path)
                                                    : strcmp(root->path, deny->path) == 0;
  bool r_in_d = deny->match == CORDON_ENTRY_SUBTREE ? cordon_path_within(deny->path, root->path)
                                                    : strcmp(root->path, deny->path) == 0;
  return d_in_r || r_in_d;
}

/* (allow OPS (subpath ROOT) (require-not DENY)…): deny entries sit inside every allow clause, so a deny
 * is a hole in the grant rather than a later rule (which would also beat grants made by integrations). */
static void allow_root(sb_builder *b, const char *ops, const sb_root *root, const sb_roots *denies, const char *why) {
  size_t n = 1;
  cordon_filter **parts = calloc(denies->count + 1, sizeof *parts);
  if (!parts) {
    b->oom = true;
    return;
  }
  parts[0] = root_filter(b, root);
  for (size_t i = 0; i < denies->count; i++)
    if (overlaps(root, &denies->items[i])) parts[n++] = sb_not(b, root_filter(b, &denies->items[i]));
  cordon_filter *f = n == 1 ? parts[0] : sb_group(b, CORDON_F_ALL, n, parts);
  free(parts);
  sb_rule(b, CORDON_ALLOW, ops, f, why);
}

static bool is_name(const cordon_profile *p, size_t i) {
  return cordon_profile_protected_form(cordon_profile_protected_at(p, i)) == CORDON_PROTECTED_NAME;
}

static size_t name_count(const cordon_profile *p) {
  size_t n = 0;
  for (size_t i = 0; i < cordon_profile_protected_count(p); i++) n += is_name(p, i);
  return n;
}

static bool has_protected_segment(const cordon_profile *p, const char *path) {
  size_t names = cordon_profile_protected_count(p);
  for (const char *s = path; *s;) {
    while (*s == '/') s++;
    size_t n = strcspn(s, "/");
    for (size_t i = 0; n && i < names; i++) {
      const char *name = cordon_profile_protected_at(p, i);
      if (is_name(p, i) && strlen(name) == n && strncmp(s, name, n) == 0) return true;
    }
    s += n;
  }
  return false;
}

/* "(\.git|\.agents|…)(/|$)" preceded by `lead`: regex source, every name escaped. */
static bool protected_regex(const cordon_profile *p, const char *lead, cordon_buf *re) {
  cordon_buf_puts(re, lead);
  cordon_buf_putc(re, '(');
  for (size_t i = 0, k = 0; i < cordon_profile_protected_count(p); i++) {
    const char *name = cordon_profile_protected_at(p, i);
    if (!is_name(p, i)) continue;
    if (k++) cordon_buf_putc(re, '|');
    if (cordon_sbpl_regex_escape(name, strlen(name), re) != CORDON_SBPL_WRITE_OK) return false;
  }
  cordon_buf_puts(re, ")(/|$)");
  return !re->oom;
}

/* Every write operation by name, space-separated (cordon.standard's WRITE_OPS): a rule on a specific
 * operation is consulted before one on its wildcard parent (FIELD-NOTES, "Precedence"), so a deny naming
 * only file-write* would lose to an earlier (allow file-write-create …) made by a fragment. Empty when
 * the lists cannot be read; the caller then fails. */
static char *write_ops_text(void) {
  cordon_buf ops = CORDON_BUF_INIT;
  const char *const *w = cordon_profile_std_list(CORDON_STD_WRITE_OPS);
  for (size_t i = 0; w[i]; i++) cordon_buf_printf(&ops, "%s%s", i ? " " : "", w[i]);
  return cordon_buf_take(&ops);
}

/* Protected metadata: deny writing any path whose segment below a writable root is a protected name,
 * whether it exists or not, so a missing .git cannot be created either. The deny is filtered and names
 * every write operation, so it beats an earlier grant whichever write operation that grant named. A
 * root whose own path already holds a protected segment gets a regex anchored at the root, so only
 * segments *below* it count (as in the profile matcher). */
static cordon_sandbox_status protect_metadata(sb_builder *b, const cordon_profile *p, const sb_roots *writes,
                                              const char *write_ops, cordon_buf *msg) {
  if (!name_count(p)) return CORDON_SANDBOX_OK;
  cordon_filter **plain = calloc(writes->count + 1, sizeof *plain);
  if (!plain) return CORDON_SANDBOX_NOMEM;
  size_t n = 0;
  cordon_sandbox_status st = CORDON_SANDBOX_OK;
  for (size_t i = 0; i < writes->count && st == CORDON_SANDBOX_OK; i++) {
    const sb_root *root = &writes->items[i];
    if (root->match != CORDON_ENTRY_SUBTREE) continue;  /* nothing lies below an exact path */
    if (!has_protected_segment(p, root->path)) {
      plain[n++] = root_filter(b, root);
      continue;
    }
    cordon_buf re = CORDON_BUF_INIT;
    cordon_buf_putc(&re, '^');
    bool ok = cordon_sbpl_regex_escape(root->path, strlen(root->path), &re) == CORDON_SBPL_WRITE_OK &&
              protected_regex(p, "/(.*/)?", &re);
    if (!ok || re.len > CORDON_SBPL_MAX_LITERAL) {
      cordon_buf_printf(msg, "cannot protect metadata under writable root %s: its path is too long for a regex",
                        root->path);
      st = re.oom ? CORDON_SANDBOX_NOMEM : CORDON_SANDBOX_INVALID_REQUEST;
    } else {
      sb_rule(b, CORDON_DENY, write_ops, sb_path(b, "regex", cordon_buf_str(&re), false),
              "Protected metadata below a writable root that itself lies inside such a directory.");
    }
    cordon_buf_free(&re);
  }
  if (st == CORDON_SANDBOX_OK && n) {
    cordon_buf re = CORDON_BUF_INIT;
    /* Anchored, matching exactly what the unanchored "/(names)(/|$)" would: a deny regex should say where
     * it starts (lint: unanchored-regex), and the subpath beside it already confines it to the roots. */
    if (!protected_regex(p, "^.*/", &re)) st = CORDON_SANDBOX_NOMEM;
    cordon_filter *where = n == 1 ? plain[0] : sb_group(b, CORDON_F_ANY, n, plain);
    cordon_filter *parts[2] = {where, st == CORDON_SANDBOX_OK ? sb_path(b, "regex", cordon_buf_str(&re), false) : NULL};
    sb_rule(b, CORDON_DENY, write_ops, sb_group(b, CORDON_F_ALL, 2, parts),
            "Protected metadata (.git, agent settings, …) at any depth under the writable roots: not writable, "
            "and not creatable.");
    cordon_buf_free(&re);
    n = 0;
  }
  for (size_t i = 0; i < n; i++) cordon_filter_free(plain[i]);
  free(plain);
  return st;
}

/* Adds `base`/`rel` (as the target sees it) to `list` unless present; false when out of memory. */
static bool add_joined(sb_roots *list, const char *base, const char *rel, bool darwin) {
  cordon_buf j = CORDON_BUF_INIT;
  cordon_buf_printf(&j, "%s/%s", strcmp(base, "/") == 0 ? "" : base, rel);
  char norm[CORDON_PATH_MAX + 1];
  bool ok = !j.oom && cordon_path_normalize(cordon_buf_str(&j), norm, sizeof norm) == CORDON_PATH_OK;
  cordon_buf_free(&j);
  if (!ok) return true;  /* a path too long for any kernel names nothing */
  char *real = target_real_path(norm, darwin);
  if (!real) return false;
  for (size_t i = 0; i < list->count; i++)
    if (strcmp(list->items[i].path, real) == 0) return free(real), true;
  sb_root *items = realloc(list->items, (list->count + 1) * sizeof *items);
  if (!items) return free(real), false;
  list->items = items;
  sb_root *r = &list->items[list->count];
  *r = (sb_root){real, CORDON_ENTRY_SUBTREE, ""};
  snprintf(r->param, sizeof r->param, "PROTECTED_PATH_%zu", list->count);
  list->count++;
  return true;
}

/* The profile's protected paths: each "/REL" at the top of every writable subtree that is not a
 * temporary directory, and each "~/REL" a writable root holds. One filtered deny naming every write
 * operation, so it beats the grants above it. */
static cordon_sandbox_status protect_paths(sb_builder *b, const cordon_profile *p, const cordon_profile_ctx *ctx,
                                           const cordon_resolved *res, bool darwin, const char *write_ops,
                                           cordon_params *params) {
  sb_roots list = {0};
  bool ok = true;
  char home[CORDON_PATH_MAX + 1];
  bool have_home = ctx->home && cordon_path_normalize(ctx->home, home, sizeof home) == CORDON_PATH_OK;
  for (size_t k = 0; ok && k < cordon_profile_protected_count(p); k++) {
    const char *e = cordon_profile_protected_at(p, k);
    cordon_protected_form form = cordon_profile_protected_form(e);
    for (size_t i = 0; ok && form != CORDON_PROTECTED_NAME && i < res->count; i++) {
      const cordon_resolved_entry *r = &res->items[i];
      if (r->access != CORDON_ACCESS_WRITE) continue;
      if (form == CORDON_PROTECTED_IN_ROOTS && r->match == CORDON_ENTRY_SUBTREE && r->special != CORDON_SPECIAL_TMPDIR &&
          r->special != CORDON_SPECIAL_SLASH_TMP)
        ok = add_joined(&list, r->path, e + 1, darwin);
      if (form == CORDON_PROTECTED_IN_HOME && have_home && cordon_path_within(r->path, home))
        ok = add_joined(&list, home, e + 2, darwin);
    }
  }
  cordon_filter **parts = ok && list.count ? calloc(list.count, sizeof *parts) : NULL;
  if (ok && list.count && !parts) ok = false;
  for (size_t i = 0; parts && i < list.count; i++) {
    parts[i] = root_filter(b, &list.items[i]);
    if (!cordon_params_add(params, list.items[i].param, list.items[i].path)) ok = false;
  }
  if (parts)
    sb_rule(b, CORDON_DENY, write_ops, list.count == 1 ? parts[0] : sb_group(b, CORDON_F_ANY, list.count, parts),
            "Protected paths (.envrc, editor tasks, shell start-up files, …) under the writable roots: not writable.");
  free(parts);
  roots_free(&list);
  return ok ? CORDON_SANDBOX_OK : CORDON_SANDBOX_NOMEM;
}

/* Network: the deny is filtered and names the same operations a fragment's grant would, so it beats
 * earlier grants; the allow is unfiltered, a fallback that leaves earlier filtered denies (the
 * container-runtime socket, say) in force. */
static void network_rules(sb_builder *b, cordon_network net) {
  if (net == CORDON_NETWORK_ENABLED) {
    sb_rule(b, CORDON_ALLOW, "network-outbound network-inbound network-bind system-socket", NULL,
            "Network enabled: any connection, listening socket and socket type.");
    return;
  }
  sb_rule(b, CORDON_DENY, "network-outbound", sb_net(b, "remote", "ip", "*:*"),
          "Network restricted: no outbound IP traffic (local unix sockets are not network).");
  sb_rule(b, CORDON_DENY, "network-inbound network-bind", sb_net(b, "local", "ip", "*:*"),
          "Network restricted: no listening on IP ports.");
}

/* The matchers skip a context path they cannot normalize; a policy must not silently lose a root, so
 * here such a context is refused. */
static cordon_sandbox_status check_ctx_path(const char *what, size_t index, const char *path, cordon_buf *msg) {
  char norm[CORDON_PATH_MAX + 1];
  if (!path) return CORDON_SANDBOX_OK;
  cordon_path_status ps = cordon_path_normalize(path, norm, sizeof norm);
  if (ps == CORDON_PATH_OK) return CORDON_SANDBOX_OK;
  cordon_buf_printf(msg, "match context %s", what);
  if (index != SIZE_MAX) cordon_buf_printf(msg, "[%zu]", index + 1);
  cordon_buf_printf(msg, " is not a usable absolute path (%s)", cordon_path_status_name(ps));
  return CORDON_SANDBOX_INVALID_REQUEST;
}

/* A "~/…" deny entry with no home in the context would resolve to nothing: the secret it protects would
 * simply be readable. Unresolvable grants only take access away, so they are left to resolve to nothing;
 * an unresolvable deny is refused. */
static cordon_sandbox_status check_denies(const cordon_profile *p, const cordon_profile_ctx *ctx, cordon_buf *msg) {
  if (ctx->home || cordon_profile_fs_kind(p) == CORDON_FS_UNRESTRICTED) return CORDON_SANDBOX_OK;
  for (size_t i = 0; i < cordon_profile_entry_count(p); i++) {
    const cordon_profile_entry *e = cordon_profile_entry_at(p, i);
    if (e->access == CORDON_ACCESS_DENY && e->path && e->path[0] == '~') {
      cordon_buf_printf(msg, "the profile denies %s but the match context has no home to resolve it against", e->path);
      return CORDON_SANDBOX_INVALID_REQUEST;
    }
  }
  return CORDON_SANDBOX_OK;
}

static cordon_sandbox_status check_ctx(const cordon_profile_ctx *ctx, cordon_buf *msg) {
  cordon_sandbox_status st = CORDON_SANDBOX_OK;
  const char *names[] = {"cwd", "tmpdir", "home", "slash_tmp"};
  const char *paths[] = {ctx->cwd, ctx->tmpdir, ctx->home, ctx->slash_tmp};
  for (size_t i = 0; st == CORDON_SANDBOX_OK && i < 4; i++) st = check_ctx_path(names[i], SIZE_MAX, paths[i], msg);
  for (size_t i = 0; st == CORDON_SANDBOX_OK && i < ctx->n_workspace_roots; i++)
    st = check_ctx_path("workspace_roots", i, ctx->workspace_roots[i], msg);
  return st;
}

/* The base is the tree's own, as embedded in the binary: 00-base.sb (the version, (deny default), HOME_DIR
 * and WORKDIR with their macros), the target's system runtime and, with the network enabled, its name
 * resolution. C keeps no list of system paths or services. The rules land in `out`, which must be empty. */
static cordon_sandbox_status tree_base(cordon_policy *out, const cordon_profile_ctx *ctx, bool darwin, bool network,
                                       cordon_buf *msg) {
  const char *const names[] = {"00-base.sb", darwin ? "10-system-runtime.sb" : "10-system-runtime-linux.sb",
                               network ? (darwin ? "20-network.sb" : "20-network-linux.sb") : NULL};
  cordon_buf text = CORDON_BUF_INIT;
  for (size_t i = 0; i < 3 && names[i]; i++) {
    const cordon_embedded_file *f = cordon_embedded_profiles;
    while (f->name && strcmp(f->name, names[i]) != 0) f++;
    if (!f->name) {
      cordon_buf_free(&text);
      cordon_buf_printf(msg, "the embedded profile tree has no %s for the Seatbelt base", names[i]);
      return CORDON_SANDBOX_INVALID_REQUEST;
    }
    cordon_buf_printf(&text, ";; Source: %s\n", f->name);
    cordon_buf_puts(&text, f->data);
    if (f->len && f->data[f->len - 1] != '\n') cordon_buf_putc(&text, '\n');
  }
  /* A path no unprivileged process can create stands for an unknown home or workdir: the macros grant
   * nothing through it (as assembly's NO_WORKDIR). */
  char *home = target_real_path(ctx->home ? ctx->home : "/nonexistent/cordon-no-home", darwin);
  char *work = target_real_path(ctx->cwd ? ctx->cwd : "/nonexistent/cordon-no-workdir", darwin);
  cordon_sbpl_param params[] = {{"HOME_DIR", home}, {"WORKDIR", work}, {NULL, NULL}};
  cordon_sbpl_options opts = {.no_import = true};
  cordon_policy *parsed = NULL;
  cordon_sbpl_error err = {0};
  cordon_sbpl_status ps = text.oom || !home || !work ? CORDON_SBPL_NOMEM
                                                     : cordon_sbpl_parse(cordon_buf_str(&text), text.len, "tree-base",
                                                                         params, &opts, &parsed, &err);
  free(home);
  free(work);
  cordon_buf_free(&text);
  if (ps != CORDON_SBPL_OK) {
    cordon_buf_printf(msg, "the tree's Seatbelt base does not parse: %s", err.text ? err.text : cordon_sbpl_status_name(ps));
    cordon_sbpl_error_clear(&err);
    return ps == CORDON_SBPL_NOMEM ? CORDON_SANDBOX_NOMEM : CORDON_SANDBOX_INVALID_REQUEST;
  }
  if (out->nrules || out->nfiles) {
    cordon_policy_free(parsed);
    cordon_buf_puts(msg, "the Seatbelt base goes first: the policy given must be empty");
    return CORDON_SANDBOX_INVALID_REQUEST;
  }
  cordon_policy empty = *out;  /* swap: `out` takes the parsed rules, the empty shell is freed */
  *out = *parsed;
  *parsed = empty;
  cordon_policy_free(parsed);
  return CORDON_SANDBOX_OK;
}

cordon_sandbox_status cordon_seatbelt_build_with(const cordon_profile *p, const cordon_profile_ctx *ctx,
                                                 const cordon_seatbelt_options *opts, cordon_policy *out,
                                                 cordon_params *params, cordon_buf *msg) {
  static const cordon_seatbelt_options none = {false, NULL};
  if (!opts) opts = &none;
  bool darwin = !opts->platform || strcmp(opts->platform, "darwin") == 0;
  if (!darwin && strcmp(opts->platform, "linux") != 0) {
    cordon_buf_printf(msg, "the Seatbelt section is written for a darwin or linux target, not '%s'", opts->platform);
    return CORDON_SANDBOX_INVALID_REQUEST;
  }
  bool base = opts->base;
  if (!p || !ctx) {
    cordon_buf_puts(msg, "the Seatbelt backend needs a profile and a match context");
    return CORDON_SANDBOX_INVALID_REQUEST;
  }
  if (cordon_profile_kind_of(p) != CORDON_PROFILE_MANAGED) {
    cordon_buf_printf(msg, "a %s profile is not enforced by a cordon sandbox (it has no rules to apply)",
                      cordon_profile_kind_name(cordon_profile_kind_of(p)));
    return CORDON_SANDBOX_INVALID_REQUEST;
  }
  cordon_sandbox_status st = check_ctx(ctx, msg);
  if (st == CORDON_SANDBOX_OK) st = check_denies(p, ctx, msg);
  if (st != CORDON_SANDBOX_OK) return st;
  sb_builder b = {out, false};
  cordon_network net = cordon_profile_network(p);
  if (base && (st = tree_base(out, ctx, darwin, net == CORDON_NETWORK_ENABLED, msg)) != CORDON_SANDBOX_OK) return st;
  if (cordon_profile_fs_kind(p) == CORDON_FS_UNRESTRICTED) {
    sb_rule(&b, CORDON_ALLOW, "file-read* file-write*", NULL,
            "Filesystem unrestricted: read and write anywhere (unfiltered, so filtered denies still win).");
  } else {
    cordon_resolved res = {0};
    sb_roots reads = {0}, writes = {0}, denies = {0};
    char *write_ops = write_ops_text();
    if (!write_ops || !*write_ops) {
      cordon_buf_puts(msg, "the standard list of write operations cannot be read");
      st = CORDON_SANDBOX_NOMEM;
    }
    cordon_profile_status ps = cordon_profile_resolve(p, ctx, &res);
    if (ps != CORDON_PROFILE_OK) {
      cordon_buf_printf(msg, "cannot resolve the profile's entries: %s", cordon_profile_status_name(ps));
      st = ps == CORDON_PROFILE_NOMEM ? CORDON_SANDBOX_NOMEM : CORDON_SANDBOX_INVALID_REQUEST;
    }
    for (size_t i = 0; st == CORDON_SANDBOX_OK && i < res.count; i++) {
      const cordon_resolved_entry *e = &res.items[i];
      sb_roots *into = e->access == CORDON_ACCESS_DENY ? &denies : e->access == CORDON_ACCESS_WRITE ? &writes : &reads;
      const char *prefix = e->access == CORDON_ACCESS_DENY    ? "DENIED_PATH"
                           : e->access == CORDON_ACCESS_WRITE ? "WRITABLE_ROOT"
                                                              : "READABLE_ROOT";
      st = roots_add(into, prefix, e->path, e->match, darwin, msg);
    }
    /* macOS runs anything readable (10-system-runtime.sb allows process-exec unfiltered); on Linux running
     * is a right of its own (Landlock's EXECUTE), so the profile's roots grant it with reading. */
    for (size_t i = 0; i < reads.count; i++)
      allow_root(&b, darwin ? "file-read*" : "file-read* process-exec", &reads.items[i], &denies,
                 "A readable root of the profile.");
    for (size_t i = 0; i < writes.count; i++)
      allow_root(&b, darwin ? "file-read* file-write*" : "file-read* file-write* process-exec", &writes.items[i],
                 &denies, "A writable root of the profile (write implies read).");
    if (st == CORDON_SANDBOX_OK) st = protect_metadata(&b, p, &writes, write_ops, msg);
    sb_roots *all[] = {&reads, &writes, &denies};
    for (size_t k = 0; k < 3; k++)
      for (size_t i = 0; st == CORDON_SANDBOX_OK && i < all[k]->count; i++)
        if (!cordon_params_add(params, all[k]->items[i].param, all[k]->items[i].path)) st = CORDON_SANDBOX_NOMEM;
    /* after the roots' parameters, which keep their places; no rule is written in between */
    if (st == CORDON_SANDBOX_OK) st = protect_paths(&b, p, ctx, &res, darwin, write_ops, params);
    for (size_t k = 0; k < 3; k++) roots_free(all[k]);
    cordon_resolved_free(&res);
    free(write_ops);
  }
  network_rules(&b, net);
  if (st == CORDON_SANDBOX_OK && b.oom) st = CORDON_SANDBOX_NOMEM;
  if (st == CORDON_SANDBOX_NOMEM && !msg->len) cordon_buf_puts(msg, "out of memory building the Seatbelt policy");
  return st;
}

cordon_sandbox_status cordon_seatbelt_build(const cordon_profile *p, const cordon_profile_ctx *ctx, bool base,
                                            cordon_policy *out, cordon_params *params, cordon_buf *msg) {
  cordon_seatbelt_options opts = {base, "darwin"};
  return cordon_seatbelt_build_with(p, ctx, &opts, out, params, msg);
}

cordon_sandbox_status cordon_seatbelt_policy_with(const cordon_profile *p, const cordon_profile_ctx *ctx,
                                                  const cordon_seatbelt_options *opts, cordon_buf *text,
                                                  cordon_params *params, cordon_buf *msg) {
  cordon_policy *pol = cordon_policy_new();
  if (!pol) return CORDON_SANDBOX_NOMEM;
  bool base = opts && opts->base;
  cordon_sandbox_status st = cordon_seatbelt_build_with(p, ctx, opts, pol, params, msg);
  if (st == CORDON_SANDBOX_OK) {
    cordon_sbpl_write_error err;
    cordon_sbpl_write_status ws = cordon_sbpl_write_policy(pol, base, text, &err);
    if (ws != CORDON_SBPL_WRITE_OK) {
      cordon_buf_printf(msg, "cannot write the Seatbelt policy: rule %zu: %s", err.rule + 1, err.message);
      st = ws == CORDON_SBPL_WRITE_NOMEM ? CORDON_SANDBOX_NOMEM : CORDON_SANDBOX_INVALID_REQUEST;
    }
  }
  cordon_policy_free(pol);
  return st;
}

cordon_sandbox_status cordon_seatbelt_policy(const cordon_profile *p, const cordon_profile_ctx *ctx, bool base,
                                             cordon_buf *text, cordon_params *params, cordon_buf *msg) {
  cordon_seatbelt_options opts = {base, "darwin"};
  return cordon_seatbelt_policy_with(p, ctx, &opts, text, params, msg);
}

cordon_sandbox_status cordon_seatbelt_wrap(const char *helper, const char *policy, const cordon_params *params,
                                           const char *const *argv, size_t argc, char ***out, size_t *out_argc,
                                           cordon_buf *msg) {
  *out = NULL;
  *out_argc = 0;
  size_t np = params ? params->count : 0;
  for (size_t i = 0; i < np; i++) {
    const cordon_param *pa = &params->items[i];
    size_t off;
    cordon_sbpl_write_status ws = cordon_sbpl_check_string(pa->value, strlen(pa->value), &off);
    if (!cordon_sbpl_param_name_ok(pa->name)) {
      cordon_buf_printf(msg, "bad -D parameter name '%s'", pa->name);
      return CORDON_SANDBOX_INVALID_REQUEST;
    }
    if (ws != CORDON_SBPL_WRITE_OK && ws != CORDON_SBPL_WRITE_TOO_LONG) {
      cordon_buf_printf(msg, "-D parameter %s: value refused (%s at byte %zu)", pa->name,
                        cordon_sbpl_write_status_name(ws), off);
      return CORDON_SANDBOX_INVALID_REQUEST;
    }
  }
  size_t n = 3 + np + 1 + argc;
  char **v = calloc(n + 1, sizeof *v);
  if (!v) return CORDON_SANDBOX_NOMEM;
  size_t k = 0;
  bool ok = (v[k++] = strdup(helper)) && (v[k++] = strdup("-p")) && (v[k++] = strdup(policy));
  for (size_t i = 0; ok && i < np; i++) {
    cordon_buf d = CORDON_BUF_INIT;
    cordon_buf_printf(&d, "-D%s=%s", params->items[i].name, params->items[i].value);
    ok = (v[k++] = cordon_buf_take(&d)) != NULL;
  }
  ok = ok && (v[k++] = strdup("--"));
  for (size_t i = 0; ok && i < argc; i++) ok = (v[k++] = strdup(argv[i])) != NULL;
  if (!ok) {
    for (size_t i = 0; i < n; i++) free(v[i]);
    free(v);
    return CORDON_SANDBOX_NOMEM;
  }
  *out = v;
  *out_argc = n;
  return CORDON_SANDBOX_OK;
}

/* Fails closed: without the helper at its fixed path there is no sandbox, so there is no command. */
static bool helper_present(const char *helper) {
  struct stat st;
  return stat(helper, &st) == 0 && S_ISREG(st.st_mode) && access(helper, X_OK) == 0;
}

static cordon_sandbox_status seatbelt_transform(const cordon_backend *self, const cordon_sandbox_command *cmd,
                                                cordon_exec_request *out, cordon_buf *msg) {
  const char *helper = self->data ? (const char *)self->data : CORDON_SEATBELT_HELPER;
  if (cordon_profile_kind_of(cmd->profile) != CORDON_PROFILE_MANAGED) {
    cordon_buf_printf(msg, "a %s profile is not enforced by a cordon sandbox (it has no rules to apply)",
                      cordon_profile_kind_name(cordon_profile_kind_of(cmd->profile)));
    return CORDON_SANDBOX_INVALID_REQUEST;
  }
  cordon_sandbox_status st = CORDON_SANDBOX_OK;
  if (cmd->policy_text) {
    if (!(out->policy = strdup(cmd->policy_text))) return CORDON_SANDBOX_NOMEM;
    for (size_t i = 0; cmd->policy_params && i < cmd->policy_params->count; i++)
      if (!cordon_params_add(&out->params, cmd->policy_params->items[i].name, cmd->policy_params->items[i].value))
        return CORDON_SANDBOX_NOMEM;
  } else {
    cordon_buf text = CORDON_BUF_INIT;
    st = cordon_seatbelt_policy(cmd->profile, cmd->ctx, true, &text, &out->params, msg);
    out->policy = cordon_buf_take(&text);
    if (st == CORDON_SANDBOX_OK && !out->policy) st = CORDON_SANDBOX_NOMEM;
    if (st != CORDON_SANDBOX_OK) return st;
  }
  if (!helper_present(helper)) {
    cordon_buf_printf(msg, "%s is not available on this system; cordon applies Seatbelt only through that fixed "
                           "path and does not run the command without it", helper);
    return CORDON_SANDBOX_BACKEND_NOT_AVAILABLE;
  }
  st = cordon_seatbelt_wrap(helper, out->policy, &out->params, cmd->argv, cmd->argc, &out->argv, &out->argc, msg);
  if (st != CORDON_SANDBOX_OK) return st;
  out->sandbox_type = self->sandbox_type;
  out->backend = self;
  return CORDON_SANDBOX_OK;
}

void cordon_seatbelt_backend_init(cordon_backend *b, const char *helper_path) {
  memset(b, 0, sizeof *b);
  b->name = "macos-seatbelt";
  b->platform = "darwin";
  b->sandbox_type = "macos-seatbelt";
  b->transform = seatbelt_transform;
  b->exec = NULL;  /* the wrapped argv is an ordinary execve of the fixed helper */
  b->data = (void *)helper_path;
}

const cordon_backend *cordon_seatbelt_backend(void) {
  static const cordon_backend backend = {
    .name = "macos-seatbelt",
    .platform = "darwin",
    .sandbox_type = "macos-seatbelt",
    .transform = seatbelt_transform,
    .exec = NULL,
    .data = NULL,
  };
  return &backend;
}
