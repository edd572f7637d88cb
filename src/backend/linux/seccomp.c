/* src/backend/linux/seccomp.c — the seccomp filter (see seccomp.h for what it denies and why). */
#include "backend/linux/seccomp.h"

#include <errno.h>
#include <linux/filter.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

static bool add(scmp_filter_ctx ctx, int err, const char *name, unsigned n, const struct scmp_arg_cmp *cmp, cordon_buf *msg) {
  int nr = seccomp_syscall_resolve_name(name);
  if (nr == __NR_SCMP_ERROR) return true;  /* unknown on every architecture in the filter: nothing to deny */
  int rc = seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(err), nr, n, cmp);
  if (rc != 0) {
    cordon_buf_printf(msg, "seccomp rule for %s: %s", name, strerror(-rc));
    return false;
  }
  return true;
}

/* The plan's filter as a libseccomp context; NULL (with msg) on failure. */
static scmp_filter_ctx build(const cordon_lx_plan *plan, cordon_buf *msg) {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (!ctx) {
    cordon_buf_puts(msg, "seccomp_init failed");
    return NULL;
  }
  /* Cover the compat ABIs a process here can switch to; any other architecture is killed by
   * libseccomp's default bad-arch action. */
  int rc = 0;
#if defined(__x86_64__)
  rc = seccomp_arch_add(ctx, SCMP_ARCH_X86);
  if (rc == 0 || rc == -EEXIST) rc = seccomp_arch_add(ctx, SCMP_ARCH_X32);
  if (rc != 0 && rc != -EEXIST) {
    cordon_buf_printf(msg, "seccomp_arch_add: %s", strerror(-rc));
    seccomp_release(ctx);
    return NULL;
  }
#endif
  bool ok = true;
  /* ioctl's request is an int in the kernel: compare the low 32 bits only. */
  /* Spelled out rather than SCMP_A1(): the macro leaves fields implicit, which clang's
   * -Wmissing-field-initializers (an error here) refuses. */
  struct scmp_arg_cmp sti[] = {{.arg = 1, .op = SCMP_CMP_MASKED_EQ, .datum_a = 0xffffffffu, .datum_b = TIOCSTI}};
  struct scmp_arg_cmp lnx[] = {{.arg = 1, .op = SCMP_CMP_MASKED_EQ, .datum_a = 0xffffffffu, .datum_b = TIOCLINUX}};
  ok = ok && add(ctx, EPERM, "ioctl", 1, sti, msg);
  ok = ok && add(ctx, EPERM, "ioctl", 1, lnx, msg);
  if (plan->network_restricted) {
    struct scmp_arg_cmp not_unix[] = {{.arg = 0, .op = SCMP_CMP_NE, .datum_a = AF_UNIX, .datum_b = 0}};
    ok = ok && add(ctx, EAFNOSUPPORT, "socket", 1, not_unix, msg);
    ok = ok && add(ctx, EAFNOSUPPORT, "socketpair", 1, not_unix, msg);
    ok = ok && add(ctx, EPERM, "io_uring_setup", 0, NULL, msg);
    ok = ok && add(ctx, EPERM, "io_uring_enter", 0, NULL, msg);
    ok = ok && add(ctx, EPERM, "io_uring_register", 0, NULL, msg);
  }
  if (!ok) {
    seccomp_release(ctx);
    return NULL;
  }
  return ctx;
}

cordon_lx_status cordon_lx_seccomp_apply(const cordon_lx_plan *plan, cordon_buf *msg) {
  if (plan->seccomp_bpf && plan->seccomp_bpf_len) return cordon_lx_seccomp_load_stored(plan, msg);
  scmp_filter_ctx ctx = build(plan, msg);
  if (!ctx) return CORDON_LX_SETUP_FAILED;
  int rc = seccomp_load(ctx);
  if (rc != 0) cordon_buf_printf(msg, "seccomp_load: %s", strerror(-rc));
  seccomp_release(ctx);
  return rc == 0 ? CORDON_LX_OK : CORDON_LX_SETUP_FAILED;
}

bool cordon_lx_seccomp_export(const cordon_lx_plan *plan, cordon_buf *out) {
  cordon_buf msg = CORDON_BUF_INIT;
  scmp_filter_ctx ctx = build(plan, &msg);
  cordon_buf_free(&msg);
  if (!ctx) return false;
  int fd = memfd_create("cordon-seccomp", MFD_CLOEXEC);
  bool ok = fd >= 0 && seccomp_export_bpf(ctx, fd) == 0 && lseek(fd, 0, SEEK_SET) == 0;
  seccomp_release(ctx);
  char chunk[4096];
  ssize_t n;
  while (ok && (n = read(fd, chunk, sizeof chunk)) > 0) cordon_buf_append(out, chunk, (size_t)n);
  if (fd >= 0) close(fd);
  return ok && !out->oom && out->len > 0 && out->len % sizeof(struct sock_filter) == 0 &&
         out->len / sizeof(struct sock_filter) <= BPF_MAXINSNS;
}

bool cordon_lx_seccomp_ready(const cordon_lx_plan *plan) {
  (void)plan;
  return true;  /* with libseccomp at hand, any plan's filter can be built */
}
