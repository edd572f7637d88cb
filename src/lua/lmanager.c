/* src/lua/lmanager.c — cordon.c.manager (placeholder until its owner lands the real binding). */
#include "lua/lutil.h"

int cordon_open_manager(lua_State *L) {
  lua_newtable(L);
  return 1;
}
