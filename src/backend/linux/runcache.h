/* src/backend/linux/runcache.h — whole `cordon run` decisions, cached (docs/linux-backend.md, "The run cache") */
#ifndef CORDON_LINUX_RUNCACHE_H
#define CORDON_LINUX_RUNCACHE_H
#include "backend/linux/plan.h"
#include "core/buf.h"

#include <stdbool.h>
#include <stddef.h>

#define CORDON_RUNCACHE_FORMAT 5  /* 5: the gate part carries gate_names */
#define CORDON_RUNCACHE_MAX_BYTES (4u << 20)
#define CORDON_RUNCACHE_MAX_FILES 64

/* The exact text of every input of a run other than the file system: the binary's identity
 * (/proc/self/exe), uids, gids and groups, the Landlock ABI, cwd (path and inode), the full argv and
 * the environment's names (its values are checked against the entry: runcache.c). False when something
 * cannot be known (then there is no cache). */
bool cordon_lx_runcache_key(int argc, char *const *argv, char *const *envp, cordon_buf *out);

/* $XDG_CACHE_HOME/cordon when absolute, else $HOME/.cache/cordon when $HOME is absolute (what the plan
 * cache uses when the Lua half resolves home from $HOME); the entries live in its "linux-runs". */
bool cordon_lx_runcache_root(char *out, size_t cap);

typedef struct {
  char *key;
  char *calls;       /* one cordon_rec_call letter per record */
  char **args, **digests;
  size_t nrecords;
  char **obs_paths;  /* the compiler's stats: path + kind letter (cordon_lx_stat_kind) */
  char *obs_kinds;
  size_t nobs;
  char **environ;    /* cordon's environment when stored: "NAME=value", or NULL where only the name counts */
  size_t nenviron;
  char **argv, **env;  /* NULL-terminated */
  char *cwd;
  cordon_lx_plan *plan;
  /* The plan's two seccomp programs (seccomp.h: the base's seccomp_base_len bytes, then the gate's) and
   * what they are valid for (cordon_lx_seccomp_kernel), or NULL. A parsed entry owns them and, when they
   * are valid here, also gives plan->seccomp_bpf a copy. */
  char *seccomp_valid_for;
  char *seccomp_bpf;
  size_t seccomp_base_len, seccomp_gate_len;
} cordon_lx_run_entry;

void cordon_lx_run_entry_free(cordon_lx_run_entry *e);

/* Appends the entry's bytes (runcache_format.c) to `out`. */
void cordon_lx_runcache_encode(const cordon_lx_run_entry *e, cordon_buf *out);
/* Parses an entry's bytes (untrusted: every length and type is checked). False, with `why` set to a
 * static reason, when it is not a well-formed entry for exactly `key`. */
bool cordon_lx_runcache_parse(const char *data, size_t n, const char *key, cordon_lx_run_entry *out,
                              const char **why);
/* Replays every recorded observation and compiler stat, and checks every descriptor the plan passes
 * (--pass-fd) is still open and inheritable; false (with `why`) at the first that differs. */
bool cordon_lx_runcache_holds(const cordon_lx_run_entry *e, const char **why);

/* Finds, reads (O_NOFOLLOW, owned by the caller, writable by nobody else, bounded) and parses the entry
 * for `key`. False with `why` on any doubt. Its plan may not be used before cordon_lx_runcache_accept. */
bool cordon_lx_runcache_read(const char *key, cordon_lx_run_entry *out, const char **why);
/* Checks that the entry read still holds (cordon_lx_runcache_holds) and refreshes its mtime; otherwise
 * says why (the entry stays the caller's to free). */
bool cordon_lx_runcache_accept(const char *key, const cordon_lx_run_entry *e, const char **why);

/* Writes the entry for the armed recorder's run, if the run is cacheable (recorder not tainted, plan
 * observations complete, the plan denies the sandbox writing the cache). Never fails the run. `why`
 * says what happened ("stored" or why not). The seccomp program it builds for the entry stays on the
 * plan (plan->seccomp_bpf), so the run that follows loads it instead of building it a second time. */
void cordon_lx_runcache_store(cordon_lx_plan *plan, const char *const *argv, const char *const *env,
                              const char *cwd, const char **why);

/* The plan cache's file (cache.c), in the same binary form as an entry's plan (runcache_format.c): the
 * key, the plan's observations, the plan with its approximations and skipped paths, and the seccomp
 * program the command loads when the plan carries it (cordon_lx_seccomp_stored). */
#define CORDON_PLANCACHE_FORMAT 1
void cordon_lx_plancache_encode(const char *key, const cordon_lx_plan *p, cordon_buf *out);
/* The plan stored under exactly `key` (observations recorded, gate decoded, the stored seccomp program
 * kept only when it was built for this machine, kernel and libseccomp), or NULL when the bytes are not
 * a well-formed plan file for `key`. The observations still have to be replayed. */
cordon_lx_plan *cordon_lx_plancache_parse(const char *data, size_t n, const char *key);

/* Keeps `dir` to at most `max` entries, least recently used (mtime) first out; stray temporary files
 * older than a minute go too. Shared with the plan cache. */
void cordon_lx_cache_evict(const char *dir, size_t max);
#endif
