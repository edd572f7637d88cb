/* src/lua/lsys.c — cordon.c.sys: the few operating-system facts the Lua half needs (files, env, ids) */
#include "core/stat_time.h"
#include "core/record.h"
#include "core/sha256.h"
#include "lua/lsys.h"
#include "lua/lutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static int fail_errno(lua_State *L, const char *what, const char *path) {
  int e = errno;
  const char *code = e == ENOENT                 ? "not_found"
                     : e == EACCES || e == EPERM ? "permission_denied"
                     : e == EEXIST               ? "exists"
                                                 : "io_error";
  return cordon_lua_fail(L, code, "%s %s: %s", what, path, strerror(e));
}

/* "linux", "darwin", … : the lower-cased kernel name. */
static int l_platform(lua_State *L) {
  struct utsname u;
  if (uname(&u) != 0) return fail_errno(L, "uname", "");
  for (char *p = u.sysname; *p; p++) *p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
  lua_pushstring(L, u.sysname);
  return 1;
}

/* Records a string result (or the errno of a failed call) when the recorder is armed. */
static void record_string(char call, const char *arg, const char *result, int err) {
  if (!cordon_record_armed()) return;
  cordon_buf b = CORDON_BUF_INIT;
  cordon_record_string_digest(result, err, &b);
  if (b.oom) cordon_record_taint("out of memory");
  else cordon_record_add(call, arg, cordon_buf_str(&b));
  cordon_buf_free(&b);
}

static int l_getcwd(lua_State *L) {
  char buf[PATH_MAX];
  const char *r = getcwd(buf, sizeof buf);
  int err = errno;
  record_string(CORDON_REC_GETCWD, "", r, err);
  errno = err;
  if (!r) return fail_errno(L, "getcwd", "");
  lua_pushstring(L, buf);
  return 1;
}

static int l_getenv(lua_State *L) {
  const char *name = cordon_lua_checkstring(L, 1);
  const char *v = getenv(name);
  record_string(CORDON_REC_GETENV, name, v, ENOENT);
  if (v) lua_pushstring(L, v);
  else lua_pushnil(L);
  return 1;
}

/* environ() -> { NAME = value, ... } for the whole process environment.
 * Contract with the run cache (src/backend/linux/runcache.c): a value read from this table may decide
 * something only for a variable the command's environment keeps; one that is dropped (sanitized mode)
 * counts by its name alone. Read a variable through getenv() to make any decision on it: that is
 * recorded and replayed. */
static int l_environ(lua_State *L) {
  lua_newtable(L);
  for (char **e = environ; e && *e; e++) {
    const char *eq = strchr(*e, '=');
    if (!eq || eq == *e) continue;
    lua_pushlstring(L, *e, (size_t)(eq - *e));
    lua_pushstring(L, eq + 1);
    lua_rawset(L, -3);
  }
  return 1;
}

static int l_realpath(lua_State *L) {
  const char *p = cordon_lua_checkstring(L, 1);
  char buf[PATH_MAX];
  const char *r = realpath(p, buf);
  int err = errno;
  record_string(CORDON_REC_REALPATH, p, r, err);
  errno = err;
  if (!r) return fail_errno(L, "realpath", p);
  lua_pushstring(L, buf);
  return 1;
}

static const char *type_name(mode_t m) {
  if (S_ISREG(m)) return "file";
  if (S_ISDIR(m)) return "directory";
  if (S_ISLNK(m)) return "link";
  if (S_ISSOCK(m)) return "socket";
  if (S_ISFIFO(m)) return "fifo";
  if (S_ISCHR(m)) return "char";
  if (S_ISBLK(m)) return "block";
  return "other";
}

/* Pushes the stat table of `p` (or the failure triple), recording the observation when armed. */
static int push_stat_of(lua_State *L, const char *p, int follow) {
  struct stat st;
  int rc = cordon_record_stat(p, follow, &st);
  int err = errno;
  if (cordon_record_armed()) {
    cordon_buf b = CORDON_BUF_INIT;
    cordon_record_stat_digest(rc, err, &st, &b);
    if (b.oom) cordon_record_taint("out of memory");
    else cordon_record_add(follow ? CORDON_REC_STAT : CORDON_REC_LSTAT, p, cordon_buf_str(&b));
    cordon_buf_free(&b);
  }
  errno = err;
  if (rc != 0) return fail_errno(L, "stat", p);
  lua_createtable(L, 0, 8);
  lua_pushstring(L, type_name(st.st_mode));
  lua_setfield(L, -2, "type");
  lua_pushinteger(L, st.st_mode & 07777);
  lua_setfield(L, -2, "mode");
  lua_pushinteger(L, st.st_uid);
  lua_setfield(L, -2, "uid");
  lua_pushinteger(L, st.st_gid);
  lua_setfield(L, -2, "gid");
  lua_pushinteger(L, (lua_Integer)st.st_dev);
  lua_setfield(L, -2, "dev");
  lua_pushinteger(L, (lua_Integer)st.st_ino);
  lua_setfield(L, -2, "ino");
  if (S_ISDIR(st.st_mode)) return 1;  /* a directory's size and mtime are not recorded (record.c): not shown */
  lua_pushinteger(L, (lua_Integer)st.st_size);
  lua_setfield(L, -2, "size");
  lua_pushinteger(L, (lua_Integer)CORDON_ST_MTIM(&st).tv_sec * 1000000000 + CORDON_ST_MTIM(&st).tv_nsec);
  lua_setfield(L, -2, "mtime_ns");
  return 1;
}

