/* src/core/profile.c — permission profiles: construction, accessors, names, description. */
#include "core/profile_impl.h"

#include <stdlib.h>
#include <string.h>

const char *cordon_profile_status_name(cordon_profile_status s) {
  switch (s) {
    case CORDON_PROFILE_OK: return "ok";
    case CORDON_PROFILE_NOMEM: return "nomem";
    case CORDON_PROFILE_INVALID_PATH: return "invalid_path";
    case CORDON_PROFILE_INVALID_ENTRY: return "invalid_entry";
    case CORDON_PROFILE_INVALID_NAME: return "invalid_name";
    case CORDON_PROFILE_UNKNOWN_PROFILE: return "unknown_profile";
    case CORDON_PROFILE_NOT_MANAGED: return "not_managed";
  }
  return "unknown";
}

static const char *const kind_names[] = {"managed", "disabled", "external", NULL};
static const char *const fs_names[] = {"restricted", "unrestricted", NULL};
static const char *const net_names[] = {"restricted", "enabled", NULL};
static const char *const access_names[] = {"read", "write", "deny", NULL};
static const char *const match_names[] = {"exact", "subtree", NULL};
static const char *const special_names[] = {"", ":root", ":workspace_roots", ":tmpdir", ":slash_tmp", ":minimal", NULL};

static const char *name_at(const char *const *names, int n, int i) {
  return i >= 0 && i < n ? names[i] : "unknown";
}

static int parse_in(const char *const *names, const char *s, int first) {
  if (!s) return -1;
  for (int i = first; names[i]; i++)
    if (strcmp(names[i], s) == 0) return i;
  return -1;
}

const char *cordon_profile_kind_name(cordon_profile_kind k) { return name_at(kind_names, 3, (int)k); }
const char *cordon_fs_kind_name(cordon_fs_kind k) { return name_at(fs_names, 2, (int)k); }
const char *cordon_network_name(cordon_network n) { return name_at(net_names, 2, (int)n); }
const char *cordon_access_name(cordon_access a) { return name_at(access_names, 3, (int)a); }
const char *cordon_entry_match_name(cordon_entry_match m) { return name_at(match_names, 2, (int)m); }
const char *cordon_special_name(cordon_special s) { return name_at(special_names, 6, (int)s); }
int cordon_profile_kind_parse(const char *s) { return parse_in(kind_names, s, 0); }
int cordon_fs_kind_parse(const char *s) { return parse_in(fs_names, s, 0); }
int cordon_network_parse(const char *s) { return parse_in(net_names, s, 0); }
int cordon_access_parse(const char *s) { return parse_in(access_names, s, 0); }
int cordon_entry_match_parse(const char *s) { return parse_in(match_names, s, 0); }
int cordon_special_parse(const char *s) { return parse_in(special_names, s, 1); }

cordon_profile *cordon_profile_new(cordon_profile_kind kind) {
  if ((int)kind < 0 || kind > CORDON_PROFILE_EXTERNAL) return NULL;
  cordon_profile *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->kind = kind;
  p->fs = CORDON_FS_RESTRICTED;
  p->net = CORDON_NETWORK_RESTRICTED;
  if (kind == CORDON_PROFILE_MANAGED) {
    const cordon_std_lists *std = cordon_std_lists_get();
    if (!std) {  /* without the defaults a managed profile would protect nothing */
      cordon_profile_free(p);
      return NULL;
    }
    for (size_t i = 0; std->protected_entries[i]; i++) {
      if (cordon_profile_add_protected(p, std->protected_entries[i]) != CORDON_PROFILE_OK) {
        cordon_profile_free(p);
        return NULL;
      }
    }
  }
  return p;
}

void cordon_profile_free(cordon_profile *p) {
  if (!p) return;
  for (size_t i = 0; i < p->n_entries; i++) free((char *)p->entries[i].path);
  free(p->entries);
  for (size_t i = 0; i < p->n_protected; i++) free(p->protected_names[i]);
  free(p->protected_names);
  free(p->name);
  free(p);
}

cordon_profile *cordon_profile_copy(const cordon_profile *p) {
  if (!p) return NULL;
  cordon_profile *c = cordon_profile_new(p->kind);
  if (!c) return NULL;
  c->fs = p->fs;
  c->net = p->net;
  bool ok = cordon_profile_set_name(c, p->name) == CORDON_PROFILE_OK;
  cordon_profile_clear_protected(c);
  for (size_t i = 0; ok && i < p->n_protected; i++)
    ok = cordon_profile_add_protected(c, p->protected_names[i]) == CORDON_PROFILE_OK;
  for (size_t i = 0; ok && i < p->n_entries; i++)
    ok = cordon_profile_add_entry(c, &p->entries[i]) == CORDON_PROFILE_OK;
  if (!ok) {
    cordon_profile_free(c);
    return NULL;
  }
  return c;
}

