/* src/lua/lsession.c — cordon.c.session: the SQLite session store as a cordon.SessionStore userdata.
 *
 *   local store = assert(require("cordon.c.session").open(path))
 *   local id = store:create(boundary, "/w")            -- boundary at revision 0
 *   local b, full_id = store:load(id)                  -- an id or a unique prefix
 *   store:save(id, b2, "grants write /data")           -- b2 must be at exactly revision + 1
 */
#include "core/session.h"
#include "lua/lboundary.h"
#include "lua/lutil.h"

#include <stdio.h>

#define STORE_T "cordon.SessionStore"

typedef struct {
  cordon_session_store *s;  /* NULL once closed */
  char path[4096];
} store_ud;

static cordon_session_store *check_store(lua_State *L, int idx) {
  store_ud *u = luaL_checkudata(L, idx, STORE_T);
  if (!u->s) luaL_error(L, "cordon.SessionStore used after it was closed");
  return u->s;
}

static int fail(lua_State *L, cordon_session_status st, cordon_buf *err) {
  const char *msg = cordon_buf_str(err);
  lua_pushstring(L, msg && *msg ? msg : cordon_session_status_name(st));
  cordon_buf_free(err);
  return cordon_lua_fail(L, cordon_session_status_name(st), "%s", lua_tostring(L, -1));
}

static int l_open(lua_State *L) {
  size_t n;
  const char *path = luaL_checklstring(L, 1, &n);
  store_ud *u = lua_newuserdatauv(L, sizeof *u, 0);
  u->s = NULL;
  luaL_setmetatable(L, STORE_T);
  if (n >= sizeof u->path) return cordon_lua_fail(L, "invalid", "database path is too long");
  cordon_buf err = CORDON_BUF_INIT;
  cordon_session_status st = cordon_session_open(path, &u->s, &err);
  if (st != CORDON_SESSION_OK) return fail(L, st, &err);
  cordon_buf_free(&err);
  snprintf(u->path, sizeof u->path, "%s", path);
  return 1;
}

static int s_create(lua_State *L) {
  cordon_session_store *s = check_store(L, 1);
  cordon_boundary *b = cordon_lua_checkboundary(L, 2);
  const char *workdir = cordon_lua_optstring(L, 3, NULL);
  char id[CORDON_SESSION_ID_LEN + 1];
  cordon_buf err = CORDON_BUF_INIT;
  cordon_session_status st = cordon_session_create(s, b, workdir, id, &err);
  if (st != CORDON_SESSION_OK) return fail(L, st, &err);
  cordon_buf_free(&err);
  lua_pushstring(L, id);
  return 1;
}

static int s_load(lua_State *L) {
  cordon_session_store *s = check_store(L, 1);
  const char *id = cordon_lua_checkstring(L, 2);
  char full[CORDON_SESSION_ID_LEN + 1];
  cordon_boundary *b;
  cordon_buf err = CORDON_BUF_INIT;
  cordon_session_status st = cordon_session_load(s, id, &b, full, &err);
  if (st != CORDON_SESSION_OK) return fail(L, st, &err);
  cordon_buf_free(&err);
  cordon_lua_pushboundary(L, b);
  lua_pushstring(L, full);
  return 2;
}

static int s_save(lua_State *L) {
  cordon_session_store *s = check_store(L, 1);
  const char *id = cordon_lua_checkstring(L, 2);
  cordon_boundary *b = cordon_lua_checkboundary(L, 3);
  const char *reason = cordon_lua_optstring(L, 4, NULL);
  cordon_buf err = CORDON_BUF_INIT;
  cordon_session_status st = cordon_session_save(s, id, b, reason, &err);
  if (st != CORDON_SESSION_OK) return fail(L, st, &err);
  cordon_buf_free(&err);
  lua_pushboolean(L, 1);
  return 1;
}

