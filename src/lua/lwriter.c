/* src/lua/lwriter.c — cordon.c.writer: quoting and IR tables → SBPL text (src/sbpl/writer.h) */
#include "lua/lpolicy.h"
#include "lua/lutil.h"
#include "sbpl/writer.h"

#include <string.h>


static int l_quote_with(lua_State *L, cordon_sbpl_write_status (*fn)(const char *, size_t, cordon_buf *)) {
  size_t len;
  const char *s = luaL_checklstring(L, 1, &len);
  cordon_buf b = CORDON_BUF_INIT;
  cordon_sbpl_write_status st = fn(s, len, &b);
  if (st == CORDON_SBPL_WRITE_OK && b.oom) st = CORDON_SBPL_WRITE_NOMEM;
  if (st != CORDON_SBPL_WRITE_OK) {
    cordon_buf_free(&b);
    size_t off = 0;
    cordon_sbpl_check_string(s, len, &off);
    return cordon_lua_fail(L, cordon_sbpl_write_status_name(st), "cannot write this string into SBPL (byte %zu)%s",
                           off, st == CORDON_SBPL_WRITE_TOO_LONG ? ": pass it as a -D parameter" : "");
  }
  lua_pushlstring(L, b.data ? b.data : "", b.len);
  cordon_buf_free(&b);
  return 1;
}

static int l_quote(lua_State *L) { return l_quote_with(L, cordon_sbpl_quote); }
static int l_quote_regex(lua_State *L) { return l_quote_with(L, cordon_sbpl_quote_regex); }
static int l_regex_escape(lua_State *L) { return l_quote_with(L, cordon_sbpl_regex_escape); }

/* The policy being built lives in a guard (cordon_lua_guard), so an error raised by Lua midway frees it. */
static void free_policy(void *p) { cordon_policy_free(p); }

typedef struct {
  char message[200];
} conv_error;

static bool conv_fail(conv_error *e, const char *what, const char *detail) {
  snprintf(e->message, sizeof e->message, "%s%s", what, detail ? detail : "");
  return false;
}

/* Whether the value at idx is a string holding a NUL byte (then refused: it would cut the SBPL short). */
static bool has_nul(lua_State *L, int idx, conv_error *e) {
  return cordon_lua_has_nul(L, idx) && !conv_fail(e, "a string holds a NUL byte (refused, never cut short): ", lua_tostring(L, idx));
}

static cordon_filter_kind kind_of(const char *name) {
  if (!strcmp(name, "require-all")) return CORDON_F_ALL;
  if (!strcmp(name, "require-any")) return CORDON_F_ANY;
  if (!strcmp(name, "require-not")) return CORDON_F_NOT;
  if (!strcmp(name, "vnode-type")) return CORDON_F_VNODE_TYPE;
  if (!strcmp(name, "remote") || !strcmp(name, "local")) return CORDON_F_NETWORK;
  if (!strcmp(name, "extension")) return CORDON_F_EXTENSION;
  static const char *const paths[] = {"literal", "subpath", "prefix", "regex", "path", "path-literal",
                                      "path-prefix", "path-regex", NULL};
  for (size_t i = 0; paths[i]; i++)
    if (!strcmp(name, paths[i])) return CORDON_F_PATH;
  return CORDON_F_NAME;
}

/* Converts the filter table at the top of the stack ({"subpath", "/x"}, {"literal", {param = "P"}},
 * {"require-not", {…}}, {"remote", "tcp", "*:80"}, …). */
