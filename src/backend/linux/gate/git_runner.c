/* src/backend/linux/gate/git_runner.c — a work tree's active hook machinery, read cheaply: its hooks directory, and which runner installed the hooks there */
#include "backend/linux/gate/gate_impl.h"
#include "core/gitconfig.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define CONFIG_MAX (1u << 20)  /* a bigger config is a doubt, and doubts refuse */
#define HOOK_MAX (64u << 10)   /* as gitrepo.lua's MAX_HOOK: a runner's stub is small */

/* Reads at most `cap` bytes of `path` into a new buffer (NUL-terminated) into *out: its length, -ENOENT
 * when there is none, -EFBIG beyond `cap`, or another -errno. */
static long read_file(const char *path, size_t cap, char **out) {
  *out = NULL;
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return -errno;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return -EINVAL;
  }
  char *b = malloc(cap + 1);
  size_t n = 0;
  ssize_t r = 0;
  while (b && n <= cap && (r = read(fd, b + n, cap + 1 - n)) > 0) n += (size_t)r;
  close(fd);
  if (!b || r < 0) return free(b), -EIO;
  if (n > cap) return free(b), -EFBIG;
  b[n] = '\0';
  *out = b;
  return (long)n;
}

/* `base` joined with `rel` unless it is absolute, with "." and ".." taken lexically, as git joins a
 * hooksPath. False when it does not fit. */
bool gate_lexical_join(const char *base, const char *rel, char out[GATE_PATH_MAX]) {
  char tmp[GATE_PATH_MAX];
  if (snprintf(tmp, sizeof tmp, "%s/%s", rel[0] == '/' ? "" : base, rel) >= (int)sizeof tmp) return false;
  size_t n = 0;
  for (char *save, *s = strtok_r(tmp, "/", &save); s; s = strtok_r(NULL, "/", &save)) {
    if (strcmp(s, ".") == 0) continue;
    if (strcmp(s, "..") == 0) {
      while (n > 0 && out[n - 1] != '/') n--;
      if (n > 0) n--;
      continue;
    }
    size_t l = strlen(s);
    if (n + 1 + l + 1 > GATE_PATH_MAX) return false;
    out[n++] = '/';
    memcpy(out + n, s, l);
    n += l;
  }
  if (n == 0) out[n++] = '/';
  out[n] = '\0';
  return true;
}

/* The line a gitfile or commondir holds, trimmed, joined to `base` when relative. */
static bool read_pointer(const char *path, const char *prefix, const char *base, char out[GATE_PATH_MAX]) {
  char *text;
  long n = read_file(path, GATE_PATH_MAX, &text);
  if (n < 0) return errno = (int)-n, false;
  size_t pl = strlen(prefix);
  bool ok = strncmp(text, prefix, pl) == 0;
  errno = EINVAL;
  char *v = text + pl;
  v[strcspn(v, "\r\n")] = '\0';
  ok = ok && v[0] && gate_lexical_join(base, v, out);
  free(text);
  return ok;
}

/* Reads one config file's core.hooksPath into *value (kept when absent); false on a doubt: unreadable,
 * unparsable, an include (which could set it elsewhere), a value git would expand. */
static bool config_hooks_path(const char *path, char value[GATE_PATH_MAX], bool *set) {
  char *text;
  long n = read_file(path, CONFIG_MAX, &text);
  if (n == -ENOENT) return true;
  if (n == -EACCES || n == -EPERM) return *set = true, value[0] = '\0', false;  /* unreadable: hidden */
  if (n < 0) return false;
  cordon_gitconfig cfg = {0};
  char err[128];
  bool ok = cordon_gitconfig_parse(text, (size_t)n, &cfg, err, sizeof err);
  for (size_t i = 0; ok && i < cfg.count; i++) {
    const cordon_gitconfig_entry *e = &cfg.items[i];
    if (strcmp(e->section, "include") == 0 || strcmp(e->section, "includeif") == 0) ok = false;
    else if (cordon_gitconfig_key_matches(e, "core.hookspath")) {
      if (!e->value || snprintf(value, GATE_PATH_MAX, "%s", e->value) >= GATE_PATH_MAX) ok = false;
      *set = true;
    }
  }
  cordon_gitconfig_free(&cfg);
  free(text);
  return ok;
}

