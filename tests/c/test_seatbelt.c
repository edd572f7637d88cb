/* tests/c/test_seatbelt.c — the Seatbelt backend: policies for the standard profiles (golden files),
 * parameters, deny entries, protected metadata, network, the sandbox-exec wrapper, failing closed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "backend/manager.h"
#include "backend/seatbelt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const roots[] = {"/Users/dev/project"};
static const cordon_profile_ctx mac_ctx = {
  .cwd = "/Users/dev/project",
  .workspace_roots = roots,
  .n_workspace_roots = 1,
  .tmpdir = "/private/var/folders/zz/abc/T",
  .home = "/Users/dev",
  .slash_tmp = NULL,
};

static cordon_profile *standard(const char *name) {
  cordon_profile *p = NULL;
  assert_int_equal(cordon_profile_standard(name, &p), CORDON_PROFILE_OK);
  return p;
}

/* Text of the policy with its parameters first, as `;; -DNAME=VALUE` lines (the golden-file form). */
static char *policy_with_params(const cordon_profile *p, const cordon_profile_ctx *ctx, bool base) {
  cordon_buf text = CORDON_BUF_INIT, msg = CORDON_BUF_INIT, all = CORDON_BUF_INIT;
  cordon_params params = CORDON_PARAMS_INIT;
  cordon_sandbox_status st = cordon_seatbelt_policy(p, ctx, base, &text, &params, &msg);
  if (st != CORDON_SANDBOX_OK) fail_msg("seatbelt policy failed: %s", cordon_buf_str(&msg));
  for (size_t i = 0; i < params.count; i++)
    cordon_buf_printf(&all, ";; -D%s=%s\n", params.items[i].name, params.items[i].value);
  cordon_buf_puts(&all, cordon_buf_str(&text));
  cordon_buf_free(&text);
  cordon_buf_free(&msg);
  cordon_params_free(&params);
  return cordon_buf_take(&all);
}

static char *read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  cordon_buf b = CORDON_BUF_INIT;
  char chunk[4096];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) cordon_buf_append(&b, chunk, n);
  fclose(f);
  return cordon_buf_take(&b);
}

/* Compares with tests/golden/seatbelt/NAME.sb; CORDON_UPDATE_GOLDEN=1 rewrites the file instead. */
static void check_golden(const char *name, const char *got) {
  const char *src = getenv("CORDON_SOURCE_DIR");
  char path[1024];
  snprintf(path, sizeof path, "%s/tests/golden/seatbelt/%s.sb", src ? src : ".", name);
  if (getenv("CORDON_UPDATE_GOLDEN")) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(got, f);
    fclose(f);
    return;
  }
  char *want = read_file(path);
  if (!want) fail_msg("missing golden file %s (run with CORDON_UPDATE_GOLDEN=1 to create it)", path);
  if (strcmp(want, got) != 0) {
    fprintf(stderr, "--- golden %s\n%s\n--- got\n%s\n", path, want, got);
    free(want);
    fail_msg("policy differs from %s", path);
  }
  free(want);
}

static void golden(const char *profile, const char *file, bool base) {
  cordon_profile *p = standard(profile);
  char *got = policy_with_params(p, &mac_ctx, base);
  check_golden(file, got);
  free(got);
  cordon_profile_free(p);
}

static void read_only_policy_matches_its_golden_file(void **state) {
  (void)state;
  golden("read-only", "read-only", true);
}

static void workspace_write_policy_matches_its_golden_file(void **state) {
  (void)state;
  golden("workspace-write", "workspace-write", true);
}

static void danger_full_access_policy_matches_its_golden_file(void **state) {
  (void)state;
  golden("danger-full-access", "danger-full-access", true);
}

static void the_profile_section_alone_matches_its_golden_file(void **state) {
  (void)state;
  golden("workspace-write", "workspace-write-section", false);
}

