/* tests/enforce/deny_syscall.c — test helper: deny_syscall NAME ERRNO CMD [ARGS…]
 * Installs a seccomp filter that makes syscall NAME fail with ERRNO, then execs CMD. The enforcement
 * tests use it to inject kernel failures (no Landlock, no user namespaces) into the real cordon binary,
 * so no test-only switch exists in production code. Built with the system cc by lib.sh's build_helper. */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: deny_syscall NAME ERRNO CMD [ARGS...]\n");
    return 2;
  }
  int nr = seccomp_syscall_resolve_name(argv[1]);
  if (nr == __NR_SCMP_ERROR) {
    fprintf(stderr, "deny_syscall: unknown syscall %s\n", argv[1]);
    return 2;
  }
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (!ctx || seccomp_rule_add(ctx, SCMP_ACT_ERRNO(atoi(argv[2])), nr, 0) != 0 || seccomp_load(ctx) != 0) {
    fprintf(stderr, "deny_syscall: cannot install the filter\n");
    return 2;
  }
  seccomp_release(ctx);
  execv(argv[3], argv + 3);
  fprintf(stderr, "deny_syscall: exec %s: %s\n", argv[3], strerror(errno));
  return 127;
}
