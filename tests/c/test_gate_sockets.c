/* needs: linux */
/* tests/c/test_gate_sockets.c — unix sockets by path: connect only to a socket bound inside the run or
 * one a rule names by path; bind decided as a creation; other addresses done as asked; and what may
 * block (a connect waiting for accept, a FIFO waiting for its reader) never stops the gate. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "gate_harness.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <sys/un.h>
#include <time.h>

static struct sockaddr_un un(const char *path, socklen_t *len) {
  struct sockaddr_un a = {.sun_family = AF_UNIX};
  snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
  *len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path) + 1);
  return a;
}

/* A listening socket bound outside the gate, as a host server's. */
static int host_listener(const char *path) {
  int s = socket(AF_UNIX, SOCK_STREAM, 0);
  socklen_t len;
  struct sockaddr_un a = un(path, &len);
  unlink(path);
  if (s < 0 || bind(s, (struct sockaddr *)&a, len) != 0 || listen(s, 16) != 0) gh_die("host listener");
  return s;
}

static int connect_to(const char *path) {
  int s = socket(AF_UNIX, SOCK_STREAM, 0);
  socklen_t len;
  struct sockaddr_un a = un(path, &len);
  int rc = connect(s, (struct sockaddr *)&a, len);
  int err = errno;
  close(s);
  errno = err;
  return rc < 0 ? -errno : 0;
}

static cordon_filter *remote_unix_socket(const char *path) {
  cordon_filter *f = cordon_filter_new(CORDON_F_NETWORK, "remote", CORDON_MATCH_NONE);
  cordon_filter_add_arg(f, "unix-socket", false);
  if (path) {
    cordon_filter *lit = cordon_filter_new(CORDON_F_PATH, "path-literal", CORDON_MATCH_LITERAL);
    cordon_filter_add_arg(lit, path, false);
    cordon_filter_add_child(f, lit);
  }
  return f;
}

static void do_connects(gh_env *e, void *arg) {
  (void)arg;
  gh_check(connect_to(gh_path(e, "w/host.sock")) == -EACCES, "a host socket no rule names");
  gh_check(connect_to(gh_path(e, "w/named.sock")) == 0, "a host socket a filtered rule names by path");
  gh_check(connect_to(gh_path(e, "w/agent.sock")) == 0, "a host socket a synthetic path rule names");
  gh_check(connect_to(gh_path(e, "w/denied.sock")) == -EACCES, "a socket a later deny takes back");
  gh_check(symlink("named.sock", gh_path(e, "w/to-named")) == 0 && connect_to(gh_path(e, "w/to-named")) == 0,
           "through a symlink, decided on the socket");
  gh_check(symlink("host.sock", gh_path(e, "w/to-host")) == 0 && connect_to(gh_path(e, "w/to-host")) == -EACCES,
           "a symlink does not launder a socket");
  int s = socket(AF_UNIX, SOCK_STREAM, 0);
  socklen_t len;
  struct sockaddr_un a = un("inside.sock", &len);
  if (chdir(e->w) != 0) gh_check(0, "chdir");
  gh_check(bind(s, (struct sockaddr *)&a, len) == 0 && listen(s, 4) == 0, "bind inside, by a relative path");
  struct sockaddr_un got;
  socklen_t gl = sizeof got;
  gh_check(getsockname(s, (struct sockaddr *)&got, &gl) == 0 && strcmp(got.sun_path, "inside.sock") == 0,
           "the socket keeps the caller's own address (%s)", got.sun_path);
  gh_check(connect_to("inside.sock") == 0 && connect_to(gh_path(e, "w/inside.sock")) == 0, "a socket bound inside");
  close(s);
  gh_check(unlink("inside.sock") == 0, "unlink");
  s = socket(AF_UNIX, SOCK_STREAM, 0);
  a = un("/proc/self/cwd/via-proc.sock", &len);
  gh_check(bind(s, (struct sockaddr *)&a, len) == 0 && listen(s, 4) == 0, "bind through /proc/self/cwd");
  gh_check(connect_to(gh_path(e, "w/via-proc.sock")) == 0, "and connect to it");
  close(s);
  /* abstract and other families: as asked */
  s = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un ab = {.sun_family = AF_UNIX};
  memcpy(ab.sun_path, "\0cordon-gate-test", 17);
  gh_check(connect(s, (struct sockaddr *)&ab, offsetof(struct sockaddr_un, sun_path) + 17) == 0,
           "an abstract socket is connected as asked");
  close(s);
  s = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in in = {.sin_family = AF_INET, .sin_port = htons(*(int *)arg)};
  in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  gh_check(connect(s, (struct sockaddr *)&in, sizeof in) == 0, "TCP is connected as asked");
  close(s);
}

