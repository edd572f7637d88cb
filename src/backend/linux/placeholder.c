/* src/backend/linux/placeholder.c — placeholders for missing protected paths, and their cleaner (see
 * placeholder.h for why the cleaner waits for the namespace, not just the command). */
#include "backend/linux/placeholder.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

#define PLACEHOLDER_LINGER_MS 500
#define PLACEHOLDER_POLL_MS 25

static void nap(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

/* True while some process still lives in the mount namespace with inode `ino`. The link is read, not
 * followed (no nsfs dentry per process), relative to the open /proc: back-to-back runs each scan it
 * once, on the same cores as the next run. */
static bool namespace_alive(ino_t ino) {
  DIR *d = opendir("/proc");
  if (!d) return false;
  bool alive = false;
  char path[300], want[64], got[64];
  int n = snprintf(want, sizeof want, "mnt:[%llu]", (unsigned long long)ino);
  for (struct dirent *e; !alive && (e = readdir(d));) {
    if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
    snprintf(path, sizeof path, "%s/ns/mnt", e->d_name);
    ssize_t len = readlinkat(dirfd(d), path, got, sizeof got);
    alive = len == n && memcmp(got, want, (size_t)n) == 0;
  }
  closedir(d);
  return alive;
}

static void wait_for_exit(pid_t pid) {
  int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
  if (pfd >= 0) {
    struct pollfd p = {pfd, POLLIN, 0};
    while (poll(&p, 1, -1) < 0 && errno == EINTR) {}
    close(pfd);
    return;
  }
  while (kill(pid, 0) == 0 || errno == EPERM) nap(50);  /* kernels before 5.3 */
}

static void remove_if_unused(const cordon_mount *m, int fd) {
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) return;  /* another run still relies on it */
  struct stat held, now;  /* only what we locked: never a newer placeholder at the same path */
  if (fstat(fd, &held) != 0 || lstat(m->path, &now) != 0 || held.st_dev != now.st_dev || held.st_ino != now.st_ino)
    return;
  if (m->is_dir) {
    (void)rmdir(m->path);
  } else {
    struct stat st;
    if (lstat(m->path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0) (void)unlink(m->path);
  }
}

/* Whether some other open of each placeholder we created still holds a lock on it (a later run). Our own
 * shared lock stays: an exclusive one we get is turned back at once. */
static bool all_held_elsewhere(const cordon_lx_plan *plan, const bool *created, const int *fds) {
  for (size_t i = 0; i < plan->nmounts; i++) {
    if (!created[i]) continue;
    if (flock(fds[i], LOCK_EX | LOCK_NB) == 0) {
      (void)flock(fds[i], LOCK_SH);
      return false;
    }
    if (errno != EWOULDBLOCK) return false;
  }
  return true;
}

static _Noreturn void cleaner(const cordon_lx_plan *plan, const bool *created, const int *fds, pid_t pid, int rfd) {
  int null = open("/dev/null", O_RDWR);
  if (null >= 0) {  /* hold no caller's pipe or terminal open */
    dup2(null, 0), dup2(null, 1), dup2(null, 2);
    if (null > 2) close(null);
  }
  uint64_t ino = 0;
  if (read(rfd, &ino, sizeof ino) != (ssize_t)sizeof ino) ino = 0;  /* EOF: no namespace was made */
  close(rfd);
  struct stat own;  /* never wait for the namespace everyone else lives in */
  if (stat("/proc/self/ns/mnt", &own) == 0 && (uint64_t)own.st_ino == ino) ino = 0;
  wait_for_exit(pid);
  while (ino && namespace_alive((ino_t)ino)) nap(100);
  /* Linger a moment: a run started meanwhile adopts the placeholders still held (counted as missing by
   * every cached observation, core/record.h) instead of recreating them, which on ext4 costs up to a
   * millisecond per mkdir right after an rmdir. Once a later run holds every one, its cleaner answers
   * for them: leave then, so back-to-back runs do not pile up cleaners (each holds locks the next runs
   * walk past and is one more /proc entry every scan reads). */
  for (long waited = 0; waited < PLACEHOLDER_LINGER_MS && !all_held_elsewhere(plan, created, fds);
       waited += PLACEHOLDER_POLL_MS)
    nap(PLACEHOLDER_POLL_MS);
  for (size_t i = plan->nmounts; i-- > 0;)
    if (created[i]) remove_if_unused(&plan->mounts[i], fds[i]);
  _exit(0);
}

/* Opens the placeholder and takes our shared lock on it; *held_before says whether another run (or its
 * cleaner) held a lock on it already. One open serves both. */
static int open_lock(const cordon_mount *m, bool *held_before) {
  int fd = open(m->path, (m->is_dir ? O_DIRECTORY : 0) | O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return -1;
  *held_before = flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  if (flock(fd, LOCK_SH) != 0) {  /* from the exclusive lock, or waiting out a cleaner's brief one */
    close(fd);
    return -1;
  }
  return fd;
}

cordon_lx_status cordon_lx_placeholders_start(const cordon_lx_plan *plan, int *notify_fd, cordon_buf *msg) {
  *notify_fd = -1;
  bool *created = calloc(plan->nmounts, sizeof *created);
  int *fds = malloc(plan->nmounts * sizeof *fds);
  if (!created || !fds) {
    free(created), free(fds);
    return CORDON_LX_NOMEM;
  }
  cordon_lx_status st = CORDON_LX_OK;
  size_t i = 0;
  for (; i < plan->nmounts; i++) {
    const cordon_mount *m = &plan->mounts[i];
    fds[i] = -1;
    if (!m->placeholder) continue;
    /* A cleaner of an earlier run may remove an existing placeholder at any moment until we hold our
     * shared lock on it: retry until the path we locked is still the path's directory. */
    for (int attempt = 0; attempt < 8 && fds[i] < 0; attempt++) {
      int rc = m->is_dir ? mkdir(m->path, 0700) : -1;
      if (!m->is_dir) {
        int fd = open(m->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
        rc = fd < 0 ? -1 : close(fd);
      }
      if (rc != 0 && errno != EEXIST) break;
      /* A placeholder another run still holds is adopted: whichever cleaner finds it unused last removes
       * it (only while empty), so back-to-back runs never leave one behind. */
      bool held = false;
      int fd = open_lock(m, &held);
      created[i] = rc == 0 || held;
      struct stat a, b;
      if (fd >= 0 && fstat(fd, &a) == 0 && lstat(m->path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
        fds[i] = fd;
      else if (fd >= 0)
        close(fd);
    }
    if (fds[i] < 0) {
      cordon_buf_printf(msg, "cannot create the placeholder %s (for %s): %s", m->path, m->source, strerror(errno));
      st = CORDON_LX_SETUP_FAILED;
      i++;
      break;
    }
  }
  int pipefd[2] = {-1, -1};
  if (st == CORDON_LX_OK && pipe2(pipefd, O_CLOEXEC) != 0) {
    cordon_buf_printf(msg, "pipe: %s", strerror(errno));
    st = CORDON_LX_SETUP_FAILED;
  }
  pid_t self = getpid(), pid = -1;
  fflush(NULL);
  /* The cleaner is our child with no exit signal (a raw clone, like fork with exit_signal 0): wait() in
   * the command we become never sees such a child (only __WALL/__WCLONE do), it never exits before the
   * command does (it waits for it first), and once the command exits the kernel reparents it with
   * SIGCHLD to init or a subreaper, which reaps it. Unlike a double fork nothing waits here, which cost
   * 1-8 ms of scheduling on a busy machine. */
  if (st == CORDON_LX_OK && (pid = (pid_t)syscall(SYS_clone, 0UL, NULL, NULL, NULL, 0UL)) < 0) {
    cordon_buf_printf(msg, "clone: %s", strerror(errno));
    st = CORDON_LX_SETUP_FAILED;
  }
  if (pid == 0) {
    /* Nothing it does is urgent, so first of all: only CPU time nobody else wants. A new child often runs
     * before its parent resumes, on the parent's CPU, and would delay the sandbox's setup; later its /proc
     * scan would share a CPU with the next run. */
    (void)sched_setscheduler(0, SCHED_IDLE, &(struct sched_param){0});
    close(pipefd[1]);
    setsid();  /* off the caller's terminal and process group */
    (void)prctl(PR_SET_NAME, "cordon-cleaner", 0, 0, 0);  /* what ps shows while it lingers */
    cleaner(plan, created, fds, self, pipefd[0]);
  }
  if (pid > 0) {
    close(pipefd[0]);
    *notify_fd = pipefd[1];
  } else {
    if (pipefd[0] >= 0) close(pipefd[0]), close(pipefd[1]);
    for (size_t k = 0; k < i; k++)  /* nothing started: undo what this call made */
      if (created[k]) plan->mounts[k].is_dir ? (void)rmdir(plan->mounts[k].path) : (void)unlink(plan->mounts[k].path);
  }
  /* our copies of the locks go; the cleaner's copies of the same open files keep them held */
  for (size_t k = 0; k < i; k++)
    if (fds[k] >= 0) close(fds[k]);
  free(created);
  free(fds);
  return st;
}

void cordon_lx_placeholders_notify(int notify_fd, bool entered) {
  if (notify_fd < 0) return;
  struct stat st;
  uint64_t ino = entered && stat("/proc/self/ns/mnt", &st) == 0 ? (uint64_t)st.st_ino : 0;
  if (write(notify_fd, &ino, sizeof ino) != (ssize_t)sizeof ino) {}  /* the cleaner then waits for us only */
  close(notify_fd);
}
