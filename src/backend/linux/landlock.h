/* src/backend/linux/landlock.h — Landlock: the ABI probe and applying a plan's rules */
#ifndef CORDON_LINUX_LANDLOCK_H
#define CORDON_LINUX_LANDLOCK_H
#include "backend/linux/linux.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

/* The ABI the kernel reports (landlock_create_ruleset with LANDLOCK_CREATE_RULESET_VERSION), or 0 with
 * *err set to errno (ENOSYS: not built in; EOPNOTSUPP: built in but disabled at boot). */
int cordon_lx_landlock_abi(int *err);

/* Every filesystem right the ABI knows: what a ruleset handles (denies unless a rule allows). */
uint64_t cordon_lx_landlock_handled_fs(int abi);
/* The Landlock filesystem rights for access classes on a directory or a file, limited to `abi`. */
uint64_t cordon_lx_landlock_rights(unsigned access, bool is_dir, int abi);
/* "READ_FILE|READ_DIR|…" for explain and errors. */
void cordon_lx_landlock_right_names(uint64_t rights, cordon_buf *out);

/* --- building a ruleset (landlock.c) --------------------------------------------------------------- */
/* The ruleset `plan` needs; -1 with *err = errno on failure, or with *err = 0 when the plan restricts
 * nothing Landlock handles. */
int cordon_lx_landlock_create(const cordon_lx_plan *plan, int abi, int *err);

typedef enum {
  CORDON_LX_RULE_ADDED,        /* (or nothing to add: no rights apply, or a file Landlock cannot hold) */
  CORDON_LX_RULE_GONE,         /* the path vanished since compiling: skipped, which is less access */
  CORDON_LX_RULE_LATER,        /* soft: it failed; add it again on the main thread, which reports failures */
  CORDON_LX_RULE_OPEN_FAILED,  /* *err says why */
  CORDON_LX_RULE_ADD_FAILED,
} cordon_lx_rule_result;

/* Adds `r`'s rule through `pfd`, an O_PATH descriptor of what its path resolves to (closed here);
 * *rights is what was asked. Allocates nothing, so it may run on a helper thread. */
cordon_lx_rule_result cordon_lx_landlock_add_fd(int ruleset, int pfd, const cordon_lx_rule *r, int abi, bool soft,
                                                uint64_t *rights, int *err);
/* Opens `r`'s path (following symlinks) and adds its rule. */
cordon_lx_rule_result cordon_lx_landlock_add(int ruleset, const cordon_lx_rule *r, int abi, uint64_t *rights,
                                             int *err);
/* The message for a failed cordon_lx_landlock_add, naming the path and its source rule. */
void cordon_lx_landlock_describe_failure(const cordon_lx_rule *r, cordon_lx_rule_result res, uint64_t rights, int err,
                                         cordon_buf *msg);

/* --- ahead of time (landlock_ahead.c) ----------------------------------------------------------------
 * A cache hit knows its plan before it has checked the entry still holds: the rules whose inodes cannot
 * depend on the sandbox's mounts (a plain path, with no symlink, outside every planned mount) are
 * opened and added by a helper thread meanwhile, and by the main thread once its replay is done. The
 * rest is added after the mounts, as without it; enforcing stays last. */
struct cordon_lx_landlock_ahead {
  const cordon_lx_plan *plan;  /* set when offered */
  int abi;
  int ruleset;                 /* -1: none ahead */
  unsigned char *done;         /* per rule: added (or found gone) ahead */
  atomic_int state;            /* waiting for a plan, offered, cancelled */
  atomic_size_t next;          /* the next rule to claim */
  atomic_bool helper_done;
  atomic_int tid;              /* the helper's thread id, to see it gone from the thread group */
  bool running, settled;
  pthread_t thread;
};

/* Starts the helper, which waits for a plan (false: nothing ahead, which is always safe). */
bool cordon_lx_landlock_ahead_start(cordon_lx_landlock_ahead *a);
/* Hands the helper `plan` to work on (NULL: nothing to do, let it go). */
void cordon_lx_landlock_ahead_offer(cordon_lx_landlock_ahead *a, cordon_lx_plan *plan, int abi);
/* Takes rules alongside the helper until none is left, then waits (spinning) for the helper's last rule.
 * The thread may still be leaving: it allocates and locks nothing any more, so a fork now is safe. */
void cordon_lx_landlock_ahead_settle(cordon_lx_landlock_ahead *a);
/* Settles, then waits (spinning) for the helper to leave the thread group: a user namespace needs a
 * single thread, and its exit takes ~0.08 ms on these machines. */
void cordon_lx_landlock_ahead_finish(cordon_lx_landlock_ahead *a);
/* Finishes and releases everything (the ruleset too, unless cordon_lx_landlock_apply took it). */
void cordon_lx_landlock_ahead_free(cordon_lx_landlock_ahead *a);

/* Builds the ruleset for `plan` (finishing `ahead`'s, when given and made for this ABI) and enforces it
 * on the calling thread (no_new_privs must be set). A path that vanished since compiling is skipped
 * (less access); any other failure is returned with `msg`. */
cordon_lx_status cordon_lx_landlock_apply(const cordon_lx_plan *plan, int abi, cordon_lx_landlock_ahead *ahead,
                                          cordon_buf *msg);
#endif
