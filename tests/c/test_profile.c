/* tests/c/test_profile.c — profile factories, entries, specials, and the pure matchers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "core/profile.h"

static const char *const roots[] = {"/w", "/other/ws"};
static const cordon_profile_ctx ctx = {"/w", roots, 2, "/var/tmp/t", "/home/u", NULL};

static cordon_profile *standard(const char *name) {
  cordon_profile *p = NULL;
  assert_int_equal(cordon_profile_standard(name, &p), CORDON_PROFILE_OK);
  assert_non_null(p);
  return p;
}

static void add(cordon_profile *p, const char *path, cordon_special sp, cordon_access a, cordon_entry_match m) {
  cordon_profile_entry e = {path, sp, a, m};
  assert_int_equal(cordon_profile_add_entry(p, &e), CORDON_PROFILE_OK);
}

static void read_only_reads_everything_and_writes_nothing(void **state) {
  (void)state;
  cordon_profile *p = standard("read-only");
  assert_true(cordon_profile_can_read(p, &ctx, "/etc/passwd"));
  assert_true(cordon_profile_can_read(p, &ctx, "/w/src/a.c"));
  assert_false(cordon_profile_can_write(p, &ctx, "/w/src/a.c"));
  assert_false(cordon_profile_can_write(p, &ctx, "/tmp/x"));
  assert_int_equal(cordon_profile_network(p), CORDON_NETWORK_RESTRICTED);
  assert_true(cordon_profile_requires_sandbox(p));
  assert_string_equal(cordon_profile_name(p), "read-only");
  cordon_profile_free(p);
}

static void workspace_write_writes_roots_tmpdir_and_slash_tmp_only(void **state) {
  (void)state;
  cordon_profile *p = standard("workspace-write");
  assert_true(cordon_profile_can_write(p, &ctx, "/w/src/a.c"));
  assert_true(cordon_profile_can_write(p, &ctx, "/w"));
  assert_true(cordon_profile_can_write(p, &ctx, "/other/ws/x"));
  assert_true(cordon_profile_can_write(p, &ctx, "/var/tmp/t/f"));
  assert_true(cordon_profile_can_write(p, &ctx, "/tmp/f"));
  assert_false(cordon_profile_can_write(p, &ctx, "/w2/f"));  /* segment boundary */
  assert_false(cordon_profile_can_write(p, &ctx, "/etc/passwd"));
  assert_false(cordon_profile_can_write(p, &ctx, "/var/tmp/other"));
  assert_true(cordon_profile_can_read(p, &ctx, "/etc/passwd"));
  assert_true(cordon_profile_requires_sandbox(p));
  cordon_profile_free(p);
}

static void slash_tmp_follows_the_context_when_given(void **state) {
  (void)state;
  cordon_profile *p = standard("workspace-write");
  cordon_profile_ctx mac = ctx;
  mac.slash_tmp = "/private/tmp";
  assert_true(cordon_profile_can_write(p, &mac, "/private/tmp/f"));
  assert_false(cordon_profile_can_write(p, &mac, "/tmp/f"));
  cordon_profile_free(p);
}

static void danger_full_access_is_unrestricted_and_needs_no_sandbox(void **state) {
  (void)state;
  cordon_profile *p = standard("danger-full-access");
  assert_int_equal(cordon_profile_fs_kind(p), CORDON_FS_UNRESTRICTED);
  assert_int_equal(cordon_profile_network(p), CORDON_NETWORK_ENABLED);
  assert_true(cordon_profile_can_write(p, &ctx, "/etc/passwd"));
  assert_true(cordon_profile_can_read(p, &ctx, "/home/u/.ssh/id_ed25519"));
  assert_false(cordon_profile_requires_sandbox(p));
  cordon_profile_free(p);
}

static void unknown_standard_profile_is_a_typed_error(void **state) {
  (void)state;
  cordon_profile *p = (cordon_profile *)1;
  assert_int_equal(cordon_profile_standard("full-yolo", &p), CORDON_PROFILE_UNKNOWN_PROFILE);
  assert_null(p);
  assert_string_equal(cordon_profile_status_name(CORDON_PROFILE_UNKNOWN_PROFILE), "unknown_profile");
}

