/* src/backend/linux/gate/op_socket.c — bind and connect */
#include "backend/linux/gate/gate_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

/* struct statx's layout up to the birth time (include/uapi/linux/stat.h; ABI), declared here because
 * musl's headers lack it and the kernel's clash with musl's stat macros. */
struct gate_statx {
  uint32_t mask, blksize;
  uint64_t attributes;
  uint32_t nlink, uid, gid;
  uint16_t mode, pad1;
  uint64_t ino, size, blocks, attributes_mask;
  struct { int64_t sec; uint32_t nsec; int32_t pad; } atime, btime;
  uint8_t rest[256 - 96];
};
_Static_assert(offsetof(struct gate_statx, btime) == 80, "statx layout");
#define GATE_STATX_BTIME 0x800u

typedef struct {
  dev_t dev;
  ino_t ino;
  int64_t bsec;
  uint32_t bnsec;
  bool has_btime;
} identity;

struct gate_bound {
  identity *items;
  size_t n, cap;
};

gate_bound *gate_bound_new(void) { return calloc(1, sizeof(gate_bound)); }

void gate_bound_free(gate_bound *b) {
  if (!b) return;
  free(b->items);
  free(b);
}

/* The identity of `name` in `dir`, or of `dir` itself for name "" (an O_PATH descriptor). */
static bool identify(int dir, const char *name, identity *id) {
  int flags = AT_SYMLINK_NOFOLLOW | (name[0] ? 0 : AT_EMPTY_PATH);
  struct stat st;
  if (fstatat(dir, name, &st, flags) != 0) return false;
  memset(id, 0, sizeof *id);
  id->dev = st.st_dev, id->ino = st.st_ino;
  struct gate_statx sx;
  memset(&sx, 0, sizeof sx);
  if (syscall(SYS_statx, dir, name, flags, GATE_STATX_BTIME, &sx) == 0 && (sx.mask & GATE_STATX_BTIME))
    id->has_btime = true, id->bsec = sx.btime.sec, id->bnsec = sx.btime.nsec;
  return true;
}

static bool remember(gate_bound *b, const identity *id) {
  if (b->n == b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 16;
    identity *p = realloc(b->items, cap * sizeof *p);
    if (!p) return false;
    b->items = p, b->cap = cap;
  }
  b->items[b->n++] = *id;
  return true;
}

static bool bound_here(const gate_bound *b, const identity *id) {
  for (size_t i = 0; i < b->n; i++) {
    const identity *k = &b->items[i];
    if (k->dev == id->dev && k->ino == id->ino && k->has_btime == id->has_btime &&
        (!k->has_btime || (k->bsec == id->bsec && k->bnsec == id->bnsec)))
      return true;
  }
  return false;
}

/* Copies the address; -EINVAL for a length the kernel refuses. */
static int read_addr(gate_call *c, uint64_t addr, uint64_t len, struct sockaddr_storage *ss, int *n) {
  int l = (int)(uint32_t)len;
  if (l < 0 || (size_t)l > sizeof *ss) return -EINVAL;
  memset(ss, 0, sizeof *ss);
  *n = l;
  int rc = caller_bytes(c, addr, ss, (size_t)l);
  /* a unix address longer than sockaddr_un: the kernel's EINVAL, before it looks at the path */
  if (rc == 0 && l >= (int)sizeof(sa_family_t) && ss->ss_family == AF_UNIX && (size_t)l > sizeof(struct sockaddr_un))
    return -EINVAL;
  return rc;
}

/* A unix pathname address: its path (NUL-terminated, as the kernel cuts it at the length) or NULL. */
static const char *unix_path(struct sockaddr_storage *ss, int n) {
  struct sockaddr_un *un = (struct sockaddr_un *)ss;
  if (n <= (int)offsetof(struct sockaddr_un, sun_path) || ss->ss_family != AF_UNIX || un->sun_path[0] == '\0')
    return NULL;
  ((char *)ss)[n < (int)sizeof *ss ? n : (int)sizeof *ss - 1] = '\0';
  return un->sun_path;
}