static void push_info(lua_State *L, const cordon_session_info *i) {
  lua_createtable(L, 0, 6);
  lua_pushstring(L, i->id);
  lua_setfield(L, -2, "id");
  lua_pushinteger(L, (lua_Integer)i->created_at);
  lua_setfield(L, -2, "created_at");
  lua_pushinteger(L, (lua_Integer)i->updated_at);
  lua_setfield(L, -2, "updated_at");
  if (i->workdir) {
    lua_pushstring(L, i->workdir);
    lua_setfield(L, -2, "workdir");
  }
  if (i->mode) {
    lua_pushstring(L, i->mode);
    lua_setfield(L, -2, "mode");
  }
  lua_pushinteger(L, (lua_Integer)i->revision);
  lua_setfield(L, -2, "revision");
}

static void list_one(const cordon_session_info *i, void *ud) {
  lua_State *L = ud;
  push_info(L, i);
  lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
}

static int s_list(lua_State *L) {
  cordon_session_store *s = check_store(L, 1);
  lua_newtable(L);
  cordon_buf err = CORDON_BUF_INIT;
  cordon_session_status st = cordon_session_list(s, list_one, L, &err);
  if (st != CORDON_SESSION_OK) return fail(L, st, &err);
  cordon_buf_free(&err);
  return 1;
}

static int s_info(lua_State *L) {
  cordon_session_store *s = check_store(L, 1);
  const char *id = cordon_lua_checkstring(L, 2);
  cordon_session_info info;
  cordon_buf err = CORDON_BUF_INIT;
  cordon_session_status st = cordon_session_info_of(s, id, &info, &err);
  if (st != CORDON_SESSION_OK) return fail(L, st, &err);
  cordon_buf_free(&err);
  push_info(L, &info);
  return 1;
}

static void history_one(const cordon_session_revision *r, void *ud) {
  lua_State *L = ud;
  lua_createtable(L, 0, 4);
  lua_pushinteger(L, (lua_Integer)r->revision);
  lua_setfield(L, -2, "revision");
  lua_pushinteger(L, (lua_Integer)r->created_at);
  lua_setfield(L, -2, "created_at");
  if (r->reason) {
    lua_pushstring(L, r->reason);
    lua_setfield(L, -2, "reason");
  }
  lua_pushstring(L, r->boundary ? r->boundary : "");
  lua_setfield(L, -2, "boundary");
  lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
}

static int s_history(lua_State *L) {
  cordon_session_store *s = check_store(L, 1);
  const char *id = cordon_lua_checkstring(L, 2);
  lua_newtable(L);
  cordon_buf err = CORDON_BUF_INIT;
  cordon_session_status st = cordon_session_history(s, id, history_one, L, &err);
  if (st != CORDON_SESSION_OK) return fail(L, st, &err);
  cordon_buf_free(&err);
  return 1;
}

static int s_gc(lua_State *L) {
  store_ud *u = luaL_checkudata(L, 1, STORE_T);
  cordon_session_close(u->s);
  u->s = NULL;
  return 0;
}

static int s_tostring(lua_State *L) {
  store_ud *u = luaL_checkudata(L, 1, STORE_T);
  if (u->s) lua_pushfstring(L, "cordon.SessionStore %s", u->path);
  else lua_pushliteral(L, "cordon.SessionStore (closed)");
  return 1;
}

static const luaL_Reg store_methods[] = {
    {"create", s_create}, {"load", s_load}, {"save", s_save},   {"list", s_list},
    {"info", s_info},     {"history", s_history}, {"close", s_gc}, {NULL, NULL},
};
static const luaL_Reg store_meta[] = {{"__gc", s_gc}, {"__close", s_gc}, {"__tostring", s_tostring}, {NULL, NULL}};
static const luaL_Reg session_funcs[] = {{"open", l_open}, {NULL, NULL}};

int cordon_open_session(lua_State *L) {
  cordon_lua_newclass(L, STORE_T, store_methods, store_meta);
  lua_pop(L, 1);
  luaL_newlib(L, session_funcs);
  return 1;
}
