/* src/backend/linux/limits_cgroup.c — the run's cgroup v2 (limits.h says where it goes and why). */
#include "backend/linux/limits.h"

#include "core/path.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define NAME_PREFIX "cordon-"
#define PATH_CAP 4096

/* `a`/`b` into `out`; false when it does not fit (a cut path would name another cgroup). */
static bool join(char *out, const char *a, const char *b) {
  int n = snprintf(out, PATH_CAP, "%s/%s", a, b);
  return n > 0 && n < PATH_CAP;
}

/* Undoes mountinfo's octal escapes (\040 for a space) in place. */
static void unescape(char *s) {
  char *w = s;
  for (char *r = s; *r; r++) {
    if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' && r[3] >= '0' && r[3] <= '7') {
      *w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
      r += 3;
    } else {
      *w++ = *r;
    }
  }
  *w = '\0';
}

/* This process's cgroup v2 path ("0::/user.slice/…"), from /proc/self/cgroup. */
static bool own_cgroup(char *out, size_t cap) {
  FILE *f = fopen("/proc/self/cgroup", "re");
  if (!f) return false;
  char *line = NULL;
  size_t n = 0;
  bool found = false;
  while (!found && getline(&line, &n, f) > 0) {
    if (strncmp(line, "0::/", 4) != 0) continue;
    line[strcspn(line, "\n")] = '\0';
    found = strlen(line + 3) < cap && strstr(line, " (deleted)") == NULL;
    if (found) strcpy(out, line + 3);
  }
  free(line);
  fclose(f);
  return found;
}

bool cordon_lx_cgroup_self(char *mount, size_t mount_cap, char *own, size_t own_cap) {
  char path[PATH_CAP];
  if (!own_cgroup(path, sizeof path)) return false;
  FILE *f = fopen("/proc/self/mountinfo", "re");
  if (!f) return false;
  char *line = NULL;
  size_t n = 0;
  bool found = false;
  while (getline(&line, &n, f) > 0) {
    /* id parent major:minor root mount-point options [optional…] - fstype source super-options */
    char *sep = strstr(line, " - ");
    if (!sep || strncmp(sep + 3, "cgroup2 ", 8) != 0) continue;
    *sep = '\0';
    char *save = NULL, *field[5] = {0};
    field[0] = strtok_r(line, " ", &save);
    for (int i = 1; i < 5 && field[i - 1]; i++) field[i] = strtok_r(NULL, " ", &save);
    if (!field[4]) continue;
    unescape(field[3]);
    unescape(field[4]);
    /* a mount of a sub-tree (bind mount, cgroup namespace) shows what lies under its root only */
    if (!cordon_path_within(field[3], path)) continue;
    const char *rel = path + (strcmp(field[3], "/") == 0 ? 0 : strlen(field[3]));
    if (!*rel) rel = "/";
    if (strlen(field[4]) >= mount_cap || strlen(rel) >= own_cap) continue;
    bool preferred = strcmp(field[4], "/sys/fs/cgroup") == 0;
    if (found && !preferred) continue;
    strcpy(mount, field[4]);
    strcpy(own, rel);
    found = true;
    if (preferred) break;
  }
  free(line);
  fclose(f);
  return found;
}

/* Whether the space-separated words of `want` are all in the file `dir`/cgroup.subtree_control. */
static bool enabled(const char *dir, const char *want) {
  char path[PATH_CAP], text[512];
  int fd = join(path, dir, "cgroup.subtree_control") ? open(path, O_RDONLY | O_CLOEXEC) : -1;
  if (fd < 0) return false;
  ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  if (n < 0) return false;
  text[n] = '\0';
  for (const char *w = want; *w;) {
    size_t len = strcspn(w, " ");
    bool hit = false;
    for (const char *t = text; *t && !hit;) {
      size_t tl = strcspn(t, " \n");
      hit = tl == len && memcmp(t, w, len) == 0;
      t += tl;
      t += strspn(t, " \n");
    }
    if (!hit) return false;
    w += len;
    w += strspn(w, " ");
  }
  return true;
}

static bool write_file(const char *dir, const char *file, const char *value, bool optional) {
  char path[PATH_CAP];
  if (!join(path, dir, file)) return false;
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return optional && errno == ENOENT;
  size_t n = strlen(value);
  bool ok = write(fd, value, n) == (ssize_t)n;
  return close(fd) == 0 && ok;
}

/* Removes the empty cgroups runs whose cordon died (killed before its release) left in `dir`. A live
 * run's cgroup may be empty too (init has not joined yet): only a dead cordon's pid counts. */
static void sweep(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    unsigned long pid;
    unsigned k;
    char tail;
    if (strncmp(e->d_name, NAME_PREFIX, strlen(NAME_PREFIX)) != 0 ||
        sscanf(e->d_name + strlen(NAME_PREFIX), "%lu-%u%c", &pid, &k, &tail) != 2 || pid == 0 || pid > 4194304)
      continue;
    if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
    (void)unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR);  /* fails while anything is still inside */
  }
  closedir(d);
}

