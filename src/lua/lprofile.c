/* src/lua/lprofile.c — cordon.c.profile (placeholder until its owner lands the real binding). */
#include "lua/lutil.h"

int cordon_open_profile(lua_State *L) {
  lua_newtable(L);
  return 1;
}
