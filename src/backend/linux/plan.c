/* src/backend/linux/plan.c — the plan's storage, its text description and its JSON form. */
#include "backend/linux/plan.h"

#include "backend/linux/limits.h"
#include "backend/linux/seccomp.h"

#include "core/record.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

static bool grow(void **items, size_t *cap, size_t need, size_t size) {
  if (need <= *cap) return true;
  size_t n = *cap ? *cap * 2 : 16;
  while (n < need) n *= 2;
  void *p = realloc(*items, n * size);
  if (!p) return false;
  *items = p;
  *cap = n;
  return true;
}

static char *dup_or_empty(const char *s) { return strdup(s ? s : ""); }

cordon_lx_plan *cordon_lx_plan_new(void) {
  cordon_lx_plan *p = calloc(1, sizeof *p);
  if (p) p->min_abi = 3;
  return p;
}

static void free_notes(cordon_lx_note *n, size_t count) {
  for (size_t i = 0; i < count; i++) {
    free(n[i].source);
    free(n[i].message);
  }
  free(n);
}

void cordon_lx_plan_free(cordon_lx_plan *p) {
  if (!p) return;
  free(p->seccomp_bpf);
  cordon_lx_plan_free_gate(p);
  for (size_t i = 0; i < p->nrules; i++) {
    free(p->rules[i].path);
    free(p->rules[i].source);
  }
  free(p->rules);
  for (size_t i = 0; i < p->nmounts; i++) {
    free(p->mounts[i].path);
    free(p->mounts[i].source);
    free(p->mounts[i].reason);
  }
  free(p->mounts);
  free_notes(p->notes, p->nnotes);
  free_notes(p->skipped, p->nskipped);
  for (size_t i = 0; i < p->nobs; i++) free(p->obs_paths[i]);
  free(p->obs_paths);
  free(p->obs_kinds);
  free(p);
}

bool cordon_lx_plan_add_rule(cordon_lx_plan *p, const char *path, unsigned access, bool is_dir, const char *source) {
  if (!grow((void **)&p->rules, &p->rules_cap, p->nrules + 1, sizeof *p->rules)) return false;
  cordon_lx_rule r = {dup_or_empty(path), access, is_dir, dup_or_empty(source)};
  if (!r.path || !r.source) {
    free(r.path);
    free(r.source);
    return false;
  }
  p->rules[p->nrules++] = r;
  return true;
}

bool cordon_lx_plan_add_mount(cordon_lx_plan *p, const cordon_mount *m) {
  if (!grow((void **)&p->mounts, &p->mounts_cap, p->nmounts + 1, sizeof *p->mounts)) return false;
  cordon_mount c = *m;
  c.path = dup_or_empty(m->path);
  c.source = dup_or_empty(m->source);
  c.reason = dup_or_empty(m->reason);
  if (!c.path || !c.source || !c.reason) {
    free(c.path);
    free(c.source);
    free(c.reason);
    return false;
  }
  p->mounts[p->nmounts++] = c;
  return true;
}

static bool add_note(cordon_lx_note **items, size_t *n, size_t *cap, const char *source, char *message) {
  if (!message || !grow((void **)items, cap, *n + 1, sizeof **items)) {
    free(message);
    return false;
  }
  char *s = dup_or_empty(source);
  if (!s) {
    free(message);
    return false;
  }
  (*items)[(*n)++] = (cordon_lx_note){s, message};
  return true;
}

bool cordon_lx_plan_note(cordon_lx_plan *p, const char *source, const char *fmt, ...) {
  cordon_buf b = CORDON_BUF_INIT;
  va_list ap;
  va_start(ap, fmt);
  cordon_buf_vprintf(&b, fmt, ap);
  va_end(ap);
  return add_note(&p->notes, &p->nnotes, &p->notes_cap, source, cordon_buf_take(&b));
}

bool cordon_lx_plan_skip(cordon_lx_plan *p, const char *source, const char *path) {
  return add_note(&p->skipped, &p->nskipped, &p->skipped_cap, source, dup_or_empty(path));
}