bool cordon_lx_cgroup_create(const char *mount, const char *own, const char *controllers,
                             const cordon_lx_cgroup_setting *settings, size_t n, cordon_lx_limits_run *run,
                             const char **why) {
  /* Below a cgroup that holds processes (cordon's own does) no controller may be enabled, except in the
   * root: the run's cgroup goes beside cordon's, under the parent, which a delegation gives the user. */
  char parent[PATH_CAP], dir[PATH_CAP], path[PATH_CAP];
  snprintf(parent, sizeof parent, "%s", own);
  if (strcmp(parent, "/") != 0) {
    char *slash = strrchr(parent, '/');
    if (slash == parent) slash[1] = '\0';
    else *slash = '\0';
  }
  int len = snprintf(dir, sizeof dir, "%s%s", mount, strcmp(parent, "/") == 0 ? "" : parent);
  if (len < 0 || len >= PATH_CAP) {
    *why = "the cgroup path is too long";
    return false;
  }
  if (!enabled(dir, controllers)) {
    *why = "the controllers are not enabled above cordon's cgroup (no delegated cgroup)";
    return false;
  }
  /* moving init there needs write access to the common ancestor's cgroup.procs: this one */
  if (!join(path, dir, "cgroup.procs") || access(path, W_OK) != 0) {
    *why = "the cgroup above cordon's is not delegated to this user";
    return false;
  }
  sweep(dir);
  int made = -1;
  for (unsigned k = 0; k < 64 && made != 0; k++) {
    char name[64];
    snprintf(name, sizeof name, NAME_PREFIX "%ld-%u", (long)getpid(), k);
    if (!join(path, dir, name)) break;
    made = mkdir(path, 0755);
    if (made != 0 && errno != EEXIST) break;
  }
  if (made != 0) {
    *why = "cannot create a cgroup above cordon's";
    return false;
  }
  bool ok = true;
  for (size_t i = 0; ok && i < n; i++) ok = write_file(path, settings[i].file, settings[i].value, settings[i].optional);
  char procs[PATH_CAP];
  int fd = ok && join(procs, path, "cgroup.procs") ? open(procs, O_WRONLY | O_CLOEXEC) : -1;
  char *copy = fd >= 0 ? strdup(path) : NULL;
  if (!copy) {
    if (fd >= 0) close(fd);
    (void)rmdir(path);
    *why = ok ? "cannot open the run's cgroup.procs" : "cannot set a limit in the run's cgroup";
    return false;
  }
  run->procs_fd = fd;
  run->dir = copy;
  return true;
}

bool cordon_lx_cgroup_join(cordon_lx_limits_run *run, cordon_buf *msg) {
  bool ok = write(run->procs_fd, "0", 1) == 1;
  if (!ok) cordon_buf_printf(msg, "joining the run's cgroup %s: %s", run->dir ? run->dir : "", strerror(errno));
  close(run->procs_fd);
  run->procs_fd = -1;
  return ok;
}

/* The number after `key` in a flat-keyed file of the cgroup ("max 3\n"); 0 when absent. */
static unsigned long long event(const char *dir, const char *file, const char *key) {
  char path[PATH_CAP], text[1024];
  int fd = join(path, dir, file) ? open(path, O_RDONLY | O_CLOEXEC) : -1;
  if (fd < 0) return 0;
  ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  if (n <= 0) return 0;
  text[n] = '\0';
  size_t klen = strlen(key);
  for (char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
    if (strncmp(line, key, klen) == 0 && line[klen] == ' ') return strtoull(line + klen + 1, NULL, 10);
  return 0;
}

void cordon_lx_cgroup_remove(cordon_lx_limits_run *run, const cordon_lx_limits *l, cordon_buf *report) {
  if (run->procs_fd >= 0) close(run->procs_fd);
  run->procs_fd = -1;
  if (!run->dir) return;
  unsigned long long refused = event(run->dir, "pids.events", "max");
  unsigned long long killed = event(run->dir, "memory.events", "oom_kill");
  if ((run->held & CORDON_LX_LIMIT_PROCS) && refused)
    cordon_buf_printf(report, "the run reached its process limit (procs=%u): %llu fork%s refused\n", l->procs,
                      refused, refused == 1 ? "" : "s");
  if ((run->held & CORDON_LX_LIMIT_MEMORY) && killed) {
    cordon_buf_puts(report, "the run reached its memory limit (memory=");
    cordon_lx_size_describe(l->memory, report);
    cordon_buf_printf(report, "): the kernel killed %llu process%s\n", killed, killed == 1 ? "" : "es");
  }
  /* the PID namespace is gone, but the kernel may take a moment to empty the cgroup */
  bool gone = false;
  for (int i = 0; i < 200 && !(gone = rmdir(run->dir) == 0 || errno == ENOENT) && errno == EBUSY; i++) {
    if (i == 100) (void)write_file(run->dir, "cgroup.kill", "1", true);  /* something outlived the run */
    nanosleep(&(struct timespec){0, 5 * 1000 * 1000}, NULL);
  }
  if (!gone) cordon_buf_printf(report, "cannot remove the run's cgroup %s: %s\n", run->dir, strerror(errno));
  free(run->dir);
  run->dir = NULL;
}
