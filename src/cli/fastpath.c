/* src/cli/fastpath.c — the run cache's two ends in the CLI: the Lua-free hit, and arming the recorder for a miss */
#include "cli/fastpath.h"

#if CORDON_WITH_LINUX
#include "backend/linux/landlock.h"
#include "backend/linux/linux.h"
#include "backend/linux/runcache.h"
#include "backend/linux/seccomp.h"
#include "core/exit_status.h"
#endif
#include "core/record.h"

#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

static char *armed_key;  /* the key of a miss, until fastpath_arm hands it to the recorder */

#if CORDON_WITH_LINUX
static void trace(const char *what, const char *why) {
  if (getenv("CORDON_TRACE")) fprintf(stderr, "cordon: run-cache: %s%s%s%s\n", what, why ? " (" : "", why ? why : "",
                                      why ? ")" : "");
}
#endif

#if CORDON_WITH_LINUX
/* Whether this is NAME-full, which the static front (src/front/main.c) execs after its own miss. */
static bool exec_by_front(void) {
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self);
  return n > 5 && n < (ssize_t)sizeof self && memcmp(self + n - 5, "-full", 5) == 0;
}
#endif

static int fastpath_run(int argc, char **argv, bool exec_follows) {
#if !CORDON_WITH_LINUX  /* the run cache belongs to the Linux backend */
  (void)argc, (void)argv, (void)exec_follows;
  return -1;
#else
  if (argc < 2 || strcmp(argv[1], "run") != 0) return -1;
  if (getenv("CORDON_NO_RUN_CACHE")) {
    trace("off", "CORDON_NO_RUN_CACHE");
    return -1;
  }
  if (getenv("CORDON_LUA_PATH")) {  /* modules read from disk: nothing recorded covers them */
    trace("off", "CORDON_LUA_PATH");
    return -1;
  }
  char root[4096];
  if (!cordon_lx_runcache_root(root, sizeof root)) {
    trace("off", "no cache directory");
    return -1;
  }
  /* The Landlock helper starts first: waking the other CPU takes as long as computing the key and
   * reading the entry (landlock_ahead.c). On a miss it is let go, before anything else. Behind the
   * static front the front has just missed, so a miss is all but certain: the helper waits for an entry. */
  cordon_lx_landlock_ahead ahead = {.ruleset = -1};  /* not running until started */
  bool behind_front = exec_by_front();
  if (!behind_front) cordon_lx_landlock_ahead_start(&ahead);
  cordon_buf key = CORDON_BUF_INIT;
  cordon_lx_run_entry e;
  const char *why = "the run's inputs cannot be known";
  bool known = cordon_lx_runcache_key(argc, argv, environ, &key);
  bool read = known && cordon_lx_runcache_read(cordon_buf_str(&key), &e, &why);
  if (read && !cordon_lx_seccomp_ready(e.plan)) {  /* the static front without a stored filter */
    cordon_lx_run_entry_free(&e);
    read = false, why = "no seccomp program stored for this machine";
  }
  if (read && behind_front) cordon_lx_landlock_ahead_start(&ahead);
  cordon_lx_landlock_ahead_offer(&ahead, read ? e.plan : NULL, cordon_lx_landlock_abi(NULL));
  if (!read || !cordon_lx_runcache_accept(cordon_buf_str(&key), &e, &why)) {
    /* before the entry: the helper reads its plan. An execve that follows takes the thread with it (its
     * ruleset is close-on-exec), so it need not be waited for unless it was given the plan to read:
     * waiting for it to leave cost the front's miss ~0.1 ms */
    if (!exec_follows) cordon_lx_landlock_ahead_free(&ahead);
    else if (read) cordon_lx_landlock_ahead_settle(&ahead);
    if (read) cordon_lx_run_entry_free(&e);
    trace(known ? "miss" : "off", why);
    if (known) armed_key = cordon_buf_take(&key);
    cordon_buf_free(&key);
    return -1;
  }
  cordon_buf_free(&key);
  trace("hit", NULL);
  fflush(stdout);
  cordon_buf msg = CORDON_BUF_INIT;
  cordon_lx_status st = cordon_lx_run_ahead(e.plan, &ahead, (const char *const *)e.argv, (const char *const *)e.env,
                                            e.cwd, &msg);
  cordon_lx_landlock_ahead_free(&ahead);
  /* Only a command that could not be started comes back: report it as the Lua path does (run.lua,
   * lmanager.c): the code follows from the exit status. */
  int status = cordon_exit_status_of(cordon_lx_status_name(st));
  const char *code = cordon_exit_code_of(status);
  const char *text = cordon_buf_str(&msg);
  fprintf(stderr, "cordon: %s: %s\n", code, text && *text ? text : code);
  cordon_buf_free(&msg);
  cordon_lx_run_entry_free(&e);
  return status;
#endif
}

