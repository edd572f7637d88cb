/* src/lua/lsandbox.c — cordon.c.sandbox (placeholder until its owner lands the real binding). */
#include "lua/lutil.h"

int cordon_open_sandbox(lua_State *L) {
  lua_newtable(L);
  return 1;
}
