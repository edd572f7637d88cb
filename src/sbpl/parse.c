/* src/sbpl/parse.c — cordon_sbpl_parse: text → policy IR, with one located error on failure. */
#include "sbpl/parse.h"

#include "core/buf.h"
#include "sbpl/eval.h"

#include <stdlib.h>
#include <string.h>

static cordon_sbpl_status fail(cordon_sbpl_error *err, cordon_sbpl_status st, const char *file, unsigned line,
                               unsigned col, const char *message) {
  if (!err) return st;
  memset(err, 0, sizeof *err);
  err->status = st;
  err->line = line;
  err->col = col;
  err->file = file ? strdup(file) : NULL;
  err->message = strdup(message);
  cordon_buf b = CORDON_BUF_INIT;
  if (file) cordon_buf_printf(&b, "%s:%u:%u: ", file, line, col);
  cordon_buf_puts(&b, message);
  err->text = cordon_buf_take(&b);
  return st;
}

cordon_sbpl_status cordon_sbpl_parse(const char *text, size_t len, const char *name,
                                     const cordon_sbpl_param *params, const cordon_sbpl_options *options,
                                     cordon_policy **out, cordon_sbpl_error *err) {
  *out = NULL;
  if (err) memset(err, 0, sizeof *err);
  if (!name) name = "<input>";
  cordon_sbpl_options opt = options ? *options : (cordon_sbpl_options){0};
  size_t size_limit = opt.size_limit ? opt.size_limit : CORDON_SBPL_DEFAULT_SIZE;
  if (len > size_limit) return fail(err, CORDON_SBPL_LIMIT, name, 1, 1, "input larger than the size limit");
  if (!text && len) return fail(err, CORDON_SBPL_SYNTAX, name, 1, 1, "no text");

  cordon_arena *arena = cordon_arena_new(opt.memory_limit ? opt.memory_limit : CORDON_SBPL_DEFAULT_MEMORY);
  cordon_policy *policy = cordon_policy_new();
  if (!arena || !policy) {
    cordon_arena_free(arena);
    cordon_policy_free(policy);
    return fail(err, CORDON_SBPL_NOMEM, NULL, 0, 0, "out of memory");
  }
  cordon_source src = {name, text ? text : "", len};
  cordon_sbpl_eval_error eerr;
  cordon_sbpl_status st = cordon_sbpl_eval(arena, &src, params, &opt, policy, &eerr);
  if (st != CORDON_SBPL_OK) {
    /* eerr.file points into the arena: copy before freeing it. */
    fail(err, st, eerr.file, eerr.line, eerr.col, eerr.message);
    cordon_arena_free(arena);
    cordon_policy_free(policy);
    return st;
  }
  cordon_arena_free(arena);
  *out = policy;
  return CORDON_SBPL_OK;
}

void cordon_sbpl_error_clear(cordon_sbpl_error *err) {
  if (!err) return;
  free(err->file);
  free(err->message);
  free(err->text);
  memset(err, 0, sizeof *err);
}

const char *cordon_sbpl_status_name(cordon_sbpl_status s) {
  switch (s) {
  case CORDON_SBPL_OK: return "ok";
  case CORDON_SBPL_SYNTAX: return "syntax";
  case CORDON_SBPL_EVAL: return "eval";
  case CORDON_SBPL_IMPORT: return "import";
  case CORDON_SBPL_LIMIT: return "limit";
  case CORDON_SBPL_NOMEM: return "nomem";
  }
  return "unknown";
}
