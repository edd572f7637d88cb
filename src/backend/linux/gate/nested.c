/* src/backend/linux/gate/nested.c — hook runners' and editors' files below a root's top, decided when the name is written */
#include "backend/linux/gate/gate_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COMPONENTS (GATE_PATH_MAX / 2)

typedef enum { NE_RUNNER, NE_MARKER, NE_HOOK, NE_PROJECT, NE_VENDORED } ne_kind;

typedef struct {
  ne_kind kind;
  bool subpath;     /* NE_RUNNER, NE_PROJECT: the name and everything beneath it */
  size_t runner;    /* NE_RUNNER, NE_MARKER: the runner's index */
  char *text;       /* the name (relative path for NE_PROJECT), or a marker's text */
  size_t parts;     /* NE_PROJECT: components of `text` */
} ne_entry;

struct gate_nested {
  ne_entry *e;
  size_t n;
  char **runners;
  size_t nrunners;
};

void gate_nested_free(gate_nested *t) {
  if (!t) return;
  for (size_t i = 0; i < t->n; i++) free(t->e[i].text);
  for (size_t i = 0; i < t->nrunners; i++) free(t->runners[i]);
  free(t->e);
  free(t->runners);
  free(t);
}

static bool runner_index(gate_nested *t, const char *id, size_t len, size_t *out) {
  for (size_t i = 0; i < t->nrunners; i++)
    if (strlen(t->runners[i]) == len && strncmp(t->runners[i], id, len) == 0) return *out = i, true;
  char **r = realloc(t->runners, (t->nrunners + 1) * sizeof *r);
  if (!r) return false;
  t->runners = r;
  if (!(r[t->nrunners] = strndup(id, len))) return false;
  *out = t->nrunners++;
  return true;
}

/* Splits "a\tb\tc" into at most `max` fields (the last keeps any further tabs). */
static size_t fields(const char *s, const char *f[], size_t len[], size_t max) {
  size_t n = 0;
  while (n < max) {
    const char *tab = n + 1 < max ? strchr(s, '\t') : NULL;
    f[n] = s;
    len[n] = tab ? (size_t)(tab - s) : strlen(s);
    n++;
    if (!tab) break;
    s = tab + 1;
  }
  return n;
}

static bool is(const char *f, size_t len, const char *word) { return strlen(word) == len && strncmp(f, word, len) == 0; }

/* One entry of protect.gate_names: "runner\tID\tliteral|subpath\tNAME", "marker\tID\tTEXT", "hook\tNAME",
 * "project\tliteral|subpath\tREL", "vendored\tNAME". */
static bool parse(gate_nested *t, const char *s, ne_entry *e) {
  const char *f[4];
  size_t len[4], n = fields(s, f, len, 4);
  memset(e, 0, sizeof *e);
  const char *text = NULL;
  if (n == 4 && is(f[0], len[0], "runner")) {
    e->kind = NE_RUNNER;
    if (!runner_index(t, f[1], len[1], &e->runner)) return false;
    e->subpath = is(f[2], len[2], "subpath");
    if (!e->subpath && !is(f[2], len[2], "literal")) return false;
    text = f[3];
    if (strchr(text, '/')) return false;  /* one name at a work tree's top */
  } else if (n >= 3 && is(f[0], len[0], "marker")) {
    e->kind = NE_MARKER;
    if (!runner_index(t, f[1], len[1], &e->runner)) return false;
    text = f[2];
  } else if (n >= 3 && is(f[0], len[0], "project")) {
    e->kind = NE_PROJECT;
    e->subpath = is(f[1], len[1], "subpath");
    if (!e->subpath && !is(f[1], len[1], "literal")) return false;
    text = f[2];
  } else if (n == 2 && (is(f[0], len[0], "hook") || is(f[0], len[0], "vendored"))) {
    e->kind = is(f[0], len[0], "hook") ? NE_HOOK : NE_VENDORED;
    text = f[1];
  } else {
    return false;
  }
  if (!text[0] || text[0] == '/' || (e->kind != NE_MARKER && strchr(text, '\t'))) return false;
  if (!(e->text = strdup(text))) return false;
  e->parts = 1;
  for (const char *p = text; (p = strchr(p, '/')); p++) e->parts++;
  return true;
}

