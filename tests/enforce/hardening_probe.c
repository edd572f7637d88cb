/* tests/enforce/hardening_probe.c — test helper for test_hardening.sh: hardening_probe WHAT [ARGS…]
 * Does one thing a sandboxed command might try, with raw syscalls where libc would hide the detail, and
 * says what happened on stdout ("ok …" and exit 0, or the errno's name and exit 3). Built by the test with
 * the system cc; it runs inside and outside the sandbox, so every probe is first shown to work outside.
 *
 *   threads                 four pthreads (glibc tries clone3, then clone)
 *   clone3                  a raw clone3
 *   dgram-send PATH MSG     a datagram unix socket sending MSG to PATH
 *   dgram-pair              socketpair(AF_UNIX, SOCK_DGRAM)
 *   dgram-server PATH OUT   (outside) receives datagrams at PATH, appending each to OUT, until killed
 *   stream                  socket(AF_UNIX, SOCK_STREAM)
 *   uring-dgram PATH MSG    the same send as dgram-send, through io_uring alone (no socket() call)
 *   listener                a nested seccomp filter with a new listener
 *   nested-plain            a nested seccomp filter without one
 *   key-add NAME SECRET     adds a user key to the user keyring (@u); prints its serial
 *   key-read SERIAL         prints the key's payload
 *   key-user                the user keyring's serial
 *   key-find NAME           the serial of a user key named NAME in the user keyring
 *   key-drop SERIAL         invalidates the key */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/io_uring.h>
#include <linux/keyctl.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static int failed(const char *what) {
  int e = errno;
  printf("%s: %s\n", what, e == EPERM ? "EPERM" : e == EACCES ? "EACCES" : e == ENOSYS ? "ENOSYS"
                           : e == EAFNOSUPPORT ? "EAFNOSUPPORT" : e == ENOKEY ? "ENOKEY" : strerror(e));
  return 3;
}

static struct sockaddr_un address(const char *path) {
  struct sockaddr_un a = {.sun_family = AF_UNIX};
  snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
  return a;
}

static void *thread_body(void *arg) { return arg; }

static int threads(void) {
  pthread_t t[4];
  for (int i = 0; i < 4; i++) {
    int rc = pthread_create(&t[i], NULL, thread_body, NULL);
    if (rc) return errno = rc, failed("pthread_create");
  }
  for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
  puts("ok threads");
  return 0;
}

static int clone3_raw(void) {
  uint64_t args[11] = {0};
  args[4] = SIGCHLD;
  long pid = syscall(__NR_clone3, args, sizeof args);
  if (pid == 0) _exit(0);
  if (pid < 0) return failed("clone3");
  waitpid((pid_t)pid, NULL, 0);
  puts("ok clone3");
  return 0;
}

static int dgram_send(const char *path, const char *msg) {
  int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (s < 0) return failed("socket");
  struct sockaddr_un a = address(path);
  if (sendto(s, msg, strlen(msg), 0, (struct sockaddr *)&a, sizeof a) < 0) return failed("sendto");
  puts("ok sent");
  return 0;
}

static int dgram_server(const char *path, const char *out) {
  int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  struct sockaddr_un a = address(path);
  unlink(path);
  if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) != 0) return failed("bind");
  chmod(path, 0777);
  char buf[512];
  for (;;) {
    ssize_t n = recv(s, buf, sizeof buf, 0);
    if (n <= 0) continue;
    int fd = open(out, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0 && write(fd, buf, (size_t)n) < 0) {}
    if (fd >= 0) close(fd);
  }
}

static int simple(int domain, int type, const char *what) {
  int sv[2];
  int rc = type & 0x100 ? socketpair(domain, type & 0xff, 0, sv) : socket(domain, type, 0);
  if (rc < 0) return failed(what);
  printf("ok %s\n", what);
  return 0;
}

/* --- io_uring without liburing: one submission at a time ---------------------------------------- */
typedef struct {
  int fd;
  unsigned *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail, *cq_mask;
  struct io_uring_sqe *sqes;
  struct io_uring_cqe *cqes;
} ring;

static int ring_open(ring *r) {
  struct io_uring_params p;
  memset(&p, 0, sizeof p);
  r->fd = (int)syscall(__NR_io_uring_setup, 4, &p);
  if (r->fd < 0) return -1;
  size_t sq_size = p.sq_off.array + p.sq_entries * sizeof(unsigned);
  size_t cq_size = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
  char *sq = mmap(NULL, sq_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQ_RING);
  char *cq = mmap(NULL, cq_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_CQ_RING);
  r->sqes = mmap(NULL, p.sq_entries * sizeof *r->sqes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
                 IORING_OFF_SQES);
  if (sq == MAP_FAILED || cq == MAP_FAILED || r->sqes == MAP_FAILED) return -1;
  r->sq_tail = (unsigned *)(sq + p.sq_off.tail), r->sq_mask = (unsigned *)(sq + p.sq_off.ring_mask);
  r->sq_array = (unsigned *)(sq + p.sq_off.array);
  r->cq_head = (unsigned *)(cq + p.cq_off.head), r->cq_tail = (unsigned *)(cq + p.cq_off.tail);
  r->cq_mask = (unsigned *)(cq + p.cq_off.ring_mask), r->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
  return 0;
}

