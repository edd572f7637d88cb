/* src/backend/linux/landlock_ahead.c — a cache hit's Landlock rules, opened and added on a helper thread
 * while the main thread replays the entry (landlock.h says which rules qualify, and why).
 *
 * Exactness: a rule's right lands on the inode its path resolves to. Ahead of the mount namespace that
 * is the same inode as after it only for a path no planned mount covers and no symlink redirects (a
 * symlink could lead under a mask); RESOLVE_NO_SYMLINKS refuses the others, which the main thread then
 * adds after the mounts. The helper only reads the plan and writes its own slots of `done`. */
#include "backend/linux/landlock.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static bool within(const char *dir, const char *path) {
  size_t n = strlen(dir);
  if (n == 1 && dir[0] == '/') return path[0] == '/';
  return strncmp(dir, path, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static bool under_a_mount(const cordon_lx_plan *plan, const char *path) {
  for (size_t i = 0; i < plan->nmounts; i++)
    if (within(plan->mounts[i].path, path)) return true;
  return false;
}

static void *add_ahead(void *arg) {
  cordon_lx_landlock_ahead *a = arg;
  a->tid = (pid_t)syscall(SYS_gettid);
  for (size_t i = 0; i < a->plan->nrules; i++) {
    const cordon_lx_rule *r = &a->plan->rules[i];
    if (under_a_mount(a->plan, r->path)) continue;
    uint64_t rights;
    int err;
    cordon_lx_rule_result res = cordon_lx_landlock_add(a->ruleset, r, a->abi, true, &rights, &err);
    a->done[i] = res == CORDON_LX_RULE_ADDED || res == CORDON_LX_RULE_GONE;
  }
  return NULL;
}

bool cordon_lx_landlock_ahead_start(cordon_lx_landlock_ahead *a, const cordon_lx_plan *plan, int abi) {
  memset(a, 0, sizeof *a);
  a->ruleset = -1;
  a->tid = -1;
  if (!plan || plan->fs_unrestricted || plan->nrules == 0 || abi < 1) return false;
  a->plan = plan;
  a->abi = abi;
  if (!(a->done = calloc(plan->nrules, 1))) return false;
  int err;
  if ((a->ruleset = cordon_lx_landlock_create(plan, abi, &err)) < 0) return false;
  a->running = pthread_create(&a->thread, NULL, add_ahead, a) == 0;
  if (!a->running) {  /* nothing ahead: the main thread adds every rule */
    close(a->ruleset);
    a->ruleset = -1;
  }
  return a->running;
}

void cordon_lx_landlock_ahead_join(cordon_lx_landlock_ahead *a) {
  if (!a->running) return;
  pthread_join(a->thread, NULL);
  a->running = false;
  /* pthread_join returns once the thread's exit cleared its tid, slightly before the kernel takes it
   * out of the thread group; unshare(CLONE_NEWUSER) fails with EINVAL until then. */
  for (int spins = 0; a->tid > 0 && spins < 100000; spins++) {
    if (syscall(SYS_tgkill, getpid(), a->tid, 0) != 0 && errno == ESRCH) break;
    sched_yield();
  }
}

void cordon_lx_landlock_ahead_free(cordon_lx_landlock_ahead *a) {
  cordon_lx_landlock_ahead_join(a);
  if (a->ruleset >= 0) close(a->ruleset);
  a->ruleset = -1;
  free(a->done);
  a->done = NULL;
}
