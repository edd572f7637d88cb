/* src/lua/lyaml.c — cordon.c.yaml (placeholder until its owner lands the real binding). */
#include "lua/lutil.h"

int cordon_open_yaml(lua_State *L) {
  lua_newtable(L);
  return 1;
}