gate_nested *gate_nested_new(char *const *names, size_t n) {
  gate_nested *t = calloc(1, sizeof *t);
  if (!t || (n && !(t->e = calloc(n, sizeof *t->e)))) return gate_nested_free(t), NULL;
  for (size_t i = 0; i < n; i++) {
    if (gate_identity_entry(names[i])) continue;  /* identity.c's */
    if (!parse(t, names[i], &t->e[t->n])) return gate_nested_free(t), NULL;
    t->n++;
  }
  return t;
}

typedef struct {
  const char *path;
  unsigned short off[MAX_COMPONENTS], len[MAX_COMPONENTS];
  size_t k;  /* number of components */
} split_path;

static bool split(const char *path, split_path *s) {
  s->path = path, s->k = 0;
  for (size_t i = 0; path[i];) {
    while (path[i] == '/') i++;
    if (!path[i]) break;
    size_t j = i;
    while (path[j] && path[j] != '/') j++;
    if (s->k == MAX_COMPONENTS) return false;
    s->off[s->k] = (unsigned short)i, s->len[s->k] = (unsigned short)(j - i), s->k++;
    i = j;
  }
  return true;
}

static bool comp_is(const split_path *s, size_t i, const char *name, size_t n) {
  return s->len[i] == n && memcmp(s->path + s->off[i], name, n) == 0;
}

/* The directory holding component i: the path up to it ("/" for the first). */
static void top_of(const split_path *s, size_t i, char out[GATE_PATH_MAX]) {
  size_t n = i == 0 ? 1 : (size_t)(s->off[i] - 1);
  memcpy(out, s->path, n);
  out[n] = '\0';
}

/* Whether rel's components match the path's from component i: 0 no, 1 the path reaches rel's end or
 * beneath it (`subpath`) or exactly (literal), 2 the path ends on a prefix of rel (what arrives there
 * could hold it). */
static int rel_matches(const split_path *s, size_t i, const ne_entry *e) {
  const char *r = e->text;
  for (size_t j = 0; j < e->parts; j++) {
    size_t n = strcspn(r, "/");
    if (i + j >= s->k) return 2;
    if (!comp_is(s, i + j, r, n)) return 0;
    r += n + (r[n] == '/');
  }
  return e->subpath || i + e->parts == s->k ? 1 : 0;
}

static bool within(const char *root, const char *p) {
  size_t n = strlen(root);
  if (n == 1 && root[0] == '/') return true;
  return strncmp(root, p, n) == 0 && (p[n] == '\0' || p[n] == '/');
}

static bool holds_dotgit(const char *top) {
  char p[GATE_PATH_MAX];
  struct stat st;
  return snprintf(p, sizeof p, "%s/.git", strcmp(top, "/") == 0 ? "" : top) < (int)sizeof p &&
         lstat(p, &st) == 0;
}

static const char *const RUNNER = "a hook runner installed in the repository whose work tree this is runs this file at "
                                  "the user's next git command outside the sandbox; change it outside the sandbox";
static const char *const HOOKS_PATH = "this is where a repository's core.hooksPath points: git runs what it holds "
                                      "outside the sandbox; change hooks outside the sandbox";
static const char *const PROJECT = "editors and agents run what this file says when the user opens this directory as "
                                   "a project; it may be written only in a directory this run made (a clone, a new "
                                   "project), so change it outside the sandbox";
#define RULE_RUNNER "nested rule: hook runner of a work tree"
#define RULE_HOOKS_PATH "nested rule: core.hooksPath of a work tree"
#define RULE_PROJECT "nested rule: project file"

/* Whether the runner `runner`'s config at `cfg`, in the work tree at `top`, is read by the repository's
 * active hooks: its hooksPath leads into the config, or a hook there carries the runner's marker. A doubt
 * refuses. */
