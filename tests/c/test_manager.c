/* tests/c/test_manager.c — sandbox selection, typed failures, never a downgrade, the registry, exec. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "backend/manager.h"
#include "backend/seatbelt.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *const roots[] = {"/w"};
static const cordon_profile_ctx ctx = {"/w", roots, 1, "/tmp/t", "/h", NULL};
static const char *const argv[] = {"echo", "hi"};
static const char *const env[] = {"PATH=/usr/bin:/bin", "LANG=C", NULL};

static cordon_profile *standard(const char *name) {
  cordon_profile *p = NULL;
  assert_int_equal(cordon_profile_standard(name, &p), CORDON_PROFILE_OK);
  return p;
}

/* A registry whose darwin backend has a helper that exists (/bin/sh stands in), and no Linux backend. */
static cordon_backend test_seatbelt;
static cordon_backend_registry test_registry;

static int setup(void **state) {
  (void)state;
  cordon_seatbelt_backend_init(&test_seatbelt, "/bin/sh");
  cordon_backend_registry_init(&test_registry);
  cordon_backend_register(&test_registry, &test_seatbelt);
  return 0;
}

/* Transforms `argv` under `pref` on `platform`; checks the status, and that a failure leaves nothing
 * that could be run (never a downgrade to host execution). */
static void expect(const char *profile, cordon_preference pref, const char *platform, cordon_sandbox_status want,
                   const char *want_type) {
  cordon_profile *p = profile ? standard(profile) : cordon_profile_new(CORDON_PROFILE_DISABLED);
  cordon_manager m = {pref, platform, &test_registry};
  cordon_sandbox_command cmd = {argv, 2, "/w", env, p, &ctx, NULL, NULL, false, false, NULL, {0, 0, 0}, NULL, 0, NULL};
  cordon_exec_request req;
  cordon_buf msg = CORDON_BUF_INIT;
  cordon_sandbox_status st = cordon_manager_transform(&m, &cmd, &req, &msg);
  if (st != want)
    fail_msg("%s/%s/%s: got %s (%s), want %s", profile ? profile : "disabled", cordon_preference_name(pref), platform,
             cordon_sandbox_status_name(st), cordon_buf_str(&msg), cordon_sandbox_status_name(want));
  if (st == CORDON_SANDBOX_OK) {
    assert_string_equal(req.sandbox_type, want_type);
    assert_string_equal(req.cwd, "/w");
    assert_int_equal(req.envc, 2);
  } else {
    assert_null(req.argv);
    assert_null(req.sandbox_type);
    assert_true(msg.len > 0);
  }
  cordon_exec_request_free(&req);
  cordon_buf_free(&msg);
  cordon_profile_free(p);
}

static void preferences_parse_and_print(void **state) {
  (void)state;
  assert_int_equal(cordon_preference_parse("auto"), CORDON_PREFER_AUTO);
  assert_int_equal(cordon_preference_parse("require"), CORDON_PREFER_REQUIRE);
  assert_int_equal(cordon_preference_parse("forbid"), CORDON_PREFER_FORBID);
  assert_int_equal(cordon_preference_parse("sometimes"), -1);
  assert_string_equal(cordon_preference_name(CORDON_PREFER_FORBID), "forbid");
}

static void auto_sandboxes_restricted_profiles_and_only_those(void **state) {
  (void)state;
  expect("workspace-write", CORDON_PREFER_AUTO, "darwin", CORDON_SANDBOX_OK, "macos-seatbelt");
  expect("read-only", CORDON_PREFER_AUTO, "darwin", CORDON_SANDBOX_OK, "macos-seatbelt");
  expect("danger-full-access", CORDON_PREFER_AUTO, "darwin", CORDON_SANDBOX_OK, "none");
  expect(NULL, CORDON_PREFER_AUTO, "darwin", CORDON_SANDBOX_OK, "none");
}

