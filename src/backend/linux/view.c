/* src/backend/linux/view.c — building the run's view (view.h; docs/linux-sandbox.md, "The view") */
#include "backend/linux/view.h"

#include "core/path.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#define STAGE "/tmp"
#define HOST "/host"  /* the host's root while the view is built */
#define VIEW "/view"  /* the view's root while it is built */

/* mount_setattr(2) (Linux 5.12): values from the kernel's uapi <linux/mount.h>, which clashes with
 * <sys/mount.h> on older glibc. */
struct lx_mount_attr {
  uint64_t attr_set, attr_clr, propagation, userns_fd;
};
#define LX_MOUNT_ATTR_RDONLY 0x1
#define LX_MOUNT_ATTR_NOEXEC 0x8
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif

/* The file systems the view builds itself (its root, /dev, the run's tmpfs mounts): the only places a
 * directory, stub or link may be made. Anything else beneath the view is the host's, bound, and making a
 * missing mount point there would write on the host. */
static struct {
  dev_t devs[16];
  size_t n;
} ours;

static void own_dev(const char *path) {
  struct stat st;
  if (ours.n < sizeof ours.devs / sizeof *ours.devs && stat(path, &st) == 0) ours.devs[ours.n++] = st.st_dev;
}

/* Whether new entries may be made in the directory `dir` (a view path). */
static bool may_make_in(const char *dir) {
  struct stat st;
  if (lstat(dir, &st) != 0) return false;
  for (size_t i = 0; i < ours.n; i++)
    if (ours.devs[i] == st.st_dev) return true;
  errno = ENOENT;  /* gone from the host since compiling: the mount is skipped, which is less access */
  return false;
}

/* `a`, `b` and `c` joined into `out` (`cap` bytes), cut short as snprintf would; by hand, not snprintf:
 * each mount joins three or four paths, which took musl's snprintf ~0.1 ms of every view. */
static void join(char *out, size_t cap, const char *a, const char *b, const char *c) {
  size_t n = 0;
  for (const char *part[] = {a, b, c}, **q = part; q < part + 3; q++)
    for (const char *x = *q; *x && n + 1 < cap; x++) out[n++] = *x;
  out[n] = '\0';
}

static cordon_lx_status failed(cordon_buf *msg, const char *what, const char *path) {
  cordon_buf_printf(msg, "building the view: %s %s: %s", what, path, strerror(errno));
  return CORDON_LX_SETUP_FAILED;
}

static int set_attrs(const char *path, uint64_t set, bool recursive) {
  struct lx_mount_attr a = {.attr_set = set};
  return (int)syscall(SYS_mount_setattr, AT_FDCWD, path, recursive ? AT_RECURSIVE : 0, &a, sizeof a);
}

/* The directory `dir` (a view path) and every missing one above it: most exist already, so the deepest
 * is tried first and the walk up happens only when its parent is missing. */
static bool make_dirs(const char *dir) {
  struct stat st;
  if (lstat(dir, &st) == 0) return S_ISDIR(st.st_mode) || (errno = ENOTDIR, false);
  char parent[CORDON_PATH_MAX + 16];
  if (errno != ENOENT || !cordon_path_parent(dir, parent, sizeof parent) || !make_dirs(parent)) return false;
  if (!may_make_in(parent)) return false;
  return mkdir(dir, 0755) == 0 || errno == EEXIST;
}

/* `path` (a host path, absolute) as the view must hold it: every symlink on the way is copied into the view
 * (made once) and followed, so `real` ends up naming the same object through real directories only. False
 * (errno) when the host path does not resolve. */
