/* src/sbpl/eval_import.c — running a file's top-level forms, and (import "name"): search order, cycles, limits */
#include "sbpl/eval_internal.h"
#include "sbpl/reader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* --- sources and import ------------------------------------------------------------------------- */

/* A top-level call of a name nothing defines, such as a directive a newer macOS added: kept as a warning
 * (unknown-builtin) and skipped rather than failing the profile, since its value is not used. A call in
 * any other place still fails: its value would be guessed. */
static bool unknown_directive(ev *e, cordon_datum *form) {
  if (form->kind != CORDON_D_PAIR || form->u.pair.car->kind != CORDON_D_SYM) return false;
  cordon_symbol *s = form->u.pair.car->u.sym;
  if (s->global || s->special) return false;
  cordon_policy_diag(e->policy, CORDON_DIAG_WARNING, "unknown-builtin", ev_loc(e, &form->span),
                     "unknown built-in '%s' (skipped: this build does not know what it does)", s->name);
  return true;
}

void ev_run_forms(ev *e, const cordon_source *src, cordon_datum *forms) {
  const cordon_source *saved_src = e->src;
  cordon_datum *saved_site = e->site;
  cordon_datum *saved_form = e->form;
  unsigned saved_ctx = e->filter_ctx;
  e->src = src;
  for (cordon_datum *f = forms; f->kind == CORDON_D_PAIR; f = f->u.pair.cdr) {
    e->site = NULL;
    e->form = f->u.pair.car;
    e->filter_ctx = 0;
    if (unknown_directive(e, f->u.pair.car)) continue;
    ev_eval(e, f->u.pair.car, NULL);
  }
  e->src = saved_src;
  e->site = saved_site;
  e->form = saved_form;
  e->filter_ctx = saved_ctx;
}

cordon_datum *ev_read_source(ev *e, const cordon_source *src) {
  cordon_sbpl_read_error rerr;
  cordon_datum *forms = cordon_sbpl_read_all(e->a, e->syms, src, CORDON_SBPL_NEST_LIMIT, &rerr);
  if (!forms) {
    e->err->status = rerr.status;
    e->err->file = src->name;
    e->err->line = rerr.line;
    e->err->col = rerr.col;
    snprintf(e->err->message, sizeof e->err->message, "%s", rerr.message);
    longjmp(e->fail, 1);
  }
  return forms;
}

static bool is_regular(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static char *join_path(ev *e, const char *dir, size_t dlen, const char *name) {
  size_t n = strlen(name);
  char *p = ev_need(e, cordon_arena_alloc(e->a, dlen + n + 2));
  memcpy(p, dir, dlen);
  p[dlen] = '/';
  memcpy(p + dlen + 1, name, n + 1);
  return p;
}

cordon_datum *ev_import(ev *e, const char *name, cordon_datum *call) {
  if (e->opt.no_import) ev_fail(e, call, CORDON_SBPL_IMPORT, "import \"%s\": imports are disabled here", name);
  if (!*name) ev_fail(e, call, CORDON_SBPL_IMPORT, "import: empty file name");
  const char *found = NULL;
  if (name[0] == '/') {
    if (is_regular(name)) found = name;
  } else {
    for (size_t i = 0; !found && i < e->opt.nimport_dirs; i++) {
      const char *dir = e->opt.import_dirs[i];
      char *p = join_path(e, dir, strlen(dir), name);
      if (is_regular(p)) found = p;
    }
    if (!found) {
      const char *from = e->src && e->src->name ? e->src->name : "";
      const char *slash = strrchr(from, '/');
      char *p = slash ? join_path(e, from, (size_t)(slash - from), name) : join_path(e, ".", 1, name);
      if (is_regular(p)) found = p;
    }
  }
  if (!found) ev_fail(e, call, CORDON_SBPL_IMPORT, "import \"%s\": file not found (searched %zu --import-dir director%s, then the importing file's directory)",
                      name, e->opt.nimport_dirs, e->opt.nimport_dirs == 1 ? "y" : "ies");
  char *real = realpath(found, NULL);
  if (!real) ev_fail(e, call, CORDON_SBPL_IMPORT, "import \"%s\": %s", name, strerror(errno));
  char *rp = cordon_arena_strndup(e->a, real, strlen(real));
  free(real);
  ev_need(e, rp);
  for (unsigned i = 0; i < e->nimports; i++)
    if (!strcmp(e->imports[i], rp)) ev_fail(e, call, CORDON_SBPL_IMPORT, "import \"%s\": import cycle (%s is already being imported)", name, rp);
  if (e->nimports >= EVAL_MAX_IMPORTS) ev_fail(e, call, CORDON_SBPL_LIMIT, "import \"%s\": imports nested deeper than %d", name, EVAL_MAX_IMPORTS);

  /* O_NONBLOCK: a file swapped for a FIFO after the stat above must not hang the parse. */
  int fd = open(rp, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) ev_fail(e, call, CORDON_SBPL_IMPORT, "import \"%s\": %s", name, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > e->opt.size_limit) {
    close(fd);
    ev_fail(e, call, CORDON_SBPL_LIMIT, "import \"%s\": not a regular file or larger than %zu bytes", name, e->opt.size_limit);
  }
  size_t size = (size_t)st.st_size, got = 0;
  char *text = cordon_arena_alloc(e->a, size + 1);
  while (text && got < size) {
    ssize_t n = read(fd, text + got, size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += (size_t)n;
  }
  close(fd);
  ev_need(e, text);
  if (got != size) ev_fail(e, call, CORDON_SBPL_IMPORT, "import \"%s\": short read", name);

  cordon_source *src = ev_need(e, cordon_arena_alloc(e->a, sizeof *src));
  src->name = found;
  src->text = text;
  src->len = size;
  cordon_datum *forms = ev_read_source(e, src);
  e->imports[e->nimports++] = rp;
  ev_run_forms(e, src, forms);
  e->nimports--;
  return &cordon_datum_unspec;
}


void ev_note_toplevel(ev *e, const cordon_source *src) {
  /* The top-level text may itself be a file: importing it again is a cycle too. */
  char *real = src->name ? realpath(src->name, NULL) : NULL;
  if (!real) return;
  char *rp = cordon_arena_strndup(e->a, real, strlen(real));
  free(real);
  e->imports[e->nimports++] = ev_need(e, rp);
}
