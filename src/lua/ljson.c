/* src/lua/ljson.c — cordon.c.json: JSON through jansson, for every `--json` output and for hosts */
#include "lua/lutil.h"

#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define JSON_MAX_DEPTH 64
#define JSON_MAX_INPUT (64u << 20)

static char null_sentinel;

/* jansson refuses strings that are not UTF-8 (a raw path byte, say): such bytes become U+FFFD. */
static json_t *string_value(const char *s, size_t len) {
  json_t *j = json_stringn(s, len);
  if (j) return j;
  char *fixed = malloc(len * 3 + 1);
  if (!fixed) return NULL;
  size_t o = 0;
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c < 0x80) fixed[o++] = (char)c;
    else o += (size_t)(memcpy(fixed + o, "\xEF\xBF\xBD", 3), 3);
  }
  j = json_stringn(fixed, o);
  free(fixed);
  return j;
}

static bool marked_object(lua_State *L, int idx) {
  if (!lua_getmetatable(L, idx)) return false;
  lua_getfield(L, -1, "__jsontype");
  bool obj = lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), "object") == 0;
  lua_pop(L, 2);
  return obj;
}

/* Counts the keys and tells whether they are exactly 1..n. */
static bool is_array(lua_State *L, int idx, size_t *n) {
  size_t count = 0;
  bool ints = true;
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    count++;
    if (!lua_isinteger(L, -2) || lua_tointeger(L, -2) < 1) ints = false;
    lua_pop(L, 1);
  }
  *n = count;
  return ints && lua_rawlen(L, idx) == count;
}

static json_t *to_json(lua_State *L, int idx, int depth);

static json_t *table_to_json(lua_State *L, int idx, int depth) {
  size_t n;
  if (!marked_object(L, idx) && is_array(L, idx, &n)) {
    json_t *arr = json_array();
    for (size_t i = 1; arr && i <= n; i++) {
      lua_rawgeti(L, idx, (lua_Integer)i);
      json_t *item = to_json(L, lua_gettop(L), depth + 1);
      lua_pop(L, 1);
      if (!item || json_array_append_new(arr, item) != 0) {
        json_decref(arr);
        return NULL;
      }
    }
    return arr;
  }
  json_t *obj = json_object();
  lua_pushnil(L);
  while (obj && lua_next(L, idx)) {
    if (lua_type(L, -2) != LUA_TSTRING) {
      json_decref(obj);
      luaL_error(L, "json: object key of type %s", luaL_typename(L, -2));
    }
    json_t *item = to_json(L, lua_gettop(L), depth + 1);
    size_t klen;
    const char *key = lua_tolstring(L, -2, &klen);  /* a string: JSON keys may hold any byte, NUL too */
    if (!item || json_object_setn_new(obj, key, klen, item) != 0) {
      json_decref(obj);
      obj = NULL;
    }
    lua_pop(L, 1);
  }
  return obj;
}

static json_t *to_json(lua_State *L, int idx, int depth) {
  if (depth > JSON_MAX_DEPTH) luaL_error(L, "json: nesting deeper than %d", JSON_MAX_DEPTH);
  switch (lua_type(L, idx)) {
    case LUA_TNIL: return json_null();
    case LUA_TBOOLEAN: return json_boolean(lua_toboolean(L, idx));
    case LUA_TNUMBER:
      if (lua_isinteger(L, idx)) return json_integer((json_int_t)lua_tointeger(L, idx));
      if (!isfinite(lua_tonumber(L, idx))) luaL_error(L, "json: cannot encode %f", lua_tonumber(L, idx));
      return json_real(lua_tonumber(L, idx));
    case LUA_TSTRING: {
      size_t len;
      const char *s = lua_tolstring(L, idx, &len);
      return string_value(s, len);
    }
    case LUA_TTABLE: return table_to_json(L, idx, depth);
    case LUA_TLIGHTUSERDATA:
      if (lua_touserdata(L, idx) == &null_sentinel) return json_null();
      /* fall through */
    default: {
      size_t len;
      const char *s = luaL_tolstring(L, idx, &len);
      json_t *j = string_value(s, len);
      lua_pop(L, 1);
      return j;
    }
  }
}

