/* needs: linux */
/* tests/c/test_gate_paths.c — the gate resolves paths as the caller would and decides on what they
 * resolve to: symlinks (chained, relative, dangling, swapped in a loop), the caller's own descriptors
 * through /dev/stderr, /dev/fd/N and /proc/self/fd/N, and a path buffer changed after the call. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "gate_harness.h"

#include <pthread.h>
#include <stdatomic.h>

static void do_symlinks(gh_env *e, void *arg) {
  (void)arg;
  if (chdir(e->w) != 0) gh_check(0, "chdir");
  gh_check(symlink("secret.txt", "l1") == 0, "symlink to a denied file");
  gh_check(symlink("l1", "l2") == 0 && symlink("./sub/../l2", "l3") == 0, "a chain of symlinks");
  gh_check(mkdir("sub", 0755) == 0, "mkdir");
  gh_check(symlink("protected", "pdir") == 0, "a symlink to a denied directory");
  gh_check(symlink("../outside/file", "out") == 0, "a symlink outside");
  gh_check(open("l3", O_WRONLY) < 0 && errno == EPERM, "writing through three links reaches the denied file");
  gh_check(open("l1", O_WRONLY | O_TRUNC | O_CREAT, 0644) < 0 && errno == EPERM, "O_CREAT through a link to it");
  gh_check(truncate("l2", 0) < 0 && errno == EPERM, "truncate through a link");
  gh_check(chmod("l2", 0777) < 0 && errno == EPERM, "chmod through a link");
  gh_check(open("pdir/file", O_WRONLY) < 0 && errno == EPERM, "a link in a directory component");
  gh_check(open("pdir/new", O_WRONLY | O_CREAT, 0644) < 0 && errno == EPERM, "creating under a linked denied dir");
  gh_check(open("out", O_WRONLY) < 0 && errno == EPERM, "a link that leaves the writable root");
  gh_check(open("sub/../pdir/../secret.txt", O_RDWR) < 0 && errno == EPERM, "dot-dot across a link");
  gh_check(open("l1", O_WRONLY | O_NOFOLLOW) < 0 && errno == ELOOP, "O_NOFOLLOW on a final link is ELOOP");
  int fd = open("l1", O_RDONLY);
  gh_check(fd >= 0, "reading through the link is not the gate's to refuse");
  close(fd);
  gh_check(unlink("l1") == 0, "removing the link itself is allowed: it is not the file");
}

static void writes_through_symlinks_are_decided_on_the_file_they_reach(void **state) {
  (void)state;
  gh_env e;
  gh_setup(&e);
  assert_int_equal(gh_run(&e, do_symlinks, NULL), 0);
  assert_string_equal(gh_read(gh_path(&e, "w/secret.txt")), "secret\n");
  assert_string_equal(gh_read(gh_path(&e, "outside/file")), "outside\n");
  assert_false(gh_exists(gh_path(&e, "w/protected/new")));
  struct stat st;
  assert_int_equal(stat(gh_path(&e, "w/secret.txt"), &st), 0);
  assert_int_equal(st.st_mode & 07777, 0644);
  assert_false(gh_exists(gh_path(&e, "w/l1")));
  gh_teardown(&e);
}

static void do_dangling(gh_env *e, void *arg) {
  (void)arg;
  if (chdir(e->w) != 0) gh_check(0, "chdir");
  gh_check(symlink("protected/planted", "dangle") == 0, "a dangling link into a denied dir");
  gh_check(open("dangle", O_WRONLY | O_CREAT, 0644) < 0 && errno == EPERM, "O_CREAT through it is refused");
  gh_check(symlink("made-through-link", "dangle2") == 0, "a dangling link inside the root");
  int fd = open("dangle2", O_WRONLY | O_CREAT, 0600);
  gh_check(fd >= 0 && write(fd, "via", 3) == 3, "O_CREAT through it creates the target, as the kernel does");
  close(fd);
  gh_check(open("dangle2", O_WRONLY | O_CREAT | O_EXCL, 0600) < 0 && errno == EEXIST, "O_EXCL never follows");
  gh_check(symlink("../outside/planted", "dangle3") == 0, "a dangling link outside");
  gh_check(open("dangle3", O_RDWR | O_CREAT, 0644) < 0 && errno == EPERM, "refused outside");
}

static void o_creat_on_a_dangling_symlink_is_decided_on_its_target(void **state) {
  (void)state;
  gh_env e;
  gh_setup(&e);
  assert_int_equal(gh_run(&e, do_dangling, NULL), 0);
  assert_false(gh_exists(gh_path(&e, "w/protected/planted")));
  assert_false(gh_exists(gh_path(&e, "outside/planted")));
  assert_string_equal(gh_read(gh_path(&e, "w/made-through-link")), "via");
  assert_non_null(strstr(e.msgs, "protected/planted"));
  gh_teardown(&e);
}

static void do_links(gh_env *e, void *arg) {
  (void)arg;
  if (chdir(e->w) != 0) gh_check(0, "chdir");
  /* EXDEV, as Landlock answers a link that would widen access: tools copy instead */
  gh_check(link("secret.txt", "second-name") < 0 && errno == EXDEV, "a second name for a denied file");
  gh_check(symlink("secret.txt", "sl") == 0, "symlink");
  gh_check(linkat(AT_FDCWD, "sl", AT_FDCWD, "second-name", AT_SYMLINK_FOLLOW) < 0 && errno == EXDEV,
           "following a link to it");
  gh_check(linkat(AT_FDCWD, "sl", AT_FDCWD, "link-to-link", 0) == 0, "linking the symlink itself is allowed");
  int fd = open(".", O_TMPFILE | O_WRONLY, 0600);
  gh_check(fd >= 0 && write(fd, "tmp", 3) == 3, "O_TMPFILE in the root");
  gh_check(linkat(fd, "", AT_FDCWD, "from-tmpfile", AT_EMPTY_PATH) == 0, "linkat AT_EMPTY_PATH names it");
  char self[64];
  snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
  gh_check(linkat(AT_FDCWD, self, AT_FDCWD, "protected/from-tmpfile", AT_SYMLINK_FOLLOW) < 0 && errno == EPERM,
           "naming it in a denied dir is refused");
  close(fd);
  gh_check(open("protected", O_TMPFILE | O_WRONLY, 0600) < 0 && errno == EPERM, "O_TMPFILE in a denied dir");
}