int cordon_fastpath_run(int argc, char **argv) { return fastpath_run(argc, argv, false); }

int cordon_fastpath_run_then_exec(int argc, char **argv) { return fastpath_run(argc, argv, true); }

/* --- arming ----------------------------------------------------------------------------------------- */
/* Calls upvalue 1 with every argument after tainting the run with upvalue 2's reason. */
static int tainting(lua_State *L) {
  cordon_record_taint(lua_tostring(L, lua_upvalueindex(2)));
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

/* Replaces t[name] (t at absolute index `t`) by closure `f` over (the original, reason). */
static void wrap(lua_State *L, int t, const char *name, const char *reason, lua_CFunction f) {
  if (lua_getfield(L, t, name) != LUA_TFUNCTION) {
    lua_pop(L, 1);
    return;
  }
  lua_pushstring(L, reason);
  lua_pushcclosure(L, f, 2);
  lua_setfield(L, t, name);
}

static void wrap_all(lua_State *L, int t, const char *const *names, const char *reason) {
  for (size_t i = 0; names[i]; i++) wrap(L, t, names[i], reason, tainting);
}

/* cordon.c.path.canonicalize resolves symlinks: recorded like sys.realpath, replayed through the same C
 * function (record.c). A failure is not replayable by its message alone, so it taints. */
static int recording_canonicalize(lua_State *L) {
  int n = lua_gettop(L);
  lua_pushvalue(L, lua_upvalueindex(1));
  for (int i = 1; i <= n; i++) lua_pushvalue(L, i);
  lua_call(L, n, LUA_MULTRET);
  int nres = lua_gettop(L) - n;
  if (n >= 1 && lua_type(L, 1) == LUA_TSTRING && nres >= 1 && lua_type(L, n + 1) == LUA_TSTRING) {
    lua_pushfstring(L, "=%s", lua_tostring(L, n + 1));
    cordon_record_add(CORDON_REC_CANON, lua_tostring(L, 1), lua_tostring(L, -1));
    lua_pop(L, 1);
  } else {
    cordon_record_taint("cordon.c.path.canonicalize failed");
  }
  return nres;
}

/* Whether `text` may hold an (import …) form: "(" then optional blanks then the word import. Errs toward
 * yes (a comment mentioning "(import" counts). */
static bool may_import(const char *text) {
  for (const char *p = strchr(text, '('); p; p = strchr(p + 1, '(')) {
    const char *q = p + 1;
    while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r') q++;
    if (strncmp(q, "import", 6) == 0 && !(q[6] == '-' || (q[6] >= 'a' && q[6] <= 'z') || (q[6] >= '0' && q[6] <= '9')))
      return true;
  }
  return false;
}

/* SBPL (import "file") reads a file the recorder never sees. */
static int checking_parse(lua_State *L) {
  const char *text = lua_type(L, 1) == LUA_TSTRING ? lua_tostring(L, 1) : NULL;
  bool no_import = lua_type(L, 4) == LUA_TTABLE && lua_getfield(L, 4, "no_import") == LUA_TBOOLEAN && lua_toboolean(L, -1);
  if (lua_type(L, 4) == LUA_TTABLE) lua_pop(L, 1);
  if (text && !no_import && may_import(text)) cordon_record_taint("the policy may import a file");
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

static void patch_module(lua_State *L, int t, const char *name) {
  if (strcmp(name, "cordon.c.sandbox") == 0) {
    wrap(L, t, "run", "a Lua profile script", tainting);
  } else if (strcmp(name, "cordon.c.path") == 0) {
    if (lua_getfield(L, t, "canonicalize") == LUA_TFUNCTION) {
      lua_pushcclosure(L, recording_canonicalize, 1);
      lua_setfield(L, t, "canonicalize");
    } else {
      lua_pop(L, 1);
    }
  } else if (strcmp(name, "cordon.c.sbpl") == 0) {
    if (lua_getfield(L, t, "parse") == LUA_TFUNCTION) {
      lua_pushcclosure(L, checking_parse, 1);
      lua_setfield(L, t, "parse");
    } else {
      lua_pop(L, 1);
    }
  }
}

/* A preloaded opener whose module gets patched once opened. */
static int open_patched(lua_State *L) {
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, 1);
  if (lua_type(L, -1) == LUA_TTABLE) patch_module(L, lua_gettop(L), lua_tostring(L, lua_upvalueindex(2)));
  return 1;
}

static bool replayable_module(const char *name) {
  if (strcmp(name, "cordon") == 0) return true;
  return strncmp(name, "cordon.", 7) == 0 && strcmp(name, "cordon.c.session") != 0 &&
         strcmp(name, "cordon.c.readline") != 0;
}

/* Calls the original searcher; a module found outside the binary (or one that keeps state on disk)
 * taints. */
static int searching(lua_State *L) {
  const char *name = luaL_checkstring(L, 1);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_pushvalue(L, 1);
  lua_call(L, 1, 2);
  if (lua_type(L, -2) == LUA_TFUNCTION && !replayable_module(name))
    cordon_record_taint("a module outside cordon was loaded");
  return 2;
}

void cordon_fastpath_arm(lua_State *L) {
  if (!armed_key) return;
  cordon_record_arm(armed_key);
  free(armed_key);
  armed_key = NULL;
  int top = lua_gettop(L);
  static const char *const io_fns[] = {"open", "lines", "popen", "read", "write", "input", "output", "tmpfile", NULL};
  static const char *const os_fns[] = {"time", "clock", "date", "execute", "remove", "rename", "tmpname", NULL};
  static const char *const math_fns[] = {"random", "randomseed", NULL};
  static const char *const base_fns[] = {"print", "dofile", "loadfile", NULL};
  static const char *const file_fns[] = {"write", "read", "lines", "seek", NULL};
  lua_getglobal(L, "io");
  if (lua_istable(L, -1)) wrap_all(L, lua_gettop(L), io_fns, "the io library");
  lua_getglobal(L, "os");
  if (lua_istable(L, -1)) wrap_all(L, lua_gettop(L), os_fns, "the os library");
  lua_getglobal(L, "math");
  if (lua_istable(L, -1)) wrap_all(L, lua_gettop(L), math_fns, "random numbers");
  lua_pushglobaltable(L);
  wrap_all(L, lua_gettop(L), base_fns, "output or a file loaded by the Lua half");
  if (luaL_getmetatable(L, LUA_FILEHANDLE) == LUA_TTABLE && lua_getfield(L, -1, "__index") == LUA_TTABLE)
    wrap_all(L, lua_gettop(L), file_fns, "a file handle");
  lua_settop(L, top);

  static const char *const patched[] = {"cordon.c.sandbox", "cordon.c.path", "cordon.c.sbpl", NULL};
  lua_getglobal(L, "package");
  int pkg = lua_gettop(L);
  lua_getfield(L, pkg, "loaded");
  lua_getfield(L, pkg, "preload");
  int loaded = pkg + 1, preload = pkg + 2;
  for (size_t i = 0; patched[i]; i++) {
    if (lua_getfield(L, loaded, patched[i]) == LUA_TTABLE) patch_module(L, lua_gettop(L), patched[i]);
    lua_pop(L, 1);
    if (lua_getfield(L, preload, patched[i]) == LUA_TFUNCTION) {
      lua_pushstring(L, patched[i]);
      lua_pushcclosure(L, open_patched, 2);
      lua_setfield(L, preload, patched[i]);
    } else {
      lua_pop(L, 1);
    }
  }
  lua_getfield(L, pkg, "searchers");
  int searchers = lua_gettop(L);
  for (lua_Integer i = 1; lua_istable(L, searchers) && i <= (lua_Integer)luaL_len(L, searchers); i++) {
    lua_rawgeti(L, searchers, i);
    lua_pushcclosure(L, searching, 1);
    lua_rawseti(L, searchers, i);
  }
  lua_settop(L, top);
}
