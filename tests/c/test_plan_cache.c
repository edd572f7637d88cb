/* needs: linux */
/* tests/c/test_plan_cache.c — the plan cache (src/backend/linux/cache.c): a plan is reused only while the
 * disk agrees, only from files the caller alone can write, and any file that is not exactly a plan for
 * its key (truncated, another key or format, trailing bytes) is a miss that compiles afresh. The seccomp
 * program it keeps is used only on the machine, kernel and libseccomp that built it. Scratch trees under
 * /var/tmp/cordon-tests, as test_linux_compile.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/linux/linux.h"
#include "backend/linux/runcache.h"
#include "backend/linux/seccomp.h"

#include "lx_scratch.h"

static int setup(void **state) {
  (void)state;
  if (scratch_make("plc") != 0) return -1;
  put("w", true), put("w/.git", true), put("w/src", true), put("h", true), put("h/.ssh", true);
  return 0;
}

static const char *roots[1];
static cordon_profile_ctx ctx;

static cordon_profile *profile(const char *deny) {
  cordon_profile *p = cordon_profile_new(CORDON_PROFILE_MANAGED);
  assert_non_null(p);
  cordon_profile_entry r = {NULL, CORDON_SPECIAL_ROOT, CORDON_ACCESS_READ, CORDON_ENTRY_SUBTREE};
  assert_int_equal(cordon_profile_add_entry(p, &r), CORDON_PROFILE_OK);
  cordon_profile_entry w = {NULL, CORDON_SPECIAL_WORKSPACE_ROOTS, CORDON_ACCESS_WRITE, CORDON_ENTRY_SUBTREE};
  assert_int_equal(cordon_profile_add_entry(p, &w), CORDON_PROFILE_OK);
  if (deny) {
    cordon_profile_entry e = {deny, CORDON_SPECIAL_NONE, CORDON_ACCESS_DENY, CORDON_ENTRY_SUBTREE};
    assert_int_equal(cordon_profile_add_entry(p, &e), CORDON_PROFILE_OK);
  }
  cordon_profile_set_network(p, CORDON_NETWORK_RESTRICTED);
  roots[0] = work;
  ctx = (cordon_profile_ctx){work, roots, 1, NULL, home, NULL};
  return p;
}

static const char *at(const char *dir, const char *rel) {
  static char buf[4][512];
  static int k;
  k = (k + 1) % 4;
  snprintf(buf[k], sizeof buf[k], "%s/%s", dir, rel);
  return buf[k];
}

/* The number of plan files in `dir` (JSON ones of an older format too); `last` gets one's name. */
static size_t count_plans(const char *dir, char *last, size_t cap) {
  char cmd[700];
  snprintf(cmd, sizeof cmd, "ls '%s' 2>/dev/null | grep -c '[.]\\(plan\\|json\\)$'", dir);
  FILE *f = popen(cmd, "r");
  size_t n = 0;
  if (f && fscanf(f, "%zu", &n) != 1) n = 0;
  if (f) pclose(f);
  snprintf(cmd, sizeof cmd, "ls '%s' 2>/dev/null | grep '[.]plan$' | tail -1", dir);
  f = popen(cmd, "r");
  if (f && last && fgets(last, (int)cap, f)) last[strcspn(last, "\n")] = '\0';
  if (f) pclose(f);
  return n;
}

static cordon_lx_plan *cached(cordon_profile *p) {
  cordon_lx_plan *plan = NULL;
  cordon_buf msg = CORDON_BUF_INIT;
  assert_int_equal(cordon_lx_compile_cached(NULL, NULL, p, &ctx, NULL, &plan, &msg), CORDON_LX_OK);
  cordon_buf_free(&msg);
  return plan;
}

/* The plan as explain shows it (JSON, the explain-only parts included). */
static char *cached_json(cordon_profile *p) {
  cordon_lx_plan *plan = cached(p);
  char *json = cordon_lx_plan_to_json(plan);
  cordon_lx_plan_free(plan);
  return json;
}

static char *fresh_json(cordon_profile *p) {
  cordon_lx_plan *plan = NULL;
  cordon_buf msg = CORDON_BUF_INIT;
  assert_int_equal(cordon_lx_compile_text(NULL, NULL, p, &ctx, NULL, false, &plan, &msg), CORDON_LX_OK);
  cordon_buf_free(&msg);
  char *json = cordon_lx_plan_to_json(plan);
  cordon_lx_plan_free(plan);
  return json;
}

static char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  char *buf = malloc(1 << 22);
  assert_non_null(buf);
  *n = fread(buf, 1, 1 << 22, f);
  fclose(f);
  return buf;
}

static void spill(const char *path, const char *data, size_t n, mode_t mode) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(data, 1, n, f), n);
  fclose(f);
  assert_int_equal(chmod(path, mode), 0);
}

/* The cache in base/NAME; `plans` and (after the first compile) `file` name its directory and plan. */
static void use_cache(const char *name, char plans[500]) {
  char cache[400];
  snprintf(cache, sizeof cache, "%s/%s", base, name);
  snprintf(plans, 500, "%s/cordon/linux-plans", cache);
  setenv("XDG_CACHE_HOME", cache, 1);
}

