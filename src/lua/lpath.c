/* src/lua/lpath.c — cordon.c.path: absolute paths (see src/core/path.h) */
#include "core/exec_search.h"
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

/* `in` as the walking primitives need it: normalized into `buf`; or as given when only a control byte
 * stands in the way, because a file on disk may be named so (only policies refuse them); NULL for a
 * relative, ".."-holding or over-long path, with its status in *st. */
static const char *as_path(const char *in, char *buf, size_t cap, cordon_path_status *st) {
  *st = cordon_path_normalize(in, buf, cap);
  if (*st == CORDON_PATH_OK) return buf;
  if (*st == CORDON_PATH_CONTROL_CHAR && in[0] == '/' && strlen(in) < cap) return in;
  return NULL;
}

/* within(root, p) -> boolean; a relative, ".."-holding or over-long path is not within anything. */
static int l_within(lua_State *L) {
  const char *root = cordon_lua_checkstring(L, 1), *p = cordon_lua_checkstring(L, 2);
  char r[CORDON_PATH_MAX + 1], q[CORDON_PATH_MAX + 1];
  cordon_path_status st;
  const char *rr = as_path(root, r, sizeof r, &st), *qq = rr ? as_path(p, q, sizeof q, &st) : NULL;
  lua_pushboolean(L, rr && qq && cordon_path_within(rr, qq));
  return 1;
}

/* parent(p) -> string | nil for "/" */
static int l_parent(lua_State *L) {
  const char *in = cordon_lua_checkstring(L, 1);
  char norm[CORDON_PATH_MAX + 1], out[CORDON_PATH_MAX + 1];
  cordon_path_status st;
  const char *p = as_path(in, norm, sizeof norm, &st);
  if (!p) return fail_path(L, st, "take the parent of", in);
  if (!cordon_path_parent(p, out, sizeof out)) lua_pushnil(L);
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
  cordon_path_status st;
  const char *p = as_path(in, norm, sizeof norm, &st);
  if (!p) return fail_path(L, st, "list the ancestors of", in);
  lua_newtable(L);
  cordon_path_ancestors(p, push_ancestor, L);
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

/* join_lexical(dir, rel) -> string: rel read from the absolute dir with "." and ".." resolved as text
 * (git reads a relative gitdir or commondir so); an absolute rel stands alone. */
static int l_join_lexical(lua_State *L) {
  const char *dir = cordon_lua_checkstring(L, 1), *rel = cordon_lua_checkstring(L, 2);
  if (dir[0] != '/') return cordon_lua_fail(L, "relative", "cannot join onto relative \"%s\"", dir);
  char out[CORDON_PATH_MAX + 1];
  if (!cordon_path_join_lexical(dir, rel, out, sizeof out))
    return cordon_lua_fail(L, "too_long", "joined path is longer than %d bytes", CORDON_PATH_MAX);
  lua_pushstring(L, out);
  return 1;
}

static bool add_candidate(const char *candidate, void *ud) {
  lua_State *L = ud;
  lua_pushstring(L, candidate);
  lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
  return false;
}

/* search(name [, PATH]) -> { place… }: where exec looks for a bare name, in order (PATH nil: the default
 * one). The caller stats them (through cordon.c.sys, so the run cache sees what was looked at). */
static int l_search(lua_State *L) {
  const char *name = cordon_lua_checkstring(L, 1), *path = cordon_lua_optstring(L, 2, NULL);
  if (!*name || strchr(name, '/')) return cordon_lua_fail(L, "invalid_request", "not a bare command name: \"%s\"", name);
  lua_newtable(L);
  cordon_exec_search(path, name, add_candidate, L);
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
    {"join_lexical", l_join_lexical},
    {"search", l_search},
    {NULL, NULL},
};

int cordon_open_path(lua_State *L) {
  luaL_newlib(L, path_funcs);
  lua_pushinteger(L, CORDON_PATH_MAX);
  lua_setfield(L, -2, "MAX");
  return 1;
}
