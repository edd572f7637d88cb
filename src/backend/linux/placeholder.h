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

/* Creates the plan's placeholders and starts the cleaner. On success *notify_fd is the write end the
 * runtime reports the sandbox's mount namespace on (cordon_lx_placeholders_notify), closed on exec. */
cordon_lx_status cordon_lx_placeholders_start(const cordon_lx_plan *plan, int *notify_fd, cordon_buf *msg);

/* Tells the cleaner which mount namespace to wait for: call right after unshare, with `entered` false
 * when it failed (then there is no namespace to wait for, only this process). Closes notify_fd. */
void cordon_lx_placeholders_notify(int notify_fd, bool entered);
#endif
