/* src/backend/linux/seccomp_stored.c — the seccomp programs the run cache kept, and what they are valid for */
#include "backend/linux/seccomp.h"

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

static bool program_ok(size_t len) {
  return len > 0 && len % sizeof(struct sock_filter) == 0 && len / sizeof(struct sock_filter) <= BPF_MAXINSNS;
}

bool cordon_lx_seccomp_stored(const cordon_lx_plan *plan) {
  /* The one program the command loads (seccomp.h): the gate's for a plan with a gate, else the base's. A
   * plan with a gate and no gate program is a miss, never an ungated run. */
  if (!plan->seccomp_bpf) return false;
  if (cordon_lx_plan_has_gate(plan)) return program_ok(plan->seccomp_gate_len);
  return program_ok(plan->seccomp_base_len) && plan->seccomp_gate_len == 0;
}

/* Loads a program the way seccomp_load does with cordon's attributes: no_new_privs is already set by
 * the runtime; no TSYNC, LOG or SPEC_ALLOW flag; the gate with a new listener, as libseccomp does for a
 * filter with notify rules. */
cordon_lx_status cordon_lx_seccomp_load_stored(const cordon_lx_plan *plan, cordon_lx_seccomp_filter which,
                                               int *listener, cordon_buf *msg) {
  if (!cordon_lx_seccomp_stored(plan)) {
    cordon_buf_puts(msg, "no seccomp programs stored for this plan");
    return CORDON_LX_SETUP_FAILED;
  }
  bool gate = which == CORDON_LX_SECCOMP_GATE;
  size_t len = gate ? plan->seccomp_gate_len : plan->seccomp_base_len;
  if (len == 0) {
    cordon_buf_puts(msg, "no gate program stored: the build that stored this plan had no gate");
    return CORDON_LX_SETUP_FAILED;
  }
  struct sock_fprog prog = {.len = (unsigned short)(len / sizeof(struct sock_filter)),
                            .filter = (struct sock_filter *)(plan->seccomp_bpf + (gate ? plan->seccomp_base_len : 0))};
  long rc = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, gate ? SECCOMP_FILTER_FLAG_NEW_LISTENER : 0, &prog);
  if (rc < 0) {
    cordon_buf_printf(msg, "seccomp(SET_MODE_FILTER, %s filter): %s", gate ? "gate" : "base", strerror(errno));
    return CORDON_LX_SETUP_FAILED;
  }
  if (gate && listener) *listener = (int)rc;
  return CORDON_LX_OK;
}

void cordon_lx_seccomp_kernel(cordon_buf *out) {
  struct utsname u;
  if (uname(&u) == 0) cordon_buf_printf(out, "%s %s %s seccomp-format %d", u.machine, u.release, u.version,
                                        SCMP_VER_MAJOR * 10000 + SCMP_VER_MINOR * 100 + SCMP_VER_MICRO);
}
