/* src/lua/llinux.c — cordon.c.linux (placeholder until its owner lands the real binding). */
#include "lua/lutil.h"

int cordon_open_linux(lua_State *L) {
  lua_newtable(L);
  return 1;
}
