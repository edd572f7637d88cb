/* src/backend/linux/limits.h — a run's resource limits: `--limit procs=N,memory=SIZE,cpu=SECONDS` (docs/cli.md) */
#ifndef CORDON_LINUX_LIMITS_H
#define CORDON_LINUX_LIMITS_H
#include "backend/linux/linux.h"

#include <stdbool.h>
#include <stddef.h>

#define CORDON_LX_PROCS_MAX 4194304u /* PID_MAX_LIMIT: more tasks than any kernel can number */
#define CORDON_LX_CPU_MAX 31536000u  /* a year of CPU seconds */
#define CORDON_LX_MEMORY_MIN (1ull << 20)

/* Applies one --limit SPEC to `l`: a comma list of procs=N, memory=SIZE, cpu=SECONDS and `none` (every
 * limit off); a 0 turns one limit off; later items win. Takes `len` bytes (a NUL among them is refused).
 * False, with one line in `msg` naming the item and what is wrong, on bad input. */
bool cordon_lx_limits_parse(cordon_lx_limits *l, const char *spec, size_t len, cordon_buf *msg);
/* SIZE: a whole number with an optional K, M, G or T suffix (powers of 1024; case-insensitive; an
 * optional B or iB after it), or a whole percentage of physical memory ("50%"). False when malformed
 * or out of range. */
bool cordon_lx_size_parse(const char *s, size_t len, unsigned long long *out);
/* A size in the largest unit that divides it: "8G", "1536M", "1000". */
void cordon_lx_size_describe(unsigned long long v, cordon_buf *out);
/* "procs=4096 memory=8G cpu=none". */
void cordon_lx_limits_describe(const cordon_lx_limits *l, cordon_buf *out);

enum { CORDON_LX_LIMIT_PROCS = 1u << 0, CORDON_LX_LIMIT_MEMORY = 1u << 1 };

/* What prepare made for the run; the runtime keeps it across its forks. */
typedef struct {
  int procs_fd;       /* the run's cgroup.procs, opened by cordon; -1: no cgroup */
  char *dir;          /* the cgroup's directory, owned */
  unsigned held;      /* CORDON_LX_LIMIT_*: the limits the cgroup enforces; the rest are per process */
  const char *why;    /* static: why there is no cgroup, or "cgroup" */
} cordon_lx_limits_run;

#define CORDON_LX_LIMITS_RUN_INIT {-1, NULL, 0, "no limits asked"}

/* In cordon: a cgroup for what it can hold; the rest stays per process (run->why says why: no cgroup
 * is no failure, and a cgroup half made is removed again). */
void cordon_lx_limits_prepare(const cordon_lx_limits *l, cordon_lx_limits_run *run);
/* In init (see above); `run` may be NULL (no prepare: only pid_max). A cgroup that cannot be joined is
 * SETUP_FAILED: the run would not be limited as planned. pid_max is best effort (RLIMIT_NPROC stands
 * behind it for every user but root). */
cordon_lx_status cordon_lx_limits_enter(const cordon_lx_limits *l, cordon_lx_limits_run *run, cordon_buf *msg);
/* In the command (see above); `run` may be NULL. Never raises a limit the caller already has lower. */
cordon_lx_status cordon_lx_limits_apply(const cordon_lx_limits *l, const cordon_lx_limits_run *run, cordon_buf *msg);
/* In cordon once the run has ended: removes the cgroup (waiting briefly for the kernel to empty it) and
 * appends to `report` one line per limit the run reached ("the run reached procs=64: 3 forks refused").
 * Leaves `run` as CORDON_LX_LIMITS_RUN_INIT. */
void cordon_lx_limits_release(const cordon_lx_limits *l, cordon_lx_limits_run *run, cordon_buf *report);

/* --- the run's cgroup (limits_cgroup.c) -------------------------------------------------------------- */
typedef struct {
  const char *file;   /* "pids.max" */
  const char *value;  /* "4096" */
  bool optional;      /* absent file (memory.swap.max without swap accounting): skipped */
} cordon_lx_cgroup_setting;

/* Makes the run's cgroup for a process in cgroup `own` (its path in the hierarchy mounted at `mount`):
 * under `own` when it is the hierarchy's root, else beside it, where `controllers` (space-separated) are
 * all enabled already and the caller may create and migrate; writes `settings` and opens cgroup.procs.
 * False with `why` (static) and nothing left behind when no place qualifies. */
bool cordon_lx_cgroup_create(const char *mount, const char *own, const char *controllers,
                             const cordon_lx_cgroup_setting *settings, size_t n, cordon_lx_limits_run *run,
                             const char **why);
/* The cgroup v2 mount and this process's cgroup in it (from /proc/self/mountinfo and /proc/self/cgroup);
 * false when there is none. */
bool cordon_lx_cgroup_self(char *mount, size_t mount_cap, char *own, size_t own_cap);
/* Moves the calling process into the run's cgroup and closes the descriptor. */
bool cordon_lx_cgroup_join(cordon_lx_limits_run *run, cordon_buf *msg);
/* Removes the run's cgroup, appending what its events say the run reached to `report`. */
void cordon_lx_cgroup_remove(cordon_lx_limits_run *run, const cordon_lx_limits *l, cordon_buf *report);
#endif
