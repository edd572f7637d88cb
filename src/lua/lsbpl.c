/* src/lua/lsbpl.c — cordon.c.sbpl (placeholder until its owner lands the real binding). */
#include "lua/lutil.h"

int cordon_open_sbpl(lua_State *L) {
  lua_newtable(L);
  return 1;
}
