/* src/backend/linux/mounts.h — the mount namespace: masks for what Landlock cannot deny.
 *
 * Called inside a fresh mount namespace (runtime.c makes it). Makes every mount private first so nothing
 * propagates back to the host, then applies the plan's mounts in order. Remounts keep the flags the
 * kernel locks in a user namespace (nosuid, nodev, noexec, atime), read back with statvfs. */
#ifndef CORDON_LINUX_MOUNTS_H
#define CORDON_LINUX_MOUNTS_H
#include "backend/linux/linux.h"

cordon_lx_status cordon_lx_mounts_apply(const cordon_lx_plan *plan, cordon_buf *msg);

#endif
