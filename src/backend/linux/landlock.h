/* src/backend/linux/landlock.h — Landlock: the ABI probe and applying a plan's rules.
 *
 * The system <linux/landlock.h> may predate the running kernel, so the uapi pieces newer than ABI 2
 * (TRUNCATE, IOCTL_DEV, TCP ports, scoping) are declared here from the kernel's documented ABI
 * (Documentation/userspace-api/landlock.rst; include/uapi/linux/landlock.h). */
#ifndef CORDON_LINUX_LANDLOCK_H
#define CORDON_LINUX_LANDLOCK_H
#include "backend/linux/linux.h"

#include <stdint.h>

/* The ABI the kernel reports (landlock_create_ruleset with LANDLOCK_CREATE_RULESET_VERSION), or 0 with
 * *err set to errno (ENOSYS: not built in; EOPNOTSUPP: built in but disabled at boot). */
int cordon_lx_landlock_abi(int *err);

/* Every filesystem right the ABI knows: what a ruleset handles (denies unless a rule allows). */
uint64_t cordon_lx_landlock_handled_fs(int abi);
/* The Landlock filesystem rights for access classes on a directory or a file, limited to `abi`. */
uint64_t cordon_lx_landlock_rights(unsigned access, bool is_dir, int abi);
/* "READ_FILE|READ_DIR|…" for explain and errors. */
void cordon_lx_landlock_right_names(uint64_t rights, cordon_buf *out);

/* Builds the ruleset for `plan` and enforces it on the calling thread (no_new_privs must be set). A path
 * that vanished since compiling is skipped (less access); any other failure is returned with `msg`. */
cordon_lx_status cordon_lx_landlock_apply(const cordon_lx_plan *plan, int abi, cordon_buf *msg);
#endif
