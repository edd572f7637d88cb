/* src/sbpl/eval_compat.c — what Apple's SBPL preludes give every profile besides allow, deny and the filters */
#include "sbpl/eval_internal.h"
#include "sbpl/ops.h"

#include <string.h>

#define PRIM(fname) static cordon_datum *fname(ev *e, const struct cordon_eval_prim *self, cordon_datum **args, int n, cordon_datum *call)

static cordon_datum *symbol(ev *e, const char *name) {
  cordon_datum *d = ev_need(e, cordon_datum_new(e->a, CORDON_D_SYM));
  d->u.sym = ev_need(e, cordon_symtab_intern(e->syms, name, strlen(name)));
  return d;
}

/* (defined? 'name): true for what this build knows — a binding, or an operation (the prelude binds each
 * operation to a variable), so (if (defined? 'system-socket) (allow system-socket)) keeps its rule. */
PRIM(p_definedp) {
  cordon_datum *s = args[0];
  if (s->kind != CORDON_D_SYM) ev_fail(e, call, CORDON_SBPL_EVAL, "defined?: expected a symbol, got a %s", cordon_datum_kind_name(s));
  bool known = s->u.sym->global != NULL || s->u.sym->special != SP_NONE || cordon_sbpl_op_canonical(s->u.sym->name) != NULL;
  return known ? &cordon_datum_true : &cordon_datum_false;
}

/* (disable-callouts), (disable-full-symbolication), (eliminate-duplicate-rules), (record PATH): options of
 * the compiled profile (reporting, symbolication, size); none changes a decision. */
PRIM(p_option) { return &cordon_datum_unspec; }

/* (_IO "h" 24): an ioctl/fsctl command number, group character times 256 plus number, as sbpl.scm has. */
PRIM(p_io) {
  if (args[0]->kind != CORDON_D_STR || args[0]->u.str.len == 0 || args[1]->kind != CORDON_D_NUM)
    ev_fail(e, call, CORDON_SBPL_EVAL, "_IO: expected (_IO \"g\" n)");
  int64_t v = args[1]->u.num + 256 * (int64_t)(unsigned char)args[0]->u.str.s[0];
  return ev_need(e, cordon_datum_num(e->a, v));
}

/* (path-ancestors "/a/b/c" …): any of (literal "/"), (literal "/a"), (literal "/a/b") — the directories a
 * process must stat to reach each path. */
PRIM(p_path_ancestors) {
  static const struct cordon_eval_prim literal = {"literal", NULL, 1, 1, 0, CORDON_F_PATH, CORDON_MATCH_LITERAL};
  size_t total = 0;
  for (int i = 0; i < n; i++) {
    if (args[i]->kind != CORDON_D_STR || args[i]->u.str.s[0] != '/')
      ev_fail(e, call, CORDON_SBPL_EVAL, "path-ancestors: a path must start with /");
    total += args[i]->u.str.len;
  }
  ev_charge(e, total, call);
  cordon_datum **kids = ev_need(e, cordon_arena_alloc(e->a, (total + 1) * sizeof *kids));
  int k = 0;
  for (int i = 0; i < n; i++) {
    const char *s = args[i]->u.str.s;
    size_t len = args[i]->u.str.len;
    while (len > 1 && s[len - 1] == '/') len--;
    for (size_t j = 0; j < len; j++) {
      if (s[j] != '/') continue;
      cordon_datum *dir = ev_need(e, cordon_datum_str(e->a, s, j ? j : 1));
      kids[k++] = ev_make_filter(e, &literal, literal.name, &dir, 1, call);
    }
  }
  if (!k) ev_fail(e, call, CORDON_SBPL_EVAL, "path-ancestors: expected at least one path");
  return ev_any_filter(e, kids, k, call);
}

/* Filters the prelude defines as procedures of no argument: (tty) is (vnode-type TTY), … Indexed by the
 * prim's `match` in compat_prims, in this order. */
static const struct {
  const char *name, *filter, *arg;
  cordon_filter_kind kind;
} shorthands[] = {
  {"tty", "vnode-type", "TTY", CORDON_F_VNODE_TYPE},
  {"debug-mode", "system-attribute", "sandbox-debug-mode", CORDON_F_NAME},
  {"process-is-plugin", "process-attribute", "is-plugin", CORDON_F_NAME},
  {"process-is-installer", "process-attribute", "is-installer", CORDON_F_NAME},
  {"datavault-file-filter", "file-attribute", "datavault", CORDON_F_NAME},
  {"rootless-file-filter", "file-attribute", "sip-protected", CORDON_F_NAME},
};

PRIM(p_shorthand) {
  const size_t i = (size_t)self->match;
  const struct cordon_eval_prim target = {shorthands[i].filter, NULL, 1, 1, 0, shorthands[i].kind, CORDON_MATCH_LITERAL};
  cordon_datum *arg = symbol(e, shorthands[i].arg);
  return ev_make_filter(e, &target, shorthands[i].filter, &arg, 1, call);
}

/* (require-entitlement "name" [filter]): the process holds the entitlement (a fact, "entitlement";
 * by default it holds none), and its value passes `filter` when one is given. */