static bool resolve_into_view(const char *path, char *real, size_t cap) {
  /* most paths have no symlink on the way: one lookup says so */
  char host[CORDON_PATH_MAX + 16];
  join(host, sizeof host, HOST, path, "");
  struct open_how how = {.flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_NO_SYMLINKS};
  int fd = (int)syscall(SYS_openat2, AT_FDCWD, host, &how, sizeof how);
  if (fd >= 0 || errno != ELOOP) {
    if (fd < 0) return false;
    close(fd);
    if (strlen(path) >= cap) return (errno = ENAMETOOLONG), false;
    memcpy(real, path, strlen(path) + 1);
    return true;
  }
  char cur[CORDON_PATH_MAX];
  if (snprintf(cur, sizeof cur, "%s", path) >= (int)sizeof cur) return (errno = ENAMETOOLONG), false;
  for (int links = 0; links <= 40; links++) {
    bool relinked = false;
    for (size_t i = 1, n = strlen(cur); i <= n && !relinked; i++) {
      if (cur[i] != '/' && cur[i] != '\0') continue;
      char prefix[CORDON_PATH_MAX], probe[CORDON_PATH_MAX + 16], view[CORDON_PATH_MAX + 16], target[CORDON_PATH_MAX];
      snprintf(prefix, sizeof prefix, "%.*s", (int)i, cur);
      join(probe, sizeof probe, HOST, prefix, "");
      struct stat st;
      if (lstat(probe, &st) != 0) return false;
      if (!S_ISLNK(st.st_mode)) continue;
      ssize_t t = readlink(probe, target, sizeof target - 1);
      if (t <= 0) return false;
      target[t] = '\0';
      char parent[CORDON_PATH_MAX];
      if (!cordon_path_parent(prefix, parent, sizeof parent)) return (errno = EINVAL), false;
      join(view, sizeof view, VIEW, strcmp(parent, "/") == 0 ? "" : parent, "");
      if (!make_dirs(view)) return false;
      char in[CORDON_PATH_MAX + 16];
      snprintf(in, sizeof in, "%s", view);
      join(view, sizeof view, VIEW, prefix, "");
      struct stat lst;
      if (lstat(view, &lst) != 0 && (!may_make_in(in) || (symlink(target, view) != 0 && errno != EEXIST))) return false;
      char joined[CORDON_PATH_MAX], next[CORDON_PATH_MAX];
      if (!cordon_path_join_lexical(parent, target, joined, sizeof joined) ||
          snprintf(next, sizeof next, "%s%s", strcmp(joined, "/") == 0 && cur[i] ? "" : joined, cur + i) >= (int)sizeof next)
        return (errno = ENAMETOOLONG), false;
      memcpy(cur, next, strlen(next) + 1);
      relinked = true;
    }
    if (!relinked) {
      if (strlen(cur) >= cap) return (errno = ENAMETOOLONG), false;
      memcpy(real, cur, strlen(cur) + 1);
      return true;
    }
  }
  return (errno = ELOOP), false;
}

/* A mount point for `real` in the view: the directories above it, then itself (a directory or an empty
 * file), unless it is there already (a stub, or the host's own inside a bound tree). */
static bool mount_point(const char *view, bool is_dir) {
  struct stat st;
  if (lstat(view, &st) == 0) return true;  /* a stub, or the host's own inside a bound tree */
  char parent[CORDON_PATH_MAX + 16];
  if (!cordon_path_parent(view, parent, sizeof parent) || !make_dirs(parent) || !may_make_in(parent)) return false;
  if (is_dir) return mkdir(view, 0755) == 0 || errno == EEXIST;
  return mknodat(AT_FDCWD, view, S_IFREG | 0644, 0) == 0 || errno == EEXIST;  /* one call, no descriptor */
}

