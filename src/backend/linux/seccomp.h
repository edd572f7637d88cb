/* src/backend/linux/seccomp.h — the run's two seccomp filters (docs/linux-sandbox.md, "Processes").
 *
 * base  what no process of a run may do: terminal input injection (TIOCSTI, TIOCLINUX); new
 *       user namespaces (clone/unshare with CLONE_NEWUSER, setns; clone3 answers ENOSYS because its
 *       flags are in memory, and every libc then falls back to clone); io_uring (it bypasses every
 *       syscall rule, the gate's too); datagram unix sockets (one can sendmsg to any socket path);
 *       with the network restricted, sockets of any family but AF_UNIX; kernel keyrings; the mount
 *       API; BPF, userfaultfd and the syscalls that change the whole kernel. seccomp.c says why for
 *       each. It keeps what developer tools need (ptrace of one's own children, perf_event_open,
 *       personality, process_vm_*).
 * gate  the base's rules and, in the same program: every syscall of cordon_lx_gated_syscalls (gate.h)
 *       becomes a user notification to init (opens only when they write), openat2 answers ENOSYS (its
 *       flags are in memory), and a nested filter with a new listener is refused (its CONTINUE would
 *       skip the gate).
 * The command loads one of them after init forked it (the gate's when the run has a gate, with
 * SECCOMP_FILTER_FLAG_NEW_LISTENER), so it and everything it starts run under it. init, which runs no code
 * but cordon's and serves the gate, is under none: loading a filter costs ~0.1 ms on the machines
 * measured (its program is compiled and mapped executable), and one load instead of two is the point.
 *
 * Both are built with libseccomp, which checks the architecture. On x86_64 the compat ABIs (ia32, x32)
 * get the same rules with two differences, because their arguments cannot all be read: they cannot
 * create sockets at all (ia32's socketcall() hides the family and type in memory), and the gated
 * syscalls answer ENOSYS instead of notifying, so 32-bit programs read but never write through the
 * gate. Any other architecture is killed.
 *
 * The run cache keeps both programs (cordon_lx_seccomp_export) with the machine, kernel and libseccomp
 * they were built on (cordon_lx_seccomp_kernel); a hit on the same ones loads those bytes directly
 * (plan->seccomp_bpf) instead of building them again, which is all the static front can do. */
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
