/* src/core/boundary_json.c — the stored form of a boundary, through jansson */
#include "core/boundary_impl.h"

#include "core/path.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define BOUNDARY_JSON_VERSION 1

/* ---- encode ---------------------------------------------------------------------------------------- */

/* JSON strings are UTF-8; a path that is not cannot be stored (jansson would refuse it anyway). */
static bool utf8_ok(const unsigned char *s) {
  while (*s) {
    int n = *s < 0x80 ? 0 : (*s & 0xe0) == 0xc0 ? 1 : (*s & 0xf0) == 0xe0 ? 2 : (*s & 0xf8) == 0xf0 ? 3 : -1;
    if (n < 0 || (n == 1 && *s < 0xc2)) return false;
    s++;
    while (n-- > 0)
      if ((*s++ & 0xc0) != 0x80) return false;
  }
  return true;
}

/* 0 on success, 1 when out of memory, 2 when `v` is not UTF-8 (bits, so they can be or-ed). */
static int set_str(json_t *o, const char *k, const char *v) {
  if (!v) return 0;
  if (!utf8_ok((const unsigned char *)v)) return 2;
  return json_object_set_new(o, k, json_string(v)) ? 1 : 0;
}

static json_t *profile_json(const cordon_profile *p, int *flags) {
  json_t *o = json_object();
  if (!o) return (*flags |= 1), NULL;
  int bad = set_str(o, "kind", cordon_profile_kind_name(cordon_profile_kind_of(p)));
  bad |= set_str(o, "name", cordon_profile_name(p));
  if (cordon_profile_kind_of(p) == CORDON_PROFILE_MANAGED) {
    bad |= set_str(o, "network", cordon_network_name(cordon_profile_network(p)));
    /* Each set_new steals its value (also on failure, also NULL), so nothing leaks on the way out. */
    json_t *fs = json_object(), *entries = NULL, *names = NULL;
    if (json_object_set_new(o, "filesystem", fs) ||
        json_object_set_new(fs, "kind", json_string(cordon_fs_kind_name(cordon_profile_fs_kind(p)))) ||
        json_object_set_new(fs, "entries", entries = json_array()) ||
        json_object_set_new(fs, "protected_metadata", names = json_array())) {
      *flags |= 1;
      json_decref(o);
      return NULL;
    }
    for (size_t i = 0; !bad && i < cordon_profile_entry_count(p); i++) {
      const cordon_profile_entry *e = cordon_profile_entry_at(p, i);
      json_t *je = json_object();
      if (!je || json_array_append_new(entries, je)) {
        bad |= 1;
        break;
      }
      bad |= e->path ? set_str(je, "path", e->path) : set_str(je, "special", cordon_special_name(e->special));
      bad |= set_str(je, "access", cordon_access_name(e->access));
      bad |= set_str(je, "match", cordon_entry_match_name(e->match));
    }
    for (size_t i = 0; !bad && i < cordon_profile_protected_count(p); i++) {
      const char *name = cordon_profile_protected_at(p, i);
      bad |= utf8_ok((const unsigned char *)name) ? (json_array_append_new(names, json_string(name)) ? 1 : 0) : 2;
    }
  }
  if (bad) {
    *flags |= bad;
    json_decref(o);
    return NULL;
  }
  return o;
}

