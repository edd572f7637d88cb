/* tools/embed.c — build-time generator: embeds lua/ scripts and the profiles/ tree into one C file,
 * so an installed cordon works from any directory. Files are listed in strcmp (LC_ALL=C) order. */
#include <dirent.h>
#include <lauxlib.h>
#include <lua.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct { char **names; size_t n, cap; } list;

static void list_add(list *l, const char *s) {
  if (l->n == l->cap) {
    l->cap = l->cap ? l->cap * 2 : 64;
    l->names = realloc(l->names, l->cap * sizeof *l->names);
    if (!l->names) { perror("realloc"); exit(1); }
  }
  l->names[l->n++] = strdup(s);
}

/* Collects paths relative to `root`, recursing into directories; hidden entries are skipped. */
static void walk(const char *root, const char *rel, list *out) {
  char dir[4096];
  snprintf(dir, sizeof dir, "%s%s%s", root, *rel ? "/" : "", rel);
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char sub[4096], full[8192];
    snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
    snprintf(full, sizeof full, "%s/%s", root, sub);
    struct stat st;
    if (stat(full, &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) walk(root, sub, out);
    else if (S_ISREG(st.st_mode)) list_add(out, sub);
  }
  closedir(d);
}

static int cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static size_t emit_bytes(FILE *o, const char *path, const char *sym) {
  FILE *f = fopen(path, "rb");
  if (!f) { perror(path); exit(1); }
  fprintf(o, "static const char %s[] = {", sym);
  size_t n = 0;
  int c;
  while ((c = fgetc(f)) != EOF) fprintf(o, "%s%d,", (n++ % 24) ? "" : "\n", c);
  fprintf(o, "0};\n");
  fclose(f);
  return n;
}

typedef struct { unsigned char *data; size_t len, cap; } bytes;

static int collect(lua_State *L, const void *p, size_t n, void *ud) {
  (void)L;
  bytes *b = ud;
  if (b->len + n > b->cap) {
    b->cap = (b->len + n) * 2;
    b->data = realloc(b->data, b->cap);
    if (!b->data) return 1;
  }
  memcpy(b->data + b->len, p, n);
  b->len += n;
  return 0;
}

/* Precompiles a script with the very liblua cordon links, keeping debug info so errors still name
 * lua/<module>.lua:LINE. Loading bytecode skips the parser: about 2 ms per run of cordon. */
static size_t emit_bytecode(FILE *o, const char *path, const char *module, const char *sym) {
  lua_State *L = luaL_newstate();
  char chunkname[4200];
  snprintf(chunkname, sizeof chunkname, "@lua/%s.lua", module);
  FILE *f = fopen(path, "rb");
  if (!f) { perror(path); exit(1); }
  bytes src = {0};
  char chunk[8192];
  size_t got;
  while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) collect(L, chunk, got, &src);
  fclose(f);
  if (luaL_loadbufferx(L, (const char *)src.data, src.len, chunkname, "t") != LUA_OK) {
    fprintf(stderr, "%s\n", lua_tostring(L, -1));
    exit(1);
  }
  bytes bc = {0};
  if (lua_dump(L, collect, &bc, 0) != 0 || !bc.data) { fprintf(stderr, "cannot dump %s\n", path); exit(1); }
  fprintf(o, "static const char %s[] = {", sym);
  for (size_t i = 0; i < bc.len; i++) fprintf(o, "%s%d,", (i % 24) ? "" : "\n", bc.data[i]);
  fprintf(o, "0};\n");
  free(src.data);
  free(bc.data);
  lua_close(L);
  return bc.len;
}

/* lua/cordon/cli/init.lua -> "cordon.cli"; lua/cordon/legacy.lua -> "cordon.legacy" */
static void module_name(const char *rel, char *out, size_t cap) {
  snprintf(out, cap, "%s", rel);
  size_t len = strlen(out);
  if (len > 4 && strcmp(out + len - 4, ".lua") == 0) out[len -= 4] = 0;
  if (len > 5 && strcmp(out + len - 5, "/init") == 0) out[len - 5] = 0;
  for (char *p = out; *p; p++) if (*p == '/') *p = '.';
}

static void emit_table(FILE *o, const char *root, const char *table, int lua_names) {
  list l = {0};
  walk(root, "", &l);
  qsort(l.names, l.n, sizeof *l.names, cmp);
  size_t *lens = calloc(l.n + 1, sizeof *lens), *bclens = calloc(l.n + 1, sizeof *bclens);
  for (size_t i = 0; i < l.n; i++) {
    if (lua_names && (strlen(l.names[i]) < 4 || strcmp(l.names[i] + strlen(l.names[i]) - 4, ".lua"))) continue;
    char full[8192], sym[64], name[4096];
    snprintf(full, sizeof full, "%s/%s", root, l.names[i]);
    snprintf(sym, sizeof sym, "%s_%zu", table, i);
    lens[i] = emit_bytes(o, full, sym) + 1;
    if (lua_names) {
      module_name(l.names[i], name, sizeof name);
      snprintf(sym, sizeof sym, "%s_bc_%zu", table, i);
      bclens[i] = emit_bytecode(o, full, name, sym);
    }
  }
  fprintf(o, "const cordon_embedded_file %s[] = {\n", table);
  for (size_t i = 0; i < l.n; i++) {
    if (!lens[i]) continue;
    char name[4096];
    if (lua_names) module_name(l.names[i], name, sizeof name);
    else snprintf(name, sizeof name, "%s", l.names[i]);
    if (lua_names)
      fprintf(o, "  {\"%s\", %s_%zu, %zu, %s_bc_%zu, %zu},\n", name, table, i, lens[i] - 1, table, i, bclens[i]);
    else
      fprintf(o, "  {\"%s\", %s_%zu, %zu, 0, 0},\n", name, table, i, lens[i] - 1);
  }
  fprintf(o, "  {0, 0, 0, 0, 0}\n};\n");
  /* luaopen_cordon_<sub>: what stock Lua's all-in-one loader looks for in cordon.so when a script
   * requires "cordon.<sub>" before (or without) "cordon" */
  for (size_t i = 0; lua_names && i < l.n; i++) {
    if (!lens[i]) continue;
    char name[4096], fn[4096];
    module_name(l.names[i], name, sizeof name);
    if (strcmp(name, "cordon") == 0 || strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_.") != strlen(name)) continue;
    snprintf(fn, sizeof fn, "%s", name);
    for (char *p = fn; *p; p++) if (*p == '.') *p = '_';
    fprintf(o, "int luaopen_%s(struct lua_State *L) { return cordon_lua_open_submodule(L, \"%s\"); }\n", fn, name);
  }
  for (size_t i = 0; i < l.n; i++) free(l.names[i]);
  free(lens);
  free(bclens);
  free(l.names);
}

int main(int argc, char **argv) {
  if (argc != 4) { fprintf(stderr, "usage: %s OUT.c LUA_DIR PROFILES_DIR\n", argv[0]); return 2; }
  FILE *o = fopen(argv[1], "w");
  if (!o) { perror(argv[1]); return 1; }
  fprintf(o, "/* generated by tools/embed.c — do not edit */\n#include \"lua/embedded.h\"\n");
  emit_table(o, argv[2], "cordon_embedded_lua", 1);
  emit_table(o, argv[3], "cordon_embedded_profiles", 0);
  return fclose(o) != 0;
}