static int push_stat(lua_State *L, int follow) { return push_stat_of(L, cordon_lua_checkstring(L, 1), follow); }

static int l_stat(lua_State *L) { return push_stat(L, 1); }
static int l_lstat(lua_State *L) { return push_stat(L, 0); }

/* listdir(path) -> sorted array of entry names (strcmp order, i.e. LC_ALL=C), without "." and "..". */
static int l_listdir(lua_State *L) {
  const char *p = cordon_lua_checkstring(L, 1);
  char **names;
  size_t n;
  int err = cordon_record_listdir(p, &names, &n);
  if (cordon_record_armed()) {
    cordon_buf b = CORDON_BUF_INIT;
    cordon_record_listdir_digest(err, names, n, &b);
    if (b.oom) cordon_record_taint("out of memory");
    else cordon_record_add(CORDON_REC_LISTDIR, p, cordon_buf_str(&b));
    cordon_buf_free(&b);
  }
  if (err) {
    errno = err;
    return fail_errno(L, "opendir", p);
  }
  lua_createtable(L, (int)n, 0);
  for (size_t i = 0; i < n; i++) {
    lua_pushstring(L, names[i]);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  cordon_record_names_free(names, n);
  return 1;
}

/* readfile(path [, maxbytes [, nofollow]]) -> text. A file larger than maxbytes (default 16 MiB) is
 * refused. With nofollow, a symlink in the last component is refused at open time (O_NOFOLLOW), which
 * closes the gap between checking a config file and reading it. */
/* A replay compares a file's identity, not its content: a file changed less than a second ago is not
 * trusted to stay recognisable (cordon_record_racy), so the run goes on uncached. */
static void record_file(lua_State *L, const char *p, lua_Integer max, bool nofollow, int err,
                        const struct stat *st, bool too_large) {
  if (!cordon_record_armed()) return;
  if (st && cordon_record_racy(st)) {
    cordon_record_taint("a file the configuration consulted changed less than a second ago");
    return;
  }
  cordon_buf b = CORDON_BUF_INIT;
  cordon_record_file_digest(err, st, too_large, &b);
  lua_pushfstring(L, "%I:%d:%s", max, nofollow ? 1 : 0, p);
  if (b.oom) cordon_record_taint("out of memory");
  else cordon_record_add(CORDON_REC_READFILE, cordon_lua_tostring(L, -1), cordon_buf_str(&b));
  lua_pop(L, 1);
  cordon_buf_free(&b);
}

static int l_readfile(lua_State *L) {
  const char *p = cordon_lua_checkstring(L, 1);
  lua_Integer max = luaL_optinteger(L, 2, 16 << 20);
  bool nofollow = lua_toboolean(L, 3);
  int fd = open(p, O_RDONLY | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0));
  if (fd < 0) {
    int err = errno;
    record_file(L, p, max, nofollow, err, NULL, false);
    errno = err;
    return fail_errno(L, "open", p);
  }
  /* The identity is taken before reading: a change during the read moves ctime, so the recorded run
   * misses next time instead of trusting content it never saw. */
  struct stat st;
  bool have_st = fstat(fd, &st) == 0;
  FILE *f = fdopen(fd, "rb");
  if (!f) {
    int err = errno;
    close(fd);
    cordon_record_taint("readfile: fdopen failed");
    errno = err;
    return fail_errno(L, "open", p);
  }
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  lua_Integer total = 0;
  size_t got;
  char chunk[8192];
  while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
    total += (lua_Integer)got;
    if (total > max) {
      fclose(f);
      if (have_st && S_ISREG(st.st_mode) && st.st_size > max) record_file(L, p, max, nofollow, 0, &st, true);
      else cordon_record_taint("readfile: a file whose size is not its content");
      return cordon_lua_fail(L, "too_large", "%s is larger than %lld bytes", p, (long long)max);
    }
    luaL_addlstring(&b, chunk, got);
  }
  int err = ferror(f);
  fclose(f);
  /* Only a regular file whose size was its content (not /proc, not a device) can be replayed by its
   * identity alone. */
  if (err || !have_st || !S_ISREG(st.st_mode) || st.st_size != total)
    cordon_record_taint("readfile: not a plain file read whole");
  else record_file(L, p, max, nofollow, 0, &st, false);
  if (err) return cordon_lua_fail(L, "io_error", "cannot read %s", p);
  luaL_pushresult(&b);
  return 1;
}

