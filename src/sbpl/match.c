/* src/sbpl/match.c — three-valued matching of one filter tree against one query target */
#include "sbpl/match.h"

#include "sbpl/match_regex.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- targets ------------------------------------------------------------------------------------ */

static bool is_network_op(const char *op) { return op && !strncmp(op, "network", 7); }

static bool local_by_default(const char *op) {
  return op && (!strcmp(op, "network-bind") || !strcmp(op, "network-inbound"));
}

static const char *strip_word(const char *s, const char *word) {
  size_t n = strlen(word);
  return strncmp(s, word, n) == 0 ? s + n : NULL;
}

/* "tcp:", "udp6:", "unix-socket:" … at the start of s: copies the protocol and returns the rest. */
static const char *take_proto(const char *s, char *proto, size_t cap) {
  static const char *const names[] = {"unix-socket", "unix", "tcp", "udp", "ip"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    const char *r = strip_word(s, names[i]);
    if (!r) continue;
    size_t n = strlen(names[i]);
    if (*r == '4' || *r == '6') r++, n++;
    if (*r != ':' || n >= cap) continue;
    memcpy(proto, s, n);
    proto[n] = '\0';
    return r + 1;
  }
  return NULL;
}

bool cordon_target_parse(const char *op, const char *text, cordon_target *t, char *err, size_t errcap) {
  /* fields one by one: this runs for every query, and `storage` matters only to network targets */
  t->text = text;
  t->len = strlen(text);
  t->local = false;
  t->proto[0] = '\0';
  t->host = t->port = NULL;
  if (!is_network_op(op)) {
    t->kind = text[0] == '/' ? CORDON_TARGET_PATH : CORDON_TARGET_NAME;
    /* a file or exec check is about a path the kernel has resolved: a relative one names nothing */
    if (t->kind == CORDON_TARGET_NAME && op && (!strncmp(op, "file-", 5) || !strncmp(op, "process-exec", 12))) {
      snprintf(err, errcap, "%s needs an absolute path, got '%s'", op, text);
      return false;
    }
    return true;
  }
  t->kind = CORDON_TARGET_NETWORK;
  const char *s = text, *r;
  t->local = local_by_default(op);
  if ((r = strip_word(s, "local:"))) t->local = true, s = r;
  else if ((r = strip_word(s, "remote:"))) t->local = false, s = r;
  if (strlen(s) >= sizeof t->storage) {
    snprintf(err, errcap, "network target is too long");
    return false;
  }
  if (s[0] == '/') {
    strcpy(t->proto, "unix");
    strcpy(t->storage, s);
    t->host = t->storage;
    return true;
  }
  if ((r = take_proto(s, t->proto, sizeof t->proto))) s = r;
  else strcpy(t->proto, "tcp");
  if (!strncmp(t->proto, "unix", 4)) {
    if (s[0] != '/') {
      snprintf(err, errcap, "a unix socket target needs an absolute path: %s", text);
      return false;
    }
    strcpy(t->storage, s);
    t->host = t->storage;
    return true;
  }
  const char *colon = strrchr(s, ':');
  if (!colon || colon == s) {
    snprintf(err, errcap, "expected [local:|remote:][tcp:|udp:|ip:]HOST:PORT, got '%s'", text);
    return false;
  }
  const char *port = colon + 1;
  bool digits = *port != '\0';
  long value = 0;
  for (const char *p = port; *p; p++) {
    if (!isdigit((unsigned char)*p) || p - port > 5) digits = false;
    else value = value * 10 + (*p - '0');
  }
  if (strcmp(port, "*") != 0 && (!digits || value > 65535)) {
    snprintf(err, errcap, "port must be 0-65535 or '*', got '%s'", port);
    return false;
  }
  size_t hl = (size_t)(colon - s);
  const char *h = s;
  if (hl >= 2 && h[0] == '[' && h[hl - 1] == ']') h++, hl -= 2;  /* [::1]:443 */
  memcpy(t->storage, h, hl);
  t->storage[hl] = '\0';
  t->host = t->storage;
  strcpy(t->storage + hl + 1, port);
  t->port = t->storage + hl + 1;
  return true;
}

/* ---- helpers ------------------------------------------------------------------------------------ */

static const char *arg_value(const cordon_arg *a, cordon_match_ctx *ctx) {
  if (!a->is_param) return a->text;
  for (size_t i = 0; i < ctx->nparams; i++)
    if (!strcmp(ctx->params[2 * i], a->text)) return ctx->params[2 * i + 1];
  return NULL;
}

/* The name may live in the caller's frame (a filter's base name), so it is copied into the ctx. */
static void missing(cordon_match_ctx *ctx, const char *fact) {
  if (ctx->missing) return;
  snprintf(ctx->missing_name, sizeof ctx->missing_name, "%s", fact);
  ctx->missing = ctx->missing_name;
}

