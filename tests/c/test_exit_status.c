/* tests/c/test_exit_status.c — the exit statuses and codes of a command that never started, from one table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/exit_status.h"
#if CORDON_WITH_LINUX
#include "backend/linux/linux.h"
#endif

static void a_missing_command_exits_127_and_an_unrunnable_one_126(void **state) {
  (void)state;
  assert_int_equal(cordon_exit_status_of("command_not_found"), 127);
  assert_int_equal(cordon_exit_status_of("command_not_executable"), 126);
  assert_string_equal(cordon_exit_code_of(127), "command_not_found");
  assert_string_equal(cordon_exit_code_of(126), "command_not_executable");
}

static void every_other_failure_is_cordons_own_and_exits_125(void **state) {
  (void)state;
  assert_int_equal(cordon_exit_status_of("sandbox_setup_failed"), 125);
  assert_int_equal(cordon_exit_status_of("backend_not_available"), 125);
  assert_int_equal(cordon_exit_status_of("nomem"), 125);
  assert_int_equal(cordon_exit_status_of(NULL), 125);
  assert_string_equal(cordon_exit_code_of(125), "sandbox_setup_failed");
  assert_string_equal(cordon_exit_code_of(1), "sandbox_setup_failed");  /* never a command's own status here */
}

static void the_linux_statuses_map_through_their_names(void **state) {
  (void)state;
#if CORDON_WITH_LINUX
  assert_int_equal(cordon_exit_status_of(cordon_lx_status_name(CORDON_LX_NOT_FOUND)), 127);
  assert_int_equal(cordon_exit_status_of(cordon_lx_status_name(CORDON_LX_NOT_EXECUTABLE)), 126);
  for (int st = CORDON_LX_OK; st <= CORDON_LX_NOMEM; st++)
    if (st != CORDON_LX_NOT_FOUND && st != CORDON_LX_NOT_EXECUTABLE)
      assert_int_equal(cordon_exit_status_of(cordon_lx_status_name((cordon_lx_status)st)), 125);
#else
  skip();
#endif
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(a_missing_command_exits_127_and_an_unrunnable_one_126),
      cmocka_unit_test(every_other_failure_is_cordons_own_and_exits_125),
      cmocka_unit_test(the_linux_statuses_map_through_their_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
