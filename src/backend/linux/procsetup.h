/* src/backend/linux/procsetup.h — what a run's processes set up themselves: descriptors, keyring, no user namespaces */
#ifndef CORDON_LINUX_PROCSETUP_H
#define CORDON_LINUX_PROCSETUP_H
#include "backend/linux/linux.h"

#include <stddef.h>

/* In the command, right before execve (after it handed its listener to init): closes every descriptor
 * above 2 but those in `keep` (--pass-fd), which are made to survive execve (close-on-exec cleared).
 * close_range between them, or /proc/self/fd where close_range is missing. A kept descriptor that is not
 * open is SETUP_FAILED: the run would not get what it was promised. */
cordon_lx_status cordon_lx_fds_close_inherited(const int *keep, size_t n, cordon_buf *msg);

/* In init, before the base seccomp filter (which refuses keyctl): joins a new anonymous session keyring,
 * so the run's processes share none with the caller's session. Linux's user keyring is per user
 * namespace since 5.3, so the run's fresh user namespace gets its own, empty one; keys the caller added
 * stay readable by serial number only to a process that may call keyctl, which the base filter refuses.
 * A kernel without keyrings is fine: there is nothing to share. */
cordon_lx_status cordon_lx_keyring_fresh(cordon_buf *msg);

/* In init, in the run's own user namespace while it still holds CAP_SYS_RESOURCE there: sets that
 * namespace's user.max_user_namespaces to 0, so nothing inside can create one by any syscall (clone3's
 * flags included; bubblewrap's --disable-userns does the same). Refuses to touch the machine's own
 * (initial) user namespace: SETUP_FAILED then, and nothing is written. */
cordon_lx_status cordon_lx_userns_forbid(cordon_buf *msg);
#endif