static bool map_one(char **src, const char *text_name, const char *const *names, const unsigned *lines, size_t n) {
  size_t tl = strlen(text_name);
  unsigned line, col;
  if (strncmp(*src, text_name, tl) != 0 || (*src)[tl] != ':' || sscanf(*src + tl + 1, "%u:%u", &line, &col) != 2)
    return true;
  size_t best = n;
  for (size_t i = 0; i < n; i++)
    if (lines[i] < line && (best == n || lines[i] >= lines[best])) best = i;
  if (best == n) return true;
  cordon_buf b = CORDON_BUF_INIT;
  cordon_buf_printf(&b, "%s:%u:%u", names[best], line - lines[best], col);
  char *s = cordon_buf_take(&b);
  if (!s) return false;
  free(*src);
  *src = s;
  return true;
}

bool cordon_lx_plan_map_sources(cordon_lx_plan *p, const char *text_name, const char *const *names,
                                const unsigned *lines, size_t n) {
  bool ok = true;
  for (size_t i = 0; ok && i < p->nrules; i++) ok = map_one(&p->rules[i].source, text_name, names, lines, n);
  for (size_t i = 0; ok && i < p->nmounts; i++) ok = map_one(&p->mounts[i].source, text_name, names, lines, n);
  for (size_t i = 0; ok && i < p->nnotes; i++) ok = map_one(&p->notes[i].source, text_name, names, lines, n);
  for (size_t i = 0; ok && i < p->nskipped; i++) ok = map_one(&p->skipped[i].source, text_name, names, lines, n);
  for (size_t i = 0; ok && i < p->ngrules; i++) ok = map_one(&p->grules[i].source, text_name, names, lines, n);
  return ok;
}

char cordon_lx_stat_kind(int rc, int err, const struct stat *st, bool follow) {
  char k;
  if (rc != 0) k = (err == ENOENT || err == ENOTDIR) ? (follow ? '-' : '_') : (follow ? 'e' : 'E');
  else if (S_ISDIR(st->st_mode)) k = follow ? 'd' : 'D';
  else if (S_ISSOCK(st->st_mode)) k = follow ? 's' : 'S';
  else if (S_ISLNK(st->st_mode)) k = 'L';
  else k = follow ? 'f' : 'F';
  return k;
}

bool cordon_lx_plan_observe(cordon_lx_plan *p, const char *path, char kind) {
  if (!p->record) return false;
  if (p->nobs == p->obs_cap) {
    size_t n = p->obs_cap ? p->obs_cap * 2 : 64;
    char **paths = realloc(p->obs_paths, n * sizeof *paths);
    if (paths) p->obs_paths = paths;
    char *kinds = paths ? realloc(p->obs_kinds, n) : NULL;
    if (kinds) p->obs_kinds = kinds, p->obs_cap = n;
  }
  char *copy = p->nobs < p->obs_cap ? strdup(path) : NULL;
  if (!copy) {
    p->record = false;  /* out of memory: this plan will not be cached */
    return false;
  }
  p->obs_paths[p->nobs] = copy;
  p->obs_kinds[p->nobs++] = kind;
  return true;
}

int cordon_lx_plan_stat(cordon_lx_plan *p, const char *path, bool follow, struct stat *st) {
  int rc = cordon_record_stat(path, follow, st);  /* a live placeholder of another run counts as missing */
  int err = errno;
  if (p->record) (void)cordon_lx_plan_observe(p, path, cordon_lx_stat_kind(rc, err, st, follow));
  errno = err;
  return rc;
}

static const char *const class_names[] = {"read", "write", "create", "remove", "exec", "list"};

void cordon_lx_access_names(unsigned access, cordon_buf *out) {
  bool any = false;
  for (unsigned i = 0; i < 6; i++) {
    if (!(access & (1u << i))) continue;
    if (any) cordon_buf_putc(out, ',');
    cordon_buf_puts(out, class_names[i]);
    any = true;
  }
  if (!any) cordon_buf_puts(out, "none");
}

