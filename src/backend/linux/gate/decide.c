/* src/backend/linux/gate/decide.c — deciding one operation on what it resolved to, and the refusal lines on stderr */
#include "backend/linux/gate/gate_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define REPORT_MAX 100

struct gate_report {
  char *paths[REPORT_MAX];  /* what was reported already */
  size_t n;
  bool capped;
};

gate_report *gate_report_new(void) { return calloc(1, sizeof(gate_report)); }

void gate_report_free(gate_report *r) {
  if (!r) return;
  for (size_t i = 0; i < r->n; i++) free(r->paths[i]);
  free(r);
}

static void write_all(int fd, const char *s, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, s, n);
    if (w <= 0) return;  /* a closed stderr loses the line, never the decision */
    s += w, n -= (size_t)w;
  }
}

void gate_refuse(cordon_lx_gate *g, const char *what, const char *path, const char *why, const char *source) {
  gate_report *r = g->report;
  if (g->msg_fd < 0 || r->capped) return;
  for (size_t i = 0; i < r->n; i++)
    if (strcmp(r->paths[i], path) == 0) return;
  char line[GATE_PATH_MAX + 1024];
  int n;
  if (r->n == REPORT_MAX - 1) {
    r->capped = true;
    n = snprintf(line, sizeof line, "cordon: refused %s %s: %s (%s); further refusals are not reported\n", what,
                 path, why, source);
  } else {
    r->paths[r->n] = strdup(path);
    if (r->paths[r->n]) r->n++;
    n = snprintf(line, sizeof line, "cordon: refused %s %s: %s (%s)\n", what, path, why, source);
  }
  if (n > 0) write_all(g->msg_fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

static const char *class_op(unsigned cls) {
  switch (cls) {
  case CORDON_LX_WRITE: return "file-write-data";
  case CORDON_LX_CREATE: return "file-write-create";
  case CORDON_LX_REMOVE: return "file-write-unlink";
  default: return "file-write*";
  }
}

/* Whether `path` (or, absent, the directory it would be made in) lies on a read-only mount of the view. */
static bool on_read_only_mount(const char *path) {
  struct statvfs sv;
  if (statvfs(path, &sv) == 0) return (sv.f_flag & ST_RDONLY) != 0;
  char dpath[GATE_PATH_MAX];
  gate_split_path(path, dpath);
  return statvfs(dpath, &sv) == 0 && (sv.f_flag & ST_RDONLY);
}

int gate_policy(gate_call *c, unsigned cls, const char *path, const char *what) {
  const lx_xrule *why = NULL;
  if (lx_decide_why(&c->g->rules, cls, path, &why)) return 0;
  /* Where the view itself is read-only the kernel would refuse as well, with this errno: no line, since
   * tools try such writes and carry on (git status refreshing the index of a read-only repository). A
   * line is for what only the gate refuses: protected names inside a writable tree. */
  if (on_read_only_mount(path)) return -EROFS;
  char text[160];
  snprintf(text, sizeof text, "the policy denies %s here; grant it with --add-dirs or in a profile, or do it outside "
           "the sandbox", class_op(cls));
  gate_refuse(c->g, what, path, text, why && why->source[0] ? why->source : "policy default");
  return -EPERM;
}

bool gate_policy_connect(gate_call *c, const char *path) {
  const lx_xrule *why = NULL;
  bool allowed = lx_decide_connect_why(&c->g->rules, path, NULL, &why);
  if (allowed && why && lx_rule_names_path(why)) return true;
  const char *text = allowed ? "only sockets the policy names by path may be reached (an unfiltered allow names "
                               "none); enable the integration that names it (--enable=NAME) or run it outside"
                             : "the policy does not allow connecting to this socket; enable the integration that "
                               "names it (--enable=NAME) or run it outside the sandbox";
  gate_refuse(c->g, "connect", path, text, why && why->source[0] ? why->source : "policy default");
  return false;
}

bool gate_still_valid(gate_call *c) { return gate_id_valid(c->g, c->id); }

const char *gate_split_path(const char *path, char dpath[GATE_PATH_MAX]) {
  snprintf(dpath, GATE_PATH_MAX, "%s", path);
  char *s = strrchr(dpath, '/');
  if (!s) return path;
  const char *name = path + (s - dpath) + 1;
  if (s == dpath) s[1] = '\0';
  else *s = '\0';
  return name;
}

int gate_may_create(gate_call *c, int dir, const char *name, int how, const char *what, char path[GATE_PATH_MAX],
                    git_kind *kind) {
  int rc = gate_join_path(c->g, dir, name, path, GATE_PATH_MAX);
  if (rc < 0) return rc;
  if ((rc = gate_policy(c, CORDON_LX_CREATE, path, what)) < 0) return rc;
  char dpath[GATE_PATH_MAX];
  gate_split_path(path, dpath);
  git_kind k = GIT_PLAIN;
  const char *why = git_create_refusal(c->g, dir, dpath, name, how, &k);
  if (kind) *kind = k;
  const char *rule = git_rule_name(k);
  if (!why && how != GIT_MKDIR)  /* an empty directory runs nothing; what is made in it is decided then */
    why = gate_nested_refusal(c->g, path, how == GIT_SYMLINK || how == GIT_RENAME_DIR, &rule);
  if (!why) return 0;
  gate_refuse(c->g, what, path, why, rule);
  return -EPERM;
}

int gate_may_symlink(gate_call *c, int dir, const char *path, const char *target, const char *what) {
  char dpath[GATE_PATH_MAX];
  gate_split_path(path, dpath);
  const char *why = git_symlink_refusal(dir, dpath, target);
  if (!why) return 0;
  gate_refuse(c->g, what, path, why, GIT_RULE_NO_LINKS);
  return -EPERM;
}

int gate_may_change(gate_call *c, const gate_path *p, unsigned cls, int op, const char *what, char path[GATE_PATH_MAX]) {
  int rc = p->kind == GP_NAME ? gate_join_path(c->g, p->dir, p->name, path, GATE_PATH_MAX)
                              : gate_fd_path(c->g, p->obj, path, GATE_PATH_MAX);
  if (rc < 0) return rc;
  if (path[0] != '/') return 0;  /* a pipe, a socket, an anonymous inode: nothing in the file tree */
  if ((rc = gate_policy(c, cls, path, what)) < 0) return rc;
  const char *why;
  const char *twin = (cls & CORDON_LX_WRITE) ? gate_identity_of(c->g->identity, &p->st) : NULL;
  if (twin) {
    char text[GATE_PATH_MAX + 128];
    snprintf(text, sizeof text, "it is another name (a hard link) of %s, which the policy keeps read-only", twin);
    gate_refuse(c->g, what, path, text, "hard link to a protected file");
    return -EPERM;
  }
  git_kind k = GIT_PLAIN;
  if (p->kind == GP_NAME) {
    char dpath[GATE_PATH_MAX];
    gate_split_path(path, dpath);
    why = git_existing_refusal(c->g, p->dir, dpath, p->name, &p->st, op, &k);
  } else {
    why = git_existing_refusal_path(c->g, path, &p->st, op, &k);
  }
  const char *rule = git_rule_name(k);
  if (!why) why = gate_nested_refusal(c->g, path, false, &rule);
  if (!why) return 0;
  gate_refuse(c->g, what, path, why, rule);
  return -EPERM;
}
