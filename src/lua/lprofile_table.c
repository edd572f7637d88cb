/* src/lua/lprofile_table.c — the Lua table form of a permission profile, both ways, strictly checked */
#include "lua/lprofile.h"
#include "lua/lutil.h"

#include <string.h>

typedef struct {
  lua_State *L;
  cordon_buf *err;
  const char *code;
} conv;

/* t[key] without metamethods: a table's __index must not run in the middle of a conversion. */
static int rawfield(lua_State *L, int idx, const char *key) {
  lua_pushstring(L, key);
  return lua_rawget(L, idx);
}

static bool bad(conv *c, const char *code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool bad(conv *c, const char *code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  cordon_buf_vprintf(c->err, fmt, ap);
  va_end(ap);
  c->code = code;
  return false;
}

/* Fails on any string key of the table at `idx` not in `allowed` (NULL-terminated) and on non-string
 * keys; `where` prefixes the message. */
static bool only_keys(conv *c, int idx, const char *where, const char *const *allowed) {
  lua_State *L = c->L;
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pop(L, 1);
    if (lua_type(L, -1) != LUA_TSTRING) {
      bool r = bad(c, "invalid_profile", "%s%sunexpected %s key", where, *where ? ": " : "", luaL_typename(L, -1));
      lua_pop(L, 1);
      return r;
    }
    const char *k = cordon_lua_tostring(L, -1);
    bool ok = false;
    for (size_t i = 0; allowed[i] && !ok; i++) ok = strcmp(allowed[i], k) == 0;
    if (!ok) {
      bool r = bad(c, "invalid_profile", "%s%sunknown key '%s'", where, *where ? ": " : "", k);
      lua_pop(L, 1);
      return r;
    }
  }
  return true;
}

/* Reads t[key] (t at idx) as one of `choices` via `parse`; absent gives `dflt` (-1: required). */
static bool enum_field(conv *c, int idx, const char *key, const char *where, int (*parse)(const char *),
                       const char *choices, int dflt, int *out) {
  lua_State *L = c->L;
  int t = rawfield(L, idx, key);
  if (t == LUA_TNIL) {
    lua_pop(L, 1);
    if (dflt < 0) return bad(c, "invalid_profile", "%s%s: missing (expected %s)", where, key, choices);
    *out = dflt;
    return true;
  }
  const char *s = t == LUA_TSTRING ? cordon_lua_tostring(L, -1) : NULL;
  int v = s ? parse(s) : -1;
  if (v < 0) {
    bool r = s ? bad(c, "invalid_profile", "%s%s: expected %s, got \"%s\"", where, key, choices, s)
               : bad(c, "invalid_profile", "%s%s: expected %s, got a %s", where, key, choices, luaL_typename(L, -1));
    lua_pop(L, 1);
    return r;
  }
  lua_pop(L, 1);
  *out = v;
  return true;
}

static bool is_list(lua_State *L, int idx) {
  lua_Integer n = (lua_Integer)lua_rawlen(L, idx), count = 0;
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pop(L, 1);
    count++;
    if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1 || lua_tointeger(L, -1) > n) {
      lua_pop(L, 1);
      return false;
    }
  }
  return count == n;
}

static bool entry(conv *c, cordon_profile *p, int idx, lua_Integer i) {
  lua_State *L = c->L;
  char where[64];
  snprintf(where, sizeof where, "filesystem.entries[%lld].", (long long)i);
  if (!lua_istable(L, idx)) return bad(c, "invalid_profile", "filesystem.entries[%lld]: expected a table", (long long)i);
  static const char *const keys[] = {"path", "special", "access", "match", NULL};
  char w[64];
  snprintf(w, sizeof w, "filesystem.entries[%lld]", (long long)i);
  if (!only_keys(c, idx, w, keys)) return false;
  cordon_profile_entry e = {NULL, CORDON_SPECIAL_NONE, CORDON_ACCESS_READ, CORDON_ENTRY_SUBTREE};
  int access, match, special = CORDON_SPECIAL_NONE;
  if (!enum_field(c, idx, "access", where, cordon_access_parse, "read|write|deny", -1, &access)) return false;
  if (!enum_field(c, idx, "match", where, cordon_entry_match_parse, "exact|subtree", CORDON_ENTRY_SUBTREE, &match))
    return false;
  int tp = rawfield(L, idx, "path");
  int ts = rawfield(L, idx, "special");
  bool ok = true;
  if ((tp == LUA_TNIL) == (ts == LUA_TNIL)) {
    ok = bad(c, "invalid_profile", "%s: give exactly one of path and special", w);
  } else if (tp != LUA_TNIL) {
    if (tp != LUA_TSTRING) ok = bad(c, "invalid_profile", "%spath: expected a string", where);
    else e.path = cordon_lua_tostring(L, -2);
  } else {
    const char *s = ts == LUA_TSTRING ? cordon_lua_tostring(L, -1) : "";
    special = cordon_special_parse(s);
    if (special < 0)
      ok = bad(c, "invalid_profile", "%sspecial: expected :root|:workspace_roots|:tmpdir|:slash_tmp|:minimal, got \"%s\"",
               where, s);
  }
  if (ok) {
    e.special = (cordon_special)special;
    e.access = (cordon_access)access;
    e.match = (cordon_entry_match)match;
    cordon_profile_status st = cordon_profile_add_entry(p, &e);
    if (st == CORDON_PROFILE_NOMEM) ok = bad(c, "nomem", "out of memory");
    else if (st != CORDON_PROFILE_OK)
      ok = bad(c, "invalid_profile", "%spath: \"%s\" is not a normalized absolute path or ~/path (no ..)", where, e.path);
  }
  lua_pop(L, 2);
  return ok;
}