static const char *const kind_names[] = {"bind", "hide", "tmpfs", "view", "proc", "dev"};

const char *cordon_mount_kind_name(cordon_mount_kind k) {
  return (unsigned)k <= CORDON_MOUNT_KIND_LAST ? kind_names[k] : "?";
}

/* The kind for its name, or -1. */
static int mount_kind_from(const char *name) {
  for (int k = 0; name && k <= CORDON_MOUNT_KIND_LAST; k++)
    if (strcmp(name, kind_names[k]) == 0) return k;
  return -1;
}

static void mount_flags(const cordon_mount *m, cordon_buf *out) {
  switch (m->kind) {
  case CORDON_MOUNT_HIDE: cordon_buf_puts(out, m->is_dir ? "empty read-only tmpfs" : "/dev/null"); break;
  case CORDON_MOUNT_TMPFS: cordon_buf_puts(out, "fresh tmpfs"); break;
  case CORDON_MOUNT_VIEW: cordon_buf_puts(out, "stubs of its entries"); break;
  case CORDON_MOUNT_PROC: cordon_buf_puts(out, "procfs of the run"); break;
  case CORDON_MOUNT_DEV: cordon_buf_puts(out, "tmpfs with devices and a new devpts"); break;
  case CORDON_MOUNT_BIND:
    cordon_buf_printf(out, "bind %s%s", m->read_only ? "read-only" : "writable", m->no_exec ? " noexec" : "");
    break;
  }
}

void cordon_lx_plan_describe(const cordon_lx_plan *p, cordon_buf *out) {
  cordon_buf_printf(out, "landlock: ABI >= %u%s\n", p->best_effort ? 1u : p->min_abi,
                    p->best_effort ? " (best effort: missing rights are reported, not enforced)" : "");
  if (p->fs_unrestricted) {
    cordon_buf_puts(out, "filesystem: unrestricted (no Landlock filesystem rules)\n");
  } else {
    cordon_buf_printf(out, "filesystem: %zu Landlock rule%s\n", p->nrules, p->nrules == 1 ? "" : "s");
    for (size_t i = 0; i < p->nrules; i++) {
      const cordon_lx_rule *r = &p->rules[i];
      cordon_buf tmp = CORDON_BUF_INIT;
      cordon_lx_access_names(r->access, &tmp);
      const char *acc = cordon_buf_str(&tmp);
      cordon_buf_printf(out, "  allow %-26s %s%s  (%s)\n", acc ? acc : "", r->path,
                        r->is_dir && strcmp(r->path, "/") != 0 ? "/" : "", r->source);
      cordon_buf_free(&tmp);
    }
  }
  cordon_buf_printf(out, "mounts: %zu\n", p->nmounts);
  for (size_t i = 0; i < p->nmounts; i++) {
    const cordon_mount *m = &p->mounts[i];
    cordon_buf_printf(out, "  %-5s %s: ", cordon_mount_kind_name(m->kind), m->path);
    mount_flags(m, out);
    cordon_buf_printf(out, " — %s (%s)\n", m->reason, m->source);
  }
  if (p->network_restricted)
    cordon_buf_puts(out, "network: restricted — seccomp allows only AF_UNIX sockets and denies io_uring;"
                         " Landlock denies TCP bind/connect (ABI >= 4)\n");
  else
    cordon_buf_puts(out, "network: enabled (no network filter)\n");
  cordon_lx_seccomp_describe(p, out);
  if (p->scope_signals || p->scope_abstract_unix)
    cordon_buf_printf(out, "scoping (ABI >= 6): %s%s%s limited to the sandbox\n", p->scope_signals ? "signals" : "",
                      p->scope_signals && p->scope_abstract_unix ? " and " : "",
                      p->scope_abstract_unix ? "abstract unix sockets" : "");
  if (!p->fs_unrestricted) {
    if (p->shared_tmp)
      cordon_buf_puts(out, "tmp: --shared-tmp: the host's /tmp and /dev/shm (the host's files there, and the unix "
                           "sockets of tmux, X11, ssh-agent and language servers under /tmp, are in the view; the gate "
                           "still refuses connecting to them)\n");
    else
      cordon_buf_puts(out, "tmp: the run's own /tmp and /dev/shm, empty at start; from the host while it runs: "
                           "/proc/<pid of cordon>/root/tmp and .../root/dev/shm\n");
    cordon_lx_plan_describe_gate(p, out);
  }
  cordon_buf_puts(out, "process: a PID namespace of its own (cordon waits outside and relays signals; init, pid 1, "
                       "serves the gate; the command is pid 2); no_new_privs, every capability dropped, Landlock last; "
                       "a fresh session keyring; descriptors above 2 closed but those passed\n");
  cordon_buf_puts(out, "limits: ");
  cordon_lx_limits_describe(&p->limits, out);
  cordon_buf_putc(out, '\n');
  if (p->npass_fds) {
    cordon_buf_puts(out, "pass-fd:");
    for (size_t i = 0; i < p->npass_fds; i++) cordon_buf_printf(out, " %d", p->pass_fds[i]);
    cordon_buf_putc(out, '\n');
  }
  for (size_t i = 0; i < p->nnotes; i++)
    cordon_buf_printf(out, "approximation: %s (%s)\n", p->notes[i].message, p->notes[i].source);
  for (size_t i = 0; i < p->nskipped; i++)
    cordon_buf_printf(out, "skipped (does not exist): %s (%s)\n", p->skipped[i].message, p->skipped[i].source);
}

