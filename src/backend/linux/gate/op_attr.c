/* src/backend/linux/gate/op_attr.c — truncate, chmod, fchmodat(2), fchmod: WRITE on the very inode resolved */
#include "backend/linux/gate/gate_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif

/* What a chmod inside may give: no write for other accounts, nor group write inside a git directory
 * (another account's hook would run at the owner's next git command there), unless the file had it. The
 * bits are dropped, not refused, so tar, cp -a and rsync -p carry on (docs/linux-gate.md, "Modes"). */
static unsigned kept_mode(const char *path, const struct stat *st, unsigned mode) {
  unsigned dropped = S_IWOTH | (gate_in_git_dir(path) ? S_IWGRP : 0);
  return mode & ~(dropped & ~(unsigned)st->st_mode);
}

static int chmod_op(const struct stat *st, unsigned mode) {
  return ((mode ^ st->st_mode) & 07777 & ~0111u) == 0 ? GIT_CHMOD_EXEC : GIT_CHMOD;
}

/* Resolves an existing object the operation follows to (unless `nofollow`). */
static int resolve_existing(gate_call *c, int dirfd, uint64_t addr, bool nofollow, bool empty_ok, gate_path *p) {
  char path[GATE_PATH_MAX];
  memset(p, 0, sizeof *p);
  p->dir = p->obj = -1;
  int base, rc = caller_string(c, addr, path);
  if (rc < 0) return rc;
  if (!path[0] && empty_ok) {
    /* AT_EMPTY_PATH: the descriptor itself (the cwd for AT_FDCWD) */
    int fd = dirfd == AT_FDCWD ? caller_cwd(c) : caller_fd(c, dirfd);
    if (fd < 0) return fd;
    p->kind = GP_MAGIC, p->obj = fd;
    rc = fstat(fd, &p->st) == 0 ? 0 : -errno;
  } else {
    if (!path[0]) return -ENOENT;
    if ((rc = caller_base(c, dirfd, path, &base)) < 0) return rc;
    rc = gate_resolve(c, base, path, (nofollow ? 0 : GR_FOLLOW) | GR_SLASH, p);
    if (base >= 0) close(base);
  }
  if (rc == 0 && p->obj < 0) rc = -ENOENT;
  if (rc == 0 && !gate_still_valid(c)) rc = -EINTR;
  return rc;
}

long gate_op_truncate(gate_call *c, uint64_t path_addr, int64_t length) {
  gate_path p;
  char path[GATE_PATH_MAX], self[32];
  long r = resolve_existing(c, AT_FDCWD, path_addr, false, false, &p);
  if (r == 0 && length < 0) r = -EINVAL;
  if (r == 0 && S_ISDIR(p.st.st_mode)) r = -EISDIR;
  if (r == 0 && !S_ISREG(p.st.st_mode)) r = -EINVAL;
  if (r == 0) r = gate_may_change(c, &p, CORDON_LX_WRITE, GIT_WRITE, "truncate", path);
  if (r == 0) {
    gate_self_path(p.obj, self);
    r = truncate(self, (off_t)length) == 0 ? 0 : -errno;
  }
  gate_path_close(&p);
  return r;
}

long gate_op_chmod(gate_call *c, int dirfd, uint64_t path_addr, unsigned mode, int flags) {
  if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH)) return -EINVAL;
  gate_path p;
  char path[GATE_PATH_MAX], self[32];
  long r = resolve_existing(c, dirfd, path_addr, flags & AT_SYMLINK_NOFOLLOW, flags & AT_EMPTY_PATH, &p);
  if (r == 0) r = gate_may_change(c, &p, CORDON_LX_WRITE, chmod_op(&p.st, mode), "chmod", path);
  if (r == 0) mode = kept_mode(path, &p.st, mode);
  if (r == 0) {
    if (S_ISLNK(p.st.st_mode) && p.kind == GP_NAME)  /* AT_SYMLINK_NOFOLLOW on a link: the kernel's answer */
      r = syscall(SYS_fchmodat2, p.dir, p.name, mode, AT_SYMLINK_NOFOLLOW) == 0 ? 0 : errno == ENOSYS ? -EOPNOTSUPP : -errno;
    else {
      gate_self_path(p.obj, self);
      r = chmod(self, (mode_t)mode) == 0 ? 0 : -errno;
    }
  }
  gate_path_close(&p);
  return r;
}

long gate_op_fchmod(gate_call *c, int fd, unsigned mode) {
  gate_path p;
  memset(&p, 0, sizeof p);
  p.dir = -1;
  p.kind = GP_MAGIC;
  p.obj = caller_fd(c, fd);
  if (p.obj < 0) return p.obj;
  char path[GATE_PATH_MAX];
  long r = fstat(p.obj, &p.st) == 0 ? 0 : -errno;
  if (r == 0 && !gate_still_valid(c)) r = -EINTR;
  if (r == 0) r = gate_may_change(c, &p, CORDON_LX_WRITE, chmod_op(&p.st, mode), "chmod", path);
  if (r == 0) r = fchmod(p.obj, (mode_t)kept_mode(path, &p.st, mode)) == 0 ? 0 : -errno;
  gate_path_close(&p);
  return r;
}
