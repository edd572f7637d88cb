/* src/backend/seatbelt.h — the macOS Seatbelt backend: permission profile → SBPL, argv → sandbox-exec */
#ifndef CORDON_SEATBELT_H
#define CORDON_SEATBELT_H
#include "backend/backend.h"
#include "core/buf.h"
#include "core/profile.h"
#include "sbpl/ir.h"

#include <stdbool.h>

/* Invariant 5: the helper comes from this fixed absolute path, never from PATH or the cwd. */
#define CORDON_SEATBELT_HELPER "/usr/bin/sandbox-exec"

/* The production backend: helper CORDON_SEATBELT_HELPER; fails closed with backend_not_available when
 * that file is absent. */
const cordon_backend *cordon_seatbelt_backend(void);

/* Fills `b` as a Seatbelt backend whose helper is `helper_path` (borrowed; must outlive `b`). For C
 * tests of the fail-closed path only: nothing outside C code can reach it, so no environment variable
 * or option can weaken the production helper path. */
void cordon_seatbelt_backend_init(cordon_backend *b, const char *helper_path);

/* How the rules are built. A zeroed struct means: no base, darwin target. */
typedef struct {
  bool base;            /* a minimal base policy first: (deny default) and what any process needs to start */
  const char *platform; /* the target: "darwin" (or NULL) or "linux"; anything else is invalid_request */
} cordon_seatbelt_options;

/* Appends the Seatbelt rules for a managed profile to `out` and their -D parameters to `params`.
 * Without `opts->base`, only the profile section, for assembly to place after its fragment tree.
 * Disabled and external profiles are invalid_request: cordon does not stack a sandbox on them.
 * For a darwin target, firmlinks are applied to resolved paths ("/tmp/x" → "/private/tmp/x", also /var
 * and /etc), because the kernel checks the real path; a linux target (the same text compiled by the Linux
 * backend) keeps the paths as they are. */
cordon_sandbox_status cordon_seatbelt_build_with(const cordon_profile *p, const cordon_profile_ctx *ctx,
                                                 const cordon_seatbelt_options *opts, cordon_policy *out,
                                                 cordon_params *params, cordon_buf *msg);

/* cordon_seatbelt_build_with, written as text ("(version 1)" first when `opts->base`). */
cordon_sandbox_status cordon_seatbelt_policy_with(const cordon_profile *p, const cordon_profile_ctx *ctx,
                                                  const cordon_seatbelt_options *opts, cordon_buf *text,
                                                  cordon_params *params, cordon_buf *msg);

/* The same for a darwin target: cordon_seatbelt_*_with with { base, "darwin" }. */
cordon_sandbox_status cordon_seatbelt_build(const cordon_profile *p, const cordon_profile_ctx *ctx, bool base,
                                            cordon_policy *out, cordon_params *params, cordon_buf *msg);
cordon_sandbox_status cordon_seatbelt_policy(const cordon_profile *p, const cordon_profile_ctx *ctx, bool base,
                                             cordon_buf *text, cordon_params *params, cordon_buf *msg);

/* The wrapped argv: HELPER -p POLICY -DNAME=VALUE … -- argv…, NULL-terminated, in `*out` (caller frees
 * each string and the array). Parameter names are checked (cordon_sbpl_param_name_ok) and values must
 * hold no control bytes; a bad one is invalid_request. */
cordon_sandbox_status cordon_seatbelt_wrap(const char *helper, const char *policy, const cordon_params *params,
                                           const char *const *argv, size_t argc, char ***out, size_t *out_argc,
                                           cordon_buf *msg);
#endif
