/* src/cli/readline.c — cordon.c.readline: libedit line editing for `cordon repl` */
#include "cli/cli.h"
#include "lua/lutil.h"

#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <editline/readline.h>

/* libedit calls the completer without an argument: the state whose completer is registered. */
static lua_State *completer_state;
static const char COMPLETER_KEY = 'c';

/* '.' and ':' are not breaks, so `cordon.sb` and `p:de` reach the completer whole. */
static char word_breaks[] = " \t\n\"\\'`@$><=;|&{(+-*/%^~,[]#";

static char *common_prefix(char **items, size_t n) {
  size_t len = strlen(items[0]);
  for (size_t i = 1; i < n; i++) {
    size_t j = 0;
    while (j < len && items[i][j] == items[0][j]) j++;
    len = j;
  }
  char *out = malloc(len + 1);
  if (!out) return NULL;
  memcpy(out, items[0], len);
  out[len] = '\0';
  return out;
}

/* The completer's list (at `list`) as libedit wants it: [0] replaces the word (the one candidate, or
 * the candidates' common prefix), [1..] are listed on a second Tab, NULL ends it. NULL for none. */
static char **to_matches(lua_State *L, int list) {
  size_t n = (size_t)lua_rawlen(L, list), k = 0;
  char **m = n ? calloc(n + 2, sizeof *m) : NULL;
  if (!m) return NULL;
  for (size_t i = 1; i <= n; i++) {
    lua_rawgeti(L, list, (lua_Integer)i);
    size_t len;
    const char *s = lua_tolstring(L, -1, &len);
    if (s && strlen(s) != len) s = NULL;  /* a name with a NUL cannot be typed: skipped, not cut short */
    char *copy = s ? strdup(s) : NULL;
    lua_pop(L, 1);
    if (s && !copy) goto fail;
    if (copy) m[++k] = copy;
  }
  if (k == 0) goto fail;
  if (k == 1) {
    m[0] = m[1];
    m[1] = NULL;
    return m;
  }
  if ((m[0] = common_prefix(m + 1, k))) return m;
fail:
  for (size_t i = 0; i <= k; i++) free(m[i]);
  free(m);
  return NULL;
}

/* The completer gets the word and the line before it; it answers a list, or "files" for file names. */
static char **complete(const char *text, int start, int end) {
  (void)end;
  rl_attempted_completion_over = 1;  /* file names only when the completer asks for them */
  lua_State *L = completer_state;
  if (!L) return NULL;
  int top = lua_gettop(L);
  lua_rawgetp(L, LUA_REGISTRYINDEX, &COMPLETER_KEY);
  lua_pushstring(L, text);
  lua_pushlstring(L, rl_line_buffer, start > 0 && start <= rl_end ? (size_t)start : 0);
  char **matches = NULL;
  if (lua_pcall(L, 2, 1, 0) == LUA_OK) {
    if (lua_istable(L, -1)) matches = to_matches(L, lua_gettop(L));
    else if (lua_type(L, -1) == LUA_TSTRING && !strcmp(lua_tostring(L, -1), "files"))
      matches = rl_completion_matches(text, rl_filename_completion_function);
  }
  lua_settop(L, top);
  return matches;
}

static char *no_entries(const char *text, int state) {
  (void)text;
  (void)state;
  return NULL;
}

static int l_set_completer(lua_State *L) {
  luaL_checktype(L, 1, LUA_TFUNCTION);
  lua_pushvalue(L, 1);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &COMPLETER_KEY);
  completer_state = L;
  rl_attempted_completion_function = complete;
  rl_completion_entry_function = no_entries;
  rl_basic_word_break_characters = word_breaks;
  rl_completer_word_break_characters = word_breaks;
  rl_completion_append_character = '\0';
  return 0;
}

static int l_readline(lua_State *L) {
  const char *prompt = cordon_lua_optstring(L, 1, "> ");
  cordon_interrupt_take();  /* a Ctrl-C from before this prompt is old news */
  char *line = readline(prompt);
  int interrupted = cordon_interrupt_take();
  if (!line) {  /* a Ctrl-C that lands outside the read does not end it: the line typed after it counts */
    if (interrupted) lua_pushboolean(L, 0);
    else lua_pushnil(L);
    return 1;
  }
  lua_pushstring(L, line);
  free(line);
  return 1;
}

static int l_add_history(lua_State *L) {
  add_history(cordon_lua_checkstring(L, 1));
  return 0;
}

static const luaL_Reg readline_funcs[] = {
  {"readline", l_readline},
  {"add_history", l_add_history},
  {"set_completer", l_set_completer},
  {NULL, NULL},
};

int cordon_open_readline(lua_State *L) {
  /* before libedit starts (add_history starts it): SIGINT is interrupt.c's, which makes the read at the
   * prompt fail, and l_readline tells that from end of input */
  rl_catch_signals = 0;
  luaL_newlib(L, readline_funcs);
  luaL_setfuncs(L, cordon_interrupt_funcs, 0);
  return 1;
}