/* A listing view: an empty stub of the same name and type for each entry of the host directory. */
static bool stubs(const char *host, const char *view) {
  /* openat, not open or opendir: musl follows an O_CLOEXEC open() with an fcntl, ~50 calls a run */
  int hfd = openat(AT_FDCWD, host, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *d = hfd >= 0 ? fdopendir(hfd) : NULL;
  if (!d) {
    if (hfd >= 0) close(hfd);
    return false;
  }
  int vfd = openat(AT_FDCWD, view, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (vfd < 0) return closedir(d), false;
  struct dirent *e;
  bool ok = true;
  while (ok && (e = readdir(d))) {
    const char *n = e->d_name;
    if (n[0] == '.' && (n[1] == '\0' || (n[1] == '.' && n[2] == '\0'))) continue;
    unsigned char type = e->d_type;
    struct stat st;
    if (type == DT_UNKNOWN && fstatat(dirfd(d), n, &st, AT_SYMLINK_NOFOLLOW) == 0)
      type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : S_ISLNK(st.st_mode) ? DT_LNK : DT_UNKNOWN;
    int rc = 0;
    if (type == DT_DIR) {
      rc = mkdirat(vfd, n, 0755);
    } else if (type == DT_REG) {
      rc = mknodat(vfd, n, S_IFREG | 0644, 0);
    } else if (type == DT_LNK) {
      char target[CORDON_PATH_MAX];
      ssize_t t = readlinkat(dirfd(d), n, target, sizeof target - 1);
      if (t > 0) target[t] = '\0', rc = symlinkat(target, vfd, n);
    }  /* sockets, FIFOs and devices are left out: a view shows no host socket */
    ok = rc == 0 || errno == EEXIST;
  }
  int err = errno;
  close(vfd);
  closedir(d);
  errno = err;
  return ok;
}

/* The size of the run's tmpfs at `path`: what is written there is memory the run's limits do not count,
 * so /tmp and /dev/shm share one budget, the memory limit or else half the host's memory (a tmpfs's own
 * default, which two of them would double): three quarters for /tmp, a quarter for /dev/shm. */
static unsigned long long tmpfs_size(const cordon_lx_plan *plan, const char *path) {
  unsigned long long budget = plan->limits.memory;
  struct sysinfo si;
  if (!budget && sysinfo(&si) == 0) budget = (unsigned long long)si.totalram * si.mem_unit / 2;
  if (!budget) budget = 1ull << 30;
  unsigned long long pages = budget / 4096, shm = pages / 4;  /* whole pages: the kernel rounds up */
  unsigned long long size = 4096 * (strcmp(path, "/dev/shm") == 0 ? shm : pages - shm);
  return size < (1ull << 20) ? 1ull << 20 : size;  /* at least a megabyte: a tiny limit still runs a shell */
}

/* `early`: the whole view is made read-only in one pass afterwards (view_build), so no flag to set here. */
static cordon_lx_status bind(const cordon_mount *m, const char *host, const char *view, bool early, cordon_buf *msg) {
  if (!mount_point(view, m->is_dir)) {
    if (errno == ENOENT || errno == ENOTDIR) return CORDON_LX_OK;  /* gone since compiling: less access */
    return failed(msg, "making the mount point for", m->path);
  }
  if (mount(host, view, NULL, MS_BIND | MS_REC, NULL) != 0) return failed(msg, "binding", m->path);
  uint64_t set = (m->read_only ? LX_MOUNT_ATTR_RDONLY : 0) | (m->no_exec ? LX_MOUNT_ATTR_NOEXEC : 0);
  if (!early && set && set_attrs(view, set, true) != 0) return failed(msg, "making read-only or noexec", m->path);
  return CORDON_LX_OK;
}

static cordon_lx_status hide(const cordon_mount *m, const char *view, cordon_buf *msg) {
  if (m->is_dir) {
    if (mount("cordon-mask", view, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY, "size=4k,mode=0555") != 0)
      return failed(msg, "hiding", m->path);
    return CORDON_LX_OK;
  }
  /* /dev/null on a nodev mount cannot even be opened: the file reads as denied, and writes fail too */
  if (mount(HOST "/dev/null", view, NULL, MS_BIND, NULL) != 0) return failed(msg, "hiding", m->path);
  if (mount(NULL, view, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NODEV | MS_NOSUID | MS_NOEXEC, NULL) != 0)
    return failed(msg, "hiding (remount)", m->path);
  return CORDON_LX_OK;
}

/* The run's /dev: the host's harmless devices bound, a devpts instance of its own, and the usual links. */
static cordon_lx_status dev(const char *view, cordon_buf *msg) {
  static const char *const devices[] = {"null", "zero", "full", "random", "urandom", "tty", NULL};
  static const char *const links[][2] = {{"ptmx", "pts/ptmx"}, {"fd", "/proc/self/fd"}, {"stdin", "/proc/self/fd/0"},
                                         {"stdout", "/proc/self/fd/1"}, {"stderr", "/proc/self/fd/2"}};
  char path[CORDON_PATH_MAX + 32], host[CORDON_PATH_MAX + 32];
  if (!mount_point(view, true) || mount("cordon-dev", view, "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755") != 0)
    return failed(msg, "mounting a tmpfs on", "/dev");
  own_dev(view);
  for (size_t i = 0; devices[i]; i++) {
    join(path, sizeof path, view, "/", devices[i]);
    join(host, sizeof host, HOST, "/dev/", devices[i]);
    if (access(host, F_OK) != 0) continue;  /* a host without it: the run has none either */
    /* the tmpfs was just mounted, empty and ours: its stub needs no walk up or ownership check */
    if (mknodat(AT_FDCWD, path, S_IFREG | 0644, 0) != 0 || mount(host, path, NULL, MS_BIND, NULL) != 0)
      return failed(msg, "binding /dev/", devices[i]);
  }
  join(path, sizeof path, view, "/pts", "");
  if (mkdir(path, 0755) != 0 ||
      mount("devpts", path, "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620") != 0)
    return failed(msg, "mounting a devpts instance of the run's own on", "/dev/pts");
  for (size_t i = 0; i < sizeof links / sizeof *links; i++) {
    join(path, sizeof path, view, "/", links[i][0]);
    if (symlink(links[i][1], path) != 0) return failed(msg, "linking /dev/", links[i][0]);
  }
  join(path, sizeof path, view, "/shm", "");
  if (mkdir(path, 01777) != 0) return failed(msg, "making", "/dev/shm");
  return CORDON_LX_OK;
}

/* Whether another bind of the plan, at least as writable, holds `real` (a bind reached through a host
 * symlink, /bin -> usr/bin beside /usr): the link copied into the view is all it needs. */
static bool bound_elsewhere(const cordon_lx_plan *plan, const cordon_mount *m, const char *real) {
  if (m->kind != CORDON_MOUNT_BIND || strcmp(real, m->path) == 0) return false;
  for (size_t i = 0; i < plan->nmounts; i++) {
    const cordon_mount *o = &plan->mounts[i];
    if (o != m && o->kind == CORDON_MOUNT_BIND && cordon_path_within(o->path, real) &&
        (!o->read_only || m->read_only) && (!o->no_exec || m->no_exec))
      return true;
  }
  return false;
}

static cordon_lx_status apply(const cordon_lx_plan *plan, const cordon_mount *m, bool early, cordon_buf *msg) {
  char real[CORDON_PATH_MAX], host[CORDON_PATH_MAX + 16], view[CORDON_PATH_MAX + 16];
  if (!resolve_into_view(m->path, real, sizeof real)) {
    if (errno == ENOENT || errno == ENOTDIR) return CORDON_LX_OK;  /* gone since compiling: less access */
    return failed(msg, "resolving", m->path);
  }
  if (bound_elsewhere(plan, m, real)) return CORDON_LX_OK;
  join(host, sizeof host, HOST, strcmp(real, "/") == 0 ? "" : real, "");
  join(view, sizeof view, VIEW, strcmp(real, "/") == 0 ? "" : real, "");
  switch (m->kind) {
  case CORDON_MOUNT_BIND: return bind(m, host, view, early, msg);
  case CORDON_MOUNT_HIDE: return hide(m, view, msg);
  case CORDON_MOUNT_VIEW:
    if (!mount_point(view, true) || !may_make_in(view) || !stubs(host, view)) return failed(msg, "listing", m->path);
    return CORDON_LX_OK;
  case CORDON_MOUNT_TMPFS: {
    char opts[64];
    snprintf(opts, sizeof opts, "mode=1777,size=%llu", tmpfs_size(plan, m->path));
    if (!mount_point(view, true) || mount("cordon-tmp", view, "tmpfs", MS_NOSUID | MS_NODEV, opts) != 0)
      return failed(msg, "mounting a tmpfs on", m->path);
    own_dev(view);
    return CORDON_LX_OK;
  }
  case CORDON_MOUNT_PROC:
    if (!mount_point(view, true) || mount("proc", view, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0) {
      int err = errno;
      cordon_lx_status st = failed(msg, "mounting the run's procfs on", m->path);
      if (err == EPERM)
        cordon_buf_puts(msg, " (the kernel refuses a new procfs in a user namespace while parts of /proc are "
                             "hidden by mounts, as in many containers)");
      return st;
    }
    return CORDON_LX_OK;
  case CORDON_MOUNT_DEV: return dev(view, msg);
  }
  cordon_buf_printf(msg, "building the view: unknown mount kind %d", (int)m->kind);
  return CORDON_LX_INVALID;
}

cordon_lx_status cordon_lx_view_build(const cordon_lx_plan *plan, cordon_buf *msg) {
  /* private first: nothing done here may propagate back to the host's mount namespace */
  if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) return failed(msg, "making mounts private at", "/");
  if (mount("cordon-stage", STAGE, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0700") != 0)
    return failed(msg, "mounting the staging tmpfs on", STAGE);
  if (mkdir(STAGE HOST, 0700) != 0 || mkdir(STAGE VIEW, 0755) != 0) return failed(msg, "staging in", STAGE);
  if (syscall(SYS_pivot_root, STAGE, STAGE HOST) != 0 || chdir("/") != 0) return failed(msg, "pivoting to", STAGE);
  if (mount("cordon-view", VIEW, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") != 0)
    return failed(msg, "mounting the view's tmpfs on", "/");
  ours.n = 0;
  own_dev(VIEW);
  /* Two passes, so one recursive call makes everything read-only instead of one per bind: first the
   * read-only binds and the listing views, then (the view read-only) what stays writable or has flags of
   * its own, and whatever lies beneath one of those. */
  bool late[plan->nmounts ? plan->nmounts : 1];
  for (size_t i = 0; i < plan->nmounts; i++) {
    const cordon_mount *m = &plan->mounts[i];
    late[i] = !(m->kind == CORDON_MOUNT_VIEW || (m->kind == CORDON_MOUNT_BIND && m->read_only && !m->no_exec));
    for (size_t j = 0; j < i && !late[i]; j++)  /* ancestors sort first */
      late[i] = late[j] && cordon_path_within(plan->mounts[j].path, m->path);
  }
  for (int pass = 0; pass < 2; pass++) {
    for (size_t i = 0; i < plan->nmounts; i++) {
      if (late[i] != (pass == 1)) continue;
      cordon_lx_status st = apply(plan, &plan->mounts[i], pass == 0, msg);
      if (st != CORDON_LX_OK) return st;
    }
    /* the late mounts' own mount points must exist before the view turns read-only */
    for (size_t i = 0; pass == 0 && i < plan->nmounts; i++) {
      if (!late[i]) continue;
      bool nested = false;
      for (size_t j = 0; j < i && !nested; j++) nested = late[j] && cordon_path_within(plan->mounts[j].path, plan->mounts[i].path);
      char real[CORDON_PATH_MAX], view[CORDON_PATH_MAX + 16];
      if (nested || !resolve_into_view(plan->mounts[i].path, real, sizeof real)) continue;  /* made when applied */
      join(view, sizeof view, VIEW, strcmp(real, "/") == 0 ? "" : real, "");
      if (!mount_point(view, plan->mounts[i].is_dir || plan->mounts[i].kind != CORDON_MOUNT_BIND))
        return failed(msg, "making the mount point for", plan->mounts[i].path);
    }
    if (pass == 0 && set_attrs(VIEW, LX_MOUNT_ATTR_RDONLY, true) != 0) return failed(msg, "making read-only", "the view");
  }
  /* the run's /dev is done: nothing inside may change it */
  if (access(VIEW "/dev/pts", F_OK) == 0 && set_attrs(VIEW "/dev", LX_MOUNT_ATTR_RDONLY, false) != 0)
    return failed(msg, "making read-only", "/dev");
  if (chdir(VIEW) != 0 || syscall(SYS_pivot_root, ".", ".") != 0) return failed(msg, "pivoting into", "the view");
  if (umount2(".", MNT_DETACH) != 0 || chdir("/") != 0) return failed(msg, "detaching", "the host's root");
  return CORDON_LX_OK;
}
