/* tests/c/test_ops.c — the operation table: names, aliases, fallback chains, default coverage. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "sbpl/ops.h"

static void table_is_sorted_so_lookups_find_every_name(void **state) {
  (void)state;
  const char *prev = NULL, *n;
  unsigned i;
  for (i = 0; (n = cordon_sbpl_op_at(i)); i++) {
    if (prev) assert_true(strcmp(prev, n) < 0);
    assert_int_equal(cordon_sbpl_op_index(n), (int)i);
    assert_string_equal(cordon_sbpl_op_canonical(n), n);
    prev = n;
  }
  assert_int_equal(i, cordon_sbpl_op_count());
  assert_true(i > 150);
}

static void every_chain_ends_at_default(void **state) {
  (void)state;
  const char *n;
  for (unsigned i = 0; (n = cordon_sbpl_op_at(i)); i++) {
    const char *p = n, *last = n;
    int steps = 0;
    while ((p = cordon_sbpl_op_parent(p))) {
      last = p;
      assert_true(++steps < 10);
      size_t len = strlen(p);
      /* every parent is a wildcard family or default */
      assert_true(!strcmp(p, "default") || p[len - 1] == '*');
    }
    assert_string_equal(last, "default");
  }
}

static void aliases_expand_to_their_canonical_operation(void **state) {
  (void)state;
  assert_string_equal(cordon_sbpl_op_canonical("process-exec"), "process-exec*");
  assert_string_equal(cordon_sbpl_op_canonical("file-unlink"), "file-write-unlink");
  assert_string_equal(cordon_sbpl_op_canonical("ipc-posix-shm"), "ipc-posix-shm*");
  assert_string_equal(cordon_sbpl_op_canonical("ipc-posix-sem"), "ipc-posix-sem*");
  assert_null(cordon_sbpl_op_canonical("file-reed-data"));
  assert_null(cordon_sbpl_op_canonical(""));
  assert_int_equal(cordon_sbpl_op_index("process-exec"), -1); /* aliases are not table names */
}

static void file_read_data_falls_back_through_file_read_star_and_file_star(void **state) {
  (void)state;
  assert_string_equal(cordon_sbpl_op_parent("file-read-data"), "file-read*");
  assert_string_equal(cordon_sbpl_op_parent("file-read*"), "file*");
  assert_string_equal(cordon_sbpl_op_parent("file*"), "default");
  assert_null(cordon_sbpl_op_parent("default"));
  assert_null(cordon_sbpl_op_parent("no-such-op"));
  assert_string_equal(cordon_sbpl_op_parent("file-write-unlink"), "file-write*");
  assert_string_equal(cordon_sbpl_op_parent("network-outbound"), "network*");
  assert_string_equal(cordon_sbpl_op_parent("process-exec-interpreter"), "process-exec*");
  assert_string_equal(cordon_sbpl_op_parent("ipc-posix-shm-read-data"), "ipc-posix-shm-read*");
  assert_string_equal(cordon_sbpl_op_parent("mach-lookup"), "mach*");
  assert_string_equal(cordon_sbpl_op_parent("sysctl-read"), "sysctl*");
  assert_string_equal(cordon_sbpl_op_parent("iokit-open"), "iokit*");
  assert_string_equal(cordon_sbpl_op_parent("signal"), "default");
  assert_int_equal(cordon_sbpl_op_parent_index(cordon_sbpl_op_index("default")), -1);
}

static void deny_default_does_not_reach_process_info_and_friends(void **state) {
  (void)state;
  assert_false(cordon_sbpl_op_default_covers("process-info*"));
  assert_false(cordon_sbpl_op_default_covers("process-info-pidinfo"));
  assert_false(cordon_sbpl_op_default_covers("file-map-executable"));
  assert_false(cordon_sbpl_op_default_covers("iokit-get-properties"));
  assert_false(cordon_sbpl_op_default_covers("nvram*"));
  assert_false(cordon_sbpl_op_default_covers("nvram-get"));
  assert_false(cordon_sbpl_op_default_covers("unknown-op"));
  assert_true(cordon_sbpl_op_default_covers("file-read-data"));
  assert_true(cordon_sbpl_op_default_covers("process-exec*"));
  assert_true(cordon_sbpl_op_default_covers("iokit-open"));
}

static void within_holds_for_wildcard_families_only(void **state) {
  (void)state;
  assert_true(cordon_sbpl_op_within("file-read-data", "file*"));
  assert_true(cordon_sbpl_op_within("file-read-data", "file-read*"));
  assert_true(cordon_sbpl_op_within("file-read*", "file-read*"));
  assert_true(cordon_sbpl_op_within("mach-lookup", "default"));
  assert_false(cordon_sbpl_op_within("file-write-data", "file-read*"));
  assert_false(cordon_sbpl_op_within("file-read-data", "file-read-data")); /* not a wildcard */
  assert_false(cordon_sbpl_op_within("file*", "file-read*"));
  assert_false(cordon_sbpl_op_within("bogus", "file*"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(table_is_sorted_so_lookups_find_every_name),
      cmocka_unit_test(every_chain_ends_at_default),
      cmocka_unit_test(aliases_expand_to_their_canonical_operation),
      cmocka_unit_test(file_read_data_falls_back_through_file_read_star_and_file_star),
      cmocka_unit_test(deny_default_does_not_reach_process_info_and_friends),
      cmocka_unit_test(within_holds_for_wildcard_families_only),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
