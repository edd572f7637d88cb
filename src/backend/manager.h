/* src/backend/manager.h — the sandbox manager: whether to sandbox a command, with which backend, and what to execve */
#ifndef CORDON_MANAGER_H
#define CORDON_MANAGER_H
#include "backend/backend.h"

typedef enum { CORDON_PREFER_AUTO = 0, CORDON_PREFER_REQUIRE, CORDON_PREFER_FORBID } cordon_preference;

const char *cordon_preference_name(cordon_preference p);  /* "auto", "require", "forbid" */
int cordon_preference_parse(const char *s);               /* -1 when unknown */

/* The platform cordon was built for: "darwin", "linux", or the lower-cased kernel name. Static. */
const char *cordon_host_platform(void);

typedef struct {
  cordon_preference preference;
  const char *platform;                     /* NULL = cordon_host_platform() */
  const cordon_backend_registry *registry;  /* NULL = the default registration */
} cordon_manager;

/* Whether `p` must be sandboxed under `pref` (auto: cordon_profile_requires_sandbox; require: always;
 * forbid: never). */
bool cordon_manager_wants_sandbox(cordon_preference pref, const cordon_profile *p);

/* Selection only: *backend is the chosen backend, or NULL for host execution. */
cordon_sandbox_status cordon_manager_select(const cordon_manager *m, const cordon_profile *p,
                                            const cordon_backend **backend, cordon_buf *msg);

/* Validates `cmd` (argc >= 1, absolute cwd, a profile and a context), selects, and fills `out` (the
 * caller zeroes it and frees it with cordon_exec_request_free whatever is returned). For host execution
 * the request is argv/cwd/env as given with sandbox_type "none". */
cordon_sandbox_status cordon_manager_transform(const cordon_manager *m, const cordon_sandbox_command *cmd,
                                               cordon_exec_request *out, cordon_buf *msg);

/* Runs `req`, replacing this process: the backend's exec when it has one, else chdir(cwd) and execve
 * with the request's env (argv[0] without '/' is searched in the request env's PATH). When it returns:
 * 127 when the command is not found, 126 when it cannot be executed, 125 when the sandbox cannot be
 * applied, with `msg` saying why; or, with `msg` empty, the command's own status (a backend that
 * supervises its child). It never runs the command any other way than asked. */
int cordon_exec(const cordon_exec_request *req, cordon_buf *msg);
#endif