static cordon_filter *conv_filter(lua_State *L, conv_error *e, int depth) {
  if (depth > 64) return conv_fail(e, "filters nested too deeply", NULL), NULL;
  if (!lua_istable(L, -1)) return conv_fail(e, "a filter must be a table such as {\"subpath\", \"/x\"}", NULL), NULL;
  if (lua_rawgeti(L, -1, 1) != LUA_TSTRING) {
    lua_pop(L, 1);
    return conv_fail(e, "a filter's first element must be its name", NULL), NULL;
  }
  if (has_nul(L, -1, e)) return lua_pop(L, 1), NULL;
  const char *name = lua_tostring(L, -1);
  cordon_filter_kind kind = kind_of(name);
  lua_Integer n = (lua_Integer)lua_rawlen(L, -2);
  if (kind == CORDON_F_NAME && n != 2) kind = CORDON_F_OTHER;
  cordon_filter *f = cordon_filter_new(kind, name, cordon_match_for_name(name));
  lua_pop(L, 1);
  if (!f) return conv_fail(e, "out of memory", NULL), NULL;
  bool ok = true;
  for (lua_Integer i = 2; ok && i <= n; i++) {
    int t = lua_rawgeti(L, -1, i);
    if (t == LUA_TSTRING) {
      ok = !has_nul(L, -1, e) && (cordon_filter_add_arg(f, lua_tostring(L, -1), false) || conv_fail(e, "out of memory", NULL));
    } else if (t == LUA_TTABLE && lua_getfield(L, -1, "param") == LUA_TSTRING) {
      ok = !has_nul(L, -1, e) && (cordon_filter_add_arg(f, lua_tostring(L, -1), true) || conv_fail(e, "out of memory", NULL));
      lua_pop(L, 1);
    } else if (t == LUA_TTABLE) {
      lua_pop(L, 1);  /* the nil "param" */
      cordon_filter *child = conv_filter(L, e, depth + 1);
      ok = child && (cordon_filter_add_child(f, child) || conv_fail(e, "out of memory", NULL));
    } else {
      ok = conv_fail(e, "bad argument in filter ", name);
    }
    lua_pop(L, 1);
  }
  if (!ok) {
    cordon_filter_free(f);
    return NULL;
  }
  return f;
}

/* Converts the rule table at the top of the stack into a new rule of `p`. */
static bool conv_rule(lua_State *L, cordon_policy *p, conv_error *e) {
  if (!lua_istable(L, -1)) return conv_fail(e, "a rule must be a table", NULL);
  lua_getfield(L, -1, "action");
  const char *action = has_nul(L, -1, e) ? NULL : lua_tostring(L, -1);
  bool allow = action && !strcmp(action, "allow"), deny = action && !strcmp(action, "deny");
  lua_pop(L, 1);
  if (!allow && !deny) return conv_fail(e, "action must be \"allow\" or \"deny\"", NULL);
  cordon_loc loc = {NULL, 0, 0};
  cordon_rule *r = cordon_policy_add_rule(p, deny ? CORDON_DENY : CORDON_ALLOW, loc);
  if (!r) return conv_fail(e, "out of memory", NULL);
  if (lua_getfield(L, -1, "ops") != LUA_TTABLE) {
    lua_pop(L, 1);
    return conv_fail(e, "ops must be a list of operation names", NULL);
  }
  for (lua_Integer i = 1; lua_rawgeti(L, -1, i) != LUA_TNIL; i++) {
    bool ok = lua_type(L, -1) == LUA_TSTRING;
    if (ok && has_nul(L, -1, e)) ok = false;
    else if (ok && !cordon_rule_add_op(r, lua_tostring(L, -1))) ok = conv_fail(e, "out of memory", NULL);
    else if (!ok) conv_fail(e, "ops must be a list of operation names", NULL);
    lua_pop(L, 1);
    if (!ok) {
      lua_pop(L, 1);
      return false;
    }
  }
  lua_pop(L, 2);  /* the nil that ended the list, and ops */
  int t = lua_getfield(L, -1, "filters");
  if (t == LUA_TTABLE) {
    lua_Integer n = (lua_Integer)lua_rawlen(L, -1);
    cordon_filter *group = n > 1 ? cordon_filter_new(CORDON_F_ALL, "require-all", CORDON_MATCH_NONE) : NULL;
    if (n > 1 && !group) return lua_pop(L, 1), conv_fail(e, "out of memory", NULL);
    for (lua_Integer i = 1; i <= n; i++) {
      lua_rawgeti(L, -1, i);
      cordon_filter *f = conv_filter(L, e, 0);
      lua_pop(L, 1);
      if (!f || (group && !cordon_filter_add_child(group, f))) {
        cordon_filter_free(group);
        lua_pop(L, 1);
        return f ? conv_fail(e, "out of memory", NULL) : false;
      }
      if (!group) r->filter = f;
    }
    if (group) r->filter = group;
  } else if (t != LUA_TNIL) {
    lua_pop(L, 1);
    return conv_fail(e, "filters must be a list", NULL);
  }
  lua_pop(L, 1);
  if (lua_getfield(L, -1, "modifiers") == LUA_TTABLE) {
    for (lua_Integer i = 1; lua_rawgeti(L, -1, i) == LUA_TTABLE; i++) {
      lua_rawgeti(L, -1, 1);
      lua_rawgeti(L, -2, 2);
      bool nul = has_nul(L, -2, e) || has_nul(L, -1, e);
      const char *name = lua_tostring(L, -2), *arg = lua_tostring(L, -1);
      bool ok = !nul && name && cordon_rule_add_modifier(r, name, arg);
      lua_pop(L, 3);
      if (!ok) {
        lua_pop(L, 1);
        return nul ? false : conv_fail(e, "a modifier must be {name [, argument]}", NULL);
      }
    }
    lua_pop(L, 1);  /* the value that ended the list */
  }
  lua_pop(L, 1);
  if (lua_getfield(L, -1, "comment") == LUA_TSTRING &&
      (has_nul(L, -1, e) || !(r->comment = strdup(lua_tostring(L, -1))))) {
    lua_pop(L, 1);
    return e->message[0] ? false : conv_fail(e, "out of memory", NULL);
  }
  lua_pop(L, 1);
  return true;
}

