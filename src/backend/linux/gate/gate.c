/* src/backend/linux/gate/gate.c — the gate's life and its notification loop (gate.h, gate_impl.h) */
#include "backend/linux/gate/gate_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)  /* Linux 6.6 */
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif
#define PROC_MAGIC 0x9fa0  /* PROC_SUPER_MAGIC */
#define SERVE_BATCH 64     /* notifications per serve call, so init's other work is never starved */
#define RESP_MAX 128       /* room for a response larger than this header's, up to this */

static int open_path(const char *p, int flags) { return openat(AT_FDCWD, p, O_PATH | O_CLOEXEC | flags); }

cordon_lx_status cordon_lx_gate_new(const cordon_lx_plan *plan, int msg_fd, cordon_lx_gate **out, cordon_buf *msg) {
  *out = NULL;
  cordon_lx_gate *g = calloc(1, sizeof *g);
  if (!g) return CORDON_LX_NOMEM;
  g->listener = -1, g->msg_fd = msg_fd, g->root_fd = g->cwd_fd = g->proc_fd = g->self_fd = -1;
  cordon_lx_status st = CORDON_LX_NOMEM;
  /* The evaluator borrows the rules' filters: from the plan, which outlives the gate (gate.h), or from
   * the gate's own copy when the plan still holds a run cache entry's part in its binary form. */
  if (!(g->own = cordon_lx_plan_new())) goto fail;
  const cordon_lx_plan *from = plan;
  if (plan->gate_raw) {
    if (!(g->own->gate_raw = malloc(plan->gate_raw_len + 1))) goto fail;
    memcpy(g->own->gate_raw, plan->gate_raw, plan->gate_raw_len);
    g->own->gate_raw_len = plan->gate_raw_len;
    if (!cordon_lx_plan_gate_decode(g->own)) {
      cordon_buf_puts(msg, "the run cache entry's gate rules cannot be read");
      st = CORDON_LX_SETUP_FAILED;
      goto fail;
    }
    from = g->own;
  }
  for (size_t i = 0; i < from->ngrules; i++) {
    const cordon_lx_grule *r = &from->grules[i];
    if (!lx_rules_add_rule(&g->rules, r->action, r->levels, r->filter, r->path, r->subtree, r->source)) goto fail;
  }
  if (!lx_rules_index(&g->rules)) goto fail;
  if (from->ngit_safe_keys && !(g->safe_keys = calloc(from->ngit_safe_keys, sizeof *g->safe_keys))) goto fail;
  for (; g->nsafe_keys < from->ngit_safe_keys; g->nsafe_keys++)
    if (!(g->safe_keys[g->nsafe_keys] = strdup(from->git_safe_keys[g->nsafe_keys]))) goto fail;
  if (!(g->report = gate_report_new()) || !(g->bound = gate_bound_new())) goto fail;
  if (!(g->nested = gate_nested_new(from->gate_names, from->ngate_names)) || !(g->made = gate_made_new()) ||
      !(g->identity = gate_identity_new(from->gate_names, from->ngate_names))) {
    cordon_buf_puts(msg, "the plan's gate names cannot be read");
    st = CORDON_LX_SETUP_FAILED;
    goto fail;
  }

  st = CORDON_LX_SETUP_FAILED;
  struct statfs sf;
  errno = 0;
  g->root_fd = open_path("/", O_DIRECTORY);
  g->cwd_fd = open_path(".", O_DIRECTORY);
  g->proc_fd = open_path("/proc", O_DIRECTORY);
  g->self_fd = open_path("/proc/self/fd", O_DIRECTORY);
  if (g->root_fd < 0 || g->cwd_fd < 0 || g->proc_fd < 0 || g->self_fd < 0 || fstatfs(g->proc_fd, &sf) != 0 || sf.f_type != PROC_MAGIC) {
    cordon_buf_printf(msg, "the gate needs the run's procfs on /proc: %s", errno ? strerror(errno) : "not a procfs");
    goto fail;
  }
  struct seccomp_notif_sizes sizes;
  if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) != 0) {
    cordon_buf_printf(msg, "the gate needs seccomp user notifications (Linux 5.0+): %s", strerror(errno));
    goto fail;
  }
  /* the kernel's structures may be larger than this header's: use its sizes, at least ours */
  g->notif_size = sizes.seccomp_notif > sizeof(struct seccomp_notif) ? sizes.seccomp_notif : sizeof(struct seccomp_notif);
  g->resp_size = sizes.seccomp_notif_resp > sizeof(struct seccomp_notif_resp) ? sizes.seccomp_notif_resp
                                                                               : sizeof(struct seccomp_notif_resp);
  if (g->resp_size > RESP_MAX) {
    cordon_buf_printf(msg, "the kernel's seccomp response is %zu bytes, more than this build knows", g->resp_size);
    goto fail;
  }
  if (!(g->notif = calloc(1, g->notif_size))) {
    st = CORDON_LX_NOMEM;
    goto fail;
  }
  g->fast_resolve = true;  /* until openat2 says ENOSYS */
  *out = g;
  return CORDON_LX_OK;
