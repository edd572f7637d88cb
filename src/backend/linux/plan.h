/* src/backend/linux/plan.h — the Linux sandbox plan: what the runtime applies before it execs */
#ifndef CORDON_LINUX_PLAN_H
#define CORDON_LINUX_PLAN_H
#include "core/buf.h"
#include "sbpl/ir.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Access classes. Each maps to a set of Landlock rights (docs/linux-backend.md, "Rights"). */
enum {
  CORDON_LX_READ = 1u << 0,   /* file-read-data     -> READ_FILE, READ_DIR */
  CORDON_LX_WRITE = 1u << 1,  /* file-write-data    -> WRITE_FILE, TRUNCATE, IOCTL_DEV */
  CORDON_LX_CREATE = 1u << 2, /* file-write-create  -> MAKE_REG/DIR/SYM/SOCK/FIFO, REFER (dirs) */
  CORDON_LX_REMOVE = 1u << 3, /* file-write-unlink  -> REMOVE_FILE, REMOVE_DIR, REFER (dirs) */
  CORDON_LX_EXEC = 1u << 4,   /* process-exec*      -> EXECUTE */
  CORDON_LX_LIST = 1u << 5,   /* the view's own rule: listing directories (READ_DIR) and nothing else */
};
#define CORDON_LX_ALL 0x1fu
#define CORDON_LX_MODIFY (CORDON_LX_WRITE | CORDON_LX_CREATE | CORDON_LX_REMOVE)

/* One Landlock path-beneath rule: `access` is allowed on `path` and, for a directory, everything
 * beneath it. */
typedef struct {
  char *path;
  unsigned access;  /* CORDON_LX_* */
  bool is_dir;
  char *source;     /* the rule or profile entry that asked for it: "file:line:col" or "profile: …" */
} cordon_lx_rule;

/* The view (docs/linux-sandbox.md, "The view"): what the run's file system is made of, applied by init
 * in this order (outer paths first) in a fresh tmpfs that becomes its root. Nothing is made on the host.
 * Directories on the way to a path are made empty; a host symlink on the way is copied (view.c reads it
 * when the run starts, so the view follows the host's links as they are then). */
typedef enum {
  CORDON_MOUNT_BIND = 0,   /* the host's `path`, bound recursively at the same place: read-only unless
                              `read_only` is false (a writable root); `no_exec` inside an executable tree */
  CORDON_MOUNT_HIDE,       /* inside a bound tree: an empty read-only tmpfs (directory) or /dev/null (file) */
  CORDON_MOUNT_TMPFS,      /* a fresh writable tmpfs (the run's /tmp and /dev/shm) */
  CORDON_MOUNT_VIEW,       /* a listing view of the host directory `path`: an empty stub of each entry (same
                              name and type, symlinks copied, sockets and devices left out) */
  CORDON_MOUNT_PROC,       /* the run's own procfs (its PID namespace) */
  CORDON_MOUNT_DEV,        /* the run's /dev: null zero full random urandom tty bound from the host, a new
                              devpts instance, ptmx and the fd links */
} cordon_mount_kind;
#define CORDON_MOUNT_KIND_LAST CORDON_MOUNT_DEV

typedef struct {
  cordon_mount_kind kind;
  char *path;
  bool is_dir;
  bool read_only, no_exec;  /* BIND only */
  char *source;       /* the rule that asked for it */
  char *reason;       /* one line for explain */
} cordon_mount;

/* A rule the gate decides with while the command runs (gate.h): one of the compiler's rules that names a
 * write class (write, create, remove) or connecting to a unix socket, in policy order, its filter's
 * parameters resolved. The gate evaluates them with the compiler's evaluator (eval.h) on the exact path
 * an operation names, so regexes and protected names at any depth are decided as SBPL would. */
#define CORDON_LX_NCLASSES 6  /* read, write, create, remove, exec, connect: eval.h's LX_CLASSES */
typedef struct {
  cordon_action action;
  unsigned char levels[CORDON_LX_NCLASSES]; /* bit L: the rule names level L of that class's chain */
  cordon_filter *filter;                     /* owned; NULL for a synthetic rule (path) or an unfiltered one */
  char *path;                                /* synthetic rule: literal or subpath on this path */
  bool subtree;
  char *source;
} cordon_lx_grule;

/* Resource limits (limits.h): 0 means none. */
typedef struct {
  unsigned long long memory;  /* bytes: the run's memory (a cgroup's memory.max, else RLIMIT_AS per process) */
  unsigned procs;             /* processes and threads of the run (pids.max, else RLIMIT_NPROC) */
  unsigned cpu;               /* CPU seconds per process (RLIMIT_CPU) */
} cordon_lx_limits;