static void missing_param(cordon_match_ctx *ctx, const char *name) {
  if (ctx->missing) return;
  ctx->missing = name;
  ctx->missing_is_param = true;
}

/* The fact a name filter asks about: "global-name-regex" -> "global-name". Written into buf. */
static const char *base_name(const char *name, char *buf, size_t cap) {
  size_t n = strlen(name);
  static const char *const suffixes[] = {"-prefix", "-regex", "-literal"};
  for (size_t i = 0; i < 3; i++) {
    size_t m = strlen(suffixes[i]);
    if (n > m && !strcmp(name + n - m, suffixes[i])) {
      n -= m;
      break;
    }
  }
  if (n >= cap) n = cap - 1;
  memcpy(buf, name, n);
  buf[n] = '\0';
  /* the filters on which entitlements the process holds all ask one fact */
  if (!strcmp(buf, "require-entitlement") || !strcmp(buf, "entitlement-is-present")) snprintf(buf, cap, "entitlement");
  return buf;
}

/* Name filters that describe the target itself (mach service, sysctl, …) compare with the target
 * string; the rest (xattr, file-mode, extension-class, …) are facts the query must state. */
static bool names_the_target(const char *base) {
  /* what the operation acts on; filters about the acting process (process-path, signing-identifier),
   * ioctl/fsctl commands and socket parameters are facts instead, and so are xpc-service-name (a
   * mach-lookup of a global name is no XPC service lookup: (xpc-service-name-prefix "") in system.sb
   * must not grant every lookup) and device-conforms-to (a fact about the device behind a path) */
  static const char *const own[] = {
      "global-name", "local-name", "sysctl-name", "iokit-user-client-class", "iokit-registry-entry-class",
      "iokit-connection", "iokit-property", "preference-domain", "notification-name",
      "notification", "appleevent-destination", "ae-destination", "right-name", "auth-right-name", "target",
      "kext-bundle-id", "info-type", "ipc-posix-name", "nvram-variable", "boot-arg",
  };
  for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
    if (!strcmp(base, own[i])) return true;
  return false;
}

bool cordon_filter_names_target(const cordon_filter *f) {
  char base[96];
  return f->kind == CORDON_F_NAME && names_the_target(base_name(f->name, base, sizeof base));
}

static bool host_matches(const char *want, const char *host) {
  if (!strcmp(want, "*")) return true;
  if (!strcasecmp(want, "localhost"))
    return !strcasecmp(host, "localhost") || !strcmp(host, "127.0.0.1") || !strcmp(host, "::1");
  return !strcasecmp(want, host);
}

/* Filter protocol vs query protocol: "ip" covers tcp and udp; a 4/6 family must agree when both give one. */
static bool proto_matches(const char *want, const char *have) {
  size_t wl = strlen(want), hl = strlen(have);
  char wf = (wl && (want[wl - 1] == '4' || want[wl - 1] == '6')) ? want[--wl] : 0;
  char hf = (hl && (have[hl - 1] == '4' || have[hl - 1] == '6')) ? have[--hl] : 0;
  if (wf && hf && wf != hf) return false;
  bool want_unix = !strncmp(want, "unix", 4), have_unix = !strncmp(have, "unix", 4);
  if (want_unix || have_unix) return want_unix && have_unix;
  if (wl == 2 && !strncmp(want, "ip", 2)) return true;
  return wl == hl && !strncmp(want, have, wl);
}

/* ---- path and name comparisons ------------------------------------------------------------------ */

static bool trailing_slash(const char *s) {
  size_t n = strlen(s);
  return n > 1 && s[n - 1] == '/';
}

