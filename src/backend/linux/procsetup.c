/* src/backend/linux/procsetup.c — descriptors, session keyring and nested user namespaces (procsetup.h). */
#include "backend/linux/procsetup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/keyctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#define KEEP_MAX 1024

static int compare_ints(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

static bool kept(const int *keep, size_t n, int fd) {
  return bsearch(&fd, keep, n, sizeof *keep, compare_ints) != NULL;
}

/* Without close_range (before 5.9, or a filter around cordon refusing it): the descriptors /proc lists,
 * or, without /proc, every number below RLIMIT_NOFILE. */
static bool close_listed(const int *keep, size_t n) {
  DIR *d = opendir("/proc/self/fd");
  if (!d) {
    struct rlimit r;
    long max = getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur != RLIM_INFINITY ? (long)r.rlim_cur : 65536;
    for (long fd = 3; fd < max && fd < (1L << 20); fd++)
      if (!kept(keep, n, (int)fd)) (void)close((int)fd);
    return true;
  }
  int *open_fds = NULL;
  size_t count = 0, cap = 0;
  bool ok = true;
  struct dirent *e;
  while (ok && (e = readdir(d))) {
    char *end;
    long fd = strtol(e->d_name, &end, 10);
    if (*end || end == e->d_name || fd < 3 || fd == dirfd(d) || fd > 0x7fffffff || kept(keep, n, (int)fd)) continue;
    if (count == cap) {
      int *grown = realloc(open_fds, (cap = cap ? cap * 2 : 64) * sizeof *grown);
      if (!grown) ok = false;
      else open_fds = grown;
    }
    if (ok) open_fds[count++] = (int)fd;
  }
  closedir(d);
  for (size_t i = 0; i < count; i++) (void)close(open_fds[i]);
  free(open_fds);
  return ok;
}

cordon_lx_status cordon_lx_fds_close_inherited(const int *keep, size_t n, cordon_buf *msg) {
  if (n > KEEP_MAX) {
    cordon_buf_printf(msg, "too many descriptors to pass (%zu, at most %d)", n, KEEP_MAX);
    return CORDON_LX_INVALID;
  }
  int sorted[KEEP_MAX];
  size_t m = 0;
  for (size_t i = 0; i < n; i++)
    if (keep[i] > 2) sorted[m++] = keep[i];
  qsort(sorted, m, sizeof *sorted, compare_ints);
  for (size_t i = 0; i < m; i++) {
    int flags = fcntl(sorted[i], F_GETFD);
    if (flags < 0 || fcntl(sorted[i], F_SETFD, flags & ~FD_CLOEXEC) != 0) {
      cordon_buf_printf(msg, "descriptor %d (--pass-fd) is not open", sorted[i]);
      return CORDON_LX_SETUP_FAILED;
    }
  }
  unsigned lo = 3;
  bool ranges = true;
  for (size_t i = 0; ranges && i < m; i++) {
    unsigned fd = (unsigned)sorted[i];
    if (fd > lo) ranges = syscall(SYS_close_range, lo, fd - 1, 0) == 0;
    if (fd + 1 > lo) lo = fd + 1;
  }
  if (ranges) ranges = syscall(SYS_close_range, lo, ~0u, 0) == 0;
  if (!ranges && !close_listed(sorted, m)) {
    cordon_buf_puts(msg, "closing inherited descriptors: out of memory");
    return CORDON_LX_NOMEM;
  }
  return CORDON_LX_OK;
}

cordon_lx_status cordon_lx_keyring_fresh(cordon_buf *msg) {
  if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) >= 0 || errno == ENOSYS) return CORDON_LX_OK;
  cordon_buf_printf(msg, "joining a fresh session keyring: %s%s", strerror(errno),
                    errno == EDQUOT ? " (this user's key quota is full: /proc/sys/kernel/keys/maxkeys)" : "");
  return CORDON_LX_SETUP_FAILED;
}

/* The initial user namespace maps every uid to itself; a run's maps only its own. */
static bool initial_user_namespace(void) {
  char text[128] = "";
  int fd = openat(AT_FDCWD, "/proc/self/uid_map", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return true;  /* cannot tell: assume the worst */
  ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  unsigned long inside, outside, count;
  text[n > 0 ? n : 0] = '\0';
  return sscanf(text, "%lu %lu %lu", &inside, &outside, &count) != 3 || count == 4294967295ul;
}

cordon_lx_status cordon_lx_userns_forbid(cordon_buf *msg) {
  if (initial_user_namespace()) {
    cordon_buf_puts(msg, "refusing to set user.max_user_namespaces outside a user namespace of the run's own");
    return CORDON_LX_SETUP_FAILED;
  }
  int fd = openat(AT_FDCWD, "/proc/sys/user/max_user_namespaces", O_WRONLY | O_CLOEXEC);
  bool ok = fd >= 0 && write(fd, "0", 1) == 1;
  int err = errno;
  if (fd >= 0) close(fd);
  if (ok) return CORDON_LX_OK;
  cordon_buf_printf(msg, "setting the run's user.max_user_namespaces to 0: %s", strerror(err));
  return CORDON_LX_SETUP_FAILED;
}
