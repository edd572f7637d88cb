/* src/backend/linux/gate/caller.c — what the gate reads of the calling thread: memory, descriptors, cwd, umask, pid */
#include "backend/linux/gate/gate_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL  /* Linux 6.9: a pidfd for a thread that does not lead its group */
#endif

#define PAGE 4096u

/* Reads up to `n` bytes at `addr`, one iovec per page so a read stops exactly where the caller's
 * mapping does. Returns the bytes read, or -errno when not even the first byte could be. */
static ssize_t read_upto(gate_call *c, uint64_t addr, char *out, size_t n) {
  struct iovec local = {.iov_base = out, .iov_len = n};
  struct iovec remote[GATE_PATH_MAX / PAGE + 2];
  size_t nr = 0, done = 0;
  while (done < n && nr < sizeof remote / sizeof remote[0]) {
    uint64_t at = addr + done;
    size_t chunk = PAGE - (size_t)(at % PAGE);
    if (chunk > n - done) chunk = n - done;
    remote[nr].iov_base = (void *)(uintptr_t)at;
    remote[nr++].iov_len = chunk;
    done += chunk;
  }
  ssize_t got = process_vm_readv(c->pid, &local, 1, remote, nr, 0);
  if (got < 0) return errno == ESRCH ? -ESRCH : errno == EFAULT ? -EFAULT : -EPERM;
  return got;
}

int caller_string(gate_call *c, uint64_t addr, char out[GATE_PATH_MAX]) {
  if (addr == 0) return -EFAULT;
  ssize_t got = read_upto(c, addr, out, GATE_PATH_MAX);
  if (got < 0) return (int)got;
  if (memchr(out, '\0', (size_t)got)) return 0;
  return got == GATE_PATH_MAX ? -ENAMETOOLONG : -EFAULT;
}

int caller_bytes(gate_call *c, uint64_t addr, void *out, size_t n) {
  if (n == 0) return 0;
  if (addr == 0) return -EFAULT;
  ssize_t got = read_upto(c, addr, out, n);
  if (got < 0) return (int)got;
  return (size_t)got == n ? 0 : -EFAULT;
}

int caller_pidfd(gate_call *c) {
  if (c->pidfd >= 0) return c->pidfd;
  /* the calling thread's own: its descriptor table may not be its process's (unshare(CLONE_FILES)) */
  int fd = (int)syscall(SYS_pidfd_open, c->pid, PIDFD_THREAD);
  if (fd < 0 && errno == EINVAL) {
    /* before Linux 6.9 only a process has a pidfd: its table, checked against the thread's in caller_fd */
    fd = (int)syscall(SYS_pidfd_open, c->pid, 0);
    if (fd < 0 && caller_status(c) == 0) {
      fd = (int)syscall(SYS_pidfd_open, c->tgid, 0);
      c->pidfd_of_process = fd >= 0;
    }
  }
  if (fd < 0) return errno == ESRCH ? -ESRCH : -EPERM;
  c->pid_used = true;
  return c->pidfd = fd;
}

/* Whether descriptor `fd` of the calling thread is the open file `d` (a process pidfd stood in for it). */
static bool same_as_thread_fd(gate_call *c, int fd, int d) {
  char p[64];
  struct stat a, b;
  snprintf(p, sizeof p, "%d/fd/%d", (int)c->pid, fd);
  return fstatat(c->g->proc_fd, p, &a, 0) == 0 && fstat(d, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int caller_fd(gate_call *c, int fd) {
  if (fd < 0) return -EBADF;
  int pfd = caller_pidfd(c);
  if (pfd < 0) return pfd;
  int d = (int)syscall(SYS_pidfd_getfd, pfd, fd, 0);
  if (d < 0) return errno == EBADF ? -EBADF : errno == ESRCH ? -ESRCH : errno == EMFILE ? -EMFILE : -EPERM;
  if (c->pidfd_of_process && !same_as_thread_fd(c, fd, d)) {
    close(d);
    return -EPERM;  /* a thread with a table of its own, on a kernel without thread pidfds: fail closed */
  }
  return d;
}

int caller_cwd(gate_call *c) {
  char p[48];
  snprintf(p, sizeof p, "%d/cwd", (int)c->pid);
  int fd = openat(c->g->proc_fd, p, O_PATH | O_DIRECTORY | O_CLOEXEC);
  c->pid_used = true;
  if (fd < 0) return errno == ENOENT || errno == ESRCH ? -ESRCH : -EPERM;
  return fd;
}

static long field(const char *text, const char *name, int base) {
  const char *p = strstr(text, name);
  if (!p || (p != text && p[-1] != '\n')) return -1;
  return strtol(p + strlen(name), NULL, base);
}

int caller_status(gate_call *c) {
  if (c->umask >= 0) return 0;
  char p[48], text[4096];
  snprintf(p, sizeof p, "%d/status", (int)c->pid);
  int fd = openat(c->g->proc_fd, p, O_RDONLY | O_CLOEXEC);
  c->pid_used = true;
  if (fd < 0) return errno == ENOENT || errno == ESRCH ? -ESRCH : -EPERM;
  ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  if (n <= 0) return -ESRCH;
  text[n] = '\0';
  long um = field(text, "Umask:", 8), tgid = field(text, "Tgid:", 10);
  if (um < 0 || tgid <= 0) return -EPERM;
  c->umask = (int)um;
  c->tgid = (pid_t)tgid;
  return 0;
}

int caller_base(gate_call *c, int dirfd, const char *path, int *base) {
  *base = -1;
  if (path[0] == '/') return 0;
  int fd = dirfd == AT_FDCWD ? caller_cwd(c) : caller_fd(c, dirfd);
  if (fd < 0) return fd;
  *base = fd;
  return 0;
}

int caller_fd_flags(int piddir, const char *fd) {
  char p[300], text[512];
  snprintf(p, sizeof p, "fdinfo/%s", fd);
  int f = openat(piddir, p, O_RDONLY | O_CLOEXEC);
  if (f < 0) return -errno;
  ssize_t n = read(f, text, sizeof text - 1);
  close(f);
  if (n <= 0) return -EIO;
  text[n] = '\0';
  long flags = field(text, "flags:", 8);
  return flags < 0 ? -EIO : (int)(flags & (O_ACCMODE | O_PATH));
}
