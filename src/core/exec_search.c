/* src/core/exec_search.c — PATH search (exec_search.h). */
#include "core/exec_search.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

bool cordon_exec_search(const char *path, const char *file, bool (*try)(const char *candidate, void *ud), void *ud) {
  char full[PATH_MAX];
  for (const char *p = path ? path : CORDON_DEFAULT_PATH;; p++) {
    size_t n = strcspn(p, ":");
    int len = n ? snprintf(full, sizeof full, "%.*s/%s", (int)n, p, file) : snprintf(full, sizeof full, "./%s", file);
    if (len > 0 && (size_t)len < sizeof full && try(full, ud)) return true;
    p += n;
    if (!*p) return false;
  }
}

const char *cordon_exec_env_path(char *const *envp) {
  for (size_t i = 0; envp && envp[i]; i++)
    if (strncmp(envp[i], "PATH=", 5) == 0) return envp[i] + 5;
  return NULL;
}

typedef struct {
  char *const *argv, *const *envp;
  int err;
  bool denied;
} exec_try;

static bool try_exec(const char *candidate, void *ud) {
  exec_try *t = ud;
  execve(candidate, t->argv, t->envp);
  if (errno == EACCES) t->denied = true;
  else if (errno != ENOENT && errno != ENOTDIR) {
    t->err = errno;
    return true;
  }
  return false;
}

int cordon_exec_path(const char *file, char *const argv[], char *const envp[]) {
  if (strchr(file, '/')) {
    execve(file, argv, envp);
    return errno;
  }
  exec_try t = {argv, envp, ENOENT, false};
  if (!cordon_exec_search(cordon_exec_env_path(envp), file, try_exec, &t) && t.denied) t.err = EACCES;
  return t.err;
}
