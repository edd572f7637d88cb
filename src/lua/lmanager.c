/* src/lua/lmanager.c — cordon.c.manager: sandbox selection, transformation, the Seatbelt policy, exec */
#include "backend/linux/limits.h"
#include "backend/manager.h"
#include "backend/seatbelt.h"
#include "core/exit_status.h"
#include "lua/lprofile.h"
#include "lua/lutil.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define EXEC_REQUEST "cordon.ExecRequest"
#define REQUEST_VIEW "cordon.ExecRequestView"  /* the request's table: its `plan` described lazily */

static void push_params(lua_State *L, const cordon_params *ps) {
  lua_createtable(L, (int)ps->count, 0);
  for (size_t i = 0; i < ps->count; i++) {
    lua_createtable(L, 2, 0);
    lua_pushstring(L, ps->items[i].name);
    lua_rawseti(L, -2, 1);
    lua_pushstring(L, ps->items[i].value);
    lua_rawseti(L, -2, 2);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
}

/* Reads { {name, value}, … } (or {name = …, value = …} items) at `idx` into `ps`; false on bad shape. */
static bool read_params(lua_State *L, int idx, cordon_params *ps) {
  idx = lua_absindex(L, idx);
  for (lua_Integer i = 1; lua_rawgeti(L, idx, i) == LUA_TTABLE; i++) {
    if (lua_rawgeti(L, -1, 1) == LUA_TNIL) {
      lua_pop(L, 1);
      lua_getfield(L, -1, "name");
    }
    if (lua_rawgeti(L, -2, 2) == LUA_TNIL) {
      lua_pop(L, 1);
      lua_getfield(L, -2, "value");
    }
    /* a NUL would cut a name or value short: refused like a wrong type, and the caller frees */
    bool nul = cordon_lua_has_nul(L, -2) || cordon_lua_has_nul(L, -1);
    const char *name = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
    const char *value = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    bool ok = !nul && name && value && cordon_params_add(ps, name, value);
    lua_pop(L, 3);
    if (!ok) {
      lua_pop(L, 1);
      return false;
    }
  }
  bool ok = lua_isnil(L, -1);
  lua_pop(L, 1);
  return ok;
}

static int fail_status(lua_State *L, cordon_sandbox_status st, cordon_buf *msg) {
  const char *m = cordon_buf_str(msg);
  int n = cordon_lua_fail(L, cordon_sandbox_status_name(st), "%s", m && *m ? m : cordon_sandbox_status_name(st));
  cordon_buf_free(msg);
  return n;
}

static int l_seatbelt_policy(lua_State *L) {
  cordon_profile *p = cordon_lua_toprofile(L, 1);
  cordon_lua_ctx ctx;
  cordon_lua_checkctx(L, 2, &ctx);
  cordon_seatbelt_options opts = {true, NULL};
  if (!lua_isnoneornil(L, 3)) {
    luaL_checktype(L, 3, LUA_TTABLE);
    if (lua_getfield(L, 3, "base") != LUA_TNIL) opts.base = lua_toboolean(L, -1);
    lua_pop(L, 1);
    opts.platform = cordon_lua_optfield_string(L, 3, "platform", NULL);
  }
  cordon_buf text = CORDON_BUF_INIT, msg = CORDON_BUF_INIT;
  cordon_params params = CORDON_PARAMS_INIT;
  cordon_sandbox_status st = cordon_seatbelt_policy_with(p, &ctx.ctx, &opts, &text, &params, &msg);
  if (st != CORDON_SANDBOX_OK) {
    cordon_buf_free(&text);
    cordon_params_free(&params);
    return fail_status(L, st, &msg);
  }
  cordon_buf_free(&msg);
  lua_pushlstring(L, text.data ? text.data : "", text.len);
  cordon_buf_free(&text);
  push_params(L, &params);
  cordon_params_free(&params);
  return 2;
}

static void push_strv(lua_State *L, char *const *v, size_t n) {
  lua_createtable(L, (int)n, 0);
  for (size_t i = 0; i < n; i++) {
    lua_pushstring(L, v[i]);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
}

/* seatbelt_wrap(policy, params, argv) -> the exact argv a Seatbelt request runs, helper fixed. Pure: it
 * checks nothing on disk and runs nothing, so a preview on any machine shows what a Mac would run. */
static int l_seatbelt_wrap(lua_State *L) {
  const char *policy = cordon_lua_checkstring(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  luaL_checktype(L, 3, LUA_TTABLE);
  size_t argc = lua_rawlen(L, 3);
  const char **argv = lua_newuserdatauv(L, (argc + 1) * sizeof *argv, 0);
  for (size_t i = 0; i < argc; i++) {
    if (lua_rawgeti(L, 3, (lua_Integer)i + 1) != LUA_TSTRING) luaL_error(L, "argv must hold only strings");
    argv[i] = cordon_lua_tostring(L, -1);  /* anchored by the argv table */
    lua_pop(L, 1);
  }
  argv[argc] = NULL;
  cordon_params params = CORDON_PARAMS_INIT;
  if (!read_params(L, 2, &params)) {
    cordon_params_free(&params);
    return cordon_lua_fail(L, "invalid_request", "params must be a list of {name, value}, strings without NUL bytes");
  }
  /* The wrapped argv is owned by a request userdata, so a Lua error while copying it out frees it. */
  cordon_exec_request *r = lua_newuserdatauv(L, sizeof *r, 0);
  memset(r, 0, sizeof *r);
  luaL_setmetatable(L, EXEC_REQUEST);
  cordon_buf msg = CORDON_BUF_INIT;
  cordon_sandbox_status st = argc ? cordon_seatbelt_wrap(CORDON_SEATBELT_HELPER, policy, &params, argv, argc,
                                                         &r->argv, &r->argc, &msg)
                                  : CORDON_SANDBOX_INVALID_REQUEST;
  cordon_params_free(&params);
  if (st != CORDON_SANDBOX_OK) {
    if (!msg.len) cordon_buf_puts(&msg, "no command to wrap");
    return fail_status(L, st, &msg);
  }
  cordon_buf_free(&msg);
  push_strv(L, r->argv, r->argc);
  return 1;
}

static cordon_preference check_preference(lua_State *L, int t) {
  const char *s = cordon_lua_optfield_string(L, t, "preference", "auto");
  int pref = cordon_preference_parse(s);
  if (pref < 0) luaL_error(L, "preference must be auto, require or forbid, got '%s'", s);
  return (cordon_preference)pref;
}

static int l_select(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  cordon_manager m = {check_preference(L, 1), cordon_lua_optfield_string(L, 1, "platform", NULL), NULL};
  lua_getfield(L, 1, "profile");
  cordon_profile *p = cordon_lua_toprofile(L, -1);
  const cordon_backend *b = NULL;
  cordon_buf msg = CORDON_BUF_INIT;
  cordon_sandbox_status st = cordon_manager_select(&m, p, &b, &msg);
  if (st != CORDON_SANDBOX_OK) return fail_status(L, st, &msg);
  cordon_buf_free(&msg);
  lua_pushstring(L, b ? b->sandbox_type : "none");
  return 1;
}

static int l_requires_sandbox(lua_State *L) {
  lua_pushboolean(L, cordon_profile_requires_sandbox(cordon_lua_toprofile(L, 1)));
  return 1;
}

static int l_host_platform(lua_State *L) {
  lua_pushstring(L, cordon_host_platform());
  return 1;
}

/* --- cordon.ExecRequest ------------------------------------------------------------------------- */

static cordon_exec_request *check_request(lua_State *L, int idx) {
  cordon_exec_request *r = luaL_checkudata(L, idx, EXEC_REQUEST);
  if (!r->argv) luaL_error(L, "exec request was closed");
  return r;
}

static int request_gc(lua_State *L) {
  cordon_exec_request_free(luaL_checkudata(L, 1, EXEC_REQUEST));
  return 0;
}

static int request_tostring(lua_State *L) {
  cordon_exec_request *r = luaL_checkudata(L, 1, EXEC_REQUEST);
  if (!r->argv) {
    lua_pushstring(L, "cordon.ExecRequest (closed)");
    return 1;
  }
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  luaL_addstring(&b, "cordon.ExecRequest(");
  luaL_addstring(&b, r->sandbox_type ? r->sandbox_type : "?");
  luaL_addstring(&b, "):");
  for (size_t i = 0; i < r->argc; i++) {
    luaL_addchar(&b, ' ');
    /* the policy text is long and multi-line: show its size instead */
    if (r->policy && r->argv[i] && strcmp(r->argv[i], r->policy) == 0)
      lua_pushfstring(L, "<policy, %d bytes>", (int)strlen(r->policy));
    else
      lua_pushstring(L, r->argv[i]);
    luaL_addvalue(&b);
  }
  luaL_pushresult(&b);
  return 1;
}

/* The run options that are not policy, as transform was given them. */
static void push_run_options(lua_State *L, const cordon_sandbox_command *cmd) {
  lua_createtable(L, 0, 4);
  lua_pushinteger(L, cmd->limits.procs);
  lua_setfield(L, -2, "procs");
  lua_pushinteger(L, (lua_Integer)cmd->limits.memory);
  lua_setfield(L, -2, "memory");
  lua_pushinteger(L, cmd->limits.cpu);
  lua_setfield(L, -2, "cpu");
#if CORDON_WITH_LINUX
  cordon_buf d = CORDON_BUF_INIT;
  cordon_lx_limits_describe(&cmd->limits, &d);
  lua_pushstring(L, cordon_buf_str(&d) ? cordon_buf_str(&d) : "");
  cordon_buf_free(&d);
#else
  lua_pushliteral(L, "none (resource limits are the Linux backend's, which this build does not have)");
#endif
  lua_setfield(L, -2, "summary");
  lua_setfield(L, -2, "limits");
  lua_createtable(L, (int)cmd->npass_fds, 0);
  for (size_t i = 0; i < cmd->npass_fds; i++) {
    lua_pushinteger(L, cmd->pass_fds[i]);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lua_setfield(L, -2, "pass_fds");
}

/* A backend's description of its plan (the Linux one lists every rule, mount and skipped path: ~0.2 ms
 * of a run) is made the first time `plan` is read from the request's table, and kept there. */
static int request_view_index(lua_State *L) {
  if (lua_type(L, 2) != LUA_TSTRING || strcmp(lua_tostring(L, 2), "plan") != 0) return 0;
  lua_pushliteral(L, "handle");
  lua_rawget(L, 1);
  const cordon_exec_request *r = luaL_testudata(L, -1, EXEC_REQUEST);
  if (!r || !r->argv || !r->backend || !r->backend->describe) return 0;  /* closed: no plan to describe */
  cordon_buf d = CORDON_BUF_INIT;
  r->backend->describe(r->backend, r, &d);
  lua_pushstring(L, d.data ? d.data : "");
  cordon_buf_free(&d);
  lua_pushliteral(L, "plan");
  lua_pushvalue(L, -2);
  lua_rawset(L, 1);
  return 1;
}

/* The request's table view: what Lua callers and `--json` show. */
static void push_request_table(lua_State *L, const cordon_exec_request *r, const cordon_profile *p, int handle) {
  lua_createtable(L, 0, 8);
  push_strv(L, r->argv, r->argc);
  lua_setfield(L, -2, "argv");
  lua_pushstring(L, r->cwd);
  lua_setfield(L, -2, "cwd");
  lua_createtable(L, 0, (int)r->envc);
  for (size_t i = 0; i < r->envc; i++) {
    const char *eq = strchr(r->env[i], '=');
    lua_pushlstring(L, r->env[i], (size_t)(eq - r->env[i]));
    lua_pushstring(L, eq + 1);
    lua_rawset(L, -3);
  }
  lua_setfield(L, -2, "env");
  lua_pushstring(L, r->sandbox_type);
  lua_setfield(L, -2, "sandbox_type");
  cordon_lua_push_profile_table(L, p);
  lua_setfield(L, -2, "effective_profile");
  if (r->policy) {
    lua_createtable(L, 0, 2);
    lua_pushstring(L, r->policy);
    lua_setfield(L, -2, "policy");
    push_params(L, &r->params);
    lua_setfield(L, -2, "params");
    lua_setfield(L, -2, "plan");
  } else if (r->backend && r->backend->describe) {
    luaL_setmetatable(L, REQUEST_VIEW);  /* `plan`, on first read */
  }
  lua_pushvalue(L, handle);
  lua_setfield(L, -2, "handle");
}

static int compare_strings(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Reads argv (a list of strings) from field `key` of table `t` into a NULL-terminated array kept alive by
 * a userdata pushed on the stack. */
static const char **read_strv(lua_State *L, int t, const char *key, size_t *n, bool env_map) {
  int type = lua_getfield(L, t, key);
  if (type == LUA_TNIL && env_map) {
    lua_pop(L, 1);
    lua_newtable(L);
  } else if (type != LUA_TTABLE) {
    luaL_error(L, "field '%s' must be a table", key);
  }
  int tab = lua_gettop(L);
  size_t count = 0;
  if (env_map && lua_rawlen(L, tab) == 0) {
    /* {NAME = value}: each becomes "NAME=value"; sorted below. */
    lua_newtable(L);
    int list = lua_gettop(L);
    for (lua_pushnil(L); lua_next(L, tab); lua_pop(L, 1)) {
      if (lua_type(L, -2) != LUA_TSTRING || lua_type(L, -1) != LUA_TSTRING)
        luaL_error(L, "env entries must be NAME = value strings");
      lua_pushfstring(L, "%s=%s", cordon_lua_tostring(L, -2), cordon_lua_tostring(L, -1));
      lua_rawseti(L, list, (lua_Integer)++count);
    }
    lua_replace(L, tab);
  }
  count = lua_rawlen(L, tab);
  const char **v = lua_newuserdatauv(L, (count + 1) * sizeof *v, 0);
  for (size_t i = 0; i < count; i++) {
    lua_rawgeti(L, tab, (lua_Integer)i + 1);
    if (lua_type(L, -1) != LUA_TSTRING) luaL_error(L, "field '%s' must hold only strings", key);
    v[i] = cordon_lua_tostring(L, -1);  /* anchored by the table, which stays on the stack */
    lua_pop(L, 1);
  }
  v[count] = NULL;
  if (env_map) qsort(v, count, sizeof *v, compare_strings);  /* a stable order for the same environment */
  *n = count;
  return v;
}

/* limits = {SPEC, …}: each spec applied in order onto `out` (cordon_lx_limits_parse). 0, or 3 pushed
 * failure values. */
static int read_limits(lua_State *L, int t, cordon_lx_limits *out) {
  int type = lua_getfield(L, t, "limits");
  if (type != LUA_TNIL && type != LUA_TTABLE) luaL_error(L, "field 'limits' must be a list of --limit specs");
  size_t n = type == LUA_TTABLE ? lua_rawlen(L, -1) : 0;
  for (size_t i = 1; i <= n; i++) {
    if (lua_rawgeti(L, -1, (lua_Integer)i) != LUA_TSTRING) luaL_error(L, "field 'limits' must hold only strings");
    size_t len;
    const char *spec = lua_tolstring(L, -1, &len);
    cordon_buf msg = CORDON_BUF_INIT;
#if CORDON_WITH_LINUX
    bool ok = cordon_lx_limits_parse(out, spec, len, &msg);
#else
    (void)out, (void)spec;
    bool ok = true;  /* nothing in this build applies them: the summary says so */
#endif
    lua_pop(L, 1);
    if (!ok) {
      lua_pop(L, 1);
      int r = cordon_lua_fail(L, "invalid_request", "%s", cordon_buf_str(&msg) ? cordon_buf_str(&msg) : "bad limit");
      cordon_buf_free(&msg);
      return r;
    }
    cordon_buf_free(&msg);
  }
  lua_pop(L, 1);
  return 0;
}

/* pass_fds = {N, …} into an array kept alive by a userdata left on the stack. Each must be above 2 and
 * open in cordon without close-on-exec: inherited from the caller, not one of cordon's own. 0, or 3
 * pushed failure values. */
static int read_pass_fds(lua_State *L, int t, cordon_sandbox_command *cmd) {
  int type = lua_getfield(L, t, "pass_fds");
  if (type != LUA_TNIL && type != LUA_TTABLE) luaL_error(L, "field 'pass_fds' must be a list of descriptors");
  size_t n = type == LUA_TTABLE ? lua_rawlen(L, -1) : 0;
  int *fds = lua_newuserdatauv(L, (n ? n : 1) * sizeof *fds, 0);
  lua_insert(L, -2);
  for (size_t i = 0; i < n; i++) {
    lua_rawgeti(L, -1, (lua_Integer)i + 1);
    if (!lua_isinteger(L, -1)) luaL_error(L, "field 'pass_fds' must hold only integers");
    lua_Integer fd = lua_tointeger(L, -1);
    lua_pop(L, 1);
    int flags = fd > 2 && fd <= INT_MAX ? fcntl((int)fd, F_GETFD) : -1;
    const char *why = fd <= 2 ? "0, 1 and 2 are always passed; give one above 2"
                      : flags < 0 ? "not an open descriptor in cordon"
                      : (flags & FD_CLOEXEC) ? "close-on-exec in cordon, so not one the caller passed"
                                             : NULL;
    if (why) {
      lua_pop(L, 2);
      return cordon_lua_fail(L, "invalid_request", "--pass-fd %lld: %s", (long long)fd, why);
    }
    fds[i] = (int)fd;
  }
  lua_pop(L, 1);  /* the list; the array's userdata stays */
  cmd->pass_fds = fds;
  cmd->npass_fds = n;
  return 0;
}

static int l_transform(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  cordon_manager m = {check_preference(L, 1), cordon_lua_optfield_string(L, 1, "platform", NULL), NULL};
  cordon_sandbox_command cmd = {0};
  cmd.argv = read_strv(L, 1, "argv", &cmd.argc, false);
  size_t envc;
  cmd.env = read_strv(L, 1, "env", &envc, true);
  cmd.cwd = cordon_lua_optfield_string(L, 1, "cwd", NULL);
  if (lua_getfield(L, 1, "profile") == LUA_TNIL) luaL_error(L, "field 'profile' is required");
  int prof = lua_gettop(L);
  cmd.profile = cordon_lua_toprofile(L, prof);
  lua_getfield(L, 1, "ctx");
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    lua_getfield(L, 1, "context");
  }
  cordon_lua_ctx ctx;
  cordon_lua_checkctx(L, -1, &ctx);
  cmd.ctx = &ctx.ctx;
  lua_getfield(L, 1, "best_effort");
  cmd.best_effort = lua_toboolean(L, -1);
  lua_getfield(L, 1, "shared_tmp");
  cmd.shared_tmp = lua_toboolean(L, -1);
  lua_pop(L, 2);
  if (lua_getfield(L, 1, "git_safe_keys") != LUA_TNIL) {
    lua_pop(L, 1);
    size_t nkeys;
    cmd.git_safe_keys = read_strv(L, 1, "git_safe_keys", &nkeys, false);  /* anchored on the stack */
  } else {
    lua_pop(L, 1);
  }
  if (lua_getfield(L, 1, "gate_names") != LUA_TNIL) {
    lua_pop(L, 1);
    size_t nnames;
    cmd.gate_names = read_strv(L, 1, "gate_names", &nnames, false);  /* anchored on the stack */
  } else {
    lua_pop(L, 1);
  }
  int failed = read_limits(L, 1, &cmd.limits);
  if (!failed) failed = read_pass_fds(L, 1, &cmd);
  if (failed) return failed;
  cordon_params params = CORDON_PARAMS_INIT;
  int ptype = lua_getfield(L, 1, "policy");
  if (ptype != LUA_TNIL && ptype != LUA_TTABLE) luaL_error(L, "field 'policy' must be {text = SBPL, params = {…}}");
  if (ptype == LUA_TTABLE) {
    if (lua_getfield(L, -1, "text") == LUA_TNIL) {
      lua_pop(L, 1);
      lua_rawgeti(L, -1, 1);
    }
    if (lua_type(L, -1) != LUA_TSTRING) luaL_error(L, "policy.text must be the SBPL text");
    cmd.policy_text = cordon_lua_tostring(L, -1);
    if (lua_getfield(L, -2, "params") == LUA_TNIL) {
      lua_pop(L, 1);
      lua_rawgeti(L, -2, 2);
    }
    bool ok = lua_isnil(L, -1) || (lua_istable(L, -1) && read_params(L, -1, &params));
    if (!ok) {
      cordon_params_free(&params);
      return cordon_lua_fail(L, "invalid_request", "policy.params must be a list of {name, value}, strings without NUL bytes");
    }
    cmd.policy_params = &params;
  }
  cordon_exec_request *r = lua_newuserdatauv(L, sizeof *r, 0);
  memset(r, 0, sizeof *r);
  luaL_setmetatable(L, EXEC_REQUEST);
  int handle = lua_gettop(L);
  cordon_buf msg = CORDON_BUF_INIT;
  cordon_sandbox_status st = cordon_manager_transform(&m, &cmd, r, &msg);
  cordon_params_free(&params);
  if (st != CORDON_SANDBOX_OK) return fail_status(L, st, &msg);
  cordon_buf_free(&msg);
  push_request_table(L, r, cmd.profile, handle);
  push_run_options(L, &cmd);
  return 1;
}

static int l_exec(lua_State *L) {
  if (lua_istable(L, 1)) {
    lua_getfield(L, 1, "handle");
    if (lua_isnil(L, -1)) luaL_error(L, "exec needs a request made by transform (its 'handle' field is missing)");
    lua_replace(L, 1);
  }
  cordon_exec_request *r = check_request(L, 1);
  cordon_buf msg = CORDON_BUF_INIT;
  int status = cordon_exec(r, &msg);
  if (!msg.len) {  /* a supervising backend ran the command and returns its status */
    cordon_buf_free(&msg);
    lua_pushinteger(L, status);
    return 1;
  }
  const char *code = cordon_exit_code_of(status);
  cordon_lua_fail(L, code, "%s", cordon_buf_str(&msg) ? cordon_buf_str(&msg) : code);
  cordon_buf_free(&msg);
  lua_pushinteger(L, status);
  return 4;
}

static const luaL_Reg request_meta[] = {
  {"__gc", request_gc}, {"__close", request_gc}, {"__tostring", request_tostring}, {NULL, NULL},
};
static const luaL_Reg request_methods[] = {{"close", request_gc}, {NULL, NULL}};

static const luaL_Reg manager_funcs[] = {
  {"seatbelt_policy", l_seatbelt_policy},
  {"seatbelt_wrap", l_seatbelt_wrap},
  {"transform", l_transform},
  {"exec", l_exec},
  {"select", l_select},
  {"requires_sandbox", l_requires_sandbox},
  {"host_platform", l_host_platform},
  {NULL, NULL},
};

int cordon_open_manager(lua_State *L) {
  cordon_lua_newclass(L, EXEC_REQUEST, request_methods, request_meta);
  lua_pop(L, 1);
  luaL_newmetatable(L, REQUEST_VIEW);
  lua_pushcfunction(L, request_view_index);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
  luaL_newlib(L, manager_funcs);
  lua_pushstring(L, CORDON_SEATBELT_HELPER);
  lua_setfield(L, -2, "SEATBELT_HELPER");
  return 1;
}