/* home() -> $HOME when set and absolute, else the passwd entry's directory. */
static int l_home(lua_State *L) {
  const char *h = getenv("HOME");
  if (h && h[0] == '/') {
    record_string(CORDON_REC_HOME, "", h, 0);
    lua_pushstring(L, h);
    return 1;
  }
  struct passwd *pw = getpwuid(getuid());
  record_string(CORDON_REC_HOME, "", pw && pw->pw_dir ? pw->pw_dir : NULL, ENOENT);
  if (!pw || !pw->pw_dir) return cordon_lua_fail(L, "not_found", "no home directory for uid %d", (int)getuid());
  lua_pushstring(L, pw->pw_dir);
  return 1;
}

static int l_ids(lua_State *L) {
  lua_pushinteger(L, getuid());
  lua_pushinteger(L, getgid());
  lua_pushinteger(L, geteuid());
  return 3;
}

static int l_isatty(lua_State *L) {
  lua_Integer fd = luaL_checkinteger(L, 1);
  int r = fd >= 0 && fd <= INT_MAX && isatty((int)fd);
  if (cordon_record_armed()) {
    char arg[32], dig[4];
    snprintf(arg, sizeof arg, "%lld", (long long)fd);
    snprintf(dig, sizeof dig, "%d", r);
    if (fd < 0 || fd > INT_MAX) cordon_record_taint("isatty: descriptor out of range");
    else cordon_record_add(CORDON_REC_ISATTY, arg, dig);
  }
  lua_pushboolean(L, r);
  return 1;
}

/* clock() -> monotonic seconds as a float, for timing inside explain and benchmarks. */
static int l_clock(lua_State *L) {
  cordon_record_taint("cordon.c.sys.clock");  /* time is never the same twice */
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  lua_pushnumber(L, (lua_Number)ts.tv_sec + (lua_Number)ts.tv_nsec / 1e9);
  return 1;
}

/* A path argument taken with its length: an embedded NUL is refused, never truncated (misuse). */
static const char *check_path(lua_State *L, int idx) {
  size_t len;
  const char *p = luaL_checklstring(L, idx, &len);
  if (strlen(p) != len) luaL_argerror(L, idx, "path contains a NUL byte");
  return p;
}

static mode_t check_mode(lua_State *L, int idx, lua_Integer dflt) {
  lua_Integer m = luaL_optinteger(L, idx, dflt);
  luaL_argcheck(L, m >= 0 && m <= 07777, idx, "mode must be between 0 and 07777");
  return (mode_t)m;
}

/* ensure_dir(path [, mode = 0700]) -> the lstat table of `path`: made (one directory, not its parents)
 * when nothing is there. Only the result is recorded, so a replay finding the same directory hits. */
static int l_ensure_dir(lua_State *L) {
  const char *p = check_path(L, 1);
  mode_t mode = check_mode(L, 2, 0700);
  struct stat st;
  if (lstat(p, &st) != 0 && errno == ENOENT && mkdir(p, mode) != 0 && errno != EEXIST)
    return fail_errno(L, "mkdir", p);
  return push_stat_of(L, p, 0);
}

/* ensure_symlink(target, path) -> the lstat table of `path`: made a symbolic link to `target` when
 * nothing is there (never replacing a name). Only the result is recorded, as for ensure_dir. The link is
 * made through a descriptor on its directory opened without following a link there: a sandbox still
 * running may have swapped that directory (one of its caches) for a link since it was checked. */
static int l_ensure_symlink(lua_State *L) {
  const char *target = check_path(L, 1);
  const char *p = check_path(L, 2);
  const char *slash = strrchr(p, '/');
  luaL_argcheck(L, slash && slash[1], 2, "path must name an entry in a directory");
  char dir[PATH_MAX];
  size_t dlen = slash == p ? 1 : (size_t)(slash - p);
  if (dlen >= sizeof dir) return cordon_lua_fail(L, "io_error", "symlink %s: path too long", p);
  memcpy(dir, p, dlen), dir[dlen] = '\0';
  int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dfd < 0) return fail_errno(L, "open", dir);
  struct stat st;
  int err = 0;
  if (fstatat(dfd, slash + 1, &st, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT &&
      symlinkat(target, dfd, slash + 1) != 0 && errno != EEXIST)
    err = errno;
  close(dfd);
  errno = err;
  if (err) return fail_errno(L, "symlink", p);
  return push_stat_of(L, p, 0);
}