static void workspace_write_denies_by_default_and_passes_roots_as_parameters(void **state) {
  (void)state;
  cordon_profile *p = standard("workspace-write");
  char *text = policy_with_params(p, &mac_ctx, true);
  assert_non_null(strstr(text, "(version 1)\n"));
  assert_non_null(strstr(text, "(deny default)\n"));
  assert_non_null(strstr(text, ";; -DWRITABLE_ROOT_0=/Users/dev/project\n"));
  assert_non_null(strstr(text, ";; -DWRITABLE_ROOT_1=/private/var/folders/zz/abc/T\n"));
  assert_non_null(strstr(text, ";; -DWRITABLE_ROOT_2=/private/tmp\n"));  /* /tmp, firmlink applied */
  assert_non_null(strstr(text, ";; -DREADABLE_ROOT_0=/\n"));
  assert_non_null(strstr(text, ";; -DDENIED_PATH_0=/Users/dev/.ssh\n"));
  assert_non_null(strstr(text, "(subpath (param \"WRITABLE_ROOT_0\"))"));
  /* The workspace path itself never appears in the rules, only as a parameter. */
  const char *rules = strstr(text, "(version 1)");
  assert_null(strstr(rules, "/Users/dev/project"));
  free(text);
  cordon_profile_free(p);
}

static void deny_entries_sit_inside_every_allow_clause_they_overlap(void **state) {
  (void)state;
  cordon_profile *p = standard("read-only");
  char *text = policy_with_params(p, &mac_ctx, true);
  assert_non_null(strstr(text, "(allow file-read* (require-all (subpath (param \"READABLE_ROOT_0\")) "
                               "(require-not (subpath (param \"DENIED_PATH_0\")))"));
  free(text);
  cordon_profile_free(p);
  /* A deny inside a writable root is a hole in that root's grant too. */
  p = cordon_profile_new(CORDON_PROFILE_MANAGED);
  cordon_profile_entry w = {"/w", CORDON_SPECIAL_NONE, CORDON_ACCESS_WRITE, CORDON_ENTRY_SUBTREE};
  cordon_profile_entry d = {"/w/secret", CORDON_SPECIAL_NONE, CORDON_ACCESS_DENY, CORDON_ENTRY_EXACT};
  cordon_profile_entry far = {"/elsewhere", CORDON_SPECIAL_NONE, CORDON_ACCESS_DENY, CORDON_ENTRY_SUBTREE};
  assert_int_equal(cordon_profile_add_entry(p, &w), CORDON_PROFILE_OK);
  assert_int_equal(cordon_profile_add_entry(p, &d), CORDON_PROFILE_OK);
  assert_int_equal(cordon_profile_add_entry(p, &far), CORDON_PROFILE_OK);
  text = policy_with_params(p, &mac_ctx, false);
  assert_non_null(strstr(text, "(allow file-read* file-write* (require-all (subpath (param \"WRITABLE_ROOT_0\")) "
                               "(require-not (literal (param \"DENIED_PATH_0\")))))"));
  assert_null(strstr(text, "(param \"DENIED_PATH_1\")"));  /* disjoint: it could never match there */
  free(text);
  cordon_profile_free(p);
}

static void protected_metadata_is_denied_at_any_depth_under_writable_roots(void **state) {
  (void)state;
  cordon_profile *p = standard("workspace-write");
  char *text = policy_with_params(p, &mac_ctx, true);
  assert_non_null(strstr(text, "(deny file-write* file-write-data file-write-create "));
  assert_non_null(strstr(text, "(require-all (require-any (subpath (param \"WRITABLE_ROOT_0\")) "
                               "(subpath (param \"WRITABLE_ROOT_1\")) (subpath (param \"WRITABLE_ROOT_2\")))"));
  /* anchored, and matching what "/(names)(/|$)" would: a protected name as a whole segment at any depth */
  assert_non_null(strstr(text, "(regex #\"^.*/(\\.git|\\.agents|\\.codex|\\.cordon|\\.cordon\\.yaml)(/|$)\")"));
  free(text);
  cordon_profile_free(p);
}

