/* src/lua/lsandbox.c — cordon.c.sandbox: run untrusted Lua text in a fresh, fenced lua_State */
#include "lua/lsandbox.h"
#include "lua/lutil.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* The sandboxed state lives in a userdata of the caller, so that a Lua error raised in the caller
 * (out of memory while copying the result, say) still closes it, exactly once, through __gc. */
typedef struct {
  lua_State *S;
  sandbox sb;
  int entries;  /* registry ref in S of the prelude's table of entry points, or LUA_NOREF */
} sandbox_box;

#define SANDBOX_BOX "cordon.SandboxState"

typedef struct {
  sandbox *sb;
  const char *why;  /* set when the result cannot be copied */
} copy_state;

/* Copies the value at index `i` of S onto L. Raw access only: no metamethod of the script runs here. */
static bool copy_value(lua_State *L, lua_State *S, int i, int depth, copy_state *c) {
  if (++c->sb->copy_items > SANDBOX_MAX_ITEMS) {
    c->why = "the result has too many values";
    return false;
  }
  if (!lua_checkstack(L, 4) || !lua_checkstack(S, 4)) {
    c->why = "the result is nested too deeply";
    return false;
  }
  switch (lua_type(S, i)) {
  case LUA_TNIL: lua_pushnil(L); return true;
  case LUA_TBOOLEAN: lua_pushboolean(L, lua_toboolean(S, i)); return true;
  case LUA_TNUMBER:
    if (lua_isinteger(S, i)) lua_pushinteger(L, lua_tointeger(S, i));
    else lua_pushnumber(L, lua_tonumber(S, i));
    return true;
  case LUA_TSTRING: {
    size_t len;
    const char *s = lua_tolstring(S, i, &len);
    c->sb->copy_bytes += len;
    if (c->sb->copy_bytes > c->sb->limit) {
      c->why = "the result is larger than the memory limit";
      return false;
    }
    lua_pushlstring(L, s, len);
    return true;
  }
  case LUA_TTABLE: {
    if (depth >= SANDBOX_MAX_DEPTH) {
      c->why = "the result is nested deeper than 32 levels (or contains a cycle)";
      return false;
    }
    int t = lua_absindex(S, i);
    lua_newtable(L);
    lua_pushnil(S);
    while (lua_next(S, t)) {
      int kt = lua_type(S, -2);
      if (kt != LUA_TSTRING && kt != LUA_TNUMBER && kt != LUA_TBOOLEAN) {
        c->why = "a table key is not a string, number or boolean";
        return false;
      }
      if (!copy_value(L, S, -2, depth + 1, c) || !copy_value(L, S, -1, depth + 1, c)) return false;
      lua_rawset(L, -3);
      lua_pop(S, 1);
    }
    return true;
  }
  default:
    c->why = lua_type(S, i) == LUA_TFUNCTION ? "the result contains a function"
           : lua_type(S, i) == LUA_TTHREAD   ? "the result contains a coroutine"
                                             : "the result contains userdata";
    return false;
  }
}

/* Copies `globals` (plain data in the caller) into S's global table. It runs as a protected call in S,
 * so running out of sandbox memory while copying is an ordinary error, not a panic. */
typedef struct {
  lua_State *L;
  int gi;
  sandbox *sb;
  const char *why;
} inject_args;

static int inject_globals(lua_State *S) {
  inject_args *a = lua_touserdata(S, 1);
  lua_State *L = a->L;
  copy_state c = {a->sb, NULL};
  lua_pushglobaltable(S);
  lua_pushnil(L);
  while (lua_next(L, a->gi)) {
    if (lua_type(L, -2) != LUA_TSTRING) {
      a->why = "globals keys must be strings";
      lua_pop(L, 2);
      return 0;
    }
    bool ok = copy_value(S, L, -2, 0, &c) && copy_value(S, L, -1, 0, &c);
    lua_pop(L, 1);
    if (!ok) {
      a->why = c.why ? c.why : "cannot copy globals";
      lua_pop(L, 1);
      return 0;
    }
    lua_rawset(S, -3);
  }
  return 0;
}

