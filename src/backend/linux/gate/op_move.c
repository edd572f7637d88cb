/* src/backend/linux/gate/op_move.c — link(at) and rename(at|at2) */
#include "backend/linux/gate/gate_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#define RENAME_EXCHANGE (1 << 1)
#define RENAME_WHITEOUT (1 << 2)
#endif

/* Reads and resolves one path argument (the final name not followed unless `how` says). 1: the path
 * is empty and `empty_ok` (AT_EMPTY_PATH). */
static int resolve_arg(gate_call *c, int dirfd, uint64_t addr, unsigned how, bool empty_ok, gate_path *p) {
  char path[GATE_PATH_MAX];
  memset(p, 0, sizeof *p);
  p->dir = p->obj = -1;
  int base, rc = caller_string(c, addr, path);
  if (rc < 0) return rc;
  if (!path[0]) return empty_ok ? 1 : -ENOENT;
  if ((rc = caller_base(c, dirfd, path, &base)) < 0) return rc;
  rc = gate_resolve(c, base, path, how, p);
  if (base >= 0) close(base);
  return rc;
}

/* The policy and git's rules for moving the object at `from` to `to`. `replacing`: a regular file
 * that git_replace will put onto a git config or todo list. */
static int may_move(gate_call *c, const gate_path *from, const gate_path *to, bool to_exists, bool replacing) {
  cordon_lx_gate *g = c->g;
  char fpath[GATE_PATH_MAX], tpath[GATE_PATH_MAX], tdpath[GATE_PATH_MAX];
  int rc = gate_may_change(c, from, CORDON_LX_REMOVE, GIT_MOVE_AWAY, "rename", fpath);
  if (rc < 0) return rc;
  if (to_exists && (rc = gate_may_change(c, to, CORDON_LX_REMOVE, GIT_REPLACE, "rename", tpath)) < 0) return rc;
  bool is_dir = S_ISDIR(from->st.st_mode);
  git_kind kind = GIT_PLAIN;
  int how = is_dir ? GIT_RENAME_DIR : replacing ? GIT_RENAME_FILE : GIT_MKFILE;
  rc = gate_may_create(c, to->dir, to->name, how, "rename", tpath, &kind);
  if (rc < 0) return rc;
  /* a tree or a link moved gives the paths beneath both names another meaning */
  if (is_dir && ((rc = gate_may_alias(c, fpath, from->obj, "rename")) < 0 ||
                 (rc = gate_may_alias(c, tpath, from->obj, "rename")) < 0))
    return rc;
  if (S_ISLNK(from->st.st_mode) && ((rc = gate_may_symlink(c, to->dir, tpath, NULL, "rename")) < 0 ||
                                    (rc = gate_may_alias(c, tpath, -1, "rename")) < 0))
    return rc;
  gate_split_path(tpath, tdpath);
  if (is_dir && (kind == GIT_HOOKS_DIR || kind == GIT_GITDIR || git_is_gitdir(to->dir, tdpath))) {
    const char *why = git_tree_refusal(g, from->obj, to->name);
    if (why) {
      char text[512];
      snprintf(text, sizeof text, "a directory moved into a git directory must hold what git's rules allow there, "
               "and %s", why);
      gate_refuse(g, "rename", tpath, text, git_rule_name(kind == GIT_PLAIN ? GIT_GITDIR : kind));
      return -EPERM;
    }
  }
  if (is_dir) {
    const char *why = gate_nested_tree_refusal(g, from->obj, tpath, to_exists ? &to->st : NULL);
    if (why) {
      char text[512];
      snprintf(text, sizeof text, "a directory moved where one that was there at launch stood counts as that "
               "directory, and %s", why);
      gate_refuse(g, "rename", tpath, text, "nested rule: project file");
      return -EPERM;
    }
  }
  return 0;
}

