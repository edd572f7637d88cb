/* needs: linux */
/* tests/c/test_gate_parity.c — where the policy allows, the gate answers as the kernel would: the same
 * sequence of operations (errors of every kind: trailing slashes, ".", "..", loops, dangling links,
 * bad pointers, names too long) is run once without the gate and once through it, in two identical
 * trees, and every result and the final trees must match. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "gate_harness.h"

#include <sys/un.h>

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif

static void prepare(gh_env *e) {
  gh_sh("cd '%s' && printf f > f && mkdir d ne ed && printf g > d/g && printf n > ne/n && ln -s f ls && ln -s d ld "
        "&& ln -s nothere dl && ln -s loop2 loop1 && ln -s loop1 loop2 && mkfifo fifo",
        e->w);
}

static int results_fd = -1;

static void note(const char *what, long r) {
  char line[600];
  int n = snprintf(line, sizeof line, "%s = %ld\n", what, r);
  if (write(results_fd, line, (size_t)n) != n) _exit(95);
}

#define OP(what, ...) note(what, syscall(__VA_ARGS__) < 0 ? -errno : 0)
#define OPFD(what, ...)                                      \
  do {                                                       \
    long fd_ = syscall(__VA_ARGS__);                         \
    note(what, fd_ < 0 ? -errno : 0);                        \
    if (fd_ >= 0) close((int)fd_);                           \
  } while (0)

static struct sockaddr_un un(const char *p, socklen_t *len) {
  struct sockaddr_un a = {.sun_family = AF_UNIX};
  snprintf(a.sun_path, sizeof a.sun_path, "%s", p);
  *len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(p) + 1);
  return a;
}

static void sequence(gh_env *e, void *arg) {
  (void)arg;
  if (chdir(e->w) != 0) _exit(94);
  char longname[300], huge[PATH_MAX + 16];
  memset(longname, 'n', sizeof longname - 1), longname[sizeof longname - 1] = '\0';
  memset(huge, 'h', sizeof huge);
  for (size_t i = 1; i < sizeof huge; i += 2) huge[i] = '/';
  char *unmapped = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  memcpy(unmapped + 4096 - 3, "abc", 3);  /* no NUL before the next page, which is then unmapped */
  munmap(unmapped + 4096, 4096);
  OPFD("open f/ write", SYS_open, "f/", O_WRONLY);
  OPFD("open d write", SYS_open, "d", O_WRONLY);
  OPFD("open d/ creat", SYS_open, "d/", O_WRONLY | O_CREAT, 0644);
  OPFD("open new/ creat", SYS_open, "newfile/", O_WRONLY | O_CREAT, 0644);
  OPFD("open nothere/x creat", SYS_open, "nothere/x", O_WRONLY | O_CREAT, 0644);
  OPFD("open f/x creat", SYS_open, "f/x", O_WRONLY | O_CREAT, 0644);
  OPFD("open loop", SYS_open, "loop1", O_WRONLY);
  OPFD("open loop creat", SYS_open, "loop1", O_WRONLY | O_CREAT, 0644);
  OPFD("open ls nofollow", SYS_open, "ls", O_WRONLY | O_NOFOLLOW);
  OPFD("open ls excl", SYS_open, "ls", O_WRONLY | O_CREAT | O_EXCL, 0644);
  OPFD("open dl excl", SYS_open, "dl", O_WRONLY | O_CREAT | O_EXCL, 0644);
  OPFD("open empty", SYS_open, "", O_WRONLY);
  OPFD("open d/. write", SYS_open, "d/.", O_WRONLY);
  OPFD("open d/.. write", SYS_open, "d/..", O_WRONLY);
  OPFD("open . creat", SYS_open, ".", O_WRONLY | O_CREAT, 0644);
  OPFD("open d directory creat", SYS_open, "d", O_RDONLY | O_DIRECTORY | O_CREAT, 0644);
  OPFD("open ld/g write", SYS_open, "ld/g", O_WRONLY | O_APPEND);
  OPFD("open ld/../f write", SYS_open, "ld/../f", O_WRONLY | O_APPEND);
  OPFD("open f directory write", SYS_open, "f", O_WRONLY | O_DIRECTORY);
  OPFD("open tmpfile rdonly", SYS_open, ".", O_TMPFILE | O_RDONLY, 0600);
  OPFD("open tmpfile on file", SYS_open, "f", O_TMPFILE | O_WRONLY, 0600);
  OPFD("open fifo nonblock write", SYS_open, "fifo", O_WRONLY | O_NONBLOCK);
  OPFD("open fifo rdwr", SYS_open, "fifo", O_RDWR);
  OPFD("open long name", SYS_open, longname, O_WRONLY | O_CREAT, 0644);
  OPFD("open huge path", SYS_open, huge, O_WRONLY | O_CREAT, 0644);
  OPFD("open bad pointer", SYS_open, (char *)8, O_WRONLY | O_CREAT, 0644);
  OPFD("open unterminated at a hole", SYS_open, unmapped + 4096 - 3, O_WRONLY | O_CREAT, 0644);
  OPFD("openat bad dirfd", SYS_openat, 999, "x", O_WRONLY | O_CREAT, 0644);
  OPFD("openat file dirfd", SYS_openat, 0, "x", O_WRONLY | O_CREAT, 0644);
  OP("mkdir d", SYS_mkdir, "d", 0755);
  OP("mkdir ls", SYS_mkdir, "ls", 0755);
  OP("mkdir dl", SYS_mkdir, "dl", 0755);
  OP("mkdir newd/", SYS_mkdir, "newd/", 0755);
  OP("mkdir f/x", SYS_mkdir, "f/x", 0755);
  OP("mkdir nothere/x", SYS_mkdir, "nothere/x", 0755);
  OP("mkdir .", SYS_mkdir, ".", 0755);
  OP("mkdir d/..", SYS_mkdir, "d/..", 0755);
  OP("mkdir /", SYS_mkdir, "/", 0755);
  OP("rmdir f", SYS_rmdir, "f");
  OP("rmdir ne", SYS_rmdir, "ne");
  OP("rmdir .", SYS_rmdir, ".");
  OP("rmdir d/..", SYS_rmdir, "d/..");
  OP("rmdir /", SYS_rmdir, "/");
  OP("rmdir ld", SYS_rmdir, "ld");
  OP("rmdir nothere", SYS_rmdir, "nothere");
  OP("rmdir ed/", SYS_rmdir, "ed/");
  OP("unlink d", SYS_unlink, "d");
  OP("unlink f/", SYS_unlink, "f/");
  OP("unlink ld/", SYS_unlink, "ld/");
  OP("unlink .", SYS_unlink, ".");
  OP("unlink nothere", SYS_unlink, "nothere");
  OP("unlinkat bad flags", SYS_unlinkat, AT_FDCWD, "f", 0x4);
  OP("rename f onto d", SYS_rename, "f", "d");
  OP("rename d onto ne", SYS_rename, "d", "ne");
  OP("rename f to f/", SYS_rename, "f", "f2/");
  OP("rename .", SYS_rename, ".", "x");
  OP("rename onto .", SYS_rename, "f", ".");
  OP("rename nothere", SYS_rename, "nothere", "y");
  OP("rename into nothere/", SYS_rename, "f", "nothere/y");
  OP("renameat2 noreplace", SYS_renameat2, AT_FDCWD, "f", AT_FDCWD, "ls", 1);
  OP("renameat2 exchange missing", SYS_renameat2, AT_FDCWD, "f", AT_FDCWD, "nothere", 2);
  OP("renameat2 bad flags", SYS_renameat2, AT_FDCWD, "f", AT_FDCWD, "y", 0x100);
  OP("renameat2 exchange", SYS_renameat2, AT_FDCWD, "ls", AT_FDCWD, "ld", 2);
  OP("link dir", SYS_link, "d", "dlink");
  OP("link onto existing", SYS_link, "f", "d");
  OP("link nothere", SYS_link, "nothere", "y");
  OP("link to y/", SYS_link, "f", "y/");
  OP("link f f2", SYS_link, "f", "f2");
  OP("linkat follow dangling", SYS_linkat, AT_FDCWD, "dl", AT_FDCWD, "y", AT_SYMLINK_FOLLOW);
  OP("linkat bad flags", SYS_linkat, AT_FDCWD, "f", AT_FDCWD, "y", 0x2);
  OP("symlink onto existing", SYS_symlink, "x", "f");
  OP("symlink empty target", SYS_symlink, "", "y");
  OP("symlink y/", SYS_symlink, "x", "y/");
  OP("symlink into nothere", SYS_symlink, "x", "nothere/y");
  OP("mknod existing", SYS_mknod, "f", S_IFREG | 0644, 0);
  OP("mknod bad type", SYS_mknod, "y", 0170000 | 0644, 0);
  OP("mknod y/", SYS_mknod, "y/", S_IFREG | 0644, 0);
  OP("truncate dir", SYS_truncate, "d", 0);
  OP("truncate negative", SYS_truncate, "f", (long)-1);
  OP("truncate nothere", SYS_truncate, "nothere", 0);
  OP("truncate fifo", SYS_truncate, "fifo", 0);
  OP("truncate through link", SYS_truncate, "ld/g", 0);
  OP("chmod dangling", SYS_chmod, "dl", 0644);
  OP("chmod nothere", SYS_chmod, "nothere", 0644);
  OP("chmod f/", SYS_chmod, "f/", 0644);
  OP("chmod through link", SYS_chmod, "ld", 0700);
  OP("fchmodat2 nofollow link", SYS_fchmodat2, AT_FDCWD, "ls", 0600, AT_SYMLINK_NOFOLLOW);
  OP("fchmodat2 bad flags", SYS_fchmodat2, AT_FDCWD, "f", 0600, 0x1);
  OP("fchmodat2 empty path", SYS_fchmodat2, AT_FDCWD, "", 0700, AT_EMPTY_PATH);
  OP("fchmod bad fd", SYS_fchmod, 999, 0600);
  int opath = open("f", O_PATH);
  OP("fchmod O_PATH", SYS_fchmod, opath, 0600);
  close(opath);
  socklen_t len;
  struct sockaddr_un a = un("f", &len);
  int s = socket(AF_UNIX, SOCK_STREAM, 0);
  OP("bind onto a file", SYS_bind, s, &a, len);
  OP("connect to a file", SYS_connect, s, &a, len);
  a = un("nothere", &len);
  OP("connect to nothing", SYS_connect, s, &a, len);
  OP("bind too long", SYS_bind, s, &a, 200);
  OP("bind bad pointer", SYS_bind, s, (void *)8, len);
  OP("bind not a socket", SYS_bind, 0, &a, len);
  a = un("sock", &len);
  OP("bind", SYS_bind, s, &a, len);
  OP("bind again", SYS_bind, s, &a, len);
  close(s);
  s = socket(AF_UNIX, SOCK_STREAM, 0);
  OP("connect to a socket not listening", SYS_connect, s, &a, len);
  close(s);
}

