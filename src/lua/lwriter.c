/* src/lua/lwriter.c — cordon.c.writer (placeholder until its owner lands the real binding). */
#include "lua/lutil.h"

int cordon_open_writer(lua_State *L) {
  lua_newtable(L);
  return 1;
}
