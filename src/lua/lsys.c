/* src/lua/lsys.c — cordon.c.sys: the few operating-system facts the Lua half needs (files, env, ids).
 * Kept small and read-only: nothing here runs a command or writes a file. */
#include "lua/lutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static int fail_errno(lua_State *L, const char *what, const char *path) {
  int e = errno;
  const char *code = e == ENOENT ? "not_found" : e == EACCES ? "permission_denied" : "io_error";
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

static int l_getcwd(lua_State *L) {
  char buf[PATH_MAX];
  if (!getcwd(buf, sizeof buf)) return fail_errno(L, "getcwd", "");
  lua_pushstring(L, buf);
  return 1;
}

static int l_getenv(lua_State *L) {
  const char *v = getenv(luaL_checkstring(L, 1));
  if (v) lua_pushstring(L, v);
  else lua_pushnil(L);
  return 1;
}

/* environ() -> { NAME = value, ... } for the whole process environment. */
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
  const char *p = luaL_checkstring(L, 1);
  char buf[PATH_MAX];
  if (!realpath(p, buf)) return fail_errno(L, "realpath", p);
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

static int push_stat(lua_State *L, int follow) {
  const char *p = luaL_checkstring(L, 1);
  struct stat st;
  if ((follow ? stat(p, &st) : lstat(p, &st)) != 0) return fail_errno(L, "stat", p);
  lua_createtable(L, 0, 8);
  lua_pushstring(L, type_name(st.st_mode));
  lua_setfield(L, -2, "type");
  lua_pushinteger(L, st.st_mode & 07777);
  lua_setfield(L, -2, "mode");
  lua_pushinteger(L, st.st_uid);
  lua_setfield(L, -2, "uid");
  lua_pushinteger(L, st.st_gid);
  lua_setfield(L, -2, "gid");
  lua_pushinteger(L, (lua_Integer)st.st_size);
  lua_setfield(L, -2, "size");
  lua_pushinteger(L, (lua_Integer)st.st_dev);
  lua_setfield(L, -2, "dev");
  lua_pushinteger(L, (lua_Integer)st.st_ino);
  lua_setfield(L, -2, "ino");
  lua_pushinteger(L, (lua_Integer)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec);
  lua_setfield(L, -2, "mtime_ns");
  return 1;
}

static int l_stat(lua_State *L) { return push_stat(L, 1); }
static int l_lstat(lua_State *L) { return push_stat(L, 0); }

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* listdir(path) -> sorted array of entry names (strcmp order, i.e. LC_ALL=C), without "." and "..". */
static int l_listdir(lua_State *L) {
  const char *p = luaL_checkstring(L, 1);
  DIR *d = opendir(p);
  if (!d) return fail_errno(L, "opendir", p);
  size_t n = 0, cap = 0;
  char **names = NULL;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    if (n == cap) {
      cap = cap ? cap * 2 : 32;
      char **grown = realloc(names, cap * sizeof *names);
      if (!grown) break;
      names = grown;
    }
    if (!(names[n] = strdup(e->d_name))) break;
    n++;
  }
  closedir(d);
  qsort(names, n, sizeof *names, cmp_names);
  lua_createtable(L, (int)n, 0);
  for (size_t i = 0; i < n; i++) {
    lua_pushstring(L, names[i]);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
    free(names[i]);
  }
  free(names);
  return 1;
}

/* readfile(path [, maxbytes [, nofollow]]) -> text. A file larger than maxbytes (default 16 MiB) is
 * refused. With nofollow, a symlink in the last component is refused at open time (O_NOFOLLOW), which
 * closes the gap between checking a config file and reading it. */
static int l_readfile(lua_State *L) {
  const char *p = luaL_checkstring(L, 1);
  lua_Integer max = luaL_optinteger(L, 2, 16 << 20);
  int flags = O_RDONLY | O_CLOEXEC | (lua_toboolean(L, 3) ? O_NOFOLLOW : 0);
  int fd = open(p, flags);
  if (fd < 0) return fail_errno(L, "open", p);
  FILE *f = fdopen(fd, "rb");
  if (!f) {
    close(fd);
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
      return cordon_lua_fail(L, "too_large", "%s is larger than %lld bytes", p, (long long)max);
    }
    luaL_addlstring(&b, chunk, got);
  }
  int err = ferror(f);
  fclose(f);
  if (err) return cordon_lua_fail(L, "io_error", "cannot read %s", p);
  luaL_pushresult(&b);
  return 1;
}

/* home() -> $HOME when set and absolute, else the passwd entry's directory. */
static int l_home(lua_State *L) {
  const char *h = getenv("HOME");
  if (h && h[0] == '/') {
    lua_pushstring(L, h);
    return 1;
  }
  struct passwd *pw = getpwuid(getuid());
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
  lua_pushboolean(L, isatty((int)luaL_checkinteger(L, 1)));
  return 1;
}

/* clock() -> monotonic seconds as a float, for timing inside explain and benchmarks. */
static int l_clock(lua_State *L) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  lua_pushnumber(L, (lua_Number)ts.tv_sec + (lua_Number)ts.tv_nsec / 1e9);
  return 1;
}

static const luaL_Reg sys_funcs[] = {
  {"platform", l_platform}, {"getcwd", l_getcwd},   {"getenv", l_getenv},     {"environ", l_environ},
  {"realpath", l_realpath}, {"stat", l_stat},       {"lstat", l_lstat},       {"listdir", l_listdir},
  {"readfile", l_readfile}, {"home", l_home},       {"ids", l_ids},           {"isatty", l_isatty},
  {"clock", l_clock},       {NULL, NULL},
};

int cordon_open_sys(lua_State *L) {
  luaL_newlib(L, sys_funcs);
  return 1;
}