static cordon_tri compare(cordon_filter *f, const char *pattern, size_t pl, const char *s, size_t slen,
                          cordon_match_ctx *ctx) {
  switch (f->match) {
  case CORDON_MATCH_LITERAL:
  case CORDON_MATCH_NONE:
    if (f->kind == CORDON_F_PATH && trailing_slash(pattern)) return CORDON_TRI_NO;
    return pl == slen && !memcmp(pattern, s, slen) ? CORDON_TRI_YES : CORDON_TRI_NO;
  case CORDON_MATCH_SUBPATH:
    if (trailing_slash(pattern)) return CORDON_TRI_NO;
    if (pl == 1 && pattern[0] == '/') return s[0] == '/' ? CORDON_TRI_YES : CORDON_TRI_NO;
    if (slen < pl || memcmp(pattern, s, pl)) return CORDON_TRI_NO;
    return (slen == pl || s[pl] == '/') ? CORDON_TRI_YES : CORDON_TRI_NO;
  case CORDON_MATCH_PREFIX:
    return slen >= pl && !memcmp(pattern, s, pl) ? CORDON_TRI_YES : CORDON_TRI_NO;
  case CORDON_MATCH_REGEX: {
    cordon_regex *re = f->compiled;
    /* compiled once; a -D parameter may give the same filter another pattern, so check then */
    if (!re || (f->nargs == 1 && f->args[0].is_param && strcmp(cordon_regex_source(re), pattern) != 0) ||
        (f->nargs > 1 && strcmp(cordon_regex_source(re), pattern) != 0)) {
      /* first use, or a parameter whose value differs from the cached one */
      if (f->compiled && f->compiled_free) f->compiled_free(f->compiled);
      f->compiled = re = cordon_regex_new(pattern, NULL, 0);
      f->compiled_free = cordon_regex_free_void;
      if (!re) {
        missing(ctx, "memory");
        return CORDON_TRI_UNKNOWN;
      }
    }
    int r = cordon_regex_search(re, s, slen);
    if (r < 0) {
      missing(ctx, "a regex that compiles");
      return CORDON_TRI_UNKNOWN;
    }
    return r ? CORDON_TRI_YES : CORDON_TRI_NO;
  }
  }
  return CORDON_TRI_NO;
}

/* Any argument matching counts: (literal "/a") has one, some name filters list several. */
/* The lengths of a non-regex filter's fixed arguments, measured once and kept in f->compiled (which
 * regex filters use for their compiled pattern instead). NULL when memory runs out. */
static const size_t *arg_lengths(cordon_filter *f) {
  if (f->match == CORDON_MATCH_REGEX || !f->nargs) return NULL;
  if (!f->compiled) {
    size_t *lens = malloc(f->nargs * sizeof *lens);
    if (!lens) return NULL;
    for (size_t i = 0; i < f->nargs; i++) lens[i] = strlen(f->args[i].text);
    f->compiled = lens;
    f->compiled_free = free;
  }
  return f->compiled;
}

static cordon_tri match_args(cordon_filter *f, const char *s, size_t slen, cordon_match_ctx *ctx) {
  cordon_tri out = CORDON_TRI_NO;
  const size_t *lens = arg_lengths(f);
  for (size_t i = 0; i < f->nargs; i++) {
    const char *v = arg_value(&f->args[i], ctx);
    if (!v) {
      missing_param(ctx, f->args[i].text);
      out = CORDON_TRI_UNKNOWN;
      continue;
    }
    cordon_tri r = compare(f, v, lens && !f->args[i].is_param ? lens[i] : strlen(v), s, slen, ctx);
    if (r == CORDON_TRI_YES) return r;
    if (r == CORDON_TRI_UNKNOWN) out = r;
  }
  return out;
}

/* Matches against every stated value of fact `name`; UNKNOWN when the query states none. */
static cordon_tri match_fact(cordon_filter *f, const char *name, cordon_match_ctx *ctx) {
  bool stated = false;
  cordon_tri out = CORDON_TRI_NO;
  for (size_t i = 0; i < ctx->nfacts; i++) {
    if (strcmp(ctx->facts[i].name, name) != 0) continue;
    stated = true;
    const char *v = ctx->facts[i].value ? ctx->facts[i].value : "";
    if (!*v) continue;  /* "" states the fact with no value: "holds no extension" */
    cordon_tri r = f->nargs ? match_args(f, v, strlen(v), ctx) : CORDON_TRI_YES;
    if (r == CORDON_TRI_YES) return r;
    if (r == CORDON_TRI_UNKNOWN) out = r;
  }
  if (!stated) {
    missing(ctx, f->kind == CORDON_F_OTHER ? f->name : name);
    return CORDON_TRI_UNKNOWN;
  }
  return out;
}

static cordon_tri match_vnode(cordon_filter *f, cordon_match_ctx *ctx) {
  for (size_t i = 0; i < ctx->nfacts; i++) {
    if (strcmp(ctx->facts[i].name, "vnode-type") != 0) continue;
    for (size_t k = 0; k < f->nargs; k++)
      if (!strcasecmp(f->args[k].text, ctx->facts[i].value)) return CORDON_TRI_YES;
    return CORDON_TRI_NO;
  }
  missing(ctx, "vnode-type");
  return CORDON_TRI_UNKNOWN;
}

