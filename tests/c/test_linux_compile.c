/* needs: linux */
/* tests/c/test_linux_compile.c — the Linux compiler: policy IR + profile → Landlock rules and masks, the
 * approximations it reports (always toward less access), the view, the gate's rules, the kernel check's
 * hints, and the rights mapping. Works on a scratch tree under /var/tmp/cordon-tests; nothing is enforced here (tests/enforce/ does that). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "backend/linux/landlock.h"
#include "backend/linux/linux.h"
#include "backend/linux/runcache.h"
#include "core/path.h"

#include "lx_scratch.h"

static int setup(void **state) {
  (void)state;
  if (scratch_make("lxc") != 0) return -1;
  put("w", true), put("w/.git", true), put("w/.git/hooks", true), put("w/.git/config", false), put("w/src", true);
  put("w/src/a.c", false), put("h", true), put("h/.ssh", true), put("h/.ssh/id_ed25519", false);
  put("h/.ssh/known_hosts", false), put("h/docs", true), put("h/docs/n.txt", false);
  return 0;
}

static const char *roots[1];
static cordon_profile_ctx ctx;

static cordon_profile *profile(bool root_read, bool work_write, const char *deny, cordon_network net) {
  cordon_profile *p = cordon_profile_new(CORDON_PROFILE_MANAGED);
  assert_non_null(p);
  if (root_read) {
    cordon_profile_entry e = {NULL, CORDON_SPECIAL_ROOT, CORDON_ACCESS_READ, CORDON_ENTRY_SUBTREE};
    assert_int_equal(cordon_profile_add_entry(p, &e), CORDON_PROFILE_OK);
  }
  if (work_write) {
    cordon_profile_entry e = {NULL, CORDON_SPECIAL_WORKSPACE_ROOTS, CORDON_ACCESS_WRITE, CORDON_ENTRY_SUBTREE};
    assert_int_equal(cordon_profile_add_entry(p, &e), CORDON_PROFILE_OK);
  }
  if (deny) {
    cordon_profile_entry e = {deny, CORDON_SPECIAL_NONE, CORDON_ACCESS_DENY, CORDON_ENTRY_SUBTREE};
    assert_int_equal(cordon_profile_add_entry(p, &e), CORDON_PROFILE_OK);
  }
  cordon_profile_set_network(p, net);
  roots[0] = work;
  ctx = (cordon_profile_ctx){work, roots, 1, NULL, home, NULL};
  return p;
}

static cordon_lx_plan *compile(const cordon_policy *pol, cordon_profile *p, const char *const *params, size_t np) {
  cordon_lx_input in = {.policy = pol, .params = params, .nparams = np, .profile = p, .ctx = &ctx};
  cordon_lx_plan *plan = NULL;
  cordon_buf msg = CORDON_BUF_INIT;
  cordon_lx_status st = cordon_lx_compile(&in, &plan, &msg);
  if (st != CORDON_LX_OK) fail_msg("compile: %s: %s", cordon_lx_status_name(st), msg.data ? msg.data : "");
  cordon_buf_free(&msg);
  return plan;
}

static const cordon_lx_rule *rule_at(const cordon_lx_plan *p, const char *path) {
  for (size_t i = 0; i < p->nrules; i++)
    if (strcmp(p->rules[i].path, path) == 0) return &p->rules[i];
  return NULL;
}

static const cordon_mount *mount_at(const cordon_lx_plan *p, const char *path) {
  for (size_t i = 0; i < p->nmounts; i++)
    if (strcmp(p->mounts[i].path, path) == 0) return &p->mounts[i];
  return NULL;
}

static bool noted(const cordon_lx_plan *p, const char *source_part, const char *message_part) {
  for (size_t i = 0; i < p->nnotes; i++)
    if (strstr(p->notes[i].source, source_part) && strstr(p->notes[i].message, message_part)) return true;
  return false;
}

/* What the gate, with the plan's rules, decides for `path`: the write classes allowed there. */
static unsigned gate_decides(const cordon_lx_plan *p, const char *path) {
  unsigned got = 0;
  assert_true(cordon_lx_plan_gate_decide(p, path, false, &got, NULL));
  return got;
}

static bool gate_connects(const cordon_lx_plan *p, const char *path) {
  unsigned got = 0;
  bool ok = false;
  assert_true(cordon_lx_plan_gate_decide(p, path, false, &got, &ok));
  return ok;
}

static const char *at(const char *dir, const char *rel) {
  static char buf[4][512];
  static int k;
  k = (k + 1) % 4;
  snprintf(buf[k], sizeof buf[k], "%s/%s", dir, rel);
  return buf[k];
}

/* IR builders: one rule with ops and one path filter, at file:line */
/* `s` with regex metacharacters escaped (the scratch directory's name has a '.') */
static const char *re_quote(const char *s) {
  static char buf[2][600];
  static int k;
  k ^= 1;
  size_t n = 0;
  for (; *s && n + 2 < sizeof buf[k]; s++) {
    if (strchr(".[]()*+?{}|^$\\", *s)) buf[k][n++] = '\\';
    buf[k][n++] = *s;
  }
  buf[k][n] = '\0';
  return buf[k];
}

