/* src/backend/linux/seccomp.c — the base and gate seccomp filters, built with libseccomp (each rule says why) */
#include "backend/linux/seccomp.h"

#include "backend/linux/gate.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#define SOCK_TYPE_MASK 0xf  /* the kernel's: what remains of socket()'s type once the flags are off */

/* The argument holding clone()'s flags: s390 swaps the first two. */
#if defined(__s390__) || defined(__s390x__)
#define CLONE_FLAGS_ARG 1
#else
#define CLONE_FLAGS_ARG 0
#endif

typedef struct {
  scmp_filter_ctx ctx;
  bool compat;      /* the 32-bit ABIs' context (ia32, x32), merged into the native one at the end */
  cordon_buf *msg;
  bool ok;
  bool incomplete;  /* compat: a required syscall libseccomp cannot name there; the part is dropped */
} filter;

/* Syscalls newer than some libseccomp still in use (Ubuntu 22.04 has 2.5.3 and kernels with these).
 * From Linux 5.1 on, a new syscall has the same number on x86_64, i386 and the generic table (arm64). */
#if defined(__x86_64__) || defined(__aarch64__)
#define UNIFIED_NUMBERS true  /* the table below numbers them whatever libseccomp knows */
static const struct {
  const char *name;
  int nr;
} unified[] = {{"fchmodat2", 452}, {"setxattrat", 463}, {"removexattrat", 466}, {"open_tree_attr", 467}};
#else
#define UNIFIED_NUMBERS false
#endif

/* The native number of `name`, or __NR_SCMP_ERROR. */
static int resolve(const char *name) {
  int nr = seccomp_syscall_resolve_name(name);
#if defined(__x86_64__) || defined(__aarch64__)
  for (size_t i = 0; nr == __NR_SCMP_ERROR && i < sizeof unified / sizeof *unified; i++)
    if (strcmp(unified[i].name, name) == 0) nr = unified[i].nr;
#endif
  return nr;
}

/* Spelled out rather than SCMP_A1(): the macro leaves fields implicit, which clang's
 * -Wmissing-field-initializers (an error here) refuses. */
#define CMP(a, o, x, y) {.arg = (a), .op = (o), .datum_a = (x), .datum_b = (y)}
#define ARGS(...) (const struct scmp_arg_cmp[]){__VA_ARGS__}, sizeof((const struct scmp_arg_cmp[]){__VA_ARGS__}) / sizeof(struct scmp_arg_cmp)

/* `action` for syscall `name` when every comparison holds. A name nobody can number is skipped unless
 * `required`: then nothing is loaded at all. A required syscall libseccomp cannot place in the compat
 * part drops that part (32-bit programs are then killed) rather than letting it through there. */
static void rule_n(filter *f, bool required, uint32_t action, const char *name, const struct scmp_arg_cmp *cmp,
                   unsigned n) {
  if (!f->ok) return;
  int nr = resolve(name);
  if (nr == __NR_SCMP_ERROR) {
    if (!required) return;
    cordon_buf_printf(f->msg, "seccomp: libseccomp does not know the syscall %s", name);
    f->ok = false;
    return;
  }
  int rc = seccomp_rule_add_array(f->ctx, action, nr, n, cmp);
  if (rc != 0 && f->compat && seccomp_syscall_resolve_name(name) == __NR_SCMP_ERROR) {
    f->incomplete = f->incomplete || required;
    return;
  }
  if (rc != 0) {
    cordon_buf_printf(f->msg, "seccomp rule for %s: %s", name, strerror(-rc));
    f->ok = false;
  }
}
static void rule(filter *f, bool required, uint32_t action, const char *name) { rule_n(f, required, action, name, NULL, 0); }

/* Refused with EPERM when listed: each list's comment says why. */
static void refuse_all(filter *f, bool required, const char *const *names) {
  for (size_t i = 0; names[i]; i++) rule(f, required, SCMP_ACT_ERRNO(EPERM), names[i]);
}

