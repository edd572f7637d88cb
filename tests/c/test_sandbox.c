/* tests/c/test_sandbox.c — cordon.c.sandbox and cordon.c.yaml from a plain C host, and their cleanup
 * when the *caller's* state runs out of memory part-way (every allocation failure handled, nothing
 * leaked: LeakSanitizer checks the sanitized build). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "lua/lutil.h"

#include <lualib.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  size_t used, limit;
} capped;

static void *capped_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  capped *c = ud;
  size_t old = ptr ? osize : 0;
  if (nsize == 0) {
    free(ptr);
    c->used -= old;
    return NULL;
  }
  if (nsize > old && c->used - old + nsize > c->limit) return NULL;
  void *p = realloc(ptr, nsize);
  if (p) c->used = c->used - old + nsize;
  return p;
}

static lua_State *host(capped *c) {
  c->used = 0;
  c->limit = SIZE_MAX;
  lua_State *L = lua_newstate(capped_alloc, c);
  assert_non_null(L);
  luaL_openlibs(L);
  luaL_requiref(L, "sandbox", cordon_open_sandbox, 1);
  luaL_requiref(L, "yaml", cordon_open_yaml, 1);
  lua_pop(L, 2);
  return L;
}

/* Runs `code` as a trusted chunk in L; returns the lua_pcall status and leaves the stack as it was. */
static int host_run(lua_State *L, const char *code) {
  int top = lua_gettop(L);
  int st = luaL_loadstring(L, code);
  if (st == LUA_OK) st = lua_pcall(L, 0, 0, 0);
  lua_settop(L, top);
  return st;
}

static void a_plain_c_host_can_run_a_script_and_read_its_result(void **state) {
  (void)state;
  capped c;
  lua_State *L = host(&c);
  assert_int_equal(host_run(L, "local v = assert(sandbox.run('return { a = { 1, 2 } }', '=t'))\n"
                               "assert(v.a[2] == 2)\n"
                               "assert(select(3, sandbox.run('return os', '=t')) == 'no_result')"),
                   LUA_OK);
  lua_close(L);
  assert_int_equal(c.used, 0);
}

/* Every allocation of the caller may fail while a result is copied out of the sandboxed state: each
 * failure must raise a memory error in the caller and still close the sandboxed state. */
static void caller_memory_failures_while_copying_a_result_leak_nothing(void **state) {
  (void)state;
  capped c;
  lua_State *L = host(&c);
  const char *code = "local ok = pcall(sandbox.run, \"local t = {} for i = 1, 300 do t[i] = { 'v' .. i } end return t\", '=t')";
  size_t base = c.used;
  int failures = 0, successes = 0;
  for (size_t extra = 0; extra < 96 * 1024; extra += 512) {
    lua_gc(L, LUA_GCCOLLECT);
    c.limit = base + extra;
    int st = host_run(L, code);
    c.limit = SIZE_MAX;
    if (st == LUA_OK) successes++;
    else failures++;
  }
  assert_true(successes > 0);
  assert_true(failures > 0);
  lua_close(L);
  assert_int_equal(c.used, 0);
}

/* The same for the YAML loader: libyaml's parser and event must be freed whatever allocation fails. */
static void caller_memory_failures_while_loading_yaml_leak_nothing(void **state) {
  (void)state;
  capped c;
  lua_State *L = host(&c);
  const char *code = "local items = {} for i = 1, 200 do items[i] = '  - item' .. i end\n"
                     "local text = 'list:\\n' .. table.concat(items, '\\n') .. '\\nname: x\\n'\n"
                     "local ok = pcall(yaml.load, text, 'f.yaml')";
  size_t base = c.used;
  int failures = 0, successes = 0;
  for (size_t extra = 0; extra < 128 * 1024; extra += 512) {
    lua_gc(L, LUA_GCCOLLECT);
    c.limit = base + extra;
    int st = host_run(L, code);
    c.limit = SIZE_MAX;
    if (st == LUA_OK) successes++;
    else failures++;
  }
  assert_true(successes > 0);
  assert_true(failures > 0);
  lua_close(L);
  assert_int_equal(c.used, 0);
}

static void a_sandboxed_state_left_to_the_collector_is_closed_once(void **state) {
  (void)state;
  capped c;
  lua_State *L = host(&c);
  /* A failure inside the sandboxed script closes its state at once; a success closes it after the
   * copy. Either way the collector later finds an already closed box and must not close it again. */
  assert_int_equal(host_run(L, "for i = 1, 20 do sandbox.run(i % 2 == 0 and 'return 1' or 'error(1)', '=t') end\n"
                               "collectgarbage()"),
                   LUA_OK);
  lua_close(L);
  assert_int_equal(c.used, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(a_plain_c_host_can_run_a_script_and_read_its_result),
    cmocka_unit_test(caller_memory_failures_while_copying_a_result_leak_nothing),
    cmocka_unit_test(caller_memory_failures_while_loading_yaml_leak_nothing),
    cmocka_unit_test(a_sandboxed_state_left_to_the_collector_is_closed_once),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