static void ir_rule(cordon_policy *pol, cordon_action a, const char *ops, const char *kind, const char *arg,
                    bool is_param, unsigned line) {
  cordon_rule *r = cordon_policy_add_rule(pol, a, (cordon_loc){cordon_policy_intern(pol, "t.sb"), line, 1});
  assert_non_null(r);
  char buf[128];
  snprintf(buf, sizeof buf, "%s", ops);
  for (char *save, *op = strtok_r(buf, " ", &save); op; op = strtok_r(NULL, " ", &save))
    assert_true(cordon_rule_add_op(r, op));
  if (kind) r->filter = cordon_filter_path(kind, arg, is_param);
}

/* The profile's section as an assembled policy carries it (assemble.lua): with a policy, the policy
 * alone decides the files, so a test that wants the profile's roots writes them first. */
static void profile_section(cordon_policy *pol, bool root_read, const char *writable) {
  if (root_read) ir_rule(pol, CORDON_ALLOW, "file-read* process-exec*", "subpath", "/", false, 1);
  ir_rule(pol, CORDON_ALLOW, "file-read* file-write* process-exec*", "subpath", writable, false, 2);
}

static void profile_alone_grants_only_what_it_lists(void **state) {
  (void)state;
  cordon_profile *p = profile(false, true, NULL, CORDON_NETWORK_RESTRICTED);
  cordon_lx_plan *plan = compile(NULL, p, NULL, 0);
  /* nothing said about "/" grants nothing there: only the view's own listing rule sits on it */
  assert_int_equal(rule_at(plan, "/")->access, CORDON_LX_LIST);
  const cordon_lx_rule *w = rule_at(plan, work);
  assert_non_null(w);
  assert_int_equal(w->access, CORDON_LX_ALL);
  assert_true(w->is_dir);
  assert_non_null(rule_at(plan, "/dev/null"));
  assert_true(plan->network_restricted);
  assert_true(plan->scope_signals && plan->scope_abstract_unix);
  cordon_lx_plan_free(plan), cordon_profile_free(p);
}

static void a_denied_secret_inside_a_readable_tree_is_hidden(void **state) {
  (void)state;
  cordon_profile *p = profile(true, true, at(home, ".ssh"), CORDON_NETWORK_RESTRICTED);
  cordon_lx_plan *plan = compile(NULL, p, NULL, 0);
  const cordon_lx_rule *r = rule_at(plan, "/");
  assert_non_null(r);
  assert_int_equal(r->access, CORDON_LX_READ | CORDON_LX_EXEC);
  const cordon_mount *m = mount_at(plan, at(home, ".ssh"));
  assert_non_null(m);
  assert_int_equal(m->kind, CORDON_MOUNT_HIDE);
  assert_true(m->is_dir);
  assert_non_null(strstr(m->source, "profile: deny"));
  cordon_lx_plan_free(plan), cordon_profile_free(p);
}

static void protected_names_are_the_gates_and_no_mount_covers_them(void **state) {
  (void)state;
  cordon_profile *p = profile(true, true, NULL, CORDON_NETWORK_RESTRICTED);
  cordon_lx_plan *plan = compile(NULL, p, NULL, 0);
  assert_null(mount_at(plan, at(work, ".git/hooks")));  /* git's layout rules are the gate's (gate/git.c) */
  assert_null(mount_at(plan, at(work, ".git")));
  assert_false(gate_decides(plan, at(work, ".agents/skill.md")) & CORDON_LX_CREATE);
  assert_false(gate_decides(plan, at(work, ".cordon.yaml")) & CORDON_LX_WRITE);
  assert_true(gate_decides(plan, at(work, "src/a.c")) & CORDON_LX_WRITE);
  assert_true(gate_decides(plan, at(work, "new.txt")) & CORDON_LX_CREATE);
  cordon_lx_plan_free(plan), cordon_profile_free(p);
}

static void a_missing_protected_path_leaves_nothing_on_the_host_and_the_gate_refuses_it(void **state) {
  (void)state;
  char moved[600];
  snprintf(moved, sizeof moved, "%s.away", at(work, ".git"));
  assert_int_equal(rename(at(work, ".git"), moved), 0);
  cordon_profile *p = profile(true, true, NULL, CORDON_NETWORK_RESTRICTED);
  cordon_lx_plan *plan = compile(NULL, p, NULL, 0);
  for (size_t i = 0; i < plan->nmounts; i++) assert_false(cordon_path_within(work, plan->mounts[i].path) &&
                                                           strcmp(plan->mounts[i].path, work) != 0);
  assert_false(gate_decides(plan, at(work, ".codex")) & CORDON_LX_CREATE);  /* .codex does not exist */
  cordon_lx_plan_free(plan);
  cordon_profile_free(p);
  assert_int_equal(rename(moved, at(work, ".git")), 0);
}

