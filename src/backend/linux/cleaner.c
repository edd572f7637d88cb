/* src/backend/linux/cleaner.c — the process that removes a run's placeholders once its sandbox is gone
 * (placeholder.h says why it waits for the namespace, not just the command).
 *
 * It learns over a socket which placeholders to answer for, with their locked descriptors (SCM_RIGHTS),
 * then which mount namespace to wait for; every other descriptor it inherited is closed first, so it
 * keeps no pipe of the caller's open while it lingers. It allocates nothing, uses no stdio and leaves
 * with _exit: a fork copies only the calling thread, and the Landlock helper (landlock_ahead.c) may
 * have held a malloc lock at that moment. */
#include "backend/linux/placeholder.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

#define LINGER_MS 500
#define POLL_MS 25
#define CLEANER_SOCKET 3  /* where the child keeps its end; everything else it inherited is closed */

static void nap(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

struct linux_dirent64 {  /* what getdents64(2) writes; glibc declares no such type */
  uint64_t d_ino;
  int64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[];
};

/* True while some process still lives in the mount namespace with inode `ino`. The link is read, not
 * followed (no nsfs dentry per process), relative to the open /proc. getdents64 and a stack buffer:
 * opendir would allocate. */
static bool namespace_alive(uint64_t ino) {
  int dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return false;
  _Alignas(8) char buf[8192];
  char path[300], want[64], got[64];
  int n = snprintf(want, sizeof want, "mnt:[%llu]", (unsigned long long)ino);
  bool alive = false;
  for (long len; !alive && (len = syscall(SYS_getdents64, dir, buf, sizeof buf)) > 0;) {
    for (long at = 0; !alive && at < len;) {
      const struct linux_dirent64 *e = (const struct linux_dirent64 *)(buf + at);
      at += e->d_reclen;
      if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
      snprintf(path, sizeof path, "%s/ns/mnt", e->d_name);
      ssize_t got_len = readlinkat(dir, path, got, sizeof got);
      alive = got_len == n && memcmp(got, want, (size_t)n) == 0;
    }
  }
  close(dir);
  return alive;
}

static void wait_for_exit(pid_t pid) {
  int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
  if (pfd >= 0) {
    struct pollfd p = {pfd, POLLIN, 0};
    while (poll(&p, 1, -1) < 0 && errno == EINTR) {}
    close(pfd);
    return;
  }
  while (kill(pid, 0) == 0 || errno == EPERM) nap(50);  /* kernels before 5.3 */
}

static void remove_if_unused(const cordon_mount *m, int fd) {
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) return;  /* another run still relies on it */
  struct stat held, now;  /* only what we locked: never a newer placeholder at the same path */
  if (fstat(fd, &held) != 0 || lstat(m->path, &now) != 0 || held.st_dev != now.st_dev || held.st_ino != now.st_ino)
    return;
  if (m->is_dir) (void)rmdir(m->path);
  else if (S_ISREG(now.st_mode) && now.st_size == 0) (void)unlink(m->path);
}

/* Whether some other open of each placeholder we made still holds a lock on it (a later run). Our own
 * shared lock stays: an exclusive one we get is turned back at once. */
static bool all_held_elsewhere(const uint32_t *index, const int *fds, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (!(index[i] & CORDON_LX_CLEANER_CREATED)) continue;
    if (flock(fds[i], LOCK_EX | LOCK_NB) == 0) {
      (void)flock(fds[i], LOCK_SH);
      return false;
    }
    if (errno != EWOULDBLOCK) return false;
  }
  return true;
}

/* The list comes in chunks of at most CHUNK entries (SCM_RIGHTS carries at most 253 descriptors), each
 * message led by the total: the plan's mount indices (CORDON_LX_CLEANER_CREATED marks those this run
 * made) and, alongside, their locked descriptors. Stored in memory mapped here (malloc is not safe in
 * this child). Returns the number received, 0 for none or anything malformed. */
#define CHUNK 200
#define MOST 65536

static size_t receive_chunk(int sock, uint32_t *total, uint32_t *index, int *fds) {
  union {
    struct cmsghdr align;
    char bytes[CMSG_SPACE(CHUNK * sizeof(int))];
  } control;
  uint32_t words[1 + CHUNK];
  struct iovec iov = {words, sizeof words};
  struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.bytes,
                      .msg_controllen = sizeof control.bytes};
  ssize_t got;
  while ((got = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {}
  if (got < (ssize_t)(2 * sizeof *words) || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) return 0;
  size_t n = (size_t)got / sizeof *words - 1, nfds = 0;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
      nfds = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      if (nfds == n) memcpy(fds, CMSG_DATA(c), n * sizeof(int));
    }
  *total = words[0];
  memcpy(index, words + 1, n * sizeof *index);
  return nfds == n ? n : 0;  /* a list without its locks answers for nothing */
}

static size_t receive_list(int sock, uint32_t **index, int **fds) {
  uint32_t total = 0, first_index[CHUNK];
  int first_fds[CHUNK];
  size_t n = receive_chunk(sock, &total, first_index, first_fds);
  if (n == 0 || total < n || total > MOST) return 0;
  size_t bytes = total * (sizeof **index + sizeof **fds);
  void *mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) return 0;
  *index = mem;
  *fds = (int *)(*index + total);
  memcpy(*index, first_index, n * sizeof **index);
  memcpy(*fds, first_fds, n * sizeof **fds);
  for (uint32_t again; n < total;) {
    size_t more = total - n < CHUNK ? total - n : CHUNK;
    if (receive_chunk(sock, &again, *index + n, *fds + n) != more || again != total) return 0;
    n += more;
  }
  return n;
}

