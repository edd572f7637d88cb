/* src/backend/linux/gate/op_names.c — making and removing names: mkdir, mknod, symlink, unlink, rmdir (and -at forms) */
#include "backend/linux/gate/gate_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool gate_in_git_dir(const char *path) {
  for (const char *p = path ? strstr(path, "/.git") : NULL; p; p = strstr(p + 1, "/.git"))
    if (p[5] == '/' || p[5] == '\0') return true;
  return false;
}

int gate_with_umask(gate_call *c, const char *path) {
  int rc = caller_status(c);
  if (rc < 0) return rc;
  if (!gate_still_valid(c)) return -EINTR;  /* the umask read by pid was the caller's */
  /* nothing made inside is writable by other accounts, nor by the group inside a git directory */
  mode_t extra = S_IWOTH | (gate_in_git_dir(path) ? S_IWGRP : 0);
  return (int)umask((mode_t)c->umask | extra);
}

void gate_restore_umask(int old) { (void)umask((mode_t)old); }

/* Reads and resolves a path to be created: 0 with `p` holding a missing final name, or -errno as the
 * kernel would answer (EEXIST for anything there, "." and ".." included; ENOENT for a trailing slash on a
 * name that is not to be a directory). */
static int resolve_new(gate_call *c, int dirfd, uint64_t addr, bool dir_ok, gate_path *p) {
  char path[GATE_PATH_MAX];
  int base, rc = caller_string(c, addr, path);
  memset(p, 0, sizeof *p);
  p->dir = p->obj = -1;
  if (rc < 0) return rc;
  if (!path[0]) return -ENOENT;
  if ((rc = caller_base(c, dirfd, path, &base)) < 0) return rc;
  rc = gate_resolve(c, base, path, 0, p);
  if (base >= 0) close(base);
  if (rc < 0) return rc;
  if (p->kind != GP_NAME || p->obj >= 0) return -EEXIST;
  if (p->slash && !dir_ok) return -ENOENT;
  return gate_still_valid(c) ? 0 : -EINTR;
}

static long with_umask_at(gate_call *c, int (*make)(const gate_path *, unsigned, unsigned), const gate_path *p,
                          unsigned mode, unsigned dev, const char *path) {
  int old = gate_with_umask(c, path);
  if (old < 0) return old;
  int r = make(p, mode, dev);
  int err = errno;
  gate_restore_umask(old);
  return r < 0 ? -err : 0;
}

static int make_dir(const gate_path *p, unsigned mode, unsigned dev) {
  (void)dev;
  return mkdirat(p->dir, p->name, (mode_t)mode);
}

static int make_node(const gate_path *p, unsigned mode, unsigned dev) { return mknodat(p->dir, p->name, (mode_t)mode, dev); }

long gate_op_mkdir(gate_call *c, int dirfd, uint64_t path_addr, unsigned mode) {
  gate_path p;
  char path[GATE_PATH_MAX];
  long r = resolve_new(c, dirfd, path_addr, true, &p);
  if (r == 0) r = gate_may_create(c, p.dir, p.name, GIT_MKDIR, "create", path, NULL);
  if (r == 0) r = with_umask_at(c, make_dir, &p, mode, 0, path);
  struct stat st;
  if (r == 0 && fstatat(p.dir, p.name, &st, AT_SYMLINK_NOFOLLOW) == 0) gate_made_add(c->g->made, st.st_dev, st.st_ino);
  gate_path_close(&p);
  return r;
}

long gate_op_mknod(gate_call *c, int dirfd, uint64_t path_addr, unsigned mode, uint64_t dev) {
  unsigned type = mode & S_IFMT;
  if (type == 0) mode |= S_IFREG;
  else if (type != S_IFREG && type != S_IFCHR && type != S_IFBLK && type != S_IFIFO && type != S_IFSOCK) return -EINVAL;
  gate_path p;
  char path[GATE_PATH_MAX];
  long r = resolve_new(c, dirfd, path_addr, false, &p);
  if (r == 0) r = gate_may_create(c, p.dir, p.name, GIT_MKFILE, "create", path, NULL);
  if (r == 0) r = with_umask_at(c, make_node, &p, mode, (unsigned)dev, path);
  gate_path_close(&p);
  return r;
}

long gate_op_symlink(gate_call *c, uint64_t target_addr, int dirfd, uint64_t path_addr) {
  char target[GATE_PATH_MAX];
  int rc = caller_string(c, target_addr, target);
  if (rc < 0) return rc;
  if (!target[0]) return -ENOENT;
  gate_path p;
  char path[GATE_PATH_MAX];
  long r = resolve_new(c, dirfd, path_addr, false, &p);
  /* the body is only text: what a later open reaches through it is decided then */
  if (r == 0) r = gate_may_create(c, p.dir, p.name, GIT_SYMLINK, "create", path, NULL);
  if (r == 0) r = gate_may_symlink(c, p.dir, path, target, "create");
  if (r == 0) r = gate_may_alias(c, path, -1, "create");
  if (r == 0 && symlinkat(target, p.dir, p.name) != 0) r = -errno;
  gate_path_close(&p);
  return r;
}

long gate_op_unlink(gate_call *c, int dirfd, uint64_t path_addr, int flags) {
  if (flags & ~AT_REMOVEDIR) return -EINVAL;
  bool rmdir_ = flags & AT_REMOVEDIR;
  char path[GATE_PATH_MAX];
  int base, rc = caller_string(c, path_addr, path);
  if (rc < 0) return rc;
  if (!path[0]) return -ENOENT;
  if ((rc = caller_base(c, dirfd, path, &base)) < 0) return rc;
  gate_path p;
  rc = gate_resolve(c, base, path, 0, &p);
  if (base >= 0) close(base);
  long r = rc;
  if (r < 0) goto out;
  if (p.kind != GP_NAME) {
    r = !rmdir_ ? -EISDIR : p.kind == GP_DOT ? -EINVAL : p.kind == GP_DOTDOT ? -ENOTEMPTY : -EBUSY;
    goto out;
  }
  if (p.obj < 0) {
    r = -ENOENT;
    goto out;
  }
  bool is_dir = S_ISDIR(p.st.st_mode);
  if (rmdir_ != is_dir || (!rmdir_ && p.slash)) {  /* the kernel's answer, before any decision */
    r = rmdir_ || (p.slash && !is_dir) ? -ENOTDIR : -EISDIR;
    goto out;
  }
  if (!gate_still_valid(c)) {
    r = -EINTR;
    goto out;
  }
  char full[GATE_PATH_MAX];
  if ((r = gate_may_change(c, &p, CORDON_LX_REMOVE, GIT_REMOVE, "remove", full)) == 0 &&
      unlinkat(p.dir, p.name, rmdir_ ? AT_REMOVEDIR : 0) != 0)
    r = -errno;
  if (r == 0 && rmdir_ && !gate_made_has(c->g->made, p.st.st_dev, p.st.st_ino)) gate_made_vacate(c->g->made, full);
out:
  gate_path_close(&p);
  return r;
}
