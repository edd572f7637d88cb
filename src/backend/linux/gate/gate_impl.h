/* src/backend/linux/gate/gate_impl.h — the gate's parts, private to src/backend/linux/gate/ */
#ifndef CORDON_LINUX_GATE_IMPL_H
#define CORDON_LINUX_GATE_IMPL_H
#include "backend/linux/eval.h"
#include "backend/linux/gate.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#define GATE_PATH_MAX 4096   /* PATH_MAX: the kernel's longest path argument, NUL included */
#define GATE_MAX_LINKS 40    /* symlinks followed per resolution, as the kernel's MAXSYMLINKS */
#define GATE_FD_RESULT (-100000)  /* a handler's result: install c->result_fd in the caller */
#define GATE_DEFERRED (-100001)   /* a handler's result: a worker owns the call and answers it */

typedef struct gate_pool gate_pool;   /* workers.c */
typedef struct gate_report gate_report; /* decide.c */
typedef struct gate_bound gate_bound; /* op_socket.c */
typedef struct gate_nested gate_nested; /* nested.c */
typedef struct gate_made gate_made;   /* made.c */
typedef struct gate_identity gate_identity; /* identity.c */

struct cordon_lx_gate {
  cordon_lx_plan *own;       /* a copy of the plan's gate rules, which `rules` borrows filters from */
  lx_rules rules;
  char **safe_keys;          /* plan->git_safe_keys, copied */
  size_t nsafe_keys;
  int listener;              /* -1 until attached */
  int msg_fd;
  int root_fd;               /* O_PATH "/" */
  int cwd_fd;                /* O_PATH of init's own cwd, restored after a bind to a relative path */
  unsigned tmp_counter;      /* names of the gate's own temporary files (git_replace.c) */
  int proc_fd;               /* O_PATH "/proc", the run's procfs */
  int self_fd;               /* O_PATH "/proc/self/fd": reopening what was resolved */
  size_t notif_size, resp_size;  /* SECCOMP_GET_NOTIF_SIZES */
  void *notif;                   /* the main thread's receive buffer */
  bool fast_resolve;         /* openat2 exists: the directory part resolves in one call */
  bool hup;                  /* no process is left that could notify */
  gate_report *report;
  gate_bound *bound;
  gate_pool *pool;
  gate_nested *nested;       /* plan->gate_names, parsed */
  gate_made *made;           /* directories made and paths vacated by this run */
  gate_identity *identity;   /* protected files that have other names (hard links) */
};

/* One notification, while it is served. */
typedef struct {
  cordon_lx_gate *g;
  uint64_t id;
  pid_t pid;                 /* the calling thread, in init's PID namespace */
  pid_t tgid;                /* its process; 0 until caller_status */
  int umask;                 /* -1 until caller_status */
  int nr;
  uint64_t args[6];
  int pidfd;                 /* -1 until caller_pidfd */
  bool pidfd_of_process;     /* the pidfd is the caller's process's, not its thread's (before Linux 6.9) */
  bool pid_used;             /* something was looked up by pid since the last validity check */
  int result_fd;             /* with GATE_FD_RESULT: the descriptor to install (owned) */
  bool result_cloexec;
} gate_call;

/* --- gate.c ---------------------------------------------------------------------------------------- */
/* Whether the notification is still pending (SECCOMP_IOCTL_NOTIF_ID_VALID): the caller has not died or
 * been interrupted, so every pid-based lookup made before this reached it and not a recycled pid.
 * Thread-safe. */
bool gate_id_valid(const cordon_lx_gate *g, uint64_t id);
/* Answers a notification: `err` 0 with `val`, else the error. Thread-safe. */
void gate_answer(const cordon_lx_gate *g, uint64_t id, long val, int err);
/* Installs `fd` in the caller and answers with its number (SECCOMP_ADDFD_FLAG_SEND); closes `fd`.
 * Thread-safe. */
void gate_answer_fd(const cordon_lx_gate *g, uint64_t id, int fd, bool cloexec);

/* --- syscalls.c ------------------------------------------------------------------------------------ */
/* Serves one native notification: the handler's result (>= 0, -errno, GATE_FD_RESULT, GATE_DEFERRED). */
long gate_dispatch(gate_call *c);