static void restricted_standard_profiles_deny_secrets_under_home(void **state) {
  (void)state;
  const char *names[] = {"read-only", "workspace-write"};
  for (int i = 0; i < 2; i++) {
    cordon_profile *p = standard(names[i]);
    assert_false(cordon_profile_can_read(p, &ctx, "/home/u/.ssh/id_ed25519"));
    assert_false(cordon_profile_can_read(p, &ctx, "/home/u/.aws/credentials"));
    assert_false(cordon_profile_can_read(p, &ctx, "/home/u/.docker/config.json"));
    assert_true(cordon_profile_can_read(p, &ctx, "/home/u/.sshx"));
    assert_true(cordon_profile_can_read(p, &ctx, "/home/u/.docker/other"));
    cordon_profile_free(p);
  }
}

static void deny_wins_even_when_the_write_entry_comes_later(void **state) {
  (void)state;
  cordon_profile *p = cordon_profile_new(CORDON_PROFILE_MANAGED);
  add(p, "/w/secret", CORDON_SPECIAL_NONE, CORDON_ACCESS_DENY, CORDON_ENTRY_SUBTREE);
  add(p, "/w", CORDON_SPECIAL_NONE, CORDON_ACCESS_WRITE, CORDON_ENTRY_SUBTREE);
  add(p, "/w/secret/inner", CORDON_SPECIAL_NONE, CORDON_ACCESS_WRITE, CORDON_ENTRY_EXACT);
  assert_false(cordon_profile_can_read(p, &ctx, "/w/secret/inner"));
  assert_false(cordon_profile_can_write(p, &ctx, "/w/secret"));
  assert_true(cordon_profile_can_write(p, &ctx, "/w/secretive"));
  cordon_profile_free(p);
}

static void write_implies_read(void **state) {
  (void)state;
  cordon_profile *p = cordon_profile_new(CORDON_PROFILE_MANAGED);
  add(p, "/data", CORDON_SPECIAL_NONE, CORDON_ACCESS_WRITE, CORDON_ENTRY_SUBTREE);
  assert_true(cordon_profile_can_read(p, &ctx, "/data/x"));
  assert_false(cordon_profile_can_read(p, &ctx, "/etc"));
  cordon_profile_free(p);
}

static void exact_entries_match_only_that_path(void **state) {
  (void)state;
  cordon_profile *p = cordon_profile_new(CORDON_PROFILE_MANAGED);
  add(p, "/etc/hosts", CORDON_SPECIAL_NONE, CORDON_ACCESS_READ, CORDON_ENTRY_EXACT);
  assert_true(cordon_profile_can_read(p, &ctx, "/etc/hosts"));
  assert_false(cordon_profile_can_read(p, &ctx, "/etc/hosts/x"));
  assert_false(cordon_profile_can_read(p, &ctx, "/etc"));
  cordon_profile_free(p);
}

static void protected_metadata_is_not_writable_at_any_depth_under_writable_roots(void **state) {
  (void)state;
  cordon_profile *p = standard("workspace-write");
  assert_true(cordon_profile_is_protected_metadata(p, &ctx, "/w/.git"));
  assert_true(cordon_profile_is_protected_metadata(p, &ctx, "/w/.git/hooks/pre-commit"));
  assert_true(cordon_profile_is_protected_metadata(p, &ctx, "/w/sub/module/.git/config"));
  assert_true(cordon_profile_is_protected_metadata(p, &ctx, "/w/.cordon.yaml"));
  assert_true(cordon_profile_is_protected_metadata(p, &ctx, "/other/ws/.codex/x"));
  assert_false(cordon_profile_can_write(p, &ctx, "/w/.git/config"));
  assert_false(cordon_profile_can_write(p, &ctx, "/w/.agents"));
  assert_true(cordon_profile_can_read(p, &ctx, "/w/.git/config"));  /* readable, just not writable */
  assert_false(cordon_profile_is_protected_metadata(p, &ctx, "/w/.github/workflows"));
  assert_false(cordon_profile_is_protected_metadata(p, &ctx, "/w/src/gitfile"));
  assert_false(cordon_profile_is_protected_metadata(p, &ctx, "/etc/.git"));  /* not under a writable root */
  cordon_profile_free(p);
}

