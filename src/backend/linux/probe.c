/* src/backend/linux/probe.c — what the kernel offers, and hints a user can act on when it is not enough */
#include "backend/linux/landlock.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static int read_int(const char *path, int dflt) {
  FILE *f = fopen(path, "re");
  if (!f) return dflt;
  int v = dflt;
  if (fscanf(f, "%d", &v) != 1) v = dflt;
  fclose(f);
  return v;
}

void cordon_lx_probe(cordon_lx_probe_result *out) {
  memset(out, 0, sizeof *out);
  out->abi = cordon_lx_landlock_abi(&out->landlock_errno);
  struct utsname u;
  if (uname(&u) == 0) snprintf(out->kernel, sizeof out->kernel, "%s", u.release);
  /* Debian's switch, the generic limit, and Ubuntu's AppArmor restriction (FIELD-NOTES: Codex users on
   * Ubuntu 24.04 hit "setting up uid map: Permission denied"). Root needs none of them. */
  out->userns = geteuid() == 0 ||
                (read_int("/proc/sys/kernel/unprivileged_userns_clone", 1) != 0 &&
                 read_int("/proc/sys/user/max_user_namespaces", 1) != 0 &&
                 read_int("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", 0) == 0);
}

cordon_lx_status cordon_lx_check(const cordon_lx_probe_result *pr, unsigned min_abi, bool best_effort, cordon_buf *msg) {
  if (pr->abi == 0) {
    if (pr->landlock_errno == EOPNOTSUPP)
      cordon_buf_printf(msg, "Landlock is built into kernel %s but disabled: add \"landlock\" to the lsm= boot "
                             "parameter (see /sys/kernel/security/lsm for the current list, e.g. "
                             "lsm=landlock,lockdown,yama,integrity,apparmor,bpf) and reboot", pr->kernel);
    else
      cordon_buf_printf(msg, "kernel %s has no Landlock (%s): cordon needs Linux 6.2 or newer built with "
                             "CONFIG_SECURITY_LANDLOCK=y", pr->kernel, strerror(pr->landlock_errno));
    return CORDON_LX_NOT_AVAILABLE;
  }
  if (!best_effort && (unsigned)pr->abi < min_abi) {
    cordon_buf_printf(msg, "kernel %s has Landlock ABI %d; cordon needs ABI %u (Linux 6.2+: below it a "
                           "read-only file can still be truncated). Upgrade the kernel, or pass --best-effort "
                           "to run with what this kernel enforces", pr->kernel, pr->abi, min_abi);
    return CORDON_LX_NOT_AVAILABLE;
  }
  return CORDON_LX_OK;
}

const char *cordon_lx_status_name(cordon_lx_status s) {
  switch (s) {
  case CORDON_LX_OK: return "ok";
  case CORDON_LX_NOT_AVAILABLE: return "backend_not_available";
  case CORDON_LX_INVALID: return "invalid_request";
  case CORDON_LX_NOT_EXPRESSIBLE: return "policy_not_expressible";
  case CORDON_LX_SETUP_FAILED: return "sandbox_setup_failed";
  case CORDON_LX_NOT_FOUND: return "command_not_found";
  case CORDON_LX_NOT_EXECUTABLE: return "command_not_executable";
  case CORDON_LX_NOMEM: return "nomem";
  }
  return "unknown";
}