/* What a name is to git's layout rules (git.c). */
typedef enum {
  GIT_PLAIN = 0,   /* no git rule names it */
  GIT_CONFIG,      /* config or config.worktree in a git directory */
  GIT_SEQUENCER_LIST,        /* rebase-merge/git-rebase-todo or sequencer/todo in a git directory */
  GIT_SEQUENCER_OPTS,        /* rebase-merge/strategy, strategy_opts or sequencer/opts: they name a merge program */
  GIT_INDEX,       /* index in a git directory: the host's checkout writes what it stages */
  GIT_HOOK,        /* a name in a git directory's hooks/ that does not end in .sample */
  GIT_HOOKS_DIR,   /* the name hooks in a git directory */
  GIT_PIECE,       /* objects, refs, HEAD or commondir in a directory that is not a git directory */
  GIT_GITDIR,      /* a piece in a git directory, or the name .git: a directory moved there is checked whole */
} git_kind;

/* --- caller.c ----------------------------------------------------------------------------------------- */
/* Copies a NUL-terminated string (a path) of at most GATE_PATH_MAX bytes from the caller: 0, -EFAULT
 * (unreadable, NULL, or ends unterminated at an unreadable page), -ENAMETOOLONG (no NUL in PATH_MAX). */
int caller_string(gate_call *c, uint64_t addr, char out[GATE_PATH_MAX]);
/* Copies `n` bytes from the caller: 0 or -EFAULT. */
int caller_bytes(gate_call *c, uint64_t addr, void *out, size_t n);
/* The pidfd of the calling thread (owned by the call); -errno. */
int caller_pidfd(gate_call *c);
/* A duplicate of the caller's descriptor `fd` (the same open file description); -errno (EBADF...). */
int caller_fd(gate_call *c, int fd);
/* An O_PATH descriptor of the caller's cwd; -errno. */
int caller_cwd(gate_call *c);
/* Reads the caller's umask and process id (/proc/<tid>/status); 0 or -errno. */
int caller_status(gate_call *c);
/* The base a path argument resolves against, into *base: the caller's cwd for AT_FDCWD, a duplicate of
 * its descriptor `dirfd` otherwise, -1 for an absolute path (the root). 0 or -errno; *base is then the
 * caller's of this function to close. */
int caller_base(gate_call *c, int dirfd, const char *path, int *base);
/* The access mode (O_ACCMODE bits, and O_PATH) of descriptor `fd` of process directory `piddir` (an
 * O_PATH fd of /proc/<pid> or /proc/<pid>/task/<tid>), from its fdinfo; -errno. */
int caller_fd_flags(int piddir, const char *fd);

/* --- resolve.c ------------------------------------------------------------------------------------ */
enum {
  GR_FOLLOW = 1u << 0,  /* follow a final symlink (open without O_NOFOLLOW, chmod, truncate, connect) */
  GR_SLASH = 1u << 1,   /* a trailing slash follows a final symlink too and wants a directory (lookups);
                           without it the final name is kept as it is and `slash` says it had one */
};

typedef enum {
  GP_NAME = 0,  /* a final name in `dir` */
  GP_DOT,       /* the path ended in "." */
  GP_DOTDOT,    /* the path ended in ".." */
  GP_ROOT,      /* the path was "/" (only slashes) */
  GP_MAGIC,     /* the final name was a procfs magic link (/proc/<pid>/fd/N, cwd, exe…), followed */
} gate_path_kind;

typedef struct {
  gate_path_kind kind;
  int dir;                /* O_PATH of the directory holding `name` (-1 for DOT, DOTDOT, ROOT) */
  char name[256];         /* the final name (GP_NAME, GP_MAGIC) */
  int obj;                /* O_PATH of the final object (not followed for GP_NAME), -1 when missing */
  struct stat st;         /* obj's, when obj >= 0 */
  bool slash;             /* the path ended in '/' */
  bool via_proc;          /* the resolution went through procfs */
  int fdlink_flags;       /* GP_MAGIC through /proc/<pid>/fd/N: that descriptor's O_ACCMODE|O_PATH bits,
                             else -1 */
} gate_path;

/* Resolves `path` against `base` (-1: the root) the way the caller's kernel would, in this mount view:
 * symlinks followed by the gate one component at a time (at most GATE_MAX_LINKS), ".." by the kernel,
 * /proc/self and /proc/thread-self as the caller's, magic links by the kernel. 0 or -errno as the kernel
 * would answer a lookup. `out` is always safe to gate_path_close. */
int gate_resolve(gate_call *c, int base, const char *path, unsigned how, gate_path *out);
void gate_path_close(gate_path *p);
/* The absolute path of `fd` as this process sees it (/proc/self/fd); "pipe:[…]" and the like for objects
 * outside the file tree. 0, -ENAMETOOLONG, or -errno. */
