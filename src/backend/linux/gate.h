/* src/backend/linux/gate.h — the gate: init's seccomp user-notification server (docs/linux-sandbox.md, "The gate") */
#ifndef CORDON_LINUX_GATE_H
#define CORDON_LINUX_GATE_H
#include "backend/linux/linux.h"

#include <stdbool.h>

/* The syscalls the gate decides. The gate filter notifies `name` always when flags_arg < 0, else only
 * when the open flags in args[flags_arg] write: O_ACCMODE other than O_RDONLY, or any of O_CREAT,
 * O_TRUNC (O_TMPFILE implies a write mode). Terminated by a NULL name. The gate answers exactly these;
 * any other notification (or one from a non-native architecture) gets ENOSYS. */
typedef struct {
  const char *name;
  int flags_arg;
} cordon_lx_gated_syscall;
extern const cordon_lx_gated_syscall cordon_lx_gated_syscalls[];

typedef struct cordon_lx_gate cordon_lx_gate;

/* Prepares the gate for `plan`, in init, once the view is in place (paths resolve as inside) and
 * before any thread exists: it compiles the rules and opens what it needs (the procfs root). The plan
 * must outlive the gate (its rules are used, not copied). `msg_fd` (kept, may be -1) is where refusals
 * are reported: the command's stderr. */
cordon_lx_status cordon_lx_gate_new(const cordon_lx_plan *plan, int msg_fd, cordon_lx_gate **out, cordon_buf *msg);

/* Hands the gate the command's listener (the descriptor its gate filter returned); the gate owns it.
 * Call after the command was forked: the gate may start threads of its own from here on. */
void cordon_lx_gate_attach(cordon_lx_gate *g, int listener);

/* The descriptor init polls (POLLIN: call cordon_lx_gate_serve). */
int cordon_lx_gate_fd(const cordon_lx_gate *g);

/* Answers every notification pending now, without ever waiting on one operation (a connect, or opening
 * a FIFO, runs on a thread of the gate's own). False once no process is left that could notify. */
bool cordon_lx_gate_serve(cordon_lx_gate *g);

void cordon_lx_gate_free(cordon_lx_gate *g);

/* For `cordon check` on a Linux target: what git's layout rules (gate/git.c) say to one write at `path`
 * beyond the policy: the refusal's reason, with *rule its name ("git layout rule: hooks"), or NULL when
 * they let it through. Looks at the disk as the gate would (is the directory a git directory?). */
typedef enum { CORDON_LX_GIT_CREATE, CORDON_LX_GIT_WRITE, CORDON_LX_GIT_REMOVE } cordon_lx_git_question;
const char *cordon_lx_git_layout_refusal(const char *path, cordon_lx_git_question q, const char **rule);
#endif