/* What the run's Landlock domain does not let the gate read: the launch's own repository, say, which
 * the policy protected as it could see it. */
static bool unreadable(void) { return errno == EACCES || errno == EPERM; }

int gate_worktree_hooks(const char *top, char out[GATE_PATH_MAX]) {
  char dotgit[GATE_PATH_MAX], gitdir[GATE_PATH_MAX], common[GATE_PATH_MAX], p[GATE_PATH_MAX];
  if (snprintf(dotgit, sizeof dotgit, "%s/.git", strcmp(top, "/") == 0 ? "" : top) >= (int)sizeof dotgit) return -1;
  struct stat st;
  if (stat(dotgit, &st) != 0) return -1;  /* a dangling .git: a doubt */
  if (S_ISDIR(st.st_mode)) snprintf(gitdir, sizeof gitdir, "%s", dotgit);
  else if (!read_pointer(dotgit, "gitdir: ", top, gitdir)) return unreadable() ? -2 : -1;  /* a submodule's or linked worktree's gitfile */
  /* a git directory this view does not show (outside it) still holds the host's config */
  if (stat(gitdir, &st) != 0 || !S_ISDIR(st.st_mode)) return -2;
  if (snprintf(p, sizeof p, "%s/commondir", gitdir) >= (int)sizeof p) return -1;
  if (stat(p, &st) == 0) {
    if (!read_pointer(p, "", gitdir, common)) return unreadable() ? -2 : -1;
  } else {
    snprintf(common, sizeof common, "%s", gitdir);
  }
  if (stat(common, &st) != 0 || !S_ISDIR(st.st_mode)) return -2;
  char value[GATE_PATH_MAX];
  bool set = false;
  if (snprintf(p, sizeof p, "%s/config", common) >= (int)sizeof p || !config_hooks_path(p, value, &set))
    return set && !value[0] ? -2 : -1;
  if (snprintf(p, sizeof p, "%s/config.worktree", gitdir) >= (int)sizeof p || !config_hooks_path(p, value, &set))
    return set && !value[0] ? -2 : -1;
  if (!set) return snprintf(out, GATE_PATH_MAX, "%s/hooks", common) < GATE_PATH_MAX ? 0 : -1;
  if (value[0] == '~' || strncmp(value, "%(", 2) == 0) return -1;  /* git expands these; the gate does not guess */
  return gate_lexical_join(top, value, out) ? 1 : -1;
}

static bool name_sample(const char *name) {
  size_t n = strlen(name);
  return n >= 7 && strcasecmp(name + n - 7, ".sample") == 0;
}

bool gate_hooks_carry(const char *hooks, const char *const *markers, size_t nmarkers) {
  if (nmarkers == 0) return false;
  DIR *d = opendir(hooks);
  if (!d) return false;  /* no hooks directory: no hooks run */
  bool found = false;
  for (struct dirent *e; !found && (e = readdir(d));) {
    if (e->d_name[0] == '.' || name_sample(e->d_name)) continue;
    char p[GATE_PATH_MAX], *text;
    if (snprintf(p, sizeof p, "%s/%s", hooks, e->d_name) >= (int)sizeof p) continue;
    long n = read_file(p, HOOK_MAX, &text);
    if (n == -EFBIG) found = true;  /* cannot tell: as if it were the runner's */
    for (size_t i = 0; n >= 0 && !found && i < nmarkers; i++) found = memmem(text, (size_t)n, markers[i], strlen(markers[i])) != NULL;
    free(text);
  }
  closedir(d);
  return found;
}
