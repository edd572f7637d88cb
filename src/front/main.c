/* src/front/main.c — `cordon` as the static front (musl): answers run-cache hits, execs `cordon-full` for the rest */
#include "cli/fastpath.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
  int fast = cordon_fastpath_run_then_exec(argc, argv);
  if (fast >= 0) return fast;
  char full[4200];
  ssize_t n = readlink("/proc/self/exe", full, sizeof full - 6);
  if (n > 0) {
    memcpy(full + n, "-full", 6);
    execv(full, argv);
  }
  fprintf(stderr, "cordon: cannot start %s: %s (it belongs beside this cordon)\n", n > 0 ? full : "cordon-full",
          strerror(errno));
  return 125;
}
