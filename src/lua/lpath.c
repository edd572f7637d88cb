/* src/lua/lpath.c — cordon.c.path: absolute paths (see src/core/path.h). Bad paths are runtime
 * failures (nil, "code: message", "code"); a non-string argument is misuse and raises. */
#include "core/path.h"
#include "lua/lutil.h"

#include <stdlib.h>
#include <string.h>

static int fail_path(lua_State *L, cordon_path_status st, const char *what, const char *in) {
  return cordon_lua_fail(L, cordon_path_status_name(st), "cannot %s \"%s\"", what, in);
}

/* normalize(p) -> string | nil, msg, code */
static int l_normalize(lua_State *L) {
  size_t n;
  const char *in = luaL_checklstring(L, 1, &n);
  char out[CORDON_PATH_MAX + 1];
  cordon_path_status st = cordon_path_normalize_n(in, n, out, sizeof out);
  if (st != CORDON_PATH_OK) return fail_path(L, st, "normalize", in);
  lua_pushstring(L, out);
  return 1;
}

/* within(root, p) -> boolean; both are normalized first and a bad one is simply not within. */
static int l_within(lua_State *L) {
  const char *root = cordon_lua_checkstring(L, 1), *p = cordon_lua_checkstring(L, 2);
  char r[CORDON_PATH_MAX + 1], q[CORDON_PATH_MAX + 1];
  bool ok = cordon_path_normalize(root, r, sizeof r) == CORDON_PATH_OK &&
            cordon_path_normalize(p, q, sizeof q) == CORDON_PATH_OK && cordon_path_within(r, q);
  lua_pushboolean(L, ok);
  return 1;
}

/* parent(p) -> string | nil for "/" */
static int l_parent(lua_State *L) {
  const char *in = cordon_lua_checkstring(L, 1);
  char norm[CORDON_PATH_MAX + 1], out[CORDON_PATH_MAX + 1];
  cordon_path_status st = cordon_path_normalize(in, norm, sizeof norm);
  if (st != CORDON_PATH_OK) return fail_path(L, st, "take the parent of", in);
  if (!cordon_path_parent(norm, out, sizeof out)) lua_pushnil(L);
  else lua_pushstring(L, out);
  return 1;
}

static void push_ancestor(const char *a, void *ud) {
  lua_State *L = ud;
  lua_pushstring(L, a);
  lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
}

/* ancestors(p) -> { "/", "/a", ... } (proper ancestors, root first) */
static int l_ancestors(lua_State *L) {
  const char *in = cordon_lua_checkstring(L, 1);
  char norm[CORDON_PATH_MAX + 1];
  cordon_path_status st = cordon_path_normalize(in, norm, sizeof norm);
  if (st != CORDON_PATH_OK) return fail_path(L, st, "list the ancestors of", in);
  lua_newtable(L);
  cordon_path_ancestors(norm, push_ancestor, L);
  return 1;
}

/* expand_home(p [, home]) -> string; home defaults to $HOME. */
static int l_expand_home(lua_State *L) {
  const char *in = cordon_lua_checkstring(L, 1);
  const char *home = cordon_lua_optstring(L, 2, getenv("HOME"));
  char out[CORDON_PATH_MAX + 1];
  cordon_path_status st = cordon_path_expand_home(in, home, out, sizeof out);
  if (st != CORDON_PATH_OK) return fail_path(L, st, "expand", in);
  lua_pushstring(L, out);
  return 1;
}

/* canonicalize(p) -> string: symlinks of the existing prefix resolved, the rest kept. */
static int l_canonicalize(lua_State *L) {
  const char *in = cordon_lua_checkstring(L, 1);
  char out[CORDON_PATH_MAX + 1];
  cordon_path_status st = cordon_path_canonicalize(in, out, sizeof out);
  if (st != CORDON_PATH_OK) return fail_path(L, st, "canonicalize", in);
  lua_pushstring(L, out);
  return 1;
}

/* join(base, rel) -> normalized base/rel; rel must not be absolute or contain "..". */
static int l_join(lua_State *L) {
  const char *base = cordon_lua_checkstring(L, 1), *rel = cordon_lua_checkstring(L, 2);
  if (rel[0] == '/') return cordon_lua_fail(L, "invalid_request", "cannot join absolute \"%s\" onto \"%s\"", rel, base);
  size_t bn = strlen(base), rn = strlen(rel);
  if (bn + rn + 1 > CORDON_PATH_MAX) return cordon_lua_fail(L, "too_long", "joined path is longer than %d bytes", CORDON_PATH_MAX);
  char joined[CORDON_PATH_MAX + 2], out[CORDON_PATH_MAX + 1];
  memcpy(joined, base, bn);
  joined[bn] = '/';
  memcpy(joined + bn + 1, rel, rn + 1);
  cordon_path_status st = cordon_path_normalize(joined, out, sizeof out);
  if (st != CORDON_PATH_OK) return fail_path(L, st, "join onto", base);
  lua_pushstring(L, out);
  return 1;
}

static const luaL_Reg path_funcs[] = {
    {"normalize", l_normalize},
    {"within", l_within},
    {"parent", l_parent},
    {"ancestors", l_ancestors},
    {"expand_home", l_expand_home},
    {"canonicalize", l_canonicalize},
    {"join", l_join},
    {NULL, NULL},
};

int cordon_open_path(lua_State *L) {
  luaL_newlib(L, path_funcs);
  lua_pushinteger(L, CORDON_PATH_MAX);
  lua_setfield(L, -2, "MAX");
  return 1;
}
