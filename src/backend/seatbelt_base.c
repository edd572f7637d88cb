/* src/backend/seatbelt_base.c — the Seatbelt base policy and the IR builders the backend uses.
 *
 * The base policy is deliberately small: (deny default), then only what a process needs to start and
 * talk to the system on macOS. Everything a profile grants (roots, denies, metadata, network) comes
 * after it, from seatbelt.c. Fixed system paths are literals; nothing here varies per run. */
#include "backend/seatbelt_build.h"

#include <stdlib.h>
#include <string.h>

cordon_filter *sb_path(sb_builder *b, const char *name, const char *text, bool param) {
  cordon_filter *f = cordon_filter_path(name, text, param);
  if (!f) b->oom = true;
  return f;
}

cordon_filter *sb_name(sb_builder *b, const char *name, const char *text) {
  cordon_filter *f = cordon_filter_new(CORDON_F_NAME, name, cordon_match_for_name(name));
  if (f && !cordon_filter_add_arg(f, text, false)) {
    cordon_filter_free(f);
    f = NULL;
  }
  if (!f) b->oom = true;
  return f;
}

cordon_filter *sb_net(sb_builder *b, const char *side, const char *proto, const char *address) {
  cordon_filter *f = cordon_filter_new(CORDON_F_NETWORK, side, CORDON_MATCH_NONE);
  if (f && (!cordon_filter_add_arg(f, proto, false) || (address && !cordon_filter_add_arg(f, address, false)))) {
    cordon_filter_free(f);
    f = NULL;
  }
  if (!f) b->oom = true;
  return f;
}

cordon_filter *sb_group(sb_builder *b, cordon_filter_kind kind, size_t n, cordon_filter **children) {
  const char *name = kind == CORDON_F_ALL ? "require-all" : kind == CORDON_F_ANY ? "require-any" : "require-not";
  cordon_filter *g = cordon_filter_new(kind, name, CORDON_MATCH_NONE);
  size_t i = 0;
  for (; g && i < n; i++) {
    if (children[i] && !cordon_filter_add_child(g, children[i])) {  /* add_child frees on failure */
      cordon_filter_free(g);
      g = NULL;
      i++;
      break;
    }
  }
  for (; i < n; i++) cordon_filter_free(children[i]);
  if (!g) b->oom = true;
  return g;
}

cordon_filter *sb_not(sb_builder *b, cordon_filter *child) { return sb_group(b, CORDON_F_NOT, 1, &child); }

cordon_filter *sb_any_path(sb_builder *b, const char *name, const char *const *paths) {
  cordon_filter *g = sb_group(b, CORDON_F_ANY, 0, NULL);
  for (size_t i = 0; g && paths[i]; i++) {
    cordon_filter *f = sb_path(b, name, paths[i], false);
    if (!f || !cordon_filter_add_child(g, f)) {
      b->oom = true;
      cordon_filter_free(g);
      return NULL;
    }
  }
  return g;
}

cordon_rule *sb_rule(sb_builder *b, cordon_action action, const char *ops, cordon_filter *filter, const char *comment) {
  cordon_loc loc = {cordon_policy_intern(b->policy, "<seatbelt>"), 0, 0};
  cordon_rule *r = b->oom || !loc.file ? NULL : cordon_policy_add_rule(b->policy, action, loc);
  if (!r) {
    b->oom = true;
    cordon_filter_free(filter);
    return NULL;
  }
  r->loc.line = (unsigned)b->policy->nrules;  /* the rule's position: explanations can point at it */
  r->filter = filter;
  if (comment && !(r->comment = strdup(comment))) b->oom = true;
  char op[64];
  for (const char *p = ops; *p;) {
    size_t n = strcspn(p, " ");
    if (n && n < sizeof op) {
      memcpy(op, p, n);
      op[n] = 0;
      if (!cordon_rule_add_op(r, op)) b->oom = true;
    }
    p += n;
    while (*p == ' ') p++;
  }
  return b->oom ? NULL : r;
}

/* Read-only system locations a process needs to start: dyld and its shared cache (which lives in the
 * Preboot cryptex on macOS 13 and later), the system frameworks, the standard tools, shared data such
 * as terminfo and zoneinfo. */
static const char *const system_read[] = {
  "/System", "/usr/lib", "/usr/libexec", "/usr/share", "/usr/bin", "/usr/sbin", "/bin", "/sbin",
  "/Library/Apple", "/private/var/db/dyld", "/System/Volumes/Preboot/Cryptexes",
  "/private/var/db/timezone", "/private/etc", NULL,
};

