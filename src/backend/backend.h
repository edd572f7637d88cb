/* src/backend/backend.h — the platform backend interface, its typed failures, and the registry */
#ifndef CORDON_BACKEND_H
#define CORDON_BACKEND_H
#include "backend/linux/plan.h"
#include "core/buf.h"
#include "core/profile.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum {
  CORDON_SANDBOX_OK = 0,
  CORDON_SANDBOX_UNSUPPORTED_PLATFORM,   /* no backend exists for this platform */
  CORDON_SANDBOX_BACKEND_NOT_AVAILABLE,  /* the backend exists but cannot work here (helper missing,
                                            kernel feature absent, …) */
  CORDON_SANDBOX_BACKEND_NOT_IMPLEMENTED,/* the platform is known, its backend is not built in */
  CORDON_SANDBOX_REQUIRED,               /* the profile needs a sandbox but the preference forbids one */
  CORDON_SANDBOX_INVALID_REQUEST,        /* bad argv/cwd/env/profile/policy, or a profile the backend
                                            cannot express */
  CORDON_SANDBOX_NOMEM,
} cordon_sandbox_status;

/* "ok", "unsupported_platform", "backend_not_available", "backend_not_implemented",
 * "sandbox_required", "invalid_request", "nomem" — the codes Lua and the CLI show. */
const char *cordon_sandbox_status_name(cordon_sandbox_status s);

/* One -D parameter. Parameters are ordered: the order is part of the policy's deterministic output. */
typedef struct {
  char *name;
  char *value;
} cordon_param;

typedef struct {
  cordon_param *items;
  size_t count, cap;
} cordon_params;

#define CORDON_PARAMS_INIT {NULL, 0, 0}

/* Appends a copy of name/value; false when out of memory. Names are not checked here (the writer's
 * cordon_sbpl_param_name_ok does that where text is produced). */
bool cordon_params_add(cordon_params *ps, const char *name, const char *value);
/* The value of `name`, or NULL. */
const char *cordon_params_get(const cordon_params *ps, const char *name);
void cordon_params_free(cordon_params *ps);

/* What to run and under which rules. Everything is borrowed from the caller for the call's duration. */
typedef struct {
  const char *const *argv;           /* argv[0] … argv[argc-1]; argc >= 1 */
  size_t argc;
  const char *cwd;                   /* absolute; where the command runs */
  const char *const *env;            /* "NAME=value" strings, NULL-terminated; NULL = empty */
  const cordon_profile *profile;     /* the effective permission profile (required) */
  const cordon_profile_ctx *ctx;     /* where its specials resolve (required) */
  const char *policy_text;           /* a policy assembled elsewhere (SBPL), or NULL: the backend
                                        builds one from the profile */
  const cordon_params *policy_params;/* the -D parameters of policy_text (may be NULL) */
  bool best_effort;                  /* Linux: accept a Landlock ABI below 3, saying what stays open */
  bool shared_tmp;                   /* Linux: the host's /tmp and /dev/shm instead of private ones */
  const char *const *git_safe_keys;  /* Linux: NULL-terminated git config keys a config written inside may
                                        change (lua/cordon/protect.lua); NULL: none */
  cordon_lx_limits limits;           /* Linux: resource limits (src/backend/linux/limits.h); 0 = none */
  const int *pass_fds;               /* Linux: descriptors above 2 the command inherits (--pass-fd) */
  size_t npass_fds;
  const char *const *gate_names;     /* Linux: NULL-terminated tab-separated entries naming hook runners' and
                                        editors' files for the gate's nested rules (protect.gate_names) */
} cordon_sandbox_command;

/* What to execve. Owned by the request; free with cordon_exec_request_free. */
typedef struct {
  char **argv;              /* NULL-terminated, argc entries */
  size_t argc;
  char *cwd;
  char **env;               /* "NAME=value", NULL-terminated */
  size_t envc;
  const char *sandbox_type; /* static: "none", "macos-seatbelt", "linux" */
  const struct cordon_backend *backend; /* who made it (NULL for "none"); its exec runs it */
  void *plan;               /* backend-specific (the Linux plan), freed by plan_free */
  void (*plan_free)(void *plan);
  char *policy;             /* seatbelt: the SBPL text passed with -p (NULL otherwise) */
  cordon_params params;     /* seatbelt: the -D parameters, in order */
} cordon_exec_request;

void cordon_exec_request_free(cordon_exec_request *r);

typedef struct cordon_backend {
  const char *name;          /* "macos-seatbelt", "linux" */
  const char *platform;      /* the platform it serves: "darwin", "linux" */
  const char *sandbox_type;  /* what exec requests it makes say */
  /* Fills `out` (zeroed by the caller) or returns a failure with a message appended to `msg`. Must
   * leave `out` freeable with cordon_exec_request_free whatever it returns. */
  cordon_sandbox_status (*transform)(const struct cordon_backend *self, const cordon_sandbox_command *cmd,
                                     cordon_exec_request *out, cordon_buf *msg);
  /* Runs a request this backend made, normally replacing the process. When it returns, the value is an
   * exit status: on failure 125 (cannot enforce), 126 (cannot execute) or 127 (not found) with a
   * message in `msg`; with `msg` empty, the status of the command, which a supervising parent waited
   * for. NULL means "execve the request's argv in its cwd with its env", which is all Seatbelt needs. */
  int (*exec)(const struct cordon_backend *self, const cordon_exec_request *req, cordon_buf *msg);
  void *data;                /* backend-private (e.g. the helper path of a test Seatbelt backend) */
  /* Optional: appends a readable description of a request's plan (shown by Lua as `plan`). */
  void (*describe)(const struct cordon_backend *self, const cordon_exec_request *req, cordon_buf *out);
} cordon_backend;

/* The Linux backend, defined in src/backend/linux/. Until that file is linked in, the registry finds
 * no definition (it is looked up as a weak symbol) and Linux selection reports backend_not_implemented. */
const cordon_backend *cordon_linux_backend(void);

#define CORDON_BACKEND_REGISTRY_MAX 8

typedef struct {
  const cordon_backend *items[CORDON_BACKEND_REGISTRY_MAX];
  size_t count;
} cordon_backend_registry;

/* An empty registry. */
void cordon_backend_registry_init(cordon_backend_registry *r);
/* Adds `b`, replacing a backend registered for the same platform; false when full. */
bool cordon_backend_register(cordon_backend_registry *r, const cordon_backend *b);
/* The default registration: macos-seatbelt for darwin, and the Linux backend when it is linked in. */
void cordon_backend_registry_default(cordon_backend_registry *r);
/* The backend for `platform`, or NULL. */
const cordon_backend *cordon_backend_for_platform(const cordon_backend_registry *r, const char *platform);

/* Platforms cordon knows a sandbox for ("darwin", "linux"): others are unsupported_platform. */
bool cordon_platform_known(const char *platform);
#endif
