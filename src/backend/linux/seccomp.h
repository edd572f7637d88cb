/* src/backend/linux/seccomp.h — the seccomp filter: network restriction and terminal input injection.
 *
 * Built with libseccomp, which checks the architecture and handles x32 and the ia32 socketcall()
 * multiplexer. Always: ioctl(TIOCSTI) and ioctl(TIOCLINUX) fail with EPERM, so a command that shares
 * the terminal cannot push keystrokes into the shell that started it. With the network restricted:
 * socket() and socketpair() for any family but AF_UNIX fail with EAFNOSUPPORT, and io_uring (which can
 * open sockets without socket()) fails with EPERM. */
#ifndef CORDON_LINUX_SECCOMP_H
#define CORDON_LINUX_SECCOMP_H
#include "backend/linux/linux.h"

cordon_lx_status cordon_lx_seccomp_apply(const cordon_lx_plan *plan, cordon_buf *msg);
#endif
