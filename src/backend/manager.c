/* src/backend/manager.c — preference, platform selection, transformation, and running a request. */
#include "backend/manager.h"
#include "core/exec_search.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#define EXIT_CANNOT_ENFORCE 125
#define EXIT_CANNOT_EXECUTE 126
#define EXIT_NOT_FOUND 127

const char *cordon_preference_name(cordon_preference p) {
  switch (p) {
  case CORDON_PREFER_AUTO: return "auto";
  case CORDON_PREFER_REQUIRE: return "require";
  case CORDON_PREFER_FORBID: return "forbid";
  }
  return "unknown";
}

int cordon_preference_parse(const char *s) {
  if (!s) return -1;
  if (strcmp(s, "auto") == 0) return CORDON_PREFER_AUTO;
  if (strcmp(s, "require") == 0) return CORDON_PREFER_REQUIRE;
  if (strcmp(s, "forbid") == 0) return CORDON_PREFER_FORBID;
  return -1;
}

const char *cordon_host_platform(void) {
#if defined(__APPLE__)
  return "darwin";
#elif defined(__linux__)
  return "linux";
#else
  static char name[65];
  struct utsname u;
  if (!name[0]) {
    if (uname(&u) != 0) return "unknown";
    size_t i = 0;
    for (; u.sysname[i] && i + 1 < sizeof name; i++)
      name[i] = (char)(u.sysname[i] >= 'A' && u.sysname[i] <= 'Z' ? u.sysname[i] + 32 : u.sysname[i]);
    name[i] = 0;
  }
  return name;
#endif
}

bool cordon_manager_wants_sandbox(cordon_preference pref, const cordon_profile *p) {
  switch (pref) {
  case CORDON_PREFER_REQUIRE: return true;
  case CORDON_PREFER_FORBID: return false;
  case CORDON_PREFER_AUTO: break;
  }
  return p && cordon_profile_requires_sandbox(p);
}

cordon_sandbox_status cordon_manager_select(const cordon_manager *m, const cordon_profile *p,
                                            const cordon_backend **backend, cordon_buf *msg) {
  *backend = NULL;
  if (!p) {
    cordon_buf_puts(msg, "no permission profile given");
    return CORDON_SANDBOX_INVALID_REQUEST;
  }
  if (m->preference == CORDON_PREFER_FORBID && cordon_profile_requires_sandbox(p)) {
    /* forbid is not approval: a restricted profile is never silently run on the host. */
    cordon_buf_puts(msg, "the profile restricts the filesystem or network, so it needs a sandbox, and the "
                         "preference 'forbid' rules one out; cordon never runs such a profile unsandboxed");
    return CORDON_SANDBOX_REQUIRED;
  }
  if (!cordon_manager_wants_sandbox(m->preference, p)) return CORDON_SANDBOX_OK;
  const char *platform = m->platform ? m->platform : cordon_host_platform();
  cordon_backend_registry defaults;
  const cordon_backend_registry *reg = m->registry;
  if (!reg) {
    cordon_backend_registry_default(&defaults);
    reg = &defaults;
  }
  *backend = cordon_backend_for_platform(reg, platform);
  if (*backend) return CORDON_SANDBOX_OK;
  if (cordon_platform_known(platform)) {
    cordon_buf_printf(msg, "no sandbox backend for %s is built into this cordon", platform);
    return CORDON_SANDBOX_BACKEND_NOT_IMPLEMENTED;
  }
  cordon_buf_printf(msg, "cordon has no sandbox for platform '%s' (supported: darwin, linux)", platform);
  return CORDON_SANDBOX_UNSUPPORTED_PLATFORM;
}

static char **strv_copy(const char *const *v, size_t n) {
  char **out = calloc(n + 1, sizeof *out);
  if (!out) return NULL;
  for (size_t i = 0; i < n; i++) {
    if (!(out[i] = strdup(v[i]))) {
      for (size_t j = 0; j < i; j++) free(out[j]);
      free(out);
      return NULL;
    }
  }
  return out;
}