/* The section for a platform, as text with its parameters (NULL platform: the darwin default). */
static char *section_for(const char *platform, const cordon_profile_ctx *ctx, cordon_sandbox_status want) {
  cordon_profile *p = standard("workspace-write");
  cordon_buf text = CORDON_BUF_INIT, msg = CORDON_BUF_INIT, all = CORDON_BUF_INIT;
  cordon_params params = CORDON_PARAMS_INIT;
  cordon_seatbelt_options opts = {false, platform};
  assert_int_equal(cordon_seatbelt_policy_with(p, ctx, &opts, &text, &params, &msg), want);
  for (size_t i = 0; i < params.count; i++)
    cordon_buf_printf(&all, "-D%s=%s\n", params.items[i].name, params.items[i].value);
  cordon_buf_puts(&all, want == CORDON_SANDBOX_OK ? cordon_buf_str(&text) : cordon_buf_str(&msg));
  cordon_buf_free(&text);
  cordon_buf_free(&msg);
  cordon_params_free(&params);
  cordon_profile_free(p);
  return cordon_buf_take(&all);
}

static void a_linux_target_keeps_tmp_var_and_etc_as_they_are(void **state) {
  (void)state;
  static const char *const lroots[] = {"/var/work/project"};
  const cordon_profile_ctx ctx = {.cwd = "/var/work/project", .workspace_roots = lroots, .n_workspace_roots = 1,
                                  .tmpdir = "/tmp/user", .home = "/home/dev"};
  char *linux_text = section_for("linux", &ctx, CORDON_SANDBOX_OK);
  assert_non_null(strstr(linux_text, "-DWRITABLE_ROOT_0=/var/work/project\n"));
  assert_non_null(strstr(linux_text, "-DWRITABLE_ROOT_1=/tmp/user\n"));
  assert_null(strstr(linux_text, "=/private/"));  /* no path mapped (secrets such as /etc/ssl/private hold the word) */
  char *darwin_text = section_for(NULL, &ctx, CORDON_SANDBOX_OK);
  assert_non_null(strstr(darwin_text, "-DWRITABLE_ROOT_0=/private/var/work/project\n"));
  assert_non_null(strstr(darwin_text, "-DWRITABLE_ROOT_1=/private/tmp/user\n"));
  char *named = section_for("darwin", &ctx, CORDON_SANDBOX_OK);
  assert_string_equal(named, darwin_text);
  free(linux_text);
  free(darwin_text);
  free(named);
}

static void an_unknown_target_platform_is_an_invalid_request(void **state) {
  (void)state;
  char *msg = section_for("windows", &mac_ctx, CORDON_SANDBOX_INVALID_REQUEST);
  assert_non_null(strstr(msg, "not 'windows'"));
  free(msg);
}

static void a_writable_root_inside_a_protected_directory_gets_an_anchored_regex(void **state) {
  (void)state;
  cordon_profile *p = cordon_profile_new(CORDON_PROFILE_MANAGED);
  cordon_profile_entry w = {"/repo/.git/worktrees/x", CORDON_SPECIAL_NONE, CORDON_ACCESS_WRITE, CORDON_ENTRY_SUBTREE};
  assert_int_equal(cordon_profile_add_entry(p, &w), CORDON_PROFILE_OK);
  char *text = policy_with_params(p, &mac_ctx, false);
  assert_non_null(strstr(text, "(deny file-write* file-write-data file-write-create file-write-unlink file-write-mode file-write-owner "
                               "file-write-setugid file-write-times file-write-xattr file-write-flags file-write-acl "
                               "file-write-finderinfo (regex #\"^/repo/\\.git/worktrees/x/(.*/)?(\\.git|"));
  free(text);
  cordon_profile_free(p);
}

