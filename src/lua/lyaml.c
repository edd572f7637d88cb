/* src/lua/lyaml.c — cordon.c.yaml: YAML text -> a Lua tree of positioned nodes, through libyaml */
#include "lua/lutil.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <yaml.h>

#define YAML_DEFAULT_MAX_BYTES (1 << 20)
#define YAML_DEFAULT_MAX_DEPTH 64
#define YAML_DEFAULT_MAX_NODES 100000

typedef struct {
  yaml_parser_t parser;
  yaml_event_t event;
  bool have_event;     /* `event` holds data that must be deleted */
  const char *file;
  const char *text;
  size_t len;
  lua_Integer max_depth, max_nodes, nodes;
  /* The first error found; reported after the protected call returns. */
  char msg[256];
  size_t err_line, err_col;  /* 1-based */
  bool failed;
} yaml_load;

static void fail_at(yaml_load *y, yaml_mark_t mark, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail_at(yaml_load *y, yaml_mark_t mark, const char *fmt, ...) {
  if (y->failed) return;
  y->failed = true;
  y->err_line = mark.line + 1;
  y->err_col = mark.column + 1;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(y->msg, sizeof y->msg, fmt, ap);
  va_end(ap);
}

/* Reader errors (bad UTF-8, control bytes) carry a byte offset rather than a mark. */
static yaml_mark_t mark_of_offset(const yaml_load *y, size_t off) {
  yaml_mark_t m = {0, 0, 0};
  for (size_t i = 0; i < off && i < y->len; i++) {
    if (y->text[i] == '\n') {
      m.line++;
      m.column = 0;
    } else if (((unsigned char)y->text[i] & 0xC0) != 0x80) {
      m.column++;
    }
  }
  return m;
}

static void parser_failed(yaml_load *y) {
  const yaml_parser_t *p = &y->parser;
  const char *problem = p->problem ? p->problem : "malformed YAML";
  yaml_mark_t mark = p->error == YAML_READER_ERROR ? mark_of_offset(y, p->problem_offset) : p->problem_mark;
  if (mark.index < y->len && y->text[mark.index] == '\t') {
    fail_at(y, mark, "%s (a tab cannot indent YAML; use spaces)", problem);
  } else if (p->context && p->error != YAML_READER_ERROR) {
    fail_at(y, mark, "%s (%s started at line %zu)", problem, p->context, p->context_mark.line + 1);
  } else {
    fail_at(y, mark, "%s", problem);
  }
}

/* Fetches the next event into y->event; false (with y->failed set) on a syntax error. */
static bool next_event(yaml_load *y) {
  if (y->have_event) {
    yaml_event_delete(&y->event);
    y->have_event = false;
  }
  if (!yaml_parser_parse(&y->parser, &y->event)) {
    parser_failed(y);
    return false;
  }
  y->have_event = true;
  return true;
}

static void push_position(lua_State *L, yaml_mark_t mark) {
  lua_pushinteger(L, (lua_Integer)mark.line + 1);
  lua_setfield(L, -2, "line");
  lua_pushinteger(L, (lua_Integer)mark.column + 1);
  lua_setfield(L, -2, "col");
}

/* Pushes the node's explicit tag, shortened from "tag:yaml.org,2002:str" to "!!str". */
static void push_tag(lua_State *L, const yaml_char_t *tag) {
  if (!tag) return;
  const char *t = (const char *)tag;
  const char *core = "tag:yaml.org,2002:";
  if (strncmp(t, core, strlen(core)) == 0) lua_pushfstring(L, "!!%s", t + strlen(core));
  else lua_pushstring(L, t);
  lua_setfield(L, -2, "tag");
}

static bool parse_node(lua_State *L, yaml_load *y, lua_Integer depth);

/* Builds the node for the current event (already fetched). Pushes one table on success. */
static bool build_current(lua_State *L, yaml_load *y, lua_Integer depth) {
  yaml_event_t *ev = &y->event;
  yaml_mark_t start = ev->start_mark;
  if (++y->nodes > y->max_nodes) {
    fail_at(y, start, "document has more than %lld nodes", (long long)y->max_nodes);
    return false;
  }
  if (depth > y->max_depth) {
    fail_at(y, start, "nesting is deeper than %lld levels", (long long)y->max_depth);
    return false;
  }
  luaL_checkstack(L, 8, "YAML nesting");
  switch (ev->type) {
  case YAML_ALIAS_EVENT:
    fail_at(y, start, "aliases (*%s) are not allowed in cordon configuration", (const char *)ev->data.alias.anchor);
    return false;
  case YAML_SCALAR_EVENT: {
    if (ev->data.scalar.anchor) {
      fail_at(y, start, "anchors (&%s) are not allowed in cordon configuration", (const char *)ev->data.scalar.anchor);
      return false;
    }
    lua_createtable(L, 0, 6);
    lua_pushliteral(L, "scalar");
    lua_setfield(L, -2, "kind");
    lua_pushlstring(L, (const char *)ev->data.scalar.value, ev->data.scalar.length);
    lua_setfield(L, -2, "value");
    lua_pushboolean(L, ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !ev->data.scalar.tag);
    lua_setfield(L, -2, "plain");
    push_tag(L, ev->data.scalar.tag);
    push_position(L, start);
    return true;
  }
  case YAML_SEQUENCE_START_EVENT: {
    if (ev->data.sequence_start.anchor) {
      fail_at(y, start, "anchors (&%s) are not allowed in cordon configuration",
              (const char *)ev->data.sequence_start.anchor);
      return false;
    }
    lua_createtable(L, 0, 5);
    lua_pushliteral(L, "seq");
    lua_setfield(L, -2, "kind");
    push_tag(L, ev->data.sequence_start.tag);
    push_position(L, start);
    lua_newtable(L);
    for (lua_Integer i = 1;; i++) {
      if (!next_event(y)) return false;
      if (y->event.type == YAML_SEQUENCE_END_EVENT) break;
      if (!build_current(L, y, depth + 1)) return false;
      lua_rawseti(L, -2, i);
    }
    lua_setfield(L, -2, "items");
    return true;
  }
  case YAML_MAPPING_START_EVENT: {
    if (ev->data.mapping_start.anchor) {
      fail_at(y, start, "anchors (&%s) are not allowed in cordon configuration",
              (const char *)ev->data.mapping_start.anchor);
      return false;
    }
    lua_createtable(L, 0, 6);
    lua_pushliteral(L, "map");
    lua_setfield(L, -2, "kind");
    push_tag(L, ev->data.mapping_start.tag);
    push_position(L, start);
    int node = lua_gettop(L);
    lua_newtable(L); /* keys */
    lua_newtable(L); /* values */
    lua_newtable(L); /* seen: key text -> line of its first use */
    int keys = node + 1, values = node + 2, seen = node + 3;
    for (lua_Integer i = 1;; i++) {
      if (!next_event(y)) return false;
      if (y->event.type == YAML_MAPPING_END_EVENT) break;
      yaml_mark_t kmark = y->event.start_mark;
      if (y->event.type != YAML_SCALAR_EVENT) {
        fail_at(y, kmark, "mapping keys must be text, not a %s",
                y->event.type == YAML_ALIAS_EVENT ? "alias" : y->event.type == YAML_SEQUENCE_START_EVENT ? "list" : "mapping");
        return false;
      }
      if (!build_current(L, y, depth + 1)) return false;
      lua_getfield(L, -1, "value");
      lua_pushvalue(L, -1);
      if (lua_rawget(L, seen) != LUA_TNIL) {
        fail_at(y, kmark, "duplicate key '%s' (first at line %lld)", lua_tostring(L, -2), (long long)lua_tointeger(L, -1));
        return false;
      }
      lua_pop(L, 1);
      lua_pushinteger(L, (lua_Integer)kmark.line + 1);
      lua_rawset(L, seen);
      lua_rawseti(L, keys, i);
      if (!parse_node(L, y, depth + 1)) return false;
      lua_rawseti(L, values, i);
    }
    lua_pop(L, 1); /* seen */
    lua_setfield(L, node, "values");
    lua_setfield(L, node, "keys");
    return true;
  }
  default:
    fail_at(y, start, "unexpected YAML event %d", (int)ev->type);
    return false;
  }
}

static bool parse_node(lua_State *L, yaml_load *y, lua_Integer depth) {
  if (!next_event(y)) return false;
  return build_current(L, y, depth);
}

/* Runs inside lua_pcall so that a Lua memory error cannot skip the libyaml cleanup in l_load. */
static int load_protected(lua_State *L) {
  yaml_load *y = lua_touserdata(L, 1);
  if (!next_event(y)) return 0;
  if (y->event.type != YAML_STREAM_START_EVENT) {
    fail_at(y, y->event.start_mark, "malformed YAML stream");
    return 0;
  }
  if (!next_event(y)) return 0;
  if (y->event.type == YAML_STREAM_END_EVENT) {
    /* An empty file: one empty plain scalar, which a schema reads as null. */
    lua_createtable(L, 0, 5);
    lua_pushliteral(L, "scalar");
    lua_setfield(L, -2, "kind");
    lua_pushliteral(L, "");
    lua_setfield(L, -2, "value");
    lua_pushboolean(L, 1);
    lua_setfield(L, -2, "plain");
    push_position(L, y->event.start_mark);
    return 1;
  }
  if (!parse_node(L, y, 1)) return 0;  /* the document's root node */
  if (!next_event(y)) return 0;        /* DOCUMENT-END */
  if (!next_event(y)) return 0;
  if (y->event.type != YAML_STREAM_END_EVENT) {
    fail_at(y, y->event.start_mark, "a configuration file holds one YAML document, found another");
    return 0;
  }
  return 1;
}

static lua_Integer opt_limit(lua_State *L, int t, const char *key, lua_Integer dflt) {
  if (lua_isnoneornil(L, t)) return dflt;
  luaL_checktype(L, t, LUA_TTABLE);
  lua_getfield(L, t, key);
  lua_Integer v = luaL_optinteger(L, -1, dflt);
  lua_pop(L, 1);
  if (v < 1) luaL_error(L, "limit '%s' must be positive", key);
  return v;
}

/* load(text, filename [, {max_bytes=, max_depth=, max_nodes=}]) -> root node | nil, msg, "config_error" */
static int l_load(lua_State *L) {
  size_t len;
  const char *text = luaL_checklstring(L, 1, &len);
  const char *file = cordon_lua_optstring(L, 2, "<string>");
  lua_Integer max_bytes = opt_limit(L, 3, "max_bytes", YAML_DEFAULT_MAX_BYTES);
  if ((lua_Integer)len > max_bytes)
    return cordon_lua_fail(L, "config_error", "%s:1:1: file is larger than %lld bytes", file, (long long)max_bytes);
  yaml_load y;
  memset(&y, 0, sizeof y);
  y.file = file;
  y.text = text;
  y.len = len;
  y.max_depth = opt_limit(L, 3, "max_depth", YAML_DEFAULT_MAX_DEPTH);
  y.max_nodes = opt_limit(L, 3, "max_nodes", YAML_DEFAULT_MAX_NODES);
  if (!yaml_parser_initialize(&y.parser)) return cordon_lua_fail(L, "config_error", "%s: out of memory", file);
  /* A UTF-8 byte-order mark (editors such as Notepad write one) is skipped here: with the encoding
   * fixed, libyaml would read it as content and every position after it would be off. */
  if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) text += 3, len -= 3;
  yaml_parser_set_input_string(&y.parser, (const unsigned char *)text, len);
  yaml_parser_set_encoding(&y.parser, YAML_UTF8_ENCODING);

  lua_pushcfunction(L, load_protected);
  lua_pushlightuserdata(L, &y);
  int status = lua_pcall(L, 1, 1, 0);
  if (y.have_event) yaml_event_delete(&y.event);
  yaml_parser_delete(&y.parser);
  if (status != LUA_OK) return lua_error(L); /* out of memory: propagate after cleanup */
  if (y.failed) return cordon_lua_fail(L, "config_error", "%s:%zu:%zu: %s", file, y.err_line, y.err_col, y.msg);
  return 1;
}

static const luaL_Reg yaml_funcs[] = {
  {"load", l_load},
  {NULL, NULL},
};

int cordon_open_yaml(lua_State *L) {
  luaL_newlib(L, yaml_funcs);
  return 1;
}