int gate_fd_path(const cordon_lx_gate *g, int fd, char *out, size_t cap);
/* `dir`'s path joined with `name` ("/" + name at the root); -errno. */
int gate_join_path(const cordon_lx_gate *g, int dir, const char *name, char *out, size_t cap);
/* Splits a full path: its directory's path into `dpath`, its last name returned (pointing into `path`). */
const char *gate_split_path(const char *path, char dpath[GATE_PATH_MAX]);
/* "/proc/self/fd/N": `fd` by a path, for the calls that take one (truncate, chmod, linkat, connect). */
void gate_self_path(int fd, char out[32]);
/* Opens what the O_PATH descriptor `fd` is, anew, with `flags` (through /proc/self/fd): what was
 * decided is what is opened. Thread-safe. */
int gate_reopen(const cordon_lx_gate *g, int fd, int flags);

/* --- decide.c -------------------------------------------------------------------------------------- */
/* The last check before acting: the notification is still pending (gate_id_valid), so everything read
 * by pid came from the caller. False: the caller is gone, do nothing (the answer cannot arrive). */
bool gate_still_valid(gate_call *c);
/* Creating `name` in `dir` (`how`: GIT_MKDIR, …): the policy's create class at the full path (written
 * into `path`), then git's rules (its kind into *kind, may be NULL). 0, -EPERM with the refusal written,
 * or -errno. `what` names the operation in the refusal ("create", "bind", …). */
int gate_may_create(gate_call *c, int dir, const char *name, int how, const char *what, char path[GATE_PATH_MAX],
                    git_kind *kind);
/* Changing what `p` resolved to (`cls`: CORDON_LX_WRITE or CORDON_LX_REMOVE; `op`: GIT_WRITE, …): the
 * policy, then git's rules. Objects outside the file tree (pipes, sockets) pass. Writes the path. */
/* A symbolic link (to `target`, or an existing one: NULL) made at `path` in `dir`: git's rule on links in
 * its directories. 0 or -EPERM (with a refusal line). */
int gate_may_symlink(gate_call *c, int dir, const char *path, const char *target, const char *what);
int gate_may_change(gate_call *c, const gate_path *p, unsigned cls, int op, const char *what, char path[GATE_PATH_MAX]);
/* 0 when the policy allows class `cls` (one CORDON_LX_* bit) at `path`, else the errno to answer:
 * -EROFS without a word where the view is read-only anyway (the kernel's own answer there), -EPERM
 * with a refusal line (`what`: "create", "write", …) where only the policy keeps it. */
int gate_policy(gate_call *c, unsigned cls, const char *path, const char *what);
/* Whether connecting to the unix socket at `path` is allowed by a rule naming a path. */
bool gate_policy_connect(gate_call *c, const char *path);
/* Writes "cordon: refused <what> <path>: <why> (<source>)" once per path, at most 100 lines a run. */
void gate_refuse(cordon_lx_gate *g, const char *what, const char *path, const char *why, const char *source);
gate_report *gate_report_new(void);
void gate_report_free(gate_report *r);

/* --- alias.c ---------------------------------------------------------------------------------------- */
/* Whether `path` may become a symlink (`tree` -1) or the directory `tree` (moved to or away from it)
 * without changing what a protected path beneath it is: 0, or -EPERM with the refusal written. */
int gate_may_alias(gate_call *c, const char *path, int tree, const char *what);

/* --- git.c ------------------------------------------------------------------------------------------ */

/* What `name` in directory `dir` (path `dpath`) is to git's layout rules. Names no rule can concern
 * cost no syscall. */
git_kind git_name_kind(int dir, const char *dpath, const char *name);
/* Whether `dir` (path `dpath`) is a git directory. */
bool git_is_gitdir(int dir, const char *dpath);
/* Why a symbolic link (to `target`; NULL: an existing one moved or linked there) may not be made in
 * (dir, dpath), or NULL: inside a git directory git follows links when it writes its own files. */
const char *git_symlink_refusal(int dir, const char *dpath, const char *target);
#define GIT_RULE_NO_LINKS "git layout rule: no links in a git directory"
/* Whether `name` ends in ".sample" (any case). */
bool git_name_sample(const char *name);