static void require_forces_the_platform_backend(void **state) {
  (void)state;
  expect("danger-full-access", CORDON_PREFER_REQUIRE, "darwin", CORDON_SANDBOX_OK, "macos-seatbelt");
}

static void forbid_runs_on_the_host_only_what_needs_no_sandbox(void **state) {
  (void)state;
  expect("danger-full-access", CORDON_PREFER_FORBID, "darwin", CORDON_SANDBOX_OK, "none");
  expect("workspace-write", CORDON_PREFER_FORBID, "darwin", CORDON_SANDBOX_REQUIRED, NULL);
  expect("read-only", CORDON_PREFER_FORBID, "freebsd", CORDON_SANDBOX_REQUIRED, NULL);
}

static void other_platforms_are_unsupported_when_a_sandbox_is_needed(void **state) {
  (void)state;
  expect("workspace-write", CORDON_PREFER_AUTO, "freebsd", CORDON_SANDBOX_UNSUPPORTED_PLATFORM, NULL);
  expect("danger-full-access", CORDON_PREFER_REQUIRE, "windows", CORDON_SANDBOX_UNSUPPORTED_PLATFORM, NULL);
  expect("danger-full-access", CORDON_PREFER_AUTO, "freebsd", CORDON_SANDBOX_OK, "none");
}

static void linux_without_its_backend_is_not_implemented(void **state) {
  (void)state;
  expect("workspace-write", CORDON_PREFER_AUTO, "linux", CORDON_SANDBOX_BACKEND_NOT_IMPLEMENTED, NULL);
}

static void a_disabled_profile_under_require_is_an_invalid_request(void **state) {
  (void)state;
  expect(NULL, CORDON_PREFER_REQUIRE, "darwin", CORDON_SANDBOX_INVALID_REQUEST, NULL);
}

static void darwin_without_sandbox_exec_fails_closed(void **state) {
  (void)state;
  if (access(CORDON_SEATBELT_HELPER, F_OK) == 0) skip();  /* a Mac: the helper is there */
  cordon_profile *p = standard("workspace-write");
  cordon_manager m = {CORDON_PREFER_AUTO, "darwin", NULL};  /* the default registration */
  cordon_sandbox_command cmd = {argv, 2, "/w", env, p, &ctx, NULL, NULL, false, false, NULL, {0, 0, 0}, NULL, 0, NULL};
  cordon_exec_request req;
  cordon_buf msg = CORDON_BUF_INIT;
  assert_int_equal(cordon_manager_transform(&m, &cmd, &req, &msg), CORDON_SANDBOX_BACKEND_NOT_AVAILABLE);
  assert_null(req.argv);
  assert_non_null(strstr(cordon_buf_str(&msg), CORDON_SEATBELT_HELPER));
  cordon_buf_free(&msg);
  cordon_profile_free(p);
}

static void bad_commands_are_invalid_requests(void **state) {
  (void)state;
  cordon_profile *p = standard("workspace-write");
  cordon_manager m = {CORDON_PREFER_AUTO, "darwin", &test_registry};
  const char *const empty_arg[] = {""};
  const char *const bad_env[] = {"NOEQUALS", NULL};
  cordon_sandbox_command cases[] = {
    {argv, 0, "/w", env, p, &ctx, NULL, NULL, false, false, NULL, {0, 0, 0}, NULL, 0, NULL},       /* no command */
    {empty_arg, 1, "/w", env, p, &ctx, NULL, NULL, false, false, NULL, {0, 0, 0}, NULL, 0, NULL},  /* empty program name */
    {argv, 2, "w", env, p, &ctx, NULL, NULL, false, false, NULL, {0, 0, 0}, NULL, 0, NULL},        /* relative cwd */
    {argv, 2, NULL, env, p, &ctx, NULL, NULL, false, false, NULL, {0, 0, 0}, NULL, 0, NULL},       /* no cwd */
    {argv, 2, "/w", bad_env, p, &ctx, NULL, NULL, false, false, NULL, {0, 0, 0}, NULL, 0, NULL},   /* env entry without '=' */
    {argv, 2, "/w", env, NULL, &ctx, NULL, NULL, false, false, NULL, {0, 0, 0}, NULL, 0, NULL},    /* no profile */
    {argv, 2, "/w", env, p, NULL, NULL, NULL, false, false, NULL, {0, 0, 0}, NULL, 0, NULL},       /* no context */
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    cordon_exec_request req;
    cordon_buf msg = CORDON_BUF_INIT;
    cordon_sandbox_status st = cordon_manager_transform(&m, &cases[i], &req, &msg);
    if (st != CORDON_SANDBOX_INVALID_REQUEST) fail_msg("case %zu: %s", i, cordon_sandbox_status_name(st));
    assert_null(req.argv);
    cordon_buf_free(&msg);
  }
  cordon_profile_free(p);
}