static void base_rules(filter *f, const cordon_lx_plan *plan) {
  const uint32_t eperm = SCMP_ACT_ERRNO(EPERM);
  /* A command sharing the caller's terminal could push keystrokes into the shell that started it.
   * ioctl's request is an int in the kernel: compare the low 32 bits only. */
  rule_n(f, true, eperm, "ioctl", ARGS(CMP(1, SCMP_CMP_MASKED_EQ, 0xffffffffu, TIOCSTI)));
  rule_n(f, true, eperm, "ioctl", ARGS(CMP(1, SCMP_CMP_MASKED_EQ, 0xffffffffu, TIOCLINUX)));
  /* io_uring opens, connects and creates sockets without a syscall any filter sees, the gate's included. */
  static const char *const io_uring[] = {"io_uring_setup", "io_uring_enter", "io_uring_register", NULL};
  refuse_all(f, true, io_uring);
  if (f->compat) {
    /* ia32's socketcall() keeps the family and type in memory, out of a filter's sight */
    rule(f, true, SCMP_ACT_ERRNO(EAFNOSUPPORT), "socket");
    rule(f, true, SCMP_ACT_ERRNO(EAFNOSUPPORT), "socketpair");
  } else {
    static const char *const creators[] = {"socket", "socketpair"};
    for (int i = 0; i < 2; i++) {
      if (plan->network_restricted)
        rule_n(f, true, SCMP_ACT_ERRNO(EAFNOSUPPORT), creators[i], ARGS(CMP(0, SCMP_CMP_NE, AF_UNIX, 0)));
      /* A datagram unix socket can sendmsg to any socket path, which no filter can read and the gate
       * (deciding connect) never sees. SOCK_RAW on AF_UNIX is a datagram socket too (unix_create). */
      rule_n(f, true, SCMP_ACT_ERRNO(EACCES), creators[i],
             ARGS(CMP(0, SCMP_CMP_EQ, AF_UNIX, 0), CMP(1, SCMP_CMP_MASKED_EQ, SOCK_TYPE_MASK, SOCK_DGRAM)));
      rule_n(f, true, SCMP_ACT_ERRNO(EACCES), creators[i],
             ARGS(CMP(0, SCMP_CMP_EQ, AF_UNIX, 0), CMP(1, SCMP_CMP_MASKED_EQ, SOCK_TYPE_MASK, SOCK_RAW)));
    }
  }
  /* A new user namespace needs no privilege, and in one a process can leave the run's mount namespace
   * and outlive every check (FIELD-NOTES, "Leaving the namespace"). clone3 keeps its flags in memory:
   * ENOSYS makes every libc fall back to clone, whose flags a filter reads. */
  rule_n(f, true, eperm, "clone", ARGS(CMP(f->compat ? 0 : CLONE_FLAGS_ARG, SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER)));
  rule_n(f, false, eperm, "clone2", ARGS(CMP(0, SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER)));  /* ia64 */
  rule_n(f, true, eperm, "unshare", ARGS(CMP(0, SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER)));
  rule(f, true, SCMP_ACT_ERRNO(ENOSYS), "clone3");
  rule(f, true, eperm, "setns");
  /* The caller's user and session keyrings hold its credentials (Kerberos tickets, ecryptfs keys);
   * Docker's default profile refuses these too. */
  static const char *const keyrings[] = {"keyctl", "add_key", "request_key", NULL};
  refuse_all(f, true, keyrings);
  /* An extended attribute is how a POSIX ACL is set (system.posix_acl_access): one on .git/config,
   * ~/.bashrc or HOME hands write access to every other account, past every mode the gate decides. The
   * attribute's name lies in memory, where a filter cannot read it, so the whole family answers as a
   * file system without xattrs would (cp -a, tar and shutil carry on). */
  static const char *const xattrs[] = {"setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr",
                                       "fremovexattr", NULL};
  for (size_t i = 0; xattrs[i]; i++) rule(f, true, SCMP_ACT_ERRNO(EOPNOTSUPP), xattrs[i]);
  /* Linux 6.13's two, numbered by our table where libseccomp is older; its compat part cannot take such a
   * number, and dropping that part would kill every 32-bit program (docs/linux-backend.md: the residual) */
  rule(f, UNIFIED_NUMBERS && !f->compat, SCMP_ACT_ERRNO(EOPNOTSUPP), "setxattrat");
  rule(f, UNIFIED_NUMBERS && !f->compat, SCMP_ACT_ERRNO(EOPNOTSUPP), "removexattrat");
  /* No capability remains to mount with; refused outright so that one left by mistake still cannot
   * rearrange the view. open_by_handle_at opens any inode of a file system, past every path rule. */
  static const char *const mounting[] = {"mount", "umount", "umount2", "pivot_root", "chroot", "move_mount",
                                         "open_tree", "open_tree_attr", "fsopen", "fsmount", "fsconfig",
                                         "fspick", "mount_setattr", "open_by_handle_at", NULL};
  refuse_all(f, false, mounting);
  /* The two favourite tools of kernel exploits that ordinary development never needs: eBPF programs
   * (bpftrace and friends need CAP_BPF anyway) and userfaultfd (stalls kernel copies at will to win
   * races; only CRIU and VM live migration use it). */
  static const char *const exploit_aids[] = {"bpf", "userfaultfd", NULL};
  refuse_all(f, false, exploit_aids);
  /* State of the whole machine. Each needs a capability of the machine's user namespace, which no
   * process of a run has; refused anyway, as Docker's profile does, in case one ever leaks. Kept open
   * on purpose: ptrace (debuggers, of the run's own processes: Landlock scopes it), perf_event_open
   * (profilers), personality (setarch, valgrind), process_vm_readv/writev (debuggers), kcmp. */
  static const char *const machine[] = {"init_module", "finit_module", "delete_module", "kexec_load",
                                        "kexec_file_load", "reboot", "swapon", "swapoff", "acct",
                                        "settimeofday", "clock_settime", "iopl", "ioperm", NULL};
  refuse_all(f, false, machine);
}

