/* src/lua/lsandbox_fence.c — the fence of a sandboxed lua_State: allocator, budget hook, charged calls, safe globals */
#include "lua/lsandbox.h"
#include "lua/lutil.h"

#include <lualib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double cordon_sandbox_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void *cordon_sandbox_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  sandbox *sb = ud;
  size_t old = ptr ? osize : 0;
  if (nsize == 0) {
    free(ptr);
    sb->used -= old;
    return NULL;
  }
  if (nsize > old && sb->used - old + nsize > sb->limit) {
    sb->refused = true;
    return NULL;
  }
  void *p = realloc(ptr, nsize);
  if (p) sb->used = sb->used - old + nsize;
  return p;
}

static sandbox *sandbox_of(lua_State *S) {
  void *ud;
  lua_getallocf(S, &ud);
  return ud;
}

/* Marks the budget spent; from now on every instruction raises, so pcall cannot swallow the limit. */
static void exhaust(lua_State *S, sandbox *sb) {
  sb->budget = 0;
  if (!sb->exhausted) {
    sb->exhausted = true;
    lua_sethook(S, cordon_sandbox_hook, LUA_MASKCOUNT, 1);
  }
}

/* Charges `cost` and tells whether the instruction budget or the wall-clock limit is now spent. The
 * clock is the safety net for work the instruction count cannot see (a long C call per instruction,
 * such as concatenating big strings); the count keeps ordinary limits deterministic. */
static bool over_limits(lua_State *S, sandbox *sb, long long cost) {
  sb->budget -= cost;
  if (!sb->exhausted && sb->budget > 0 && cordon_sandbox_now() <= sb->deadline) return false;
  if (!sb->exhausted && sb->budget > 0) sb->timed_out = true;
  exhaust(S, sb);
  return true;
}

/* Raises the limit error, prefixed by sb->where ("file:line: " or ""). */
static int raise_limit(lua_State *S, sandbox *sb, const char *detail) {
  lua_pushfstring(S, "%s%s%s", sb->where, sb->timed_out ? "time limit exceeded" : "instruction budget exceeded",
                  detail ? detail : "");
  return lua_error(S);
}

void cordon_sandbox_hook(lua_State *S, lua_Debug *ar) {
  sandbox *sb = sandbox_of(S);
  if (!over_limits(S, sb, sb->exhausted ? 1 : SANDBOX_HOOK_STEP)) return;
  /* Name the script line that was running: a budget error should point somewhere useful. */
  sb->where[0] = '\0';
  if (lua_getinfo(S, "Sl", ar) && ar->currentline > 0)
    snprintf(sb->where, sizeof sb->where, "%s:%d: ", ar->short_src, ar->currentline);
  raise_limit(S, sb, NULL);
}

/* Library functions whose work in C is not bounded by the memory cap: the hook cannot interrupt them, so
 * their cost is estimated and charged against the budget before they run. */
typedef enum {
  COST_PATTERN, /* find, match, gmatch, gsub */
  COST_REP,     /* string.rep: n iterations even when nothing is copied (answered here instead) */
  COST_LENGTH,  /* table.insert, table.remove: shift #t elements (and __len may claim any length) */
  COST_MOVE,    /* table.move: e - f + 1 steps */
  COST_CONCAT,  /* table.concat: j - i + 1 lookups, each of which may call a C __index */
  COST_SORT,    /* table.sort: about n log n comparisons, each of which may call a C __lt */
} cost_kind;

/* Upper bound of the Lua matcher's work: each variable-length item (*, +, -, ?) may retry at every
 * subject position, so (n+1)^(q+1) steps times the pattern length for q such items. */