enum { GIT_MKDIR, GIT_MKFILE, GIT_SYMLINK, GIT_LINK, GIT_RENAME_FILE, GIT_RENAME_DIR };
/* The git rule refusing to create `name` in `dir` the way `how` says, or NULL when none does. A rename
 * onto GIT_CONFIG / GIT_SEQUENCER_LIST is git_replace's to decide, and a directory moved into a git directory is
 * git_tree_ok's; this answers only for what the name itself may be. */
const char *git_create_refusal(cordon_lx_gate *g, int dir, const char *dpath, const char *name, int how, git_kind *kind);
/* GIT_CHMOD_EXEC: a chmod changing execute bits only (git init's probe of core.filemode does it to config). */
enum { GIT_WRITE, GIT_CHMOD, GIT_CHMOD_EXEC, GIT_REMOVE, GIT_MOVE_AWAY, GIT_LINK_FROM, GIT_REPLACE };
/* The git rule refusing `op` on the existing `name` in `dir`, or NULL; *kind (may be NULL) its kind. */
const char *git_existing_refusal(cordon_lx_gate *g, int dir, const char *dpath, const char *name, const struct stat *st,
                                 int op, git_kind *kind);
/* The same for an object known only by its path (reached through a magic link or a descriptor). */
const char *git_existing_refusal_path(cordon_lx_gate *g, const char *path, const struct stat *st, int op, git_kind *kind);
/* Whether a directory with entries other than . .., *.sample sits at `name` in `dir` (following a
 * symlink, as git does). */
bool git_hooks_has_code(int dir, const char *name);
/* The rule's name for messages: "git layout rule: hooks" … */
const char *git_rule_name(git_kind k);

/* --- git_replace.c ---------------------------------------------------------------------------------- */
/* Replaces (dir, name), a GIT_CONFIG or GIT_SEQUENCER_LIST file, by the regular file (sdir, sname) renamed onto
 * it, if its text passes the rule: the gate writes the checked bytes into a fresh file of its own, renames
 * that over the target and unlinks the source. 0 or -errno (EPERM with the refusal written). */
int git_replace(gate_call *c, git_kind kind, int sdir, const char *sname, const char *spath, int dir,
                const char *name, const char *dpath);
/* Memory for whole files (an index, a blob): mmap'd, since the static front's allocator never reuses a
 * large block. NULL when none. */
void *git_big_alloc(size_t n);
void git_big_free(void *p, size_t n);

/* --- git_index.c ----------------------------------------------------------------------------------- */
/* Whether the index `after` may replace `before` (NULL: none) in the git directory `dir` (path `gitdir`):
 * it parses, no entry is a path git's verify_path refuses, and each entry at a path the policy keeps from
 * being written keeps its replaced object id and mode or matches the file on disk. Else `why` says why. */
bool git_index_ok(cordon_lx_gate *g, int dir, const char *gitdir, const unsigned char *before, size_t nb,
                  const unsigned char *after, size_t na, char *why, size_t cap);

/* Whether the directory `fd`, arriving at `name` inside a git directory (or as a .git), holds only what
 * the rules allow there: hooks/ only *.sample, config files only safe keys, todo lists no exec.
 * NULL or the refusal. */
const char *git_tree_refusal(cordon_lx_gate *g, int fd, const char *name);

/* --- nested.c, git_runner.c, made.c ---------------------------------------------------------------- */
/* Parses protect.gate_names' entries; NULL when one is malformed or memory runs out. */
gate_nested *gate_nested_new(char *const *names, size_t n);
void gate_nested_free(gate_nested *t);
/* Why writing the name `path` (a file made, changed or removed; `arrive`: a link or a directory put
 * there, which could hold or lead to a protected path) is refused by the nested rules, or NULL; *rule
 * names the rule. A hook runner's config at a work tree's top that the repository's active hooks read, a
 * nested repository's core.hooksPath, an editor's or agent's project file outside a directory this run
 * made. */
const char *gate_nested_refusal(cordon_lx_gate *g, const char *path, bool arrive, const char **rule);
/* plan->gate_names' "identity\tPATH" entries: protected files whose (device, inode) is refused a write
 * under any name when they have more than one (identity.c). */
bool gate_identity_entry(const char *s);
gate_identity *gate_identity_new(char *const *names, size_t n);
void gate_identity_free(gate_identity *t);
/* The protected path `st` is another name of, or NULL. */
const char *gate_identity_of(const gate_identity *t, const struct stat *st);
/* A directory (`fd`) about to be renamed to `dst`, where a directory that was there at launch stood (moved
 * away or removed before, or `replaced` by this rename): why it may not arrive (it holds a path the nested
 * rules refuse there), or NULL. */
