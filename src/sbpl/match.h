/* src/sbpl/match.h — does one filter tree match one query target? */
#ifndef CORDON_SBPL_MATCH_H
#define CORDON_SBPL_MATCH_H
#include <stdbool.h>
#include <stddef.h>

#include "sbpl/ir.h"

typedef enum { CORDON_TRI_NO = 0, CORDON_TRI_YES = 1, CORDON_TRI_UNKNOWN = 2 } cordon_tri;

typedef enum {
  CORDON_TARGET_PATH = 0, /* "/abs/path": file operations, and unix sockets for network ones */
  CORDON_TARGET_NAME,     /* mach service, sysctl name, iokit class, preference domain, … */
  CORDON_TARGET_NETWORK,  /* [local:|remote:][PROTO:]HOST:PORT, see cordon_target_parse */
} cordon_target_kind;

/* A parsed query target. Network targets: "remote:tcp:localhost:443", "local:udp:*:53",
 * "tcp:example.com:443", "localhost:8080" (direction from the operation: local for network-bind and
 * network-inbound, remote otherwise; protocol tcp), "remote:unix:/private/var/run/x.sock". */
typedef struct {
  cordon_target_kind kind;
  const char *text;     /* the whole target as given (path or name) */
  size_t len;
  /* network only; strings point into `storage` */
  bool local;           /* local (bind/inbound) or remote (outbound) end */
  char proto[16];       /* "tcp", "udp", "ip", "unix" (with any 4/6 suffix kept) */
  const char *host;     /* "localhost", "*", "127.0.0.1", "example.com"; for unix: the socket path */
  const char *port;     /* decimal digits or "*"; NULL for unix sockets */
  char storage[512];
} cordon_target;

/* One extra fact a query states: { "vnode-type", "REGULAR-FILE" }, { "extension", "com.apple.x" },
 * { "xattr", "com.apple.quarantine" }. A fact name may repeat (several extensions). */
typedef struct {
  const char *name, *value;
} cordon_fact;

typedef struct {
  const cordon_fact *facts;
  size_t nfacts;
  /* -D parameters for builder rules whose arguments name a parameter ({param = "HOME_DIR"}) */
  const char *const *params; /* key, value, key, value, … */
  size_t nparams;            /* number of pairs */
  /* out: the first fact a filter needed and the query did not give ("vnode-type", …); for an undefined
   * -D parameter, its name, with missing_is_param set */
  const char *missing;
  bool missing_is_param;
  char missing_name[96];     /* where `missing` points for a fact name (valid while the ctx lives) */
  /* out: a filter this build does not know (CORDON_F_OTHER) answered UNKNOWN: the caller decides soundly,
   * taking it as matching in a deny and as not matching in an allow */
  bool unknown_filter;
} cordon_match_ctx;

/* Parses `text` for operation `op` (canonical; decides network vs path vs name). Returns false with a
 * message in `err` (size `errcap`) when a network target is malformed. */
bool cordon_target_parse(const char *op, const char *text, cordon_target *t, char *err, size_t errcap);

/* Matches filter `f` (and its children) against `t`. Compiles regexes on first use and caches them in
 * f->compiled, so `f` is modified; callers must not share one filter between threads while matching. */
cordon_tri cordon_filter_match(cordon_filter *f, const cordon_target *t, cordon_match_ctx *ctx);

/* True for a name filter that compares with the target string itself (global-name, sysctl-name, …)
 * rather than with a fact the query states (xattr, file-mode, …). */
bool cordon_filter_names_target(const cordon_filter *f);

/* Translates an SBPL regex into POSIX ERE (\w \d \s and their negations become bracket classes, other
 * escapes of punctuation lose the backslash where ERE would not accept them). Returns a malloc'd
 * string, or NULL on allocation failure. */
char *cordon_regex_translate(const char *sbpl);

/* Compiles `sbpl` once into `f->compiled`; false (with a message in err) when POSIX rejects it. Used by
 * the linter to report bad regexes at their source. */
bool cordon_filter_compile_regex(cordon_filter *f, const char *sbpl, char *err, size_t errcap);
#endif