static void connect_reaches_only_sockets_bound_inside_or_named_by_a_path_rule(void **state) {
  (void)state;
  gh_env e;
  gh_setup(&e);
  char named[512], agent[512], denied[512];
  snprintf(named, sizeof named, "%s/named.sock", e.w);
  snprintf(agent, sizeof agent, "%s/agent.sock", e.w);
  snprintf(denied, sizeof denied, "%s/denied.sock", e.w);
  gh_grule_filter(&e, CORDON_ALLOW, gh_levels_connect, remote_unix_socket(named), "test:10 (allow network-outbound (remote unix-socket (path-literal named)))");
  gh_grule(&e, CORDON_ALLOW, gh_levels_connect, "w/agent.sock", false, "test:11 (ssh integration)");
  gh_grule(&e, CORDON_ALLOW, gh_levels_connect, "w/denied.sock", false, "test:12");
  gh_grule(&e, CORDON_DENY, gh_levels_connect, "w/denied.sock", false, "test:13 (deny it again)");
  int l[5] = {host_listener(gh_path(&e, "w/host.sock")), host_listener(named), host_listener(agent),
              host_listener(denied), -1};
  int ab = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un a = {.sun_family = AF_UNIX};
  memcpy(a.sun_path, "\0cordon-gate-test", 17);
  assert_int_equal(bind(ab, (struct sockaddr *)&a, offsetof(struct sockaddr_un, sun_path) + 17), 0);
  assert_int_equal(listen(ab, 4), 0);
  int tcp = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in in = {.sin_family = AF_INET};
  in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t il = sizeof in;
  assert_int_equal(bind(tcp, (struct sockaddr *)&in, sizeof in), 0);
  assert_int_equal(listen(tcp, 4), 0);
  assert_int_equal(getsockname(tcp, (struct sockaddr *)&in, &il), 0);
  int port = ntohs(in.sin_port);
  assert_int_equal(gh_run(&e, do_connects, &port), 0);
  for (int i = 0; l[i] >= 0; i++) close(l[i]);
  close(ab), close(tcp);
  assert_non_null(strstr(e.msgs, "cordon: refused connect"));
  assert_non_null(strstr(e.msgs, "host.sock"));
  assert_non_null(strstr(e.msgs, "test:13 (deny it again)"));
  gh_teardown(&e);
}

static void do_unfiltered(gh_env *e, void *arg) {
  (void)arg;
  gh_check(connect_to(gh_path(e, "w/host.sock")) == -EACCES, "an unfiltered allow, or (remote unix-socket) alone, "
           "names no socket");
}

static void an_unfiltered_or_pathless_network_allow_reaches_no_socket_by_path(void **state) {
  (void)state;
  gh_env e;
  gh_setup(&e);
  if (!cordon_lx_plan_add_grule(e.plan, CORDON_ALLOW, gh_levels_connect, NULL, NULL, false, "test:20 (allow network-outbound)", NULL, 0))
    gh_die("grule");
  int l1 = host_listener(gh_path(&e, "w/host.sock"));
  assert_int_equal(gh_run(&e, do_unfiltered, NULL), 0);
  assert_non_null(strstr(e.msgs, "(test:20 (allow network-outbound))"));
  gh_teardown(&e);
  gh_setup(&e);
  gh_grule_filter(&e, CORDON_ALLOW, gh_levels_connect, remote_unix_socket(NULL), "test:21 (allow network-outbound (remote unix-socket))");
  int l2 = host_listener(gh_path(&e, "w/host.sock"));
  assert_int_equal(gh_run(&e, do_unfiltered, NULL), 0);
  close(l1), close(l2);
  gh_teardown(&e);
}

/* --- what may block --------------------------------------------------------------------------------- */
typedef struct {
  const char *path;
  int result;
} blocked;

static void *connect_second(void *arg) {
  blocked *b = arg;
  int c1 = socket(AF_UNIX, SOCK_STREAM, 0), c2 = socket(AF_UNIX, SOCK_STREAM, 0);
  socklen_t len;
  struct sockaddr_un a = un(b->path, &len);
  b->result = connect(c1, (struct sockaddr *)&a, len) == 0 && connect(c2, (struct sockaddr *)&a, len) == 0;
  close(c1), close(c2);
  return NULL;
}

static void *open_fifo_write(void *arg) {
  blocked *b = arg;
  int fd = open(b->path, O_WRONLY);
  b->result = fd >= 0 && write(fd, "F", 1) == 1;
  close(fd);
  return NULL;
}