static void gate_rules(filter *f) {
  /* 32-bit programs are answered ENOSYS (the gate reads native arguments only): they cannot write */
  const uint32_t decide = f->compat ? SCMP_ACT_ERRNO(ENOSYS) : SCMP_ACT_NOTIFY;
  for (const cordon_lx_gated_syscall *g = cordon_lx_gated_syscalls; g->name; g++) {
    if (g->flags_arg < 0) {
      rule(f, true, decide, g->name);
      continue;
    }
    /* an open that writes: any access mode but O_RDONLY (3 asks for both rights), O_CREAT, O_TRUNC;
     * O_TMPFILE needs a write mode */
    const unsigned a = (unsigned)g->flags_arg;
    for (unsigned mode = 1; mode <= 3; mode++)
      rule_n(f, true, decide, g->name, ARGS(CMP(a, SCMP_CMP_MASKED_EQ, O_ACCMODE, mode)));
    rule_n(f, true, decide, g->name, ARGS(CMP(a, SCMP_CMP_MASKED_EQ, O_CREAT, O_CREAT)));
    rule_n(f, true, decide, g->name, ARGS(CMP(a, SCMP_CMP_MASKED_EQ, O_TRUNC, O_TRUNC)));
  }
  /* openat2's flags are in memory: a filter cannot tell a write from a read. Every libc falls back. */
  rule(f, true, SCMP_ACT_ERRNO(ENOSYS), "openat2");
  /* A nested filter's listener would get these notifications first, and its CONTINUE would run the
   * syscall past the gate. Plain nested filters (sandboxes inside) stay allowed. */
  rule_n(f, true, SCMP_ACT_ERRNO(EPERM), "seccomp",
         ARGS(CMP(0, SCMP_CMP_EQ, SECCOMP_SET_MODE_FILTER, 0),
              CMP(1, SCMP_CMP_MASKED_EQ, SECCOMP_FILTER_FLAG_NEW_LISTENER, SECCOMP_FILTER_FLAG_NEW_LISTENER)));
}

static scmp_filter_ctx new_ctx(bool compat, cordon_buf *msg) {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (!ctx) {
    cordon_buf_puts(msg, "seccomp_init failed");
    return NULL;
  }
  int rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);  /* a binary tree: every syscall pays less */
  if (rc == 0 && compat) {
#if defined(__x86_64__)
    rc = seccomp_arch_add(ctx, SCMP_ARCH_X86);
    if (rc == 0) rc = seccomp_arch_add(ctx, SCMP_ARCH_X32);
    if (rc == 0) rc = seccomp_arch_remove(ctx, SCMP_ARCH_NATIVE);
#endif
  }
  if (rc != 0) {
    cordon_buf_printf(msg, "seccomp context: %s", strerror(-rc));
    seccomp_release(ctx);
    return NULL;
  }
  return ctx;
}

/* One part of a filter: the native ABI's rules, or the 32-bit ABIs' (compat). NULL (with msg) on failure. */
static scmp_filter_ctx part(const cordon_lx_plan *plan, cordon_lx_seccomp_filter which, bool compat, bool *dropped,
                            cordon_buf *msg) {
  filter f = {new_ctx(compat, msg), compat, msg, true, false};
  if (!f.ctx) return NULL;
  base_rules(&f, plan);  /* the gate's program carries the base's rules: one filter for the command */
  if (which == CORDON_LX_SECCOMP_GATE) gate_rules(&f);
  if (f.ok && !f.incomplete) return f.ctx;
  *dropped = f.ok && f.incomplete;
  seccomp_release(f.ctx);
  return NULL;
}

/* The plan's filter as one libseccomp context, the compat ABIs' part merged into the native one; any
 * other architecture is killed by libseccomp's default bad-arch action. NULL (with msg) on failure. */
