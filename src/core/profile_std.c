/* src/core/profile_std.c — the standard profiles and the built-in lists they use. */
#include "core/profile_impl.h"

#include <string.h>

const char *const cordon_profile_standard_names[] = {"read-only", "workspace-write", "danger-full-access", NULL};

/* Credentials an agent has no business reading unless an integration grants them (invariant 4).
 * Files are listed as subtrees too: a subtree of a file is the file, and a directory that later
 * appears with that name stays covered. */
const char *const cordon_profile_default_secrets[] = {
    "~/.ssh",                             /* keys, known_hosts, agent sockets */
    "~/.aws",                             /* AWS credentials and SSO caches */
    "~/.gnupg",                           /* GPG private keys */
    "~/.config/gcloud",                   /* Google Cloud tokens */
    "~/.azure",                           /* Azure CLI tokens */
    "~/.kube",                            /* Kubernetes cluster credentials */
    "~/.docker/config.json",              /* registry auth */
    "~/.netrc",                           /* passwords for curl, git, ftp */
    "~/.password-store",                  /* pass(1) */
    "~/.config/gh/hosts.yml",             /* GitHub CLI token */
    "~/.git-credentials",                 /* git credential-store */
    "~/.pypirc",                          /* PyPI upload tokens */
    "~/.cargo/credentials.toml",          /* crates.io token */
    "~/.vault-token",                     /* HashiCorp Vault */
    "~/.terraform.d/credentials.tfrc.json",
    "~/.config/op",                       /* 1Password CLI */
    "~/.local/share/keyrings",            /* GNOME keyring */
    "~/Library/Keychains",                /* macOS keychains */
    NULL,
};

/* What any process needs to start: binaries, libraries, system configuration, the dyld and framework
 * trees on macOS, and the few device nodes every runtime opens. */
const char *const cordon_profile_minimal_paths[] = {
    "/bin", "/sbin", "/usr/bin", "/usr/sbin", "/usr/lib", "/usr/libexec", "/usr/share", "/lib", "/lib64",
    "/etc", "/private/etc", "/System/Library", "/dev/null", "/dev/zero", "/dev/random", "/dev/urandom",
    NULL,
};

static cordon_profile_status add(cordon_profile *p, const char *path, cordon_special sp, cordon_access a,
                                 cordon_entry_match m) {
  cordon_profile_entry e = {path, sp, a, m};
  return cordon_profile_add_entry(p, &e);
}

static cordon_profile_status build(const char *name, cordon_profile *p) {
  cordon_profile_status st = cordon_profile_set_name(p, name);
  if (st != CORDON_PROFILE_OK) return st;
  if (strcmp(name, "danger-full-access") == 0) {
    cordon_profile_set_fs_kind(p, CORDON_FS_UNRESTRICTED);
    cordon_profile_set_network(p, CORDON_NETWORK_ENABLED);
    return CORDON_PROFILE_OK;
  }
  bool write = strcmp(name, "workspace-write") == 0;
  st = add(p, NULL, CORDON_SPECIAL_ROOT, CORDON_ACCESS_READ, CORDON_ENTRY_SUBTREE);
  if (write) {
    if (st == CORDON_PROFILE_OK)
      st = add(p, NULL, CORDON_SPECIAL_WORKSPACE_ROOTS, CORDON_ACCESS_WRITE, CORDON_ENTRY_SUBTREE);
    if (st == CORDON_PROFILE_OK) st = add(p, NULL, CORDON_SPECIAL_TMPDIR, CORDON_ACCESS_WRITE, CORDON_ENTRY_SUBTREE);
    if (st == CORDON_PROFILE_OK) st = add(p, NULL, CORDON_SPECIAL_SLASH_TMP, CORDON_ACCESS_WRITE, CORDON_ENTRY_SUBTREE);
  }
  for (size_t i = 0; st == CORDON_PROFILE_OK && cordon_profile_default_secrets[i]; i++)
    st = add(p, cordon_profile_default_secrets[i], CORDON_SPECIAL_NONE, CORDON_ACCESS_DENY, CORDON_ENTRY_SUBTREE);
  return st;
}

cordon_profile_status cordon_profile_standard(const char *name, cordon_profile **out) {
  *out = NULL;
  bool known = false;
  for (size_t i = 0; name && cordon_profile_standard_names[i]; i++)
    known = known || strcmp(name, cordon_profile_standard_names[i]) == 0;
  if (!known) return CORDON_PROFILE_UNKNOWN_PROFILE;
  cordon_profile *p = cordon_profile_new(CORDON_PROFILE_MANAGED);
  if (!p) return CORDON_PROFILE_NOMEM;
  cordon_profile_status st = build(name, p);
  if (st != CORDON_PROFILE_OK) {
    cordon_profile_free(p);
    return st;
  }
  *out = p;
  return CORDON_PROFILE_OK;
}