static void an_assembled_policy_is_passed_through_with_its_parameters(void **state) {
  (void)state;
  cordon_profile *p = standard("workspace-write");
  cordon_manager m = {CORDON_PREFER_AUTO, "darwin", &test_registry};
  cordon_params params = CORDON_PARAMS_INIT;
  assert_true(cordon_params_add(&params, "HOME_DIR", "/h"));
  cordon_sandbox_command cmd = {argv, 2, "/w", env, p, &ctx, "(version 1)\n(deny default)\n", &params, false, false, NULL, {0, 0, 0}, NULL, 0, NULL};
  cordon_exec_request req;
  cordon_buf msg = CORDON_BUF_INIT;
  assert_int_equal(cordon_manager_transform(&m, &cmd, &req, &msg), CORDON_SANDBOX_OK);
  const char *want[] = {"/bin/sh", "-p", "(version 1)\n(deny default)\n", "-DHOME_DIR=/h", "--", "echo", "hi"};
  assert_int_equal(req.argc, 7);
  for (size_t i = 0; i < 7; i++) assert_string_equal(req.argv[i], want[i]);
  cordon_exec_request_free(&req);
  cordon_params_free(&params);
  cordon_buf_free(&msg);
  cordon_profile_free(p);
}

static void the_default_registry_serves_darwin_with_seatbelt(void **state) {
  (void)state;
  cordon_backend_registry r;
  cordon_backend_registry_default(&r);
  const cordon_backend *b = cordon_backend_for_platform(&r, "darwin");
  assert_non_null(b);
  assert_ptr_equal(b, cordon_seatbelt_backend());
  assert_null(cordon_backend_for_platform(&r, "freebsd"));
  /* Linux is served exactly when its backend is linked in. */
  const cordon_backend *lx = cordon_backend_for_platform(&r, "linux");
  if (lx) assert_string_equal(lx->platform, "linux");
}

static void registering_a_platform_again_replaces_its_backend(void **state) {
  (void)state;
  cordon_backend_registry r;
  cordon_backend_registry_init(&r);
  cordon_backend other = test_seatbelt;
  assert_true(cordon_backend_register(&r, &test_seatbelt));
  assert_true(cordon_backend_register(&r, &other));
  assert_int_equal(r.count, 1);
  assert_ptr_equal(cordon_backend_for_platform(&r, "darwin"), &other);
}

static void status_names_are_the_issue_codes(void **state) {
  (void)state;
  assert_string_equal(cordon_sandbox_status_name(CORDON_SANDBOX_UNSUPPORTED_PLATFORM), "unsupported_platform");
  assert_string_equal(cordon_sandbox_status_name(CORDON_SANDBOX_BACKEND_NOT_AVAILABLE), "backend_not_available");
  assert_string_equal(cordon_sandbox_status_name(CORDON_SANDBOX_BACKEND_NOT_IMPLEMENTED), "backend_not_implemented");
  assert_string_equal(cordon_sandbox_status_name(CORDON_SANDBOX_REQUIRED), "sandbox_required");
  assert_string_equal(cordon_sandbox_status_name(CORDON_SANDBOX_INVALID_REQUEST), "invalid_request");
}

