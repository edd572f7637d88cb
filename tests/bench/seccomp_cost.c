/* tests/bench/seccomp_cost.c — what cordon's seccomp filters cost (seccomp.h): building each program with
 * libseccomp, loading a stored one, and a cheap syscall (getppid) and an open under no filter, the base,
 * and base + gate (a gated open is notified, so only an ungated read-only open is timed).
 *
 *   cc -O2 -I src tests/bench/seccomp_cost.c build/libcordon.a -lseccomp -o /tmp/seccomp_cost
 *   /tmp/seccomp_cost
 * Prints medians of 15 rounds. Needs the gate's syscall table: a weak copy below stands in for it. */
#include "backend/linux/gate.h"
#include "backend/linux/seccomp.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

__attribute__((weak)) const cordon_lx_gated_syscall cordon_lx_gated_syscalls[] = {
    {"open", 1}, {"openat", 2}, {"creat", -1}, {"mkdir", -1}, {"mkdirat", -1}, {"mknod", -1},
    {"mknodat", -1}, {"symlink", -1}, {"symlinkat", -1}, {"link", -1}, {"linkat", -1}, {"rename", -1},
    {"renameat", -1}, {"renameat2", -1}, {"unlink", -1}, {"unlinkat", -1}, {"rmdir", -1}, {"truncate", -1},
    {"chmod", -1}, {"fchmodat", -1}, {"fchmodat2", -1}, {"fchmod", -1}, {"bind", -1}, {"connect", -1},
    {NULL, 0}};

#define ROUNDS 15

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v) {
  qsort(v, ROUNDS, sizeof *v, cmp);
  return v[ROUNDS / 2];
}

/* ns per call of getppid and of a read-only openat+close, in this process as it is now */
static void per_call(double *getppid_ns, double *open_ns) {
  double a[ROUNDS], b[ROUNDS];
  for (int r = 0; r < ROUNDS; r++) {
    double t0 = now();
    for (int i = 0; i < 200000; i++) syscall(SYS_getppid);
    double t1 = now();
    for (int i = 0; i < 20000; i++) close(openat(AT_FDCWD, "/etc/hostname", O_RDONLY | O_CLOEXEC));
    double t2 = now();
    a[r] = (t1 - t0) / 200000, b[r] = (t2 - t1) / 20000;
  }
  *getppid_ns = median(a), *open_ns = median(b);
}

/* the same in a child that applied `filters` (0 none, 1 base, 2 base + gate), reported through a pipe */
static void in_child(const cordon_lx_plan *plan, int filters, double out[2]) {
  int p[2];
  if (pipe(p) != 0) exit(1);
  pid_t pid = fork();
  if (pid == 0) {
    cordon_buf msg = CORDON_BUF_INIT;
    int listener = -1;
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    if (filters >= 1 && cordon_lx_seccomp_apply_base(plan, &msg) != CORDON_LX_OK) _exit(2);
    if (filters >= 2 && cordon_lx_seccomp_apply_gate(plan, &listener, &msg) != CORDON_LX_OK) _exit(3);
    double r[2];
    per_call(&r[0], &r[1]);
    _exit(write(p[1], r, sizeof r) == sizeof r ? 0 : 4);
  }
  close(p[1]);
  if (read(p[0], out, 2 * sizeof *out) != 2 * (ssize_t)sizeof *out) exit(5);
  close(p[0]);
  waitpid(pid, NULL, 0);
}

int main(void) {
  cordon_lx_plan *plan = cordon_lx_plan_new();
  plan->network_restricted = true;
  double build[2][ROUNDS], load[ROUNDS];
  size_t len[2] = {0, 0};
  for (int which = 0; which < 2; which++)
    for (int r = 0; r < ROUNDS; r++) {
      cordon_buf b = CORDON_BUF_INIT;
      double t0 = now();
      if (!cordon_lx_seccomp_export(plan, (cordon_lx_seccomp_filter)which, &b)) return 1;
      build[which][r] = (now() - t0) / 1000;
      len[which] = b.len / 8;
      cordon_buf_free(&b);
    }
  /* a stored base program, loaded the way the static front does (in throwaway children) */
  cordon_buf b = CORDON_BUF_INIT;
  cordon_lx_seccomp_export(plan, CORDON_LX_SECCOMP_BASE, &b);
  size_t base = b.len;
  cordon_lx_seccomp_export(plan, CORDON_LX_SECCOMP_GATE, &b);
  cordon_lx_plan *stored = cordon_lx_plan_new();
  stored->seccomp_base_len = base, stored->seccomp_gate_len = b.len - base;
  stored->seccomp_bpf = (unsigned char *)cordon_buf_take(&b);
  for (int r = 0; r < ROUNDS; r++) {
    int p[2];
    if (pipe(p) != 0) return 1;
    pid_t pid = fork();
    if (pid == 0) {
      cordon_buf msg = CORDON_BUF_INIT;
      int listener;
      prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
      double t0 = now();
      cordon_lx_seccomp_load_stored(stored, CORDON_LX_SECCOMP_BASE, NULL, &msg);
      cordon_lx_seccomp_load_stored(stored, CORDON_LX_SECCOMP_GATE, &listener, &msg);
      double us = (now() - t0) / 1000;
      _exit(write(p[1], &us, sizeof us) == sizeof us ? 0 : 1);
    }
    close(p[1]);
    if (read(p[0], &load[r], sizeof load[r]) != sizeof load[r]) return 1;
    close(p[0]);
    waitpid(pid, NULL, 0);
  }
  double none[2], with_base[2], with_gate[2];
  in_child(plan, 0, none);
  in_child(plan, 1, with_base);
  in_child(plan, 2, with_gate);
  printf("build+export with libseccomp: base %.0f us (%zu instructions), gate %.0f us (%zu instructions)\n",
         median(build[0]), len[0], median(build[1]), len[1]);
  printf("load both stored programs (the front): %.1f us\n", median(load));
  printf("getppid: %.0f ns bare, %.0f ns under the base, %.0f ns under base + gate\n", none[0], with_base[0],
         with_gate[0]);
  printf("openat(O_RDONLY)+close: %.0f ns bare, %.0f ns under the base, %.0f ns under base + gate\n", none[1],
         with_base[1], with_gate[1]);
  cordon_lx_plan_free(plan);
  cordon_lx_plan_free(stored);
  return 0;
}