static scmp_filter_ctx build(const cordon_lx_plan *plan, cordon_lx_seccomp_filter which, cordon_buf *msg) {
  bool dropped = false;
  scmp_filter_ctx native = part(plan, which, false, &dropped, msg);
#if defined(__x86_64__)
  scmp_filter_ctx compat = native ? part(plan, which, true, &dropped, msg) : NULL;
  if (dropped) return native;  /* the compat ABIs fall to the bad-arch action: killed */
  int rc = compat ? seccomp_merge(native, compat) : -1;  /* a merge consumes `compat` */
  if (rc != 0) {
    if (compat) {
      cordon_buf_printf(msg, "seccomp_merge: %s", strerror(-rc));
      seccomp_release(compat);
    }
    if (native) seccomp_release(native);
    return NULL;
  }
#endif
  return native;
}

static cordon_lx_status load(const cordon_lx_plan *plan, cordon_lx_seccomp_filter which, int *listener, cordon_buf *msg) {
  if (cordon_lx_seccomp_stored(plan)) return cordon_lx_seccomp_load_stored(plan, which, listener, msg);
  scmp_filter_ctx ctx = build(plan, which, msg);
  if (!ctx) return CORDON_LX_SETUP_FAILED;
  int rc = seccomp_load(ctx);
  if (rc != 0) cordon_buf_printf(msg, "seccomp_load (%s filter): %s", which == CORDON_LX_SECCOMP_GATE ? "gate" : "base",
                                 strerror(-rc));
  if (rc == 0 && listener && (*listener = seccomp_notify_fd(ctx)) < 0) {
    cordon_buf_puts(msg, "seccomp: the gate filter gave no listener");
    rc = -1;
  }
  seccomp_release(ctx);
  return rc == 0 ? CORDON_LX_OK : CORDON_LX_SETUP_FAILED;
}

cordon_lx_status cordon_lx_seccomp_apply_base(const cordon_lx_plan *plan, cordon_buf *msg) {
  return load(plan, CORDON_LX_SECCOMP_BASE, NULL, msg);
}

cordon_lx_status cordon_lx_seccomp_apply_gate(const cordon_lx_plan *plan, int *listener, cordon_buf *msg) {
  *listener = -1;
  return load(plan, CORDON_LX_SECCOMP_GATE, listener, msg);
}

/* Runs libseccomp's exporter `fn` into a memory file and appends its bytes to `out`. */
static bool export_with(const cordon_lx_plan *plan, cordon_lx_seccomp_filter which, int (*fn)(const scmp_filter_ctx, int),
                        cordon_buf *out) {
  cordon_buf msg = CORDON_BUF_INIT;
  scmp_filter_ctx ctx = build(plan, which, &msg);
  cordon_buf_free(&msg);
  if (!ctx) return false;
  int fd = memfd_create("cordon-seccomp", MFD_CLOEXEC);
  bool ok = fd >= 0 && fn(ctx, fd) == 0 && lseek(fd, 0, SEEK_SET) == 0;
  seccomp_release(ctx);
  char chunk[4096];
  ssize_t n;
  size_t before = out->len;
  while (ok && (n = read(fd, chunk, sizeof chunk)) > 0) cordon_buf_append(out, chunk, (size_t)n);
  if (fd >= 0) close(fd);
  return ok && !out->oom && out->len > before;
}

bool cordon_lx_seccomp_export(const cordon_lx_plan *plan, cordon_lx_seccomp_filter which, cordon_buf *out) {
  size_t before = out->len;
  bool ok = export_with(plan, which, seccomp_export_bpf, out);
  size_t n = out->len - before;
  return ok && n % sizeof(struct sock_filter) == 0 && n / sizeof(struct sock_filter) <= BPF_MAXINSNS;
}

bool cordon_lx_seccomp_export_pfc(const cordon_lx_plan *plan, cordon_lx_seccomp_filter which, cordon_buf *out) {
  return export_with(plan, which, seccomp_export_pfc, out);
}

bool cordon_lx_seccomp_ready(const cordon_lx_plan *plan) {
  (void)plan;
  return true;  /* with libseccomp at hand, any plan's filters can be built */
}

void cordon_lx_seccomp_describe(const cordon_lx_plan *plan, cordon_buf *out) {
  cordon_buf_printf(out, "seccomp (the command and every process it starts): refuses TIOCSTI/TIOCLINUX, new user namespaces "
                         "(clone/unshare with CLONE_NEWUSER, setns; clone3 answers ENOSYS), io_uring, datagram "
                         "unix sockets, keyrings, the mount API, bpf, userfaultfd, machine-wide administration%s\n",
                    plan->network_restricted ? ", sockets other than AF_UNIX" : "");
  if (cordon_lx_plan_has_gate(plan))
    cordon_buf_puts(out, "seccomp gate (in the same filter): writes, removals, chmod, bind and connect decided by "
                         "init; openat2 answers ENOSYS; no nested filter with a listener; 32-bit programs get no "
                         "sockets and ENOSYS for what the gate decides\n");
}
