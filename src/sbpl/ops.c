/* src/sbpl/ops.c — the Seatbelt operation vocabulary */
#include "sbpl/ops.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  const char *name;
  const char *parent; /* NULL only for "default" */
  bool uncovered;     /* (deny default) does not reach this operation or its family */
} op_entry;

/* Sorted by name (strcmp order, checked by tests/c/test_ops.c) so lookups are a binary search. */
static const op_entry ops[] = {
    {"appleevent-send", "default", false},
    {"authorization-right-obtain", "default", false},
    {"boot-arg-set", "default", false},
    {"darwin-notification-post", "default", false},
    {"default", NULL, false},
    {"device*", "default", false},
    {"device-camera", "device*", false},
    {"device-microphone", "device*", false},
    {"distributed-notification-post", "default", false},
    {"dynamic-code-generation", "default", false},
    {"file*", "default", false},
    {"file-chroot", "file*", false},
    {"file-clone", "file*", false},
    {"file-ioctl", "file*", false},
    {"file-issue-extension", "file*", false},
    {"file-link", "file*", false},
    {"file-map-executable", "file*", true},
    {"file-mknod", "file*", false},
    {"file-mount", "file*", false},
    {"file-mount-update", "file*", false},
    {"file-read*", "file*", false},
    {"file-read-data", "file-read*", false},
    {"file-read-metadata", "file-read*", false},
    {"file-read-xattr", "file-read*", false},
    {"file-revoke", "file*", false},
    {"file-search", "file*", false},
    {"file-test-existence", "file*", false},
    {"file-unmount", "file*", false},
    {"file-write*", "file*", false},
    {"file-write-acl", "file-write*", false},
    {"file-write-create", "file-write*", false},
    {"file-write-data", "file-write*", false},
    {"file-write-finderinfo", "file-write*", false},
    {"file-write-flags", "file-write*", false},
    {"file-write-mode", "file-write*", false},
    {"file-write-owner", "file-write*", false},
    {"file-write-setugid", "file-write*", false},
    {"file-write-times", "file-write*", false},
    {"file-write-unlink", "file-write*", false},
    {"file-write-xattr", "file-write*", false},
    {"fs-rename", "default", false},
    {"fs-snapshot*", "default", false},
    {"fs-snapshot-create", "fs-snapshot*", false},
    {"fs-snapshot-delete", "fs-snapshot*", false},
    {"fs-snapshot-elevate", "fs-snapshot*", false},
    {"fs-snapshot-mount", "fs-snapshot*", false},
    {"fs-snapshot-revert", "fs-snapshot*", false},
    {"generic-issue-extension", "default", false},
    {"hid-control", "default", false},
    {"iokit*", "default", false},
    {"iokit-get-properties", "iokit*", true},
    {"iokit-issue-extension", "iokit*", false},
    {"iokit-open", "iokit*", false},
    {"iokit-set-properties", "iokit*", false},
    {"ipc*", "default", false},
    {"ipc-posix*", "ipc*", false},
    {"ipc-posix-issue-extension", "ipc-posix*", false},
    {"ipc-posix-sem*", "ipc-posix*", false},
    {"ipc-posix-sem-create", "ipc-posix-sem*", false},
    {"ipc-posix-sem-open", "ipc-posix-sem*", false},
    {"ipc-posix-sem-post", "ipc-posix-sem*", false},
    {"ipc-posix-sem-unlink", "ipc-posix-sem*", false},
    {"ipc-posix-sem-wait", "ipc-posix-sem*", false},
    {"ipc-posix-shm*", "ipc-posix*", false},
    {"ipc-posix-shm-read*", "ipc-posix-shm*", false},
    {"ipc-posix-shm-read-data", "ipc-posix-shm-read*", false},
    {"ipc-posix-shm-read-metadata", "ipc-posix-shm-read*", false},
    {"ipc-posix-shm-write*", "ipc-posix-shm*", false},
    {"ipc-posix-shm-write-create", "ipc-posix-shm-write*", false},
    {"ipc-posix-shm-write-data", "ipc-posix-shm-write*", false},
    {"ipc-posix-shm-write-unlink", "ipc-posix-shm-write*", false},
    {"ipc-sysv*", "ipc*", false},
    {"ipc-sysv-msg", "ipc-sysv*", false},
    {"ipc-sysv-sem", "ipc-sysv*", false},
    {"ipc-sysv-shm", "ipc-sysv*", false},
    {"job-creation", "default", false},
    {"load-unsigned-code", "default", false},
    {"lsopen", "default", false},
    {"mach*", "default", false},
    {"mach-bootstrap", "mach*", false},
    {"mach-cross-domain-lookup", "mach*", false},
    {"mach-host*", "mach*", false},
    {"mach-host-exception-port-set", "mach-host*", false},
    {"mach-host-special-port-set", "mach-host*", false},
    {"mach-issue-extension", "mach*", false},
    {"mach-kernel-endpoint", "mach*", false},
    {"mach-lookup", "mach*", false},
    {"mach-per-user-lookup", "mach*", false},
    {"mach-priv*", "mach*", false},
    {"mach-priv-host-port", "mach-priv*", false},
    {"mach-priv-task-port", "mach-priv*", false},
    {"mach-register", "mach*", false},
    {"mach-task*", "mach*", false},
    {"mach-task-inspect", "mach-task*", false},
    {"mach-task-name", "mach-task*", false},
    {"mach-task-read", "mach-task*", false},
    {"managed-preference-read", "default", false},
    {"network*", "default", false},
    {"network-bind", "network*", false},
    {"network-inbound", "network*", false},
    {"network-outbound", "network*", false},
    {"nvram*", "default", true},
    {"nvram-delete", "nvram*", true},
    {"nvram-get", "nvram*", true},
    {"nvram-set", "nvram*", true},
    {"opendirectory-user-modify", "default", false},
    {"process*", "default", false},
    {"process-codesigning*", "process*", false},
    {"process-codesigning-status*", "process-codesigning*", false},
    {"process-codesigning-status-get", "process-codesigning-status*", false},
    {"process-codesigning-status-set", "process-codesigning-status*", false},
    {"process-exec*", "process*", false},
    {"process-exec-interpreter", "process-exec*", false},
    {"process-fork", "process*", false},
    {"process-info*", "process*", true},
    {"process-info-codesignature", "process-info*", true},
    {"process-info-dirtycontrol", "process-info*", true},
    {"process-info-ledger", "process-info*", true},
    {"process-info-listpids", "process-info*", true},
    {"process-info-pidfdinfo", "process-info*", true},
    {"process-info-pidfileportinfo", "process-info*", true},
    {"process-info-pidinfo", "process-info*", true},
    {"process-info-rusage", "process-info*", true},
    {"process-info-setcontrol", "process-info*", true},
    {"pseudo-tty", "default", false},
    {"qtn-download", "default", false},
    {"qtn-sandbox", "default", false},
    {"qtn-user", "default", false},
    {"signal", "default", false},
    {"socket-ioctl", "default", false},
    {"socket-option*", "default", false},
    {"socket-option-get", "socket-option*", false},
    {"socket-option-set", "socket-option*", false},
    {"storage-class-map", "default", false},
    {"sysctl*", "default", false},
    {"sysctl-read", "sysctl*", false},
    {"sysctl-write", "sysctl*", false},
    {"system*", "default", false},
    {"system-acct", "system*", false},
    {"system-audit", "system*", false},
    {"system-automount", "system*", false},
    {"system-chud", "system*", false},
    {"system-debug", "system*", false},
    {"system-fsctl", "system*", false},
    {"system-info", "system*", false},
    {"system-kext*", "system*", false},
    {"system-kext-load", "system-kext*", false},
    {"system-kext-query", "system-kext*", false},
    {"system-kext-unload", "system-kext*", false},
    {"system-lcid", "system*", false},
    {"system-mac-label", "system*", false},
    {"system-mac-syscall", "system*", false},
    {"system-necp-client-action", "system*", false},
    {"system-nfssvc", "system*", false},
    {"system-package-check", "system*", false},
    {"system-privilege", "system*", false},
    {"system-reboot", "system*", false},
    {"system-sched", "system*", false},
    {"system-set-time", "system*", false},
    {"system-socket", "system*", false},
    {"system-suspend-resume", "system*", false},
    {"system-swap", "system*", false},
    {"system-write-bootstrap", "system*", false},
    {"user-preference*", "default", false},
    {"user-preference-read", "user-preference*", false},
    {"user-preference-write", "user-preference*", false},
};

