/* src/backend/linux/backend.c — the Linux backend for the sandbox manager (src/backend/backend.h) */
#include "backend/backend.h"
#include "backend/linux/linux.h"
#include "backend/linux/runcache.h"
#include "core/exit_status.h"
#include "core/record.h"
#include "sbpl/parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char **copy_strv(const char *const *v, size_t n, size_t *count) {
  if (v && n == (size_t)-1)
    for (n = 0; v[n];) n++;
  if (!v) n = 0;
  char **out = calloc(n + 1, sizeof *out);
  if (!out) return NULL;
  for (size_t i = 0; i < n; i++)
    if (!(out[i] = strdup(v[i]))) {
      for (size_t k = 0; k < i; k++) free(out[k]);
      free(out);
      return NULL;
    }
  if (count) *count = n;
  return out;
}

static void plan_free(void *p) { cordon_lx_plan_free(p); }

static cordon_sandbox_status map_status(cordon_lx_status st) {
  switch (st) {
  case CORDON_LX_OK: return CORDON_SANDBOX_OK;
  case CORDON_LX_NOT_AVAILABLE: return CORDON_SANDBOX_BACKEND_NOT_AVAILABLE;
  case CORDON_LX_NOMEM: return CORDON_SANDBOX_NOMEM;
  default: return CORDON_SANDBOX_INVALID_REQUEST;
  }
}

/* Parses `text` with its -D parameters into IR. */
static cordon_lx_status parse_policy(const char *text, const cordon_params *ps, cordon_policy **out, cordon_buf *msg) {
  size_t n = ps ? ps->count : 0;
  cordon_sbpl_param *params = calloc(n + 1, sizeof *params);
  if (!params) return CORDON_LX_NOMEM;
  for (size_t i = 0; i < n; i++) params[i] = (cordon_sbpl_param){ps->items[i].name, ps->items[i].value};
  cordon_sbpl_error err = {0};
  cordon_sbpl_options opts = {.no_import = true};
  cordon_sbpl_status st = cordon_sbpl_parse(text, strlen(text), "policy", params, &opts, out, &err);
  free(params);
  if (st == CORDON_SBPL_OK) return CORDON_LX_OK;
  cordon_buf_printf(msg, "the policy cannot be parsed: %s", err.text ? err.text : cordon_sbpl_status_name(st));
  cordon_sbpl_error_clear(&err);
  return st == CORDON_SBPL_NOMEM ? CORDON_LX_NOMEM : CORDON_LX_INVALID;
}

/* The -D parameters as name, value pairs for the compiler (borrowed strings). */
static const char **param_pairs(const cordon_params *ps) {
  size_t n = ps ? ps->count : 0;
  const char **v = calloc(2 * n + 1, sizeof *v);
  for (size_t i = 0; v && i < n; i++) {
    v[2 * i] = ps->items[i].name;
    v[2 * i + 1] = ps->items[i].value;
  }
  return v;
}

/* An assembled text names each of its sections on a ";; Source: NAME" line (lua/cordon/assemble.lua):
 * sources "policy:LINE:COL" become "NAME:LINE:COL" counted from there, so what `cordon explain` shows and
 * what the gate prints when it refuses name the fragment, not a line of the assembled text. */
static bool name_sections(cordon_lx_plan *plan, const char *text) {
  static const char marker[] = ";; Source: ";
  size_t n = 0, cap = 0;
  char **names = NULL;
  unsigned *lines = NULL, line = 1;
  bool ok = true;
  for (const char *p = text; ok && *p; line++) {
    const char *end = strchr(p, '\n');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len > sizeof marker - 1 && strncmp(p, marker, sizeof marker - 1) == 0) {
      if (n == cap) {
        cap = cap ? 2 * cap : 32;
        char **nn = realloc(names, cap * sizeof *nn);
        unsigned *nl = nn ? realloc(lines, cap * sizeof *nl) : NULL;
        if (nn) names = nn;
        if (nl) lines = nl;
        ok = nn && nl;
      }
      if (ok && (names[n] = strndup(p + sizeof marker - 1, len - (sizeof marker - 1)))) lines[n++] = line;
      else ok = false;
    }
    p += len + (end ? 1 : 0);
  }
  ok = ok && cordon_lx_plan_map_sources(plan, "policy", (const char *const *)names, lines, n);
  for (size_t i = 0; i < n; i++) free(names[i]);
  free(names), free(lines);
  return ok;
}

