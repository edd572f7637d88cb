/* src/core/expansion_json.c — the stored form of an expansion (a session request), through jansson */
#include "core/boundary.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

cordon_boundary_status cordon_expansion_encode(const cordon_expansion *x, cordon_buf *out) {
  json_t *o = json_object(), *fs = json_array();
  bool bad = !o || !fs;
  if (!bad && x->network) bad = json_object_set_new(o, "network", json_true()) != 0;
  for (size_t i = 0; !bad && i < x->count; i++) {
    const cordon_expansion_entry *e = &x->entries[i];
    json_t *path = json_string(e->path);  /* NULL when the path is not UTF-8 */
    if (!path) {
      json_decref(fs);
      json_decref(o);
      return CORDON_BOUNDARY_INVALID_PATH;
    }
    json_t *je = json_pack("{s:o,s:s,s:s}", "path", path, "access", cordon_access_name(e->access), "scope",
                           cordon_entry_match_name(e->scope));
    bad = !je || json_array_append_new(fs, je) != 0;
  }
  if (!bad) bad = json_object_set(o, "filesystem", fs) != 0;
  char *text = bad ? NULL : json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
  json_decref(fs);
  json_decref(o);
  if (!text) return CORDON_BOUNDARY_NOMEM;
  cordon_buf_puts(out, text);
  free(text);
  return out->oom ? CORDON_BOUNDARY_NOMEM : CORDON_BOUNDARY_OK;
}

static cordon_boundary_status bad_json(cordon_buf *err, const char *what) {
  cordon_buf_printf(err, "stored expansion: %s", what);
  return CORDON_BOUNDARY_INVALID_JSON;
}

cordon_boundary_status cordon_expansion_decode(const char *json, size_t n, cordon_expansion *out, cordon_buf *err) {
  *out = (cordon_expansion)CORDON_EXPANSION_INIT;
  json_error_t je;
  json_t *o = json_loadb(json, n, JSON_REJECT_DUPLICATES, &je);
  if (!o) return bad_json(err, je.text);
  cordon_boundary_status st = CORDON_BOUNDARY_OK;
  json_t *net = json_object_get(o, "network"), *fs = json_object_get(o, "filesystem");
  if (!json_is_object(o) || json_object_size(o) != (size_t)(net != NULL) + (fs != NULL) || !json_is_array(fs) ||
      (net && !json_is_true(net)))
    st = bad_json(err, "expected {\"network\":true,\"filesystem\":[...]}");
  out->network = net != NULL;
  size_t i;
  json_t *e;
  json_array_foreach(st == CORDON_BOUNDARY_OK ? fs : NULL, i, e) {
    const char *path = NULL, *access = NULL, *scope = NULL;
    if (json_unpack(e, "{s:s,s:s,s:s !}", "path", &path, "access", &access, "scope", &scope) != 0) {
      st = bad_json(err, "an entry is not {path, access, scope}");
      break;
    }
    int a = cordon_access_parse(access), s = cordon_entry_match_parse(scope);
    st = a < 0 || s < 0 ? bad_json(err, "an entry's access or scope is unknown")
                        : cordon_expansion_add(out, path, (cordon_access)a, (cordon_entry_match)s);
    if (st != CORDON_BOUNDARY_OK) break;
  }
  if (st == CORDON_BOUNDARY_OK && out->count == 0 && !out->network) st = CORDON_BOUNDARY_EMPTY_EXPANSION;
  if (st != CORDON_BOUNDARY_OK) cordon_expansion_free(out);
  json_decref(o);
  return st;
}
