/* src/backend/linux/gate/git_replace.c — replacing a git config, index or todo list as git does; trees moved into a git dir */
#include "backend/linux/gate/gate_impl.h"

#include "core/gitconfig.h"
#include "core/path.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define TEXT_MAX (4u << 20)     /* a config or todo list larger than this is refused, not read */
#define INDEX_MAX (512u << 20)  /* an index larger than this (some five million entries) likewise */
#define TREE_MAX 100000         /* entries checked in a tree moved into a git directory */
#define TREE_DEPTH 64

/* Reads the regular file `name` in `dir` whole (NUL-terminated); NULL with *err set. */
void *git_big_alloc(size_t n) {
  void *p = mmap(NULL, n ? n : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

void git_big_free(void *p, size_t n) {
  if (p) munmap(p, n ? n : 1);
}

/* Reads the regular file `name` in `dir` whole (NUL-terminated) into git_big_alloc memory of `*cap`
 * bytes (the static front's allocator never reuses large blocks); NULL with *err set. A file that grows
 * while it is read is refused. */
static char *read_max(int dir, const char *name, size_t *len, size_t *cap, int *err, size_t max) {
  int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    *err = errno;
    return NULL;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > max) {
    *err = EPERM;
    close(fd);
    return NULL;
  }
  *cap = (size_t)st.st_size + 2;
  char *buf = git_big_alloc(*cap);
  size_t n = 0;
  for (ssize_t r = 1; buf && r > 0 && n < *cap - 1;) {
    r = read(fd, buf + n, *cap - 1 - n);
    if (r > 0) n += (size_t)r;
    else if (r < 0) n = *cap;
  }
  close(fd);
  if (!buf || n > (size_t)st.st_size) {
    *err = buf ? EPERM : ENOMEM;
    git_big_free(buf, *cap);
    return NULL;
  }
  buf[n] = '\0';
  *len = n;
  return buf;
}

/* The same in malloc memory, for texts of at most TEXT_MAX bytes. */
static char *read_text(int dir, const char *name, size_t *len, int *err) {
  size_t cap;
  char *big = read_max(dir, name, len, &cap, err, TEXT_MAX);
  char *buf = big ? malloc(*len + 1) : NULL;
  if (big && !buf) *err = ENOMEM;
  if (buf) memcpy(buf, big, *len + 1);
  git_big_free(big, cap);
  return buf;
}

/* Whether `value` of core.worktree in the config inside the git directory `gitdir` keeps the work tree
 * where it can do no harm: a relative path that, taken from the git directory, stays inside the work
 * tree that holds the outermost .git of `gitdir` (git submodule writes ../../../NAME) and outside
 * that .git. An absolute path would let the host's git stash, reset or checkout write anywhere. */
static bool worktree_ok(const char *gitdir, const char *value, char *why, size_t cap) {
  const char *dotgit = gitdir ? strstr(gitdir, "/.git") : NULL;
  while (dotgit && dotgit[5] != '/' && dotgit[5] != '\0') dotgit = strstr(dotgit + 1, "/.git");
  if (!value || !value[0] || value[0] == '/' || value[0] == '~' || !dotgit) {
    snprintf(why, cap, "core.worktree may only be set inside to a relative path within the repository's own work "
             "tree (as git submodule does); set it outside the sandbox");
    return false;
  }
  size_t top = (size_t)(dotgit - gitdir);
  char out[GATE_PATH_MAX];
  if (!cordon_path_join_lexical(gitdir, value, out, sizeof out)) return false;
  size_t len = strlen(out);
  bool inside = len >= top && strncmp(out, gitdir, top) == 0 && (out[top] == '\0' || out[top] == '/');
  bool in_dotgit = inside && strncmp(out + top, "/.git", 5) == 0 && (out[top + 5] == '\0' || out[top + 5] == '/');
  if (!inside || in_dotgit) {
    snprintf(why, cap, "core.worktree = %.300s leads to %.300s, outside the repository's work tree %.*s; set it "
             "outside the sandbox", value, out, (int)(top < 300 ? top : 300), gitdir);
    return false;
  }
  return true;
}

/* Whether a config text `after` may replace `before` (NULL: none yet) in the git directory `gitdir`:
 * every change is to a safe key, and a changed core.worktree stays in the work tree. Otherwise `why`
 * says which entry is not. */
static bool config_ok(cordon_lx_gate *g, const char *gitdir, const char *before, size_t nb, const char *after,
                      size_t na, char *why, size_t cap) {
  cordon_gitconfig b = {0}, a = {0};
  char err[160];
  bool ok = false;
  if (before && !cordon_gitconfig_parse(before, nb, &b, err, sizeof err))
    snprintf(why, cap, "the current config does not parse (%s), so no change to it can be checked", err);
  else if (!cordon_gitconfig_parse(after, na, &a, err, sizeof err))
    snprintf(why, cap, "the new config does not parse (%s)", err);
  else {
    const cordon_gitconfig_entry *bad = NULL;
    ok = cordon_gitconfig_changes_safe(&b, &a, (const char *const *)g->safe_keys, g->nsafe_keys, &bad);
    if (!ok)
      snprintf(why, cap, "%s.%s%s%s (line %u) is not a key a config written inside may add or change; run git "
               "config outside the sandbox", bad->section, bad->subsection ? bad->subsection : "",
               bad->subsection ? "." : "", bad->key, bad->line);
    for (size_t i = 0; ok && i < a.count; i++) {
      const cordon_gitconfig_entry *e = &a.items[i];
      if (e->subsection || strcmp(e->section, "core") != 0 || strcmp(e->key, "worktree") != 0) continue;
      bool kept = false;  /* a value the config already had is not a change */
      for (size_t j = 0; j < b.count && !kept; j++)
        kept = !b.items[j].subsection && strcmp(b.items[j].section, "core") == 0 &&
               strcmp(b.items[j].key, "worktree") == 0 && b.items[j].value && e->value &&
               strcmp(b.items[j].value, e->value) == 0;
      if (!kept) ok = worktree_ok(gitdir, e->value, why, cap);
    }
  }
  cordon_gitconfig_free(&b);
  cordon_gitconfig_free(&a);
  return ok;
}

/* git's own merge strategies: any other name makes git run git-merge-<name>, a path if it holds a '/'. */
static bool builtin_strategy(const char *v, size_t n) {
  static const char *const own[] = {"ort", "recursive", "resolve", "octopus", "ours", "subtree"};
  for (size_t i = 0; i < sizeof own / sizeof *own; i++)
    if (strlen(own[i]) == n && strncmp(own[i], v, n) == 0) return true;
  return false;
}

/* Whether sequencer options name only git's own strategies: rebase-merge/strategy is the name on one line,
 * strategy_opts its -X arguments (kept as they are), sequencer/opts a config whose options.strategy is
 * the name. */
static bool opts_ok(const char *name, const char *text, size_t n, char *why, size_t cap) {
  if (strcasecmp(name, "strategy_opts") == 0) return true;
  if (strcasecmp(name, "strategy") == 0) {
    while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == ' ' || text[n - 1] == '\t')) n--;
    if (builtin_strategy(text, n)) return true;
    snprintf(why, cap, "the strategy is not one of git's own (ort, recursive, resolve, octopus, ours, subtree), "
             "so git would run a program of that name when the rebase continues");
    return false;
  }
  cordon_gitconfig c = {0};
  char err[160];
  if (!cordon_gitconfig_parse(text, n, &c, err, sizeof err)) {
    snprintf(why, cap, "the options do not parse (%s)", err);
    return false;
  }
  bool ok = true;
  for (size_t i = 0; ok && i < c.count; i++) {
    const cordon_gitconfig_entry *e = &c.items[i];
    if (strcmp(e->section, "options") != 0 || strcmp(e->key, "strategy") != 0) continue;
    ok = e->value && builtin_strategy(e->value, strlen(e->value));
    if (!ok)
      snprintf(why, cap, "options.strategy (line %u) is not one of git's own strategies, so git would run a "
               "program of that name when the cherry-pick or revert continues", e->line);
  }
  cordon_gitconfig_free(&c);
  return ok;
}