/* writefile(path, text [, mode = 0600]) -> true. Written to a new file beside `path` and renamed over
 * it, so a reader sees the old text or the new, never a part; a symlink at `path` is replaced, not
 * followed. */
static int l_writefile(lua_State *L) {
  const char *p = check_path(L, 1);
  size_t len;
  const char *text = luaL_checklstring(L, 2, &len);
  mode_t mode = check_mode(L, 3, 0600);
  cordon_record_taint("cordon.c.sys.writefile");
  cordon_buf tmp = CORDON_BUF_INIT;
  cordon_buf_printf(&tmp, "%s.tmp-XXXXXX", p);
  char *name = cordon_buf_take(&tmp);
  if (!name) return cordon_lua_fail(L, "io_error", "out of memory writing %s", p);
  int fd = mkstemp(name);
  if (fd < 0) {
    free(name);
    return fail_errno(L, "create", p);
  }
  bool ok = fchmod(fd, mode) == 0;
  for (size_t done = 0; ok && done < len;) {
    ssize_t n = write(fd, text + done, len - done);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) done += (size_t)n;
  }
  ok = ok && fsync(fd) == 0;
  int err = errno;
  if (close(fd) != 0 && ok) ok = false, err = errno;
  if (ok && rename(name, p) != 0) ok = false, err = errno;
  if (!ok) unlink(name);
  free(name);
  errno = err;
  if (!ok) return fail_errno(L, "write", p);
  lua_pushboolean(L, 1);
  return 1;
}

/* sha256(text) -> 64 lower-case hex digits. */
static int l_sha256(lua_State *L) {
  size_t len;
  const char *text = luaL_checklstring(L, 1, &len);
  char hex[CORDON_SHA256_HEX];
  cordon_sha256_hex(text, len, hex);
  lua_pushstring(L, hex);
  return 1;
}

/* How each primitive keeps the run cache sound: it records what it saw (replayed on a hit), taints the
 * run (never cached), or is plan-neutral (its answer is part of the cache key, or a pure function).
 * tests/c/test_sys_soundness.c enumerates the library and holds each primitive to its word. */
static const cordon_sys_primitive sys_primitives[] = {
  {"platform", l_platform, CORDON_SYS_NEUTRAL, "the kernel's name: an entry is only read on the machine that wrote it"},
  {"getcwd", l_getcwd, CORDON_SYS_RECORDS, NULL},
  {"getenv", l_getenv, CORDON_SYS_RECORDS, NULL},
  {"environ", l_environ, CORDON_SYS_NEUTRAL, "the environment is in the key (runcache.c); decisions read getenv"},
  {"realpath", l_realpath, CORDON_SYS_RECORDS, NULL},
  {"stat", l_stat, CORDON_SYS_RECORDS, NULL},
  {"lstat", l_lstat, CORDON_SYS_RECORDS, NULL},
  {"listdir", l_listdir, CORDON_SYS_RECORDS, NULL},
  {"readfile", l_readfile, CORDON_SYS_RECORDS, NULL},
  {"home", l_home, CORDON_SYS_RECORDS, NULL},
  {"ids", l_ids, CORDON_SYS_NEUTRAL, "the real and effective ids are in the key"},
  {"isatty", l_isatty, CORDON_SYS_RECORDS, NULL},
  {"clock", l_clock, CORDON_SYS_TAINTS, NULL},
  {"ensure_dir", l_ensure_dir, CORDON_SYS_RECORDS, NULL},
  {"ensure_symlink", l_ensure_symlink, CORDON_SYS_RECORDS, NULL},
  {"writefile", l_writefile, CORDON_SYS_TAINTS, NULL},
  {"sha256", l_sha256, CORDON_SYS_NEUTRAL, "a pure function of its argument"},
};

const cordon_sys_primitive *cordon_sys_primitives(size_t *count) {
  *count = sizeof sys_primitives / sizeof *sys_primitives;
  return sys_primitives;
}

int cordon_open_sys(lua_State *L) {
  size_t n;
  const cordon_sys_primitive *p = cordon_sys_primitives(&n);
  lua_createtable(L, 0, (int)n);
  for (size_t i = 0; i < n; i++) {
    lua_pushcfunction(L, p[i].fn);
    lua_setfield(L, -2, p[i].name);
  }
  return 1;
}
