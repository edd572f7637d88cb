/* src/front/seccomp.c — seccomp in the static front, which has no libseccomp: only programs the run cache stored */
#include "backend/linux/seccomp.h"

bool cordon_lx_seccomp_ready(const cordon_lx_plan *plan) { return cordon_lx_seccomp_stored(plan); }

cordon_lx_status cordon_lx_seccomp_apply_base(const cordon_lx_plan *plan, cordon_buf *msg) {
  return cordon_lx_seccomp_load_stored(plan, CORDON_LX_SECCOMP_BASE, NULL, msg);
}

cordon_lx_status cordon_lx_seccomp_apply_gate(const cordon_lx_plan *plan, int *listener, cordon_buf *msg) {
  *listener = -1;
  return cordon_lx_seccomp_load_stored(plan, CORDON_LX_SECCOMP_GATE, listener, msg);
}
