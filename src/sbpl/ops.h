/* src/sbpl/ops.h — the Seatbelt operation table: names, aliases, the fallback hierarchy, what (deny default) misses */
#ifndef CORDON_SBPL_OPS_H
#define CORDON_SBPL_OPS_H
#include <stdbool.h>

/* The canonical spelling of `name` with aliases expanded ("process-exec" -> "process-exec*",
 * "file-unlink" -> "file-write-unlink"), or NULL when the operation is unknown. The returned string is
 * static. */
const char *cordon_sbpl_op_canonical(const char *name);

/* The next operation in the fallback chain: "file-read-data" -> "file-read*" -> "file*" -> "default";
 * NULL for "default" and for unknown names. */
const char *cordon_sbpl_op_parent(const char *canonical);

/* False for the operations that an unfiltered (deny default) does not reach (process-info*,
 * file-map-executable, iokit-get-properties, nvram*, …): their fallback stops before "default" and they
 * are allowed unless a rule names them. */
bool cordon_sbpl_op_default_covers(const char *canonical);

/* True when `canonical` is a wildcard ("file*", "file-read*", …, or "default", which holds every
 * operation) and `op` is that wildcard itself or lies under it. */
bool cordon_sbpl_op_within(const char *op, const char *canonical);

/* True for a rule modifier Seatbelt knows ("report", "no-log", "send-signal", …, and the deprecated
 * ones the prelude still accepts, such as "no-callout"). */
bool cordon_sbpl_modifier_known(const char *name);

/* Iterates all known canonical names: for (i = 0; (n = cordon_sbpl_op_at(i)); i++). */
const char *cordon_sbpl_op_at(unsigned i);

/* Index-based access for hot paths (decisions index rules by operation once): the position of the
 * canonical name `name` in the table (the same numbering as cordon_sbpl_op_at), or -1 when it is not a
 * canonical name (aliases are not resolved here); the parent's index, -1 for "default". */
int cordon_sbpl_op_index(const char *name);
int cordon_sbpl_op_parent_index(int index);
unsigned cordon_sbpl_op_count(void);
/* cordon_sbpl_op_default_covers by index (false for -1). */
bool cordon_sbpl_op_default_covers_index(int index);
#endif