static void protected_names_can_be_replaced_and_are_validated(void **state) {
  (void)state;
  cordon_profile *p = standard("workspace-write");
  size_t n = 0;
  while (cordon_profile_default_protected[n]) n++;
  assert_int_equal(cordon_profile_protected_count(p), n);
  assert_string_equal(cordon_profile_protected_at(p, 0), ".git");
  assert_false(cordon_profile_can_write(p, &ctx, "/w/.envrc"));       /* a "/REL" entry: the root's top only */
  assert_true(cordon_profile_can_write(p, &ctx, "/w/sub/.envrc"));
  assert_false(cordon_profile_can_write(p, &ctx, "/home/u/.bashrc")); /* a "~/REL" entry */
  cordon_profile_clear_protected(p);
  assert_true(cordon_profile_can_write(p, &ctx, "/w/.git/config"));
  assert_int_equal(cordon_profile_add_protected(p, ".hg"), CORDON_PROFILE_OK);
  assert_int_equal(cordon_profile_add_protected(p, ".hg"), CORDON_PROFILE_OK);
  assert_int_equal(cordon_profile_protected_count(p), 1);
  assert_false(cordon_profile_can_write(p, &ctx, "/w/.hg/hgrc"));
  assert_int_equal(cordon_profile_add_protected(p, "a/b"), CORDON_PROFILE_INVALID_NAME);  /* a name is one segment */
  assert_int_equal(cordon_profile_add_protected(p, "/.idea/workspace.xml"), CORDON_PROFILE_OK);
  assert_int_equal(cordon_profile_add_protected(p, "~/.zshrc"), CORDON_PROFILE_OK);
  assert_int_equal(cordon_profile_add_protected(p, "/"), CORDON_PROFILE_INVALID_NAME);
  assert_int_equal(cordon_profile_add_protected(p, "~/"), CORDON_PROFILE_INVALID_NAME);
  assert_int_equal(cordon_profile_add_protected(p, "/a/../b"), CORDON_PROFILE_INVALID_NAME);
  assert_int_equal(cordon_profile_add_protected(p, "~/a//b"), CORDON_PROFILE_INVALID_NAME);
  assert_int_equal(cordon_profile_add_protected(p, ".."), CORDON_PROFILE_INVALID_NAME);
  assert_int_equal(cordon_profile_add_protected(p, ""), CORDON_PROFILE_INVALID_NAME);
  cordon_profile_free(p);
}

static void entries_are_validated(void **state) {
  (void)state;
  cordon_profile *p = cordon_profile_new(CORDON_PROFILE_MANAGED);
  cordon_profile_entry rel = {"rel/x", CORDON_SPECIAL_NONE, CORDON_ACCESS_READ, CORDON_ENTRY_EXACT};
  cordon_profile_entry dd = {"/a/../b", CORDON_SPECIAL_NONE, CORDON_ACCESS_READ, CORDON_ENTRY_EXACT};
  cordon_profile_entry tilde_user = {"~bob/x", CORDON_SPECIAL_NONE, CORDON_ACCESS_READ, CORDON_ENTRY_EXACT};
  cordon_profile_entry both = {"/x", CORDON_SPECIAL_ROOT, CORDON_ACCESS_READ, CORDON_ENTRY_EXACT};
  cordon_profile_entry neither = {NULL, CORDON_SPECIAL_NONE, CORDON_ACCESS_READ, CORDON_ENTRY_EXACT};
  assert_int_equal(cordon_profile_add_entry(p, &rel), CORDON_PROFILE_INVALID_PATH);
  assert_int_equal(cordon_profile_add_entry(p, &dd), CORDON_PROFILE_INVALID_PATH);
  assert_int_equal(cordon_profile_add_entry(p, &tilde_user), CORDON_PROFILE_INVALID_PATH);
  assert_int_equal(cordon_profile_add_entry(p, &both), CORDON_PROFILE_INVALID_ENTRY);
  assert_int_equal(cordon_profile_add_entry(p, &neither), CORDON_PROFILE_INVALID_ENTRY);
  add(p, "//x/./y/", CORDON_SPECIAL_NONE, CORDON_ACCESS_READ, CORDON_ENTRY_EXACT);
  add(p, "~//.config/", CORDON_SPECIAL_NONE, CORDON_ACCESS_READ, CORDON_ENTRY_EXACT);
  assert_string_equal(cordon_profile_entry_at(p, 0)->path, "/x/y");
  assert_string_equal(cordon_profile_entry_at(p, 1)->path, "~/.config");
  assert_null(cordon_profile_entry_at(p, 2));
  cordon_profile_free(p);
  cordon_profile *d = cordon_profile_new(CORDON_PROFILE_DISABLED);
  assert_int_equal(cordon_profile_add_entry(d, &both), CORDON_PROFILE_NOT_MANAGED);
  assert_int_equal(cordon_profile_set_network(d, CORDON_NETWORK_ENABLED), CORDON_PROFILE_NOT_MANAGED);
  cordon_profile_free(d);
}

