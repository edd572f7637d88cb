/* src/backend/linux/placeholder.h — masks for protected paths that do not exist yet.
 *
 * A mount needs an existing mount point, so a missing protected path is masked at its first missing
 * component after creating it empty (as the caller, before any namespace). Removing it again must wait
 * until no process is left in the sandbox's mount namespace: on the host the placeholder is a plain
 * directory, and removing it would silently detach the mask from a sandboxed process still running (a
 * daemon the command left behind). So a detached cleaner process outside the sandbox waits for the
 * command, then for its namespace to empty, then removes what this run created — unless another run
 * still uses it (each run holds a shared flock on every placeholder it relies on). The command itself
 * is exec'd directly: no supervisor sits between it and the caller. The cleaner lingers a second before
 * removing, so a run right after adopts the placeholders still held instead of making them again. */
#ifndef CORDON_LINUX_PLACEHOLDER_H
#define CORDON_LINUX_PLACEHOLDER_H
#include "backend/linux/linux.h"

#include <stdint.h>
#include <sys/types.h>

/* --- the cleaner (cleaner.c) ----------------------------------------------------------------------- */
#define CORDON_LX_CLEANER_CREATED 0x80000000u  /* in a handed-over index: this run made it, so removes it */
typedef struct {
  pid_t pid;  /* -1: none */
  int sock;   /* our end: the placeholder list, then the namespace */
} cordon_lx_cleaner;

/* Forks a cleaner that waits for its list; the command it waits for is this process. The child
 * allocates nothing (safe even if another thread held a malloc lock at the fork). */
bool cordon_lx_cleaner_fork(const cordon_lx_plan *plan, cordon_lx_cleaner *c);
/* Sends the placeholders (plan mount indices, CORDON_LX_CLEANER_CREATED for those this run made) with
 * their locked descriptors. */
bool cordon_lx_cleaner_hand_over(cordon_lx_cleaner *c, const uint32_t *index, const int *fds, size_t n);
/* Lets an unused cleaner go, and reaps it. */
void cordon_lx_cleaner_dismiss(cordon_lx_cleaner *c);

/* --- placeholders (placeholder.c) ---------------------------------------------------------------- */
/* Creates (or adopts) the plan's placeholders, locks them and hands them to a new cleaner. On success
 * *notify_fd is where the runtime reports the sandbox's mount namespace (cordon_lx_placeholders_notify);
 * -1 when the plan has no placeholders. */
cordon_lx_status cordon_lx_placeholders_start(const cordon_lx_plan *plan, int *notify_fd, cordon_buf *msg);

/* Tells the cleaner which mount namespace to wait for: call right after unshare, with `entered` false
 * when it failed (then there is no namespace to wait for, only this process). Closes notify_fd. */
void cordon_lx_placeholders_notify(int notify_fd, bool entered);
#endif
