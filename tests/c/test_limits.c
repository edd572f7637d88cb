/* needs: linux */
/* tests/c/test_limits.c — --limit specs and sizes, the rlimits a command gets, the PID namespace's own
 * pid_max, and the run's cgroup on this machine's real cgroup v2 hierarchy (limits.h). Kernel effects
 * run in children; the machine's own settings are checked unchanged afterwards. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "backend/linux/limits.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

static bool size_of(const char *s, unsigned long long *v) { return cordon_lx_size_parse(s, strlen(s), v); }

static void sizes_take_powers_of_1024_and_percentages_of_memory(void **state) {
  (void)state;
  unsigned long long v;
  assert_true(size_of("0", &v) && v == 0);
  assert_true(size_of("1048576", &v) && v == 1048576);
  assert_true(size_of("4K", &v) && v == 4096);
  assert_true(size_of("4k", &v) && v == 4096);
  assert_true(size_of("4KB", &v) && v == 4096);
  assert_true(size_of("4KiB", &v) && v == 4096);
  assert_true(size_of("512M", &v) && v == 512ull << 20);
  assert_true(size_of("2G", &v) && v == 2ull << 30);
  assert_true(size_of("1T", &v) && v == 1ull << 40);
  unsigned long long total = (unsigned long long)sysconf(_SC_PHYS_PAGES) * (unsigned long long)sysconf(_SC_PAGESIZE);
  assert_true(size_of("50%", &v) && v <= total / 2 && v + total / 100 >= total / 2);
  assert_true(size_of("100%", &v) && v <= total);
}

static void malformed_sizes_are_refused_rather_than_guessed(void **state) {
  (void)state;
  unsigned long long v;
  const char *bad[] = {"", "G", "1.5G", "4X", "4KBB", "4iB", "-1", " 4G", "4G ", "0x10", "101%", "5%%",
                       "99999999999999999999", "16777216T", "4 G", NULL};
  for (int i = 0; bad[i]; i++)
    if (size_of(bad[i], &v)) fail_msg("'%s' parsed as %llu", bad[i], v);
}

static bool spec(cordon_lx_limits *l, const char *s, cordon_buf *msg) { return cordon_lx_limits_parse(l, s, strlen(s), msg); }

static void a_spec_sets_the_limits_it_names_and_later_items_win(void **state) {
  (void)state;
  cordon_lx_limits l = {0};
  cordon_buf msg = CORDON_BUF_INIT;
  assert_true(spec(&l, "procs=4096", &msg));
  assert_true(spec(&l, "memory=2G,cpu=30", &msg));
  assert_int_equal(l.procs, 4096);
  assert_true(l.memory == 2ull << 30);
  assert_int_equal(l.cpu, 30);
  assert_true(spec(&l, "procs=10,procs=20", &msg));
  assert_int_equal(l.procs, 20);
  assert_true(l.memory == 2ull << 30);  /* untouched by a spec that does not name it */
  assert_true(spec(&l, "procs=0", &msg));
  assert_int_equal(l.procs, 0);
  assert_int_equal(l.cpu, 30);
  assert_true(spec(&l, "none,cpu=5", &msg));
  assert_true(l.procs == 0 && l.memory == 0 && l.cpu == 5);
  assert_true(spec(&l, "none", &msg));
  assert_true(l.procs == 0 && l.memory == 0 && l.cpu == 0);
  assert_int_equal(msg.len, 0);
  cordon_buf_free(&msg);
}