/* Something the plan could not express exactly; it always errs toward less access. */
typedef struct {
  char *source;
  char *message;
} cordon_lx_note;

typedef struct {
  /* Landlock */
  unsigned min_abi;          /* required ABI (3 unless best effort) */
  bool best_effort;          /* run with whatever ABI the kernel has (>= 1), reporting what is missing */
  bool fs_unrestricted;      /* no filesystem rules at all (an unrestricted profile) */
  cordon_lx_rule *rules;
  size_t nrules, rules_cap;
  /* mount namespace, in the order the runtime applies them (outer paths first) */
  cordon_mount *mounts;
  size_t nmounts, mounts_cap;
  /* network */
  bool network_restricted;   /* seccomp: only AF_UNIX sockets, no io_uring; Landlock TCP (ABI >= 4) */
  bool scope_signals;        /* Landlock: no signals to processes outside the sandbox (ABI >= 6) */
  bool scope_abstract_unix;  /* Landlock: no connecting to abstract unix sockets outside (ABI >= 6) */
  bool shared_tmp;          /* --shared-tmp: the host's /tmp and /dev/shm instead of the run's own */
  /* the gate (gate.h): rules for writes and unix connects, and the git config keys a config written
   * inside may add or change ("core.bare", "remote.*.url": '*' stands for one dotted part) */
  cordon_lx_grule *grules;
  size_t ngrules, grules_cap;
  char *gate_raw;            /* a run cache entry's undecoded gate part (runcache_format.c), or NULL */
  size_t gate_raw_len;
  char **git_safe_keys;
  size_t ngit_safe_keys;
  char **gate_names;         /* the gate's nested rules' names ("runner:ID:literal:REL", …; gate/nested.c) */
  size_t ngate_names;
  cordon_lx_limits limits;
  int *pass_fds;             /* descriptors above 2 the command keeps (--pass-fd); the rest are closed */
  size_t npass_fds;
  /* what could not be expressed exactly, and paths skipped because they do not exist */
  cordon_lx_note *notes;
  size_t nnotes, notes_cap;
  cordon_lx_note *skipped;   /* source + path */
  size_t nskipped, skipped_cap;
  /* what the compiler saw on disk (cordon_lx_plan_stat), kept when `record` is set: a cached plan is
   * valid only while every observation still holds (cache.c) */
  bool record;
  char **obs_paths;
  char *obs_kinds;
  size_t nobs, obs_cap;
  /* the two seccomp programs libseccomp built for this plan on this machine, kernel and libseccomp,
   * when a run cache hit supplies them (seccomp.h): one allocation, the base program's
   * seccomp_base_len bytes then the gate program's seccomp_gate_len; NULL: build them */
  unsigned char *seccomp_bpf;
  size_t seccomp_base_len, seccomp_gate_len;
} cordon_lx_plan;

cordon_lx_plan *cordon_lx_plan_new(void);
void cordon_lx_plan_free(cordon_lx_plan *p);