static bool runner_active(const gate_nested *t, const char *top, const char *cfg, size_t runner) {
  char hooks[GATE_PATH_MAX];
  int rc = gate_worktree_hooks(top, hooks);
  if (rc < 0) return true;
  if (rc == 1 && (within(cfg, hooks) || within(hooks, cfg))) return true;
  const char *markers[64];
  size_t n = 0;
  for (size_t i = 0; i < t->n && n < 64; i++)
    if (t->e[i].kind == NE_MARKER && t->e[i].runner == runner) markers[n++] = t->e[i].text;
  return gate_hooks_carry(hooks, markers, n);
}

/* Whether `dir` (a file made or changed there: `arrive` false), or what arrives at `path` (a link, a
 * directory: true), is a nested repository's hooksPath. Every ancestor holding a .git is asked. */
static bool in_hooks_path(const char *path, const char *dir, bool arrive) {
  char top[GATE_PATH_MAX];
  snprintf(top, sizeof top, "%s", arrive ? path : dir);
  for (;;) {  /* `dir` itself first (a hooksPath of "."), then each parent */
    char *s = strrchr(top, '/');
    if (holds_dotgit(top)) {
      char hooks[GATE_PATH_MAX];
      int rc = gate_worktree_hooks(top, hooks);
      /* a git directory outside the view: asked of every directory renamed below a linked worktree, so
       * not a doubt here (gitrepo.lua protected that repository's hooksPath at launch, as it could) */
      if (rc == -1) return true;
      if (rc == 1 && (arrive ? within(path, hooks) : strcmp(hooks, dir) == 0)) return true;
    }
    if (strcmp(top, "/") == 0 || !s) return false;
    if (s == top) s[1] = '\0';
    else *s = '\0';
  }
}

const char *gate_nested_refusal(cordon_lx_gate *g, const char *path, bool arrive, const char **rule) {
  const gate_nested *t = g->nested;
  *rule = NULL;
  if (!t || !t->n || path[0] != '/') return NULL;
  split_path *s = malloc(sizeof *s);
  if (!s) return *rule = RULE_RUNNER, RUNNER;  /* fail closed */
  const char *why = NULL;
  if (!split(path, s)) {
    free(s);
    return *rule = RULE_RUNNER, RUNNER;
  }
  bool vendored = false;
  char top[GATE_PATH_MAX];
  for (size_t i = 0; i < s->k && !why; i++) {
    const char *c = path + s->off[i];
    bool last = i + 1 == s->k;
    for (size_t x = 0; x < t->n && !why; x++) {
      const ne_entry *e = &t->e[x];
      if (e->text[0] != c[0]) continue;  /* most components start with no entry's first letter */
      if (e->kind == NE_RUNNER && comp_is(s, i, e->text, strlen(e->text)) && (last || e->subpath)) {
        top_of(s, i, top);
        char cfg[GATE_PATH_MAX];
        size_t n = (size_t)s->off[i] + s->len[i];
        memcpy(cfg, path, n);
        cfg[n] = '\0';
        if (holds_dotgit(top) && runner_active(t, top, cfg, e->runner)) why = RUNNER, *rule = RULE_RUNNER;
      } else if (e->kind == NE_PROJECT && !vendored) {
        int m = rel_matches(s, i, e);
        if (m == 1 || (m == 2 && arrive)) {
          top_of(s, i, top);
          struct stat st;
          bool made = stat(top, &st) == 0 && gate_made_has(g->made, st.st_dev, st.st_ino) &&
                      !gate_made_vacated(g->made, top);
          if (!made) why = PROJECT, *rule = RULE_PROJECT;
        }
      } else if (e->kind == NE_VENDORED && !last && comp_is(s, i, e->text, strlen(e->text))) {
        vendored = true;  /* what a package manager installs below it is the package's, not a project the user opens */
      } else if (e->kind == NE_HOOK && last && !arrive && comp_is(s, i, e->text, strlen(e->text))) {
        top_of(s, i, top);
        if (in_hooks_path(path, top, false)) why = HOOKS_PATH, *rule = RULE_HOOKS_PATH;
      }
    }
  }
  if (!why && arrive && in_hooks_path(path, NULL, true)) why = HOOKS_PATH, *rule = RULE_HOOKS_PATH;
  free(s);
  return why;
}
