/* src/lua/llinux.c — cordon.c.linux: the Linux backend from Lua */
#include "backend/linux/gate.h"
#include "backend/linux/linux.h"
#include "core/exit_status.h"
#include "lua/lpolicy.h"
#include "lua/lprofile.h"
#include "lua/lutil.h"

#include <stdlib.h>
#include <string.h>

#define PLAN_T "cordon.LinuxPlan"

typedef struct {
  cordon_lx_plan *plan;
} plan_ud;

static plan_ud *checkplan(lua_State *L, int idx) {
  plan_ud *u = luaL_checkudata(L, idx, PLAN_T);
  if (!u->plan) luaL_error(L, "the plan has been closed");
  return u;
}

static int plan_gc(lua_State *L) {
  plan_ud *u = luaL_checkudata(L, 1, PLAN_T);
  cordon_lx_plan_free(u->plan);
  u->plan = NULL;
  return 0;
}

static int plan_tostring(lua_State *L) {
  plan_ud *u = luaL_checkudata(L, 1, PLAN_T);
  if (!u->plan) {
    lua_pushstring(L, "cordon.LinuxPlan (closed)");
    return 1;
  }
  lua_pushfstring(L, "cordon.LinuxPlan: %d Landlock rules, %d mounts, network %s", (int)u->plan->nrules,
                  (int)u->plan->nmounts, u->plan->network_restricted ? "restricted" : "enabled");
  return 1;
}

static int plan_describe(lua_State *L) {
  plan_ud *u = checkplan(L, 1);
  cordon_buf b = CORDON_BUF_INIT;
  cordon_lx_plan_describe(u->plan, &b);
  if (b.oom) {
    cordon_buf_free(&b);
    return luaL_error(L, "out of memory");
  }
  lua_newtable(L);
  int n = 0;
  for (const char *s = b.data ? b.data : "", *nl; *s; s = nl + 1) {
    nl = strchr(s, '\n');
    if (!nl) nl = s + strlen(s) - 1 + 1, lua_pushstring(L, s);
    else lua_pushlstring(L, s, (size_t)(nl - s));
    lua_rawseti(L, -2, ++n);
    if (!*nl) break;
  }
  cordon_buf_free(&b);
  return 1;
}

static void push_access(lua_State *L, unsigned access) {
  static const char *const names[] = {"read", "write", "create", "remove", "exec"};
  lua_newtable(L);
  int n = 0;
  for (unsigned i = 0; i < 5; i++)
    if (access & (1u << i)) {
      lua_pushstring(L, names[i]);
      lua_rawseti(L, -2, ++n);
    }
}

static void setstr(lua_State *L, const char *k, const char *v) {
  lua_pushstring(L, v);
  lua_setfield(L, -2, k);
}

static void setbool(lua_State *L, const char *k, bool v) {
  lua_pushboolean(L, v);
  lua_setfield(L, -2, k);
}