const char *gate_nested_tree_refusal(cordon_lx_gate *g, int fd, const char *dst, const struct stat *replaced);
/* The hooks directory of the work tree at `top` (which holds a .git): 1 with its core.hooksPath, 0 with
 * the default (its common directory's hooks), -1 when it cannot be told cheaply (refuse), -2 when its git
 * directory is not in this view or its files are not readable here (a linked worktree's, the launch's
 * repository: the launch protected what it could see). */
int gate_worktree_hooks(const char *top, char out[GATE_PATH_MAX]);
/* Whether a hook in `hooks` (not *.sample) holds one of `markers` (a runner's stub). */
bool gate_hooks_carry(const char *hooks, const char *const *markers, size_t nmarkers);
/* `rel` joined to `base` unless absolute, "." and ".." taken lexically (as git joins a hooksPath). */
bool gate_lexical_join(const char *base, const char *rel, char out[GATE_PATH_MAX]);
gate_made *gate_made_new(void);
void gate_made_free(gate_made *m);
/* A directory this run made (mkdir through the gate). */
void gate_made_add(gate_made *m, dev_t dev, ino_t ino);
bool gate_made_has(const gate_made *m, dev_t dev, ino_t ino);
/* A directory that was there at launch, removed or moved away from `path`: what is made there later
 * counts as what was there. */
void gate_made_vacate(gate_made *m, const char *path);
bool gate_made_vacated(const gate_made *m, const char *path);

/* --- operations ------------------------------------------------------------------------------------ */
long gate_op_open(gate_call *c, int dirfd, uint64_t path_addr, int flags, unsigned mode);
long gate_op_mkdir(gate_call *c, int dirfd, uint64_t path_addr, unsigned mode);
long gate_op_mknod(gate_call *c, int dirfd, uint64_t path_addr, unsigned mode, uint64_t dev);
long gate_op_symlink(gate_call *c, uint64_t target_addr, int dirfd, uint64_t path_addr);
long gate_op_link(gate_call *c, int olddir, uint64_t old_addr, int newdir, uint64_t new_addr, int flags);
long gate_op_rename(gate_call *c, int olddir, uint64_t old_addr, int newdir, uint64_t new_addr, unsigned flags);
long gate_op_unlink(gate_call *c, int dirfd, uint64_t path_addr, int flags);
long gate_op_truncate(gate_call *c, uint64_t path_addr, int64_t length);
long gate_op_chmod(gate_call *c, int dirfd, uint64_t path_addr, unsigned mode, int flags);
long gate_op_fchmod(gate_call *c, int fd, unsigned mode);
long gate_op_bind(gate_call *c, int fd, uint64_t addr, uint64_t len);
long gate_op_connect(gate_call *c, int fd, uint64_t addr, uint64_t len);
gate_bound *gate_bound_new(void);
void gate_bound_free(gate_bound *b);
/* Puts the caller's umask in place for a creation (the main thread's; no worker creates) and returns
 * the gate's own for gate_restore_umask; -errno when it cannot be read. */
/* Whether `path` lies in a git directory (a `.git` component). */
bool gate_in_git_dir(const char *path);
/* Sets the gate's umask to the caller's, made to keep other accounts' write (and the group's in a git
 * directory at `path`, which may be NULL); returns the old one or -errno. */
int gate_with_umask(gate_call *c, const char *path);
void gate_restore_umask(int old);

/* --- workers.c ----------------------------------------------------------------------------------- */
typedef enum { JOB_OPEN, JOB_CONNECT } gate_job_kind;
/* A blocking operation for a worker, which performs it and answers the call. */
typedef struct {
  gate_job_kind kind;
  int fd;            /* JOB_OPEN: the O_PATH descriptor to reopen; JOB_CONNECT: the caller's socket */
  int keep;          /* JOB_CONNECT: the O_PATH descriptor the address names (/proc/self/fd/N), or -1 */
  int flags;         /* JOB_OPEN: the open flags */
  bool cloexec;      /* JOB_OPEN: close-on-exec in the caller */
  unsigned addrlen;  /* JOB_CONNECT */
  unsigned char addr[128];
} gate_job;
/* Hands `job` (its descriptors taken) to a worker: GATE_DEFERRED, or -errno when none could take it (the
 * descriptors are then closed). */
long gate_defer(gate_call *c, const gate_job *job);
gate_pool *gate_pool_new(cordon_lx_gate *g);
void gate_pool_free(gate_pool *p);
#endif