cordon_profile_status cordon_profile_set_name(cordon_profile *p, const char *name) {
  char *copy = NULL;
  if (name && !(copy = strdup(name))) return CORDON_PROFILE_NOMEM;
  free(p->name);
  p->name = copy;
  return CORDON_PROFILE_OK;
}

const char *cordon_profile_name(const cordon_profile *p) { return p->name; }
cordon_profile_kind cordon_profile_kind_of(const cordon_profile *p) { return p->kind; }
cordon_fs_kind cordon_profile_fs_kind(const cordon_profile *p) { return p->fs; }
cordon_network cordon_profile_network(const cordon_profile *p) { return p->net; }

cordon_profile_status cordon_profile_set_fs_kind(cordon_profile *p, cordon_fs_kind k) {
  if (p->kind != CORDON_PROFILE_MANAGED) return CORDON_PROFILE_NOT_MANAGED;
  if ((int)k < 0 || k > CORDON_FS_UNRESTRICTED) return CORDON_PROFILE_INVALID_ENTRY;
  p->fs = k;
  return CORDON_PROFILE_OK;
}

cordon_profile_status cordon_profile_set_network(cordon_profile *p, cordon_network n) {
  if (p->kind != CORDON_PROFILE_MANAGED) return CORDON_PROFILE_NOT_MANAGED;
  if ((int)n < 0 || n > CORDON_NETWORK_ENABLED) return CORDON_PROFILE_INVALID_ENTRY;
  p->net = n;
  return CORDON_PROFILE_OK;
}

/* An entry path is absolute, or "~/…" (kept as written, normalized after the "~"). */
static cordon_profile_status normalize_entry_path(const char *in, char *out, size_t cap) {
  if (in[0] == '~') {
    if (in[1] != '\0' && in[1] != '/') return CORDON_PROFILE_INVALID_PATH;
    char tmp[CORDON_PATH_MAX + 1];
    const char *rest = in[1] ? in + 1 : "/";
    if (cordon_path_normalize(rest, tmp, sizeof tmp) != CORDON_PATH_OK) return CORDON_PROFILE_INVALID_PATH;
    size_t n = strlen(tmp);
    if (strcmp(tmp, "/") == 0) n = 0;  /* "~/" is home itself: "~" */
    if (n + 2 > cap) return CORDON_PROFILE_INVALID_PATH;
    out[0] = '~';
    memcpy(out + 1, tmp, n + 1);
    if (n == 0) out[1] = '\0';
    return CORDON_PROFILE_OK;
  }
  return cordon_path_normalize(in, out, cap) == CORDON_PATH_OK ? CORDON_PROFILE_OK : CORDON_PROFILE_INVALID_PATH;
}

cordon_profile_status cordon_profile_add_entry(cordon_profile *p, const cordon_profile_entry *e) {
  if (p->kind != CORDON_PROFILE_MANAGED) return CORDON_PROFILE_NOT_MANAGED;
  if ((e->path == NULL) == (e->special == CORDON_SPECIAL_NONE)) return CORDON_PROFILE_INVALID_ENTRY;
  if ((int)e->special < 0 || e->special > CORDON_SPECIAL_MINIMAL) return CORDON_PROFILE_INVALID_ENTRY;
  if ((int)e->access < 0 || e->access > CORDON_ACCESS_DENY) return CORDON_PROFILE_INVALID_ENTRY;
  if ((int)e->match < 0 || e->match > CORDON_ENTRY_SUBTREE) return CORDON_PROFILE_INVALID_ENTRY;
  char *copy = NULL;
  if (e->path) {
    char norm[CORDON_PATH_MAX + 2];
    cordon_profile_status st = normalize_entry_path(e->path, norm, sizeof norm);
    if (st != CORDON_PROFILE_OK) return st;
    if (!(copy = strdup(norm))) return CORDON_PROFILE_NOMEM;
  }
  if (p->n_entries == p->cap_entries) {
    size_t cap = p->cap_entries ? p->cap_entries * 2 : 8;
    cordon_profile_entry *grown = realloc(p->entries, cap * sizeof *grown);
    if (!grown) {
      free(copy);
      return CORDON_PROFILE_NOMEM;
    }
    p->entries = grown;
    p->cap_entries = cap;
  }
  p->entries[p->n_entries] = *e;
  p->entries[p->n_entries].path = copy;
  p->n_entries++;
  return CORDON_PROFILE_OK;
}

