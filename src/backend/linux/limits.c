/* src/backend/linux/limits.c — --limit specs and the per-process side of a run's limits (limits.h). */
#include "backend/linux/limits.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#define RESERVED_PIDS 300  /* the kernel numbers pids from 300 again once a namespace's numbers wrapped */

static bool digits(const char *s, size_t len, unsigned long long max, unsigned long long *out) {
  unsigned long long v = 0;
  if (len == 0) return false;
  for (size_t i = 0; i < len; i++) {
    if (s[i] < '0' || s[i] > '9') return false;
    unsigned d = (unsigned)(s[i] - '0');
    if (v > (max - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

static unsigned long long physical_memory(void) {
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
  return pages > 0 && size > 0 ? (unsigned long long)pages * (unsigned long long)size : 0;
}

bool cordon_lx_size_parse(const char *s, size_t len, unsigned long long *out) {
  size_t n = 0;
  while (n < len && s[n] >= '0' && s[n] <= '9') n++;
  unsigned long long v;
  if (n == 0 || !digits(s, n, ~0ull, &v)) return false;
  const char *rest = s + n;
  size_t left = len - n;
  if (left == 1 && rest[0] == '%') {
    unsigned long long total = physical_memory();
    if (v > 100 || total == 0) return false;
    *out = total / 100 * v;
    return true;
  }
  unsigned shift = 0;
  if (left > 0) {
    const char *units = "kmgt";
    const char *u = memchr(units, rest[0] | 0x20, 4);
    if (u) shift = 10u * (unsigned)(u - units + 1), rest++, left--;
    if (shift && left == 2 && (rest[0] | 0x20) == 'i' && (rest[1] | 0x20) == 'b') left = 0;
    else if (left == 1 && (rest[0] | 0x20) == 'b') left = 0;
    if (left != 0) return false;
  }
  if (shift && v > (~0ull >> shift)) return false;
  *out = v << shift;
  return true;
}

/* One item of a spec: key=value or none. */
static bool parse_item(cordon_lx_limits *l, const char *item, size_t len, cordon_buf *msg) {
  if (len == 4 && memcmp(item, "none", 4) == 0) {
    *l = (cordon_lx_limits){0};
    return true;
  }
  const char *eq = memchr(item, '=', len);
  size_t klen = eq ? (size_t)(eq - item) : len;
  const char *val = eq ? eq + 1 : "";
  size_t vlen = eq ? len - klen - 1 : 0;
  unsigned long long v;
  if (klen == 5 && memcmp(item, "procs", 5) == 0) {
    if (!digits(val, vlen, CORDON_LX_PROCS_MAX, &v)) {
      cordon_buf_printf(msg, "limit '%.*s': procs takes a whole number of processes and threads, 0 (no "
                             "limit) to %u", (int)len, item, CORDON_LX_PROCS_MAX);
      return false;
    }
    l->procs = (unsigned)v;
  } else if (klen == 6 && memcmp(item, "memory", 6) == 0) {
    if (!cordon_lx_size_parse(val, vlen, &v) || (v != 0 && v < CORDON_LX_MEMORY_MIN)) {
      cordon_buf_printf(msg, "limit '%.*s': memory takes a SIZE of at least 1M: a whole number with a K, M, "
                             "G or T suffix (powers of 1024), a percentage of physical memory such as 50%%, "
                             "or 0 (no limit)", (int)len, item);
      return false;
    }
    l->memory = v;
  } else if (klen == 3 && memcmp(item, "cpu", 3) == 0) {
    if (!digits(val, vlen, CORDON_LX_CPU_MAX, &v)) {
      cordon_buf_printf(msg, "limit '%.*s': cpu takes whole CPU seconds per process, 0 (no limit) to %u",
                        (int)len, item, CORDON_LX_CPU_MAX);
      return false;
    }
    l->cpu = (unsigned)v;
  } else {
    cordon_buf_printf(msg, "limit '%.*s': unknown limit (procs=N, memory=SIZE, cpu=SECONDS or none)", (int)len,
                      item);
    return false;
  }
  return true;
}

bool cordon_lx_limits_parse(cordon_lx_limits *l, const char *spec, size_t len, cordon_buf *msg) {
  if (memchr(spec, '\0', len)) {
    cordon_buf_puts(msg, "limit: the spec holds a NUL byte");
    return false;
  }
  cordon_lx_limits next = *l;  /* all or nothing: a bad item leaves `l` as it was */
  size_t start = 0;
  for (size_t i = 0; i <= len; i++) {
    if (i < len && spec[i] != ',') continue;
    if (i == start) {
      cordon_buf_printf(msg, "limit '%.*s': an empty item (procs=N,memory=SIZE,cpu=SECONDS)", (int)len, spec);
      return false;
    }
    if (!parse_item(&next, spec + start, i - start, msg)) return false;
    start = i + 1;
  }
  *l = next;
  return true;
}

void cordon_lx_size_describe(unsigned long long v, cordon_buf *out) {
  static const char units[] = "KMGT";
  int u = -1;
  while (u < 3 && v >= 1024 && v % 1024 == 0) v /= 1024, u++;
  if (u < 0) cordon_buf_printf(out, "%llu", v);
  else cordon_buf_printf(out, "%llu%c", v, units[u]);
}

void cordon_lx_limits_describe(const cordon_lx_limits *l, cordon_buf *out) {
  if (l->procs) cordon_buf_printf(out, "procs=%u", l->procs);
  else cordon_buf_puts(out, "procs=none");
  cordon_buf_puts(out, " memory=");
  if (l->memory) cordon_lx_size_describe(l->memory, out);
  else cordon_buf_puts(out, "none");
  if (l->cpu) cordon_buf_printf(out, " cpu=%u", l->cpu);
  else cordon_buf_puts(out, " cpu=none");
}

/* --- phases ------------------------------------------------------------------------------------------ */
void cordon_lx_limits_prepare(const cordon_lx_limits *l, cordon_lx_limits_run *run) {
  *run = (cordon_lx_limits_run)CORDON_LX_LIMITS_RUN_INIT;
  if (!l->procs && !l->memory) return;  /* cpu has no cgroup counterpart: per process only */
  char mount[4096], own[4096], procs[32], memory[32];
  if (!cordon_lx_cgroup_self(mount, sizeof mount, own, sizeof own)) {
    run->why = "no cgroup v2 hierarchy";
    return;
  }
  snprintf(procs, sizeof procs, "%u", l->procs);
  snprintf(memory, sizeof memory, "%llu", l->memory);
  const cordon_lx_cgroup_setting with_procs[] = {{"pids.max", procs, false}};
  const cordon_lx_cgroup_setting with_memory[] = {{"memory.max", memory, false}, {"memory.swap.max", "0", true}};
  const cordon_lx_cgroup_setting with_both[] = {{"pids.max", procs, false}, {"memory.max", memory, false},
                                                {"memory.swap.max", "0", true}};
  /* the most the cgroup can hold: both, else either one alone */
  struct {
    unsigned held;
    const char *controllers;
    const cordon_lx_cgroup_setting *s;
    size_t n;
  } tries[] = {
      {CORDON_LX_LIMIT_PROCS | CORDON_LX_LIMIT_MEMORY, "pids memory", with_both, 3},
      {CORDON_LX_LIMIT_PROCS, "pids", with_procs, 1},
      {CORDON_LX_LIMIT_MEMORY, "memory", with_memory, 2},
  };
  unsigned want = (l->procs ? CORDON_LX_LIMIT_PROCS : 0u) | (l->memory ? CORDON_LX_LIMIT_MEMORY : 0u);
  const char *why = "no cgroup";
  for (size_t i = 0; i < sizeof tries / sizeof *tries; i++) {
    if ((tries[i].held & want) != tries[i].held) continue;
    if (cordon_lx_cgroup_create(mount, own, tries[i].controllers, tries[i].s, tries[i].n, run, &why)) {
      run->held = tries[i].held;
      run->why = "cgroup";
      return;
    }
  }
  run->why = why;
}

/* Linux 6.14 gave each PID namespace its own pid_max; before it, the same file is the machine's. */
static bool pid_max_per_namespace(void) {
  struct utsname u;
  unsigned major = 0, minor = 0;
  if (uname(&u) != 0 || sscanf(u.release, "%u.%u", &major, &minor) != 2) return false;
  return major > 6 || (major == 6 && minor >= 14);
}

/* Caps the pids the run's namespace can number. Only as pid 1 of a namespace of our own (the machine's
 * pid 1 is never cordon) and only where the file is that namespace's. */
static void cap_pids(unsigned procs) {
  if (getpid() != 1 || !pid_max_per_namespace()) return;
  unsigned long long v = (unsigned long long)procs + RESERVED_PIDS;  /* at least procs after a wrap */
  if (v > CORDON_LX_PROCS_MAX) v = CORDON_LX_PROCS_MAX;
  char text[32];
  int n = snprintf(text, sizeof text, "%llu", v);
  int fd = openat(AT_FDCWD, "/proc/sys/kernel/pid_max", O_WRONLY | O_CLOEXEC);
  if (fd < 0) return;
  if (write(fd, text, (size_t)n) != n) {}  /* best effort: RLIMIT_NPROC stands behind it */
  close(fd);
}

cordon_lx_status cordon_lx_limits_enter(const cordon_lx_limits *l, cordon_lx_limits_run *run, cordon_buf *msg) {
  if (run && run->procs_fd >= 0 && !cordon_lx_cgroup_join(run, msg)) return CORDON_LX_SETUP_FAILED;
  if (l->procs && !(run && (run->held & CORDON_LX_LIMIT_PROCS))) cap_pids(l->procs);
  return CORDON_LX_OK;
}

/* Lowers `res` to soft/hard, never above what the caller already has. */
static bool lower(int res, const char *name, rlim_t soft, rlim_t hard, cordon_buf *msg) {
  struct rlimit cur;
  if (getrlimit(res, &cur) != 0) cur.rlim_cur = cur.rlim_max = RLIM_INFINITY;
  struct rlimit next = {soft, hard};
  if (cur.rlim_max != RLIM_INFINITY && cur.rlim_max < next.rlim_max) next.rlim_max = cur.rlim_max;
  if (cur.rlim_cur != RLIM_INFINITY && cur.rlim_cur < next.rlim_cur) next.rlim_cur = cur.rlim_cur;
  if (next.rlim_cur > next.rlim_max) next.rlim_cur = next.rlim_max;
  if (setrlimit(res, &next) == 0) return true;
  cordon_buf_printf(msg, "setrlimit(%s): %s", name, strerror(errno));
  return false;
}

cordon_lx_status cordon_lx_limits_apply(const cordon_lx_limits *l, const cordon_lx_limits_run *run, cordon_buf *msg) {
  unsigned held = run ? run->held : 0;
  /* No core dumps: the kernel writes one where the command stands (.git/hooks) without a call the gate
   * sees, or hands its memory to the host's |handler; a limit of 1 stops both and cannot be raised. */
  bool ok = lower(RLIMIT_CORE, "RLIMIT_CORE", 1, 1, msg);
  if (ok && l->procs && !(held & CORDON_LX_LIMIT_PROCS))
    ok = lower(RLIMIT_NPROC, "RLIMIT_NPROC", l->procs, l->procs, msg);
  if (ok && l->memory && !(held & CORDON_LX_LIMIT_MEMORY))
    ok = lower(RLIMIT_DATA, "RLIMIT_DATA", (rlim_t)l->memory, (rlim_t)l->memory, msg);
  /* SIGXCPU first (a shell says "CPU time limit exceeded"), SIGKILL a second later if it is ignored */
  if (ok && l->cpu) ok = lower(RLIMIT_CPU, "RLIMIT_CPU", l->cpu, (rlim_t)l->cpu + 1, msg);
  return ok ? CORDON_LX_OK : CORDON_LX_SETUP_FAILED;
}

void cordon_lx_limits_release(const cordon_lx_limits *l, cordon_lx_limits_run *run, cordon_buf *report) {
  if (run->dir || run->procs_fd >= 0) cordon_lx_cgroup_remove(run, l, report);
  *run = (cordon_lx_limits_run)CORDON_LX_LIMITS_RUN_INIT;
}
