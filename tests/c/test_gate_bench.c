/* needs: linux */
/* tests/c/test_gate_bench.c — what a gated operation costs: the median time of each operation in a child
 * with and without the gate, on the same tree. It checks that every operation did what it says (on
 * disk), and prints the medians; GATE_BENCH_N sets the rounds (default 1000). The trees are on /dev/shm
 * (tmpfs) to take the disk's noise out. docs/linux-gate.md quotes its numbers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "gate_harness.h"

#include <sys/un.h>
#include <time.h>

typedef struct {
  const char *name;
  double gated, plain;  /* median microseconds */
} row;

static int out_fd = -1;
static long rounds = 1000;

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void report(const char *name, double *t, long n, long ok) {
  qsort(t, (size_t)n, sizeof *t, cmp_d);
  char line[256];
  int len = snprintf(line, sizeof line, "%s %.2f %ld\n", name, t[n / 2], ok);
  if (write(out_fd, line, (size_t)len) != len) _exit(95);
}

#define MEASURE(name, setup, op, okcond)        \
  do {                                          \
    long ok_ = 0;                               \
    for (long i = 0; i < rounds; i++) {         \
      setup;                                    \
      double t0_ = now_us();                    \
      long r_ = (long)(op);                     \
      t[i] = now_us() - t0_;                    \
      ok_ += (okcond);                          \
      (void)r_;                                 \
    }                                           \
    report(name, t, rounds, ok_);               \
  } while (0)

static void bench(gh_env *e, void *arg) {
  (void)arg;
  double *t = calloc((size_t)rounds, sizeof *t);
  char p[600], q[600];
  if (chdir(e->w) != 0 || mkdir("deep", 0755) != 0) _exit(94);
  gh_sh("mkdir -p '%s/deep/a/b/c/d/e/f/g/h'", e->w);
  int fd;
  MEASURE("open O_CREAT (relative)", snprintf(p, sizeof p, "f%ld", i), fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644),
          fd >= 0 && close(fd) == 0);
  MEASURE("open O_CREAT (absolute, 12 components)", snprintf(p, sizeof p, "%s/deep/a/b/c/d/e/f/g/h/f%ld", e->w, i),
          fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644), fd >= 0 && close(fd) == 0);
  MEASURE("open O_CREAT (through /proc/self/cwd: the walk)", snprintf(p, sizeof p, "/proc/self/cwd/deep/p%ld", i),
          fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644), fd >= 0 && close(fd) == 0);
  MEASURE("open O_WRONLY an existing file", snprintf(p, sizeof p, "f%ld", i), fd = open(p, O_WRONLY), fd >= 0 && close(fd) == 0);
  MEASURE("open O_RDONLY (not gated)", snprintf(p, sizeof p, "f%ld", i), fd = open(p, O_RDONLY), fd >= 0 && close(fd) == 0);
  MEASURE("rename", (snprintf(p, sizeof p, "f%ld", i), snprintf(q, sizeof q, "g%ld", i)), rename(p, q), r_ == 0);
  MEASURE("mkdir", snprintf(p, sizeof p, "d%ld", i), mkdir(p, 0755), r_ == 0);
  MEASURE("unlink", snprintf(p, sizeof p, "g%ld", i), unlink(p), r_ == 0);
  int s = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un a = {.sun_family = AF_UNIX};
  snprintf(a.sun_path, sizeof a.sun_path, "%s/bench.sock", e->w);
  socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(a.sun_path) + 1);
  if (bind(s, (struct sockaddr *)&a, len) != 0 || listen(s, 4096) != 0) _exit(93);
  int c = -1;
  MEASURE("connect (non-blocking socket)", c = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0),
          connect(c, (struct sockaddr *)&a, len), (r_ == 0) + 0 * close(accept(s, NULL, NULL)) + 0 * close(c));
  MEASURE("connect (blocking socket: a worker)", c = socket(AF_UNIX, SOCK_STREAM, 0), connect(c, (struct sockaddr *)&a, len),
          (r_ == 0) + 0 * close(accept(s, NULL, NULL)) + 0 * close(c));
  close(s);
  free(t);
}

static void parse(const char *text, row *rows, size_t *n, bool gated) {
  for (const char *l = text; *l;) {
    const char *end = strchr(l, '\n');
    char line[256];
    snprintf(line, sizeof line, "%.*s", (int)(end - l), l);
    char *last = strrchr(line, ' ');
    *last = '\0';
    char *mid = strrchr(line, ' ');
    *mid = '\0';
    double med = atof(mid + 1);
    long ok = atol(last + 1);
    assert_int_equal(ok, rounds);  /* every round did what it says */
    size_t i = 0;
    while (i < *n && strcmp(rows[i].name, line) != 0) i++;
    if (i == *n) rows[(*n)++].name = strdup(line);
    if (gated) rows[i].gated = med;
    else rows[i].plain = med;
    l = end + 1;
  }
}

static void run_bench(gh_env *e, bool gated, char *out, size_t cap) {
  out_fd = memfd_create("bench", 0);
  assert_int_equal(gh_run_mode(e, bench, NULL, gated), 0);
  ssize_t n = pread(out_fd, out, cap - 1, 0);
  out[n > 0 ? n : 0] = '\0';
  close(out_fd);
}

static void a_gated_operation_costs_microseconds_and_does_what_it_says(void **state) {
  (void)state;
  if (getenv("GATE_BENCH_N")) rounds = atol(getenv("GATE_BENCH_N"));
  static char plain[4096], gated[4096];
  gh_env a, b;
  gh_setup(&a);
  gh_setup(&b);
  run_bench(&a, false, plain, sizeof plain);
  run_bench(&b, true, gated, sizeof gated);
  row rows[32];
  size_t n = 0;
  parse(plain, rows, &n, false);
  parse(gated, rows, &n, true);
  fprintf(stderr, "gate micro-benchmark (%s, %ld rounds, median us):\n  %-52s %9s %9s %9s\n", gh_user, rounds,
          "operation", "plain", "gated", "added");
  for (size_t i = 0; i < n; i++) {
    fprintf(stderr, "  %-52s %9.2f %9.2f %9.2f\n", rows[i].name, rows[i].plain, rows[i].gated, rows[i].gated - rows[i].plain);
    free((char *)rows[i].name);
  }
  assert_true(gh_exists(gh_path(&b, "w/d0")) && gh_exists(gh_path(&b, "w/deep/p0")) && !gh_exists(gh_path(&b, "w/g0")));
  assert_string_equal(b.msgs, "");
  gh_teardown(&a);
  gh_teardown(&b);
}

static int group(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(a_gated_operation_costs_microseconds_and_does_what_it_says),
  };
  return cmocka_run_group_tests_name(gh_user, tests, NULL, NULL);
}

int main(void) {
  /* on a tmpfs: the disk's own journal would bury microseconds in its noise (ext4 here: 28-200 us a create) */
  struct stat st;
  if (stat("/dev/shm", &st) == 0) gh_base = "/dev/shm/cordon-tests";
  return gh_main(group);
}