static void a_hard_link_to_a_protected_file_is_refused(void **state) {
  (void)state;
  gh_env e;
  gh_setup(&e);
  assert_int_equal(gh_run(&e, do_links, NULL), 0);
  assert_false(gh_exists(gh_path(&e, "w/second-name")));
  assert_false(gh_exists(gh_path(&e, "w/protected/from-tmpfile")));
  assert_string_equal(gh_read(gh_path(&e, "w/from-tmpfile")), "tmp");
  struct stat st;
  assert_int_equal(lstat(gh_path(&e, "w/link-to-link"), &st), 0);
  assert_true(S_ISLNK(st.st_mode));
  assert_int_equal(stat(gh_path(&e, "w/secret.txt"), &st), 0);
  assert_int_equal(st.st_nlink, 1);
  gh_teardown(&e);
}

static void do_aliases(gh_env *e, void *arg) {
  (void)arg;
  if (chdir(e->w) != 0) gh_check(0, "chdir");
  gh_check(symlink("elsewhere", ".vscode") < 0 && errno == EPERM, "a symlink above a protected path");
  gh_check(mkdir("x", 0755) == 0 && close(open("x/tasks.json", O_WRONLY | O_CREAT, 0644)) == 0, "a tree of one's own");
  gh_check(rename("x", ".vscode") < 0 && errno == EPERM, "moved to where it would be the protected path");
  gh_check(mkdir("y", 0755) == 0 && symlink("../evil", "y/tasks.json") == 0, "a tree with a link in its place");
  gh_check(rename("y", ".vscode") < 0 && errno == EPERM, "moved there too");
  gh_check(mkdir("z", 0755) == 0 && symlink("/somewhere", "z/runConfigurations") == 0, "a link on the way");
  gh_check(rename("z", ".idea") < 0 && errno == EPERM, "a link toward a protected subpath");
  gh_check(symlink("elsewhere", "ln") == 0 && rename("ln", ".idea") < 0 && errno == EPERM, "a symlink moved there");
  gh_check(mkdir("ok", 0755) == 0 && close(open("ok/other.json", O_WRONLY | O_CREAT, 0644)) == 0 &&
               rename("ok", ".vscode") == 0, "a tree without the protected path may take the name");
  gh_check(open(".vscode/tasks.json", O_WRONLY | O_CREAT, 0644) < 0 && errno == EPERM, "which stays protected");
  gh_check(rename("host", "moved") < 0 && errno == EPERM, "a tree holding a protected path may not move away");
  gh_check(symlink("elsewhere", "plain-link") == 0, "links elsewhere are made as asked");
}

