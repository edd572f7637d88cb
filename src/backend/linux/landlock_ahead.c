/* src/backend/linux/landlock_ahead.c — a cache hit's Landlock rules, added by helper threads during the replay */
#include "backend/linux/landlock.h"
#include "core/path.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sched.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { AHEAD_WAITING, AHEAD_OFFERED, AHEAD_CANCELLED };

/* Whether `path` (resolved: no symlink in it) names the same inode in the view as on the host: the
 * deepest of the view's mounts holding it is bound from the host, at the same place. Anything in the
 * view's own parts (listing views, the run's /tmp, /dev, procfs, masks) is another inode. */
static bool same_in_view(const cordon_lx_plan *plan, const char *path) {
  if (plan->fs_unrestricted) return true;  /* no view: the host's own tree */
  const cordon_mount *deepest = NULL;
  for (size_t i = 0; i < plan->nmounts; i++)
    if (cordon_path_within(plan->mounts[i].path, path) &&
        (!deepest || strlen(plan->mounts[i].path) >= strlen(deepest->path)))
      deepest = &plan->mounts[i];
  return deepest && deepest->kind == CORDON_MOUNT_BIND;
}

/* An O_PATH descriptor for `r` that names the inode init would get in the view, or -1 (then the rule
 * waits for the view). A plain path inside a bound tree qualifies; a path through symlinks qualifies when
 * where it leads does, read back from /proc/self/fd: it is then the same inode in both. Not
 * /proc/thread-self, which differs per thread. *gone: the path does not exist. */
static int open_ahead(const cordon_lx_plan *plan, const char *path, bool *gone) {
  *gone = false;
  struct open_how how = {.flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
  int fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how);
  if (fd >= 0) {
    if (same_in_view(plan, path)) return fd;
    close(fd);
    return -1;
  }
  if (errno != ELOOP) {
    /* missing on the host: missing in the view too, unless the view makes that part itself */
    *gone = (errno == ENOENT || errno == ENOTDIR) && same_in_view(plan, path);
    return -1;
  }
  if (strncmp(path, "/proc/thread-self", 17) == 0 || (fd = openat(AT_FDCWD, path, O_PATH | O_CLOEXEC)) < 0) return -1;
  char link[64], target[4096];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, target, sizeof target - 1);
  if (n > 0) target[n] = '\0';
  /* an object with no path (a pipe behind /dev/stdin) is the same object for both threads */
  bool same = n > 0 && (size_t)n < sizeof target - 1 &&
              (target[0] != '/' || (same_in_view(plan, target) && !strstr(target, "/task/")));
  if (!same) close(fd);
  return same ? fd : -1;
}

/* Claims and adds rules until none is left; either thread. */
static void add_claimed(cordon_lx_landlock_ahead *a) {
  for (size_t i; (i = atomic_fetch_add(&a->next, 1)) < a->plan->nrules;) {
    const cordon_lx_rule *r = &a->plan->rules[i];
    bool gone;
    int fd = open_ahead(a->plan, r->path, &gone);
    uint64_t rights;
    int err;
    a->done[i] = gone || (fd >= 0 && cordon_lx_landlock_add_fd(a->ruleset, fd, r, a->abi, true, &rights, &err) ==
                                         CORDON_LX_RULE_ADDED);
  }
}

static void *helper(void *arg) {
  cordon_lx_landlock_ahead *a = arg;
  atomic_store(&a->tid, (int)syscall(SYS_gettid));
  int state;
  while ((state = atomic_load_explicit(&a->state, memory_order_acquire)) == AHEAD_WAITING) sched_yield();
  if (state == AHEAD_OFFERED) add_claimed(a);
  /* not the gate's rules: init decodes them while the command loads its filter, and waiting here for
   * them cost the main thread more than it saved init (docs/benchmarks.md, seventh session) */
  atomic_store_explicit(&a->helper_done, true, memory_order_release);
  return NULL;
}