/* Appenders copy their strings; false when out of memory. */
bool cordon_lx_plan_add_rule(cordon_lx_plan *p, const char *path, unsigned access, bool is_dir, const char *source);
bool cordon_lx_plan_add_mount(cordon_lx_plan *p, const cordon_mount *m);
bool cordon_lx_plan_note(cordon_lx_plan *p, const char *source, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
bool cordon_lx_plan_skip(cordon_lx_plan *p, const char *source, const char *path);
/* Appends a gate rule; `filter` (may be NULL) is deep-copied with every parameter argument replaced by
 * its value from `params` (name, value pairs), so the plan stands alone. False when out of memory or a
 * parameter is unknown. */
bool cordon_lx_plan_add_grule(cordon_lx_plan *p, cordon_action action, const unsigned char levels[CORDON_LX_NCLASSES],
                              const cordon_filter *filter, const char *path, bool subtree, const char *source,
                              const char *const *params, size_t nparams);
bool cordon_lx_plan_add_git_safe_key(cordon_lx_plan *p, const char *key);
bool cordon_lx_plan_add_gate_name(cordon_lx_plan *p, const char *name);
/* explain's lines for the gate: what it decides, and every deny among its rules. */
void cordon_lx_plan_describe_gate(const cordon_lx_plan *p, cordon_buf *out);
/* The gate's part as JSON ({rules, git_safe_keys}; a json_t *), and back into `p`: false when malformed.
 * The reading side also takes the compact form the plan cache writes: a string of hex digits holding
 * cordon_lx_plan_gate_encode's bytes. */
void *cordon_lx_plan_gate_to_jsonv(const cordon_lx_plan *p);
bool cordon_lx_plan_gate_from_jsonv(cordon_lx_plan *p, const void *json);
/* The compact form as a JSON string (a json_t *), for the plan cache; NULL when out of memory. */
void *cordon_lx_plan_gate_to_hexv(const cordon_lx_plan *p);
/* The gate's part in the run cache's binary form (runcache_format.c), appended to `out`: what the plan
 * cache keeps too (as hex), because its JSON form is five times larger and slower to read. */
void cordon_lx_plan_gate_encode(const cordon_lx_plan *p, cordon_buf *out);
/* The same, taking `filter` (resolved already), `path` and `source` as they are (freed on failure). */
bool cordon_lx_plan_take_grule(cordon_lx_plan *p, cordon_action action, const unsigned char levels[CORDON_LX_NCLASSES],
                               cordon_filter *filter, char *path, bool subtree, char *source);
/* Decodes a run cache entry's gate part into grules and git_safe_keys (runcache_format.c); true when
 * there was none. All or nothing: on failure the plan keeps its raw part, which the gate then refuses
 * to run with (cordon_lx_gate_new). A hit decodes it on the Landlock helper's CPU (landlock_ahead.c). */
bool cordon_lx_plan_gate_decode(cordon_lx_plan *p);
/* Whether the plan has a gate at all (rules decoded or not). */
static inline bool cordon_lx_plan_has_gate(const cordon_lx_plan *p) { return p->ngrules || p->gate_raw; }
/* What the gate's rules allow at `path` itself, or (interior) beneath it where no rule names a path:
 * *classes gets the write classes allowed (CORDON_LX_WRITE, _CREATE, _REMOVE), *connect (when given)
 * whether connecting to a unix socket there is allowed by the policy. False when out of memory. */
bool cordon_lx_plan_gate_decide(const cordon_lx_plan *p, const char *path, bool interior, unsigned *classes,
                                bool *connect);
/* Whether the gate's rules refuse every write, creation and removal at `dir` and everywhere beneath it. */
bool cordon_lx_plan_gate_protects(const cordon_lx_plan *p, const char *dir);
/* Frees the gate's part (plan_gate.c); cordon_lx_plan_free calls it. */
void cordon_lx_plan_free_gate(cordon_lx_plan *p);

/* Rewrites sources of the form "<text_name>:LINE:COL" (rules parsed from one assembled text) into
 * "<fragment>:LINE:COL": section i of the text starts at names[i]'s ";; Source:" line, lines[i]. */
bool cordon_lx_plan_map_sources(cordon_lx_plan *p, const char *text_name, const char *const *names,
                                const unsigned *lines, size_t n);

/* stat (follow) or lstat (!follow) `path`, recording what was seen when p->record is set. Returns like
 * stat. */
struct stat;
int cordon_lx_plan_stat(cordon_lx_plan *p, const char *path, bool follow, struct stat *st);
/* Appends an observation (path copied) when p->record is set; out of memory clears p->record. */
bool cordon_lx_plan_observe(cordon_lx_plan *p, const char *path, char kind);
/* The kind letter an observation records: d f s - e (followed), D F S L _ E (not followed). */
char cordon_lx_stat_kind(int rc, int err, const struct stat *st, bool follow);

/* "read,write,create,remove,exec" for a class set ("none" when empty). Writes into `out`. */
void cordon_lx_access_names(unsigned access, cordon_buf *out);
const char *cordon_mount_kind_name(cordon_mount_kind k);  /* "bind", "hide", "tmpfs" */

/* The plan as readable lines for explain: every Landlock rule, mount, the seccomp and scoping summary,
 * every approximation and skipped path. */
void cordon_lx_plan_describe(const cordon_lx_plan *p, cordon_buf *out);
/* The plan as a JSON object (docs/linux-backend.md, "The plan"). NULL when out of memory. Caller frees. */
char *cordon_lx_plan_to_json(const cordon_lx_plan *p);
/* The same as a jansson value (json_t *), for the cache; NULL when out of memory. */
void *cordon_lx_plan_to_jsonv(const cordon_lx_plan *p);
/* The inverse, for the cache: NULL when `json` (a json_t *) is not a well-formed plan. */
cordon_lx_plan *cordon_lx_plan_from_jsonv(const void *json);
#endif
