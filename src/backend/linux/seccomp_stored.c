/* src/backend/linux/seccomp_stored.c — a seccomp program the run cache kept (seccomp.h), and what it is
 * valid for. Needs libseccomp's header only, not the library: the static front (src/front/) uses it. */
#include "backend/linux/seccomp.h"

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

/* Loads the program the way seccomp_load does with cordon's attributes: no_new_privs is already set by
 * the runtime; no TSYNC, LOG or SPEC_ALLOW flag. */
cordon_lx_status cordon_lx_seccomp_load_stored(const cordon_lx_plan *plan, cordon_buf *msg) {
  struct sock_fprog prog = {.len = (unsigned short)(plan->seccomp_bpf_len / sizeof(struct sock_filter)),
                            .filter = (struct sock_filter *)plan->seccomp_bpf};
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0) {
    cordon_buf_printf(msg, "seccomp(SET_MODE_FILTER): %s", strerror(errno));
    return CORDON_LX_SETUP_FAILED;
  }
  return CORDON_LX_OK;
}

void cordon_lx_seccomp_kernel(cordon_buf *out) {
  struct utsname u;
  if (uname(&u) == 0) cordon_buf_printf(out, "%s %s %s seccomp-format %d", u.machine, u.release, u.version,
                                        SCMP_VER_MAJOR * 10000 + SCMP_VER_MINOR * 100 + SCMP_VER_MICRO);
}