cordon_boundary_status cordon_boundary_encode(const cordon_boundary *b, cordon_buf *out) {
  json_t *o = json_object(), *ctx = json_object(), *roots = json_array();
  int bad = !o || !ctx || !roots;
  if (!bad) {
    bad |= json_object_set_new(o, "version", json_integer(BOUNDARY_JSON_VERSION)) ? 1 : 0;
    bad |= set_str(o, "kind", cordon_boundary_kind_name(b->kind));
    bad |= set_str(o, "mode", b->mode);
    bad |= json_object_set_new(o, "revision", json_integer((json_int_t)b->revision)) ? 1 : 0;
    bad |= set_str(ctx, "cwd", b->cwd);
    for (size_t i = 0; i < b->n_roots; i++)
      bad |= utf8_ok((const unsigned char *)b->roots[i]) ? (json_array_append_new(roots, json_string(b->roots[i])) ? 1 : 0) : 2;
    bad |= json_object_set(ctx, "workspace_roots", roots) ? 1 : 0;
    bad |= set_str(ctx, "tmpdir", b->tmpdir);
    bad |= set_str(ctx, "home", b->home);
    bad |= set_str(ctx, "slash_tmp", b->slash_tmp);
    bad |= json_object_set(o, "context", ctx) ? 1 : 0;
    json_t *pj = profile_json(b->profile, &bad);
    if (pj) bad |= json_object_set_new(o, "profile", pj) ? 1 : 0;
  }
  char *text = bad ? NULL : json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
  json_decref(roots);
  json_decref(ctx);
  json_decref(o);
  if (bad & 2) return CORDON_BOUNDARY_INVALID_PATH;  /* a path that is not UTF-8 */
  if (!text) return CORDON_BOUNDARY_NOMEM;
  cordon_buf_puts(out, text);
  free(text);
  return out->oom ? CORDON_BOUNDARY_NOMEM : CORDON_BOUNDARY_OK;
}

/* ---- decode ---------------------------------------------------------------------------------------- */

typedef struct {
  cordon_buf *err;
  cordon_boundary_status st;
} dec;