static void network_restricted_is_a_filtered_deny_and_enabled_an_unfiltered_allow(void **state) {
  (void)state;
  cordon_profile *p = standard("workspace-write");
  char *text = policy_with_params(p, &mac_ctx, false);
  assert_non_null(strstr(text, "(deny network-outbound (remote ip \"*:*\"))\n"));
  assert_non_null(strstr(text, "(deny network-inbound network-bind (local ip \"*:*\"))\n"));
  assert_null(strstr(text, "(allow network"));
  free(text);
  assert_int_equal(cordon_profile_set_network(p, CORDON_NETWORK_ENABLED), CORDON_PROFILE_OK);
  text = policy_with_params(p, &mac_ctx, false);
  assert_non_null(strstr(text, "(allow network-outbound network-inbound network-bind system-socket)\n"));
  assert_null(strstr(text, "(deny network"));
  free(text);
  cordon_profile_free(p);
}

static void the_profile_section_has_no_version_and_no_base(void **state) {
  (void)state;
  cordon_profile *p = standard("workspace-write");
  char *text = policy_with_params(p, &mac_ctx, false);
  assert_null(strstr(text, "(version 1)"));
  assert_null(strstr(text, "(deny default)"));
  free(text);
  cordon_profile_free(p);
}

static void paths_with_quotes_parentheses_and_unicode_travel_as_parameters(void **state) {
  (void)state;
  const char *odd = "/w/a \"b\" (c) \\d:e \xc3\xa9";
  const char *const odd_roots[] = {odd};
  cordon_profile_ctx ctx = mac_ctx;
  ctx.workspace_roots = odd_roots;
  cordon_profile *p = standard("workspace-write");
  cordon_buf text = CORDON_BUF_INIT, msg = CORDON_BUF_INIT;
  cordon_params params = CORDON_PARAMS_INIT;
  assert_int_equal(cordon_seatbelt_policy(p, &ctx, true, &text, &params, &msg), CORDON_SANDBOX_OK);
  assert_string_equal(cordon_params_get(&params, "WRITABLE_ROOT_0"), odd);
  assert_null(strstr(cordon_buf_str(&text), "(c)"));
  cordon_buf_free(&text);
  cordon_buf_free(&msg);
  cordon_params_free(&params);
  cordon_profile_free(p);
}

static void a_newline_in_a_context_path_is_an_invalid_request(void **state) {
  (void)state;
  const char *const bad_roots[] = {"/w/a\nb"};
  cordon_profile_ctx ctx = mac_ctx;
  ctx.workspace_roots = bad_roots;
  cordon_profile *p = standard("workspace-write");
  cordon_buf text = CORDON_BUF_INIT, msg = CORDON_BUF_INIT;
  cordon_params params = CORDON_PARAMS_INIT;
  cordon_sandbox_status st = cordon_seatbelt_policy(p, &ctx, true, &text, &params, &msg);
  assert_true(st == CORDON_SANDBOX_INVALID_REQUEST);
  assert_true(msg.len > 0);
  cordon_buf_free(&text);
  cordon_buf_free(&msg);
  cordon_params_free(&params);
  cordon_profile_free(p);
}

static void a_home_deny_without_a_home_in_the_context_is_refused(void **state) {
  (void)state;
  cordon_profile_ctx ctx = mac_ctx;
  ctx.home = NULL;
  cordon_profile *p = standard("read-only");
  cordon_buf text = CORDON_BUF_INIT, msg = CORDON_BUF_INIT;
  cordon_params params = CORDON_PARAMS_INIT;
  assert_int_equal(cordon_seatbelt_policy(p, &ctx, true, &text, &params, &msg), CORDON_SANDBOX_INVALID_REQUEST);
  assert_non_null(strstr(cordon_buf_str(&msg), "~/.ssh"));
  cordon_buf_free(&text);
  cordon_buf_free(&msg);
  cordon_params_free(&params);
  cordon_profile_free(p);
}

