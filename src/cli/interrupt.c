/* src/cli/interrupt.c — Ctrl-C for `cordon repl`: SIGINT stops the running chunk, not the process */
#include "cli/cli.h"

#include <lauxlib.h>
#include <signal.h>
#include <string.h>

/* A signal handler has no argument to carry the state: the one state running an interruptible chunk. */
static lua_State *running;
static volatile sig_atomic_t pending;

static void stop_hook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  lua_sethook(L, NULL, 0, 0);
  pending = 0;
  luaL_error(L, "interrupted");
}

static void on_sigint(int sig) {
  (void)sig;
  pending = 1;
  if (running) lua_sethook(running, stop_hook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT, 1);
}

/* No SA_RESTART: a read blocked at the prompt or inside the chunk returns EINTR instead of waiting. */
static void install(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
}

static int l_interruptible(lua_State *L) {
  luaL_checkany(L, 1);
  install();
  lua_pushboolean(L, 1);
  lua_insert(L, 1);
  lua_State *outer = running;
  running = L;
  pending = 0;
  int status = lua_pcall(L, lua_gettop(L) - 2, LUA_MULTRET, 0);
  running = outer;
  lua_sethook(L, NULL, 0, 0);  /* a SIGINT that came as the chunk returned must not hit the REPL */
  pending = 0;
  if (status != LUA_OK) {
    lua_pushboolean(L, 0);
    lua_insert(L, -2);
    return 2;
  }
  return lua_gettop(L);
}

int cordon_interrupt_take(void) {
  install();
  int was = pending != 0;
  pending = 0;
  return was;
}

static int l_take_interrupt(lua_State *L) {
  lua_pushboolean(L, cordon_interrupt_take());
  return 1;
}

const luaL_Reg cordon_interrupt_funcs[] = {
  {"interruptible", l_interruptible},
  {"take_interrupt", l_take_interrupt},
  {NULL, NULL},
};