static void policy_literals_grant_files_and_subpaths_grant_trees_with_their_source(void **state) {
  (void)state;
  cordon_profile *p = profile(false, false, NULL, CORDON_NETWORK_ENABLED);
  cordon_policy *pol = cordon_policy_new();
  ir_rule(pol, CORDON_DENY, "default", NULL, NULL, false, 1);
  ir_rule(pol, CORDON_ALLOW, "file-read*", "literal", at(home, "docs/n.txt"), false, 2);
  ir_rule(pol, CORDON_ALLOW, "file-read* file-write*", "subpath", "SRC", true, 3);
  const char *params[] = {"SRC", at(work, "src")};
  cordon_lx_plan *plan = compile(pol, p, params, 1);
  const cordon_lx_rule *f = rule_at(plan, at(home, "docs/n.txt"));
  assert_non_null(f);
  assert_false(f->is_dir);
  assert_int_equal(f->access, CORDON_LX_READ);
  assert_string_equal(f->source, "t.sb:2:1");
  const cordon_lx_rule *d = rule_at(plan, at(work, "src"));
  assert_non_null(d);
  assert_int_equal(d->access, CORDON_LX_READ | CORDON_LX_MODIFY);
  assert_string_equal(d->source, "t.sb:3:1");
  assert_null(rule_at(plan, home));
  assert_false(plan->network_restricted);
  cordon_lx_plan_free(plan), cordon_policy_free(pol), cordon_profile_free(p);
}

static void a_literal_on_a_directory_is_a_listing_view_and_the_view_is_listable(void **state) {
  (void)state;
  cordon_profile *p = profile(false, false, NULL, CORDON_NETWORK_ENABLED);
  cordon_policy *pol = cordon_policy_new();
  ir_rule(pol, CORDON_DENY, "default", NULL, NULL, false, 1);
  ir_rule(pol, CORDON_ALLOW, "file-read*", "literal", home, false, 2);
  ir_rule(pol, CORDON_ALLOW, "file-read*", "subpath", at(home, "docs"), false, 3);
  cordon_lx_plan *plan = compile(pol, p, NULL, 0);
  assert_null(rule_at(plan, home));  /* Landlock rights on it would reach its whole subtree */
  const cordon_mount *v = mount_at(plan, home), *d = mount_at(plan, at(home, "docs"));
  assert_non_null(v);
  assert_int_equal(v->kind, CORDON_MOUNT_VIEW);
  assert_string_equal(v->source, "t.sb:2:1");
  assert_non_null(d);
  assert_int_equal(d->kind, CORDON_MOUNT_BIND);
  assert_true(d->read_only);
  assert_true(v < d);  /* the view's stubs first, the grant bound on its stub */
  assert_null(mount_at(plan, at(home, ".ssh")));  /* an empty stub in the view: nothing beneath it is reachable */
  const cordon_lx_rule *list = rule_at(plan, "/");
  assert_non_null(list);
  assert_int_equal(list->access, CORDON_LX_LIST);
  cordon_lx_plan_free(plan), cordon_policy_free(pol), cordon_profile_free(p);
}

static void a_directory_bound_for_exec_alone_keeps_the_view_unlistable(void **state) {
  (void)state;
  cordon_profile *p = profile(false, false, NULL, CORDON_NETWORK_ENABLED);
  cordon_policy *pol = cordon_policy_new();
  ir_rule(pol, CORDON_DENY, "default", NULL, NULL, false, 1);
  ir_rule(pol, CORDON_ALLOW, "process-exec*", "subpath", at(home, "docs"), false, 2);
  cordon_lx_plan *plan = compile(pol, p, NULL, 0);
  assert_non_null(mount_at(plan, at(home, "docs")));
  assert_null(rule_at(plan, "/"));  /* listing the view would reach into what may not be read */
  assert_true(noted(plan, "policy", "listing directories is not granted"));
  cordon_lx_plan_free(plan), cordon_policy_free(pol), cordon_profile_free(p);
}