/* Whether a todo list holds an exec line (first word x or exec): git runs those when the user continues. */
static bool todo_ok(const char *text, char *why, size_t cap) {
  unsigned line = 1;
  for (const char *p = text; *p; line++) {
    p += strspn(p, " \t");
    size_t w = strcspn(p, " \t\r\n");
    if ((w == 1 && (p[0] == 'x' || p[0] == 'X')) || (w == 4 && strncasecmp(p, "exec", 4) == 0)) {
      snprintf(why, cap, "line %u is an exec line, which git would run outside the sandbox when the rebase or "
               "cherry-pick is continued; use --exec outside the sandbox", line);
      return false;
    }
    const char *nl = strchr(p, '\n');
    if (!nl) break;
    p = nl + 1;
  }
  return true;
}

static bool same_dir(int a, int b) {
  struct stat x, y;
  return fstat(a, &x) == 0 && fstat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

/* Writes `text` into a fresh file in `dir` with `mode` and renames it over `name`. 0 or -errno. */
static int install(cordon_lx_gate *g, int dir, const char *name, const char *text, size_t n, mode_t mode) {
  char tmp[300];
  int fd = -1;
  for (int tries = 0; fd < 0 && tries < 16; tries++) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    snprintf(tmp, sizeof tmp, "%s.cordon-%lx%x", name, (unsigned long)ts.tv_nsec, ++g->tmp_counter);
    fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0600);
    if (fd < 0 && errno != EEXIST) return -errno;
  }
  if (fd < 0) return -EEXIST;
  int rc = fchmod(fd, mode & 07777) == 0 ? 0 : -errno;
  for (size_t done = 0; rc == 0 && done < n;) {
    ssize_t w = write(fd, text + done, n - done);
    if (w < 0) rc = -errno;
    else done += (size_t)w;
  }
  if (close(fd) != 0 && rc == 0) rc = -errno;
  if (rc == 0 && renameat(dir, tmp, dir, name) != 0) rc = -errno;
  if (rc != 0) unlinkat(dir, tmp, 0);
  return rc;
}