static cordon_sandbox_status validate(const cordon_sandbox_command *cmd, cordon_buf *msg) {
  if (!cmd || !cmd->argv || cmd->argc == 0 || !cmd->argv[0] || !cmd->argv[0][0]) {
    cordon_buf_puts(msg, "no command to run");
    return CORDON_SANDBOX_INVALID_REQUEST;
  }
  for (size_t i = 0; i < cmd->argc; i++) {
    if (!cmd->argv[i]) {
      cordon_buf_printf(msg, "argument %zu is missing", i);
      return CORDON_SANDBOX_INVALID_REQUEST;
    }
  }
  if (!cmd->cwd || cmd->cwd[0] != '/') {
    cordon_buf_printf(msg, "the working directory must be an absolute path, got '%s'", cmd->cwd ? cmd->cwd : "");
    return CORDON_SANDBOX_INVALID_REQUEST;
  }
  for (size_t i = 0; cmd->env && cmd->env[i]; i++) {
    const char *eq = strchr(cmd->env[i], '=');
    if (!eq || eq == cmd->env[i]) {
      cordon_buf_printf(msg, "environment entry '%s' is not NAME=value", cmd->env[i]);
      return CORDON_SANDBOX_INVALID_REQUEST;
    }
  }
  if (!cmd->profile || !cmd->ctx) {
    cordon_buf_puts(msg, "a permission profile and its match context are required");
    return CORDON_SANDBOX_INVALID_REQUEST;
  }
  return CORDON_SANDBOX_OK;
}

cordon_sandbox_status cordon_manager_transform(const cordon_manager *m, const cordon_sandbox_command *cmd,
                                               cordon_exec_request *out, cordon_buf *msg) {
  memset(out, 0, sizeof *out);
  cordon_sandbox_status st = validate(cmd, msg);
  const cordon_backend *backend = NULL;
  if (st == CORDON_SANDBOX_OK) st = cordon_manager_select(m, cmd->profile, &backend, msg);
  if (st != CORDON_SANDBOX_OK) return st;
  if (backend) {
    st = backend->transform(backend, cmd, out, msg);
    if (st == CORDON_SANDBOX_OK && (!out->argv || !out->argc)) {
      cordon_buf_printf(msg, "backend %s produced no command", backend->name);
      st = CORDON_SANDBOX_INVALID_REQUEST;
    }
  } else {
    out->sandbox_type = "none";
    if (!(out->argv = strv_copy(cmd->argv, cmd->argc))) st = CORDON_SANDBOX_NOMEM;
    out->argc = cmd->argc;
  }
  if (st == CORDON_SANDBOX_OK && !out->cwd && !(out->cwd = strdup(cmd->cwd))) st = CORDON_SANDBOX_NOMEM;
  if (st == CORDON_SANDBOX_OK && !out->env) {
    size_t n = 0;
    while (cmd->env && cmd->env[n]) n++;
    if (!(out->env = strv_copy(cmd->env, n))) st = CORDON_SANDBOX_NOMEM;
    out->envc = n;
  }
  if (st == CORDON_SANDBOX_NOMEM && !msg->len) cordon_buf_puts(msg, "out of memory");
  if (st != CORDON_SANDBOX_OK) cordon_exec_request_free(out);
  return st;
}

static int exec_status(int err) { return err == ENOENT || err == ENOTDIR ? EXIT_NOT_FOUND : EXIT_CANNOT_EXECUTE; }

/* execve, searching the request env's PATH for a bare name as execvp does (core/exec_search.h). */
static int run(char *const *argv, char *const *env, cordon_buf *msg) {
  const char *file = argv[0];
  int err = cordon_exec_path(file, argv, env);
  if (err == ENOENT && !strchr(file, '/')) cordon_buf_printf(msg, "%s: command not found", file);
  else cordon_buf_printf(msg, "%s: %s", file, strerror(err));
  return exec_status(err);
}

int cordon_exec(const cordon_exec_request *req, cordon_buf *msg) {
  if (!req || !req->argv || !req->argc || !req->cwd || !req->sandbox_type) {
    cordon_buf_puts(msg, "incomplete exec request");
    return EXIT_CANNOT_ENFORCE;
  }
  if (req->backend && req->backend->exec) return req->backend->exec(req->backend, req, msg);
  if (strcmp(req->sandbox_type, "none") != 0 && !req->backend) {
    /* A sandboxed request must come from its backend; running it any other way could drop the sandbox. */
    cordon_buf_printf(msg, "a %s request can only be run by its backend", req->sandbox_type);
    return EXIT_CANNOT_ENFORCE;
  }
  if (chdir(req->cwd) != 0) {
    cordon_buf_printf(msg, "cannot enter working directory %s: %s", req->cwd, strerror(errno));
    return EXIT_CANNOT_ENFORCE;
  }
  char *empty[] = {NULL};
  fflush(NULL);
  return run(req->argv, req->env ? req->env : empty, msg);
}