bool cordon_lua_torule(lua_State *L, cordon_policy *p, char *msg, size_t cap) {
  conv_error e = {{0}};
  bool ok = conv_rule(L, p, &e);
  if (!ok) snprintf(msg, cap, "%s", e.message);
  return ok;
}

static int l_write(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  bool version = false;
  if (lua_istable(L, 2)) {
    lua_getfield(L, 2, "version");
    version = lua_toboolean(L, -1);
    lua_pop(L, 1);
  }
  void **guard = cordon_lua_guard(L, free_policy);
  cordon_policy *pol = *guard = cordon_policy_new();
  if (!pol) return cordon_lua_fail(L, "nomem", "out of memory");
  lua_Integer n = (lua_Integer)lua_rawlen(L, 1);
  for (lua_Integer i = 1; i <= n; i++) {
    conv_error e = {{0}};
    lua_rawgeti(L, 1, i);
    bool ok = conv_rule(L, pol, &e);
    lua_pop(L, 1);
    if (!ok) return cordon_lua_fail(L, "invalid_rule", "rule %d: %s", (int)i, e.message);
  }
  cordon_buf b = CORDON_BUF_INIT;
  cordon_sbpl_write_error err;
  if (version) cordon_buf_puts(&b, "(version 1)\n");
  lua_createtable(L, (int)pol->nrules, 0);  /* each rule's line: the writer puts a rule on one line */
  lua_Integer line = version ? 1 : 0;
  for (size_t i = 0; i < pol->nrules; i++) {
    size_t from = b.len;
    cordon_sbpl_write_status st = cordon_sbpl_write_rule(&pol->rules[i], &b, &err);
    if (st == CORDON_SBPL_WRITE_OK && b.oom) st = CORDON_SBPL_WRITE_NOMEM;
    if (st != CORDON_SBPL_WRITE_OK) {
      cordon_buf_free(&b);
      return cordon_lua_fail(L, cordon_sbpl_write_status_name(st), "rule %zu: %s", i + 1, err.message);
    }
    for (const char *c = b.data + from; (c = memchr(c, '\n', b.len - (size_t)(c - b.data))); c++) line++;
    lua_pushinteger(L, line);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  lua_pushlstring(L, b.data ? b.data : "", b.len);
  cordon_buf_free(&b);
  lua_insert(L, -2);
  return 2;
}

static const luaL_Reg writer_funcs[] = {
  {"quote", l_quote},
  {"quote_regex", l_quote_regex},
  {"regex_escape", l_regex_escape},
  {"write", l_write},
  {NULL, NULL},
};

int cordon_open_writer(lua_State *L) {
  luaL_newlib(L, writer_funcs);
  lua_pushinteger(L, CORDON_SBPL_MAX_LITERAL);
  lua_setfield(L, -2, "MAX_LITERAL");
  return 1;
}
