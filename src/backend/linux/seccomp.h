/* src/backend/linux/seccomp.h — the run's two seccomp filters (docs/linux-sandbox.md, "Processes") */
#ifndef CORDON_LINUX_SECCOMP_H
#define CORDON_LINUX_SECCOMP_H
#include "backend/linux/linux.h"

typedef enum { CORDON_LX_SECCOMP_BASE = 0, CORDON_LX_SECCOMP_GATE = 1 } cordon_lx_seccomp_filter;

/* In the command, single-threaded (no TSYNC), no_new_privs set, its session keyring joined (keyctl is
 * refused): the base alone, for a run without a gate. */
cordon_lx_status cordon_lx_seccomp_apply_base(const cordon_lx_plan *plan, cordon_buf *msg);
/* The same, for a run with a gate: its program (the base's rules included); sets *listener to the
 * notification descriptor (close-on-exec) to hand to init's gate. */
cordon_lx_status cordon_lx_seccomp_apply_gate(const cordon_lx_plan *plan, int *listener, cordon_buf *msg);

/* Appends the BPF program (struct sock_filter array) libseccomp builds for `plan` to `out`; false when
 * it cannot be built or exported. */
bool cordon_lx_seccomp_export(const cordon_lx_plan *plan, cordon_lx_seccomp_filter which, cordon_buf *out);
/* Appends libseccomp's readable pseudo-code of the same program (for tests and debugging). */
bool cordon_lx_seccomp_export_pfc(const cordon_lx_plan *plan, cordon_lx_seccomp_filter which, cordon_buf *out);
/* Appends what a stored program is valid for: machine, kernel release and version, libseccomp. */
void cordon_lx_seccomp_kernel(cordon_buf *out);
/* Appends one line per filter saying what it refuses, for explain. */
void cordon_lx_seccomp_describe(const cordon_lx_plan *plan, cordon_buf *out);

/* The stored programs (seccomp_stored.c, no libseccomp needed): the base, or the gate with a new
 * listener (*listener set). Both need no_new_privs already set. */
cordon_lx_status cordon_lx_seccomp_load_stored(const cordon_lx_plan *plan, cordon_lx_seccomp_filter which,
                                               int *listener, cordon_buf *msg);
/* Whether the plan carries the stored programs, checked for length and shape: the base, and the gate
 * unless the build that stored them had none (seccomp_gate_len 0; loading it then fails closed). */
bool cordon_lx_seccomp_stored(const cordon_lx_plan *plan);
/* Whether this binary can apply the plan's filters: always with libseccomp; the static front (without
 * it) only when the run cache kept the programs for this machine. */
bool cordon_lx_seccomp_ready(const cordon_lx_plan *plan);
#endif
