/* src/lua/lsession.c — cordon.c.session: the SQLite session store as a cordon.SessionStore userdata */
#include "core/record.h"
#include "core/session.h"
#include "lua/lboundary.h"
#include "lua/lutil.h"

#include <stdio.h>
#include <string.h>

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
  /* A session's boundary changes between runs without any file the run cache watches changing. */
  cordon_record_taint("cordon.c.session: a session's boundary is read from its store");
  size_t n;
  const char *path = cordon_lua_checkstring(L, 1);
  n = strlen(path);
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

static void set_str(lua_State *L, const char *k, const char *v) {
  if (!v) return;
  lua_pushstring(L, v);
  lua_setfield(L, -2, k);
}

static void set_int(lua_State *L, const char *k, int64_t v) {
  lua_pushinteger(L, (lua_Integer)v);
  lua_setfield(L, -2, k);
}

static void push_info(lua_State *L, const cordon_session_info *i) {
  lua_createtable(L, 0, 8);
  set_str(L, "id", i->id);
  set_int(L, "created_at", i->created_at);
  set_int(L, "updated_at", i->updated_at);
  set_str(L, "workdir", i->workdir);
  set_str(L, "mode", i->mode);
  set_str(L, "kind", i->kind);
  set_int(L, "revision", (int64_t)i->revision);
  set_int(L, "pending", i->pending);
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

/* store:load(id) -> Boundary, info */
static int s_load(lua_State *L) {
  cordon_session_store *s = check_store(L, 1);
  const char *id = cordon_lua_checkstring(L, 2);
  cordon_boundary *b;
  cordon_session_info info;
  cordon_buf err = CORDON_BUF_INIT;
  cordon_session_status st = cordon_session_load(s, id, &b, &info, &err);
  if (st != CORDON_SESSION_OK) return fail(L, st, &err);
  cordon_buf_free(&err);
  cordon_lua_pushboundary(L, b);
  push_info(L, &info);
  return 2;
}

static int s_info(lua_State *L) {
  cordon_session_store *s = check_store(L, 1);
  const char *id = cordon_lua_checkstring(L, 2);
  cordon_session_info info;
  cordon_buf err = CORDON_BUF_INIT;
  cordon_session_status st = cordon_session_load(s, id, NULL, &info, &err);
  if (st != CORDON_SESSION_OK) return fail(L, st, &err);
  cordon_buf_free(&err);
  push_info(L, &info);
  return 1;
}

/* store:guard({ {"literal"|"subpath"|"regex", PATH, WHY}, ... }) -> true: replaces what request and
 * settle assess as conflict beyond the boundary (cordon.session computes it). */
static int s_guard(lua_State *L) {
  cordon_session_store *s = check_store(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  static const char *const kinds[] = {"literal", "subpath", "regex", NULL};
  cordon_session_guard_clear(s);
  cordon_buf err = CORDON_BUF_INIT;
  for (lua_Integer i = 1; i <= (lua_Integer)lua_rawlen(L, 2); i++) {
    lua_rawgeti(L, 2, i);
    int t = lua_gettop(L);
    luaL_argcheck(L, lua_istable(L, t), 2, "each guard entry is { kind, path, why }");
    lua_rawgeti(L, t, 1);
    lua_rawgeti(L, t, 2);
    lua_rawgeti(L, t, 3);
    int kind = cordon_lua_checkoption(L, t + 1, NULL, kinds);
    const char *path = cordon_lua_checkstring(L, t + 2);
    const char *why = cordon_lua_optstring(L, t + 3, NULL);
    cordon_session_status st = cordon_session_guard_add(s, (cordon_session_guard_kind)kind, path, why, &err);
    if (st != CORDON_SESSION_OK) return fail(L, st, &err);
    lua_settop(L, t - 1);
  }
  cordon_buf_free(&err);
  lua_pushboolean(L, 1);
  return 1;
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

/* store:request(id, expansion, justification) -> {request, base_revision, preview, preview_reason} */
static int s_request(lua_State *L) {
  cordon_session_store *s = check_store(L, 1);
  const char *id = cordon_lua_checkstring(L, 2);
  const char *why = cordon_lua_checkstring(L, 4);
  int nret = 0;
  cordon_expansion *x = cordon_lua_toexpansion(L, 3, &nret);
  if (!x) return nret;
  cordon_request_result r;
  cordon_buf err = CORDON_BUF_INIT;
  cordon_session_status st = cordon_session_request(s, id, x, why, &r, &err);
  if (st != CORDON_SESSION_OK) return fail(L, st, &err);
  cordon_buf_free(&err);
  lua_createtable(L, 0, 4);
  set_int(L, "request", r.request);
  set_int(L, "base_revision", (int64_t)r.base_revision);
  set_str(L, "preview", cordon_assessment_name(r.preview.outcome));
  set_str(L, "preview_reason", r.preview.reason);
  return 1;
}

/* store:settle(id, request, "allow"|"deny" [, reason]) -> {request, state, revision, already, detail} */
static int s_settle(lua_State *L) {
  cordon_session_store *s = check_store(L, 1);
  const char *id = cordon_lua_checkstring(L, 2);
  lua_Integer req = luaL_checkinteger(L, 3);
  static const char *const verdicts[] = {"allow", "deny", NULL};
  int verdict = cordon_lua_checkoption(L, 4, NULL, verdicts);
  const char *reason = cordon_lua_optstring(L, 5, NULL);
  cordon_settle_result r;
  cordon_buf err = CORDON_BUF_INIT;
  cordon_session_status st = cordon_session_settle(s, id, (int64_t)req, verdict == 0, reason, &r, &err);
  if (st != CORDON_SESSION_OK) return fail(L, st, &err);
  cordon_buf_free(&err);
  lua_createtable(L, 0, 5);
  set_int(L, "request", r.request);
  set_str(L, "state", r.state);
  set_int(L, "revision", (int64_t)r.revision);
  lua_pushboolean(L, r.already);
  lua_setfield(L, -2, "already");
  set_str(L, "detail", r.detail);
  return 1;
}

/* store:set_kind(id, "managed"|"bypass") -> revision */
static int s_set_kind(lua_State *L) {
  cordon_session_store *s = check_store(L, 1);
  const char *id = cordon_lua_checkstring(L, 2);
  static const char *const kinds[] = {"managed", "bypass", NULL};
  int k = cordon_lua_checkoption(L, 3, NULL, kinds);
  uint64_t rev = 0;
  cordon_buf err = CORDON_BUF_INIT;
  cordon_session_status st =
      cordon_session_set_kind(s, id, k == 0 ? CORDON_BOUNDARY_MANAGED : CORDON_BOUNDARY_BYPASS, &rev, &err);
  if (st != CORDON_SESSION_OK) return fail(L, st, &err);
  cordon_buf_free(&err);
  lua_pushinteger(L, (lua_Integer)rev);
  return 1;
}

static int s_remove(lua_State *L) {
  cordon_session_store *s = check_store(L, 1);
  const char *id = cordon_lua_checkstring(L, 2);
  cordon_buf err = CORDON_BUF_INIT;
  cordon_session_status st = cordon_session_remove(s, id, &err);
  if (st != CORDON_SESSION_OK) return fail(L, st, &err);
  cordon_buf_free(&err);
  lua_pushboolean(L, 1);
  return 1;
}

static void log_one(const cordon_session_event *e, void *ud) {
  lua_State *L = ud;
  lua_createtable(L, 0, 10);
  set_int(L, "seq", e->seq);
  set_str(L, "event", e->event);
  set_int(L, "created_at", e->created_at);
  set_int(L, "revision", (int64_t)e->revision);
  if (e->request >= 0) set_int(L, "request", e->request);
  set_str(L, "state", e->state);
  set_str(L, "expansion", e->expansion);
  set_str(L, "justification", e->justification);
  set_str(L, "reason", e->reason);
  set_str(L, "detail", e->detail);
  if (e->settled_at >= 0) set_int(L, "settled_at", e->settled_at);
  if (e->result_revision >= 0) set_int(L, "result_revision", e->result_revision);
  lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
}

/* store:log(id [, {since = SEQ, limit = N, pending = true}]) -> { event, ... } oldest first */
static int s_log(lua_State *L) {
  cordon_session_store *s = check_store(L, 1);
  const char *id = cordon_lua_checkstring(L, 2);
  lua_Integer since = -1, limit = 0;
  bool pending = false;
  if (!lua_isnoneornil(L, 3)) {
    luaL_checktype(L, 3, LUA_TTABLE);
    if (lua_getfield(L, 3, "since") != LUA_TNIL) since = luaL_checkinteger(L, -1);
    if (lua_getfield(L, 3, "limit") != LUA_TNIL) limit = luaL_checkinteger(L, -1);
    lua_getfield(L, 3, "pending");
    pending = lua_toboolean(L, -1);
    lua_pop(L, 3);
    if (limit < 0) return luaL_argerror(L, 3, "limit must be >= 0");
  }
  lua_newtable(L);
  cordon_buf err = CORDON_BUF_INIT;
  cordon_session_status st = cordon_session_log(s, id, (int64_t)since, (int64_t)limit, pending, log_one, L, &err);
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
    {"create", s_create},     {"load", s_load},     {"info", s_info}, {"list", s_list}, {"request", s_request},
    {"settle", s_settle},     {"set_kind", s_set_kind}, {"guard", s_guard}, {"remove", s_remove}, {"log", s_log},
    {"close", s_gc},
    {NULL, NULL},
};
static const luaL_Reg store_meta[] = {{"__gc", s_gc}, {"__close", s_gc}, {"__tostring", s_tostring}, {NULL, NULL}};
static const luaL_Reg session_funcs[] = {{"open", l_open}, {NULL, NULL}};

int cordon_open_session(lua_State *L) {
  /* The store hands out cordon.Boundary and takes cordon.Expansion: their metatables (and __gc) must
   * exist even when nothing loaded cordon.c.boundary first. */
  luaL_requiref(L, "cordon.c.boundary", cordon_open_boundary, 0);
  lua_pop(L, 1);
  cordon_lua_newclass(L, STORE_T, store_methods, store_meta);
  lua_pop(L, 1);
  luaL_newlib(L, session_funcs);
  lua_pushinteger(L, CORDON_SESSION_TEXT_MAX);
  lua_setfield(L, -2, "TEXT_MAX");
  return 1;
}