cordon_lx_status cordon_lx_compile_text(const char *text, const cordon_params *ps, const cordon_profile *profile,
                                        const cordon_profile_ctx *ctx, const cordon_lx_options *opts, bool record,
                                        cordon_lx_plan **out, cordon_buf *msg) {
  static const cordon_lx_options none = {0};
  if (!opts) opts = &none;
  *out = NULL;
  cordon_policy *policy = NULL;
  cordon_lx_status st = text ? parse_policy(text, ps, &policy, msg) : CORDON_LX_OK;
  if (st != CORDON_LX_OK) return st;
  const char **pairs = param_pairs(ps);
  if (!pairs) {
    cordon_policy_free(policy);
    return CORDON_LX_NOMEM;
  }
  cordon_lx_input in = {.policy = policy, .params = pairs, .nparams = ps ? ps->count : 0, .profile = profile,
                        .ctx = ctx, .best_effort = opts->best_effort, .shared_tmp = opts->shared_tmp,
                        .git_safe_keys = opts->git_safe_keys, .gate_names = opts->gate_names,
                        .record = record};
  st = cordon_lx_compile(&in, out, msg);
  if (st == CORDON_LX_OK && text && !name_sections(*out, text)) {
    cordon_lx_plan_free(*out);
    *out = NULL;
    st = CORDON_LX_NOMEM;
    cordon_buf_puts(msg, "out of memory while naming the policy's sections");
  }
  free(pairs);
  cordon_policy_free(policy);
  return st;
}

static cordon_sandbox_status transform(const cordon_backend *self, const cordon_sandbox_command *cmd,
                                       cordon_exec_request *out, cordon_buf *msg) {
  cordon_lx_plan *plan = NULL;
  cordon_lx_options opts = {.best_effort = cmd->best_effort, .shared_tmp = cmd->shared_tmp,
                            .git_safe_keys = cmd->git_safe_keys, .gate_names = cmd->gate_names};
  cordon_lx_status st = cordon_lx_compile_cached(cmd->policy_text, cmd->policy_params, cmd->profile, cmd->ctx, &opts,
                                                 &plan, msg);
  if (st != CORDON_LX_OK) return map_status(st);
  cordon_lx_probe_result pr;
  cordon_lx_probe(&pr);
  if ((st = cordon_lx_check(&pr, plan->min_abi, plan->best_effort, msg)) != CORDON_LX_OK) {
    cordon_lx_plan_free(plan);
    return map_status(st);
  }
  /* what the run gets besides its policy: not part of the compiled (and cached) plan */
  plan->limits = cmd->limits;
  if (cmd->npass_fds && !(plan->pass_fds = malloc(cmd->npass_fds * sizeof *plan->pass_fds))) {
    cordon_lx_plan_free(plan);
    return CORDON_SANDBOX_NOMEM;
  }
  if (cmd->npass_fds) memcpy(plan->pass_fds, cmd->pass_fds, cmd->npass_fds * sizeof *plan->pass_fds);
  plan->npass_fds = cmd->npass_fds;
  out->plan = plan;
  out->plan_free = plan_free;
  out->sandbox_type = self->sandbox_type;
  out->backend = self;
  out->argv = copy_strv(cmd->argv, cmd->argc, &out->argc);
  out->cwd = strdup(cmd->cwd);
  out->env = copy_strv(cmd->env, (size_t)-1, &out->envc);
  if (!out->argv || !out->cwd || !out->env) return CORDON_SANDBOX_NOMEM;
  return CORDON_SANDBOX_OK;
}

static int exec(const cordon_backend *self, const cordon_exec_request *req, cordon_buf *msg) {
  (void)self;
  /* `cordon run` with the recorder armed (src/cli/fastpath.c): remember this whole decision, so the next
   * identical run skips the Lua half (runcache.h). Never fails the run. */
  if (cordon_record_armed()) {
    const char *why = "";
    cordon_lx_runcache_store(req->plan, (const char *const *)req->argv, (const char *const *)req->env, req->cwd,
                             &why);
    if (getenv("CORDON_TRACE")) fprintf(stderr, "cordon: run-cache: %s%s\n", strcmp(why, "stored") ? "not stored: " : "",
                                        why);
    cordon_record_disarm();
  }
  cordon_lx_status st = cordon_lx_run(req->plan, (const char *const *)req->argv, (const char *const *)req->env,
                                      req->cwd, msg);
  /* `msg` says what failed; the manager adds the failure's name */
  return cordon_exit_status_of(cordon_lx_status_name(st));
}

static void describe(const cordon_backend *self, const cordon_exec_request *req, cordon_buf *out) {
  (void)self;
  if (req->plan) cordon_lx_plan_describe(req->plan, out);
}

static const cordon_backend linux_backend = {
    .name = "linux",
    .platform = "linux",
    .sandbox_type = "linux",
    .transform = transform,
    .exec = exec,
    .describe = describe,
};

const cordon_backend *cordon_linux_backend(void) { return &linux_backend; }