static void the_runs_own_proc_dev_and_tmp_replace_the_hosts(void **state) {
  (void)state;
  cordon_profile *p = profile(false, true, NULL, CORDON_NETWORK_RESTRICTED);
  cordon_profile_entry t = {NULL, CORDON_SPECIAL_SLASH_TMP, CORDON_ACCESS_WRITE, CORDON_ENTRY_SUBTREE};
  assert_int_equal(cordon_profile_add_entry(p, &t), CORDON_PROFILE_OK);
  ctx.slash_tmp = "/tmp";
  cordon_lx_plan *plan = compile(NULL, p, NULL, 0);
  assert_int_equal(mount_at(plan, "/proc")->kind, CORDON_MOUNT_PROC);
  assert_int_equal(mount_at(plan, "/dev")->kind, CORDON_MOUNT_DEV);
  assert_int_equal(mount_at(plan, "/dev/shm")->kind, CORDON_MOUNT_TMPFS);
  assert_int_equal(mount_at(plan, "/tmp")->kind, CORDON_MOUNT_TMPFS);
  assert_null(mount_at(plan, "/dev/null"));  /* the run's /dev binds its own: never the host's list */
  assert_null(mount_at(plan, "/dev/pts"));
  assert_true(rule_at(plan, "/proc")->access & CORDON_LX_READ);  /* its procfs, readable whole */
  assert_true(rule_at(plan, "/dev/shm")->access & CORDON_LX_CREATE);
  assert_false(plan->shared_tmp);
  cordon_lx_plan_free(plan);
  cordon_lx_input in = {.profile = p, .ctx = &ctx, .shared_tmp = true};
  cordon_buf msg = CORDON_BUF_INIT;
  assert_int_equal(cordon_lx_compile(&in, &plan, &msg), CORDON_LX_OK);
  assert_int_equal(mount_at(plan, "/tmp")->kind, CORDON_MOUNT_BIND);  /* the host's, as the profile grants it */
  assert_false(mount_at(plan, "/tmp")->read_only);
  assert_true(plan->shared_tmp);
  cordon_lx_plan_free(plan);
  cordon_buf_free(&msg);
  cordon_profile_free(p);
  ctx.slash_tmp = NULL;
}

static void under_the_runs_own_tmp_only_what_an_allow_names_comes_from_the_host(void **state) {
  (void)state;
  char dir[] = "/tmp/cordon-lxc-XXXXXX", sub[] = "/tmp/cordon-lxc-other-XXXXXX";
  assert_non_null(mkdtemp(dir));
  assert_non_null(mkdtemp(sub));
  cordon_profile *p = profile(false, true, NULL, CORDON_NETWORK_RESTRICTED);
  cordon_profile_entry t = {NULL, CORDON_SPECIAL_SLASH_TMP, CORDON_ACCESS_WRITE, CORDON_ENTRY_SUBTREE};
  assert_int_equal(cordon_profile_add_entry(p, &t), CORDON_PROFILE_OK);
  roots[0] = dir;  /* a workdir under /tmp */
  ctx.slash_tmp = "/tmp";
  cordon_policy *pol = cordon_policy_new();
  profile_section(pol, false, dir);
  ir_rule(pol, CORDON_ALLOW, "file-read* file-write* process-exec*", "subpath", "/tmp", false, 3);
  ir_rule(pol, CORDON_DENY, "file-read*", "subpath", sub, false, 4);  /* named by a deny only */
  cordon_lx_plan *plan = compile(pol, p, NULL, 0);
  const cordon_mount *w = mount_at(plan, dir);
  assert_non_null(w);
  assert_int_equal(w->kind, CORDON_MOUNT_BIND);
  assert_false(w->read_only);
  assert_null(mount_at(plan, sub));
  cordon_lx_plan_free(plan), cordon_policy_free(pol), cordon_profile_free(p);
  rmdir(sub), rmdir(dir);
  roots[0] = work;
  ctx.slash_tmp = NULL;
}

static void an_allow_regex_is_dropped_and_reported_with_its_source(void **state) {
  (void)state;
  cordon_profile *p = profile(false, false, NULL, CORDON_NETWORK_ENABLED);
  cordon_policy *pol = cordon_policy_new();
  ir_rule(pol, CORDON_DENY, "default", NULL, NULL, false, 1);
  char re[600];
  snprintf(re, sizeof re, "^%s/docs/", re_quote(home));
  ir_rule(pol, CORDON_ALLOW, "file-read*", "regex", re, false, 7);
  cordon_lx_plan *plan = compile(pol, p, NULL, 0);
  assert_null(rule_at(plan, at(home, "docs")));
  assert_true(noted(plan, "t.sb:7:1", "not granted"));
  cordon_lx_plan_free(plan), cordon_policy_free(pol), cordon_profile_free(p);
}

static void a_deny_regex_inside_an_allowed_tree_errs_toward_less_access(void **state) {
  (void)state;
  cordon_profile *p = profile(false, false, NULL, CORDON_NETWORK_ENABLED);
  cordon_policy *pol = cordon_policy_new();
  ir_rule(pol, CORDON_DENY, "default", NULL, NULL, false, 1);
  ir_rule(pol, CORDON_ALLOW, "file-read*", "subpath", home, false, 2);
  char re[600];
  snprintf(re, sizeof re, "^%s/\\.ssh/id_", re_quote(home));
  ir_rule(pol, CORDON_DENY, "file-read*", "regex", re, false, 3);
  cordon_lx_plan *plan = compile(pol, p, NULL, 0);
  assert_non_null(rule_at(plan, home));
  /* the regex reaches inside ~/.ssh: all of ~/.ssh goes (known_hosts too), nothing else under home */
  const cordon_mount *m = mount_at(plan, at(home, ".ssh"));
  assert_non_null(m);
  assert_int_equal(m->kind, CORDON_MOUNT_HIDE);
  assert_null(mount_at(plan, at(home, "docs")));
  assert_true(noted(plan, "t.sb:3:1", "denied there"));
  cordon_lx_plan_free(plan), cordon_policy_free(pol), cordon_profile_free(p);
}