static bool filesystem(conv *c, cordon_profile *p, int idx) {
  lua_State *L = c->L;
  static const char *const keys[] = {"kind", "entries", "protected_metadata", NULL};
  if (!only_keys(c, idx, "filesystem", keys)) return false;
  int kind;
  if (!enum_field(c, idx, "kind", "filesystem.", cordon_fs_kind_parse, "restricted|unrestricted", CORDON_FS_RESTRICTED, &kind))
    return false;
  cordon_profile_set_fs_kind(p, (cordon_fs_kind)kind);
  bool ok = true;
  int t = rawfield(L, idx, "entries");
  int e = lua_gettop(L);
  if (t != LUA_TNIL && (t != LUA_TTABLE || !is_list(L, e)))
    ok = bad(c, "invalid_profile", "filesystem.entries: expected a list of entries");
  else if (t != LUA_TNIL && kind == CORDON_FS_UNRESTRICTED && lua_rawlen(L, e) > 0)
    ok = bad(c, "invalid_profile", "filesystem.entries: an unrestricted filesystem takes no entries");
  for (lua_Integer i = 1; ok && t == LUA_TTABLE && i <= (lua_Integer)lua_rawlen(L, e); i++) {
    lua_rawgeti(L, e, i);
    ok = entry(c, p, lua_gettop(L), i);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  if (!ok) return false;
  t = rawfield(L, idx, "protected_metadata");
  int m = lua_gettop(L);
  if (t != LUA_TNIL) {
    if (t != LUA_TTABLE || !is_list(L, m)) ok = bad(c, "invalid_profile", "filesystem.protected_metadata: expected a list of names");
    else cordon_profile_clear_protected(p);
    for (lua_Integer i = 1; ok && i <= (lua_Integer)lua_rawlen(L, m); i++) {
      lua_rawgeti(L, m, i);
      const char *name = lua_type(L, -1) == LUA_TSTRING ? cordon_lua_tostring(L, -1) : NULL;
      cordon_profile_status st = name ? cordon_profile_add_protected(p, name) : CORDON_PROFILE_INVALID_NAME;
      if (st == CORDON_PROFILE_NOMEM) ok = bad(c, "nomem", "out of memory");
      else if (st != CORDON_PROFILE_OK)
        ok = bad(c, "invalid_profile", "filesystem.protected_metadata[%lld]: expected one path segment such as \".git\"",
                 (long long)i);
      lua_pop(L, 1);
    }
  }
  lua_pop(L, 1);
  return ok;
}

static void free_profile(void *p) { cordon_profile_free(p); }

/* The conversion proper; the profile under construction sits in a guard (cordon_lua_guard, on the stack
 * top when this runs) so that a Lua error half-way (out of memory) frees it instead of leaking it. */
static cordon_profile *from_table(lua_State *L, int idx, void **guard, cordon_buf *err, const char **code) {
  conv c = {L, err, "invalid_profile"};
  *code = "invalid_profile";
  if (!lua_istable(L, idx)) {
    bad(&c, "invalid_profile", "expected a profile table, got a %s", luaL_typename(L, idx));
    return NULL;
  }
  static const char *const keys[] = {"kind", "name", "filesystem", "network", NULL};
  if (!only_keys(&c, idx, "", keys)) {
    *code = c.code;
    return NULL;
  }
  int kind;
  if (!enum_field(&c, idx, "kind", "", cordon_profile_kind_parse, "managed|disabled|external", CORDON_PROFILE_MANAGED, &kind)) {
    *code = c.code;
    return NULL;
  }
  cordon_profile *p = *guard = cordon_profile_new((cordon_profile_kind)kind);
  if (!p) {
    *code = "nomem";
    cordon_buf_puts(err, "out of memory");
    return NULL;
  }
  bool ok = true;
  int t = rawfield(L, idx, "name");
  if (t == LUA_TSTRING) {
    if (cordon_profile_set_name(p, cordon_lua_tostring(L, -1)) != CORDON_PROFILE_OK) ok = bad(&c, "nomem", "out of memory");
  } else if (t != LUA_TNIL) {
    ok = bad(&c, "invalid_profile", "name: expected a string");
  }
  lua_pop(L, 1);
  bool has_fs = rawfield(L, idx, "filesystem") != LUA_TNIL;
  bool has_net = rawfield(L, idx, "network") != LUA_TNIL;
  lua_pop(L, 2);
  if (ok && kind != CORDON_PROFILE_MANAGED && (has_fs || has_net))
    ok = bad(&c, "invalid_profile", "%s: only a managed profile has filesystem or network settings", has_fs ? "filesystem" : "network");
  if (ok && kind == CORDON_PROFILE_MANAGED) {
    int net;
    ok = enum_field(&c, idx, "network", "", cordon_network_parse, "restricted|enabled", CORDON_NETWORK_RESTRICTED, &net);
    if (ok) cordon_profile_set_network(p, (cordon_network)net);
    t = rawfield(L, idx, "filesystem");
    if (ok && t != LUA_TNIL && t != LUA_TTABLE) ok = bad(&c, "invalid_profile", "filesystem: expected a table");
    else if (ok && t == LUA_TTABLE) ok = filesystem(&c, p, lua_gettop(L));
    lua_pop(L, 1);
  }
  if (!ok) {
    *code = c.code;
    return NULL;  /* the guard frees it */
  }
  return p;
}

cordon_profile *cordon_lua_profile_from_table(lua_State *L, int idx, cordon_buf *err, const char **code) {
  idx = lua_absindex(L, idx);
  void **guard = cordon_lua_guard(L, free_profile);
  cordon_profile *p = from_table(L, idx, guard, err, code);
  if (p) *guard = NULL;  /* handed to the caller */
  else cordon_lua_guard_free(guard);
  lua_pop(L, 1);
  return p;
}


void cordon_lua_push_profile_table(lua_State *L, const cordon_profile *p) {
  lua_newtable(L);
  lua_pushstring(L, cordon_profile_kind_name(cordon_profile_kind_of(p)));
  lua_setfield(L, -2, "kind");
  if (cordon_profile_name(p)) {
    lua_pushstring(L, cordon_profile_name(p));
    lua_setfield(L, -2, "name");
  }
  if (cordon_profile_kind_of(p) != CORDON_PROFILE_MANAGED) return;
  lua_pushstring(L, cordon_network_name(cordon_profile_network(p)));
  lua_setfield(L, -2, "network");
  lua_newtable(L);
  lua_pushstring(L, cordon_fs_kind_name(cordon_profile_fs_kind(p)));
  lua_setfield(L, -2, "kind");
  lua_createtable(L, (int)cordon_profile_entry_count(p), 0);
  for (size_t i = 0; i < cordon_profile_entry_count(p); i++) {
    const cordon_profile_entry *e = cordon_profile_entry_at(p, i);
    lua_createtable(L, 0, 3);
    if (e->path) lua_pushstring(L, e->path);
    else lua_pushstring(L, cordon_special_name(e->special));
    lua_setfield(L, -2, e->path ? "path" : "special");
    lua_pushstring(L, cordon_access_name(e->access));
    lua_setfield(L, -2, "access");
    lua_pushstring(L, cordon_entry_match_name(e->match));
    lua_setfield(L, -2, "match");
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lua_setfield(L, -2, "entries");
  lua_createtable(L, (int)cordon_profile_protected_count(p), 0);
  for (size_t i = 0; i < cordon_profile_protected_count(p); i++) {
    lua_pushstring(L, cordon_profile_protected_at(p, i));
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lua_setfield(L, -2, "protected_metadata");
  lua_setfield(L, -2, "filesystem");
}
