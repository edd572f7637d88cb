/* src/backend/linux/mounts.c — applying the plan's mounts inside the sandbox's mount namespace. */
#include "backend/linux/mounts.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The per-mount flags a bind remount must repeat: in a user namespace the kernel refuses to clear the
 * ones it locked when the namespace was made. */
static unsigned long kept_flags(const char *path) {
  struct statvfs sv;
  if (statvfs(path, &sv) != 0) return 0;
  unsigned long f = 0;
  if (sv.f_flag & ST_NOSUID) f |= MS_NOSUID;
  if (sv.f_flag & ST_NODEV) f |= MS_NODEV;
  if (sv.f_flag & ST_NOEXEC) f |= MS_NOEXEC;
  if (sv.f_flag & ST_NOATIME) f |= MS_NOATIME;
  if (sv.f_flag & ST_NODIRATIME) f |= MS_NODIRATIME;
  if (sv.f_flag & ST_RELATIME) f |= MS_RELATIME;
  if (sv.f_flag & ST_RDONLY) f |= MS_RDONLY;
  return f;
}

static cordon_lx_status fail(cordon_buf *msg, const cordon_mount *m, const char *what) {
  cordon_buf_printf(msg, "mount %s (%s, for %s): %s: %s", m->path, cordon_mount_kind_name(m->kind), m->source,
                    what, strerror(errno));
  return CORDON_LX_SETUP_FAILED;
}

/* mount_setattr(2) (Linux 5.12, older than any Landlock ABI cordon runs with) changes only the flags named,
 * so it needs neither statvfs nor the list of locked ones. Values from the kernel's uapi <linux/mount.h>,
 * which clashes with <sys/mount.h> on older glibc. */
struct lx_mount_attr {
  uint64_t attr_set, attr_clr, propagation, userns_fd;
};
#define LX_MOUNT_ATTR_RDONLY 0x1
#define LX_MOUNT_ATTR_NOEXEC 0x8

/* 1: done; 0: use mount(2) instead: the call is not there (an old kernel, a seccomp filter around us), or
 * it refused (EPERM: clearing a flag the kernel locked, which mount(2)'s path below handles). */
static int set_attrs(const cordon_mount *m) {
  struct lx_mount_attr a = {0};
  if (m->read_only) a.attr_set |= LX_MOUNT_ATTR_RDONLY;
  else a.attr_clr |= LX_MOUNT_ATTR_RDONLY;  /* write re-allowed below a read-only mask */
  if (m->no_exec) a.attr_set |= LX_MOUNT_ATTR_NOEXEC;
  if (syscall(SYS_mount_setattr, AT_FDCWD, m->path, 0, &a, sizeof a) == 0) return 1;
  return errno == ENOSYS || errno == EPERM ? 0 : -1;
}

static cordon_lx_status bind(const cordon_mount *m, cordon_buf *msg) {
  /* Recursive, so masks already placed below (and host submounts) stay in place. */
  if (mount(m->path, m->path, NULL, MS_BIND | MS_REC, NULL) != 0) return fail(msg, m, "bind");
  int done = set_attrs(m);
  if (done == 1) return CORDON_LX_OK;
  if (done < 0) return fail(msg, m, "mount_setattr");
  unsigned long f = kept_flags(m->path);
  unsigned long want = f;
  if (m->read_only) want |= MS_RDONLY;
  else want &= ~(unsigned long)MS_RDONLY;  /* write re-allowed below a read-only mask */
  if (m->no_exec) want |= MS_NOEXEC;
  if (want == f) return CORDON_LX_OK;  /* a pin: the bind alone does it */
  if (mount(NULL, m->path, NULL, MS_REMOUNT | MS_BIND | want, NULL) != 0) {
    /* Re-allowing write can fail when the host mount itself is read-only: keeping it read-only is less
     * access, which is the safe direction. Adding restrictions must not fail silently. */
    if (!m->read_only && (f & MS_RDONLY) && !(want & MS_RDONLY)) return CORDON_LX_OK;
    return fail(msg, m, "remount");
  }
  return CORDON_LX_OK;
}

static cordon_lx_status hide(const cordon_mount *m, cordon_buf *msg) {
  if (m->is_dir) {
    if (mount("cordon-mask", m->path, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY, "size=4k,mode=0555") != 0)
      return fail(msg, m, "tmpfs");
    return CORDON_LX_OK;
  }
  /* /dev/null on a nodev mount cannot even be opened: the file reads as denied, and writes fail too. */
  if (mount("/dev/null", m->path, NULL, MS_BIND, NULL) != 0) return fail(msg, m, "bind /dev/null");
  if (mount(NULL, m->path, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NODEV | MS_NOSUID | MS_NOEXEC, NULL) != 0)
    return fail(msg, m, "remount /dev/null");
  return CORDON_LX_OK;
}

cordon_lx_status cordon_lx_mounts_apply(const cordon_lx_plan *plan, cordon_buf *msg) {
  if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
    cordon_buf_printf(msg, "making mounts private: %s", strerror(errno));
    return CORDON_LX_SETUP_FAILED;
  }
  for (size_t i = 0; i < plan->nmounts; i++) {
    const cordon_mount *m = &plan->mounts[i];
    cordon_lx_status st = CORDON_LX_OK;
    switch (m->kind) {
    case CORDON_MOUNT_BIND: st = bind(m, msg); break;
    case CORDON_MOUNT_HIDE: st = hide(m, msg); break;
    case CORDON_MOUNT_TMPFS:
      if (mount("cordon-tmp", m->path, "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") != 0) st = fail(msg, m, "tmpfs");
      break;
    }
    if (st != CORDON_LX_OK) return st;
  }
  return CORDON_LX_OK;
}