static json_t *access_array(unsigned access) {
  json_t *a = json_array();
  for (unsigned i = 0; a && i < 6; i++)
    if (access & (1u << i)) json_array_append_new(a, json_string(class_names[i]));
  return a;
}

void *cordon_lx_plan_to_jsonv(const cordon_lx_plan *p) {
  json_t *root = json_object(), *rules = json_array(), *mounts = json_array(), *notes = json_array(),
         *skipped = json_array();
  if (!root || !rules || !mounts || !notes || !skipped) {
    json_decref(root), json_decref(rules), json_decref(mounts), json_decref(notes), json_decref(skipped);
    return NULL;
  }
  for (size_t i = 0; i < p->nrules; i++) {
    const cordon_lx_rule *r = &p->rules[i];
    json_array_append_new(rules, json_pack("{s:s, s:o, s:b, s:s}", "path", r->path, "access",
                                           access_array(r->access), "directory", r->is_dir, "source", r->source));
  }
  for (size_t i = 0; i < p->nmounts; i++) {
    const cordon_mount *m = &p->mounts[i];
    json_array_append_new(mounts, json_pack("{s:s, s:s, s:b, s:b, s:b, s:s, s:s}", "kind",
                                            cordon_mount_kind_name(m->kind), "path", m->path, "directory",
                                            m->is_dir, "read_only", m->read_only, "no_exec", m->no_exec,
                                            "source", m->source, "reason", m->reason));
  }
  for (size_t i = 0; i < p->nnotes; i++)
    json_array_append_new(notes, json_pack("{s:s, s:s}", "source", p->notes[i].source, "message", p->notes[i].message));
  for (size_t i = 0; i < p->nskipped; i++)
    json_array_append_new(skipped, json_pack("{s:s, s:s}", "source", p->skipped[i].source, "path", p->skipped[i].message));
  json_object_set_new(root, "min_abi", json_integer(p->best_effort ? 1 : p->min_abi));
  json_object_set_new(root, "best_effort", json_boolean(p->best_effort));
  json_object_set_new(root, "filesystem", json_string(p->fs_unrestricted ? "unrestricted" : "restricted"));
  json_object_set_new(root, "landlock_rules", rules);
  json_object_set_new(root, "mounts", mounts);
  json_object_set_new(root, "network", json_string(p->network_restricted ? "restricted" : "enabled"));
  json_object_set_new(root, "scope_signals", json_boolean(p->scope_signals));
  json_object_set_new(root, "scope_abstract_unix", json_boolean(p->scope_abstract_unix));
  json_object_set_new(root, "shared_tmp", json_boolean(p->shared_tmp));
  json_object_set_new(root, "gate", cordon_lx_plan_gate_to_jsonv(p));
  json_object_set_new(root, "approximations", notes);
  json_object_set_new(root, "skipped", skipped);
  return root;
}

