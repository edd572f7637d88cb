/* src/lua/lstandard.c — the standard lists for C, read once from the embedded lua/cordon/standard.lua */
#include "core/profile_impl.h"
#include "lua/embedded.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static cordon_std_lists lists;
static const cordon_std_lists *loaded;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* The string list at `idx` as a NULL-terminated copy; NULL on a wrong shape or out of memory. */
static const char **copy_list(lua_State *L, int idx) {
  if (!lua_istable(L, idx)) return NULL;
  size_t n = (size_t)lua_rawlen(L, idx);
  const char **out = calloc(n + 1, sizeof *out);
  for (size_t i = 0; out && i < n; i++) {
    size_t len;
    const char *s = lua_rawgeti(L, idx, (lua_Integer)i + 1) == LUA_TSTRING ? lua_tolstring(L, -1, &len) : NULL;
    char *c = s && strlen(s) == len ? malloc(len + 1) : NULL;
    lua_pop(L, 1);
    if (!c) {
      for (size_t k = 0; k < i; k++) free((char *)out[k]);
      free(out);
      return NULL;
    }
    memcpy(c, s, len + 1);
    out[i] = c;
  }
  return out;
}

static const char *field_string(lua_State *L, int idx, const char *key) {
  lua_getfield(L, idx, key);
  const char *s = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
  lua_pop(L, 1);  /* the string stays alive in the module's table */
  return s;
}

/* One shape ({filesystem, network, grants = {{special, access}…}}) at the top of the stack. */
static bool read_shape(lua_State *L, cordon_std_shape *out) {
  int t = lua_gettop(L);
  if (!lua_istable(L, t)) return false;
  int fs = cordon_fs_kind_parse(field_string(L, t, "filesystem"));
  int net = cordon_network_parse(field_string(L, t, "network"));
  if (fs < 0 || net < 0 || lua_getfield(L, t, "grants") != LUA_TTABLE) return false;
  size_t n = (size_t)lua_rawlen(L, -1);
  out->fs = (cordon_fs_kind)fs;
  out->net = (cordon_network)net;
  out->grants = calloc(n + 1, sizeof *out->grants);
  if (!out->grants) return false;
  for (size_t i = 0; i < n; i++) {
    lua_rawgeti(L, -1, (lua_Integer)i + 1);
    int g = lua_gettop(L);
    int sp = -1, ac = -1;
    if (lua_istable(L, g)) {
      lua_rawgeti(L, g, 1);
      lua_rawgeti(L, g, 2);
      sp = cordon_special_parse(lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL);
      ac = cordon_access_parse(lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL);
    }
    lua_settop(L, g - 1);
    if (sp < 0 || ac < 0) return false;
    out->grants[i] = (cordon_std_grant){(cordon_special)sp, (cordon_access)ac};
  }
  out->n_grants = n;
  lua_pop(L, 1);
  return true;
}

/* Runs the module and copies what C needs; false leaves `lists` partly filled (never published). */
static bool read_module(lua_State *L) {
  const cordon_embedded_file *f = cordon_embedded_lua;
  while (f->name && strcmp(f->name, "cordon.standard") != 0) f++;
  if (!f->name) return false;
  bool loaded_chunk = f->bytecode && luaL_loadbufferx(L, f->bytecode, f->bytecode_len, "@lua/cordon/standard.lua", "b") == LUA_OK;
  if (!loaded_chunk) {
    lua_settop(L, 0);
    if (luaL_loadbufferx(L, f->data, f->len, "@lua/cordon/standard.lua", "t") != LUA_OK) return false;
  }
  if (lua_pcall(L, 0, 1, 0) != LUA_OK || !lua_istable(L, -1)) return false;
  int m = lua_gettop(L);
  lua_getfield(L, m, "NAMES");
  lists.names = copy_list(L, -1);
  lua_getfield(L, m, "secrets");
  lists.secrets = copy_list(L, -1);
  lua_getfield(L, m, "minimal");
  lists.minimal = copy_list(L, -1);
  lua_getfield(L, m, "WRITE_OPS");
  lists.write_ops = copy_list(L, -1);
  lua_settop(L, m);
  if (lua_getfield(L, m, "protected") != LUA_TFUNCTION || lua_pcall(L, 0, 1, 0) != LUA_OK) return false;
  lists.protected_entries = copy_list(L, -1);
  lua_settop(L, m);
  if (!lists.names || !lists.secrets || !lists.minimal || !lists.protected_entries || !lists.write_ops) return false;
  size_t n = 0;
  while (lists.names[n]) n++;
  lists.shapes = calloc(n + 1, sizeof *lists.shapes);
  if (!lists.shapes || lua_getfield(L, m, "shapes") != LUA_TTABLE) return false;
  for (size_t i = 0; i < n; i++) {
    lua_getfield(L, m + 1, lists.names[i]);
    if (!read_shape(L, &lists.shapes[i])) return false;
    lua_settop(L, m + 1);
  }
  return true;
}

static void load(void) {
  lua_State *L = luaL_newstate();
  if (!L) return;
  luaL_requiref(L, "_G", luaopen_base, 1);
  lua_pop(L, 1);
  bool ok = read_module(L);
  lua_close(L);
  if (ok) loaded = &lists;
}

const cordon_std_lists *cordon_std_lists_get(void) {
  pthread_once(&once, load);
  return loaded;
}

const char *const *cordon_profile_std_list(cordon_std_list which) {
  static const char *const empty[] = {NULL};
  const cordon_std_lists *l = cordon_std_lists_get();
  if (!l) return empty;
  switch (which) {
    case CORDON_STD_NAMES: return l->names;
    case CORDON_STD_PROTECTED: return l->protected_entries;
    case CORDON_STD_SECRETS: return l->secrets;
    case CORDON_STD_MINIMAL: return l->minimal;
    case CORDON_STD_WRITE_OPS: return l->write_ops;
  }
  return empty;
}