static void a_write_deny_regex_is_decided_by_the_gate_and_the_workdir_stays_writable(void **state) {
  (void)state;
  cordon_profile *p = profile(true, true, NULL, CORDON_NETWORK_RESTRICTED);
  cordon_policy *pol = cordon_policy_new();
  ir_rule(pol, CORDON_DENY, "default", NULL, NULL, false, 1);
  profile_section(pol, true, work);
  char re[600];
  snprintf(re, sizeof re, "^%s(/.*)?/\\.git/hooks(/|$)", re_quote(work));
  ir_rule(pol, CORDON_DENY, "file-write*", "regex", re, false, 9);
  cordon_lx_plan *plan = compile(pol, p, NULL, 0);
  const cordon_lx_rule *w = rule_at(plan, work);
  assert_non_null(w);
  assert_true(w->access & CORDON_LX_WRITE);  /* Landlock bounds writes from above */
  assert_false(mount_at(plan, work)->read_only);
  assert_null(mount_at(plan, at(work, ".git/hooks")));
  /* the gate decides exactly, at any depth */
  assert_false(gate_decides(plan, at(work, "vendor/lib/.git/hooks/pre-commit")) & CORDON_LX_CREATE);
  assert_false(gate_decides(plan, at(work, ".git/hooks")) & CORDON_LX_WRITE);
  assert_true(gate_decides(plan, at(work, "vendor/lib/.git/index")) & CORDON_LX_WRITE);
  cordon_lx_plan_free(plan), cordon_policy_free(pol), cordon_profile_free(p);
}

static void an_unrestricted_filesystem_has_no_landlock_rules(void **state) {
  (void)state;
  cordon_profile *p = profile(true, true, NULL, CORDON_NETWORK_RESTRICTED);
  assert_int_equal(cordon_profile_set_fs_kind(p, CORDON_FS_UNRESTRICTED), CORDON_PROFILE_OK);
  cordon_lx_plan *plan = compile(NULL, p, NULL, 0);
  assert_true(plan->fs_unrestricted);
  assert_int_equal(plan->nrules, 0);
  assert_int_equal(plan->nmounts, 0);
  assert_true(plan->network_restricted);
  cordon_lx_plan_free(plan), cordon_profile_free(p);
}

static void disabled_profiles_are_refused(void **state) {
  (void)state;
  cordon_profile *p = cordon_profile_new(CORDON_PROFILE_DISABLED);
  cordon_lx_input in = {.profile = p, .ctx = &ctx};
  cordon_lx_plan *plan = NULL;
  cordon_buf msg = CORDON_BUF_INIT;
  assert_int_equal(cordon_lx_compile(&in, &plan, &msg), CORDON_LX_INVALID);
  assert_null(plan);
  assert_non_null(strstr(msg.data, "disabled"));
  cordon_buf_free(&msg);
  cordon_profile_free(p);
}

static void the_kernel_check_gives_hints_a_user_can_act_on(void **state) {
  (void)state;
  cordon_lx_probe_result pr = {.abi = 0, .landlock_errno = EOPNOTSUPP, .userns = true, .kernel = "6.1.0"};
  cordon_buf msg = CORDON_BUF_INIT;
  assert_int_equal(cordon_lx_check(&pr, 3, false, &msg), CORDON_LX_NOT_AVAILABLE);
  assert_non_null(strstr(msg.data, "lsm="));
  cordon_buf_reset(&msg);
  pr.landlock_errno = ENOSYS;
  assert_int_equal(cordon_lx_check(&pr, 3, true, &msg), CORDON_LX_NOT_AVAILABLE);  /* best effort needs >= 1 */
  assert_non_null(strstr(msg.data, "CONFIG_SECURITY_LANDLOCK"));
  cordon_buf_reset(&msg);
  pr.abi = 2;
  assert_int_equal(cordon_lx_check(&pr, 3, false, &msg), CORDON_LX_NOT_AVAILABLE);
  assert_non_null(strstr(msg.data, "--best-effort"));
  assert_non_null(strstr(msg.data, "ABI 2"));
  cordon_buf_reset(&msg);
  assert_int_equal(cordon_lx_check(&pr, 3, true, &msg), CORDON_LX_OK);
  cordon_buf_free(&msg);
}