long gate_op_rename(gate_call *c, int olddir, uint64_t old_addr, int newdir, uint64_t new_addr, unsigned flags) {
  if (flags & ~(unsigned)(RENAME_NOREPLACE | RENAME_EXCHANGE | RENAME_WHITEOUT)) return -EINVAL;
  if ((flags & RENAME_EXCHANGE) && (flags & (RENAME_NOREPLACE | RENAME_WHITEOUT))) return -EINVAL;
  bool exchange = flags & RENAME_EXCHANGE;
  gate_path from, to;
  long r = resolve_arg(c, olddir, old_addr, 0, false, &from);
  int rt = resolve_arg(c, newdir, new_addr, 0, false, &to);
  if (r == 0) r = rt;
  if (r < 0) goto out;
  if (from.kind != GP_NAME || to.kind != GP_NAME) r = (flags & RENAME_NOREPLACE) && to.kind != GP_NAME ? -EEXIST : -EBUSY;
  else if (from.obj < 0) r = -ENOENT;
  else if (exchange && to.obj < 0) r = -ENOENT;
  else if ((from.slash && !S_ISDIR(from.st.st_mode)) || (to.slash && !S_ISDIR(from.st.st_mode)) ||
           (exchange && to.slash && !S_ISDIR(to.st.st_mode)))
    r = -ENOTDIR;
  else if ((flags & RENAME_NOREPLACE) && to.obj >= 0) r = -EEXIST;
  else if (!gate_still_valid(c)) r = -EINTR;
  if (r < 0) goto out;
  bool to_exists = to.obj >= 0;
  /* git's replace: a regular file renamed onto a git config or todo list */
  git_kind kind = GIT_PLAIN;
  char tpath[GATE_PATH_MAX], tdpath[GATE_PATH_MAX], fpath[GATE_PATH_MAX];
  if ((r = gate_join_path(c->g, to.dir, to.name, tpath, sizeof tpath)) < 0) goto out;
  gate_split_path(tpath, tdpath);
  kind = git_name_kind(to.dir, tdpath, to.name);
  if ((kind == GIT_CONFIG || kind == GIT_SEQUENCER_LIST || kind == GIT_SEQUENCER_OPTS || kind == GIT_INDEX) && !exchange &&
      S_ISREG(from.st.st_mode)) {
    if ((r = may_move(c, &from, &to, to_exists, true)) < 0) goto out;
    if ((r = gate_join_path(c->g, from.dir, from.name, fpath, sizeof fpath)) < 0) goto out;
    r = git_replace(c, kind, from.dir, from.name, fpath, to.dir, to.name, tpath);
    goto out;
  }
  if ((r = may_move(c, &from, &to, to_exists, false)) < 0) goto out;
  if (exchange && (r = may_move(c, &to, &from, true, false)) < 0) goto out;
  rt = flags ? (int)syscall(SYS_renameat2, from.dir, from.name, to.dir, to.name, flags)
             : renameat(from.dir, from.name, to.dir, to.name);
  r = rt < 0 ? -errno : 0;
  /* a directory that was there at launch, moved away: what is made at its name later counts as it */
  if (r == 0 && S_ISDIR(from.st.st_mode) && !gate_made_has(c->g->made, from.st.st_dev, from.st.st_ino) &&
      gate_join_path(c->g, from.dir, from.name, fpath, sizeof fpath) == 0)
    gate_made_vacate(c->g->made, fpath);
out:
  gate_path_close(&from);
  gate_path_close(&to);
  return r;
}

long gate_op_link(gate_call *c, int olddir, uint64_t old_addr, int newdir, uint64_t new_addr, int flags) {
  if (flags & ~(AT_SYMLINK_FOLLOW | AT_EMPTY_PATH)) return -EINVAL;
  gate_path from, to;
  long r = resolve_arg(c, olddir, old_addr, (flags & AT_SYMLINK_FOLLOW) ? GR_FOLLOW | GR_SLASH : GR_SLASH,
                       (flags & AT_EMPTY_PATH) != 0, &from);
  if (r == 1) {
    /* linkat(fd, "", …, AT_EMPTY_PATH): the caller's descriptor itself (an O_TMPFILE file, say) */
    int fd = olddir == AT_FDCWD ? caller_cwd(c) : caller_fd(c, olddir);
    if (fd < 0) r = fd;
    else {
      from.kind = GP_MAGIC, from.obj = fd;
      r = fstat(fd, &from.st) == 0 ? 0 : -errno;
    }
  }
  int rt = resolve_arg(c, newdir, new_addr, 0, false, &to);
  if (r == 0) r = rt;
  if (r < 0) goto out;
  if (from.kind == GP_DOT || from.kind == GP_DOTDOT || from.kind == GP_ROOT) r = -EPERM;  /* a directory */
  else if (from.obj < 0) r = -ENOENT;
  else if (S_ISDIR(from.st.st_mode)) r = -EPERM;
  else if (to.kind != GP_NAME || to.obj >= 0) r = -EEXIST;
  else if (to.slash) r = -ENOENT;
  else if (!gate_still_valid(c)) r = -EINTR;
  if (r < 0) goto out;
  char fpath[GATE_PATH_MAX], tpath[GATE_PATH_MAX];
  /* A new name for a file the policy keeps read-only would let it be written there. The kernel answers
   * such a link EXDEV (Landlock's refer rule, or two mounts of the view), and tools copy instead (git
   * clone --local, cp -al): so does the gate, without a refusal line for what is no attack. */
  const lx_xrule *why = NULL;
  if ((r = from.kind == GP_NAME ? gate_join_path(c->g, from.dir, from.name, fpath, GATE_PATH_MAX)
                                : gate_fd_path(c->g, from.obj, fpath, GATE_PATH_MAX)) < 0)
    goto out;
  if (fpath[0] == '/' && !lx_decide_why(&c->g->rules, CORDON_LX_WRITE, fpath, &why)) {
    r = -EXDEV;
    goto out;
  }
  if ((r = gate_may_change(c, &from, CORDON_LX_WRITE, GIT_LINK_FROM, "link", fpath)) < 0) goto out;
  if ((r = gate_may_create(c, to.dir, to.name, GIT_LINK, "link", tpath, NULL)) < 0) goto out;
  if (S_ISLNK(from.st.st_mode) && (r = gate_may_symlink(c, to.dir, tpath, NULL, "link")) < 0) goto out;
  if (from.kind == GP_NAME) rt = linkat(from.dir, from.name, to.dir, to.name, 0);
  else {
    /* through the descriptor: linkat(AT_EMPTY_PATH) would ask for the opener's credentials */
    char self[32];
    gate_self_path(from.obj, self);
    rt = linkat(AT_FDCWD, self, to.dir, to.name, AT_SYMLINK_FOLLOW);
  }
  r = rt < 0 ? -errno : 0;
out:
  gate_path_close(&from);
  gate_path_close(&to);
  return r;
}