bool cordon_lx_landlock_ahead_start(cordon_lx_landlock_ahead *a) {
  memset(a, 0, sizeof *a);
  a->ruleset = -1;
  atomic_init(&a->state, AHEAD_WAITING);
  atomic_init(&a->next, 0);
  atomic_init(&a->helper_done, false);
  atomic_init(&a->tid, 0);
  /* On another CPU than ours, or not at all: the scheduler would put a new thread on our CPU, where it
   * only takes turns with us (measured: it then ran once the main thread was done). */
  cpu_set_t others;
  int self = sched_getcpu();
  if (self < 0 || sched_getaffinity(0, sizeof others, &others) != 0) return false;
  CPU_CLR(self, &others);
  if (CPU_COUNT(&others) == 0) return false;
  pthread_attr_t attr;
  if (pthread_attr_init(&attr) != 0) return false;
  (void)pthread_attr_setstacksize(&attr, 64 * 1024);  /* a few frames of syscalls */
  a->running = pthread_create(&a->thread, &attr, helper, a) == 0;
  pthread_attr_destroy(&attr);
  /* after the start (musl has no attribute for it): at worst it began on our CPU and moves now */
  if (a->running) (void)pthread_setaffinity_np(a->thread, sizeof others, &others);
  return a->running;
}

void cordon_lx_landlock_ahead_offer(cordon_lx_landlock_ahead *a, cordon_lx_plan *plan, int abi) {
  int err;
  if (!a->running) return;
  if (!plan || plan->fs_unrestricted || plan->nrules == 0 || abi < 1 || !(a->done = calloc(plan->nrules, 1)) ||
      (a->ruleset = cordon_lx_landlock_create(plan, abi, &err)) < 0) {
    atomic_store_explicit(&a->state, AHEAD_CANCELLED, memory_order_release);
    return;
  }
  a->plan = plan;
  a->abi = abi;
  atomic_store_explicit(&a->state, AHEAD_OFFERED, memory_order_release);
}

void cordon_lx_landlock_ahead_settle(cordon_lx_landlock_ahead *a) {
  if (!a->running || a->settled) return;
  int expected = AHEAD_WAITING;  /* never offered: the helper has nothing to wait for */
  atomic_compare_exchange_strong(&a->state, &expected, AHEAD_CANCELLED);
  if (atomic_load(&a->state) == AHEAD_OFFERED) add_claimed(a);
  if (!atomic_load_explicit(&a->helper_done, memory_order_acquire)) {
    /* Still busy, or not even started: the other CPU is taken (a build, say). Bring it over to ours, where
     * our yields let it finish its last rule, instead of waiting for the other CPU's scheduler. */
    cpu_set_t ours;
    CPU_ZERO(&ours);
    int self = sched_getcpu();
    if (self >= 0) CPU_SET(self, &ours);
    if (self >= 0) (void)pthread_setaffinity_np(a->thread, sizeof ours, &ours);
  }
  while (!atomic_load_explicit(&a->helper_done, memory_order_acquire)) sched_yield();
  a->settled = true;
}

void cordon_lx_landlock_ahead_finish(cordon_lx_landlock_ahead *a) {
  if (!a->running) return;
  cordon_lx_landlock_ahead_settle(a);
  /* Spin, not sleep, until the thread is gone: pthread_join returns once its exit cleared its tid, a
   * moment before the kernel takes it out of the thread group, and unshare(CLONE_NEWUSER) fails with
   * EINVAL until then. */
  while (pthread_tryjoin_np(a->thread, NULL) == EBUSY) sched_yield();
  a->running = false;
  pid_t tid = atomic_load(&a->tid);
  for (int spins = 0; tid > 0 && spins < 100000; spins++) {
    if (syscall(SYS_tgkill, getpid(), tid, 0) != 0 && errno == ESRCH) break;
    sched_yield();
  }
}

void cordon_lx_landlock_ahead_free(cordon_lx_landlock_ahead *a) {
  cordon_lx_landlock_ahead_finish(a);
  if (a->ruleset >= 0) close(a->ruleset);
  a->ruleset = -1;
  free(a->done);
  a->done = NULL;
}
