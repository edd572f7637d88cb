/* src/lua/lpath.c — cordon.c.path (placeholder until its owner lands the real binding). */
#include "lua/lutil.h"

int cordon_open_path(lua_State *L) {
  lua_newtable(L);
  return 1;
}
