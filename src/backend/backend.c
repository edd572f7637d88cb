/* src/backend/backend.c — typed failures, -D parameter lists, exec requests and the backend registry. */
#include "backend/backend.h"

#include "backend/seatbelt.h"

#include <stdlib.h>
#include <string.h>

/* The Linux backend is defined in src/backend/linux/ when that part is linked in. A weak reference lets
 * this file link without it; the registry then has no Linux backend and selection says
 * backend_not_implemented. */
#pragma weak cordon_linux_backend

const char *cordon_sandbox_status_name(cordon_sandbox_status s) {
  switch (s) {
  case CORDON_SANDBOX_OK: return "ok";
  case CORDON_SANDBOX_UNSUPPORTED_PLATFORM: return "unsupported_platform";
  case CORDON_SANDBOX_BACKEND_NOT_AVAILABLE: return "backend_not_available";
  case CORDON_SANDBOX_BACKEND_NOT_IMPLEMENTED: return "backend_not_implemented";
  case CORDON_SANDBOX_REQUIRED: return "sandbox_required";
  case CORDON_SANDBOX_INVALID_REQUEST: return "invalid_request";
  case CORDON_SANDBOX_NOMEM: return "nomem";
  }
  return "unknown";
}

bool cordon_params_add(cordon_params *ps, const char *name, const char *value) {
  if (ps->count == ps->cap) {
    size_t cap = ps->cap ? ps->cap * 2 : 8;
    cordon_param *items = realloc(ps->items, cap * sizeof *items);
    if (!items) return false;
    ps->items = items;
    ps->cap = cap;
  }
  char *n = strdup(name), *v = strdup(value);
  if (!n || !v) {
    free(n);
    free(v);
    return false;
  }
  ps->items[ps->count].name = n;
  ps->items[ps->count].value = v;
  ps->count++;
  return true;
}

const char *cordon_params_get(const cordon_params *ps, const char *name) {
  for (size_t i = 0; i < ps->count; i++)
    if (strcmp(ps->items[i].name, name) == 0) return ps->items[i].value;
  return NULL;
}

void cordon_params_free(cordon_params *ps) {
  for (size_t i = 0; i < ps->count; i++) {
    free(ps->items[i].name);
    free(ps->items[i].value);
  }
  free(ps->items);
  ps->items = NULL;
  ps->count = ps->cap = 0;
}

static void free_strv(char **v, size_t n) {
  if (!v) return;
  for (size_t i = 0; i < n; i++) free(v[i]);
  free(v);
}

void cordon_exec_request_free(cordon_exec_request *r) {
  if (!r) return;
  free_strv(r->argv, r->argc);
  free_strv(r->env, r->envc);
  free(r->cwd);
  free(r->policy);
  cordon_params_free(&r->params);
  if (r->plan && r->plan_free) r->plan_free(r->plan);
  memset(r, 0, sizeof *r);
}

void cordon_backend_registry_init(cordon_backend_registry *r) { memset(r, 0, sizeof *r); }

bool cordon_backend_register(cordon_backend_registry *r, const cordon_backend *b) {
  if (!b || !b->platform) return false;
  for (size_t i = 0; i < r->count; i++) {
    if (strcmp(r->items[i]->platform, b->platform) == 0) {
      r->items[i] = b;
      return true;
    }
  }
  if (r->count == CORDON_BACKEND_REGISTRY_MAX) return false;
  r->items[r->count++] = b;
  return true;
}

void cordon_backend_registry_default(cordon_backend_registry *r) {
  cordon_backend_registry_init(r);
  cordon_backend_register(r, cordon_seatbelt_backend());
  if (cordon_linux_backend) {
    const cordon_backend *linux_backend = cordon_linux_backend();
    if (linux_backend) cordon_backend_register(r, linux_backend);
  }
}

const cordon_backend *cordon_backend_for_platform(const cordon_backend_registry *r, const char *platform) {
  if (!platform) return NULL;
  for (size_t i = 0; i < r->count; i++)
    if (strcmp(r->items[i]->platform, platform) == 0) return r->items[i];
  return NULL;
}

bool cordon_platform_known(const char *platform) {
  return platform && (strcmp(platform, "darwin") == 0 || strcmp(platform, "linux") == 0);
}
