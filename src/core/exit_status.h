/* src/core/exit_status.h — the exit status of a run whose command never started, and the code naming it */
#ifndef CORDON_EXIT_STATUS_H
#define CORDON_EXIT_STATUS_H

/* 127 for "command_not_found", 126 for "command_not_executable", 125 (cordon's own failure) for any other
 * code: the sandbox could not be applied as planned. */
int cordon_exit_status_of(const char *code);

/* The code of a status above: "command_not_found", "command_not_executable" or "sandbox_setup_failed". */
const char *cordon_exit_code_of(int status);
#endif
