/* src/backend/linux/seccomp.h — the seccomp filter: network restriction and terminal input injection.
 *
 * Built with libseccomp, which checks the architecture and handles x32 and the ia32 socketcall()
 * multiplexer. Always: ioctl(TIOCSTI) and ioctl(TIOCLINUX) fail with EPERM, so a command that shares
 * the terminal cannot push keystrokes into the shell that started it. With the network restricted:
 * socket() and socketpair() for any family but AF_UNIX fail with EAFNOSUPPORT, and io_uring (which can
 * open sockets without socket()) fails with EPERM.
 *
 * The run cache keeps the program libseccomp built (cordon_lx_seccomp_export) with the machine, kernel
 * and libseccomp it was built on (cordon_lx_seccomp_kernel); a hit on the same ones loads those bytes
 * directly (plan->seccomp_bpf) instead of building the same filter again (~70 µs). */
#ifndef CORDON_LINUX_SECCOMP_H
#define CORDON_LINUX_SECCOMP_H
#include "backend/linux/linux.h"

cordon_lx_status cordon_lx_seccomp_apply(const cordon_lx_plan *plan, cordon_buf *msg);
/* Appends the BPF program libseccomp builds for `plan` (struct sock_filter array) to `out`; false when
 * it cannot be built or exported. */
bool cordon_lx_seccomp_export(const cordon_lx_plan *plan, cordon_buf *out);
/* Appends what a stored program is valid for: machine, kernel release and version, libseccomp. */
void cordon_lx_seccomp_kernel(cordon_buf *out);
/* Loads plan->seccomp_bpf as it is (seccomp_stored.c). */
cordon_lx_status cordon_lx_seccomp_load_stored(const cordon_lx_plan *plan, cordon_buf *msg);
/* Whether this binary can apply the plan's filter: always with libseccomp; the static front (without
 * it) only when the run cache kept the program for this machine. */
bool cordon_lx_seccomp_ready(const cordon_lx_plan *plan);
#endif
