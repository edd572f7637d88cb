/* src/backend/linux/gate/resolve.c — resolving a path as the caller's kernel would (gate_impl.h) */
#include "backend/linux/gate/gate_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#define PROC_MAGIC 0x9fa0  /* PROC_SUPER_MAGIC */
#define PROC_ROOT_INO 1
#define SPLICE_MAX (4 * GATE_PATH_MAX)  /* a path being resolved, with symlink bodies spliced in */

static int dup_fd(int fd) { return fcntl(fd, F_DUPFD_CLOEXEC, 0); }

static void set_fd(int *slot, int fd) {
  if (*slot >= 0) close(*slot);
  *slot = fd;
}

static bool is_proc(int fd) {
  struct statfs sf;
  return fstatfs(fd, &sf) == 0 && sf.f_type == PROC_MAGIC;
}

static bool is_proc_root(int fd) {
  struct stat st;
  return is_proc(fd) && fstat(fd, &st) == 0 && st.st_ino == PROC_ROOT_INO;
}

void gate_self_path(int fd, char out[32]) { snprintf(out, 32, "/proc/self/fd/%d", fd); }

int gate_reopen(const cordon_lx_gate *g, int fd, int flags) {
  char name[16];
  snprintf(name, sizeof name, "%d", fd);
  return openat(g->self_fd, name, flags);  /* one lookup below the directory opened at start */
}

int gate_fd_path(const cordon_lx_gate *g, int fd, char *out, size_t cap) {
  char name[16];
  snprintf(name, sizeof name, "%d", fd);
  ssize_t n = readlinkat(g->self_fd, name, out, cap);
  if (n < 0) return -errno;
  if ((size_t)n >= cap) return -ENAMETOOLONG;
  out[n] = '\0';
  return 0;
}

int gate_join_path(const cordon_lx_gate *g, int dir, const char *name, char *out, size_t cap) {
  int rc = gate_fd_path(g, dir, out, cap);
  if (rc < 0) return rc;
  size_t n = strlen(out), k = strlen(name);
  bool root = n == 1 && out[0] == '/';
  if (n + !root + k + 1 > cap) return -ENAMETOOLONG;
  if (!root) out[n++] = '/';
  memcpy(out + n, name, k + 1);
  return 0;
}

void gate_path_close(gate_path *p) {
  if (p->dir >= 0) close(p->dir);
  if (p->obj >= 0) close(p->obj);
  p->dir = p->obj = -1;
}

/* The descriptor behind a /proc/<pid>/fd/N link just followed: its access mode, or -1 when `dir` is not
 * such a directory. */