/* Submits `sqe` and returns its result (negative errno). */
static int ring_run(ring *r, const struct io_uring_sqe *sqe) {
  unsigned tail = *r->sq_tail, idx = tail & *r->sq_mask;
  r->sqes[idx] = *sqe;
  r->sq_array[idx] = idx;
  __atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
  if (syscall(__NR_io_uring_enter, r->fd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0) return -errno;
  unsigned head = __atomic_load_n(r->cq_head, __ATOMIC_ACQUIRE);
  if (head == __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE)) return -EIO;
  int res = r->cqes[head & *r->cq_mask].res;
  __atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
  return res;
}

static int uring_dgram(const char *path, const char *msg) {
  ring r;
  if (ring_open(&r) != 0) return failed("io_uring_setup");
  struct io_uring_sqe sqe;
  memset(&sqe, 0, sizeof sqe);
  sqe.opcode = IORING_OP_SOCKET;  /* Linux 5.19 */
  sqe.fd = AF_UNIX;
  sqe.off = SOCK_DGRAM;
  int s = ring_run(&r, &sqe);
  if (s < 0) return errno = -s, failed("IORING_OP_SOCKET");
  struct sockaddr_un a = address(path);
  struct iovec iov = {(void *)msg, strlen(msg)};
  struct msghdr m = {.msg_name = &a, .msg_namelen = sizeof a, .msg_iov = &iov, .msg_iovlen = 1};
  memset(&sqe, 0, sizeof sqe);
  sqe.opcode = IORING_OP_SENDMSG;
  sqe.fd = s;
  sqe.addr = (uint64_t)(uintptr_t)&m;
  int rc = ring_run(&r, &sqe);
  if (rc < 0) return errno = -rc, failed("IORING_OP_SENDMSG");
  puts("ok sent through io_uring");
  return 0;
}

static int nested(unsigned flags) {
  struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  struct sock_fprog prog = {1, &allow};
  long rc = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
  if (rc < 0) return failed(flags ? "listener" : "nested filter");
  puts(flags ? "ok listener" : "ok nested filter");
  return 0;
}

static int key_op(const char *what, const char *a, const char *b) {
  long rc;
  if (strcmp(what, "key-add") == 0) {
    rc = syscall(SYS_add_key, "user", a, b, strlen(b), KEY_SPEC_USER_KEYRING);
    if (rc < 0) return failed("add_key");
    printf("%ld\n", rc);
    return 0;
  }
  if (strcmp(what, "key-read") == 0) {
    char buf[256];
    rc = syscall(SYS_keyctl, KEYCTL_READ, atol(a), buf, sizeof buf - 1, 0);
    if (rc < 0) return failed("keyctl read");
    buf[rc < (long)sizeof buf ? rc : (long)sizeof buf - 1] = '\0';
    printf("ok %s\n", buf);
    return 0;
  }
  if (strcmp(what, "key-user") == 0) {
    rc = syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_USER_KEYRING, 0, 0, 0);
    if (rc < 0) return failed("keyctl");
    printf("ok %ld\n", rc);
    return 0;
  }
  if (strcmp(what, "key-find") == 0) {
    rc = syscall(SYS_keyctl, KEYCTL_SEARCH, KEY_SPEC_USER_KEYRING, "user", a, 0);
    if (rc < 0) return failed("keyctl search");
    printf("ok %ld\n", rc);
    return 0;
  }
  rc = syscall(SYS_keyctl, KEYCTL_INVALIDATE, atol(a), 0, 0, 0);
  return rc < 0 ? failed("keyctl invalidate") : 0;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  const char *w = argc > 1 ? argv[1] : "";
  const char *a = argc > 2 ? argv[2] : "", *b = argc > 3 ? argv[3] : "";
  if (strcmp(w, "threads") == 0) return threads();
  if (strcmp(w, "clone3") == 0) return clone3_raw();
  if (strcmp(w, "dgram-send") == 0) return dgram_send(a, b);
  if (strcmp(w, "dgram-pair") == 0) return simple(AF_UNIX, SOCK_DGRAM | 0x100, "socketpair");
  if (strcmp(w, "dgram-server") == 0) return dgram_server(a, b);
  if (strcmp(w, "stream") == 0) return simple(AF_UNIX, SOCK_STREAM, "stream socket");
  if (strcmp(w, "uring-dgram") == 0) return uring_dgram(a, b);
  if (strcmp(w, "listener") == 0) return nested(SECCOMP_FILTER_FLAG_NEW_LISTENER);
  if (strcmp(w, "nested-plain") == 0) return nested(0);
  if (strncmp(w, "key-", 4) == 0) return key_op(w, a, b);
  fprintf(stderr, "hardening_probe: unknown probe '%s'\n", w);
  return 2;
}