int git_replace(gate_call *c, git_kind kind, int sdir, const char *sname, const char *spath, int dir,
                const char *name, const char *dpath) {
  cordon_lx_gate *g = c->g;
  char why[GATE_PATH_MAX];
  const char *what = "rename";
  char lock[300];
  snprintf(lock, sizeof lock, "%s.lock", name);
  struct stat sst;
  bool locked = kind == GIT_CONFIG || kind == GIT_INDEX;  /* replaced only the way git writes them */
  if (!same_dir(sdir, dir) || (locked && strcmp(sname, lock) != 0)) {
    if (locked)
      snprintf(why, sizeof why, "a git %s may only be replaced by renaming %s over it, as git does; run that git "
               "command outside the sandbox", name, lock);
    else
      snprintf(why, sizeof why, "a todo list or options file may only be replaced by a file from its own directory");
    gate_refuse(g, what, dpath, why, git_rule_name(kind));
    return -EPERM;
  }
  if (fstatat(sdir, sname, &sst, AT_SYMLINK_NOFOLLOW) != 0) return -errno;
  struct stat dst;
  bool exists = fstatat(dir, name, &dst, AT_SYMLINK_NOFOLLOW) == 0;
  if (!S_ISREG(sst.st_mode) || (exists && !S_ISREG(dst.st_mode))) {
    gate_refuse(g, what, dpath, "only a regular file may replace a regular file here", git_rule_name(kind));
    return -EPERM;
  }
  size_t na = 0, nb = 0;
  int err = 0;
  size_t max = kind == GIT_INDEX ? INDEX_MAX : TEXT_MAX;
  size_t ca = 0, cb = 0;
  char *after = read_max(sdir, sname, &na, &ca, &err, max), *before = NULL;
  if (!after) {
    if (err == EPERM)
      gate_refuse(g, what, spath, kind == GIT_INDEX ? "too large to check (over 512 MiB)" : "too large to check (over 4 MiB)",
                  git_rule_name(kind));
    return -err;
  }
  if (exists && !(before = read_max(dir, name, &nb, &cb, &err, max))) {
    git_big_free(after, ca);
    if (err == EPERM) gate_refuse(g, what, dpath, "the current file cannot be checked against", git_rule_name(kind));
    return -err;
  }
  char gitdir[GATE_PATH_MAX];
  int prc = locked ? gate_fd_path(g, dir, gitdir, sizeof gitdir) : 0;
  if (kind == GIT_INDEX && prc < 0) snprintf(gitdir, sizeof gitdir, "%s", dpath);  /* its name: judged as found */
  if (kind == GIT_INDEX && prc < 0) *strrchr(gitdir, '/') = '\0';
  bool ok = kind == GIT_CONFIG           ? config_ok(g, prc < 0 ? NULL : gitdir, before, nb, after, na, why, sizeof why)
            : kind == GIT_INDEX ? git_index_ok(g, dir, gitdir, (const unsigned char *)before, nb,
                                               (const unsigned char *)after, na, why, sizeof why)
            : kind == GIT_SEQUENCER_OPTS ? opts_ok(name, after, na, why, sizeof why)
                                         : todo_ok(after, why, sizeof why);
  int rc = -EPERM;
  if (!ok) gate_refuse(g, what, dpath, why, git_rule_name(kind));
  else if ((rc = install(g, dir, name, after, na, sst.st_mode)) == 0)
    (void)unlinkat(sdir, sname, 0);  /* the caller's rename is done: its source name is gone */
  git_big_free(before, cb);
  git_big_free(after, ca);
  return rc;
}

