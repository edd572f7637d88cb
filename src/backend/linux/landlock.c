/* src/backend/linux/landlock.c — Landlock rulesets from a plan. */
#include "backend/linux/landlock.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Rights and structures newer than the oldest uapi header we build against (values from the kernel's
 * uapi landlock.h; they are ABI and never change). */
#define LX_FS_TRUNCATE (1ULL << 14)   /* ABI 3 */
#define LX_FS_IOCTL_DEV (1ULL << 15)  /* ABI 5 */
#define LX_NET_BIND_TCP (1ULL << 0)   /* ABI 4 */
#define LX_NET_CONNECT_TCP (1ULL << 1)
#define LX_SCOPE_ABSTRACT_UNIX (1ULL << 0) /* ABI 6 */
#define LX_SCOPE_SIGNAL (1ULL << 1)

struct lx_ruleset_attr {  /* struct landlock_ruleset_attr as of ABI 6 */
  uint64_t handled_access_fs;
  uint64_t handled_access_net;
  uint64_t scoped;
};

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule 445
#define __NR_landlock_restrict_self 446
#endif

#define FS_FILE_RIGHTS                                                                              \
  (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |         \
   LX_FS_TRUNCATE | LX_FS_IOCTL_DEV)

int cordon_lx_landlock_abi(int *err) {
  long v = syscall(__NR_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
  if (v < 0) {
    if (err) *err = errno;
    return 0;
  }
  if (err) *err = 0;
  return (int)v;
}

uint64_t cordon_lx_landlock_handled_fs(int abi) {
  if (abi < 1) return 0;
  uint64_t r = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1;  /* ABI 1: EXECUTE … MAKE_SYM */
  if (abi >= 2) r |= LANDLOCK_ACCESS_FS_REFER;
  if (abi >= 3) r |= LX_FS_TRUNCATE;
  if (abi >= 5) r |= LX_FS_IOCTL_DEV;
  return r;
}

uint64_t cordon_lx_landlock_rights(unsigned access, bool is_dir, int abi) {
  uint64_t r = 0;
  if (access & CORDON_LX_READ) r |= LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR | LX_FS_IOCTL_DEV;
  if (access & CORDON_LX_WRITE) r |= LANDLOCK_ACCESS_FS_WRITE_FILE | LX_FS_TRUNCATE | LX_FS_IOCTL_DEV;
  if (access & CORDON_LX_CREATE)
    r |= LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_SYM |
         LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_REFER;
  if (access & CORDON_LX_REMOVE)
    r |= LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REFER;
  if (access & CORDON_LX_EXEC) r |= LANDLOCK_ACCESS_FS_EXECUTE;
  if (access & CORDON_LX_LIST) r |= LANDLOCK_ACCESS_FS_READ_DIR;
  if (!is_dir) r &= FS_FILE_RIGHTS;  /* directory-only rights on a file make add_rule fail */
  return r & cordon_lx_landlock_handled_fs(abi);
}

void cordon_lx_landlock_right_names(uint64_t rights, cordon_buf *out) {
  static const char *const names[] = {"EXECUTE", "WRITE_FILE", "READ_FILE", "READ_DIR", "REMOVE_DIR",
                                      "REMOVE_FILE", "MAKE_CHAR", "MAKE_DIR", "MAKE_REG", "MAKE_SOCK",
                                      "MAKE_FIFO", "MAKE_BLOCK", "MAKE_SYM", "REFER", "TRUNCATE", "IOCTL_DEV"};
  bool any = false;
  for (unsigned i = 0; i < sizeof names / sizeof *names; i++) {
    if (!(rights & (1ULL << i))) continue;
    if (any) cordon_buf_putc(out, '|');
    cordon_buf_puts(out, names[i]);
    any = true;
  }
  if (!any) cordon_buf_puts(out, "none");
}

/* The ruleset a plan needs, or -1 with *err (0: the plan restricts nothing Landlock handles). */
int cordon_lx_landlock_create(const cordon_lx_plan *plan, int abi, int *err) {
  struct lx_ruleset_attr attr = {0};
  if (!plan->fs_unrestricted) attr.handled_access_fs = cordon_lx_landlock_handled_fs(abi);
  if (plan->network_restricted && abi >= 4) attr.handled_access_net = LX_NET_BIND_TCP | LX_NET_CONNECT_TCP;
  if (plan->scope_signals && abi >= 6) attr.scoped |= LX_SCOPE_SIGNAL;
  if (plan->scope_abstract_unix && abi >= 6) attr.scoped |= LX_SCOPE_ABSTRACT_UNIX;
  *err = 0;
  if (!attr.handled_access_fs && !attr.handled_access_net && !attr.scoped) return -1;
  /* Older kernels reject a struct larger than they know only when the extra fields are non-zero, so
   * pass the size that covers what is set. */
  size_t size = attr.scoped ? 24 : attr.handled_access_net ? 16 : 8;
  int fd = (int)syscall(__NR_landlock_create_ruleset, &attr, size, 0);
  if (fd < 0) *err = errno;
  return fd;
}

cordon_lx_rule_result cordon_lx_landlock_add_fd(int ruleset, int pfd, const cordon_lx_rule *r, int abi, bool soft,
                                                uint64_t *rights, int *err) {
  /* The compiler's type for it, which the run cache replays before a hit: no fstat per rule. Should it
   * be a file after all, the kernel refuses directory rights (EINVAL) and the file's rights follow. */
  struct landlock_path_beneath_attr pb = {.allowed_access = cordon_lx_landlock_rights(r->access, r->is_dir, abi),
                                          .parent_fd = pfd};
  *err = 0;
  long rc = pb.allowed_access ? syscall(__NR_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) : 0;
  struct stat st;
  if (rc != 0 && errno == EINVAL && r->is_dir && fstat(pfd, &st) == 0 && !S_ISDIR(st.st_mode)) {
    pb.allowed_access = cordon_lx_landlock_rights(r->access, false, abi);
    rc = pb.allowed_access ? syscall(__NR_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) : 0;
  }
  *rights = pb.allowed_access;
  cordon_lx_rule_result res = CORDON_LX_RULE_ADDED;
  /* EBADFD: not a file Landlock can hold (a pipe behind /dev/stdin): skipped */
  if (rc != 0 && errno != EBADFD) {
    *err = errno;
    res = soft ? CORDON_LX_RULE_LATER : CORDON_LX_RULE_ADD_FAILED;
  }
  close(pfd);
  return res;
}

cordon_lx_rule_result cordon_lx_landlock_add(int ruleset, const cordon_lx_rule *r, int abi, uint64_t *rights,
                                             int *err) {
  *rights = 0;
  *err = 0;
  int pfd = openat(AT_FDCWD, r->path, O_PATH | O_CLOEXEC);  /* not open(): musl adds an fcntl */
  if (pfd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return CORDON_LX_RULE_GONE;  /* fewer rights, not more */
    *err = errno;
    return CORDON_LX_RULE_OPEN_FAILED;
  }
  return cordon_lx_landlock_add_fd(ruleset, pfd, r, abi, false, rights, err);
}

void cordon_lx_landlock_describe_failure(const cordon_lx_rule *r, cordon_lx_rule_result res, uint64_t rights, int err,
                                         cordon_buf *msg) {
  if (res == CORDON_LX_RULE_OPEN_FAILED) {
    cordon_buf_printf(msg, "landlock: cannot open %s (%s): %s", r->path, r->source, strerror(err));
    return;
  }
  cordon_buf tmp = CORDON_BUF_INIT;
  cordon_lx_landlock_right_names(rights, &tmp);
  cordon_buf_printf(msg, "landlock_add_rule %s [%s] (%s): %s", r->path, cordon_buf_str(&tmp) ? cordon_buf_str(&tmp) : "",
                    r->source, strerror(err));
  cordon_buf_free(&tmp);
}

cordon_lx_status cordon_lx_landlock_apply(const cordon_lx_plan *plan, int abi, cordon_lx_landlock_ahead *ahead,
                                          cordon_buf *msg) {
  int err, fd = -1;
  const unsigned char *done = NULL;
  if (ahead && ahead->ruleset >= 0 && ahead->abi == abi) {
    fd = ahead->ruleset, done = ahead->done;
    ahead->ruleset = -1;  /* ours now */
  } else if ((fd = cordon_lx_landlock_create(plan, abi, &err)) < 0) {
    if (!err) return CORDON_LX_OK;
    cordon_buf_printf(msg, "landlock_create_ruleset: %s", strerror(err));
    return CORDON_LX_SETUP_FAILED;
  }
  for (size_t i = 0; i < plan->nrules && !plan->fs_unrestricted; i++) {
    if (done && done[i]) continue;  /* added ahead (cordon_lx_landlock_ahead_start) */
    uint64_t rights;
    cordon_lx_rule_result res = cordon_lx_landlock_add(fd, &plan->rules[i], abi, &rights, &err);
    if (res == CORDON_LX_RULE_OPEN_FAILED || res == CORDON_LX_RULE_ADD_FAILED) {
      cordon_lx_landlock_describe_failure(&plan->rules[i], res, rights, err, msg);
      close(fd);
      return CORDON_LX_SETUP_FAILED;
    }
  }
  /* No TCP port rules: with the network restricted nothing may bind or connect over TCP. */
  if (syscall(__NR_landlock_restrict_self, fd, 0) != 0) {
    cordon_buf_printf(msg, "landlock_restrict_self: %s", strerror(errno));
    close(fd);
    return CORDON_LX_SETUP_FAILED;
  }
  close(fd);
  return CORDON_LX_OK;
}
