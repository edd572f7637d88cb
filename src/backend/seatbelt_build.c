/* src/backend/seatbelt_build.c — the IR builders the Seatbelt backend writes its rules with */
#include "backend/seatbelt_build.h"

#include <stdlib.h>
#include <string.h>

cordon_filter *sb_path(sb_builder *b, const char *name, const char *text, bool param) {
  cordon_filter *f = cordon_filter_path(name, text, param);
  if (!f) b->oom = true;
  return f;
}

cordon_filter *sb_net(sb_builder *b, const char *side, const char *proto, const char *address) {
  cordon_filter *f = cordon_filter_new(CORDON_F_NETWORK, side, CORDON_MATCH_NONE);
  if (f && (!cordon_filter_add_arg(f, proto, false) || (address && !cordon_filter_add_arg(f, address, false)))) {
    cordon_filter_free(f);
    f = NULL;
  }
  if (!f) b->oom = true;
  return f;
}

cordon_filter *sb_group(sb_builder *b, cordon_filter_kind kind, size_t n, cordon_filter **children) {
  const char *name = kind == CORDON_F_ALL ? "require-all" : kind == CORDON_F_ANY ? "require-any" : "require-not";
  cordon_filter *g = cordon_filter_new(kind, name, CORDON_MATCH_NONE);
  size_t i = 0;
  for (; g && i < n; i++) {
    if (children[i] && !cordon_filter_add_child(g, children[i])) {  /* add_child frees on failure */
      cordon_filter_free(g);
      g = NULL;
      i++;
      break;
    }
  }
  for (; i < n; i++) cordon_filter_free(children[i]);
  if (!g) b->oom = true;
  return g;
}

cordon_filter *sb_not(sb_builder *b, cordon_filter *child) { return sb_group(b, CORDON_F_NOT, 1, &child); }

cordon_rule *sb_rule(sb_builder *b, cordon_action action, const char *ops, cordon_filter *filter, const char *comment) {
  cordon_loc loc = {cordon_policy_intern(b->policy, "<seatbelt>"), 0, 0};
  cordon_rule *r = b->oom || !loc.file ? NULL : cordon_policy_add_rule(b->policy, action, loc);
  if (!r) {
    b->oom = true;
    cordon_filter_free(filter);
    return NULL;
  }
  r->loc.line = (unsigned)b->policy->nrules;  /* the rule's position: explanations can point at it */
  r->filter = filter;
  if (comment && !(r->comment = strdup(comment))) b->oom = true;
  char op[64];
  for (const char *p = ops; *p;) {
    size_t n = strcspn(p, " ");
    if (n && n < sizeof op) {
      memcpy(op, p, n);
      op[n] = 0;
      if (!cordon_rule_add_op(r, op)) b->oom = true;
    }
    p += n;
    while (*p == ' ') p++;
  }
  return b->oom ? NULL : r;
}