static void disabled_and_external_profiles_restrict_nothing_and_need_no_sandbox(void **state) {
  (void)state;
  for (int k = CORDON_PROFILE_DISABLED; k <= CORDON_PROFILE_EXTERNAL; k++) {
    cordon_profile *p = cordon_profile_new((cordon_profile_kind)k);
    assert_false(cordon_profile_requires_sandbox(p));
    assert_true(cordon_profile_can_write(p, &ctx, "/etc/passwd"));
    assert_false(cordon_profile_is_protected_metadata(p, &ctx, "/w/.git"));
    cordon_resolved r;
    assert_int_equal(cordon_profile_resolve(p, &ctx, &r), CORDON_PROFILE_OK);
    assert_int_equal(r.count, 0);
    cordon_resolved_free(&r);
    cordon_profile_free(p);
  }
}

static void unrestricted_fs_with_restricted_network_still_requires_a_sandbox(void **state) {
  (void)state;
  cordon_profile *p = cordon_profile_new(CORDON_PROFILE_MANAGED);
  cordon_profile_set_fs_kind(p, CORDON_FS_UNRESTRICTED);
  assert_true(cordon_profile_requires_sandbox(p));
  cordon_profile_set_network(p, CORDON_NETWORK_ENABLED);
  assert_false(cordon_profile_requires_sandbox(p));
  cordon_profile_free(p);
}

static void matchers_fail_closed_on_bad_query_paths(void **state) {
  (void)state;
  cordon_profile *p = standard("workspace-write");
  assert_false(cordon_profile_can_read(p, &ctx, "relative"));
  assert_false(cordon_profile_can_write(p, &ctx, "/w/../etc/passwd"));
  assert_false(cordon_profile_can_read(p, &ctx, NULL));
  assert_true(cordon_profile_can_write(p, &ctx, "/w//src/./a.c"));  /* normalized first */
  cordon_profile_free(p);
}

static void resolve_lists_specials_and_home_paths_for_a_context(void **state) {
  (void)state;
  cordon_profile *p = standard("workspace-write");
  cordon_resolved r;
  assert_int_equal(cordon_profile_resolve(p, &ctx, &r), CORDON_PROFILE_OK);
  assert_true(r.count >= 5);
  assert_string_equal(r.items[0].path, "/");
  assert_int_equal(r.items[0].special, CORDON_SPECIAL_ROOT);
  assert_string_equal(r.items[1].path, "/w");
  assert_string_equal(r.items[2].path, "/other/ws");
  assert_int_equal(r.items[2].access, CORDON_ACCESS_WRITE);
  assert_int_equal(r.items[2].entry_index, 1);
  assert_string_equal(r.items[3].path, "/var/tmp/t");
  assert_string_equal(r.items[4].path, "/tmp");
  assert_string_equal(r.items[5].path, "/home/u/.ssh");
  assert_int_equal(r.items[5].access, CORDON_ACCESS_DENY);
  cordon_resolved_free(&r);
  /* no home, no tmpdir: those entries resolve to nothing rather than to something wrong */
  cordon_profile_ctx bare = {"/w", roots, 1, NULL, NULL, NULL};
  assert_int_equal(cordon_profile_resolve(p, &bare, &r), CORDON_PROFILE_OK);
  size_t absolute = 0;
  for (size_t i = 0; cordon_profile_default_secrets[i]; i++) absolute += cordon_profile_default_secrets[i][0] == '/';
  assert_int_equal(r.count, 3 + absolute);
  for (size_t i = 0; i < r.count; i++) assert_true(r.items[i].path[0] == '/');
  cordon_resolved_free(&r);
  cordon_profile_free(p);
}

