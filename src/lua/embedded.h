/* src/lua/embedded.h — the Lua scripts and default profile tree compiled into the binary. */
#ifndef CORDON_EMBEDDED_H
#define CORDON_EMBEDDED_H
#include <stddef.h>

typedef struct {
  const char *name;  /* Lua: module name ("cordon.legacy"); profiles: relative path ("30-toolchains/node.sb") */
  const char *data;  /* NUL-terminated */
  size_t len;
  const char *bytecode;  /* Lua only: the same script precompiled by the build's liblua; NULL for profiles */
  size_t bytecode_len;
} cordon_embedded_file;

/* Both end with an entry whose name is NULL; both are sorted by name (strcmp). The generated file also
 * defines luaopen_cordon_<sub> for every Lua submodule, each a call of this (lcordon.c). */
struct lua_State;
int cordon_lua_open_submodule(struct lua_State *L, const char *name);
extern const cordon_embedded_file cordon_embedded_lua[];
extern const cordon_embedded_file cordon_embedded_profiles[];
#endif