static void a_bad_spec_says_which_item_and_changes_nothing(void **state) {
  (void)state;
  struct {
    const char *spec, *says;
  } cases[] = {
      {"procs=-1", "procs=-1': procs takes a whole number"},
      {"procs=abc", "procs takes a whole number"},
      {"procs=5000000", "to 4194304"},
      {"procs", "procs takes a whole number"},
      {"memory=512", "at least 1M"},
      {"memory=4Q", "memory=4Q"},
      {"cpu=", "cpu takes whole CPU seconds"},
      {"cpu=1h", "cpu takes whole CPU seconds"},
      {"files=10", "unknown limit"},
      {"procs=1,,cpu=2", "an empty item"},
      {"", "an empty item"},
      {"procs=1,", "an empty item"},
      {"procs=5,memory=1", "memory=1"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    cordon_lx_limits l = {.procs = 7, .memory = 7 << 20, .cpu = 7};
    cordon_buf msg = CORDON_BUF_INIT;
    if (spec(&l, cases[i].spec, &msg)) fail_msg("'%s' was accepted", cases[i].spec);
    if (!strstr(cordon_buf_str(&msg), cases[i].says)) fail_msg("'%s': %s", cases[i].spec, cordon_buf_str(&msg));
    assert_true(l.procs == 7 && l.memory == 7 << 20 && l.cpu == 7);
    cordon_buf_free(&msg);
  }
}

static void a_nul_inside_a_spec_is_refused_not_cut_short(void **state) {
  (void)state;
  cordon_lx_limits l = {0};
  cordon_buf msg = CORDON_BUF_INIT;
  assert_false(cordon_lx_limits_parse(&l, "procs=5\0memory=1G", 17, &msg));
  assert_non_null(strstr(cordon_buf_str(&msg), "NUL"));
  assert_int_equal(l.procs, 0);
  unsigned long long v;
  assert_false(cordon_lx_size_parse("4G\0", 3, &v));
  cordon_buf_free(&msg);
}

static void limits_read_back_in_the_largest_unit_that_divides_them(void **state) {
  (void)state;
  cordon_buf d = CORDON_BUF_INIT;
  cordon_lx_limits_describe(&(cordon_lx_limits){.procs = 4096, .memory = 8ull << 30, .cpu = 0}, &d);
  assert_string_equal(cordon_buf_str(&d), "procs=4096 memory=8G cpu=none");
  cordon_buf_reset(&d);
  cordon_lx_limits_describe(&(cordon_lx_limits){.procs = 0, .memory = 1536ull << 20, .cpu = 60}, &d);
  assert_string_equal(cordon_buf_str(&d), "procs=none memory=1536M cpu=60");
  cordon_buf_reset(&d);
  cordon_lx_size_describe(1000, &d);
  assert_string_equal(cordon_buf_str(&d), "1000");
  cordon_buf_free(&d);
}

/* Runs `fn` in a child; its exit status 0 is success. */
static void in_child(int (*fn)(void)) {
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) _exit(fn());
  int st;
  assert_int_equal(waitpid(pid, &st, 0), pid);
  assert_true(WIFEXITED(st));
  assert_int_equal(WEXITSTATUS(st), 0);
}

static bool limit_is(int res, rlim_t soft, rlim_t hard) {
  struct rlimit r;
  return getrlimit(res, &r) == 0 && r.rlim_cur == soft && r.rlim_max == hard;
}

static int apply_child(void) {
  cordon_lx_limits l = {.procs = 50, .memory = 1ull << 30, .cpu = 7};
  cordon_buf msg = CORDON_BUF_INIT;
  if (cordon_lx_limits_apply(&l, NULL, &msg) != CORDON_LX_OK) return 1;
  if (!limit_is(RLIMIT_NPROC, 50, 50) || !limit_is(RLIMIT_DATA, 1ull << 30, 1ull << 30)) return 2;
  if (!limit_is(RLIMIT_CPU, 7, 8)) return 3;  /* SIGXCPU at 7 s, SIGKILL at 8 */
  return 0;
}

static void apply_sets_the_rlimits_a_command_runs_under(void **state) {
  (void)state;
  in_child(apply_child);
}

static int never_raise_child(void) {
  struct rlimit r = {20, 30};
  if (setrlimit(RLIMIT_NPROC, &r) != 0) return 1;
  cordon_lx_limits l = {.procs = 50, .memory = 0, .cpu = 0};
  cordon_buf msg = CORDON_BUF_INIT;
  if (cordon_lx_limits_apply(&l, NULL, &msg) != CORDON_LX_OK) return 2;
  return limit_is(RLIMIT_NPROC, 20, 30) ? 0 : 3;
}

static void apply_never_raises_a_limit_the_caller_already_has_lower(void **state) {
  (void)state;
  in_child(never_raise_child);
}