static void disabled_and_external_profiles_are_invalid_requests(void **state) {
  (void)state;
  cordon_profile_kind kinds[] = {CORDON_PROFILE_DISABLED, CORDON_PROFILE_EXTERNAL};
  for (size_t i = 0; i < 2; i++) {
    cordon_profile *p = cordon_profile_new(kinds[i]);
    cordon_buf text = CORDON_BUF_INIT, msg = CORDON_BUF_INIT;
    cordon_params params = CORDON_PARAMS_INIT;
    assert_int_equal(cordon_seatbelt_policy(p, &mac_ctx, true, &text, &params, &msg), CORDON_SANDBOX_INVALID_REQUEST);
    assert_int_equal(params.count, 0);
    cordon_buf_free(&text);
    cordon_buf_free(&msg);
    cordon_params_free(&params);
    cordon_profile_free(p);
  }
}

static void the_wrapper_argv_is_exactly_helper_policy_params_and_command(void **state) {
  (void)state;
  cordon_params params = CORDON_PARAMS_INIT;
  assert_true(cordon_params_add(&params, "WRITABLE_ROOT_0", "/w x"));
  assert_true(cordon_params_add(&params, "HOME_DIR", "/Users/dev"));
  const char *const argv[] = {"ls", "-la", "--", "a b"};
  char **out = NULL;
  size_t n = 0;
  cordon_buf msg = CORDON_BUF_INIT;
  assert_int_equal(cordon_seatbelt_wrap(CORDON_SEATBELT_HELPER, "(version 1)", &params, argv, 4, &out, &n, &msg),
                   CORDON_SANDBOX_OK);
  const char *want[] = {"/usr/bin/sandbox-exec", "-p", "(version 1)", "-DWRITABLE_ROOT_0=/w x",
                        "-DHOME_DIR=/Users/dev", "--", "ls", "-la", "--", "a b"};
  assert_int_equal(n, 10);
  for (size_t i = 0; i < n; i++) assert_string_equal(out[i], want[i]);
  assert_null(out[n]);
  for (size_t i = 0; i < n; i++) free(out[i]);
  free(out);
  cordon_params_free(&params);
  cordon_buf_free(&msg);
}

static void the_wrapper_refuses_bad_parameter_names_and_control_characters(void **state) {
  (void)state;
  const char *const argv[] = {"true"};
  char **out = NULL;
  size_t n = 0;
  cordon_buf msg = CORDON_BUF_INIT;
  cordon_params params = CORDON_PARAMS_INIT;
  assert_true(cordon_params_add(&params, "BAD NAME", "/x"));
  assert_int_equal(cordon_seatbelt_wrap(CORDON_SEATBELT_HELPER, "", &params, argv, 1, &out, &n, &msg),
                   CORDON_SANDBOX_INVALID_REQUEST);
  assert_null(out);
  cordon_params_free(&params);
  assert_true(cordon_params_add(&params, "OK", "/x\ny"));
  assert_int_equal(cordon_seatbelt_wrap(CORDON_SEATBELT_HELPER, "", &params, argv, 1, &out, &n, &msg),
                   CORDON_SANDBOX_INVALID_REQUEST);
  assert_null(out);
  cordon_params_free(&params);
  cordon_buf_free(&msg);
}

static void transform(const cordon_backend *b, cordon_sandbox_status want, cordon_exec_request *out) {
  cordon_profile *p = standard("workspace-write");
  const char *const argv[] = {"make", "test"};
  const char *const env[] = {"PATH=/usr/bin:/bin", NULL};
  cordon_sandbox_command cmd = {argv, 2, "/Users/dev/project", env, p, &mac_ctx, NULL, NULL, false, false, NULL, {0, 0, 0}, NULL, 0, NULL};
  cordon_buf msg = CORDON_BUF_INIT;
  memset(out, 0, sizeof *out);
  assert_int_equal(b->transform(b, &cmd, out, &msg), want);
  if (want != CORDON_SANDBOX_OK) assert_true(msg.len > 0);
  cordon_buf_free(&msg);
  cordon_profile_free(p);
}

