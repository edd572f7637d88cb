/* src/backend/seatbelt_build.h — small IR builders shared by the Seatbelt backend's files (internal) */
#ifndef CORDON_SEATBELT_BUILD_H
#define CORDON_SEATBELT_BUILD_H
#include "sbpl/ir.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct {
  cordon_policy *policy;
  bool oom;
} sb_builder;

/* A PATH filter ("literal", "subpath", "regex") on a string or, with `param`, a -D parameter name. */
cordon_filter *sb_path(sb_builder *b, const char *name, const char *text, bool param);
/* A NETWORK filter: (remote|local PROTO "ADDRESS"); `address` may be NULL. */
cordon_filter *sb_net(sb_builder *b, const char *side, const char *proto, const char *address);
/* A group (CORDON_F_ALL / _ANY / _NOT) over `n` children, which it takes (NULL children are skipped). */
cordon_filter *sb_group(sb_builder *b, cordon_filter_kind kind, size_t n, cordon_filter **children);
/* require-not of one child. */
cordon_filter *sb_not(sb_builder *b, cordon_filter *child);
/* Appends a rule: `ops` space-separated canonical names, `filter` taken (NULL = unfiltered), `comment`
 * the ";; why" line (copied; may be NULL). Returns NULL (and frees `filter`) on failure. */
cordon_rule *sb_rule(sb_builder *b, cordon_action action, const char *ops, cordon_filter *filter, const char *comment);
#endif
