/* tests/fuzz/fuzz_yaml.c — libFuzzer target over the config loader's inputs: cordon.c.yaml (libyaml
 * events -> positioned nodes), the schema in lua/cordon/config.lua that validates them, and the trust
 * list (lua/cordon/trust.lua), all fed the same bytes.
 *
 * Any input must end in a node tree or a clean "config_error: FILE:LINE:COL: …" failure, and the schema
 * must answer with values or a located config_error: a Lua error raised anywhere else is a bug, as is
 * a node without kind or position. */
#include "cordon.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Returns true when the input was handled as designed; raises (a bug) otherwise. */
static const char probe[] =
    "local yaml = require 'cordon.c.yaml'\n"
    "local config = require 'cordon.config'\n"
    "local trust = require 'cordon.trust'\n"
    "local function walk(n, depth)\n"
    "  assert(type(n) == 'table', 'a node is a table')\n"
    "  assert(math.type(n.line) == 'integer' and n.line >= 1, 'a node has a line')\n"
    "  assert(math.type(n.col) == 'integer' and n.col >= 1, 'a node has a column')\n"
    "  assert(depth <= 70, 'nesting is bounded')\n"
    "  if n.kind == 'scalar' then assert(type(n.value) == 'string', 'a scalar has text')\n"
    "  elseif n.kind == 'seq' then for _, c in ipairs(n.items) do walk(c, depth + 1) end\n"
    "  elseif n.kind == 'map' then\n"
    "    assert(#n.keys == #n.values, 'a map has as many keys as values')\n"
    "    for i, k in ipairs(n.keys) do assert(k.kind == 'scalar', 'keys are scalars'); walk(n.values[i], depth + 1) end\n"
    "  else error('unknown node kind ' .. tostring(n.kind)) end\n"
    "end\n"
    "return function(text)\n"
    "  local root, err, code = yaml.load(text, 'f.yaml')\n"
    "  if root then walk(root, 0)\n"
    "  else assert(code == 'config_error' and err:match('^config_error: f%.yaml:%d+:%d+: '), err) end\n"
    "  for _, kind in ipairs { 'user', 'workdir' } do\n"
    "    local v, e = config.parse(text, { file = 'f.yaml', kind = kind, home = '/h', base = '/w' })\n"
    "    if v then assert(type(v) == 'table')\n"
    "    else assert(e:match('^config_error: f%.yaml:%d+:%d+: '), e) end\n"
    "  end\n"
    "  local list, lerr = trust.read_list('trusted', text)\n"
    "  if list then for _, e in ipairs(list) do assert(e.path:sub(1, 1) == '/' and e.line >= 1, 'an entry is absolute') end\n"
    "  else assert(lerr:match('^config_error: trusted:%d+:%d+: '), lerr) end\n"
    "end\n";

/* A fresh state per input: everything the input made is freed with it, so a leak in the binding shows
 * up as a leak of that input (LeakSanitizer runs after each one whose mallocs and frees differ). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  lua_State *L = luaL_newstate();
  if (!L) return 0;
  luaL_openlibs(L);
  luaL_requiref(L, "cordon", luaopen_cordon, 0);
  lua_pop(L, 1);
  if (luaL_loadstring(L, probe) != LUA_OK || lua_pcall(L, 0, 1, 0) != LUA_OK) {
    fprintf(stderr, "fuzz_yaml: %s\n", lua_tostring(L, -1));
    __builtin_trap();
  }
  lua_pushlstring(L, (const char *)data, size);
  if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
    fprintf(stderr, "fuzz_yaml: %s\n", lua_tostring(L, -1));
    __builtin_trap();
  }
  lua_close(L);
  return 0;
}
