/* src/backend/linux/gate/identity.c — protected files with other names (hard links), refused by what they are */
#include "backend/linux/gate/gate_impl.h"

#include <stdlib.h>
#include <string.h>

#define IDENTITY_PREFIX "identity\t"

typedef struct {
  dev_t dev;
  ino_t ino;
  char *name;
} identity;

struct gate_identity {
  identity *v;
  size_t n;
};

bool gate_identity_entry(const char *s) { return strncmp(s, IDENTITY_PREFIX, sizeof IDENTITY_PREFIX - 1) == 0; }

void gate_identity_free(gate_identity *t) {
  if (!t) return;
  for (size_t i = 0; i < t->n; i++) free(t->v[i].name);
  free(t->v);
  free(t);
}

/* Looked at when the run starts, not when the plan was made: a hard link made since is seen. */
gate_identity *gate_identity_new(char *const *names, size_t n) {
  gate_identity *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  for (size_t i = 0; i < n; i++) {
    if (!gate_identity_entry(names[i])) continue;
    const char *path = names[i] + sizeof IDENTITY_PREFIX - 1;
    if (path[0] != '/') return gate_identity_free(t), NULL;
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink < 2) continue;
    identity *v = realloc(t->v, (t->n + 1) * sizeof *v);
    if (!v) return gate_identity_free(t), NULL;
    t->v = v;
    if (!(v[t->n].name = strdup(path))) return gate_identity_free(t), NULL;
    v[t->n].dev = st.st_dev, v[t->n].ino = st.st_ino;
    t->n++;
  }
  return t;
}

const char *gate_identity_of(const gate_identity *t, const struct stat *st) {
  if (!t || !S_ISREG(st->st_mode) || st->st_nlink < 2) return NULL;
  for (size_t i = 0; i < t->n; i++)
    if (t->v[i].dev == st->st_dev && t->v[i].ino == st->st_ino) return t->v[i].name;
  return NULL;
}