static void minimal_resolves_to_system_subtrees(void **state) {
  (void)state;
  cordon_profile *p = cordon_profile_new(CORDON_PROFILE_MANAGED);
  add(p, NULL, CORDON_SPECIAL_MINIMAL, CORDON_ACCESS_READ, CORDON_ENTRY_EXACT);
  assert_true(cordon_profile_can_read(p, &ctx, "/usr/lib/libc.so"));
  assert_false(cordon_profile_can_read(p, &ctx, "/home/u/notes"));
  assert_false(cordon_profile_can_write(p, &ctx, "/usr/lib/libc.so"));
  cordon_profile_free(p);
}

static void copy_and_describe_keep_every_part(void **state) {
  (void)state;
  cordon_profile *p = standard("workspace-write");
  cordon_profile *c = cordon_profile_copy(p);
  assert_non_null(c);
  cordon_profile_free(p);
  cordon_buf b = CORDON_BUF_INIT;
  cordon_profile_describe(c, &b);
  const char *s = cordon_buf_str(&b);
  assert_non_null(strstr(s, "profile workspace-write: managed"));
  assert_non_null(strstr(s, "write subtree :workspace_roots"));
  assert_non_null(strstr(s, "deny  subtree ~/.ssh"));
  assert_non_null(strstr(s, "protected metadata: .git .agents .codex .cordon .cordon.yaml"));
  assert_non_null(strstr(s, "network: restricted"));
  cordon_buf_free(&b);
  cordon_profile_free(c);
}

static void names_parse_back_to_their_values(void **state) {
  (void)state;
  assert_int_equal(cordon_special_parse(":workspace_roots"), CORDON_SPECIAL_WORKSPACE_ROOTS);
  assert_int_equal(cordon_special_parse(""), -1);
  assert_int_equal(cordon_access_parse("deny"), CORDON_ACCESS_DENY);
  assert_int_equal(cordon_entry_match_parse("subtree"), CORDON_ENTRY_SUBTREE);
  assert_int_equal(cordon_network_parse("enabled"), CORDON_NETWORK_ENABLED);
  assert_int_equal(cordon_fs_kind_parse("unrestricted"), CORDON_FS_UNRESTRICTED);
  assert_int_equal(cordon_profile_kind_parse("external"), CORDON_PROFILE_EXTERNAL);
  assert_int_equal(cordon_profile_kind_parse("bogus"), -1);
  assert_string_equal(cordon_special_name(CORDON_SPECIAL_SLASH_TMP), ":slash_tmp");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(read_only_reads_everything_and_writes_nothing),
      cmocka_unit_test(workspace_write_writes_roots_tmpdir_and_slash_tmp_only),
      cmocka_unit_test(slash_tmp_follows_the_context_when_given),
      cmocka_unit_test(danger_full_access_is_unrestricted_and_needs_no_sandbox),
      cmocka_unit_test(unknown_standard_profile_is_a_typed_error),
      cmocka_unit_test(restricted_standard_profiles_deny_secrets_under_home),
      cmocka_unit_test(deny_wins_even_when_the_write_entry_comes_later),
      cmocka_unit_test(write_implies_read),
      cmocka_unit_test(exact_entries_match_only_that_path),
      cmocka_unit_test(protected_metadata_is_not_writable_at_any_depth_under_writable_roots),
      cmocka_unit_test(protected_names_can_be_replaced_and_are_validated),
      cmocka_unit_test(entries_are_validated),
      cmocka_unit_test(disabled_and_external_profiles_restrict_nothing_and_need_no_sandbox),
      cmocka_unit_test(unrestricted_fs_with_restricted_network_still_requires_a_sandbox),
      cmocka_unit_test(matchers_fail_closed_on_bad_query_paths),
      cmocka_unit_test(resolve_lists_specials_and_home_paths_for_a_context),
      cmocka_unit_test(minimal_resolves_to_system_subtrees),
      cmocka_unit_test(copy_and_describe_keep_every_part),
      cmocka_unit_test(names_parse_back_to_their_values),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
