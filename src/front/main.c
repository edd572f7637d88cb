/* src/front/main.c — `cordon` built as the static front: a small executable linked against musl, not
 * glibc, that answers `cordon run` from the run cache (src/cli/fastpath.c) and otherwise execs
 * `cordon-full` beside it with the same arguments.
 *
 * Why: glibc's start-up costs about 0.25 ms of every run on the virtual machines measured here (CPU
 * feature and cache detection, each `cpuid` exiting to the hypervisor); musl's costs a tenth of that
 * (docs/benchmarks.md). A cache hit is all of `cordon run` that most runs need, and it needs neither
 * Lua nor the libraries the rest of cordon uses. Anything the front cannot do itself is a miss, and the
 * full binary is the ordinary, complete path. */
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