static void do_blocking(gh_env *e, void *arg) {
  (void)arg;
  if (chdir(e->w) != 0) gh_check(0, "chdir");
  int s = socket(AF_UNIX, SOCK_STREAM, 0);
  socklen_t len;
  struct sockaddr_un a = un("slow.sock", &len);
  gh_check(bind(s, (struct sockaddr *)&a, len) == 0 && listen(s, 0) == 0, "a listener with no backlog");
  blocked b = {.path = "slow.sock"};
  pthread_t t;
  gh_check(pthread_create(&t, NULL, connect_second, &b) == 0, "thread");
  usleep(200 * 1000);  /* the second connect now waits for an accept */
  int fd = open("served-meanwhile", O_WRONLY | O_CREAT, 0644);
  gh_check(fd >= 0, "the gate serves other calls while a connect waits");
  close(fd);
  int c = accept(s, NULL, NULL);
  gh_check(c >= 0, "accept");
  int c2 = accept(s, NULL, NULL);
  pthread_join(t, NULL);
  gh_check(b.result, "both connects completed");
  close(c), close(c2), close(s);
  gh_check(mkfifo("fifo", 0600) == 0, "mkfifo");
  blocked f = {.path = "fifo"};
  gh_check(pthread_create(&t, NULL, open_fifo_write, &f) == 0, "thread");
  usleep(200 * 1000);  /* the writer now waits for a reader */
  fd = open("served-too", O_WRONLY | O_CREAT, 0644);
  gh_check(fd >= 0, "the gate serves other calls while a FIFO open waits");
  close(fd);
  int r = open("fifo", O_RDONLY);  /* not gated: a read */
  char ch = 0;
  pthread_join(t, NULL);
  gh_check(r >= 0 && read(r, &ch, 1) == 1 && ch == 'F' && f.result, "the writer got through");
  close(r);
}

static void what_may_block_runs_on_a_worker_and_never_stops_the_gate(void **state) {
  (void)state;
  gh_env e;
  gh_setup(&e);
  assert_int_equal(gh_run(&e, do_blocking, NULL), 0);
  assert_true(gh_exists(gh_path(&e, "w/served-meanwhile")));
  assert_true(gh_exists(gh_path(&e, "w/served-too")));
  gh_teardown(&e);
}

static void on_alarm(int sig) { (void)sig; }

static void do_interrupted(gh_env *e, void *arg) {
  (void)arg;
  if (chdir(e->w) != 0) gh_check(0, "chdir");
  gh_check(mkfifo("fifo", 0600) == 0, "mkfifo");
  struct sigaction sa = {.sa_handler = on_alarm};  /* no SA_RESTART */
  sigemptyset(&sa.sa_mask);
  sigaction(SIGALRM, &sa, NULL);
  alarm(1);
  gh_check(open("fifo", O_WRONLY) < 0 && errno == EINTR, "a signal interrupts a waiting FIFO open, as the kernel's");
  /* the worker gave the open up: a reader now finds no writer */
  usleep(600 * 1000);
  int r = open("fifo", O_RDONLY | O_NONBLOCK);
  char ch;
  gh_check(r >= 0 && read(r, &ch, 1) == 0, "no writer is left behind");
  close(r);
}

static void an_interrupted_blocking_open_is_given_up_by_its_worker(void **state) {
  (void)state;
  gh_env e;
  gh_setup(&e);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  assert_int_equal(gh_run(&e, do_interrupted, NULL), 0);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  assert_true(t1.tv_sec - t0.tv_sec < 10);
  gh_teardown(&e);
}

static void do_killed_writer(gh_env *e, void *arg) {
  (void)arg;
  if (chdir(e->w) != 0) gh_check(0, "chdir");
  gh_check(mkfifo("fifo", 0600) == 0, "mkfifo");
  pid_t pid = fork();
  if (pid == 0) {
    (void)open("fifo", O_WRONLY);  /* waits for a reader that never comes */
    _exit(0);
  }
  usleep(300 * 1000);
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
  usleep(600 * 1000);  /* a few of the workers' ticks */
  int r = open("fifo", O_RDONLY | O_NONBLOCK);
  char ch;
  gh_check(r >= 0 && read(r, &ch, 1) == 0, "the killed writer's worker is gone");
  close(r);
}

static void a_worker_waiting_for_a_killed_caller_gives_up(void **state) {
  (void)state;
  gh_env e;
  gh_setup(&e);
  assert_int_equal(gh_run(&e, do_killed_writer, NULL), 0);
  gh_teardown(&e);
}

static int group(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(connect_reaches_only_sockets_bound_inside_or_named_by_a_path_rule),
      cmocka_unit_test(an_unfiltered_or_pathless_network_allow_reaches_no_socket_by_path),
      cmocka_unit_test(what_may_block_runs_on_a_worker_and_never_stops_the_gate),
      cmocka_unit_test(an_interrupted_blocking_open_is_given_up_by_its_worker),
      cmocka_unit_test(a_worker_waiting_for_a_killed_caller_gives_up),
  };
  return cmocka_run_group_tests_name(gh_user, tests, NULL, NULL);
}

int main(void) { return gh_main(group); }