static const char *tree_check(cordon_lx_gate *g, int fd, const char *dname, size_t *budget, int depth) {
  if (depth > TREE_DEPTH) return "the tree is too deep to check";
  DIR *d = fdopendir(fd);
  if (!d) {
    close(fd);
    return "the tree cannot be read to check it";
  }
  const char *bad = NULL;
  char why[GATE_PATH_MAX];
  for (struct dirent *e; !bad && (e = readdir(d));) {
    const char *n = e->d_name;
    if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0) continue;
    if ((*budget)-- == 0) {
      bad = "the tree is too large to check";
      break;
    }
    struct stat st;
    if (fstatat(dirfd(d), n, &st, AT_SYMLINK_NOFOLLOW) != 0) {
      bad = "an entry of the tree cannot be checked";
      break;
    }
    bool is_dir = S_ISDIR(st.st_mode);
    if (S_ISLNK(st.st_mode)) {  /* git follows links in its own directory when it writes there */
      bad = "it holds a symbolic link, which git would follow when it writes its own files";
      break;
    }
    bool todo = (strcasecmp(dname, "rebase-merge") == 0 && strcasecmp(n, "git-rebase-todo") == 0) ||
                (strcasecmp(dname, "sequencer") == 0 && strcasecmp(n, "todo") == 0);
    bool config = strcasecmp(n, "config") == 0 || strcasecmp(n, "config.worktree") == 0;
    bool opts = (strcasecmp(dname, "rebase-merge") == 0 && (strcasecmp(n, "strategy") == 0 || strcasecmp(n, "strategy_opts") == 0)) ||
                (strcasecmp(dname, "sequencer") == 0 && strcasecmp(n, "opts") == 0);
    if (strcasecmp(dname, "hooks") == 0 && !git_name_sample(n)) bad = "it holds a hook (hooks/ may hold only *.sample)";
    /* where the tree lands decides which entries are protected: an index comes only by index.lock */
    else if (strcasecmp(n, "index") == 0 && !is_dir)
      bad = "it holds an index (or a file named index), which the host's checkout would act on; an index may "
            "only arrive by renaming index.lock over it, where it is checked";
    else if (opts) bad = "it holds a rebase's or cherry-pick's options, which name the merge program git runs";
    else if (strcasecmp(n, "hooks") == 0 && !is_dir) bad = "its hooks is not a directory";
    else if ((config || todo) && !is_dir) {
      size_t len;
      int err;
      char *text = S_ISREG(st.st_mode) ? read_text(dirfd(d), n, &len, &err) : NULL;
      if (!text) bad = "it holds a config or todo list that is not a readable regular file";
      /* no git directory for core.worktree: where the tree ends up is not where it is checked */
      else if (config ? !config_ok(g, NULL, NULL, 0, text, len, why, sizeof why) : !todo_ok(text, why, sizeof why))
        bad = config ? "it holds a config with keys a config written inside may not set" : "it holds a todo list with exec lines";
      free(text);
    } else if (is_dir) {
      int sub = openat(dirfd(d), n, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      bad = sub < 0 ? "a directory of the tree cannot be read to check it" : tree_check(g, sub, n, budget, depth + 1);
    }
  }
  closedir(d);
  return bad;
}

const char *git_tree_refusal(cordon_lx_gate *g, int fd, const char *name) {
  int d = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (d < 0) return "the directory cannot be read to check it";
  size_t budget = TREE_MAX;
  return tree_check(g, d, name, &budget, 0);
}