static void rights_follow_the_abi_and_drop_directory_rights_on_files(void **state) {
  (void)state;
  uint64_t dir = cordon_lx_landlock_rights(CORDON_LX_ALL, true, 7);
  uint64_t file = cordon_lx_landlock_rights(CORDON_LX_ALL, false, 7);
  assert_true(dir & (1ULL << 7));    /* MAKE_DIR */
  assert_false(file & (1ULL << 7));
  assert_false(file & (1ULL << 3));  /* READ_DIR */
  assert_true(file & (1ULL << 14));  /* TRUNCATE */
  assert_false(cordon_lx_landlock_rights(CORDON_LX_WRITE, false, 2) & (1ULL << 14)); /* unknown before ABI 3 */
  assert_false(cordon_lx_landlock_handled_fs(4) & (1ULL << 15));                    /* IOCTL_DEV: ABI 5 */
  assert_true(cordon_lx_landlock_handled_fs(5) & (1ULL << 15));
  assert_int_equal(cordon_lx_landlock_handled_fs(0), 0);
}

static void the_plan_describes_itself_as_text_and_json(void **state) {
  (void)state;
  cordon_profile *p = profile(true, true, at(home, ".ssh"), CORDON_NETWORK_RESTRICTED);
  cordon_lx_plan *plan = compile(NULL, p, NULL, 0);
  cordon_buf b = CORDON_BUF_INIT;
  cordon_lx_plan_describe(plan, &b);
  assert_non_null(strstr(b.data, "hide"));
  assert_non_null(strstr(b.data, "network: restricted"));
  char *json = cordon_lx_plan_to_json(plan);
  assert_non_null(json);
  assert_non_null(strstr(json, "\"landlock_rules\""));
  assert_non_null(strstr(json, "\"kind\":\"hide\""));
  free(json);
  cordon_buf_free(&b);
  cordon_lx_plan_free(plan), cordon_profile_free(p);
}

static void a_write_denied_inside_a_writable_tree_is_the_gates_and_allowed_again_deeper_too(void **state) {
  (void)state;
  cordon_profile *p = profile(true, true, NULL, CORDON_NETWORK_RESTRICTED);
  cordon_policy *pol = cordon_policy_new();
  profile_section(pol, true, work);
  ir_rule(pol, CORDON_DENY, "file-write*", "subpath", at(work, "src"), false, 4);
  ir_rule(pol, CORDON_ALLOW, "file-write*", "literal", at(work, "src/a.c"), false, 5);
  cordon_lx_plan *plan = compile(pol, p, NULL, 0);
  assert_null(mount_at(plan, at(work, "src")));
  assert_null(mount_at(plan, at(work, "src/a.c")));
  assert_false(gate_decides(plan, at(work, "src/b.c")) & CORDON_LX_WRITE);
  assert_false(gate_decides(plan, at(work, "src/new")) & CORDON_LX_CREATE);
  assert_true(gate_decides(plan, at(work, "src/a.c")) & CORDON_LX_WRITE);
  cordon_lx_plan_free(plan), cordon_policy_free(pol), cordon_profile_free(p);
}

static void exec_denied_inside_an_executable_tree_is_a_noexec_bind(void **state) {
  (void)state;
  cordon_profile *p = profile(true, true, NULL, CORDON_NETWORK_RESTRICTED);
  cordon_policy *pol = cordon_policy_new();
  profile_section(pol, true, work);
  ir_rule(pol, CORDON_DENY, "process-exec*", "subpath", at(work, "src"), false, 6);
  cordon_lx_plan *plan = compile(pol, p, NULL, 0);
  const cordon_mount *m = mount_at(plan, at(work, "src"));
  assert_non_null(m);
  assert_true(m->no_exec);
  assert_false(m->read_only);
  cordon_lx_plan_free(plan), cordon_policy_free(pol), cordon_profile_free(p);
}

/* A unix socket bound at base/NAME (left on disk when the descriptor closes). */
static const char *bind_socket(const char *name) {
  static char sock[400];
  snprintf(sock, sizeof sock, "%s/%s", base, name);
  unlink(sock);
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  assert_true(fd >= 0 && strlen(sock) < sizeof sa.sun_path);
  memcpy(sa.sun_path, sock, strlen(sock) + 1);
  assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
  close(fd);
  return sock;
}

/* SBPL text compiled as `cordon run` compiles it, with SOCK as a -D parameter. */
static cordon_lx_plan *compile_sbpl(const char *text, cordon_profile *p, const char *sock) {
  cordon_params ps = CORDON_PARAMS_INIT;
  assert_true(cordon_params_add(&ps, "SOCK", sock));
  cordon_lx_plan *plan = NULL;
  cordon_buf msg = CORDON_BUF_INIT;
  cordon_lx_status st = cordon_lx_compile_text(text, &ps, p, &ctx, NULL, false, &plan, &msg);
  if (st != CORDON_LX_OK) fail_msg("compile: %s: %s", cordon_lx_status_name(st), msg.data ? msg.data : "");
  cordon_buf_free(&msg);
  cordon_params_free(&ps);
  return plan;
}

#define DENY_SOCK "(deny network-outbound (remote unix-socket (path-literal (param \"SOCK\"))))\n"
#define ALLOW_SOCK "(allow network-outbound (remote unix-socket (path-literal (param \"SOCK\"))))\n"