static int box_close(lua_State *L) {
  sandbox_box *box = luaL_checkudata(L, 1, SANDBOX_BOX);
  if (box->S) lua_close(box->S);
  box->S = NULL;
  return 0;
}

static int box_tostring(lua_State *L) {
  sandbox_box *box = luaL_checkudata(L, 1, SANDBOX_BOX);
  lua_pushfstring(L, "cordon.SandboxState (%s, %d bytes)", box->S ? "open" : "closed", (int)box->sb.used);
  return 1;
}

static int state_run(lua_State *L);
static int state_call(lua_State *L);
static int state_stats(lua_State *L);

static const luaL_Reg state_methods[] = {
  {"run", state_run},
  {"call", state_call},
  {"stats", state_stats},
  {"close", box_close},
  {NULL, NULL},
};

static const luaL_Reg box_meta[] = {
  {"__gc", box_close},
  {"__close", box_close},
  {"__tostring", box_tostring},
  {NULL, NULL},
};

static long long opt_positive(lua_State *L, int t, const char *key, long long dflt) {
  if (t == 0) return dflt;  /* no options table */
  lua_getfield(L, t, key);
  long long v = (long long)luaL_optinteger(L, -1, dflt);
  lua_pop(L, 1);
  if (v <= 0) luaL_error(L, "sandbox option '%s' must be positive", key);
  return v;
}

/* A message for the caller from the error object on top of S: strings and numbers as they are. */
static void push_error_text(lua_State *L, lua_State *S) {
  /* A number is formatted on L's side: converting it in S would allocate outside protected mode. */
  size_t len;
  const char *text = lua_type(S, -1) == LUA_TSTRING ? lua_tolstring(S, -1, &len) : NULL;
  if (text) lua_pushlstring(L, text, len);  /* whole: a NUL inside must not cut it short */
  else if (lua_isinteger(S, -1)) lua_pushfstring(L, "%I", lua_tointeger(S, -1));
  else if (lua_type(S, -1) == LUA_TNUMBER) lua_pushfstring(L, "%f", lua_tonumber(S, -1));
  else lua_pushfstring(L, "(error object is a %s value)", luaL_typename(S, -1));
}

/* Closes the sandboxed state and returns the failure triple. `msg` may live on L's stack. */
static int finish_fail(lua_State *L, sandbox_box *box, const char *code, const char *msg) {
  lua_pushstring(L, msg);
  if (box->S) lua_close(box->S);
  box->S = NULL;
  return cordon_lua_fail(L, code, "%s", lua_tostring(L, -1));
}

/* "file:line" of the function `level` calls up from the caller, or nil: handed to the prelude only, so
 * its helpers can record where a script called them (the sandbox has no debug library). */
static int l_where(lua_State *S) {
  lua_Debug ar;
  lua_Integer level = luaL_optinteger(S, 1, 1);
  if (level < 0 || level > 64 || !lua_getstack(S, (int)level, &ar) || !lua_getinfo(S, "Sl", &ar) || ar.currentline <= 0)
    return 0;
  /* the whole file name ("@path"), not short_src, which cuts a long path to its last 60 bytes */
  lua_pushfstring(S, "%s:%d", ar.source[0] == '@' ? ar.source + 1 : ar.short_src, ar.currentline);
  return 1;
}

/* The code of a failed pcall in S. */
static const char *failure_code(sandbox *sb, int st) {
  if (sb->exhausted) return "budget_exceeded";
  return (st == LUA_ERRMEM || sb->refused) ? "memory_exceeded" : "lua_error";
}

/* Pushes a box holding a new fenced state made from the options at index `o` (0: none). Returns 0, or
 * the number of values of the failure triple it pushed instead. The prelude, when given, runs with
 * the position helper (l_where) as its argument; a table it returns is kept as the state's entry points,
 * out of the script's reach. */
