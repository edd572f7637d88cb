/* src/backend/linux/gate/syscalls.c — the gated syscalls: the gate filter's table and each one's arguments */
#include "backend/linux/gate/gate_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/syscall.h>

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452  /* Linux 6.6, x86_64 */
#endif

const cordon_lx_gated_syscall cordon_lx_gated_syscalls[] = {
    {"open", 1},       {"openat", 2},     {"creat", -1},     {"mkdir", -1},     {"mkdirat", -1},
    {"mknod", -1},     {"mknodat", -1},   {"symlink", -1},   {"symlinkat", -1}, {"link", -1},
    {"linkat", -1},    {"rename", -1},    {"renameat", -1},  {"renameat2", -1}, {"unlink", -1},
    {"unlinkat", -1},  {"rmdir", -1},     {"truncate", -1},  {"chmod", -1},     {"fchmodat", -1},
    {"fchmodat2", -1}, {"fchmod", -1},    {"bind", -1},      {"connect", -1},   {NULL, 0},
};

/* Descriptor and flag arguments are C ints: the kernel reads their low 32 bits. */
static int i32(uint64_t v) { return (int)(uint32_t)v; }

long gate_dispatch(gate_call *c) {
  const uint64_t *a = c->args;
  switch (c->nr) {
  case SYS_open: return gate_op_open(c, AT_FDCWD, a[0], i32(a[1]), (unsigned)a[2]);
  case SYS_openat: return gate_op_open(c, i32(a[0]), a[1], i32(a[2]), (unsigned)a[3]);
  case SYS_creat: return gate_op_open(c, AT_FDCWD, a[0], O_CREAT | O_WRONLY | O_TRUNC, (unsigned)a[1]);
  case SYS_mkdir: return gate_op_mkdir(c, AT_FDCWD, a[0], (unsigned)a[1]);
  case SYS_mkdirat: return gate_op_mkdir(c, i32(a[0]), a[1], (unsigned)a[2]);
  case SYS_mknod: return gate_op_mknod(c, AT_FDCWD, a[0], (unsigned)a[1], a[2]);
  case SYS_mknodat: return gate_op_mknod(c, i32(a[0]), a[1], (unsigned)a[2], a[3]);
  case SYS_symlink: return gate_op_symlink(c, a[0], AT_FDCWD, a[1]);
  case SYS_symlinkat: return gate_op_symlink(c, a[0], i32(a[1]), a[2]);
  case SYS_link: return gate_op_link(c, AT_FDCWD, a[0], AT_FDCWD, a[1], 0);
  case SYS_linkat: return gate_op_link(c, i32(a[0]), a[1], i32(a[2]), a[3], i32(a[4]));
  case SYS_rename: return gate_op_rename(c, AT_FDCWD, a[0], AT_FDCWD, a[1], 0);
  case SYS_renameat: return gate_op_rename(c, i32(a[0]), a[1], i32(a[2]), a[3], 0);
  case SYS_renameat2: return gate_op_rename(c, i32(a[0]), a[1], i32(a[2]), a[3], (unsigned)a[4]);
  case SYS_unlink: return gate_op_unlink(c, AT_FDCWD, a[0], 0);
  case SYS_unlinkat: return gate_op_unlink(c, i32(a[0]), a[1], i32(a[2]));
  case SYS_rmdir: return gate_op_unlink(c, AT_FDCWD, a[0], AT_REMOVEDIR);
  case SYS_truncate: return gate_op_truncate(c, a[0], (int64_t)a[1]);
  case SYS_chmod: return gate_op_chmod(c, AT_FDCWD, a[0], (unsigned)a[1], 0);
  case SYS_fchmodat: return gate_op_chmod(c, i32(a[0]), a[1], (unsigned)a[2], 0);
  case SYS_fchmodat2: return gate_op_chmod(c, i32(a[0]), a[1], (unsigned)a[2], i32(a[3]));
  case SYS_fchmod: return gate_op_fchmod(c, i32(a[0]), (unsigned)a[1]);
  case SYS_bind: return gate_op_bind(c, i32(a[0]), a[1], a[2]);
  case SYS_connect: return gate_op_connect(c, i32(a[0]), a[1], a[2]);
  default: return -ENOSYS;
  }
}
