/* src/lua/lcheck.c — decide and lint methods of cordon.Policy (placeholder until issue 4 lands). */
#include "lua/lutil.h"

const luaL_Reg cordon_policy_check_methods[] = {{NULL, NULL}};