size_t cordon_profile_entry_count(const cordon_profile *p) { return p->n_entries; }

const cordon_profile_entry *cordon_profile_entry_at(const cordon_profile *p, size_t i) {
  return i < p->n_entries ? &p->entries[i] : NULL;
}

void cordon_profile_clear_protected(cordon_profile *p) {
  for (size_t i = 0; i < p->n_protected; i++) free(p->protected_names[i]);
  p->n_protected = 0;
}

cordon_protected_form cordon_profile_protected_form(const char *entry) {
  if (entry[0] == '/') return CORDON_PROTECTED_IN_ROOTS;
  if (entry[0] == '~' && entry[1] == '/') return CORDON_PROTECTED_IN_HOME;
  return CORDON_PROTECTED_NAME;
}

/* A relative path of one or more segments, none empty, "." or "..": what follows "/" or "~/". */
static bool relative_segments_ok(const char *s, bool one) {
  size_t segments = 0;
  for (;;) {
    size_t n = strcspn(s, "/");
    if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.')) return false;
    segments++;
    if (!s[n]) break;
    s += n + 1;
  }
  return !one || segments == 1;
}

cordon_profile_status cordon_profile_add_protected(cordon_profile *p, const char *name) {
  if (!name || !*name) return CORDON_PROFILE_INVALID_NAME;
  for (const char *c = name; *c; c++)
    if ((unsigned char)*c < 0x20 || *c == 0x7f) return CORDON_PROFILE_INVALID_NAME;
  cordon_protected_form form = cordon_profile_protected_form(name);
  const char *rest = form == CORDON_PROTECTED_NAME ? name : name + (form == CORDON_PROTECTED_IN_HOME ? 2 : 1);
  if (!relative_segments_ok(rest, form == CORDON_PROTECTED_NAME)) return CORDON_PROFILE_INVALID_NAME;
  for (size_t i = 0; i < p->n_protected; i++)
    if (strcmp(p->protected_names[i], name) == 0) return CORDON_PROFILE_OK;
  if (p->n_protected == p->cap_protected) {
    size_t cap = p->cap_protected ? p->cap_protected * 2 : 8;
    char **grown = realloc(p->protected_names, cap * sizeof *grown);
    if (!grown) return CORDON_PROFILE_NOMEM;
    p->protected_names = grown;
    p->cap_protected = cap;
  }
  if (!(p->protected_names[p->n_protected] = strdup(name))) return CORDON_PROFILE_NOMEM;
  p->n_protected++;
  return CORDON_PROFILE_OK;
}

size_t cordon_profile_protected_count(const cordon_profile *p) { return p->n_protected; }

const char *cordon_profile_protected_at(const cordon_profile *p, size_t i) {
  return i < p->n_protected ? p->protected_names[i] : NULL;
}

bool cordon_profile_requires_sandbox(const cordon_profile *p) {
  return p && p->kind == CORDON_PROFILE_MANAGED &&
         (p->fs == CORDON_FS_RESTRICTED || p->net == CORDON_NETWORK_RESTRICTED);
}

void cordon_profile_describe(const cordon_profile *p, cordon_buf *out) {
  cordon_buf_printf(out, "profile %s: %s", p->name ? p->name : "(unnamed)", cordon_profile_kind_name(p->kind));
  if (p->kind != CORDON_PROFILE_MANAGED) {
    cordon_buf_puts(out, p->kind == CORDON_PROFILE_DISABLED ? " (no sandbox)\n"
                                                            : " (isolation supplied by the environment)\n");
    return;
  }
  cordon_buf_printf(out, "\n  filesystem: %s\n", cordon_fs_kind_name(p->fs));
  for (size_t i = 0; i < p->n_entries; i++) {
    const cordon_profile_entry *e = &p->entries[i];
    cordon_buf_printf(out, "    %-5s %-7s %s\n", cordon_access_name(e->access), cordon_entry_match_name(e->match),
                      e->path ? e->path : cordon_special_name(e->special));
  }
  cordon_buf_puts(out, "  protected metadata:");
  if (p->n_protected == 0) cordon_buf_puts(out, " (none)");
  for (size_t i = 0; i < p->n_protected; i++) cordon_buf_printf(out, " %s", p->protected_names[i]);
  cordon_buf_printf(out, "\n  network: %s\n", cordon_network_name(p->net));
}