static cordon_tri match_network(cordon_filter *f, const cordon_target *t, cordon_match_ctx *ctx) {
  if (t->kind != CORDON_TARGET_NETWORK) return CORDON_TRI_NO;
  bool local = !strcmp(f->name, "local");
  if (local != t->local) return CORDON_TRI_NO;
  const char *proto = f->nargs > 0 ? arg_value(&f->args[0], ctx) : "ip";
  if (!proto) {
    missing_param(ctx, f->args[0].text);
    return CORDON_TRI_UNKNOWN;
  }
  if (!proto_matches(proto, t->proto)) return CORDON_TRI_NO;
  if (!strncmp(t->proto, "unix", 4)) {
    if (f->nchildren == 0 && f->nargs < 2) return CORDON_TRI_YES; /* (remote unix-socket): any socket */
    cordon_target path = {.kind = CORDON_TARGET_PATH, .text = t->host, .len = strlen(t->host)};
    cordon_tri out = CORDON_TRI_NO;
    for (size_t i = 0; i < f->nchildren; i++) {
      cordon_tri r = cordon_filter_match(f->children[i], &path, ctx);
      if (r == CORDON_TRI_YES) return r;
      if (r == CORDON_TRI_UNKNOWN) out = r;
    }
    return out;
  }
  if (f->nargs < 2) return CORDON_TRI_YES; /* (remote tcp): any address */
  const char *addr = arg_value(&f->args[1], ctx);
  if (!addr) {
    missing_param(ctx, f->args[1].text);
    return CORDON_TRI_UNKNOWN;
  }
  const char *colon = strrchr(addr, ':');
  char host[256];
  const char *port = "*";
  size_t hl = colon ? (size_t)(colon - addr) : strlen(addr);
  if (hl >= sizeof host) return CORDON_TRI_NO;
  memcpy(host, addr, hl);
  host[hl] = '\0';
  if (colon) port = colon + 1;
  if (!host_matches(host, t->host)) return CORDON_TRI_NO;
  return (!strcmp(port, "*") || !strcmp(port, t->port)) ? CORDON_TRI_YES : CORDON_TRI_NO;
}

cordon_tri cordon_filter_match(cordon_filter *f, const cordon_target *t, cordon_match_ctx *ctx) {
  char base[96];
  switch (f->kind) {
  case CORDON_F_ALL: {
    cordon_tri out = CORDON_TRI_YES;
    for (size_t i = 0; i < f->nchildren; i++) {
      cordon_tri r = cordon_filter_match(f->children[i], t, ctx);
      if (r == CORDON_TRI_NO) return r;
      if (r == CORDON_TRI_UNKNOWN) out = r;
    }
    return out;
  }
  case CORDON_F_ANY: {
    cordon_tri out = CORDON_TRI_NO;
    for (size_t i = 0; i < f->nchildren; i++) {
      cordon_tri r = cordon_filter_match(f->children[i], t, ctx);
      if (r == CORDON_TRI_YES) return r;
      if (r == CORDON_TRI_UNKNOWN) out = r;
    }
    return out;
  }
  case CORDON_F_NOT: {
    if (f->nchildren != 1) return CORDON_TRI_NO;
    cordon_tri r = cordon_filter_match(f->children[0], t, ctx);
    return r == CORDON_TRI_UNKNOWN ? r : (r == CORDON_TRI_YES ? CORDON_TRI_NO : CORDON_TRI_YES);
  }
  case CORDON_F_PATH:
    if (t->kind == CORDON_TARGET_PATH) return match_args(f, t->text, t->len, ctx);
    if (t->kind == CORDON_TARGET_NETWORK && !strncmp(t->proto, "unix", 4))
      return match_args(f, t->host, strlen(t->host), ctx);
    return CORDON_TRI_NO;
  case CORDON_F_NAME:
    base_name(f->name, base, sizeof base);
    for (size_t i = 0; i < ctx->nfacts; i++)
      if (!strcmp(ctx->facts[i].name, base)) return match_fact(f, base, ctx);
    if (names_the_target(base)) return t->kind == CORDON_TARGET_NAME ? match_args(f, t->text, t->len, ctx)
                                                                      : CORDON_TRI_NO;
    return match_fact(f, base, ctx);
  case CORDON_F_VNODE_TYPE:
    return match_vnode(f, ctx);
  case CORDON_F_EXTENSION:
    return match_fact(f, "extension", ctx);
  case CORDON_F_NETWORK:
    return match_network(f, t, ctx);
  case CORDON_F_OTHER: {
    cordon_tri r = match_fact(f, f->name, ctx);
    if (r == CORDON_TRI_UNKNOWN) ctx->unknown_filter = true;
    return r;
  }
  }
  return CORDON_TRI_NO;
}

bool cordon_filter_compile_regex(cordon_filter *f, const char *sbpl, char *err, size_t errcap) {
  if (f->compiled && f->compiled_free) f->compiled_free(f->compiled);
  f->compiled = cordon_regex_new(sbpl, err, errcap);
  f->compiled_free = cordon_regex_free_void;
  if (!f->compiled) {
    if (err && errcap && !err[0]) snprintf(err, errcap, "out of memory");
    return false;
  }
  return cordon_regex_ok(f->compiled, err, errcap);
}