static double pattern_cost(lua_State *S) {
  size_t n, plen;
  luaL_checklstring(S, 1, &n);
  const char *p = luaL_checklstring(S, 2, &plen);
  int quant = 0;
  for (size_t i = 0; i < plen; i++) {
    if (p[i] == '%') {
      /* %bxy scans ahead for its closing y, and %1-%9 compares a whole capture: like a quantifier, each
       * may do work proportional to the subject at every position */
      if (i + 1 < plen && (p[i + 1] == 'b' || (p[i + 1] >= '1' && p[i + 1] <= '9'))) quant++;
      i += i + 1 < plen && p[i + 1] == 'b' ? 3 : 1;
      continue;
    }
    if (p[i] == '*' || p[i] == '+' || p[i] == '-' || p[i] == '?') quant++;
  }
  double cost = (double)(n + 1) * (double)(plen + 1);
  for (int i = 0; i < quant && cost < 1e18; i++) cost *= (double)(n + 1);
  return cost;
}

/* The argument as luaL_checkinteger would take it; false when the original would refuse it. */
static bool as_integer(lua_State *S, int arg, lua_Integer *out) {
  int ok;
  *out = lua_tointegerx(S, arg, &ok);
  return ok;
}

static double call_cost(lua_State *S, cost_kind kind) {
  switch (kind) {
  case COST_PATTERN: return pattern_cost(S);
  case COST_REP: return 0; /* with something to copy, the memory cap bounds the iterations */
  case COST_LENGTH:
    if (lua_type(S, 1) != LUA_TTABLE) return 0; /* the original reports the misuse */
    return (double)luaL_len(S, 1);
  case COST_MOVE: {
    lua_Integer f, e;  /* as the original reads them: 1e15 and "9" are integers too */
    if (!as_integer(S, 2, &f) || !as_integer(S, 3, &e)) return 0;
    return e >= f ? (double)e - (double)f + 1 : 0;
  }
  case COST_CONCAT: {
    if (lua_isnoneornil(S, 1)) return 0;  /* the original reports the misuse */
    /* the bounds the original will use: i defaults to 1, j to #t (which may run a __len: charged itself) */
    lua_Integer i = 1, j = 0;
    if (!lua_isnoneornil(S, 3) && !as_integer(S, 3, &i)) return 0;
    if (lua_isnoneornil(S, 4)) j = luaL_len(S, 1);
    else if (!as_integer(S, 4, &j)) return 0;
    return j >= i ? (double)j - (double)i + 1 : 0;
  }
  case COST_SORT: {
    if (lua_isnoneornil(S, 1)) return 0;
    double n = (double)luaL_len(S, 1);
    return n > 1 ? 2 * n * (log2(n) + 1) : 0;
  }
  }
  return 0;
}

/* The wrapped function: upvalue 1 is the original, upvalue 2 its cost_kind. */
static int charged_call(lua_State *S) {
  int n = lua_gettop(S);
  cost_kind kind = (cost_kind)lua_tointeger(S, lua_upvalueindex(2));
  if (kind == COST_REP) {
    size_t l = 0, lsep = 0;
    luaL_optlstring(S, 1, "", &l);
    luaL_optlstring(S, 3, "", &lsep);
    if (l + lsep == 0) { /* Lua would loop n times copying nothing */
      lua_pushliteral(S, "");
      return 1;
    }
  }
  double cost = call_cost(S, kind);
  sandbox *sb = sandbox_of(S);
  bool too_costly = cost >= (double)sb->budget;
  if (too_costly ? (exhaust(S, sb), true) : over_limits(S, sb, (long long)cost)) {
    luaL_where(S, 1);  /* the script line calling this function */
    snprintf(sb->where, sizeof sb->where, "%s", lua_tostring(S, -1));
    lua_pop(S, 1);
    if (!too_costly) return raise_limit(S, sb, NULL);
    lua_pushfstring(S, " (a call costing about %f steps)", cost);
    return raise_limit(S, sb, lua_tostring(S, -1));
  }
  lua_pushvalue(S, lua_upvalueindex(1));
  lua_insert(S, 1);
  lua_call(S, n, LUA_MULTRET);
  return lua_gettop(S);
}

/* Replaces lib[name] with a charged wrapper; the library table is on top of the stack. */
static void charge(lua_State *S, const char *name, cost_kind kind) {
  lua_getfield(S, -1, name);
  lua_pushinteger(S, kind);
  lua_pushcclosure(S, charged_call, 2);
  lua_setfield(S, -2, name);
}

