/* src/core/profile.h — permission profiles: what a sandboxed command may read, write and reach */
#ifndef CORDON_PROFILE_H
#define CORDON_PROFILE_H
#include "core/buf.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum {
  CORDON_PROFILE_OK = 0,
  CORDON_PROFILE_NOMEM,
  CORDON_PROFILE_INVALID_PATH,     /* entry path not absolute/normalizable (and not "~/…") */
  CORDON_PROFILE_INVALID_ENTRY,    /* neither or both of path and special; a bad enum value */
  CORDON_PROFILE_INVALID_NAME,     /* protected entry not a segment, "/REL" or "~/REL" (empty, ".", "..") */
  CORDON_PROFILE_UNKNOWN_PROFILE,  /* cordon_profile_standard: no such name */
  CORDON_PROFILE_NOT_MANAGED,      /* filesystem/network settings on a disabled or external profile */
} cordon_profile_status;

/* "ok", "nomem", "invalid_path", "invalid_entry", "invalid_name", "unknown_profile", "not_managed". */
const char *cordon_profile_status_name(cordon_profile_status s);

typedef enum { CORDON_PROFILE_MANAGED = 0, CORDON_PROFILE_DISABLED, CORDON_PROFILE_EXTERNAL } cordon_profile_kind;
typedef enum { CORDON_FS_RESTRICTED = 0, CORDON_FS_UNRESTRICTED } cordon_fs_kind;
typedef enum { CORDON_NETWORK_RESTRICTED = 0, CORDON_NETWORK_ENABLED } cordon_network;
typedef enum { CORDON_ACCESS_READ = 0, CORDON_ACCESS_WRITE, CORDON_ACCESS_DENY } cordon_access;
/* Named apart from the IR's cordon_match (literal/subpath/…): an entry matches exactly or a subtree. */
typedef enum { CORDON_ENTRY_EXACT = 0, CORDON_ENTRY_SUBTREE } cordon_entry_match;
typedef enum {
  CORDON_SPECIAL_NONE = 0,        /* the entry names a path */
  CORDON_SPECIAL_ROOT,            /* ":root"            → "/" */
  CORDON_SPECIAL_WORKSPACE_ROOTS, /* ":workspace_roots" → each of ctx->workspace_roots */
  CORDON_SPECIAL_TMPDIR,          /* ":tmpdir"          → ctx->tmpdir (nothing when NULL) */
  CORDON_SPECIAL_SLASH_TMP,       /* ":slash_tmp"       → ctx->slash_tmp, or "/tmp" when NULL */
  CORDON_SPECIAL_MINIMAL,         /* ":minimal"         → the system paths any process needs to start */
} cordon_special;

/* Names as shown to users and in the Lua table form. The _parse functions return -1 for unknown text. */
const char *cordon_profile_kind_name(cordon_profile_kind k);  /* "managed", "disabled", "external" */
const char *cordon_fs_kind_name(cordon_fs_kind k);            /* "restricted", "unrestricted" */
const char *cordon_network_name(cordon_network n);            /* "restricted", "enabled" */
const char *cordon_access_name(cordon_access a);              /* "read", "write", "deny" */
const char *cordon_entry_match_name(cordon_entry_match m);    /* "exact", "subtree" */
const char *cordon_special_name(cordon_special s);            /* ":root", …; "" for NONE */
int cordon_profile_kind_parse(const char *s);
int cordon_fs_kind_parse(const char *s);
int cordon_network_parse(const char *s);
int cordon_access_parse(const char *s);
int cordon_entry_match_parse(const char *s);
int cordon_special_parse(const char *s);  /* ":root" … ":minimal"; never returns CORDON_SPECIAL_NONE */

typedef struct {
  const char *path;        /* normalized absolute path or "~/…"; NULL when `special` is set */
  cordon_special special;  /* CORDON_SPECIAL_NONE when `path` is set */
  cordon_access access;
  cordon_entry_match match;
} cordon_profile_entry;

/* Where specials and "~/" resolve. All paths absolute and normalized (canonical, for real enforcement);
 * NULL members mean "not known" and resolve to nothing. */
typedef struct {
  const char *cwd;
  const char *const *workspace_roots;
  size_t n_workspace_roots;
  const char *tmpdir;     /* $TMPDIR, canonical; NULL when unset */
  const char *home;
  const char *slash_tmp;  /* what ":slash_tmp" means; NULL = "/tmp" (a Mac caller passes "/private/tmp") */
} cordon_profile_ctx;

typedef struct cordon_profile cordon_profile;

/* A new managed profile is restricted with no entries, network restricted, and the default protected
 * entries. Returns NULL when out of memory (or when the standard lists cannot be read). */
cordon_profile *cordon_profile_new(cordon_profile_kind kind);
cordon_profile *cordon_profile_copy(const cordon_profile *p);
void cordon_profile_free(cordon_profile *p);

/* Builds "read-only", "workspace-write" or "danger-full-access" into *out (caller frees). */
cordon_profile_status cordon_profile_standard(const char *name, cordon_profile **out);
/* The lists the standard profiles are made of, owned by lua/cordon/standard.lua and read from the copy
 * embedded in the binary the first time one is asked for. Each is NULL-terminated and lives as long as
 * the process; an empty list when they cannot be read (out of memory), which no caller takes as "allow". */
