/* src/core/exit_status.c — the one table from exit statuses to failure codes (docs/cli.md, "Exit codes") */
#include "core/exit_status.h"

#include <string.h>

static const struct {
  int status;
  const char *code;
} exits[] = {
    {127, "command_not_found"},
    {126, "command_not_executable"},
};

#define NOT_RUN 125
#define NOT_RUN_CODE "sandbox_setup_failed"

int cordon_exit_status_of(const char *code) {
  for (size_t i = 0; code && i < sizeof exits / sizeof *exits; i++)
    if (!strcmp(code, exits[i].code)) return exits[i].status;
  return NOT_RUN;
}

const char *cordon_exit_code_of(int status) {
  for (size_t i = 0; i < sizeof exits / sizeof *exits; i++)
    if (status == exits[i].status) return exits[i].code;
  return NOT_RUN_CODE;
}