/* Device files any shell or build tool opens for both reading and writing. */
static const char *const devices_rw[] = {"/dev/null", "/dev/zero", "/dev/dtracehelper", "/dev/tty", "/dev/ptmx", NULL};
static const char *const devices_ro[] = {"/dev/random", "/dev/urandom", "/dev/fd", NULL};

/* Mach services libSystem uses on its own: user and group lookup (getpwuid), notifications, logging,
 * and certificate trust (Go and other TLS stacks fail without trustd, FIELD-NOTES / srt #118);
 * sysmond lets `ps` list this sandbox's processes. */
static const char *const mach_services[] = {
  "com.apple.system.opendirectoryd.libinfo", "com.apple.system.opendirectoryd.membership",
  "com.apple.system.notification_center", "com.apple.system.logger", "com.apple.logd",
  "com.apple.diagnosticd", "com.apple.trustd.agent", "com.apple.sysmond", NULL,
};

/* With the network enabled: DNS goes through mDNSResponder, and proxy settings through configd. */
static const char *const network_services[] = {
  "com.apple.dnssd.service", "com.apple.SystemConfiguration.configd",
  "com.apple.SystemConfiguration.DNSConfiguration", NULL,
};

static cordon_filter *any_name(sb_builder *b, const char *name, const char *const *names) {
  cordon_filter *g = sb_group(b, CORDON_F_ANY, 0, NULL);
  for (size_t i = 0; g && names[i]; i++) {
    cordon_filter *f = sb_name(b, name, names[i]);
    if (!f || !cordon_filter_add_child(g, f)) {
      b->oom = true;
      cordon_filter_free(g);
      return NULL;
    }
  }
  return g;
}

void cordon_seatbelt_base_rules(sb_builder *b, bool network) {
  sb_rule(b, CORDON_DENY, "default", NULL, "Everything not granted below is denied.");
  sb_rule(b, CORDON_ALLOW, "process-exec* process-fork", NULL,
          "Shells and build tools run programs and fork; the file rules still limit what those programs touch.");
  sb_rule(b, CORDON_ALLOW, "signal", sb_name(b, "target", "same-sandbox"),
          "Signals only to processes inside this sandbox.");
  sb_rule(b, CORDON_ALLOW, "sysctl-read", NULL, "CPU count, page size, OS version: read by libc and every runtime.");
  sb_rule(b, CORDON_ALLOW, "file-read-metadata", NULL,
          "stat() anywhere (a fallback: filtered denies still win), so path lookups, getcwd and symlinks work.");
  sb_rule(b, CORDON_ALLOW, "file-read*", sb_path(b, "literal", "/", false), "Listing the root directory.");
  sb_rule(b, CORDON_ALLOW, "file-read*", sb_any_path(b, "subpath", system_read),
          "System libraries, the dyld cache, standard tools and shared data: needed to start any process.");
  sb_rule(b, CORDON_ALLOW, "file-read* file-write-data file-ioctl", sb_any_path(b, "literal", devices_rw),
          "Null, zero and terminal devices.");
  sb_rule(b, CORDON_ALLOW, "file-read* file-write-data file-ioctl", sb_path(b, "regex", "^/dev/ttys[0-9]+$", false),
          "The pseudo-terminal a command runs in.");
  sb_rule(b, CORDON_ALLOW, "pseudo-tty", NULL, "Allocating a pseudo-terminal (script, expect, editors).");
  sb_rule(b, CORDON_ALLOW, "file-read*", sb_any_path(b, "subpath", devices_ro), "Random numbers and /dev/fd.");
  sb_rule(b, CORDON_ALLOW, "mach-lookup", any_name(b, "global-name", mach_services),
          "User lookup, notifications, logging, certificate trust, process listing.");
  sb_rule(b, CORDON_ALLOW, "ipc-posix-shm-read-data", sb_name(b, "ipc-posix-name", "apple.shm.notification_center"),
          "The shared page notify(3) reads.");
  if (network) {
    sb_rule(b, CORDON_ALLOW, "mach-lookup", any_name(b, "global-name", network_services),
            "Name resolution and proxy configuration (network enabled).");
    cordon_filter *dns = sb_net(b, "remote", "unix-socket", NULL);
    cordon_filter *sock = dns ? cordon_filter_path("path-literal", "/private/var/run/mDNSResponder", false) : NULL;
    if (dns && (!sock || !cordon_filter_add_child(dns, sock))) b->oom = true;
    sb_rule(b, CORDON_ALLOW, "network-outbound", dns,
            "DNS queries go to mDNSResponder over this socket (network enabled).");
  }
}