/* setmetatable without finalizers: Lua runs __gc with debug hooks disabled, so a finalizer would escape
 * the instruction budget and the clock. A __gc added to a metatable later never takes effect. */
static int safe_setmetatable(lua_State *S) {
  lua_settop(S, 2);
  if (lua_type(S, 2) == LUA_TTABLE) {
    lua_pushliteral(S, "__gc");
    if (lua_rawget(S, 2) != LUA_TNIL) return luaL_error(S, "__gc metamethods are not allowed in the sandbox");
    lua_pop(S, 1);
  }
  lua_pushvalue(S, lua_upvalueindex(1));
  lua_insert(S, 1);
  lua_call(S, 2, 1);
  return 1;
}

static const char *const safe_base[] = {
  "assert", "error", "getmetatable", "ipairs", "next", "pairs", "pcall", "rawequal", "rawget", "rawlen",
  "rawset", "select", "setmetatable", "tonumber", "tostring", "type", "xpcall", "_VERSION", NULL,
};

/* Opens the allowed libraries in S and removes everything else from its globals. */
int cordon_sandbox_open_safe(lua_State *S) {
  luaL_requiref(S, "_G", luaopen_base, 1);
  lua_pop(S, 1);
  lua_newtable(S); /* the new globals */
  int g = lua_gettop(S);
  lua_pushglobaltable(S);
  for (const char *const *n = safe_base; *n; n++) {
    lua_getfield(S, -1, *n);
    lua_setfield(S, g, *n);
  }
  lua_pop(S, 1);
  lua_getfield(S, g, "setmetatable");
  lua_pushcclosure(S, safe_setmetatable, 1);
  lua_setfield(S, g, "setmetatable");
  static const luaL_Reg libs[] = {
    {LUA_STRLIBNAME, luaopen_string}, {LUA_TABLIBNAME, luaopen_table},
    {LUA_MATHLIBNAME, luaopen_math},  {LUA_UTF8LIBNAME, luaopen_utf8},
    {NULL, NULL},
  };
  for (const luaL_Reg *l = libs; l->name; l++) {
    luaL_requiref(S, l->name, l->func, 0);
    lua_setfield(S, g, l->name);
  }
  /* Lua seeds math.random from the clock and an address: a fixed seed keeps the same inputs giving the
   * same policy, byte for byte (and a cached run valid) */
  lua_getfield(S, g, LUA_MATHLIBNAME);
  lua_getfield(S, -1, "randomseed");
  lua_pushinteger(S, 0);
  lua_call(S, 1, 0);
  lua_pop(S, 1);
  lua_getfield(S, g, LUA_STRLIBNAME);
  lua_pushnil(S);
  lua_setfield(S, -2, "dump");
  charge(S, "find", COST_PATTERN);
  charge(S, "match", COST_PATTERN);
  charge(S, "gmatch", COST_PATTERN);
  charge(S, "gsub", COST_PATTERN);
  charge(S, "rep", COST_REP);
  lua_pop(S, 1);
  lua_getfield(S, g, LUA_TABLIBNAME);
  charge(S, "insert", COST_LENGTH);
  charge(S, "remove", COST_LENGTH);
  charge(S, "move", COST_MOVE);
  charge(S, "concat", COST_CONCAT);
  charge(S, "sort", COST_SORT);
  lua_pop(S, 1);
  /* the strings' metatable, shared by every string: getmetatable("") answers false, so it cannot change */
  lua_pushliteral(S, "");
  if (lua_getmetatable(S, -1)) {
    lua_pushboolean(S, 0);
    lua_setfield(S, -2, "__metatable");
    lua_pop(S, 1);
  }
  lua_pop(S, 1);
  lua_pushvalue(S, g);
  lua_setfield(S, g, "_G");
  /* Replace the global table itself: the registry's LUA_RIDX_GLOBALS slot is what chunks see. */
  lua_rawseti(S, LUA_REGISTRYINDEX, LUA_RIDX_GLOBALS);
  /* The loaded-modules table still holds the full base library under "_G": drop it. */
  luaL_getsubtable(S, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  lua_pushnil(S);
  lua_setfield(S, -2, "_G");
  lua_pop(S, 1);
  return 0;
}