static void run_one(gh_env *e, bool gated, char *out, size_t cap, char *tree, size_t tcap) {
  int fd = memfd_create("results", 0);
  results_fd = fd;
  gh_run_mode(e, sequence, NULL, gated);
  ssize_t n = pread(fd, out, cap - 1, 0);
  out[n > 0 ? n : 0] = '\0';
  close(fd);
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "cd '%s' && find . -printf '%%p %%y %%m %%s\\n' | sort", e->w);
  FILE *p = popen(cmd, "r");
  size_t t = fread(tree, 1, tcap - 1, p);
  tree[t] = '\0';
  pclose(p);
}

static void the_gate_answers_every_error_as_the_kernel_does_where_the_policy_allows(void **state) {
  (void)state;
  static char kernel[1 << 16], gate[1 << 16], ktree[1 << 14], gtree[1 << 14];
  gh_env a, b;
  gh_setup(&a);
  gh_setup(&b);
  prepare(&a);
  prepare(&b);
  run_one(&a, false, kernel, sizeof kernel, ktree, sizeof ktree);
  run_one(&b, true, gate, sizeof gate, gtree, sizeof gtree);
  if (strcmp(kernel, gate) != 0) {
    /* show the first difference */
    const char *k = kernel, *g = gate;
    while (*k && *k == *g) k++, g++;
    while (k > kernel && k[-1] != '\n') k--, g--;
    fprintf(stderr, "kernel: %.*s\ngate:   %.*s\n", (int)strcspn(k, "\n"), k, (int)strcspn(g, "\n"), g);
  }
  if (getenv("GATE_TEST_VERBOSE")) fprintf(stderr, "%s%s", kernel, ktree);
  assert_true(strlen(kernel) > 1000);
  assert_string_equal(kernel, gate);
  assert_string_equal(ktree, gtree);
  assert_string_equal(b.msgs, "");
  gh_teardown(&a);
  gh_teardown(&b);
}

static int group(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(the_gate_answers_every_error_as_the_kernel_does_where_the_policy_allows),
  };
  return cmocka_run_group_tests_name(gh_user, tests, NULL, NULL);
}

int main(void) { return gh_main(group); }