static int held_child(void) {
  struct rlimit before;
  getrlimit(RLIMIT_NPROC, &before);
  cordon_lx_limits l = {.procs = 50, .memory = 1ull << 30, .cpu = 0};
  cordon_lx_limits_run run = CORDON_LX_LIMITS_RUN_INIT;
  run.held = CORDON_LX_LIMIT_PROCS | CORDON_LX_LIMIT_MEMORY;
  cordon_buf msg = CORDON_BUF_INIT;
  if (cordon_lx_limits_apply(&l, &run, &msg) != CORDON_LX_OK) return 1;
  return limit_is(RLIMIT_NPROC, before.rlim_cur, before.rlim_max) && limit_is(RLIMIT_DATA, RLIM_INFINITY, RLIM_INFINITY)
             ? 0 : 2;
}

static void what_the_cgroup_holds_is_not_also_an_rlimit(void **state) {
  (void)state;
  in_child(held_child);
}

static long read_number(const char *path) {
  FILE *f = fopen(path, "re");
  long v = -1;
  if (f && fscanf(f, "%ld", &v) != 1) v = -1;
  if (f) fclose(f);
  return v;
}

static bool kernel_at_least(unsigned major, unsigned minor) {
  struct utsname u;
  unsigned a = 0, b = 0;
  return uname(&u) == 0 && sscanf(u.release, "%u.%u", &a, &b) == 2 && (a > major || (a == major && b >= minor));
}

/* pid 1 of a new PID namespace: enter caps it; then count the forks it gets */
static int pidns_init(void) {
  cordon_lx_limits l = {.procs = 40, .memory = 0, .cpu = 0};
  cordon_buf msg = CORDON_BUF_INIT;
  if (getpid() != 1 || cordon_lx_limits_enter(&l, NULL, &msg) != CORDON_LX_OK) return 10;
  if (read_number("/proc/sys/kernel/pid_max") != 340) return 11;
  int made = 0;
  for (int i = 0; i < 400; i++) {
    pid_t p = fork();
    if (p == 0) {
      pause();
      _exit(0);
    }
    if (p < 0) break;
    made++;
  }
  return made >= 40 && made < 340 ? 0 : 12;  /* init's exit kills them all */
}

static int pidns_child(void) {
  if (unshare(CLONE_NEWPID) != 0) return 20;
  pid_t pid = fork();
  if (pid == 0) _exit(pidns_init());
  int st;
  return waitpid(pid, &st, 0) == pid && WIFEXITED(st) ? WEXITSTATUS(st) : 21;
}

static int outside_child(void) {
  cordon_lx_limits l = {.procs = 40, .memory = 0, .cpu = 0};
  cordon_buf msg = CORDON_BUF_INIT;
  return cordon_lx_limits_enter(&l, NULL, &msg) == CORDON_LX_OK ? 0 : 1;  /* not pid 1: must do nothing */
}

static void enter_caps_the_runs_pid_namespace_and_never_the_machines(void **state) {
  (void)state;
  long host = read_number("/proc/sys/kernel/pid_max");
  in_child(outside_child);
  assert_int_equal(read_number("/proc/sys/kernel/pid_max"), host);
  if (geteuid() != 0 || !kernel_at_least(6, 14)) {
    assert_int_equal(read_number("/proc/sys/kernel/pid_max"), host);
    skip();
    return;
  }
  in_child(pidns_child);
  assert_int_equal(read_number("/proc/sys/kernel/pid_max"), host);
}

/* --- the run's cgroup -------------------------------------------------------------------------------- */
static char mount_point[4096], own[4096];

static bool have_cgroup2(void) { return cordon_lx_cgroup_self(mount_point, sizeof mount_point, own, sizeof own); }

static void this_process_finds_its_cgroup_v2_hierarchy(void **state) {
  (void)state;
  if (!have_cgroup2()) {
    skip();
    return;
  }
  char path[8400];
  snprintf(path, sizeof path, "%s%s/cgroup.procs", mount_point, strcmp(own, "/") == 0 ? "" : own);
  FILE *f = fopen(path, "re");
  assert_non_null(f);
  bool listed = false;
  long pid;
  while (fscanf(f, "%ld", &pid) == 1) listed = listed || pid == getpid();
  fclose(f);
  assert_true(listed);  /* the directory found is the one this process is in */
}