#define NOPS (sizeof ops / sizeof ops[0])

/* Spellings real profiles use that name another operation. Older macOS had single operations where
 * newer releases have a family; the family keeps such profiles meaning what they meant. */
static const struct {
  const char *alias, *canonical;
} aliases[] = {
    {"file-fsctl", "system-fsctl"},
    {"file-issue-extension*", "file-issue-extension"},
    {"file-issue-extension-read", "file-issue-extension"},
    {"file-issue-extension-write", "file-issue-extension"},
    {"file-unlink", "file-write-unlink"},
    {"file-write-mount", "file-mount"},
    {"file-write-umount", "file-unmount"},
    {"file-write-unmount", "file-unmount"},
    {"ipc-posix-sem", "ipc-posix-sem*"},
    {"ipc-posix-shm", "ipc-posix-shm*"},
    {"ipc-posix-shm-read", "ipc-posix-shm-read*"},
    {"ipc-posix-shm-write", "ipc-posix-shm-write*"},
    {"mach-priv", "mach-priv*"},
    {"managed-preference*", "managed-preference-read"},
    {"process-exec", "process-exec*"},
    {"process-info", "process-info*"},
    {"system-misc", "system*"},
    {"time-set", "system-set-time"},
};

static int cmp_name(const void *key, const void *elem) {
  return strcmp((const char *)key, ((const op_entry *)elem)->name);
}