static _Noreturn void run(const cordon_lx_plan *plan, pid_t command, int sock) {
  /* Nothing it does is urgent, so first of all: only CPU time nobody else wants. A new child often runs
   * before its parent resumes, on the parent's CPU, and would delay the sandbox's setup; later its /proc
   * scan would share a CPU with the next run. */
  (void)sched_setscheduler(0, SCHED_IDLE, &(struct sched_param){0});
  if (sock != CLEANER_SOCKET) {
    dup2(sock, CLEANER_SOCKET);
    sock = CLEANER_SOCKET;
  }
  int null = open("/dev/null", O_RDWR);  /* hold no caller's pipe or terminal open */
  if (null >= 0) dup2(null, 0), dup2(null, 1), dup2(null, 2);
  if (syscall(SYS_close_range, CLEANER_SOCKET + 1, ~0U, 0) != 0)
    for (int fd = CLEANER_SOCKET + 1; fd < 1024; fd++) close(fd);
  setsid();  /* off the caller's terminal and process group */
  (void)prctl(PR_SET_NAME, "cordon-cleaner", 0, 0, 0);  /* what ps shows while it lingers */
  uint32_t *index = NULL;
  int *fds = NULL;
  size_t n = receive_list(sock, &index, &fds);
  if (n == 0) _exit(0);  /* the run made none, or gave up before its sandbox */
  uint64_t ino = 0;
  if (read(sock, &ino, sizeof ino) != (ssize_t)sizeof ino) ino = 0;  /* none: no namespace was made */
  close(sock);
  struct stat own;  /* never wait for the namespace everyone else lives in */
  if (stat("/proc/self/ns/mnt", &own) == 0 && (uint64_t)own.st_ino == ino) ino = 0;
  wait_for_exit(command);
  while (ino && namespace_alive(ino)) nap(100);
  /* Linger a moment: a run started meanwhile adopts the placeholders still held (counted as missing by
   * every cached observation, core/record.h) instead of recreating them, which on ext4 costs up to a
   * millisecond per mkdir right after an rmdir. Once a later run holds every one, its cleaner answers
   * for them: leave then, so back-to-back runs do not pile up cleaners (each holds locks the next runs
   * walk past and is one more /proc entry every scan reads). */
  for (long waited = 0; waited < LINGER_MS && !all_held_elsewhere(index, fds, n); waited += POLL_MS) nap(POLL_MS);
  for (size_t i = n; i-- > 0;) {  /* innermost first: the plan lists outer paths first */
    uint32_t at = index[i] & ~CORDON_LX_CLEANER_CREATED;
    if ((index[i] & CORDON_LX_CLEANER_CREATED) && at < plan->nmounts) remove_if_unused(&plan->mounts[at], fds[i]);
  }
  _exit(0);
}

bool cordon_lx_cleaner_fork(const cordon_lx_plan *plan, cordon_lx_cleaner *c) {
  c->pid = -1;
  c->sock = -1;
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) return false;
  pid_t command = getpid();  /* before the fork: the child's parent may be gone when it asks */
  /* Our child with no exit signal (a raw clone, like fork with exit_signal 0): wait() in the command we
   * become never sees such a child (only __WALL/__WCLONE do), it never exits before the command does
   * (it waits for it first), and once the command exits the kernel reparents it with SIGCHLD to init
   * or a subreaper, which reaps it. Nothing waits for it here. */
  pid_t pid = (pid_t)syscall(SYS_clone, 0UL, NULL, NULL, NULL, 0UL);
  if (pid == 0) {
    close(sv[0]);
    run(plan, command, sv[1]);
  }
  close(sv[1]);
  if (pid < 0) {
    close(sv[0]);
    return false;
  }
  c->pid = pid;
  c->sock = sv[0];
  return true;
}

bool cordon_lx_cleaner_hand_over(cordon_lx_cleaner *c, const uint32_t *index, const int *fds, size_t n) {
  if (n == 0 || n > MOST) return false;
  for (size_t at = 0; at < n; at += CHUNK) {
    size_t k = n - at < CHUNK ? n - at : CHUNK;
    uint32_t words[1 + CHUNK];
    words[0] = (uint32_t)n;
    memcpy(words + 1, index + at, k * sizeof *index);
    union {
      struct cmsghdr align;
      char bytes[CMSG_SPACE(CHUNK * sizeof(int))];
    } control;
    memset(&control, 0, sizeof control);
    struct iovec iov = {words, (1 + k) * sizeof *words};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.bytes,
                        .msg_controllen = CMSG_SPACE(k * sizeof(int))};
    struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(k * sizeof(int));
    memcpy(CMSG_DATA(cm), fds + at, k * sizeof(int));
    ssize_t sent;
    while ((sent = sendmsg(c->sock, &mh, MSG_NOSIGNAL)) < 0 && errno == EINTR) {}
    if (sent != (ssize_t)iov.iov_len) return false;
  }
  return true;
}

void cordon_lx_cleaner_dismiss(cordon_lx_cleaner *c) {
  if (c->sock >= 0) close(c->sock);  /* it reads end-of-file and leaves */
  c->sock = -1;
  if (c->pid > 0) (void)waitpid(c->pid, NULL, __WALL);  /* not left a zombie under the command */
  c->pid = -1;
}