char *cordon_lx_plan_to_json(const cordon_lx_plan *p) {
  json_t *root = cordon_lx_plan_to_jsonv(p);
  if (!root) return NULL;
  char *s = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER);
  json_decref(root);
  return s;
}

static unsigned access_from(const json_t *a) {
  unsigned out = 0;
  size_t i;
  const json_t *v;
  json_array_foreach(a, i, v) {
    for (unsigned k = 0; k < 6; k++)
      if (json_is_string(v) && strcmp(json_string_value(v), class_names[k]) == 0) out |= 1u << k;
  }
  return out;
}

static const char *str(const json_t *o, const char *k) {
  const json_t *v = json_object_get(o, k);
  return json_is_string(v) ? json_string_value(v) : NULL;
}

static bool flag(const json_t *o, const char *k) { return json_is_true(json_object_get(o, k)); }

cordon_lx_plan *cordon_lx_plan_from_jsonv(const void *json) {
  const json_t *root = json;
  const json_t *rules = json_object_get(root, "landlock_rules"), *mounts = json_object_get(root, "mounts"),
               *notes = json_object_get(root, "approximations"), *skipped = json_object_get(root, "skipped");
  if (!json_is_object(root) || !json_is_array(rules) || !json_is_array(mounts) || !json_is_array(notes) ||
      !json_is_array(skipped) || !str(root, "network") || !str(root, "filesystem"))
    return NULL;
  cordon_lx_plan *p = cordon_lx_plan_new();
  if (!p) return NULL;
  json_int_t abi = json_integer_value(json_object_get(root, "min_abi"));
  p->min_abi = abi > 0 && abi < 64 ? (unsigned)abi : 3;
  p->best_effort = flag(root, "best_effort");
  p->fs_unrestricted = strcmp(str(root, "filesystem"), "unrestricted") == 0;
  p->network_restricted = strcmp(str(root, "network"), "restricted") == 0;
  p->scope_signals = flag(root, "scope_signals");
  p->scope_abstract_unix = flag(root, "scope_abstract_unix");
  p->shared_tmp = flag(root, "shared_tmp");
  bool ok = true;
  size_t i;
  const json_t *v;
  json_array_foreach(rules, i, v) {
    const char *path = str(v, "path"), *source = str(v, "source");
    ok = ok && path && source && path[0] == '/' &&
         cordon_lx_plan_add_rule(p, path, access_from(json_object_get(v, "access")), flag(v, "directory"), source);
  }
  json_array_foreach(mounts, i, v) {
    const char *kind = str(v, "kind"), *path = str(v, "path");
    cordon_mount m = {.path = (char *)path, .is_dir = flag(v, "directory"), .read_only = flag(v, "read_only"),
                      .no_exec = flag(v, "no_exec"), .source = (char *)str(v, "source"),
                      .reason = (char *)str(v, "reason")};
    int k = mount_kind_from(kind);
    if (k < 0 || !path || path[0] != '/') ok = false;
    else m.kind = (cordon_mount_kind)k;
    ok = ok && cordon_lx_plan_add_mount(p, &m);
  }
  const json_t *gate = json_object_get(root, "gate");
  ok = ok && (!gate || cordon_lx_plan_gate_from_jsonv(p, gate));
  json_array_foreach(notes, i, v) ok = ok && cordon_lx_plan_note(p, str(v, "source"), "%s", str(v, "message") ? str(v, "message") : "");
  json_array_foreach(skipped, i, v) ok = ok && str(v, "path") && cordon_lx_plan_skip(p, str(v, "source"), str(v, "path"));
  if (!ok) {
    cordon_lx_plan_free(p);
    return NULL;
  }
  return p;
}
