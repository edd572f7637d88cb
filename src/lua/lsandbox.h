/* src/lua/lsandbox.h — the fence of cordon.c.sandbox, shared by lsandbox_fence.c and lsandbox.c */
#ifndef CORDON_LSANDBOX_H
#define CORDON_LSANDBOX_H
#include <lua.h>
#include <stdbool.h>
#include <stddef.h>

#define SANDBOX_DEFAULT_INSTRUCTIONS 10000000LL
#define SANDBOX_DEFAULT_MEMORY (32LL << 20)
#define SANDBOX_HOOK_STEP 100
#define SANDBOX_DEFAULT_SECONDS 2.0
#define SANDBOX_MAX_DEPTH 32
#define SANDBOX_MAX_ITEMS 200000

typedef struct {
  size_t used, limit;
  bool refused;           /* an allocation was refused because of the limit */
  long long budget;       /* instructions left; <= 0 means exhausted */
  bool exhausted;         /* the instruction budget or the time limit ran out */
  bool timed_out;
  double deadline;        /* CLOCK_MONOTONIC seconds */
  char where[160];        /* "file:line: " of the running script line, set by the hook */
  size_t copy_items, copy_bytes;  /* result copy accounting */
  long long budget_total;         /* the instructions given at the start */
  double seconds_left;            /* wall time left over every call made so far */
} sandbox;

/* CLOCK_MONOTONIC seconds. */
double cordon_sandbox_now(void);
/* The state's allocator: `ud` is its sandbox; growth past sb->limit is refused. */
void *cordon_sandbox_alloc(void *ud, void *ptr, size_t osize, size_t nsize);
/* The count hook charging SANDBOX_HOOK_STEP instructions and checking the clock. */
void cordon_sandbox_hook(lua_State *S, lua_Debug *ar);
/* lua_CFunction: opens the allowed libraries (charged where their C loops are unbounded) and removes
 * everything else; run it as a protected call in the new state. */
int cordon_sandbox_open_safe(lua_State *S);
#endif