static void a_missing_helper_fails_closed_with_backend_not_available(void **state) {
  (void)state;
  cordon_backend b;
  cordon_seatbelt_backend_init(&b, "/nonexistent/cordon-test/sandbox-exec");
  cordon_exec_request req;
  transform(&b, CORDON_SANDBOX_BACKEND_NOT_AVAILABLE, &req);
  assert_null(req.argv);  /* nothing that could be run */
  cordon_exec_request_free(&req);
}

static void a_present_helper_wraps_the_command_with_the_built_policy(void **state) {
  (void)state;
  cordon_backend b;
  cordon_seatbelt_backend_init(&b, "/bin/sh");  /* any executable file stands in for sandbox-exec */
  cordon_exec_request req;
  transform(&b, CORDON_SANDBOX_OK, &req);
  assert_string_equal(req.sandbox_type, "macos-seatbelt");
  assert_string_equal(req.argv[0], "/bin/sh");
  assert_string_equal(req.argv[1], "-p");
  assert_string_equal(req.argv[2], req.policy);
  assert_non_null(strstr(req.policy, "(deny default)"));
  assert_string_equal(req.argv[req.argc - 3], "--");
  assert_string_equal(req.argv[req.argc - 2], "make");
  assert_string_equal(req.argv[req.argc - 1], "test");
  assert_null(req.argv[req.argc]);
  cordon_exec_request_free(&req);
}

static void the_production_backend_uses_the_fixed_helper_path(void **state) {
  (void)state;
  const cordon_backend *b = cordon_seatbelt_backend();
  assert_string_equal(b->name, "macos-seatbelt");
  assert_string_equal(b->platform, "darwin");
  assert_null(b->data);  /* no override: CORDON_SEATBELT_HELPER */
  assert_string_equal(CORDON_SEATBELT_HELPER, "/usr/bin/sandbox-exec");
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(read_only_policy_matches_its_golden_file),
    cmocka_unit_test(workspace_write_policy_matches_its_golden_file),
    cmocka_unit_test(danger_full_access_policy_matches_its_golden_file),
    cmocka_unit_test(the_profile_section_alone_matches_its_golden_file),
    cmocka_unit_test(workspace_write_denies_by_default_and_passes_roots_as_parameters),
    cmocka_unit_test(deny_entries_sit_inside_every_allow_clause_they_overlap),
    cmocka_unit_test(protected_metadata_is_denied_at_any_depth_under_writable_roots),
    cmocka_unit_test(a_writable_root_inside_a_protected_directory_gets_an_anchored_regex),
    cmocka_unit_test(a_linux_target_keeps_tmp_var_and_etc_as_they_are),
    cmocka_unit_test(an_unknown_target_platform_is_an_invalid_request),
    cmocka_unit_test(network_restricted_is_a_filtered_deny_and_enabled_an_unfiltered_allow),
    cmocka_unit_test(the_profile_section_has_no_version_and_no_base),
    cmocka_unit_test(paths_with_quotes_parentheses_and_unicode_travel_as_parameters),
    cmocka_unit_test(a_newline_in_a_context_path_is_an_invalid_request),
    cmocka_unit_test(a_home_deny_without_a_home_in_the_context_is_refused),
    cmocka_unit_test(disabled_and_external_profiles_are_invalid_requests),
    cmocka_unit_test(the_wrapper_argv_is_exactly_helper_policy_params_and_command),
    cmocka_unit_test(the_wrapper_refuses_bad_parameter_names_and_control_characters),
    cmocka_unit_test(a_missing_helper_fails_closed_with_backend_not_available),
    cmocka_unit_test(a_present_helper_wraps_the_command_with_the_built_policy),
    cmocka_unit_test(the_production_backend_uses_the_fixed_helper_path),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
