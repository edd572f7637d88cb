/* src/backend/linux/gate/op_open.c — open, openat and creat that write, create or truncate */
#include "backend/linux/gate/gate_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define CREATE_TRIES 3  /* a name that appears or vanishes between looking and creating: look again */

/* Whether opening `st` may wait (a FIFO's other end, a serial line's carrier): then a worker does it.
 * Memory devices, terminals and pseudo-terminals open at once. */
static bool open_may_block(const struct stat *st, int flags) {
  if (flags & O_NONBLOCK) return false;
  if (S_ISFIFO(st->st_mode)) return true;
  if (!S_ISCHR(st->st_mode)) return false;
  unsigned maj = major(st->st_rdev);
  return !(maj == 1 || maj == 5 || (maj >= 136 && maj <= 143));
}

static int reopen_flags(int flags) { return (flags & ~(O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC)) | O_NOCTTY | O_CLOEXEC; }

static long result_fd(gate_call *c, int fd, int flags) {
  if (fd < 0) return -errno;
  c->result_fd = fd;
  c->result_cloexec = (flags & O_CLOEXEC) != 0;
  return GATE_FD_RESULT;
}

/* A new regular file at (dir, name). */
static long create_new(gate_call *c, const gate_path *p, int flags, unsigned mode) {
  char path[GATE_PATH_MAX];
  int rc = gate_may_create(c, p->dir, p->name, GIT_MKFILE, "create", path, NULL);
  if (rc < 0) return rc;
  int old = gate_with_umask(c, path);
  if (old < 0) return old;
  int fd = openat(p->dir, p->name, reopen_flags(flags) | O_CREAT | O_EXCL | O_NOFOLLOW, mode);
  int err = errno;
  gate_restore_umask(old);
  errno = err;
  return fd < 0 ? -err : result_fd(c, fd, flags);
}

/* An unnamed file (O_TMPFILE) in the directory `dirobj`. */
static long create_tmpfile(gate_call *c, const gate_path *p, int flags, unsigned mode) {
  if (!S_ISDIR(p->st.st_mode)) return -ENOTDIR;
  char path[GATE_PATH_MAX];
  int rc = gate_fd_path(c->g, p->obj, path, sizeof path);
  if (rc < 0) return rc;
  /* it has no name yet: deciding on the directory itself; linkat decides the name it may get */
  if ((rc = gate_policy(c, CORDON_LX_CREATE, path, "create")) < 0) return rc;
  int old = gate_with_umask(c, path);
  if (old < 0) return old;
  int fd = openat(p->obj, ".", reopen_flags(flags), mode);
  int err = errno;
  gate_restore_umask(old);
  errno = err;
  return fd < 0 ? -err : result_fd(c, fd, flags);
}

static long open_existing(gate_call *c, const gate_path *p, int flags, bool writes) {
  if (flags & O_PATH) {
    if ((flags & O_DIRECTORY) && !S_ISDIR(p->st.st_mode)) return -ENOTDIR;
    return result_fd(c, fcntl(p->obj, F_DUPFD_CLOEXEC, 0), flags);
  }
  if (writes && S_ISDIR(p->st.st_mode)) return -EISDIR;  /* the kernel's answer comes before any decision */
  if (writes) {
    /* Only for what no policy names (a pipe, a socket, a terminal), judged on the object the gate holds:
     * the descriptor's mode is read after the link was followed, and the caller may swap the two */
    int mode = p->fdlink_flags;
    bool pathless = !S_ISREG(p->st.st_mode) && !S_ISDIR(p->st.st_mode) && !S_ISLNK(p->st.st_mode);
    bool already = p->kind == GP_MAGIC && pathless && mode >= 0 && !(mode & O_PATH) && (mode & O_ACCMODE) != O_RDONLY;
    char path[GATE_PATH_MAX];
    int rc = already ? 0 : gate_may_change(c, p, CORDON_LX_WRITE, GIT_WRITE, "write", path);
    if (rc < 0) return rc;
  }
  if (open_may_block(&p->st, flags)) {
    int fd = fcntl(p->obj, F_DUPFD_CLOEXEC, 0);
    if (fd < 0) return -errno;
    gate_job job = {.kind = JOB_OPEN, .fd = fd, .keep = -1, .flags = reopen_flags(flags), .cloexec = (flags & O_CLOEXEC) != 0};
    return gate_defer(c, &job);
  }
  return result_fd(c, gate_reopen(c->g, p->obj, reopen_flags(flags)), flags);
}

long gate_op_open(gate_call *c, int dirfd, uint64_t path_addr, int flags, unsigned mode) {
  char path[GATE_PATH_MAX];
  int rc = caller_string(c, path_addr, path);
  if (rc < 0) return rc;
  if (!path[0]) return -ENOENT;
  if (flags & O_PATH) flags &= O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;  /* as the kernel reads it */
  bool tmpfile = (flags & O_TMPFILE) == O_TMPFILE && !(flags & O_PATH);
  bool creat = (flags & O_CREAT) && !tmpfile && !(flags & O_PATH);
  int acc = flags & O_ACCMODE;
  bool writes = !(flags & O_PATH) && (acc != O_RDONLY || (flags & O_TRUNC));
  if (creat && (flags & O_DIRECTORY)) return -EINVAL;
  if (tmpfile && acc == O_RDONLY) return -EINVAL;
  unsigned how = GR_SLASH;
  if (!(flags & O_NOFOLLOW) && !(creat && (flags & O_EXCL))) how |= GR_FOLLOW;
  int base;
  if ((rc = caller_base(c, dirfd, path, &base)) < 0) return rc;
  long r = -EEXIST;
  for (int tries = 0; tries < CREATE_TRIES && r == -EEXIST; tries++) {
    gate_path p;
    rc = gate_resolve(c, base, path, how, &p);
    if (rc < 0) r = rc;
    else if (!gate_still_valid(c)) r = -EINTR;
    else if (p.kind != GP_NAME || p.obj >= 0) {  /* it exists */
      if (creat && (flags & O_EXCL)) r = -EEXIST, tries = CREATE_TRIES;
      else if (p.kind == GP_NAME && S_ISLNK(p.st.st_mode) && !(flags & O_PATH)) r = -ELOOP;  /* O_NOFOLLOW */
      else if (creat && S_ISDIR(p.st.st_mode)) r = -EISDIR;
      else if (tmpfile) r = create_tmpfile(c, &p, flags, mode);
      else r = open_existing(c, &p, flags, writes);
    } else if (!creat || tmpfile) r = -ENOENT;
    else if (p.slash) r = -EISDIR;
    else {
      r = create_new(c, &p, flags, mode);
      if (r == -EEXIST && (flags & O_EXCL)) tries = CREATE_TRIES;  /* the caller's own O_EXCL: its answer */
    }
    gate_path_close(&p);
  }
  if (base >= 0) close(base);
  return r;
}
