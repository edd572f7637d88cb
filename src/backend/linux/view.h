/* src/backend/linux/view.h — the run's view: its file system, built by init (view.c). */
#ifndef CORDON_LINUX_VIEW_H
#define CORDON_LINUX_VIEW_H
#include "backend/linux/linux.h"

/* In init, in the run's own mount namespace (user namespace capabilities held): builds the view from
 * plan->mounts and pivots into it; the host's root is no longer reachable afterwards. The procfs it mounts
 * is the caller's PID namespace's, so init calls it. */
cordon_lx_status cordon_lx_view_build(const cordon_lx_plan *plan, cordon_buf *msg);
#endif