static void a_symlink_or_a_moved_directory_cannot_put_a_protected_path_under_another_meaning(void **state) {
  (void)state;
  gh_env e;
  gh_setup(&e);
  gh_grule(&e, CORDON_DENY, gh_levels_write, "w/.vscode/tasks.json", false, "test:6 (deny (literal .vscode/tasks.json))");
  gh_grule(&e, CORDON_DENY, gh_levels_write, "w/.idea/runConfigurations", true, "test:7 (deny (subpath ...))");
  gh_grule(&e, CORDON_DENY, gh_levels_write, "w/host/tasks.json", false, "test:8");
  gh_sh("mkdir -p '%s/host' && echo user > '%s/host/tasks.json'", e.w, e.w);
  assert_int_equal(gh_run(&e, do_aliases, NULL), 0);
  assert_false(gh_exists(gh_path(&e, "w/.vscode/tasks.json")));
  assert_false(gh_exists(gh_path(&e, "w/.idea")));
  assert_string_equal(gh_read(gh_path(&e, "w/host/tasks.json")), "user\n");
  assert_non_null(strstr(e.msgs, "the policy protects "));
  gh_teardown(&e);
}

/* --- the caller's own descriptors ------------------------------------------------------------------ */
static void *write_thread_self(void *arg) {
  int *fd = arg;
  char p[64];
  snprintf(p, sizeof p, "/proc/thread-self/fd/%d", *fd);
  int f = open(p, O_WRONLY | O_APPEND);
  long ok = f >= 0 && write(f, "T", 1) == 1;
  close(f);
  return (void *)ok;
}