long gate_op_bind(gate_call *c, int fd, uint64_t addr, uint64_t len) {
  struct sockaddr_storage ss;
  int n, rc = read_addr(c, addr, len, &ss, &n);
  if (rc < 0) return rc;
  int sock = caller_fd(c, fd);
  if (sock < 0) return sock;
  const char *path = n >= (int)sizeof(sa_family_t) ? unix_path(&ss, n) : NULL;
  long r = 0;
  gate_path p;
  memset(&p, 0, sizeof p);
  p.dir = p.obj = -1;
  int base = -1;
  if (!path) {
    r = gate_still_valid(c) ? (bind(sock, (struct sockaddr *)&ss, (socklen_t)n) == 0 ? 0 : -errno) : -EINTR;
    goto out;
  }
  if ((r = caller_base(c, AT_FDCWD, path, &base)) < 0) goto out;
  if ((r = gate_resolve(c, base, path, 0, &p)) < 0) goto out;
  if (p.kind != GP_NAME || p.obj >= 0) r = -EADDRINUSE;
  else if (p.slash) r = -ENOENT;
  else if (!gate_still_valid(c)) r = -EINTR;
  char full[GATE_PATH_MAX];
  if (r == 0) r = gate_may_create(c, p.dir, p.name, GIT_MKFILE, "bind", full, NULL);
  if (r < 0) goto out;
  /* The address the socket keeps (getsockname) is the caller's own text when the kernel, resolving it
   * again here, reaches what was decided: always, unless the path went through procfs (/proc/self is
   * init). Then it is /proc/self/fd/<dir>/<name>, within sun_path's 108 bytes or ENAMETOOLONG. */
  struct sockaddr_un un = {.sun_family = AF_UNIX};
  const struct sockaddr *a = (struct sockaddr *)&ss;
  socklen_t alen = (socklen_t)n;
  bool relative = path[0] != '/';
  if (p.via_proc) {
    int w = snprintf(un.sun_path, sizeof un.sun_path, "/proc/self/fd/%d/%s", p.dir, p.name);
    if (w < 0 || (size_t)w >= sizeof un.sun_path) {
      r = -ENAMETOOLONG;
      goto out;
    }
    a = (struct sockaddr *)&un, alen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + (size_t)w + 1);
    relative = false;
  }
  int old = gate_with_umask(c, NULL);
  if (old < 0) {
    r = old;
    goto out;
  }
  if (relative && fchdir(base) != 0) r = -errno;  /* the main thread's cwd: no worker uses one */
  if (r == 0) r = bind(sock, a, alen) == 0 ? 0 : -errno;
  if (relative) (void)fchdir(c->g->cwd_fd);
  gate_restore_umask(old);
  identity id;
  if (r == 0 && identify(p.dir, p.name, &id)) (void)remember(c->g->bound, &id);
out:
  gate_path_close(&p);
  if (base >= 0) close(base);
  close(sock);
  return r;
}

long gate_op_connect(gate_call *c, int fd, uint64_t addr, uint64_t len) {
  struct sockaddr_storage ss;
  int n, rc = read_addr(c, addr, len, &ss, &n);
  if (rc < 0) return rc;
  int sock = caller_fd(c, fd);
  if (sock < 0) return sock;
  const char *path = n >= (int)sizeof(sa_family_t) ? unix_path(&ss, n) : NULL;
  long r = 0;
  gate_path p;
  memset(&p, 0, sizeof p);
  p.dir = p.obj = -1;
  struct sockaddr_un un = {.sun_family = AF_UNIX};
  const void *a = &ss;
  unsigned alen = (unsigned)n;
  if (path) {
    int base = -1;
    if ((r = caller_base(c, AT_FDCWD, path, &base)) < 0) goto out;
    r = gate_resolve(c, base, path, GR_FOLLOW | GR_SLASH, &p);
    if (base >= 0) close(base);
    if (r < 0) goto out;
    if (p.obj < 0) r = -ENOENT;
    else if (!S_ISSOCK(p.st.st_mode)) r = -ECONNREFUSED;
    if (r < 0) goto out;
    char full[GATE_PATH_MAX];
    identity id;
    r = p.kind == GP_NAME ? gate_join_path(c->g, p.dir, p.name, full, sizeof full)
                          : gate_fd_path(c->g, p.obj, full, sizeof full);
    if (r < 0) goto out;
    bool mine = identify(p.obj, "", &id) && bound_here(c->g->bound, &id);
    if (!mine && !gate_policy_connect(c, full)) {
      r = -EACCES;
      goto out;
    }
    int w = snprintf(un.sun_path, sizeof un.sun_path, "/proc/self/fd/%d", p.obj);
    a = &un, alen = (unsigned)(offsetof(struct sockaddr_un, sun_path) + (size_t)w + 1);
  }
  if (!gate_still_valid(c)) {
    r = -EINTR;
    goto out;
  }
  int fl = fcntl(sock, F_GETFL);
  if (fl >= 0 && !(fl & O_NONBLOCK)) {
    /* the worker connects through the resolved inode's descriptor: it takes that with the socket */
    gate_job job = {.kind = JOB_CONNECT, .fd = sock, .keep = p.obj, .addrlen = alen};
    memcpy(job.addr, a, alen);
    sock = p.obj = -1;
    r = gate_defer(c, &job);
    goto out;
  }
  r = connect(sock, a, (socklen_t)alen) == 0 ? 0 : -errno;
out:
  gate_path_close(&p);
  if (sock >= 0) close(sock);
  return r;
}