/* Runs cordon_exec in a child; returns the child's exit status. */
static int exec_in_child(cordon_exec_request *req) {
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 1);
    cordon_buf msg = CORDON_BUF_INIT;
    int st = cordon_exec(req, &msg);
    _exit(st);
  }
  int ws;
  waitpid(pid, &ws, 0);
  return WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
}

static void host_request(const char *program, cordon_exec_request *req) {
  cordon_profile *p = standard("danger-full-access");
  cordon_manager m = {CORDON_PREFER_AUTO, "darwin", &test_registry};
  const char *const a[] = {program};
  cordon_sandbox_command cmd = {a, 1, "/", env, p, &ctx, NULL, NULL, false, false, NULL, {0, 0, 0}, NULL, 0, NULL};
  cordon_buf msg = CORDON_BUF_INIT;
  assert_int_equal(cordon_manager_transform(&m, &cmd, req, &msg), CORDON_SANDBOX_OK);
  cordon_buf_free(&msg);
  cordon_profile_free(p);
}

static void exec_runs_found_commands_and_reports_127_and_126(void **state) {
  (void)state;
  cordon_exec_request req;
  host_request("true", &req);  /* found through the request env's PATH */
  assert_int_equal(exec_in_child(&req), 0);
  cordon_exec_request_free(&req);
  host_request("cordon-no-such-command", &req);
  assert_int_equal(exec_in_child(&req), 127);
  cordon_exec_request_free(&req);
  char dir[] = "/tmp/cordon-test-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char file[64];
  snprintf(file, sizeof file, "%s/not-executable", dir);
  FILE *f = fopen(file, "w");
  fputs("#!/bin/sh\n", f);
  fclose(f);
  chmod(file, 0644);
  host_request(file, &req);
  assert_int_equal(exec_in_child(&req), 126);  /* no execute bit: even root gets EACCES */
  cordon_exec_request_free(&req);
  unlink(file);
  rmdir(dir);
}

static void a_sandboxed_request_without_its_backend_is_never_run(void **state) {
  (void)state;
  cordon_exec_request req;
  host_request("true", &req);
  req.sandbox_type = "macos-seatbelt";  /* claims a sandbox, but no backend made it */
  cordon_buf msg = CORDON_BUF_INIT;
  assert_int_equal(cordon_exec(&req, &msg), 125);
  assert_true(msg.len > 0);
  cordon_buf_free(&msg);
  cordon_exec_request_free(&req);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(preferences_parse_and_print),
    cmocka_unit_test(auto_sandboxes_restricted_profiles_and_only_those),
    cmocka_unit_test(require_forces_the_platform_backend),
    cmocka_unit_test(forbid_runs_on_the_host_only_what_needs_no_sandbox),
    cmocka_unit_test(other_platforms_are_unsupported_when_a_sandbox_is_needed),
    cmocka_unit_test(linux_without_its_backend_is_not_implemented),
    cmocka_unit_test(a_disabled_profile_under_require_is_an_invalid_request),
    cmocka_unit_test(darwin_without_sandbox_exec_fails_closed),
    cmocka_unit_test(bad_commands_are_invalid_requests),
    cmocka_unit_test(an_assembled_policy_is_passed_through_with_its_parameters),
    cmocka_unit_test(the_default_registry_serves_darwin_with_seatbelt),
    cmocka_unit_test(registering_a_platform_again_replaces_its_backend),
    cmocka_unit_test(status_names_are_the_issue_codes),
    cmocka_unit_test(exec_runs_found_commands_and_reports_127_and_126),
    cmocka_unit_test(a_sandboxed_request_without_its_backend_is_never_run),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