static int l_encode(lua_State *L) {
  luaL_checkany(L, 1);
  size_t flags = JSON_SORT_KEYS | JSON_ENCODE_ANY;
  if (lua_istable(L, 2)) {
    lua_getfield(L, 2, "pretty");
    if (lua_toboolean(L, -1)) flags |= JSON_INDENT(2);
    lua_pop(L, 1);
  }
  json_t *j = to_json(L, 1, 0);
  if (!j) return cordon_lua_fail(L, "no_memory", "cannot build JSON");
  char *text = json_dumps(j, flags);
  json_decref(j);
  if (!text) return cordon_lua_fail(L, "no_memory", "cannot write JSON");
  lua_pushstring(L, text);
  free(text);
  return 1;
}

static void push_json(lua_State *L, json_t *j, int depth) {
  luaL_checkstack(L, 4, "json: nesting too deep");
  switch (json_typeof(j)) {
    case JSON_OBJECT: {
      lua_createtable(L, 0, (int)json_object_size(j));
      const char *key;
      size_t klen;
      json_t *v;
      json_object_keylen_foreach(j, key, klen, v) {
        lua_pushlstring(L, key, klen);  /* whole: "\u0000" in a key is one of its bytes */
        push_json(L, v, depth + 1);
        lua_rawset(L, -3);
      }
      break;
    }
    case JSON_ARRAY: {
      lua_createtable(L, (int)json_array_size(j), 0);
      size_t i;
      json_t *v;
      json_array_foreach(j, i, v) {
        push_json(L, v, depth + 1);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
      }
      break;
    }
    case JSON_STRING: lua_pushlstring(L, json_string_value(j), json_string_length(j)); break;
    case JSON_INTEGER: lua_pushinteger(L, (lua_Integer)json_integer_value(j)); break;
    case JSON_REAL: lua_pushnumber(L, json_real_value(j)); break;
    case JSON_TRUE: lua_pushboolean(L, 1); break;
    case JSON_FALSE: lua_pushboolean(L, 0); break;
    case JSON_NULL: lua_pushlightuserdata(L, &null_sentinel); break;
  }
}

static int depth_of(json_t *j, int depth) {
  if (depth > JSON_MAX_DEPTH) return depth;
  int deepest = depth;
  size_t i;
  const char *key;
  json_t *v;
  if (json_is_object(j)) json_object_foreach(j, key, v) {
      int d = depth_of(v, depth + 1);
      if (d > deepest) deepest = d;
    }
  if (json_is_array(j)) json_array_foreach(j, i, v) {
      int d = depth_of(v, depth + 1);
      if (d > deepest) deepest = d;
    }
  return deepest;
}

/* decode(text [, name]) -> value, or nil, "json_error: name:line:col: message", "json_error". Duplicate
 * keys are refused: a document that says two things must not be read as one of them. */
static int l_decode(lua_State *L) {
  size_t len;
  const char *text = luaL_checklstring(L, 1, &len);
  const char *name = cordon_lua_optstring(L, 2, "<json>");
  if (len > JSON_MAX_INPUT) return cordon_lua_fail(L, "json_error", "%s: larger than %u bytes", name, JSON_MAX_INPUT);
  json_error_t err;
  json_t *j = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY | JSON_ALLOW_NUL, &err);
  if (!j) return cordon_lua_fail(L, "json_error", "%s:%d:%d: %s", name, err.line, err.column, err.text);
  if (depth_of(j, 0) > JSON_MAX_DEPTH) {
    json_decref(j);
    return cordon_lua_fail(L, "json_error", "%s: nesting deeper than %d", name, JSON_MAX_DEPTH);
  }
  push_json(L, j, 0);
  json_decref(j);
  return 1;
}

static const luaL_Reg json_funcs[] = {{"encode", l_encode}, {"decode", l_decode}, {NULL, NULL}};

int cordon_open_json(lua_State *L) {
  luaL_newlib(L, json_funcs);
  lua_pushlightuserdata(L, &null_sentinel);
  lua_setfield(L, -2, "null");
  return 1;
}
