/* src/core/gitconfig.h — git config files as git 2.39 reads them, and which changes to one are safe */
#ifndef CORDON_GITCONFIG_H
#define CORDON_GITCONFIG_H
#include <stdbool.h>
#include <stddef.h>

typedef struct {
  char *section;     /* lowercased */
  char *subsection;  /* as written (lowercased in the old [a.b] form); NULL when there is none */
  char *key;         /* lowercased */
  char *value;       /* NULL for a key without '=' (git reads it as true) */
  unsigned line;
} cordon_gitconfig_entry;

typedef struct {
  cordon_gitconfig_entry *items;
  size_t count, cap;
} cordon_gitconfig;

/* Parses `n` bytes of `text` into `out` (which must start zeroed). False on a parse error, with
 * "line N: what" in `err` (size `errcap`), or when memory runs out ("out of memory"); `out` then holds
 * what was read before it and must still be freed. */
bool cordon_gitconfig_parse(const char *text, size_t n, cordon_gitconfig *out, char *err, size_t errcap);
void cordon_gitconfig_free(cordon_gitconfig *c);

/* Whether `e` is named by `pattern`: "section.key" (no subsection), "section.*.key" ('*': any one
 * subsection) or "section.sub.key". Sections and keys compare case-insensitively, subsections exactly. */
bool cordon_gitconfig_key_matches(const cordon_gitconfig_entry *e, const char *pattern);

/* Whether every entry `after` adds or changes relative to `before` is named by one of `safe` (patterns
 * as above). For each name (section, subsection, key) not named by `safe`, the values `after` holds must
 * be `before`'s values in the same order with some possibly left out: removing is allowed, adding,
 * changing and reordering (which changes the value git uses, the last one) are not. On false, *bad
 * (when given) is the first entry of `after` that is not allowed. */
bool cordon_gitconfig_changes_safe(const cordon_gitconfig *before, const cordon_gitconfig *after,
                                   const char *const *safe, size_t nsafe, const cordon_gitconfig_entry **bad);
#endif