static int open_box(lua_State *L, int o, sandbox_box **out) {
  long long budget = opt_positive(L, o, "instructions", SANDBOX_DEFAULT_INSTRUCTIONS);
  long long memory = opt_positive(L, o, "memory", SANDBOX_DEFAULT_MEMORY);
  double seconds = SANDBOX_DEFAULT_SECONDS;
  int globals = 0;
  const char *prelude = NULL;
  size_t prelude_len = 0;
  if (o) {
    if (lua_getfield(L, o, "prelude") == LUA_TSTRING) prelude = lua_tolstring(L, -1, &prelude_len);
    else if (!lua_isnil(L, -1)) luaL_error(L, "sandbox option 'prelude' must be a string");
    lua_getfield(L, o, "seconds");
    seconds = luaL_optnumber(L, -1, SANDBOX_DEFAULT_SECONDS);
    if (!(seconds > 0)) luaL_error(L, "sandbox option 'seconds' must be positive");
    if (lua_getfield(L, o, "globals") == LUA_TTABLE) globals = lua_gettop(L);
    else if (!lua_isnil(L, -1)) luaL_error(L, "sandbox option 'globals' must be a table");
  }

  sandbox_box *box = lua_newuserdatauv(L, sizeof *box, 0);
  memset(box, 0, sizeof *box);
  cordon_lua_newclass(L, SANDBOX_BOX, state_methods, box_meta);
  lua_setmetatable(L, -2);
  *out = box;
  sandbox *sb = &box->sb;
  sb->budget = sb->budget_total = budget;
  sb->limit = (size_t)memory;
  sb->seconds_left = seconds;
  sb->deadline = cordon_sandbox_now() + seconds;
  box->entries = LUA_NOREF;

  box->S = lua_newstate(cordon_sandbox_alloc, sb);
  lua_State *S = box->S;
  if (!S) return cordon_lua_fail(L, "memory_exceeded", "the memory limit is too small to create a Lua state");
  lua_pushcfunction(S, cordon_sandbox_open_safe);
  if (lua_pcall(S, 0, 0, 0) != LUA_OK) return finish_fail(L, box, "memory_exceeded", "the memory limit is too small");
  if (globals) {
    inject_args args = {L, globals, sb, NULL};
    lua_pushcfunction(S, inject_globals);
    lua_pushlightuserdata(S, &args);
    if (lua_pcall(S, 1, 0, 0) != LUA_OK) return finish_fail(L, box, "memory_exceeded", "globals exceed the memory limit");
    if (args.why) return finish_fail(L, box, "bad_result", args.why);
  }
  /* The hook is installed before anything runs and stays until lua_close. */
  lua_sethook(S, cordon_sandbox_hook, LUA_MASKCOUNT, SANDBOX_HOOK_STEP);
  if (prelude) {
    int st = luaL_loadbufferx(S, prelude, prelude_len, "=prelude", "t");
    if (st == LUA_OK) {
      lua_pushcfunction(S, l_where);
      st = lua_pcall(S, 1, 1, 0);
    }
    if (st != LUA_OK) {
      push_error_text(L, S);
      return finish_fail(L, box, failure_code(sb, st), lua_tostring(L, -1));
    }
    if (lua_type(S, -1) == LUA_TTABLE) box->entries = luaL_ref(S, LUA_REGISTRYINDEX);
    else lua_pop(S, 1);
  }
  return 0;
}

/* Copies the value at S's stack top onto L; on failure closes the state and pushes the triple. Returns
 * 1 when copied, else the number of values pushed. The copy walks raw tables only, with collection
 * stopped, so no code of the script runs meanwhile. */
static int copy_out(lua_State *L, sandbox_box *box) {
  lua_State *S = box->S;
  sandbox *sb = &box->sb;
  lua_gc(S, LUA_GCSTOP);
  copy_state c = {sb, NULL};
  sb->copy_items = sb->copy_bytes = 0;  /* the globals copied in do not count against the result */
  int top = lua_gettop(L);
  bool ok = copy_value(L, S, -1, 0, &c);
  lua_gc(S, LUA_GCRESTART);
  lua_pop(S, 1);
  if (!ok) {
    lua_settop(L, top);
    return -finish_fail(L, box, "bad_result", c.why);
  }
  return 1;
}

