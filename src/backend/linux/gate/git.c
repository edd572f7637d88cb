/* src/backend/linux/gate/git.c — git's layout rules: which names git would later run or read as configuration */
#include "backend/linux/gate/gate_impl.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static bool ci_eq(const char *a, const char *b) { return strcasecmp(a, b) == 0; }

bool git_name_sample(const char *name) {
  size_t n = strlen(name);
  return n >= 7 && strcasecmp(name + n - 7, ".sample") == 0;
}

static const char *base_name(const char *p) {
  const char *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

static bool path_beneath_dotgit(const char *p) {
  for (const char *s = p; (s = strchr(s, '/')); s++) {
    size_t n = strcspn(s + 1, "/");
    if (n == 4 && strncasecmp(s + 1, ".git", 4) == 0) return true;
  }
  return false;
}

static bool holds(int dir, const char *name) {
  struct stat st;
  return fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

bool git_is_gitdir(int dir, const char *dpath) {
  if (path_beneath_dotgit(dpath)) return true;
  return (holds(dir, "objects") && holds(dir, "refs")) || holds(dir, "commondir");
}

static bool parent_is_gitdir(int dir, const char *dpath) {
  char parent[GATE_PATH_MAX];
  snprintf(parent, sizeof parent, "%s", dpath);
  char *s = strrchr(parent, '/');
  if (!s) return false;
  if (s == parent) s[1] = '\0';
  else *s = '\0';
  int up = openat(dir, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (up < 0) return path_beneath_dotgit(parent);
  bool r = git_is_gitdir(up, parent);
  close(up);
  return r;
}

const char *git_symlink_refusal(int dir, const char *dpath, const char *target) {
  if (!git_is_gitdir(dir, dpath) && !parent_is_gitdir(dir, dpath)) return NULL;
  /* git init's probe of core.symlinks: a link tXXXXXX to "testing", removed at once */
  if (target && strcmp(target, "testing") == 0) return NULL;
  return "git follows links in its own directory when it writes there (COMMIT_EDITMSG, ORIG_HEAD, a lock's "
         "target), so a link made inside would let the user's next git command write where it points";
}

bool git_hooks_has_code(int dir, const char *name) {
  int fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return false;
  DIR *d = fdopendir(fd);
  if (!d) {
    close(fd);
    return true;  /* cannot tell: assume the worst */
  }
  bool code = false;
  for (struct dirent *e; !code && (e = readdir(d));)
    code = strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 && !git_name_sample(e->d_name);
  closedir(d);
  return code;
}

/* A config, a config.worktree, an index (written before it was a git directory's, so never checked) or
 * hooks with code: what must never meet the pieces of a repository. */
static bool holds_config_or_hooks(int dir) {
  static const char *const names[] = {"config", "config.worktree", "index"};
  for (size_t i = 0; i < 3; i++) {
    struct stat st;
    if (fstatat(dir, names[i], &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode)) return true;
  }
  return git_hooks_has_code(dir, "hooks");
}

static bool is_piece(const char *name) {
  return ci_eq(name, "objects") || ci_eq(name, "refs") || ci_eq(name, "HEAD") || ci_eq(name, "commondir");
}

/* Whether `dpath` is where git keeps an index: a git directory, and not a ref or reflog directory (a
 * branch may be named index) unless it holds a HEAD. */
static bool index_dir(int dir, const char *dpath) {
  if (!git_is_gitdir(dir, dpath)) return false;
  if (holds(dir, "HEAD")) return true;
  char p[GATE_PATH_MAX];
  snprintf(p, sizeof p, "%s/", dpath);
  const char *s = strstr(p, "/.git/");
  return !(s && (strstr(s, "/refs/") || strstr(s, "/logs/")));
}

static bool is_config(const char *name) { return ci_eq(name, "config") || ci_eq(name, "config.worktree"); }

git_kind git_name_kind(int dir, const char *dpath, const char *name) {
  const char *b = base_name(dpath);
  if (ci_eq(b, "hooks") && !git_name_sample(name) && parent_is_gitdir(dir, dpath)) return GIT_HOOK;
  bool todo = (ci_eq(b, "rebase-merge") && ci_eq(name, "git-rebase-todo")) || (ci_eq(b, "sequencer") && ci_eq(name, "todo"));
  if (todo && parent_is_gitdir(dir, dpath)) return GIT_SEQUENCER_LIST;
  bool opts = (ci_eq(b, "rebase-merge") && (ci_eq(name, "strategy") || ci_eq(name, "strategy_opts"))) ||
              (ci_eq(b, "sequencer") && ci_eq(name, "opts"));
  if (opts && parent_is_gitdir(dir, dpath)) return GIT_SEQUENCER_OPTS;
  if (ci_eq(name, "index")) return index_dir(dir, dpath) ? GIT_INDEX : GIT_PLAIN;
  bool special = is_config(name) || ci_eq(name, "hooks") || is_piece(name);
  if (!special) return ci_eq(name, ".git") ? GIT_GITDIR : GIT_PLAIN;
  bool gitdir = git_is_gitdir(dir, dpath);
  if (is_config(name)) return gitdir ? GIT_CONFIG : GIT_PLAIN;
  if (ci_eq(name, "hooks")) return gitdir ? GIT_HOOKS_DIR : GIT_PLAIN;
  return gitdir ? GIT_GITDIR : GIT_PIECE;
}

const char *git_rule_name(git_kind k) {
  switch (k) {
  case GIT_CONFIG: return "git layout rule: config";
  case GIT_SEQUENCER_LIST: return "git layout rule: sequencer todo list";
  case GIT_SEQUENCER_OPTS: return "git layout rule: sequencer options";
  case GIT_INDEX: return "git layout rule: index";
  case GIT_HOOK: return "git layout rule: hooks";
  case GIT_HOOKS_DIR: return "git layout rule: hooks directory";
  case GIT_PIECE: return "git layout rule: no repository from parts";
  case GIT_GITDIR: return "git layout rule: git directory";
  default: return "git layout rule";
  }
}

static const char *const HOOK_NEW = "git runs hooks outside the sandbox, so only *.sample files may be added to hooks/; "
                                    "install hooks outside the sandbox";
static const char *const HOOK_OLD = "git runs this hook outside the sandbox, so it may not be written, replaced, "
                                    "removed or chmodded inside; change hooks outside the sandbox";
static const char *const CONFIG = "git config runs commands (core.fsmonitor, aliases, hooksPath), so it may only be "
                                  "replaced the way git writes it, config.lock renamed over it, with safe keys; "
                                  "run git config outside the sandbox";
static const char *const SEQUENCER_LIST = "a sequencer todo list may only be replaced by renaming a checked file over it, "
                                "never written in place (its exec lines run when the user continues)";
static const char *const SEQUENCER_OPTS = "a rebase's or cherry-pick's options name the merge program git runs when "
                                "the user continues (git-merge-<strategy>), so they are made only by renaming a "
                                "checked file over them, with one of git's own strategies; start a rebase with -s "
                                "or -X outside the sandbox";
static const char *const INDEX = "the host's git checkout and restore write what the index stages, so it may only be "
                                 "replaced the way git writes it, index.lock renamed over it, and is then checked";
static const char *const HOOKS_DIR = "hooks in a git directory must be a directory made here or moved in with only "
                                     "*.sample files (a link could lead git to hooks written elsewhere)";
static const char *const PIECE = "this directory holds a config, an index or hooks, and this name would make git treat it as "
                                 "a repository (one cannot be assembled from parts); create repositories with git";

const char *git_create_refusal(cordon_lx_gate *g, int dir, const char *dpath, const char *name, int how, git_kind *kind) {
  (void)g;
  git_kind k = git_name_kind(dir, dpath, name);
  if (kind) *kind = k;
  switch (k) {
  case GIT_HOOK: return HOOK_NEW;
  case GIT_CONFIG: return how == GIT_RENAME_FILE ? NULL : CONFIG;
  case GIT_SEQUENCER_LIST: return how == GIT_RENAME_FILE ? NULL : SEQUENCER_LIST;
  case GIT_SEQUENCER_OPTS: return how == GIT_RENAME_FILE ? NULL : SEQUENCER_OPTS;
  case GIT_INDEX: return how == GIT_RENAME_FILE ? NULL : INDEX;
  case GIT_HOOKS_DIR: return how == GIT_MKDIR || how == GIT_RENAME_DIR ? NULL : HOOKS_DIR;
  case GIT_PIECE: return holds_config_or_hooks(dir) ? PIECE : NULL;
  default: return NULL;
  }
}

const char *git_existing_refusal(cordon_lx_gate *g, int dir, const char *dpath, const char *name, const struct stat *st,
                                 int op, git_kind *kind) {
  (void)g;
  git_kind k = git_name_kind(dir, dpath, name);
  if (kind) *kind = k;
  switch (k) {
  case GIT_HOOK: return HOOK_OLD;
  /* execute bits on a config mean nothing to git, and git init flips one to learn core.filemode */
  case GIT_CONFIG: return op == GIT_REPLACE || op == GIT_CHMOD_EXEC ? NULL : CONFIG;
  case GIT_SEQUENCER_LIST: return op == GIT_REPLACE || op == GIT_REMOVE ? NULL : SEQUENCER_LIST;
  case GIT_SEQUENCER_OPTS: return op == GIT_REPLACE || op == GIT_REMOVE ? NULL : SEQUENCER_OPTS;
  /* its mode means nothing to git; removed or moved away it stages nothing */
  case GIT_INDEX: return op == GIT_WRITE || op == GIT_LINK_FROM ? INDEX : NULL;
  case GIT_HOOKS_DIR:
    if (op != GIT_REMOVE && op != GIT_MOVE_AWAY && op != GIT_REPLACE) return NULL;
    return st && S_ISDIR(st->st_mode) && git_hooks_has_code(dir, name) ? HOOK_OLD : NULL;
  default: return NULL;
  }
}

const char *git_existing_refusal_path(cordon_lx_gate *g, const char *path, const struct stat *st, int op, git_kind *kind) {
  if (kind) *kind = GIT_PLAIN;
  if (path[0] != '/') return NULL;  /* a pipe, a socket: not in any directory */
  char dpath[GATE_PATH_MAX];
  snprintf(dpath, sizeof dpath, "%s", path);
  char *s = strrchr(dpath, '/');
  const char *name = path + (s - dpath) + 1;
  if (!*name) return NULL;
  if (s == dpath) s[1] = '\0';
  else *s = '\0';
  int dir = openat(g->root_fd, dpath, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return NULL;  /* not reachable in the tree (deleted, or outside the view): nor is it for git */
  const char *r = git_existing_refusal(g, dir, dpath, name, st, op, kind);
  close(dir);
  return r;
}

const char *cordon_lx_git_layout_refusal(const char *path, cordon_lx_git_question q, const char **rule) {
  *rule = NULL;
  char dpath[GATE_PATH_MAX];
  if (path[0] != '/' || snprintf(dpath, sizeof dpath, "%s", path) >= (int)sizeof dpath) return NULL;
  char *s = strrchr(dpath, '/');
  const char *name = path + (s - dpath) + 1;
  if (!*name) return NULL;
  if (s == dpath) s[1] = '\0';
  else *s = '\0';
  /* a directory that does not exist (yet) is judged by its name alone, as git's rules do for one being made */
  int dir = open(dpath, O_PATH | O_DIRECTORY | O_CLOEXEC);
  git_kind kind = GIT_PLAIN;
  struct stat st;
  if (q == CORDON_LX_GIT_WRITE && (dir < 0 || fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0))
    q = CORDON_LX_GIT_CREATE;  /* writing a file that is not there makes it */
  const char *why = q == CORDON_LX_GIT_CREATE ? git_create_refusal(NULL, dir, dpath, name, GIT_MKFILE, &kind)
                    : git_existing_refusal(NULL, dir, dpath, name, &st, q == CORDON_LX_GIT_REMOVE ? GIT_REMOVE : GIT_WRITE, &kind);
  if (dir >= 0) close(dir);
  if (why) *rule = git_rule_name(kind);
  return why;
}