static void do_own_fds(gh_env *e, void *arg) {
  (void)arg;
  int log = open(gh_path(e, "w/log"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  gh_check(dup2(log, 2) == 2, "stderr to a file");
  int fd = open("/dev/stderr", O_WRONLY | O_TRUNC | O_CREAT, 0644);  /* as `echo x > /dev/stderr` does */
  gh_check(fd >= 0 && write(fd, "E", 1) == 1, "/dev/stderr reaches the caller's stderr");
  close(fd);
  int p[2];
  gh_check(pipe2(p, O_NONBLOCK) == 0, "pipe");  /* a read that finds nothing fails, never hangs */
  char path[64];
  snprintf(path, sizeof path, "/dev/fd/%d", p[1]);
  fd = open(path, O_WRONLY);
  gh_check(fd >= 0 && write(fd, "P", 1) == 1, "/dev/fd/N reaches the caller's pipe");
  close(fd);
  snprintf(path, sizeof path, "/proc/self/fd/%d", p[0]);
  fd = open(path, O_WRONLY);  /* a pipe's read end reopened to write, as bash's >(…) can */
  gh_check(fd >= 0 && write(fd, "Q", 1) == 1, "/proc/self/fd/N of a pipe reopens it");
  close(fd);
  char buf[4] = {0};
  gh_check(read(p[0], buf, 2) == 2 && memcmp(buf, "PQ", 2) == 0, "the bytes arrived in the caller's pipe");
  pthread_t t;
  void *ok = NULL;
  gh_check(pthread_create(&t, NULL, write_thread_self, &log) == 0 && pthread_join(t, &ok) == 0 && ok,
           "/proc/thread-self is the calling thread's");
  int ro = open(gh_path(e, "w/secret.txt"), O_RDONLY);
  snprintf(path, sizeof path, "/proc/self/fd/%d", ro);
  gh_check(open(path, O_WRONLY) < 0 && errno == EPERM, "a descriptor opened to read is not reopened to write");
  snprintf(path, sizeof path, "/dev/fd/%d", ro);
  gh_check(open(path, O_RDWR | O_TRUNC) < 0 && errno == EPERM, "nor truncated");
  int s[2];
  gh_check(socketpair(AF_UNIX, SOCK_STREAM, 0, s) == 0, "socketpair");
  snprintf(path, sizeof path, "/proc/self/fd/%d", s[0]);
  gh_check(open(path, O_WRONLY) < 0 && errno == ENXIO, "a socket cannot be opened, as the kernel says");
}

static void dev_stderr_dev_fd_and_proc_self_fd_reach_the_callers_own_descriptors(void **state) {
  (void)state;
  gh_env e;
  gh_setup(&e);
  assert_int_equal(gh_run(&e, do_own_fds, NULL), 0);
  assert_string_equal(gh_read(gh_path(&e, "w/log")), "ET");
  assert_string_equal(gh_read(gh_path(&e, "w/secret.txt")), "secret\n");
  gh_teardown(&e);
}

/* --- races ---------------------------------------------------------------------------------------- */
typedef struct {
  const gh_env *e;
  atomic_bool stop;
  long swaps;
} swapper;

/* Turns w/x into a symlink to the denied file and back into a plain file, as fast as it can. */
static void *swap_loop(void *arg) {
  swapper *s = arg;
  char x[512], sym[512], plain[512];
  snprintf(x, sizeof x, "%s/x", s->e->w);
  snprintf(sym, sizeof sym, "%s/x.sym", s->e->w);
  snprintf(plain, sizeof plain, "%s/x.plain", s->e->w);
  while (!atomic_load(&s->stop)) {
    (void)symlink("secret.txt", sym);
    (void)rename(sym, x);
    int fd = open(plain, O_WRONLY | O_CREAT, 0644);
    if (fd >= 0) close(fd);
    (void)rename(plain, x);
    s->swaps++;
  }
  return NULL;
}

static void write_loop(gh_env *e, long rounds) {
  char x[512];
  snprintf(x, sizeof x, "%s/x", e->w);
  for (long i = 0; i < rounds; i++) {
    int fd = open(x, O_WRONLY | O_TRUNC | O_CREAT, 0644);
    if (fd >= 0) {
      (void)write(fd, "OVERWRITTEN", 11);
      close(fd);
    }
  }
}

static void do_swap_in_thread(gh_env *e, void *arg) {
  (void)arg;
  swapper s = {.e = e};
  pthread_t t;
  gh_check(pthread_create(&t, NULL, swap_loop, &s) == 0, "thread");
  write_loop(e, 3000);
  atomic_store(&s.stop, true);
  pthread_join(t, NULL);
  gh_check(s.swaps > 10, "the swapper ran (%ld swaps)", s.swaps);
}

static void a_symlink_swapped_by_another_thread_never_lets_a_write_reach_the_protected_file(void **state) {
  (void)state;
  gh_env e;
  gh_setup(&e);
  assert_int_equal(gh_run(&e, do_swap_in_thread, NULL), 0);
  assert_string_equal(gh_read(gh_path(&e, "w/secret.txt")), "secret\n");
  gh_teardown(&e);
}

static void do_writes_only(gh_env *e, void *arg) {
  (void)arg;
  write_loop(e, 3000);
}

/* The swapper here is not under the gate at all (a process on the host): only the gate's O_NOFOLLOW
 * resolution and reopening of what it decided stand between the race and the file. */
static void a_symlink_swapped_by_an_ungated_process_never_lets_a_write_reach_the_protected_file(void **state) {
  (void)state;
  gh_env e;
  gh_setup(&e);
  pid_t pid = fork();
  if (pid == 0) {
    swapper s = {.e = &e};
    swap_loop(&s);  /* until killed */
    _exit(0);
  }
  assert_int_equal(gh_run(&e, do_writes_only, NULL), 0);
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
  assert_string_equal(gh_read(gh_path(&e, "w/secret.txt")), "secret\n");
  gh_teardown(&e);
}

typedef struct {
  char path[512];
  char good[512], evil[512];
  atomic_bool stop;
} flipper;

static void *flip_loop(void *arg) {
  flipper *f = arg;
  while (!atomic_load(&f->stop)) {
    memcpy(f->path, f->evil, sizeof f->path);
    memcpy(f->path, f->good, sizeof f->path);
  }
  return NULL;
}

static void do_flip(gh_env *e, void *arg) {
  (void)arg;
  flipper f;
  memset(&f, 0, sizeof f);
  snprintf(f.good, sizeof f.good, "%s/good", e->w);
  snprintf(f.evil, sizeof f.evil, "%s/protected/evil", e->w);
  memcpy(f.path, f.good, sizeof f.path);
  pthread_t t;
  gh_check(pthread_create(&t, NULL, flip_loop, &f) == 0, "thread");
  long created = 0;
  for (int i = 0; i < 3000; i++) {
    int fd = open(f.path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      created++;
      close(fd);
    }
  }
  atomic_store(&f.stop, true);
  pthread_join(t, NULL);
  gh_check(created > 0, "some opens saw the good path");
}

static void a_path_buffer_changed_after_the_call_changes_nothing_the_gate_acts_on_its_copy(void **state) {
  (void)state;
  gh_env e;
  gh_setup(&e);
  assert_int_equal(gh_run(&e, do_flip, NULL), 0);
  assert_false(gh_exists(gh_path(&e, "w/protected/evil")));
  assert_true(gh_exists(gh_path(&e, "w/good")));
  gh_teardown(&e);
}

static int group(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(writes_through_symlinks_are_decided_on_the_file_they_reach),
      cmocka_unit_test(o_creat_on_a_dangling_symlink_is_decided_on_its_target),
      cmocka_unit_test(a_hard_link_to_a_protected_file_is_refused),
      cmocka_unit_test(a_symlink_or_a_moved_directory_cannot_put_a_protected_path_under_another_meaning),
      cmocka_unit_test(dev_stderr_dev_fd_and_proc_self_fd_reach_the_callers_own_descriptors),
      cmocka_unit_test(a_symlink_swapped_by_another_thread_never_lets_a_write_reach_the_protected_file),
      cmocka_unit_test(a_symlink_swapped_by_an_ungated_process_never_lets_a_write_reach_the_protected_file),
      cmocka_unit_test(a_path_buffer_changed_after_the_call_changes_nothing_the_gate_acts_on_its_copy),
  };
  return cmocka_run_group_tests_name(gh_user, tests, NULL, NULL);
}

int main(void) { return gh_main(group); }