static void push_stats(lua_State *L, sandbox *sb) {
  lua_createtable(L, 0, 2);
  lua_pushinteger(L, (lua_Integer)(sb->budget_total - (sb->budget > 0 ? sb->budget : 0)));
  lua_setfield(L, -2, "instructions");
  lua_pushinteger(L, (lua_Integer)sb->used);
  lua_setfield(L, -2, "memory");
}

/* Runs the function below `nargs` arguments on S's stack under the remaining time, leaving one result;
 * on failure closes the state and returns the count of the pushed triple (else 0). */
static int protected_call(lua_State *L, sandbox_box *box, int nargs) {
  sandbox *sb = &box->sb;
  double start = cordon_sandbox_now();
  sb->deadline = start + sb->seconds_left;
  int st = lua_pcall(box->S, nargs, 1, 0);
  sb->seconds_left -= cordon_sandbox_now() - start;
  if (sb->seconds_left <= 0) sb->seconds_left = 1e-9;  /* the next call times out at once */
  if (st == LUA_OK) return 0;
  push_error_text(L, box->S);
  return finish_fail(L, box, failure_code(sb, st), lua_tostring(L, -1));
}

/* In S, protected (a lookup may allocate, and S may be at its memory limit): entries[name] or nil. */
static int get_entry(lua_State *S) {
  const char *name = lua_touserdata(S, 1);
  lua_rawgeti(S, LUA_REGISTRYINDEX, (lua_Integer)lua_tointeger(S, 2));
  lua_pushstring(S, name);
  lua_rawget(S, -2);
  return 1;
}

/* Pushes onto S the entry point `name` of the prelude's table. Returns 0, or the failure triple's count
 * (the state closed); raises (misuse) when there is no such entry point. */
static int push_entry(lua_State *L, sandbox_box *box, const char *name) {
  lua_State *S = box->S;
  if (box->entries == LUA_NOREF) luaL_error(L, "this sandbox state has no entry points (its prelude returned none)");
  lua_pushcfunction(S, get_entry);
  lua_pushlightuserdata(S, (void *)name);
  lua_pushinteger(S, box->entries);
  if (lua_pcall(S, 2, 1, 0) != LUA_OK) return finish_fail(L, box, "memory_exceeded", "the memory limit is reached");
  if (lua_type(S, -1) != LUA_TFUNCTION) {
    lua_pop(S, 1);
    return luaL_error(L, "the sandbox has no entry point '%s'", name);
  }
  return 0;
}

static sandbox_box *check_open(lua_State *L) {
  sandbox_box *box = luaL_checkudata(L, 1, SANDBOX_BOX);
  if (!box->S) luaL_error(L, "the sandbox state is closed (it failed or was closed)");
  return box;
}

/* Loads text chunk `code` named `name` into S and leaves it on S's stack; else closes and pushes the triple. */
static int load_chunk(lua_State *L, sandbox_box *box, const char *code, size_t len, const char *name) {
  if (len >= 1 && code[0] == LUA_SIGNATURE[0])
    return finish_fail(L, box, "lua_syntax", "precompiled chunks are refused; give Lua source text");
  int st = luaL_loadbufferx(box->S, code, len, name, "t");
  if (st == LUA_OK) return 0;
  push_error_text(L, box->S);
  return finish_fail(L, box, st == LUA_ERRMEM ? "memory_exceeded" : "lua_syntax", lua_tostring(L, -1));
}

/* state:run(code, chunkname [, entry]) -> value | nil, msg, code: runs the chunk, or with `entry` calls
 * that entry point with the loaded chunk as its argument. Its first result is copied out as plain data. */