static int fdlink_flags(cordon_lx_gate *g, int dir, const char *name) {
  if (strspn(name, "0123456789") != strlen(name)) return -1;
  char p[GATE_PATH_MAX];
  if (gate_fd_path(g, dir, p, sizeof p) < 0) return -1;
  size_t n = strlen(p);
  if (n < 3 || strcmp(p + n - 3, "/fd") != 0) return -1;
  int piddir = openat(dir, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (piddir < 0) return -1;
  int f = caller_fd_flags(piddir, name);
  close(piddir);
  return f < 0 ? -1 : f;
}

/* openat2 of the directory part: the fd, or -1 to walk instead. `*last` is where the final component
 * starts in `path`. */
static int fast_dir(gate_call *c, int base, const char *path, const char **last) {
  cordon_lx_gate *g = c->g;
  if (!g->fast_resolve) return -1;
  size_t n = strlen(path);
  while (n > 1 && path[n - 1] == '/') n--;
  size_t k = n;
  while (k > 0 && path[k - 1] != '/') k--;
  if (k == 0) return -1;  /* a single relative name: nothing to resolve before it */
  const char *fin = path + k;
  size_t fl = n - k;
  if (fl == 0 || (fl == 1 && fin[0] == '.') || (fl == 2 && fin[0] == '.' && fin[1] == '.')) return -1;
  char dirpart[GATE_PATH_MAX];
  memcpy(dirpart, path, k);
  dirpart[k] = '\0';
  struct open_how how = {.flags = O_PATH | O_DIRECTORY | O_CLOEXEC, .resolve = RESOLVE_NO_MAGICLINKS};
  int fd = (int)syscall(SYS_openat2, path[0] == '/' ? g->root_fd : base, dirpart, &how, sizeof how);
  if (fd < 0) {
    if (errno == ENOSYS) g->fast_resolve = false;
    return -1;
  }
  if (is_proc(fd)) {  /* "self" there would have meant init */
    close(fd);
    return -1;
  }
  *last = fin;
  return fd;
}

/* Hands the result to `out`. `looked_up`: the final name was looked through (followed), so a trailing
 * slash on something that is not a directory is ENOTDIR, as for any lookup. */
static int finish(gate_path *out, gate_path_kind kind, int dir, const char *name, int obj, bool slash, bool looked_up) {
  out->kind = kind;
  out->dir = dir;
  out->obj = obj;
  out->slash = slash;
  if (name) snprintf(out->name, sizeof out->name, "%s", name);
  if (obj >= 0 && fstat(obj, &out->st) != 0) return -errno;
  if (looked_up && slash && obj >= 0 && !S_ISDIR(out->st.st_mode)) return -ENOTDIR;
  return 0;
}

static int resolve_walk(gate_call *c, int base, const char *path, unsigned how, gate_path *out) {
  cordon_lx_gate *g = c->g;
  memset(out, 0, sizeof *out);
  out->dir = out->obj = out->fdlink_flags = -1;
  if (!path[0]) return -ENOENT;
  char bufs[2][SPLICE_MAX];
  int which = 0, links = 0, rc = 0;
  const char *start = path;
  int cur = fast_dir(c, base, path, &start);
  if (cur < 0) {
    start = path;
    cur = dup_fd(path[0] == '/' ? g->root_fd : base);
    if (cur < 0) return base < 0 && path[0] != '/' ? -EBADF : -errno;
  }
  snprintf(bufs[0], SPLICE_MAX, "%s", start);
  char *rem = bufs[0];
  bool only_slashes = path[0] == '/' && path[strspn(path, "/")] == '\0';
  for (;;) {
    while (*rem == '/') rem++;
    if (!*rem) {  /* the path, or a symlink's body, named a directory and nothing after it */
      return finish(out, only_slashes ? GP_ROOT : GP_DOT, -1, NULL, cur, true, false);
    }
    size_t n = strcspn(rem, "/");
    if (n > 255) {
      rc = -ENAMETOOLONG;
      break;
    }
    char name[256];
    memcpy(name, rem, n);
    name[n] = '\0';
    rem += n;
    bool slash = *rem == '/';
    while (*rem == '/') rem++;
    bool last = !*rem;
    if (strcmp(name, ".") == 0) {
      if (last) return finish(out, GP_DOT, -1, NULL, cur, slash, false);
      continue;
    }
    if (strcmp(name, "..") == 0) {
      int up = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
      if (up < 0) {
        rc = -errno;
        break;
      }
      set_fd(&cur, up);
      if (last) return finish(out, GP_DOTDOT, -1, NULL, cur, slash, false);
      continue;
    }
    bool follow = (how & GR_FOLLOW) || (slash && (how & GR_SLASH));
    if (last && !follow) {
      int obj = openat(cur, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
      if (obj < 0 && errno != ENOENT) {
        rc = -errno;
        break;
      }
      return finish(out, GP_NAME, cur, name, obj, slash, false);
    }
    if ((strcmp(name, "self") == 0 || strcmp(name, "thread-self") == 0) && is_proc_root(cur)) {
      if ((rc = caller_status(c)) < 0) break;
      char own[64];
      if (name[0] == 's') snprintf(own, sizeof own, "%d", (int)c->tgid);
      else snprintf(own, sizeof own, "%d/task/%d", (int)c->tgid, (int)c->pid);
      int fd = openat(cur, own, O_PATH | O_DIRECTORY | O_CLOEXEC);
      c->pid_used = out->via_proc = true;
      if (fd < 0) {
        rc = -errno;
        break;
      }
      if (last) return finish(out, GP_MAGIC, cur, name, fd, slash, true);
      set_fd(&cur, fd);
      continue;
    }
    int obj = openat(cur, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (obj < 0) {
      if (errno == ENOENT && last) return finish(out, GP_NAME, cur, name, -1, slash, true);
      rc = -errno;
      break;
    }
    struct stat st;
    if (fstat(obj, &st) != 0) {
      rc = -errno;
      close(obj);
      break;
    }
    if (S_ISLNK(st.st_mode) && is_proc(obj) && !is_proc_root(cur)) {  /* a magic link: the kernel's */
      close(obj);
      int fd = openat(cur, name, O_PATH | O_CLOEXEC);
      c->pid_used = out->via_proc = true;
      if (fd < 0) {
        rc = -errno;
        break;
      }
      if (last) {
        out->fdlink_flags = fdlink_flags(g, cur, name);
        return finish(out, GP_MAGIC, cur, name, fd, slash, true);
      }
      if (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode)) {
        close(fd);
        rc = -ENOTDIR;
        break;
      }
      set_fd(&cur, fd);
      continue;
    }
    if (S_ISLNK(st.st_mode)) {
      char body[GATE_PATH_MAX];
      ssize_t bl = ++links > GATE_MAX_LINKS ? -1 : readlinkat(obj, "", body, sizeof body - 1);
      int err = links > GATE_MAX_LINKS ? ELOOP : errno;
      close(obj);
      if (bl < 0) {
        rc = -err;
        break;
      }
      if (bl == 0) {
        rc = -ENOENT;
        break;
      }
      body[bl] = '\0';
      if (is_proc(cur)) out->via_proc = true;
      char *next = bufs[which ^= 1];
      int w = snprintf(next, SPLICE_MAX, "%s%s%s", body, last ? (slash ? "/" : "") : "/", last ? "" : rem);
      if (w < 0 || w >= SPLICE_MAX) {
        rc = -ENAMETOOLONG;
        break;
      }
      rem = next;
      only_slashes = false;
      if (body[0] == '/') {
        int r = dup_fd(g->root_fd);
        if (r < 0) {
          rc = -errno;
          break;
        }
        set_fd(&cur, r);
      }
      continue;
    }
    if (!last) {
      if (!S_ISDIR(st.st_mode)) {
        close(obj);
        rc = -ENOTDIR;
        break;
      }
      set_fd(&cur, obj);
      continue;
    }
    return finish(out, GP_NAME, cur, name, obj, slash, true);
  }
  if (cur >= 0) close(cur);
  return rc;
}

/* Whether `fd`, when it lies on a procfs, belongs to the caller's own process (or to no process: /proc
 * itself, /proc/sys, ...). init opens with CAP_SYS_PTRACE over the run and as itself: handing the caller
 * init's /proc/1/environ or mem, another process's fd/, or a non-dumpable process's mem would give it
 * what the kernel refuses it. */
static int proc_entry_is_callers(gate_call *c, int fd) {
  if (fd < 0 || !is_proc(fd)) return 0;
  char p[GATE_PATH_MAX];
  int rc = gate_fd_path(c->g, fd, p, sizeof p);
  if (rc < 0) return rc;
  const char *q = strncmp(p, "/proc/", 6) == 0 ? p + 6 : NULL;
  if (!q || q[0] < '0' || q[0] > '9') return 0;  /* not a process's entry */
  if ((rc = caller_status(c)) < 0) return rc;
  char *end;
  long pid = strtol(q, &end, 10);
  return (*end == '/' || *end == '\0') && pid == (long)c->tgid ? 0 : -EACCES;
}

int gate_resolve(gate_call *c, int base, const char *path, unsigned how, gate_path *out) {
  int rc = resolve_walk(c, base, path, how, out);
  if (rc < 0) return rc;
  if ((rc = proc_entry_is_callers(c, out->dir)) < 0 || (rc = proc_entry_is_callers(c, out->obj)) < 0) {
    gate_path_close(out);
    return rc;
  }
  return 0;
}