static void a_socket_the_policy_names_in_an_allow_is_bound_into_the_view(void **state) {
  (void)state;
  const char *sock = bind_socket("agent.sock");
  cordon_profile *p = profile(false, true, NULL, CORDON_NETWORK_ENABLED);
  cordon_lx_plan *plan = compile_sbpl("(version 1)\n(deny default)\n" DENY_SOCK ALLOW_SOCK, p, sock);
  const cordon_mount *m = mount_at(plan, sock);
  assert_non_null(m);
  assert_int_equal(m->kind, CORDON_MOUNT_BIND);
  assert_false(m->is_dir);
  assert_string_equal(m->source, "policy:4:1");
  assert_true(gate_connects(plan, sock));  /* the integration, later, wins (docker.sb after the core deny) */
  cordon_lx_plan_free(plan);
  /* a later deny wins: the socket is neither in the view nor connectable */
  plan = compile_sbpl("(version 1)\n(deny default)\n" ALLOW_SOCK DENY_SOCK, p, sock);
  assert_null(mount_at(plan, sock));
  assert_false(gate_connects(plan, sock));
  cordon_lx_plan_free(plan);
  cordon_profile_free(p);
  unlink(sock);
}

static void the_gate_decides_connects_in_the_policys_order_and_nothing_else_names_a_socket(void **state) {
  (void)state;
  const char *sock = bind_socket("runtime.sock");
  cordon_profile *p = profile(true, true, NULL, CORDON_NETWORK_ENABLED);
  /* inside require-any, and on network* rather than network-outbound */
  cordon_lx_plan *plan = compile_sbpl("(version 1)\n(allow default)\n(deny network* (require-any (remote unix-socket "
                                      "(path-literal \"/nonexistent/x.sock\")) (remote unix-socket (path-literal "
                                      "(param \"SOCK\")))))\n", p, sock);
  assert_false(gate_connects(plan, sock));
  assert_null(mount_at(plan, sock));  /* in a tree bound whole: already in the view */
  cordon_lx_plan_free(plan);
  /* a connect allow on another path, or a file allow on this one, reopens nothing */
  plan = compile_sbpl("(version 1)\n(allow default)\n" DENY_SOCK "(allow network-outbound (remote unix-socket "
                      "(path-literal \"/elsewhere.sock\")))\n(allow file-read* (literal (param \"SOCK\")))\n", p, sock);
  assert_false(gate_connects(plan, sock));
  cordon_lx_plan_free(plan);
  /* $SSH_AUTH_SOCK alone names nothing: which sockets matter is the policy's (ssh-agent-default-deny.sb) */
  setenv("SSH_AUTH_SOCK", sock, 1);
  plan = compile(NULL, p, NULL, 0);
  assert_null(mount_at(plan, sock));
  cordon_lx_plan_free(plan);
  unsetenv("SSH_AUTH_SOCK");
  cordon_profile_free(p);
  unlink(sock);
}

static void the_profiles_home_entries_are_the_gates_in_a_writable_home(void **state) {
  (void)state;
  put("w/h", true), put("w/h/.bashrc", false), put("w/h/.config", true), put("w/h/.config/fish", true);
  cordon_profile *p = profile(true, true, NULL, CORDON_NETWORK_RESTRICTED);
  char inner[400];
  snprintf(inner, sizeof inner, "%s/h", work);
  ctx.home = inner;  /* HOME inside the writable workdir */
  cordon_lx_input in = {.profile = p, .ctx = &ctx};
  cordon_lx_plan *plan = NULL;
  cordon_buf msg = CORDON_BUF_INIT;
  /* nothing listed, nothing denied: the list is the profile's data (lua/cordon/standard.lua), not here */
  cordon_profile_clear_protected(p);
  assert_int_equal(cordon_lx_compile(&in, &plan, &msg), CORDON_LX_OK);
  assert_true(gate_decides(plan, at(inner, ".bashrc")) & CORDON_LX_WRITE);
  cordon_lx_plan_free(plan);
  assert_int_equal(cordon_profile_add_protected(p, "~/.bashrc"), CORDON_PROFILE_OK);
  assert_int_equal(cordon_profile_add_protected(p, "~/.config/fish"), CORDON_PROFILE_OK);
  assert_int_equal(cordon_lx_compile(&in, &plan, &msg), CORDON_LX_OK);
  assert_null(mount_at(plan, at(inner, ".bashrc")));
  assert_false(gate_decides(plan, at(inner, ".bashrc")) & CORDON_LX_WRITE);
  assert_false(gate_decides(plan, at(inner, ".config/fish/config.fish")) & CORDON_LX_CREATE);
  assert_true(gate_decides(plan, at(inner, ".profile")) & CORDON_LX_WRITE);  /* not listed: the list decides */
  cordon_lx_plan_free(plan);
  cordon_buf_free(&msg);
  cordon_profile_free(p);
  char cmd[500];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", inner);
  assert_int_equal(system(cmd), 0);
  ctx.home = home;
}