fail:
  if (st == CORDON_LX_NOMEM) cordon_buf_puts(msg, "out of memory preparing the gate");
  cordon_lx_gate_free(g);
  return st;
}

void cordon_lx_gate_attach(cordon_lx_gate *g, int listener) {
  g->listener = listener;
  /* the caller and the gate then hand the CPU to each other directly (~2 us a round trip, not 2-24) */
  unsigned long flags = SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP;
  (void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS, flags);
  g->pool = gate_pool_new(g);
}

int cordon_lx_gate_fd(const cordon_lx_gate *g) { return g->listener; }

bool gate_id_valid(const cordon_lx_gate *g, uint64_t id) {
  return ioctl(g->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

void gate_answer(const cordon_lx_gate *g, uint64_t id, long val, int err) {
  /* the kernel reads its own size of response (SECCOMP_GET_NOTIF_SIZES): zeroed beyond ours */
  union {
    struct seccomp_notif_resp r;
    unsigned char bytes[RESP_MAX];
  } u;
  memset(&u, 0, sizeof u);
  u.r.id = id, u.r.val = err ? 0 : val, u.r.error = err ? -err : 0;
  /* ENOENT: the caller is gone or was interrupted; its syscall restarts as a new notification */
  (void)ioctl(g->listener, SECCOMP_IOCTL_NOTIF_SEND, &u);
}

void gate_answer_fd(const cordon_lx_gate *g, uint64_t id, int fd, bool cloexec) {
  struct seccomp_notif_addfd a = {
      .id = id, .flags = SECCOMP_ADDFD_FLAG_SEND, .srcfd = (__u32)fd, .newfd = 0, .newfd_flags = cloexec ? O_CLOEXEC : 0};
  int rc = ioctl(g->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &a);
  int err = errno;
  close(fd);
  /* a failed install (EMFILE in the caller, say) leaves the caller waiting: tell it why */
  if (rc < 0 && err != ENOENT) gate_answer(g, id, 0, err);
}

static void serve_one(cordon_lx_gate *g) {
  struct seccomp_notif *n = g->notif;
  memset(n, 0, g->notif_size);
  if (ioctl(g->listener, SECCOMP_IOCTL_NOTIF_RECV, n) != 0) return;  /* ENOENT: cancelled meanwhile */
  gate_call c = {.g = g, .id = n->id, .pid = (pid_t)n->pid, .umask = -1, .nr = n->data.nr, .pidfd = -1, .result_fd = -1};
  memcpy(c.args, n->data.args, sizeof c.args);
  /* x86_64 only: an ia32 or x32 call (other numbers, other layouts) is answered as unknown */
  long r = n->data.arch == AUDIT_ARCH_X86_64 ? gate_dispatch(&c) : -ENOSYS;
  if (r == GATE_FD_RESULT) gate_answer_fd(g, c.id, c.result_fd, c.result_cloexec);
  else if (r != GATE_DEFERRED) gate_answer(g, c.id, r < 0 ? 0 : r, r < 0 ? (int)-r : 0);
  if (c.pidfd >= 0) close(c.pidfd);
}

bool cordon_lx_gate_serve(cordon_lx_gate *g) {
  if (g->listener < 0) return true;
  for (int i = 0; i < SERVE_BATCH && !g->hup; i++) {
    struct pollfd p = {.fd = g->listener, .events = POLLIN};
    if (poll(&p, 1, 0) <= 0) break;
    if (p.revents & POLLIN) serve_one(g);
    else if (p.revents & (POLLHUP | POLLERR | POLLNVAL)) g->hup = true;
  }
  return !g->hup;
}

void cordon_lx_gate_free(cordon_lx_gate *g) {
  if (!g) return;
  gate_pool_free(g->pool);  /* first: workers answer through the listener */
  if (g->listener >= 0) close(g->listener);
  lx_rules_free(&g->rules);
  if (g->own) cordon_lx_plan_free(g->own);
  for (size_t i = 0; i < g->nsafe_keys; i++) free(g->safe_keys[i]);
  free(g->safe_keys);
  gate_nested_free(g->nested);
  gate_made_free(g->made);
  gate_identity_free(g->identity);
  gate_report_free(g->report);
  gate_bound_free(g->bound);
  if (g->root_fd >= 0) close(g->root_fd);
  if (g->cwd_fd >= 0) close(g->cwd_fd);
  if (g->proc_fd >= 0) close(g->proc_fd);
  if (g->self_fd >= 0) close(g->self_fd);
  free(g->notif);
  free(g);
}
