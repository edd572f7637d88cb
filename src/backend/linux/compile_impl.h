/* src/backend/linux/compile_impl.h — state shared by the compiler's files (compile.c, walk.c). */
#ifndef CORDON_LINUX_COMPILE_IMPL_H
#define CORDON_LINUX_COMPILE_IMPL_H
#include "backend/linux/eval.h"
#include "backend/linux/linux.h"
#include "core/path.h"

typedef struct {
  char *path;          /* normalized absolute path (owned) */
  const char *source;  /* the first rule naming it (owned by the rule set) */
} lx_node;

typedef struct {
  const cordon_lx_input *in;
  cordon_lx_plan *plan;
  lx_rules rules;
  lx_node *nodes;
  size_t nnodes, nodes_cap;
  size_t dir_literals;             /* directories granted only by literal rules (one grouped note) */
  const char *dir_literal_example;
  char git_memo_dir[CORDON_PATH_MAX];  /* the last directory asked whether it is in a git work tree (walk.c) */
  bool git_memo_inside;
} lx_compiler;

/* Turns cc->nodes and cc->rules into cc->plan's Landlock rules and mounts (walk.c). */
bool lx_walk(lx_compiler *cc);
#endif