static int state_run(lua_State *L) {
  sandbox_box *box = check_open(L);
  size_t len;
  const char *code = luaL_checklstring(L, 2, &len);
  const char *name = cordon_lua_optstring(L, 3, "=sandbox");
  const char *entry = cordon_lua_optstring(L, 4, NULL);
  int n;
  if (entry && (n = push_entry(L, box, entry))) return n;
  if ((n = load_chunk(L, box, code, len, name))) return n;
  if ((n = protected_call(L, box, entry ? 1 : 0))) return n;
  n = copy_out(L, box);
  return n > 0 ? n : -n;
}

/* Copies the caller's argument (plain data) onto S inside a protected call. */
typedef struct {
  lua_State *L;
  int index;
  sandbox *sb;
  const char *why;
} copy_in_args;

static int copy_in(lua_State *S) {
  copy_in_args *a = lua_touserdata(S, 1);
  copy_state c = {a->sb, NULL};
  a->sb->copy_items = a->sb->copy_bytes = 0;
  if (!copy_value(S, a->L, a->index, 0, &c)) {
    a->why = c.why ? c.why : "cannot copy the argument";
    return 0;
  }
  return 1;
}

/* state:call(entry, value) -> value | nil, msg, code: calls an entry point with a copy of `value`. */
static int state_call(lua_State *L) {
  sandbox_box *box = check_open(L);
  const char *entry = cordon_lua_checkstring(L, 2);
  lua_settop(L, 3);
  lua_State *S = box->S;
  int n = push_entry(L, box, entry);
  if (n) return n;
  copy_in_args a = {L, 3, &box->sb, NULL};
  lua_pushcfunction(S, copy_in);
  lua_pushlightuserdata(S, &a);
  if (lua_pcall(S, 1, 1, 0) != LUA_OK) return finish_fail(L, box, "memory_exceeded", "the argument exceeds the memory limit");
  if (a.why) return finish_fail(L, box, "bad_result", a.why);
  n = protected_call(L, box, 1);
  if (n) return n;
  n = copy_out(L, box);
  return n > 0 ? n : -n;
}

/* state:stats() -> { instructions = used so far, memory = bytes in use } */
static int state_stats(lua_State *L) {
  sandbox_box *box = luaL_checkudata(L, 1, SANDBOX_BOX);
  push_stats(L, &box->sb);
  return 1;
}

/* open({instructions=, memory=, seconds=, globals=, prelude=}) -> SandboxState | nil, msg, code: a state
 * that keeps what the script defined between calls (its hooks), one budget for all of them. */
static int l_open(lua_State *L) {
  int o = 0;
  if (!lua_isnoneornil(L, 1)) {
    luaL_checktype(L, 1, LUA_TTABLE);
    o = 1;
  }
  sandbox_box *box;
  int n = open_box(L, o, &box);
  if (n) return n;
  return 1;
}

/* run(code, chunkname [, {instructions=, memory=, seconds=, globals=, prelude=}])
 *   -> value, stats | nil, msg, code
 * `prelude` is trusted Lua text run first in the same fenced state (helper functions for the script). */
static int l_run(lua_State *L) {
  size_t len;
  const char *code = luaL_checklstring(L, 1, &len);
  const char *name = cordon_lua_optstring(L, 2, "=sandbox");
  int o = 0;
  if (!lua_isnoneornil(L, 3)) {
    luaL_checktype(L, 3, LUA_TTABLE);
    o = 3;
  }
  sandbox_box *box;
  int n = open_box(L, o, &box);
  if (n) return n;
  if ((n = load_chunk(L, box, code, len, name))) return n;
  if ((n = protected_call(L, box, 0))) return n;
  if (lua_isnil(box->S, -1)) return finish_fail(L, box, "no_result", "the script returned no value");
  n = copy_out(L, box);
  if (n < 0) return -n;
  push_stats(L, &box->sb);
  lua_close(box->S);
  box->S = NULL;
  return 2;
}

static const luaL_Reg sandbox_funcs[] = {
  {"run", l_run},
  {"open", l_open},
  {NULL, NULL},
};

int cordon_open_sandbox(lua_State *L) {
  luaL_newlib(L, sandbox_funcs);
  return 1;
}