static cordon_lx_limits_run joining;
static int join_from_a_run(void) {
  /* as the runtime will: a new user and PID namespace, init joins through the descriptor cordon opened */
  cordon_lx_limits_run *run = &joining;
  if (unshare(CLONE_NEWUSER | CLONE_NEWPID) != 0) return 30;
  pid_t pid = fork();
  if (pid == 0) {
    cordon_buf msg = CORDON_BUF_INIT;
    if (!cordon_lx_cgroup_join(run, &msg)) _exit(31);
    FILE *f = fopen("/proc/self/cgroup", "re");
    char line[4200];
    bool in = false;
    while (f && fgets(line, sizeof line, f)) in = in || (strncmp(line, "0::/", 4) == 0 && strstr(line, "/cordon-"));
    if (f) fclose(f);
    _exit(in ? 0 : 32);
  }
  int st;
  return waitpid(pid, &st, 0) == pid && WIFEXITED(st) ? WEXITSTATUS(st) : 33;
}

static void the_runs_cgroup_is_joined_from_inside_the_run_and_removed_after(void **state) {
  (void)state;
  if (!have_cgroup2() || geteuid() != 0) {
    skip();
    return;
  }
  cordon_lx_limits_run run = CORDON_LX_LIMITS_RUN_INIT;
  const char *why = NULL;
  /* no controller asked: the mechanics alone (where it goes, the descriptor, the removal) */
  if (!cordon_lx_cgroup_create(mount_point, own, "", NULL, 0, &run, &why)) {
    print_message("no cgroup here (%s)\n", why);
    skip();
    return;
  }
  struct stat st;
  assert_int_equal(stat(run.dir, &st), 0);
  assert_true(run.procs_fd >= 0);
  joining = run;
  in_child(join_from_a_run);
  cordon_lx_limits l = {0};
  cordon_buf report = CORDON_BUF_INIT;
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", run.dir);
  cordon_lx_cgroup_remove(&run, &l, &report);
  assert_int_equal(report.len, 0);
  assert_int_equal(stat(dir, &st), -1);  /* gone */
  assert_null(run.dir);
  cordon_buf_free(&report);
}

static void without_a_delegated_controller_there_is_no_cgroup_and_the_run_still_gets_its_limits(void **state) {
  (void)state;
  cordon_lx_limits l = {.procs = 64, .memory = 0, .cpu = 0};
  cordon_lx_limits_run run;
  cordon_lx_limits_prepare(&l, &run);
  if (run.held) {  /* a machine with delegation: the cgroup holds the limit */
    struct stat st;
    assert_int_equal(stat(run.dir, &st), 0);
    cordon_buf report = CORDON_BUF_INIT;
    cordon_lx_limits_release(&l, &run, &report);
    cordon_buf_free(&report);
    return;
  }
  assert_null(run.dir);
  assert_int_equal(run.procs_fd, -1);
  assert_non_null(run.why);
  print_message("no cgroup: %s\n", run.why);
}

/* A stand-in hierarchy of plain directories: the parent is chosen, a cgroup made and, when a limit file
 * is missing (as it would be without the controller), removed again. */
