/* src/lua/lboundary.c — cordon.c.boundary (placeholder until its owner lands the real binding). */
#include "lua/lutil.h"

int cordon_open_boundary(lua_State *L) {
  lua_newtable(L);
  return 1;
}