int cordon_sbpl_op_index(const char *name) {
  if (!name) return -1;
  const op_entry *e = bsearch(name, ops, NOPS, sizeof ops[0], cmp_name);
  return e ? (int)(e - ops) : -1;
}

unsigned cordon_sbpl_op_count(void) { return (unsigned)NOPS; }

const char *cordon_sbpl_op_canonical(const char *name) {
  int i = cordon_sbpl_op_index(name);
  if (i >= 0) return ops[i].name;
  for (size_t k = 0; k < sizeof aliases / sizeof aliases[0]; k++)
    if (!strcmp(aliases[k].alias, name)) return cordon_sbpl_op_canonical(aliases[k].canonical);
  return NULL;
}

const char *cordon_sbpl_op_parent(const char *canonical) {
  int i = cordon_sbpl_op_index(canonical);
  if (i < 0 || !ops[i].parent) return NULL;
  return ops[cordon_sbpl_op_index(ops[i].parent)].name;
}

int cordon_sbpl_op_parent_index(int index) {
  if (index < 0 || (unsigned)index >= NOPS || !ops[index].parent) return -1;
  return cordon_sbpl_op_index(ops[index].parent);
}

bool cordon_sbpl_op_default_covers(const char *canonical) {
  int i = cordon_sbpl_op_index(canonical);
  return i >= 0 && !ops[i].uncovered;
}

bool cordon_sbpl_op_default_covers_index(int index) {
  return index >= 0 && (unsigned)index < NOPS && !ops[index].uncovered;
}

bool cordon_sbpl_op_within(const char *op, const char *canonical) {
  int want = cordon_sbpl_op_index(canonical);
  if (want < 0) return false;
  size_t n = strlen(canonical);
  bool wildcard = n > 0 && canonical[n - 1] == '*';
  if (!wildcard && strcmp(canonical, "default") != 0) return false;
  for (int i = cordon_sbpl_op_index(op); i >= 0; i = cordon_sbpl_op_parent_index(i))
    if (i == want) return true;
  return false;
}

const char *cordon_sbpl_op_at(unsigned i) { return i < NOPS ? ops[i].name : NULL; }

/* sbpl.scm's modifiers, its deprecated ones (no-callout, partial-symbolication, termination: accepted,
 * then dropped or rewritten), and the names newer releases add. */
static const char *const modifiers[] = {
    "assign-storage-class", "deprecated", "file-approval-override", "grant", "grant-extension", "message",
    "no-callout", "no-log", "no-profile", "no-report", "no-sandbox", "no-times", "partial-symbolication",
    "report", "rootless", "send-signal", "telemetry", "telemetry-backtrace", "termination", "user-approval",
};

bool cordon_sbpl_modifier_known(const char *name) {
  for (size_t i = 0; i < sizeof modifiers / sizeof modifiers[0]; i++)
    if (!strcmp(modifiers[i], name)) return true;
  return false;
}