typedef enum {
  CORDON_STD_NAMES,
  CORDON_STD_PROTECTED,
  CORDON_STD_SECRETS,
  CORDON_STD_MINIMAL,
  CORDON_STD_WRITE_OPS,  /* every write operation by name ("file-write*", "file-write-data", …) */
} cordon_std_list;
const char *const *cordon_profile_std_list(cordon_std_list which);
/* The standard names in order: "read-only", "workspace-write", "danger-full-access". */
#define cordon_profile_standard_names (cordon_profile_std_list(CORDON_STD_NAMES))
/* The protected entries a new managed profile starts with: names (".git", ".cordon", …), "/REL" paths
 * (".envrc", ".vscode/tasks.json", …) and "~/REL" start-up files (".bashrc", …). */
#define cordon_profile_default_protected (cordon_profile_std_list(CORDON_STD_PROTECTED))
/* The secrets restricted standard profiles deny ("~/.ssh", "/etc/shadow", …). */
#define cordon_profile_default_secrets (cordon_profile_std_list(CORDON_STD_SECRETS))
/* What ":minimal" resolves to: each path with the entry's access, as a subtree. */
#define cordon_profile_minimal_paths (cordon_profile_std_list(CORDON_STD_MINIMAL))

/* An optional label shown by describe/tostring ("workspace-write" for the standard ones); NULL clears. */
cordon_profile_status cordon_profile_set_name(cordon_profile *p, const char *name);
const char *cordon_profile_name(const cordon_profile *p);  /* NULL when unnamed */

cordon_profile_kind cordon_profile_kind_of(const cordon_profile *p);
cordon_fs_kind cordon_profile_fs_kind(const cordon_profile *p);
cordon_network cordon_profile_network(const cordon_profile *p);
cordon_profile_status cordon_profile_set_fs_kind(cordon_profile *p, cordon_fs_kind k);
cordon_profile_status cordon_profile_set_network(cordon_profile *p, cordon_network n);

/* Copies `e` (its path is normalized, "~/" kept) and appends it. Managed profiles only. */
cordon_profile_status cordon_profile_add_entry(cordon_profile *p, const cordon_profile_entry *e);
size_t cordon_profile_entry_count(const cordon_profile *p);
const cordon_profile_entry *cordon_profile_entry_at(const cordon_profile *p, size_t i);  /* NULL past end */

/* Protected metadata, in three forms (docs/model.md):
 *   "NAME"     one path segment, protected at any depth below every writable root (".git", ".cordon");
 *   "/REL"     a relative path at the top of every writable root that is not a temporary directory
 *              ("/.envrc", "/.git/hooks"): it and everything below it;
 *   "~/REL"    a path under home ("~/.bashrc"): it and everything below it, whatever grants it.
 * None of them is writable, and a session never approves a write on one. Adding one already present is
 * a no-op. */
typedef enum { CORDON_PROTECTED_NAME = 0, CORDON_PROTECTED_IN_ROOTS, CORDON_PROTECTED_IN_HOME } cordon_protected_form;
cordon_protected_form cordon_profile_protected_form(const char *entry);
void cordon_profile_clear_protected(cordon_profile *p);
cordon_profile_status cordon_profile_add_protected(cordon_profile *p, const char *name);
size_t cordon_profile_protected_count(const cordon_profile *p);
const char *cordon_profile_protected_at(const cordon_profile *p, size_t i);  /* NULL past end */

/* Managed, and its filesystem or network is restricted: `auto` must then sandbox it. */
bool cordon_profile_requires_sandbox(const cordon_profile *p);

/* Pure matchers; `path` is normalized here and an unnormalizable path is never allowed (fail closed). */
bool cordon_profile_can_read(const cordon_profile *p, const cordon_profile_ctx *ctx, const char *path);
bool cordon_profile_can_write(const cordon_profile *p, const cordon_profile_ctx *ctx, const char *path);
/* True when `path` lies under a writable root and is protected there (a protected name as a segment
 * below the root, a "/REL" entry of that root, or a "~/REL" entry). */
bool cordon_profile_is_protected_metadata(const cordon_profile *p, const cordon_profile_ctx *ctx, const char *path);
/* The protected entry that keeps `path` (normalized) from being written through the writable subtree
 * `root` (NULL: any root, for a name at any segment), or NULL. `tmp_root` says `root` is a temporary
 * directory, which "/REL" entries leave alone. The result points into the profile. */
const char *cordon_profile_protecting(const cordon_profile *p, const cordon_profile_ctx *ctx, const char *root,
                                      bool tmp_root, const char *path);

/* One entry with its special or "~/" resolved against a context: what a backend emits rules for. */
typedef struct {
  char *path;              /* absolute, normalized, owned by the list */
  cordon_access access;
  cordon_entry_match match;
  cordon_special special;  /* where it came from (CORDON_SPECIAL_NONE: a path entry) */
  size_t entry_index;      /* index of the profile entry it came from */
} cordon_resolved_entry;

typedef struct {
  cordon_resolved_entry *items;
  size_t count;
} cordon_resolved;

/* Resolves every entry of a managed profile, in entry order (a special may yield several or none;
 * duplicates are kept). Disabled/external profiles resolve to an empty list. Free with
 * cordon_resolved_free, also after a failure. */
cordon_profile_status cordon_profile_resolve(const cordon_profile *p, const cordon_profile_ctx *ctx, cordon_resolved *out);
void cordon_resolved_free(cordon_resolved *r);

/* Appends a readable multi-line description ("managed profile: filesystem restricted …") to `out`. */
void cordon_profile_describe(const cordon_profile *p, cordon_buf *out);
#endif
