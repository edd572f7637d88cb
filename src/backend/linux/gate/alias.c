/* src/backend/linux/gate/alias.c — names that give other paths a new meaning */
#include "backend/linux/gate/gate_impl.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
  const char *base;  /* P */
  int tree;          /* the directory that will be (or was) P, or -1 for a symlink */
  bool hit;
  char rule[GATE_PATH_MAX];
} probe;

/* Whether `tree` holds `rel` (a path relative to it) or a symlink on the way to it; with `prefix`, the
 * last component is the start of a name. */
static bool tree_reaches(int tree, const char *rel, bool prefix) {
  char buf[GATE_PATH_MAX];
  snprintf(buf, sizeof buf, "%s", rel);
  int cur = fcntl(tree, F_DUPFD_CLOEXEC, 0);
  bool reaches = false;
  for (char *comp = buf, *next; cur >= 0 && comp && *comp; comp = next) {
    next = strchr(comp, '/');
    if (next) *next++ = '\0';
    bool last = !next || !*next;
    if (last && prefix) {
      /* any entry starting with the prefix's last part */
      int d = openat(cur, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      DIR *dir = d >= 0 ? fdopendir(d) : NULL;
      size_t n = strlen(comp);
      for (struct dirent *e; dir && !reaches && (e = readdir(dir));)
        reaches = strncmp(e->d_name, comp, n) == 0 && strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
      if (dir) closedir(dir);
      else if (d >= 0) close(d);
      if (!dir) reaches = true;  /* cannot tell: err toward less */
      break;
    }
    int fd = openat(cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
      reaches = errno != ENOENT && errno != ENOTDIR;  /* absent: nothing there to protect */
      break;
    }
    struct stat st;
    bool ok = fstat(fd, &st) == 0;
    close(cur);
    cur = fd;
    if (last || !ok || S_ISLNK(st.st_mode)) {
      reaches = true;  /* it is there, or a link decides where it is */
      break;
    }
    if (!S_ISDIR(st.st_mode)) break;  /* a file on the way: the path cannot exist in this tree */
  }
  if (cur >= 0) close(cur);
  return reaches;
}

static void on_deny(void *ud, const char *arg, bool exact) {
  probe *p = ud;
  if (p->hit) return;
  size_t n = strlen(p->base);
  const char *rel = arg + (n == 1 ? 1 : n + 1);
  if (p->tree < 0 || tree_reaches(p->tree, rel, !exact)) {
    p->hit = true;
    snprintf(p->rule, sizeof p->rule, "%s", arg);
  }
}

int gate_may_alias(gate_call *c, const char *path, int tree, const char *what) {
  probe p = {.base = path, .tree = tree};
  lx_deny_args_beneath(&c->g->rules, CORDON_LX_MODIFY, path, on_deny, &p);
  if (!p.hit) return 0;
  char why[GATE_PATH_MAX + 200], source[GATE_PATH_MAX + 40];
  snprintf(why, sizeof why, "%s", tree < 0 ? "a symlink here would give a path the policy protects beneath it another "
                                             "meaning; make a directory instead"
                                           : "the directory holds (or links toward) a path the policy protects beneath "
                                             "this name; move its contents one by one");
  snprintf(source, sizeof source, "the policy protects %s", p.rule);
  gate_refuse(c->g, what, path, why, source);
  return -EPERM;
}
