/* needs: linux */
/* tests/c/test_gate_gitreal.c — real git under the gate: init, clone, add and commit, branch, checkout,
 * rebase (plain, interactive with a sequence editor, --exec), stash, worktree add, submodule add and
 * update --init all work in a writable workdir; afterwards hooks and config are still unmodifiable by
 * any git command or plain write, and every repository holds only what the rules allow. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "gate_harness.h"

/* Runs a shell script in the child (under the gate): its status. */
static int sh_in_child(const char *fmt, ...) {
  char script[8192];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(script, sizeof script, fmt, ap);
  va_end(ap);
  int st = system(script);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

#define GIT_ENV                                                                                       \
  "export HOME=%s/home GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@e GIT_COMMITTER_NAME=t " \
  "GIT_COMMITTER_EMAIL=t@e GIT_EDITOR=true; cd %s; "
#define FILEPROTO "-c protocol.file.allow=always"

static void do_git_works(gh_env *e, void *arg) {
  (void)arg;
  const char *w = e->w, *up = gh_path(e, "outside/upstream.git"), *sub = gh_path(e, "outside/sub.git");
  gh_check(sh_in_child(GIT_ENV "git -c init.defaultBranch=main init -q proj && cd proj && echo a > a && git add a && "
                               "git commit -qm one", w, w) == 0, "git init, add, commit");
  gh_check(sh_in_child(GIT_ENV "cd proj && git branch feature && git checkout -q feature && echo b > b && git add b && "
                               "git commit -qm two && git checkout -q main && echo c > c && git add c && git commit -qm three",
                       w, w) == 0, "git branch, checkout, commit");
  gh_check(sh_in_child(GIT_ENV "cd proj && git rebase -q feature && test -f b", w, w) == 0, "git rebase");
  gh_check(sh_in_child(GIT_ENV "cd proj && echo d >> a && git stash -q && ! grep -q d a && git stash pop -q && grep -q d a "
                               "&& git commit -qam four", w, w) == 0, "git stash and pop");
  gh_check(sh_in_child(GIT_ENV "cd proj && GIT_SEQUENCE_EDITOR=true git rebase -q -i HEAD~2", w, w) == 0,
           "git rebase -i with an editor that changes nothing");
  gh_check(sh_in_child(GIT_ENV "cd proj && GIT_SEQUENCE_EDITOR=\"sed -i 1s/^pick/reword/\" git rebase -q -i HEAD~2", w, w) == 0,
           "git rebase -i with sed -i as the sequence editor");
  gh_check(sh_in_child(GIT_ENV "cd proj && git rebase -q --exec true HEAD~1 2>/dev/null", w, w) != 0,
           "git rebase --exec is refused: its exec lines would run later, outside");
  (void)sh_in_child(GIT_ENV "cd proj && git rebase --abort 2>/dev/null", w, w);
  gh_check(sh_in_child(GIT_ENV "cd proj && GIT_SEQUENCE_EDITOR=\"sh -c 'cat \\$0 > \\$0.new && cat \\$0.new > \\$0'\" "
                               "git rebase -q -i HEAD~2 2>/dev/null", w, w) != 0,
           "a sequence editor that writes the todo list in place is refused");
  (void)sh_in_child(GIT_ENV "cd proj && git rebase --abort 2>/dev/null", w, w);
  gh_check(sh_in_child(GIT_ENV "cd proj && git checkout -q -b picks HEAD~2 && git cherry-pick main~1 main && "
                               "test -f c && git checkout -q main && git branch -qD picks", w, w) == 0,
           "git cherry-pick of two commits (sequencer/todo)");
  gh_check(sh_in_child(GIT_ENV "cd proj && git worktree add -q ../wt -b wtb && cd ../wt && echo e > e && git add e && "
                               "git commit -qm five", w, w) == 0, "git worktree add, commit there");
  gh_check(sh_in_child(GIT_ENV "git clone -q %s clone && cd clone && test -f readme && git " FILEPROTO
                               " submodule update -q --init && test -f sub/subfile", w, w, up) == 0,
           "git clone, submodule update --init");
  gh_check(sh_in_child(GIT_ENV "cd proj && git " FILEPROTO " submodule add -q %s added && git commit -qm six", w, w, sub) == 0,
           "git submodule add");
  gh_check(sh_in_child(GIT_ENV "cd proj && test $(git log --oneline | wc -l) -eq 5 && test -z \"$(git status --short)\" && "
                               "test $(git config core.filemode) = true", w, w) == 0,
           "the history is as made, and git init found the file mode trustworthy");
}

/* What must hold afterwards, whatever ran: no hook, no unsafe key, in any repository under w. */
static void assert_repositories_clean(gh_env *e) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "cd '%s' && find . -path '*/hooks/*' ! -name '*.sample' -print; "
           "find . -name config -path '*.git*' -exec grep -HiE 'fsmonitor|hookspath|sshcommand|\\[alias' {} +", e->w);
  FILE *p = popen(cmd, "r");
  char out[4096] = {0};
  size_t n = fread(out, 1, sizeof out - 1, p);
  out[n] = '\0';
  pclose(p);
  if (out[0]) fail_msg("found in the repositories:\n%s", out);
}

