/* tests/c/lx_scratch.h — a scratch tree under /var/tmp/cordon-tests for the Linux compiler's tests. */
#ifndef CORDON_TEST_LX_SCRATCH_H
#define CORDON_TEST_LX_SCRATCH_H
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

static char base[256], work[300], home[300];

/* Makes base/REL: a directory, or a file holding "x\n". */
static void put(const char *rel, bool dir) {
  char p[512];
  snprintf(p, sizeof p, "%s/%s", base, rel);
  if (dir) assert_int_equal(mkdir(p, 0755), 0);
  else {
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs("x\n", f);
    fclose(f);
  }
}

/* A fresh base named TAG.XXXXXX with work = base/w and home = base/h (not made). In a directory of its
 * own under /var/tmp, never removed: the enforcement tests' run-cache checks (ctest runs them alongside)
 * watch /var/tmp itself, and an entry appearing there counts as a change. */
static int scratch_make(const char *tag) {
  if (mkdir("/var/tmp/cordon-tests", 0755) != 0 && errno != EEXIST) return -1;
  snprintf(base, sizeof base, "/var/tmp/cordon-tests/%s.XXXXXX", tag);
  if (!mkdtemp(base)) return -1;
  snprintf(work, sizeof work, "%s/w", base);
  snprintf(home, sizeof home, "%s/h", base);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
  return system(cmd) == 0 ? 0 : -1;
}
#endif