static void push_plan_table(lua_State *L, const cordon_lx_plan *p) {
  lua_newtable(L);
  lua_pushinteger(L, p->best_effort ? 1 : p->min_abi);
  lua_setfield(L, -2, "min_abi");
  setbool(L, "best_effort", p->best_effort);
  setstr(L, "filesystem", p->fs_unrestricted ? "unrestricted" : "restricted");
  lua_createtable(L, (int)p->nrules, 0);
  for (size_t i = 0; i < p->nrules; i++) {
    lua_newtable(L);
    setstr(L, "path", p->rules[i].path);
    push_access(L, p->rules[i].access);
    lua_setfield(L, -2, "access");
    setbool(L, "directory", p->rules[i].is_dir);
    setstr(L, "source", p->rules[i].source);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lua_setfield(L, -2, "landlock_rules");
  lua_createtable(L, (int)p->nmounts, 0);
  for (size_t i = 0; i < p->nmounts; i++) {
    const cordon_mount *m = &p->mounts[i];
    lua_newtable(L);
    setstr(L, "kind", cordon_mount_kind_name(m->kind));
    setstr(L, "path", m->path);
    setbool(L, "directory", m->is_dir);
    setbool(L, "read_only", m->read_only);
    setbool(L, "no_exec", m->no_exec);
    setstr(L, "source", m->source);
    setstr(L, "reason", m->reason);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lua_setfield(L, -2, "mounts");
  setstr(L, "network", p->network_restricted ? "restricted" : "enabled");
  setbool(L, "scope_signals", p->scope_signals);
  setbool(L, "scope_abstract_unix", p->scope_abstract_unix);
  setbool(L, "shared_tmp", p->shared_tmp);
  lua_createtable(L, (int)p->nnotes, 0);
  for (size_t i = 0; i < p->nnotes; i++) {
    lua_newtable(L);
    setstr(L, "source", p->notes[i].source);
    setstr(L, "message", p->notes[i].message);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lua_setfield(L, -2, "approximations");
  lua_createtable(L, (int)p->nskipped, 0);
  for (size_t i = 0; i < p->nskipped; i++) {
    lua_newtable(L);
    setstr(L, "source", p->skipped[i].source);
    setstr(L, "path", p->skipped[i].message);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lua_setfield(L, -2, "skipped");
}

static int plan_to_table(lua_State *L) {
  push_plan_table(L, checkplan(L, 1)->plan);
  return 1;
}

static int plan_json(lua_State *L) {
  char *s = cordon_lx_plan_to_json(checkplan(L, 1)->plan);
  if (!s) return luaL_error(L, "out of memory");
  lua_pushstring(L, s);
  free(s);
  return 1;
}

static int l_probe(lua_State *L) {
  cordon_lx_probe_result pr;
  cordon_lx_probe(&pr);
  bool best = lua_toboolean(L, 1);
  cordon_buf msg = CORDON_BUF_INIT;
  cordon_lx_status st = cordon_lx_check(&pr, CORDON_LX_MIN_ABI, best, &msg);
  lua_newtable(L);
  lua_pushinteger(L, pr.abi);
  lua_setfield(L, -2, "abi");
  setstr(L, "kernel", pr.kernel);
  setbool(L, "userns", pr.userns);
  setbool(L, "ok", st == CORDON_LX_OK);
  if (st != CORDON_LX_OK) setstr(L, "message", msg.data ? msg.data : "");
  cordon_buf_free(&msg);
  return 1;
}

/* opts.params (a list of {name, value}) into `ps`. */
static void read_params(lua_State *L, int idx, cordon_params *ps) {
  if (lua_type(L, idx) != LUA_TTABLE) return;
  lua_Integer n = luaL_len(L, idx);
  for (lua_Integer i = 1; i <= n; i++) {
    lua_rawgeti(L, idx, i);
    luaL_checktype(L, -1, LUA_TTABLE);
    lua_rawgeti(L, -1, 1);
    lua_rawgeti(L, -2, 2);
    bool strings = lua_type(L, -2) == LUA_TSTRING && lua_type(L, -1) == LUA_TSTRING;
    if (!strings || cordon_lua_has_nul(L, -2) || cordon_lua_has_nul(L, -1)) {
      cordon_params_free(ps);  /* what was read so far: the error below leaves this function */
      luaL_error(L, "params[%d]: %s", (int)i, strings ? "a name or value contains a NUL byte (refused, never cut short)"
                                                      : "expected {name, value}, two strings");
    }
    bool ok = cordon_params_add(ps, lua_tostring(L, -2), lua_tostring(L, -1));
    lua_pop(L, 3);
    if (!ok) luaL_error(L, "out of memory");
  }
}

/* opts[field], a list of strings, as a NULL-terminated array left on the stack (a userdata); the strings
 * stay alive in opts. NULL when the field is absent. Not a string list: misuse, raised. */
static const char *const *string_list(lua_State *L, int opts, const char *field) {
  if (lua_getfield(L, opts, field) == LUA_TNIL) {
    lua_pop(L, 1);
    lua_pushnil(L);  /* keep the stack shape the same either way */
    return NULL;
  }
  luaL_argexpected(L, lua_type(L, -1) == LUA_TTABLE, opts, "a list of strings in opts.git_safe_keys or opts.gate_names");
  int t = lua_gettop(L);
  size_t n = (size_t)luaL_len(L, t);
  const char **v = lua_newuserdatauv(L, (n + 1) * sizeof *v, 1);
  lua_pushvalue(L, t);
  lua_setiuservalue(L, -2, 1);  /* the userdata keeps the list (and its strings) alive */
  for (size_t i = 0; i < n; i++) {
    lua_rawgeti(L, t, (lua_Integer)i + 1);
    size_t len;
    const char *str = lua_tolstring(L, -1, &len);
    if (lua_type(L, -1) != LUA_TSTRING || strlen(str) != len) luaL_error(L, "opts.%s[%d] must be a string without NUL", field, (int)i + 1);
    v[i] = str;
    lua_pop(L, 1);
  }
  v[n] = NULL;
  lua_remove(L, t);
  return v;
}

/* The shared body of compile and describe: policy at 1, profile at 2, ctx at 3, opts at 4. Pushes the
 * plan userdata, or the failure triple. */
/* A misspelt option would silently compile another plan than the one asked for. */
static void check_options(lua_State *L, int oi) {
  static const char *const known[] = {"best_effort", "shared_tmp", "params", "git_safe_keys", "gate_names", NULL};
  for (lua_pushnil(L); lua_next(L, oi); lua_pop(L, 1)) {
    const char *k = lua_type(L, -2) == LUA_TSTRING ? cordon_lua_tostring(L, -2) : NULL;
    size_t i = 0;
    while (k && known[i] && strcmp(known[i], k) != 0) i++;
    if (!k || !known[i])
      luaL_error(L, "unknown option %s%s%s (known: best_effort, shared_tmp, params, git_safe_keys, gate_names)", k ? "'" : "",
                 k ? k : luaL_typename(L, -2), k ? "'" : " key");
  }
}

static int compile_at(lua_State *L, int pi, int pri, int ci, int oi, const cordon_params *extra) {
  if (lua_type(L, oi) == LUA_TTABLE) check_options(L, oi);  /* may raise: before anything is allocated */
  cordon_profile *profile = cordon_lua_toprofile(L, pri);
  cordon_lua_ctx ctx;
  cordon_lua_checkctx(L, ci, &ctx);
  bool bare = lua_isnoneornil(L, pi);
  cordon_lx_options o = {0};
  cordon_params ps = CORDON_PARAMS_INIT;
  for (size_t i = 0; extra && i < extra->count; i++) cordon_params_add(&ps, extra->items[i].name, extra->items[i].value);
  if (lua_type(L, oi) == LUA_TTABLE) {
    lua_getfield(L, oi, "best_effort");
    o.best_effort = lua_toboolean(L, -1);
    lua_getfield(L, oi, "shared_tmp");
    o.shared_tmp = lua_toboolean(L, -1);
    lua_getfield(L, oi, "params");
    read_params(L, lua_gettop(L), &ps);
    lua_pop(L, 3);
    o.git_safe_keys = string_list(L, oi, "git_safe_keys");  /* left on the stack; strings live in opts */
    o.gate_names = string_list(L, oi, "gate_names");
  }
  plan_ud *u = lua_newuserdatauv(L, sizeof *u, 0);
  u->plan = NULL;
  luaL_setmetatable(L, PLAN_T);
  cordon_buf msg = CORDON_BUF_INIT;
  cordon_lx_status st;
  if (bare || lua_type(L, pi) == LUA_TUSERDATA) {
    cordon_policy *policy = bare ? NULL : cordon_lua_checkpolicy(L, pi);
    const char **pairs = calloc(2 * ps.count + 1, sizeof *pairs);
    if (!pairs) st = CORDON_LX_NOMEM;
    for (size_t i = 0; pairs && i < ps.count; i++) {
      pairs[2 * i] = ps.items[i].name;
      pairs[2 * i + 1] = ps.items[i].value;
    }
    cordon_lx_input in = {.policy = policy, .params = pairs, .nparams = ps.count, .profile = profile,
                          .ctx = &ctx.ctx, .best_effort = o.best_effort, .shared_tmp = o.shared_tmp,
                          .git_safe_keys = o.git_safe_keys, .gate_names = o.gate_names};
    if (pairs) st = cordon_lx_compile(&in, &u->plan, &msg);
    free(pairs);
  } else {
    st = cordon_lx_compile_text(cordon_lua_checkstring(L, pi), &ps, profile, &ctx.ctx, &o, false, &u->plan, &msg);
  }
  cordon_params_free(&ps);
  if (st != CORDON_LX_OK) {
    lua_pushstring(L, msg.data ? msg.data : "");
    cordon_buf_free(&msg);
    return cordon_lua_fail(L, cordon_lx_status_name(st), "%s", lua_tostring(L, -1));
  }
  cordon_buf_free(&msg);
  return 1;
}

static int l_compile(lua_State *L) {
  lua_settop(L, 4);
  return compile_at(L, 1, 2, 3, 4, NULL);
}

static int l_describe(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_settop(L, 2);
  if (lua_getfield(L, 1, "built") != LUA_TUSERDATA) {  /* 3: the assembled cordon.Policy, or a text */
    lua_pop(L, 1);
    lua_getfield(L, 1, "text");
  }
  lua_getfield(L, 1, "profile");  /* 4 */
  lua_getfield(L, 1, "context");  /* 5 */
  cordon_params ps = CORDON_PARAMS_INIT;
  lua_getfield(L, 1, "params");   /* 6 */
  read_params(L, 6, &ps);
  int n = compile_at(L, 3, 4, 5, 2, &ps);
  cordon_params_free(&ps);
  if (n != 1) return n;
  plan_ud *u = checkplan(L, -1);  /* its sources name the fragments (the Policy's sections) */
  cordon_buf b = CORDON_BUF_INIT;
  cordon_lx_plan_describe(u->plan, &b);
  lua_newtable(L);
  lua_pushstring(L, b.data ? b.data : "");
  cordon_buf_free(&b);
  lua_setfield(L, -2, "text");
  push_plan_table(L, u->plan);
  lua_setfield(L, -2, "plan");
  lua_pushvalue(L, -2);
  lua_setfield(L, -2, "object");  /* the cordon.LinuxPlan itself, for plan:gate() */
  return 1;
}

/* env: a {NAME = value} table or a list of "NAME=value"; argv: a non-empty list of strings. */
static const char **strv(lua_State *L, int idx, bool is_env) {
  luaL_checktype(L, idx, LUA_TTABLE);
  size_t n = 0;
  lua_pushnil(L);
  while (lua_next(L, idx)) n++, lua_pop(L, 1);
  /* collected with the vector; its user value, a table, holds the joined "NAME=value" strings */
  const char **v = lua_newuserdatauv(L, (n + 1) * sizeof *v, 1);
  lua_newtable(L);
  lua_setiuservalue(L, -2, 1);
  size_t k = 0;
  if (!is_env) {
    for (lua_Integer i = 1; i <= (lua_Integer)n; i++) {
      lua_rawgeti(L, idx, i);
      v[k++] = cordon_lua_checkstring(L, -1);
      lua_pop(L, 1);  /* the string stays alive in the table */
    }
  } else {
    lua_pushnil(L);
    while (lua_next(L, idx)) {
      if (lua_type(L, -2) == LUA_TSTRING) {
        lua_getiuservalue(L, -3, 1);
        lua_pushfstring(L, "%s=%s", cordon_lua_tostring(L, -3), cordon_lua_checkstring(L, -2));
        v[k++] = lua_tostring(L, -1);
        lua_rawseti(L, -2, (lua_Integer)k);
        lua_pop(L, 1);
      } else {
        v[k++] = cordon_lua_checkstring(L, -1);
      }
      lua_pop(L, 1);
    }
  }
  v[k] = NULL;
  return v;
}

static int l_exec(lua_State *L) {
  plan_ud *u = checkplan(L, 1);
  const char **argv = strv(L, 2, false);
  if (!argv[0]) return luaL_error(L, "argv must not be empty");
  const char **env = lua_isnoneornil(L, 3) ? NULL : strv(L, 3, true);
  const char *cwd = cordon_lua_optstring(L, 4, NULL);
  cordon_buf msg = CORDON_BUF_INIT;
  cordon_lx_status st = cordon_lx_run(u->plan, argv, env, cwd, &msg);
  /* only a command that could not be started comes back: the shape and codes of manager.exec */
  int status = cordon_exit_status_of(cordon_lx_status_name(st));
  const char *code = cordon_exit_code_of(status);
  lua_pushstring(L, msg.data && msg.data[0] ? msg.data : cordon_lx_status_name(st));
  cordon_buf_free(&msg);
  cordon_lua_fail(L, code, "%s", lua_tostring(L, -1));
  lua_pushinteger(L, status);
  return 4;
}

/* plan:gate(path) -> { write =, create =, remove =, connect = }: what the gate would let a process inside
 * do at `path` (an absolute path as seen inside), decided with the plan's own rules. */
static int plan_gate(lua_State *L) {
  plan_ud *u = checkplan(L, 1);
  size_t len;
  const char *path = luaL_checklstring(L, 2, &len);
  if (strlen(path) != len || path[0] != '/') return luaL_argerror(L, 2, "an absolute path without NUL");
  unsigned classes = 0;
  bool connect = false;
  if (!cordon_lx_plan_gate_decide(u->plan, path, false, &classes, &connect)) return luaL_error(L, "out of memory");
  lua_newtable(L);
  setbool(L, "write", classes & CORDON_LX_WRITE);
  setbool(L, "create", classes & CORDON_LX_CREATE);
  setbool(L, "remove", classes & CORDON_LX_REMOVE);
  setbool(L, "connect", connect);
  return 1;
}

/* git_layout(path, "create"|"write"|"remove") -> nil, or why, rule: git's layout rules on one write */
static int l_git_layout(lua_State *L) {
  size_t len;
  const char *path = luaL_checklstring(L, 1, &len);
  if (strlen(path) != len || path[0] != '/') return luaL_argerror(L, 1, "an absolute path without NUL");
  static const char *const questions[] = {"create", "write", "remove", NULL};
  int q = cordon_lua_checkoption(L, 2, "write", questions);
  const char *rule, *why = cordon_lx_git_layout_refusal(path, (cordon_lx_git_question)q, &rule);
  if (!why) return 0;
  lua_pushstring(L, why);
  lua_pushstring(L, rule);
  return 2;
}

static const luaL_Reg plan_methods[] = {
    {"describe", plan_describe}, {"to_table", plan_to_table}, {"json", plan_json}, {"gate", plan_gate},
    {"close", plan_gc},  /* as every handle has: frees it now, and later uses raise */
    {NULL, NULL}};
static const luaL_Reg plan_meta[] = {
    {"__gc", plan_gc}, {"__close", plan_gc}, {"__tostring", plan_tostring}, {NULL, NULL}};
static const luaL_Reg funcs[] = {
    {"probe", l_probe}, {"compile", l_compile}, {"describe", l_describe}, {"exec", l_exec},
    {"git_layout", l_git_layout}, {NULL, NULL}};

int cordon_open_linux(lua_State *L) {
  cordon_lua_newclass(L, PLAN_T, plan_methods, plan_meta);
  lua_pop(L, 1);
  luaL_newlib(L, funcs);
  return 1;
}