PRIM(p_require_entitlement) {
  static const struct cordon_eval_prim held = {"require-entitlement", NULL, 1, 1, 0, CORDON_F_NAME, CORDON_MATCH_LITERAL};
  static const struct cordon_eval_prim all = {"require-all", NULL, 0, -1, 0, CORDON_F_ALL, CORDON_MATCH_NONE};
  cordon_datum *f = ev_make_filter(e, &held, held.name, args, 1, call);
  if (n == 1) return f;
  if (args[1]->kind != CORDON_D_FILTER) ev_fail(e, call, CORDON_SBPL_EVAL, "require-entitlement: expected a filter after the name");
  cordon_datum *both[2] = {f, args[1]};
  return ev_make_filter(e, &all, all.name, both, 2, call);
}

/* (no-callout), (partial-symbolication): deprecated modifiers older profiles call like procedures, as in
 * (deny default (no-callout)); the value is the modifier itself. */
PRIM(p_modifier) {
  cordon_datum *d = ev_need(e, cordon_datum_new(e->a, CORDON_D_MOD));
  d->u.mod.name = self->name;
  d->u.mod.args = &cordon_datum_nil;
  d->span = call->span;
  return d;
}

#define FACT(name) {name, p_fact, 1, -1, PRIM_SYMARGS, CORDON_F_NAME, CORDON_MATCH_LITERAL}
#define FACTRE(name) {name, p_fact, 1, -1, PRIM_SYMARGS, CORDON_F_NAME, CORDON_MATCH_REGEX}
#define FACT3(name) FACT(name), {name "-prefix", p_fact, 1, -1, PRIM_SYMARGS, CORDON_F_NAME, CORDON_MATCH_PREFIX}, \
                    {name "-regex", p_fact, 1, -1, PRIM_SYMARGS, CORDON_F_NAME, CORDON_MATCH_REGEX}

PRIM(p_fact) { return ev_make_filter(e, self, self->name, args, n, call); }

static const struct cordon_eval_prim compat_prims[] = {
  {"defined?", p_definedp, 1, 1, 0, 0, 0},
  {"disable-callouts", p_option, 0, 0, 0, 0, 0},
  {"disable-full-symbolication", p_option, 0, 0, 0, 0, 0},
  {"eliminate-duplicate-rules", p_option, 0, 0, 0, 0, 0},
  {"record", p_option, 0, 1, 0, 0, 0},
  {"_IO", p_io, 2, 2, 0, 0, 0},
  {"path-ancestors", p_path_ancestors, 1, -1, 0, 0, 0},
  {"no-callout", p_modifier, 0, 0, 0, 0, 0}, {"partial-symbolication", p_modifier, 0, 0, 0, 0, 0},
  {"tty", p_shorthand, 0, 0, 0, 0, 0}, {"debug-mode", p_shorthand, 0, 0, 0, 0, 1},
  {"process-is-plugin", p_shorthand, 0, 0, 0, 0, 2}, {"process-is-installer", p_shorthand, 0, 0, 0, 0, 3},
  {"datavault-file-filter", p_shorthand, 0, 0, 0, 0, 4}, {"rootless-file-filter", p_shorthand, 0, 0, 0, 0, 5},
  {"require-entitlement", p_require_entitlement, 1, 2, PRIM_SYMARGS | PRIM_FILTERARGS, 0, 0},
  /* what the acting process is, or what the call asks: facts a query states (cordon check --fact) */
  FACT("process-attribute"), FACT("file-attribute"), FACT("storage-class"), FACT("control-name"),
  FACT3("xpc-service-name"), FACT3("info-type"), FACT3("device-conforms-to"), FACT3("notification"),
  FACT("fsctl-command"), FACT("ioctl-command"), FACT("fcntl-command"), FACT("mac-syscall-number"),
  FACT("syscall-number"), FACT("syscall-mask"), FACT("machtrap-number"), FACT("kernel-mig-routine"),
  FACT("mach-kernel-endpoint"), FACT("semaphore-owner"), FACT("ipc-posix-sem-name"), FACT("uid"),
  FACT("entitlement-value"), FACTRE("entitlement-value-regex"), FACT("require-entitlement-value"),
  FACT("mount-relative-path"), FACT("mount-relative-literal"), FACTRE("mount-relative-path-regex"),
  FACTRE("mount-relative-regex"), FACT("process-name"), FACT("host-port"), FACT("sandbox-extension"),
  {NULL, NULL, 0, 0, 0, 0, 0},
};

/* Names the prelude binds to another built-in: (define getenv param), (define from local), … */
static const struct { const char *alias, *name; } aliases[] = {
  {"getenv", "param"}, {"from", "local"}, {"to", "remote"}, {"granted-extensions", "extension"},
  {"mach-extension", "extension"},
};

void ev_install_compat(ev *e) {
  ev_install_prims(e, compat_prims);
  for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
    cordon_symbol *to = ev_need(e, cordon_symtab_intern(e->syms, aliases[i].name, strlen(aliases[i].name)));
    cordon_symbol *from = ev_need(e, cordon_symtab_intern(e->syms, aliases[i].alias, strlen(aliases[i].alias)));
    from->global = to->global;
  }
}