static void a_plan_and_its_gate_rules_survive_a_run_cache_entry(void **state) {
  (void)state;
  cordon_profile *p = profile(true, true, at(home, ".ssh"), CORDON_NETWORK_RESTRICTED);
  cordon_policy *pol = cordon_policy_new();
  profile_section(pol, true, work);
  char re[600];
  snprintf(re, sizeof re, "^%s/(.*/)?secret$", re_quote(work));
  ir_rule(pol, CORDON_DENY, "file-write*", "regex", re, false, 3);
  cordon_lx_plan *plan = compile(pol, p, NULL, 0);
  assert_true(cordon_lx_plan_add_git_safe_key(plan, "remote.*.url"));
  plan->limits = (cordon_lx_limits){.memory = 2ull << 30, .procs = 512, .cpu = 60};
  static char *argv[] = {"true", NULL}, *env[] = {"A=b", NULL};
  cordon_lx_run_entry e = {.key = "k", .calls = "", .obs_kinds = "", .argv = argv, .env = env, .cwd = "/", .plan = plan};
  cordon_buf bytes = CORDON_BUF_INIT;
  cordon_lx_runcache_encode(&e, &bytes);
  cordon_lx_run_entry back;
  const char *why = NULL;
  assert_true(cordon_lx_runcache_parse(bytes.data, bytes.len, "k", &back, &why));
  assert_int_equal(back.plan->ngrules, 0);  /* undecoded until init wants them */
  assert_true(cordon_lx_plan_has_gate(back.plan));
  assert_true(cordon_lx_plan_gate_decode(back.plan));
  cordon_buf a = CORDON_BUF_INIT, b = CORDON_BUF_INIT;
  cordon_lx_plan_describe(plan, &a);
  cordon_lx_plan_describe(back.plan, &b);
  char *notes = strstr(a.data, "\napproximation:");  /* explain-only parts are not kept */
  if (notes) notes[1] = '\0';
  notes = strstr(a.data, "\nskipped");
  if (notes) notes[1] = '\0';
  assert_string_equal(a.data, b.data);
  assert_false(gate_decides(back.plan, at(work, "a/b/secret")) & CORDON_LX_WRITE);
  assert_true(gate_decides(back.plan, at(work, "a/b/open")) & CORDON_LX_WRITE);
  assert_int_equal(back.plan->limits.procs, 512);
  assert_int_equal(back.plan->ngit_safe_keys, 1);
  cordon_buf_free(&a), cordon_buf_free(&b), cordon_buf_free(&bytes);
  back.plan->record = false;
  cordon_lx_run_entry_free(&back);
  cordon_lx_plan_free(plan), cordon_policy_free(pol), cordon_profile_free(p);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(profile_alone_grants_only_what_it_lists),
      cmocka_unit_test(a_denied_secret_inside_a_readable_tree_is_hidden),
      cmocka_unit_test(protected_names_are_the_gates_and_no_mount_covers_them),
      cmocka_unit_test(a_missing_protected_path_leaves_nothing_on_the_host_and_the_gate_refuses_it),
      cmocka_unit_test(policy_literals_grant_files_and_subpaths_grant_trees_with_their_source),
      cmocka_unit_test(a_literal_on_a_directory_is_a_listing_view_and_the_view_is_listable),
      cmocka_unit_test(a_directory_bound_for_exec_alone_keeps_the_view_unlistable),
      cmocka_unit_test(the_runs_own_proc_dev_and_tmp_replace_the_hosts),
      cmocka_unit_test(under_the_runs_own_tmp_only_what_an_allow_names_comes_from_the_host),
      cmocka_unit_test(an_allow_regex_is_dropped_and_reported_with_its_source),
      cmocka_unit_test(a_deny_regex_inside_an_allowed_tree_errs_toward_less_access),
      cmocka_unit_test(a_write_deny_regex_is_decided_by_the_gate_and_the_workdir_stays_writable),
      cmocka_unit_test(an_unrestricted_filesystem_has_no_landlock_rules),
      cmocka_unit_test(disabled_profiles_are_refused),
      cmocka_unit_test(the_kernel_check_gives_hints_a_user_can_act_on),
      cmocka_unit_test(rights_follow_the_abi_and_drop_directory_rights_on_files),
      cmocka_unit_test(the_plan_describes_itself_as_text_and_json),
      cmocka_unit_test(a_write_denied_inside_a_writable_tree_is_the_gates_and_allowed_again_deeper_too),
      cmocka_unit_test(exec_denied_inside_an_executable_tree_is_a_noexec_bind),
      cmocka_unit_test(a_socket_the_policy_names_in_an_allow_is_bound_into_the_view),
      cmocka_unit_test(the_gate_decides_connects_in_the_policys_order_and_nothing_else_names_a_socket),
      cmocka_unit_test(the_profiles_home_entries_are_the_gates_in_a_writable_home),
      cmocka_unit_test(a_plan_and_its_gate_rules_survive_a_run_cache_entry),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
