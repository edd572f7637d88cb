/* src/front/seccomp.c — seccomp in the static front, which has no libseccomp: only a program the run
 * cache stored for this machine can be applied (seccomp_stored.c). Without one the run is a miss before
 * anything was done (cordon_lx_seccomp_ready), and the full binary builds the filter. */
#include "backend/linux/seccomp.h"

bool cordon_lx_seccomp_ready(const cordon_lx_plan *plan) { return plan->seccomp_bpf && plan->seccomp_bpf_len; }

cordon_lx_status cordon_lx_seccomp_apply(const cordon_lx_plan *plan, cordon_buf *msg) {
  if (cordon_lx_seccomp_ready(plan)) return cordon_lx_seccomp_load_stored(plan, msg);
  cordon_buf_puts(msg, "no seccomp program stored for this plan (the front cannot build one)");
  return CORDON_LX_SETUP_FAILED;
}