static void git_init_clone_commit_rebase_stash_worktree_and_submodules_work_under_the_gate(void **state) {
  (void)state;
  gh_env e;
  gh_setup(&e);
  mkdir(gh_path(&e, "w/home"), 0755);
  /* upstream repositories on the host: one with a submodule */
  gh_sh("cd '%s' && export HOME='%s' GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@e GIT_COMMITTER_NAME=t "
        "GIT_COMMITTER_EMAIL=t@e && git -c init.defaultBranch=main init -q sub.src && cd sub.src && echo s > subfile && "
        "git add subfile && git commit -qm s && cd .. && git clone -q --bare sub.src sub.git && "
        "git -c init.defaultBranch=main init -q up.src && cd up.src && echo r > readme && git add readme && "
        "git -c protocol.file.allow=always submodule add -q '%s/sub.git' sub && git commit -qm r && cd .. && "
        "git clone -q --bare up.src upstream.git",
        e.outside, e.outside, e.outside);
  assert_int_equal(gh_run(&e, do_git_works, NULL), 0);
  assert_true(gh_exists(gh_path(&e, "w/proj/.git/modules/added/HEAD")));
  assert_true(gh_exists(gh_path(&e, "w/clone/.git/modules/sub/HEAD")));
  assert_true(gh_exists(gh_path(&e, "w/proj/.git/worktrees/wt/commondir")));
  assert_repositories_clean(&e);
  /* the refused --exec said why */
  assert_non_null(strstr(e.msgs, "is an exec line"));
  gh_teardown(&e);
}

static void do_git_attacks(gh_env *e, void *arg) {
  (void)arg;
  const char *w = e->w;
  static const char *const attacks[] = {
      "cd proj && git config core.fsmonitor 'touch /tmp/pwned'",
      "cd proj && git config core.hooksPath ../myhooks",
      "cd proj && git config alias.st '!touch /tmp/pwned'",
      "cd proj && git config --worktree core.sshCommand evil",
      "cd proj && printf '#!/bin/sh\\ntouch /tmp/pwned\\n' > .git/hooks/pre-commit",
      "cd proj && cp .git/hooks/pre-commit.sample .git/hooks/post-checkout",
      "cd proj && mv .git/hooks/pre-push.sample .git/hooks/pre-push",
      "cd proj && ln -s ../../evil.sh .git/hooks/post-merge",
      "cd proj && printf '[core]\\n\\tfsmonitor = evil\\n' >> .git/config",
      "cd proj && sed -i 's/bare = false/bare = false\\n\\tfsmonitor = evil/' .git/config",
      "cd proj && git -C .git/modules/added config core.fsmonitor evil",
      "cd proj && printf '[core]\\n\\tfsmonitor = evil\\n' > .git/worktrees/wt/config.worktree",
      "cd proj && rm -rf .git/hooks && mkdir ../h && printf x > ../h/pre-commit && mv ../h .git/hooks",
      ("mkdir fake && cd fake && mkdir objects refs && printf 'ref: refs/heads/x\\n' > HEAD && "
       "printf '[core]\\n\\tfsmonitor = evil\\n' > config"),
  };
  for (size_t i = 0; i < sizeof attacks / sizeof attacks[0]; i++)
    gh_check(sh_in_child(GIT_ENV "%s 2>/dev/null", w, w, attacks[i]) != 0, "refused: %s", attacks[i]);
  gh_check(sh_in_child(GIT_ENV "cd proj && git config user.name someone && git config remote.origin.url /x", w, w) == 0,
           "safe keys still change");
}

static void after_git_ran_inside_hooks_and_config_stay_unmodifiable(void **state) {
  (void)state;
  gh_env e;
  gh_setup(&e);
  mkdir(gh_path(&e, "w/home"), 0755);
  gh_sh("cd '%s' && export HOME='%s' GIT_CONFIG_NOSYSTEM=1 && git -c init.defaultBranch=main init -q proj && cd proj && "
        "git -c user.name=t -c user.email=t@e commit -q --allow-empty -m one && git worktree add -q ../wt -b wtb && "
        "git init -q --bare .git/modules/added && git config extensions.worktreeConfig true",
        e.w, e.w);
  char before[1 << 12];
  snprintf(before, sizeof before, "%s", gh_read(gh_path(&e, "w/proj/.git/config")));
  assert_int_equal(gh_run(&e, do_git_attacks, NULL), 0);
  assert_repositories_clean(&e);
  assert_false(gh_exists("/tmp/pwned"));
  const char *after = gh_read(gh_path(&e, "w/proj/.git/config"));
  assert_non_null(strstr(after, "name = someone"));
  assert_null(strstr(after, "fsmonitor"));
  assert_false(gh_exists(gh_path(&e, "w/proj/.git/worktrees/wt/config.worktree")));
  gh_teardown(&e);
}

static int group(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(git_init_clone_commit_rebase_stash_worktree_and_submodules_work_under_the_gate),
      cmocka_unit_test(after_git_ran_inside_hooks_and_config_stay_unmodifiable),
  };
  return cmocka_run_group_tests_name(gh_user, tests, NULL, NULL);
}

int main(void) { return gh_main(group); }