static void a_cached_plan_is_reused_only_while_the_disk_agrees(void **state) {
  (void)state;
  char plans[500], name[200] = "";
  use_cache("xdg", plans);
  cordon_profile *p = profile(at(home, ".aws"));
  char *first = cached_json(p);
  assert_int_equal(count_plans(plans, name, sizeof name), 1);
  char *second = cached_json(p);
  assert_string_equal(first, second);
  char *fresh = fresh_json(p);
  assert_string_equal(first, fresh);  /* explain's parts too: the file keeps the whole plan */
  assert_null(strstr(first, "\"kind\":\"hide\""));  /* ~/.aws is missing: nothing to hide */
  put("h/.aws", true);  /* the disk changes: the plan must follow */
  char *third = cached_json(p);
  assert_string_not_equal(first, third);
  assert_non_null(strstr(third, "\"kind\":\"hide\""));
  rmdir(at(home, ".aws"));
  free(first), free(second), free(third), free(fresh);
  cordon_profile_free(p);
  unsetenv("XDG_CACHE_HOME");
}

static void a_cache_file_others_could_write_is_ignored(void **state) {
  (void)state;
  char plans[500], name[200] = "", file[800], key[64];
  use_cache("xdg2", plans);
  cordon_profile *p = profile(NULL);
  free(cached_json(p));
  assert_int_equal(count_plans(plans, name, sizeof name), 1);
  snprintf(file, sizeof file, "%s/%s", plans, name);
  snprintf(key, sizeof key, "%.*s", (int)(strlen(name) - 5), name);
  /* a forged plan under the right key that grants everything: unrestricted, no rules, no view */
  cordon_lx_plan *forged = cordon_lx_plan_new();
  forged->min_abi = 3, forged->fs_unrestricted = true;
  cordon_buf bytes = CORDON_BUF_INIT;
  cordon_lx_plancache_encode(key, forged, &bytes);
  cordon_lx_plan_free(forged);
  spill(file, bytes.data, bytes.len, 0666);
  char *json = cached_json(p);
  assert_non_null(strstr(json, "\"filesystem\":\"restricted\""));
  free(json);
  /* the same bytes in a file only the caller can write are taken: the test tells the two apart */
  spill(file, bytes.data, bytes.len, 0600);
  json = cached_json(p);
  assert_non_null(strstr(json, "\"filesystem\":\"unrestricted\""));
  free(json);
  unlink(file);
  cordon_buf_free(&bytes);
  cordon_profile_free(p);
  unsetenv("XDG_CACHE_HOME");
}

/* Writes `data` as the plan file, compiles through the cache, and requires the fresh plan. */
static void a_miss_with(cordon_profile *p, const char *file, const char *data, size_t n, const char *fresh) {
  spill(file, data, n, 0600);
  char *json = cached_json(p);
  assert_string_equal(json, fresh);
  free(json);
}

static void a_plan_file_that_is_not_exactly_a_plan_for_its_key_is_a_miss(void **state) {
  (void)state;
  char plans[500], name[200] = "", file[800];
  use_cache("xdg4", plans);
  cordon_profile *p = profile(at(home, ".ssh"));
  char *fresh = fresh_json(p);
  free(cached_json(p));
  assert_int_equal(count_plans(plans, name, sizeof name), 1);
  snprintf(file, sizeof file, "%s/%s", plans, name);
  size_t n;
  char *good = slurp(file, &n);
  assert_true(n > 64);
  char *bad = malloc(n + 1);
  memcpy(bad, good, n);
  /* every prefix is a miss (each length field is checked against what is left) */
  for (size_t cut = 0; cut < n; cut += cut < 64 ? 1 : 97) a_miss_with(p, file, good, cut, fresh);
  bad[n] = 'x';
  a_miss_with(p, file, bad, n + 1, fresh);  /* trailing bytes */
  bad[0] = 'X';
  a_miss_with(p, file, bad, n, fresh);  /* not a plan file */
  memcpy(bad, good, n);
  bad[8] ^= 1;
  a_miss_with(p, file, bad, n, fresh);  /* another format */
  memcpy(bad, good, n);
  bad[16] = bad[16] == 'a' ? 'b' : 'a';
  a_miss_with(p, file, bad, n, fresh);  /* another key */
  /* every miss wrote the plan again: the next compile reads it, and it is the good one */
  size_t m;
  char *again = slurp(file, &m);
  assert_int_equal(m, n);
  assert_memory_equal(again, good, n);
  free(again), free(bad), free(good), free(fresh);
  cordon_profile_free(p);
  unsetenv("XDG_CACHE_HOME");
}

