/* src/lua/lsession.c — cordon.c.session (placeholder until its owner lands the real binding). */
#include "lua/lutil.h"

int cordon_open_session(lua_State *L) {
  lua_newtable(L);
  return 1;
}
