/* src/backend/linux/placeholder.c — placeholders for missing protected paths: made (or adopted) and
 * locked here, then handed to their cleaner (cleaner.c). */
#include "backend/linux/placeholder.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

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
  uint32_t *list = calloc(plan->nmounts + 1, sizeof *list);
  int *fds = malloc((plan->nmounts + 1) * sizeof *fds);
  bool *made = calloc(plan->nmounts + 1, sizeof *made);
  if (!list || !fds || !made) {
    free(list), free(fds), free(made);
    return CORDON_LX_NOMEM;
  }
  cordon_lx_status st = CORDON_LX_OK;
  size_t n = 0;
  for (size_t i = 0; i < plan->nmounts && st == CORDON_LX_OK; i++) {
    const cordon_mount *m = &plan->mounts[i];
    if (!m->placeholder) continue;
    int fd = -1;
    bool created = false, adopted = false;
    /* A cleaner of an earlier run may remove an existing placeholder at any moment until we hold our
     * shared lock on it: retry until the path we locked is still the path's directory. */
    for (int attempt = 0; attempt < 8 && fd < 0; attempt++) {
      int rc = m->is_dir ? mkdir(m->path, 0700) : -1;
      if (!m->is_dir) {
        int f = open(m->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
        rc = f < 0 ? -1 : close(f);
      }
      if (rc != 0 && errno != EEXIST) break;
      /* A placeholder another run still holds is adopted: whichever cleaner finds it unused last removes
       * it (only while empty), so back-to-back runs never leave one behind. */
      bool held = false;
      fd = open_lock(m, &held);
      created = rc == 0 || held;
      adopted = rc != 0 && held;
      struct stat a, b;
      if (fd >= 0 && !(fstat(fd, &a) == 0 && lstat(m->path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino))
        close(fd), fd = -1;
    }
    if (fd < 0) {
      cordon_buf_printf(msg, "cannot create the placeholder %s (for %s): %s", m->path, m->source, strerror(errno));
      st = CORDON_LX_SETUP_FAILED;
      break;
    }
    made[n] = created && !adopted;
    list[n] = (uint32_t)i | (created ? CORDON_LX_CLEANER_CREATED : 0);
    fds[n++] = fd;
  }
  /* The cleaner holds our lock on every placeholder this run relies on until the sandbox is gone, and
   * removes those it made. */
  cordon_lx_cleaner c = {-1, -1};
  if (st == CORDON_LX_OK && n > 0 && (fflush(NULL), !cordon_lx_cleaner_fork(plan, &c))) {
    cordon_buf_printf(msg, "cannot start the placeholder cleaner: %s", strerror(errno));
    st = CORDON_LX_SETUP_FAILED;
  }
  if (st == CORDON_LX_OK && n > 0 && !cordon_lx_cleaner_hand_over(&c, list, fds, n)) {
    cordon_buf_printf(msg, "cannot hand the placeholders to their cleaner: %s", strerror(errno));
    st = CORDON_LX_SETUP_FAILED;
  }
  if (st == CORDON_LX_OK && n > 0) *notify_fd = c.sock;  /* now the namespace's report */
  if (st != CORDON_LX_OK) {
    if (c.pid > 0) cordon_lx_cleaner_dismiss(&c);
    /* nothing started: undo what this call made, unless another run has come to rely on it meanwhile
     * (an adopted placeholder is never ours to remove here: its sandbox may be running) */
    for (size_t k = 0; k < n; k++) {
      const cordon_mount *m = &plan->mounts[list[k] & ~CORDON_LX_CLEANER_CREATED];
      if (made[k] && flock(fds[k], LOCK_EX | LOCK_NB) == 0) m->is_dir ? (void)rmdir(m->path) : (void)unlink(m->path);
    }
  }
  /* our copies of the locks go; the cleaner's (in flight until it reads them) keep them held */
  for (size_t k = 0; k < n; k++) close(fds[k]);
  free(list);
  free(fds);
  free(made);
  return st;
}

void cordon_lx_placeholders_notify(int notify_fd, bool entered) {
  if (notify_fd < 0) return;
  struct stat st;
  uint64_t ino = entered && stat("/proc/self/ns/mnt", &st) == 0 ? (uint64_t)st.st_ino : 0;
  if (write(notify_fd, &ino, sizeof ino) != (ssize_t)sizeof ino) {}  /* the cleaner then waits for us only */
  close(notify_fd);
}