static char fake[128];
static void mkfile(const char *rel, const char *text) {
  char p[300];
  snprintf(p, sizeof p, "%s/%s", fake, rel);
  FILE *f = fopen(p, "we");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static void the_cgroup_goes_beside_cordons_own_and_nothing_half_made_is_left(void **state) {
  (void)state;
  /* under a directory of its own: an entry made in /var/tmp itself would make the enforcement tests'
   * run-cache hits miss (their workdir's ancestors are listed) while ctest runs them alongside */
  if (mkdir("/var/tmp/cordon-tests", 0755) != 0) assert_int_equal(errno, EEXIST);
  snprintf(fake, sizeof fake, "/var/tmp/cordon-tests/cgroup.%ld", (long)getpid());
  char p[300];
  assert_int_equal(mkdir(fake, 0755), 0);
  snprintf(p, sizeof p, "%s/user.slice", fake);
  assert_int_equal(mkdir(p, 0755), 0);
  snprintf(p, sizeof p, "%s/user.slice/term.scope", fake);
  assert_int_equal(mkdir(p, 0755), 0);
  mkfile("user.slice/cgroup.subtree_control", "cpu memory pids\n");
  mkfile("user.slice/cgroup.procs", "");
  /* a dead cordon's leftover is swept; a live one's is not */
  snprintf(p, sizeof p, "%s/user.slice/cordon-4194000-0", fake);
  assert_int_equal(mkdir(p, 0755), 0);
  char live[300];
  snprintf(live, sizeof live, "%s/user.slice/cordon-%ld-9", fake, (long)getppid());
  assert_int_equal(mkdir(live, 0755), 0);

  cordon_lx_limits_run run = CORDON_LX_LIMITS_RUN_INIT;
  const char *why = NULL;
  const cordon_lx_cgroup_setting s[] = {{"pids.max", "64", false}};
  assert_false(cordon_lx_cgroup_create(fake, "/user.slice/term.scope", "pids", s, 1, &run, &why));
  assert_string_equal(why, "cannot set a limit in the run's cgroup");  /* it got as far as making one */
  assert_null(run.dir);
  struct stat st;
  assert_int_equal(stat(p, &st), -1);     /* swept */
  assert_int_equal(stat(live, &st), 0);   /* kept */
  snprintf(p, sizeof p, "%s/user.slice/cordon-%ld-0", fake, (long)getpid());
  assert_int_equal(stat(p, &st), -1);     /* its own half-made cgroup removed again */
  assert_false(cordon_lx_cgroup_create(fake, "/user.slice/term.scope", "pids io", s, 1, &run, &why));
  assert_non_null(strstr(why, "not enabled"));

  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", fake);
  assert_int_equal(system(cmd), 0);
}

static void release_says_which_limit_the_run_reached(void **state) {
  (void)state;
  if (mkdir("/var/tmp/cordon-tests", 0755) != 0) assert_int_equal(errno, EEXIST);
  snprintf(fake, sizeof fake, "/var/tmp/cordon-tests/events.%ld", (long)getpid());
  assert_int_equal(mkdir(fake, 0755), 0);
  mkfile("pids.events", "max 3\n");
  mkfile("memory.events", "low 0\nhigh 0\nmax 9\noom 1\noom_kill 1\noom_group_kill 0\n");
  cordon_lx_limits l = {.procs = 64, .memory = 2ull << 30, .cpu = 0};
  cordon_lx_limits_run run = CORDON_LX_LIMITS_RUN_INIT;
  run.dir = strdup(fake);
  run.held = CORDON_LX_LIMIT_PROCS | CORDON_LX_LIMIT_MEMORY;
  cordon_buf report = CORDON_BUF_INIT;
  cordon_lx_limits_release(&l, &run, &report);
  const char *r = cordon_buf_str(&report);
  assert_non_null(strstr(r, "the run reached its process limit (procs=64): 3 forks refused"));
  assert_non_null(strstr(r, "the run reached its memory limit (memory=2G): the kernel killed 1 process\n"));
  assert_non_null(strstr(r, "cannot remove"));  /* a plain directory with files: not a cgroup */
  assert_null(run.dir);
  cordon_buf_free(&report);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", fake);
  assert_int_equal(system(cmd), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(sizes_take_powers_of_1024_and_percentages_of_memory),
      cmocka_unit_test(malformed_sizes_are_refused_rather_than_guessed),
      cmocka_unit_test(a_spec_sets_the_limits_it_names_and_later_items_win),
      cmocka_unit_test(a_bad_spec_says_which_item_and_changes_nothing),
      cmocka_unit_test(a_nul_inside_a_spec_is_refused_not_cut_short),
      cmocka_unit_test(limits_read_back_in_the_largest_unit_that_divides_them),
      cmocka_unit_test(apply_sets_the_rlimits_a_command_runs_under),
      cmocka_unit_test(apply_never_raises_a_limit_the_caller_already_has_lower),
      cmocka_unit_test(what_the_cgroup_holds_is_not_also_an_rlimit),
      cmocka_unit_test(enter_caps_the_runs_pid_namespace_and_never_the_machines),
      cmocka_unit_test(this_process_finds_its_cgroup_v2_hierarchy),
      cmocka_unit_test(the_runs_cgroup_is_joined_from_inside_the_run_and_removed_after),
      cmocka_unit_test(without_a_delegated_controller_there_is_no_cgroup_and_the_run_still_gets_its_limits),
      cmocka_unit_test(the_cgroup_goes_beside_cordons_own_and_nothing_half_made_is_left),
      cmocka_unit_test(release_says_which_limit_the_run_reached),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
