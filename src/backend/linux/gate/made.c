/* src/backend/linux/gate/made.c — the directories this run made, and the paths it vacated (project files' rule) */
#include "backend/linux/gate/gate_impl.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define VACATED_MAX 100000  /* beyond it every made directory counts as one that was there at launch */

typedef struct {
  dev_t dev;
  ino_t ino;
  bool used;
} made_slot;

struct gate_made {
  made_slot *slots;
  size_t cap, n;
  char **vacated;
  size_t nvacated, vcap;
  bool overflow;       /* memory ran out or too many paths: no directory counts as made (fail closed) */
};

gate_made *gate_made_new(void) { return calloc(1, sizeof(gate_made)); }

void gate_made_free(gate_made *m) {
  if (!m) return;
  for (size_t i = 0; i < m->nvacated; i++) free(m->vacated[i]);
  free(m->vacated);
  free(m->slots);
  free(m);
}

static size_t slot_of(const gate_made *m, dev_t dev, ino_t ino) {
  uint64_t h = ((uint64_t)ino * 0x9e3779b97f4a7c15ull) ^ (uint64_t)dev;
  size_t i = (size_t)(h >> 17) & (m->cap - 1);
  while (m->slots[i].used && !(m->slots[i].dev == dev && m->slots[i].ino == ino)) i = (i + 1) & (m->cap - 1);
  return i;
}

static bool grow(gate_made *m) {
  size_t old = m->cap;
  made_slot *prev = m->slots;
  m->cap = old ? old * 2 : 256;
  if (!(m->slots = calloc(m->cap, sizeof *m->slots))) {
    m->slots = prev, m->cap = old;
    return false;
  }
  for (size_t i = 0; i < old; i++)
    if (prev[i].used) m->slots[slot_of(m, prev[i].dev, prev[i].ino)] = prev[i];
  free(prev);
  return true;
}

void gate_made_add(gate_made *m, dev_t dev, ino_t ino) {
  if (m->overflow) return;
  if ((m->n + 1) * 2 > m->cap && !grow(m)) {
    m->overflow = true;
    return;
  }
  size_t i = slot_of(m, dev, ino);
  if (!m->slots[i].used) m->n++;
  m->slots[i].used = true, m->slots[i].dev = dev, m->slots[i].ino = ino;
}

bool gate_made_has(const gate_made *m, dev_t dev, ino_t ino) {
  return !m->overflow && m->cap && m->slots[slot_of(m, dev, ino)].used;
}

void gate_made_vacate(gate_made *m, const char *path) {
  if (m->overflow) return;
  if (m->nvacated == VACATED_MAX) {
    m->overflow = true;
    return;
  }
  if (m->nvacated == m->vcap) {
    size_t cap = m->vcap ? m->vcap * 2 : 16;
    char **v = realloc(m->vacated, cap * sizeof *v);
    if (!v) {
      m->overflow = true;
      return;
    }
    m->vacated = v, m->vcap = cap;
  }
  if (!(m->vacated[m->nvacated] = strdup(path))) m->overflow = true;
  else m->nvacated++;
}

bool gate_made_vacated(const gate_made *m, const char *path) {
  for (size_t i = 0; i < m->nvacated; i++) {
    size_t n = strlen(m->vacated[i]);
    if (strncmp(m->vacated[i], path, n) == 0 && (path[n] == '\0' || path[n] == '/')) return true;
  }
  return false;
}
