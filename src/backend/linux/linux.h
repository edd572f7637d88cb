/* src/backend/linux/linux.h — the Linux backend's entry points: probe the kernel, compile a plan, apply it and exec */
#ifndef CORDON_LINUX_H
#define CORDON_LINUX_H
#include "backend/backend.h"
#include "backend/linux/plan.h"
#include "core/buf.h"
#include "core/profile.h"
#include "sbpl/ir.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum {
  CORDON_LX_OK = 0,
  CORDON_LX_NOT_AVAILABLE,    /* Landlock missing or below the required ABI, no user namespaces, … */
  CORDON_LX_INVALID,          /* bad input: a relative path, an unparsable policy, a profile kind … */
  CORDON_LX_NOT_EXPRESSIBLE,  /* the policy asks for something the plan cannot honour even by erring
                                 toward less access */
  CORDON_LX_SETUP_FAILED,     /* a runtime step failed: the command was not run */
  CORDON_LX_NOT_FOUND,        /* the command does not exist (exit 127) */
  CORDON_LX_NOT_EXECUTABLE,   /* the command exists but cannot be executed (exit 126) */
  CORDON_LX_NOMEM,
} cordon_lx_status;

/* "ok", "backend_not_available", "invalid_request", "policy_not_expressible", "sandbox_setup_failed",
 * "command_not_found", "command_not_executable", "nomem". */
const char *cordon_lx_status_name(cordon_lx_status s);

/* --- probe (probe.c) ----------------------------------------------------------------------------- */
#define CORDON_LX_MIN_ABI 3  /* TRUNCATE: below it a "read-only" file can still be truncated */

typedef struct {
  int abi;                 /* Landlock ABI, 0 when absent or disabled */
  int landlock_errno;      /* why abi is 0 (ENOSYS: not built, EOPNOTSUPP: disabled at boot) */
  bool userns;             /* unprivileged user namespaces can be created (or we are root) */
  char kernel[128];        /* uname -r */
} cordon_lx_probe_result;

void cordon_lx_probe(cordon_lx_probe_result *out);
/* Checks the probe against the plan's needs; on failure appends an actionable message (kernel version,
 * boot parameter, sysctl) to `msg` and returns CORDON_LX_NOT_AVAILABLE. */
cordon_lx_status cordon_lx_check(const cordon_lx_probe_result *pr, unsigned min_abi, bool best_effort, cordon_buf *msg);

/* --- compile (compile.c) -------------------------------------------------------------------------- */
typedef struct {
  const cordon_policy *policy;     /* the assembled policy's IR, which alone decides the files (it carries
                                      the profile's section), or NULL: compile from the profile alone */
  const char *const *params;       /* -D parameters: name, value, name, value, …; may be NULL */
  size_t nparams;                  /* number of pairs */
  const cordon_profile *profile;   /* the effective permission profile (required): its kind and network;
                                      its entries only without a policy */
  const cordon_profile_ctx *ctx;   /* where its specials resolve (required) */
  bool best_effort;                /* --best-effort: accept any Landlock ABI >= 1 */
  bool shared_tmp;                 /* --shared-tmp: the host's /tmp and /dev/shm, not the run's own */
  bool record;                     /* keep every disk observation in the plan (for the cache) */
  const char *const *git_safe_keys;  /* NULL-terminated: the git config keys a config written inside may add
                                        or change (lua/cordon/protect.lua); NULL: none */
  const char *const *gate_names;     /* NULL-terminated: the gate's nested rules' names (protect.gate_names) */
} cordon_lx_input;

/* Computes the plan. The compiler looks at the disk (which paths exist, files or directories) but changes
 * nothing. On failure *out is NULL and `msg` says why, naming the source rule. */
cordon_lx_status cordon_lx_compile(const cordon_lx_input *in, cordon_lx_plan **out, cordon_buf *msg);

/* The run's options besides the policy. */
typedef struct {
  bool best_effort;                  /* --best-effort */
  bool shared_tmp;                   /* --shared-tmp */
  const char *const *git_safe_keys;  /* as cordon_lx_input's */
  const char *const *gate_names;     /* as cordon_lx_input's */
} cordon_lx_options;

/* The same from SBPL text (parsed with imports disabled) and -D parameters; `text` NULL = profile
 * only (backend.c). */
cordon_lx_status cordon_lx_compile_text(const char *text, const cordon_params *params, const cordon_profile *profile,
                                        const cordon_profile_ctx *ctx, const cordon_lx_options *opts, bool record,
                                        cordon_lx_plan **out, cordon_buf *msg);

/* The same through the plan cache (cache.c): a plan compiled earlier from the same inputs is reused while
 * every disk observation it was compiled from still holds. What `cordon run` uses. */
cordon_lx_status cordon_lx_compile_cached(const char *text, const cordon_params *params, const cordon_profile *profile,
                                          const cordon_profile_ctx *ctx, const cordon_lx_options *opts,
                                          cordon_lx_plan **out, cordon_buf *msg);
/* Where plans are cached: $XDG_CACHE_HOME/cordon, else <ctx home>/.cache/cordon. Every plan denies
 * writing there. False when neither is known. */
bool cordon_lx_cache_root(const cordon_profile_ctx *ctx, char *out, size_t cap);

/* --- runtime (runtime.c) -------------------------------------------------------------------------- */
/* Applies `plan` and execs argv (argv[0] without '/' is searched in env's PATH after the sandbox is in
 * place) with `env` (NULL-terminated "NAME=value"; NULL = empty) in `cwd`. Works as root and as an
 * unprivileged user. Does not return on success: cordon stays outside as the supervisor of the run's PID
 * namespace and ends as the command ended, so its exit status and signals reach the caller unchanged
 * (pidns.h, docs/linux-sandbox.md). Any failure before execve returns a status with `msg` set — in
 * whichever of cordon, init or the command it happened — and the command has not run. */
cordon_lx_status cordon_lx_run(const cordon_lx_plan *plan, const char *const *argv, const char *const *env,
                               const char *cwd, cordon_buf *msg);
/* The same, finishing Landlock rules added ahead (landlock.h; NULL: none). `ahead` stays the caller's to
 * free when this returns. */
typedef struct cordon_lx_landlock_ahead cordon_lx_landlock_ahead;
cordon_lx_status cordon_lx_run_ahead(const cordon_lx_plan *plan, cordon_lx_landlock_ahead *ahead,
                                     const char *const *argv, const char *const *env, const char *cwd,
                                     cordon_buf *msg);
#endif