static void the_seccomp_program_kept_serves_only_the_machine_that_built_it(void **state) {
  (void)state;
  char plans[500], name[200] = "", file[800];
  use_cache("xdg5", plans);
  cordon_profile *p = profile(NULL);
  cordon_lx_plan *first = cached(p);
  assert_true(cordon_lx_seccomp_stored(first));
  cordon_buf built = CORDON_BUF_INIT;
  assert_true(cordon_lx_seccomp_export(first, cordon_lx_plan_has_gate(first) ? CORDON_LX_SECCOMP_GATE
                                                                              : CORDON_LX_SECCOMP_BASE, &built));
  cordon_lx_plan *second = cached(p);  /* from the file */
  assert_true(cordon_lx_seccomp_stored(second));
  assert_int_equal(second->seccomp_base_len + second->seccomp_gate_len, built.len);
  assert_memory_equal(second->seccomp_bpf, built.data, built.len);
  cordon_lx_plan_free(second);
  /* the same file as if another kernel had built it: its program is not taken, but built again here
   * and kept, so the file then holds this machine's */
  assert_int_equal(count_plans(plans, name, sizeof name), 1);
  snprintf(file, sizeof file, "%s/%s", plans, name);
  cordon_buf here = CORDON_BUF_INIT;
  cordon_lx_seccomp_kernel(&here);
  size_t n;
  char *bytes = slurp(file, &n);
  char *valid = memmem(bytes, n, here.data, here.len);
  assert_non_null(valid);
  valid[0] ^= 0x20;
  spill(file, bytes, n, 0600);
  char key[64];
  snprintf(key, sizeof key, "%.*s", (int)(strlen(name) - 5), name);
  cordon_lx_plan *parsed = cordon_lx_plancache_parse(bytes, n, key);
  assert_non_null(parsed);
  assert_false(cordon_lx_seccomp_stored(parsed));  /* not this machine's: the parse drops it */
  cordon_lx_plan *third = cached(p);
  assert_true(cordon_lx_seccomp_stored(third));
  assert_int_equal(third->nrules, first->nrules);
  size_t m;
  char *rewritten = slurp(file, &m);
  assert_int_equal(m, n);
  assert_non_null(memmem(rewritten, m, here.data, here.len));
  cordon_lx_plan *fourth = cached(p);
  assert_memory_equal(fourth->seccomp_bpf, built.data, built.len);
  cordon_lx_plan_free(fourth), cordon_lx_plan_free(third), cordon_lx_plan_free(parsed), cordon_lx_plan_free(first);
  free(bytes), free(rewritten);
  cordon_buf_free(&here), cordon_buf_free(&built);
  cordon_profile_free(p);
  unsetenv("XDG_CACHE_HOME");
}

static void the_cache_keeps_at_most_64_plans_evicting_the_least_recently_used(void **state) {
  (void)state;
  char plans[500], cmd[2400], name[200] = "";
  use_cache("xdg3", plans);
  snprintf(cmd, sizeof cmd, "mkdir -p '%s' && chmod 700 '%s' '%s/..' && cd '%s' && for i in $(seq 70); do "
           "echo {} > old$i.json; done && touch -d '2 days ago' old*.json", plans, plans, plans, plans);
  assert_int_equal(system(cmd), 0);
  cordon_profile *p = profile(NULL);
  free(cached_json(p));
  assert_int_equal(count_plans(plans, name, sizeof name), 64);
  assert_true(name[0]);  /* the new plan survived the eviction it caused */
  free(cached_json(p));
  assert_int_equal(count_plans(plans, name, sizeof name), 64);
  cordon_profile_free(p);
  unsetenv("XDG_CACHE_HOME");
}

static void every_plan_denies_writing_the_plan_cache(void **state) {
  (void)state;
  char cache[400], root[500];
  snprintf(cache, sizeof cache, "%s/cache-in-work", work);
  snprintf(root, sizeof root, "%s/cordon", cache);
  setenv("XDG_CACHE_HOME", cache, 1);
  mkdir(cache, 0700);
  mkdir(root, 0700);
  cordon_profile *p = profile(NULL);
  cordon_lx_plan *plan = NULL;
  cordon_buf msg = CORDON_BUF_INIT;
  assert_int_equal(cordon_lx_compile_text(NULL, NULL, p, &ctx, NULL, false, &plan, &msg), CORDON_LX_OK);
  assert_true(cordon_lx_plan_gate_protects(plan, root));
  assert_false(cordon_lx_plan_gate_protects(plan, work));
  cordon_lx_plan_free(plan);
  cordon_buf_free(&msg);
  cordon_profile_free(p);
  rmdir(root);
  rmdir(cache);
  unsetenv("XDG_CACHE_HOME");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(a_cached_plan_is_reused_only_while_the_disk_agrees),
      cmocka_unit_test(a_cache_file_others_could_write_is_ignored),
      cmocka_unit_test(a_plan_file_that_is_not_exactly_a_plan_for_its_key_is_a_miss),
      cmocka_unit_test(the_seccomp_program_kept_serves_only_the_machine_that_built_it),
      cmocka_unit_test(the_cache_keeps_at_most_64_plans_evicting_the_least_recently_used),
      cmocka_unit_test(every_plan_denies_writing_the_plan_cache),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
