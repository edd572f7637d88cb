/* src/lua/lsys.h — cordon.c.sys's primitives and how each keeps the run cache sound */
#ifndef CORDON_LSYS_H
#define CORDON_LSYS_H
#include <lua.h>
#include <stddef.h>

typedef enum {
  CORDON_SYS_RECORDS,  /* every call adds an observation that a replay repeats */
  CORDON_SYS_TAINTS,   /* every call marks the run as not cacheable */
  CORDON_SYS_NEUTRAL,  /* cannot change between a recorded run and its replay: `why` says why */
} cordon_sys_soundness;

typedef struct {
  const char *name;
  lua_CFunction fn;
  cordon_sys_soundness how;
  const char *why;  /* for CORDON_SYS_NEUTRAL */
} cordon_sys_primitive;

const cordon_sys_primitive *cordon_sys_primitives(size_t *count);
#endif