static bool fail(dec *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(dec *d, const char *fmt, ...) {
  if (d->st != CORDON_BOUNDARY_OK) return false;  /* keep the first message */
  va_list ap;
  va_start(ap, fmt);
  cordon_buf_vprintf(d->err, fmt, ap);
  va_end(ap);
  d->st = CORDON_BOUNDARY_INVALID_JSON;
  return false;
}

static bool only_keys(dec *d, json_t *o, const char *where, const char *const *allowed) {
  const char *k;
  json_t *v;
  json_object_foreach(o, k, v) {
    bool ok = false;
    for (size_t i = 0; allowed[i] && !ok; i++) ok = strcmp(allowed[i], k) == 0;
    if (!ok) return fail(d, "%s: unknown key '%s'", where, k);
  }
  return true;
}

/* Reads an optional string member; a present non-string is an error. */
static bool opt_str(dec *d, json_t *o, const char *key, const char *where, const char **out) {
  json_t *v = json_object_get(o, key);
  *out = NULL;
  if (!v) return true;
  if (!json_is_string(v)) return fail(d, "%s.%s: expected a string", where, key);
  *out = json_string_value(v);
  return true;
}

static bool req_enum(dec *d, json_t *o, const char *key, const char *where, int (*parse)(const char *),
                     const char *choices, int *out) {
  const char *s;
  if (!opt_str(d, o, key, where, &s)) return false;
  if (!s) return fail(d, "%s.%s: missing (expected %s)", where, key, choices);
  if ((*out = parse(s)) < 0) return fail(d, "%s.%s: expected %s, got \"%s\"", where, key, choices, s);
  return true;
}

static bool decode_entry(dec *d, cordon_profile *p, json_t *je, size_t i) {
  char where[64];
  snprintf(where, sizeof where, "profile.filesystem.entries[%zu]", i);
  if (!json_is_object(je)) return fail(d, "%s: expected an object", where);
  static const char *const keys[] = {"path", "special", "access", "match", NULL};
  if (!only_keys(d, je, where, keys)) return false;
  const char *path, *special;
  int access, match, sp = CORDON_SPECIAL_NONE;
  if (!opt_str(d, je, "path", where, &path) || !opt_str(d, je, "special", where, &special)) return false;
  if (!req_enum(d, je, "access", where, cordon_access_parse, "read|write|deny", &access)) return false;
  if (!req_enum(d, je, "match", where, cordon_entry_match_parse, "exact|subtree", &match)) return false;
  if ((path == NULL) == (special == NULL)) return fail(d, "%s: give exactly one of path and special", where);
  if (special && (sp = cordon_special_parse(special)) < 0)
    return fail(d, "%s.special: unknown special \"%s\"", where, special);
  cordon_profile_entry e = {path, (cordon_special)sp, (cordon_access)access, (cordon_entry_match)match};
  cordon_profile_status st = cordon_profile_add_entry(p, &e);
  if (st == CORDON_PROFILE_NOMEM) return (d->st = CORDON_BOUNDARY_NOMEM), false;
  if (st != CORDON_PROFILE_OK) return fail(d, "%s.path: \"%s\" is not a normalized absolute path or ~/path", where, path);
  return true;
}

static bool decode_fs(dec *d, cordon_profile *p, json_t *fs) {
  const char *where = "profile.filesystem";
  if (!json_is_object(fs)) return fail(d, "%s: expected an object", where);
  static const char *const keys[] = {"kind", "entries", "protected_metadata", NULL};
  if (!only_keys(d, fs, where, keys)) return false;
  int kind;
  if (!req_enum(d, fs, "kind", where, cordon_fs_kind_parse, "restricted|unrestricted", &kind)) return false;
  cordon_profile_set_fs_kind(p, (cordon_fs_kind)kind);
  json_t *entries = json_object_get(fs, "entries"), *names = json_object_get(fs, "protected_metadata");
  if (entries && !json_is_array(entries)) return fail(d, "%s.entries: expected an array", where);
  if (names && !json_is_array(names)) return fail(d, "%s.protected_metadata: expected an array", where);
  size_t i;
  json_t *v;
  json_array_foreach(entries, i, v) if (!decode_entry(d, p, v, i + 1)) return false;
  if (names) cordon_profile_clear_protected(p);
  json_array_foreach(names, i, v) {
    cordon_profile_status st = json_is_string(v) ? cordon_profile_add_protected(p, json_string_value(v)) : CORDON_PROFILE_INVALID_NAME;
    if (st == CORDON_PROFILE_NOMEM) return (d->st = CORDON_BOUNDARY_NOMEM), false;
    if (st != CORDON_PROFILE_OK) return fail(d, "%s.protected_metadata[%zu]: expected one path segment", where, i + 1);
  }
  return true;
}

static cordon_profile *decode_profile(dec *d, json_t *pj) {
  if (!json_is_object(pj)) return fail(d, "profile: expected an object"), NULL;
  static const char *const keys[] = {"kind", "name", "network", "filesystem", NULL};
  int kind, net = CORDON_NETWORK_RESTRICTED;
  const char *name;
  if (!only_keys(d, pj, "profile", keys) || !opt_str(d, pj, "name", "profile", &name) ||
      !req_enum(d, pj, "kind", "profile", cordon_profile_kind_parse, "managed|disabled|external", &kind))
    return NULL;
  json_t *fs = json_object_get(pj, "filesystem");
  bool managed = kind == CORDON_PROFILE_MANAGED;
  if (!managed && (fs || json_object_get(pj, "network")))
    return fail(d, "profile: only a managed profile has filesystem or network settings"), NULL;
  if (managed && !req_enum(d, pj, "network", "profile", cordon_network_parse, "restricted|enabled", &net)) return NULL;
  if (managed && !fs) return fail(d, "profile.filesystem: missing"), NULL;
  cordon_profile *p = cordon_profile_new((cordon_profile_kind)kind);
  if (!p || cordon_profile_set_name(p, name) != CORDON_PROFILE_OK) {
    d->st = CORDON_BOUNDARY_NOMEM;
    cordon_profile_free(p);
    return NULL;
  }
  if (managed) cordon_profile_set_network(p, (cordon_network)net);
  if (managed && !decode_fs(d, p, fs)) {
    cordon_profile_free(p);
    return NULL;
  }
  return p;
}

static bool ctx_path(dec *d, json_t *o, const char *key, const char **out) {
  if (!opt_str(d, o, key, "context", out)) return false;
  char norm[CORDON_PATH_MAX + 1];
  if (*out && (cordon_path_normalize(*out, norm, sizeof norm) != CORDON_PATH_OK || strcmp(norm, *out) != 0))
    return fail(d, "context.%s: \"%s\" is not a normalized absolute path", key, *out);
  return true;
}

static bool decode_ctx(dec *d, json_t *cj, cordon_profile_ctx *ctx, const char **roots) {
  memset(ctx, 0, sizeof *ctx);
  ctx->workspace_roots = roots;
  if (!cj) return true;
  if (!json_is_object(cj)) return fail(d, "context: expected an object");
  static const char *const keys[] = {"cwd", "workspace_roots", "tmpdir", "home", "slash_tmp", NULL};
  if (!only_keys(d, cj, "context", keys) || !ctx_path(d, cj, "cwd", &ctx->cwd) ||
      !ctx_path(d, cj, "tmpdir", &ctx->tmpdir) || !ctx_path(d, cj, "home", &ctx->home) ||
      !ctx_path(d, cj, "slash_tmp", &ctx->slash_tmp))
    return false;
  json_t *rj = json_object_get(cj, "workspace_roots");
  if (!rj) return true;
  if (!json_is_array(rj)) return fail(d, "context.workspace_roots: expected an array");
  if (json_array_size(rj) > CORDON_BOUNDARY_MAX_ROOTS)
    return fail(d, "context.workspace_roots: %zu roots, at most %d", json_array_size(rj), CORDON_BOUNDARY_MAX_ROOTS);
  size_t i;
  json_t *v;
  json_array_foreach(rj, i, v) {
    char norm[CORDON_PATH_MAX + 1];
    const char *s = json_is_string(v) ? json_string_value(v) : NULL;
    if (!s || cordon_path_normalize(s, norm, sizeof norm) != CORDON_PATH_OK || strcmp(norm, s) != 0)
      return fail(d, "context.workspace_roots[%zu]: expected a normalized absolute path", i + 1);
    roots[ctx->n_workspace_roots++] = s;
  }
  return true;
}

cordon_boundary_status cordon_boundary_decode(const char *json, size_t n, cordon_boundary **out, cordon_buf *err) {
  *out = NULL;
  dec d = {err, CORDON_BOUNDARY_OK};
  if (n > CORDON_BOUNDARY_JSON_MAX) {
    cordon_buf_printf(err, "boundary JSON is %zu bytes; at most %u", n, CORDON_BOUNDARY_JSON_MAX);
    return CORDON_BOUNDARY_TOO_LARGE;
  }
  json_error_t je;
  json_t *o = json_loadb(json, n, JSON_REJECT_DUPLICATES, &je);
  if (!o) {
    fail(&d, "line %d column %d: %s", je.line, je.column, je.text);
    return d.st;
  }
  static const char *const keys[] = {"version", "kind", "mode", "revision", "context", "profile", NULL};
  const char *mode = NULL;
  int kind = 0;
  json_t *ver = json_object_get(o, "version"), *rev = json_object_get(o, "revision");
  cordon_profile *p = NULL;
  cordon_profile_ctx ctx;
  const char *roots[CORDON_BOUNDARY_MAX_ROOTS];
  if (!json_is_object(o)) fail(&d, "top level: expected an object");
  else if (only_keys(&d, o, "top level", keys) && opt_str(&d, o, "mode", "top level", &mode)) {
    if (!json_is_integer(ver) || json_integer_value(ver) != BOUNDARY_JSON_VERSION)
      fail(&d, "version: expected %d", BOUNDARY_JSON_VERSION);
    else if (!json_is_integer(rev) || json_integer_value(rev) < 0)
      fail(&d, "revision: expected an integer >= 0");
    else if (req_enum(&d, o, "kind", "top level", cordon_boundary_kind_parse, "managed|bypass|external", &kind) &&
             !json_object_get(o, "profile"))
      fail(&d, "profile: missing");
    else if (d.st == CORDON_BOUNDARY_OK && (p = decode_profile(&d, json_object_get(o, "profile"))) &&
             decode_ctx(&d, json_object_get(o, "context"), &ctx, roots)) {
      cordon_boundary_kind implied = cordon_boundary_kind_for(p);
      if ((int)implied != kind)
        fail(&d, "kind: \"%s\" does not match its profile, which makes it \"%s\"", cordon_boundary_kind_name((cordon_boundary_kind)kind),
             cordon_boundary_kind_name(implied));
      else
        d.st = cordon_boundary_build(mode, p, &ctx, (uint64_t)json_integer_value(rev), out);
    }
  }
  if (d.st == CORDON_BOUNDARY_INVALID_CONTEXT) cordon_buf_puts(err, "context: invalid path");
  cordon_profile_free(p);
  json_decref(o);
  return d.st;
}
