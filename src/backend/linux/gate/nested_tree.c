/* src/backend/linux/gate/nested_tree.c — a directory moved where one that was there at launch stood brings no project files */
#include "backend/linux/gate/gate_impl.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define TREE_MAX 100000  /* entries looked at; a bigger tree moved there is refused (fail closed) */
#define TREE_DEPTH 64

/* Walks `d` (closed here), whose entries would arrive at `at`, asking the nested rules of each path. */
static const char *walk(cordon_lx_gate *g, int d, char *at, size_t len, size_t *budget, int depth) {
  DIR *dir = fdopendir(d);
  if (!dir) {
    close(d);
    return "a directory of the tree cannot be read to check it";
  }
  const char *bad = NULL;
  for (struct dirent *ent; !bad && (ent = readdir(dir));) {
    const char *n = ent->d_name;
    if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0) continue;
    if (!(*budget)-- || depth >= TREE_DEPTH) {
      bad = "the tree is too large to check";
      break;
    }
    size_t nl = strlen(n);
    if (len + 1 + nl >= GATE_PATH_MAX) {
      bad = "a path in the tree is too long to check";
      break;
    }
    at[len] = '/';
    memcpy(at + len + 1, n, nl + 1);
    struct stat st;
    bool is_dir = fstatat(dirfd(dir), n, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
    const char *rule;
    if (gate_nested_refusal(g, at, is_dir, &rule)) bad = "it holds a project file (an editor's, an agent's or a toolchain's)";
    else if (is_dir) {
      int sub = openat(dirfd(dir), n, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      bad = sub < 0 ? "a directory of the tree cannot be read to check it" : walk(g, sub, at, len + 1 + nl, budget, depth + 1);
    }
    at[len] = '\0';
  }
  closedir(dir);
  return bad;
}

const char *gate_nested_tree_refusal(cordon_lx_gate *g, int fd, const char *dst, const struct stat *replaced) {
  bool launch_place = gate_made_vacated(g->made, dst) ||
                      (replaced && S_ISDIR(replaced->st_mode) && !gate_made_has(g->made, replaced->st_dev, replaced->st_ino));
  if (!launch_place) return NULL;  /* a new name: what the run made there is its own (linux-gate.md) */
  int d = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (d < 0) return "the directory cannot be read to check it";
  char at[GATE_PATH_MAX];
  size_t len = strlen(dst);
  if (len >= sizeof at) {
    close(d);
    return "its destination is too long to check";
  }
  memcpy(at, dst, len + 1);
  size_t budget = TREE_MAX;
  return walk(g, d, at, len, &budget, 0);
}
