/* tests/c/test_match.c — filters against targets: paths, regexes, names, network, facts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "sbpl/match.h"
#include "sbpl/match_regex.h"

static cordon_tri path_match(const char *kind, const char *arg, const char *path) {
  cordon_filter *f = cordon_filter_path(kind, arg, false);
  cordon_target t;
  char err[128];
  assert_true(cordon_target_parse("file-read-data", path, &t, err, sizeof err));
  cordon_match_ctx ctx = {0};
  cordon_tri r = cordon_filter_match(f, &t, &ctx);
  cordon_filter_free(f);
  return r;
}

static void literal_matches_exactly(void **state) {
  (void)state;
  assert_int_equal(path_match("literal", "/etc/hosts", "/etc/hosts"), CORDON_TRI_YES);
  assert_int_equal(path_match("literal", "/etc/hosts", "/etc/hosts2"), CORDON_TRI_NO);
  assert_int_equal(path_match("literal", "/etc", "/etc/hosts"), CORDON_TRI_NO);
}

static void subpath_respects_segment_boundaries(void **state) {
  (void)state;
  assert_int_equal(path_match("subpath", "/repo", "/repo"), CORDON_TRI_YES);
  assert_int_equal(path_match("subpath", "/repo", "/repo/src/a.c"), CORDON_TRI_YES);
  assert_int_equal(path_match("subpath", "/repo", "/repo2/a.c"), CORDON_TRI_NO);
  assert_int_equal(path_match("subpath", "/", "/anything/at/all"), CORDON_TRI_YES);
}

static void trailing_slash_filters_never_match(void **state) {
  (void)state;
  assert_int_equal(path_match("subpath", "/repo/", "/repo/a"), CORDON_TRI_NO);
  assert_int_equal(path_match("subpath", "/repo/", "/repo"), CORDON_TRI_NO);
  assert_int_equal(path_match("literal", "/repo/", "/repo/"), CORDON_TRI_NO);
}

static void prefix_is_a_raw_string_prefix(void **state) {
  (void)state;
  assert_int_equal(path_match("prefix", "/a/b", "/a/bc"), CORDON_TRI_YES);
  assert_int_equal(path_match("prefix", "/a/b", "/a/b/c"), CORDON_TRI_YES);
  assert_int_equal(path_match("prefix", "/a/b", "/a/"), CORDON_TRI_NO);
}

static void regex_is_an_unanchored_search(void **state) {
  (void)state;
  assert_int_equal(path_match("regex", "\\.ssh/id_", "/Users/u/.ssh/id_rsa"), CORDON_TRI_YES);
  assert_int_equal(path_match("regex", "^/Users/[^/]+/\\.ssh", "/Users/u/.ssh/x"), CORDON_TRI_YES);
  assert_int_equal(path_match("regex", "^/Users/[^/]+/\\.ssh", "/private/Users/u/.ssh"), CORDON_TRI_NO);
  assert_int_equal(path_match("regex", "\\.git$", "/r/.git"), CORDON_TRI_YES);
  assert_int_equal(path_match("regex", "\\.git$", "/r/.gitignore"), CORDON_TRI_NO);
  assert_int_equal(path_match("regex", "sandbox", "/x/sandbox/y"), CORDON_TRI_YES);
}

static void anchored_regexes_with_inner_alternatives_match_as_before(void **state) {
  (void)state;
  const char *re = "^/w/\\.git/modules/.+/(hooks(/|$)|config$)";
  assert_int_equal(path_match("regex", re, "/w/.git/modules/m/hooks/x"), CORDON_TRI_YES);
  assert_int_equal(path_match("regex", re, "/w/.git/modules/m/config"), CORDON_TRI_YES);
  assert_int_equal(path_match("regex", re, "/x/w/.git/modules/m/config"), CORDON_TRI_NO);
  assert_int_equal(path_match("regex", "^/a|^/b", "/b/x"), CORDON_TRI_YES); /* top-level |: no head */
  assert_int_equal(path_match("regex", "^/a[|(]x|/c", "/q/c"), CORDON_TRI_YES);
  assert_int_equal(path_match("regex", "^/a[[:digit:]|]x", "/a|x"), CORDON_TRI_YES);
  assert_int_equal(path_match("regex", "^/ab?c", "/ac"), CORDON_TRI_YES);  /* b is optional: head "/a" */
  assert_int_equal(path_match("regex", "^/ab*c", "/ac"), CORDON_TRI_YES);
  assert_int_equal(path_match("regex", "^/ab{0,2}c", "/ac"), CORDON_TRI_YES);
}

static void regex_knows_w_d_s_and_counted_repeats(void **state) {
  (void)state;
  assert_int_equal(path_match("regex", "^/tmp/\\w+\\.log$", "/tmp/build_1.log"), CORDON_TRI_YES);
  assert_int_equal(path_match("regex", "^/tmp/\\w+\\.log$", "/tmp/a-b.log"), CORDON_TRI_NO);
  assert_int_equal(path_match("regex", "^/v/\\d{3}$", "/v/123"), CORDON_TRI_YES);
  assert_int_equal(path_match("regex", "^/v/\\d{3}$", "/v/12"), CORDON_TRI_NO);
  assert_int_equal(path_match("regex", "^/x/[\\w.-]+$", "/x/a.b-c"), CORDON_TRI_YES);
  assert_int_equal(path_match("regex", "^/x/[\\w.-]+$", "/x/a/b"), CORDON_TRI_NO);
  assert_int_equal(path_match("regex", "a\\sb", "/a b"), CORDON_TRI_YES);
  assert_int_equal(path_match("regex", "^/a\\/b$", "/a/b"), CORDON_TRI_YES);
}

static void regex_translation_keeps_escaped_dots_literal(void **state) {
  (void)state;
  char *t = cordon_regex_translate("^/a\\.b\\w[\\d]$");
  assert_string_equal(t, "^/a\\.b[[:alnum:]_][0-9]$");
  free(t);
  t = cordon_regex_translate("[a\\-z]");
  assert_string_equal(t, "[az-]");
  free(t);
}

static void a_bad_regex_is_unknown_not_a_crash(void **state) {
  (void)state;
  assert_int_equal(path_match("regex", "^/a(b", "/a(b"), CORDON_TRI_UNKNOWN);
  cordon_filter *f = cordon_filter_path("regex", "^/a(b", false);
  char err[128] = "";
  assert_false(cordon_filter_compile_regex(f, "^/a(b", err, sizeof err));
  assert_true(err[0] != '\0');
  cordon_filter_free(f);
}

static void composite_filters_use_three_valued_logic(void **state) {
  (void)state;
  cordon_filter *all = cordon_filter_new(CORDON_F_ALL, "require-all", CORDON_MATCH_NONE);
  cordon_filter_add_child(all, cordon_filter_path("subpath", "/w", false));
  cordon_filter *not = cordon_filter_new(CORDON_F_NOT, "require-not", CORDON_MATCH_NONE);
  cordon_filter_add_child(not, cordon_filter_path("subpath", "/w/.git", false));
  cordon_filter_add_child(all, not);
  cordon_target t;
  char err[64];
  cordon_match_ctx ctx = {0};
  cordon_target_parse("file-write-data", "/w/a", &t, err, sizeof err);
  assert_int_equal(cordon_filter_match(all, &t, &ctx), CORDON_TRI_YES);
  cordon_target_parse("file-write-data", "/w/.git/config", &t, err, sizeof err);
  assert_int_equal(cordon_filter_match(all, &t, &ctx), CORDON_TRI_NO);
  /* a vnode-type child without the fact: unknown, unless another child already says no */
  cordon_filter *vt = cordon_filter_new(CORDON_F_VNODE_TYPE, "vnode-type", CORDON_MATCH_NONE);
  cordon_filter_add_arg(vt, "DIRECTORY", false);
  cordon_filter_add_child(all, vt);
  cordon_target_parse("file-write-data", "/w/a", &t, err, sizeof err);
  assert_int_equal(cordon_filter_match(all, &t, &ctx), CORDON_TRI_UNKNOWN);
  assert_string_equal(ctx.missing, "vnode-type");
  cordon_target_parse("file-write-data", "/elsewhere", &t, err, sizeof err);
  assert_int_equal(cordon_filter_match(all, &t, &ctx), CORDON_TRI_NO);
  cordon_fact facts[] = {{"vnode-type", "DIRECTORY"}};
  cordon_match_ctx with = {.facts = facts, .nfacts = 1};
  cordon_target_parse("file-write-data", "/w/a", &t, err, sizeof err);
  assert_int_equal(cordon_filter_match(all, &t, &with), CORDON_TRI_YES);
  cordon_filter_free(all);
}

static void extensions_are_query_inputs(void **state) {
  (void)state;
  cordon_filter *f = cordon_filter_new(CORDON_F_EXTENSION, "extension", CORDON_MATCH_LITERAL);
  cordon_filter_add_arg(f, "com.apple.app-sandbox.read", false);
  cordon_target t;
  char err[64];
  cordon_target_parse("file-read-data", "/x", &t, err, sizeof err);
  cordon_match_ctx none = {0};
  assert_int_equal(cordon_filter_match(f, &t, &none), CORDON_TRI_UNKNOWN);
  cordon_fact held[] = {{"extension", "com.apple.app-sandbox.read"}};
  cordon_match_ctx yes = {.facts = held, .nfacts = 1};
  assert_int_equal(cordon_filter_match(f, &t, &yes), CORDON_TRI_YES);
  cordon_fact empty[] = {{"extension", ""}};
  cordon_match_ctx no = {.facts = empty, .nfacts = 1};
  assert_int_equal(cordon_filter_match(f, &t, &no), CORDON_TRI_NO);
  cordon_filter_free(f);
}

static void name_filters_compare_with_the_target_name(void **state) {
  (void)state;
  cordon_filter *f = cordon_filter_new(CORDON_F_NAME, "global-name", CORDON_MATCH_LITERAL);
  cordon_filter_add_arg(f, "com.apple.trustd.agent", false);
  cordon_filter *p = cordon_filter_new(CORDON_F_NAME, "sysctl-name-prefix", CORDON_MATCH_PREFIX);
  cordon_filter_add_arg(p, "kern.proc.pid.", false);
  cordon_target t;
  char err[64];
  cordon_match_ctx ctx = {0};
  cordon_target_parse("mach-lookup", "com.apple.trustd.agent", &t, err, sizeof err);
  assert_int_equal(cordon_filter_match(f, &t, &ctx), CORDON_TRI_YES);
  cordon_target_parse("mach-lookup", "com.apple.trustd", &t, err, sizeof err);
  assert_int_equal(cordon_filter_match(f, &t, &ctx), CORDON_TRI_NO);
  cordon_target_parse("sysctl-read", "kern.proc.pid.42", &t, err, sizeof err);
  assert_int_equal(cordon_filter_match(p, &t, &ctx), CORDON_TRI_YES);
  cordon_filter_free(f);
  cordon_filter_free(p);
}

static void filters_about_the_process_or_command_are_facts(void **state) {
  (void)state;
  cordon_filter *f = cordon_filter_new(CORDON_F_NAME, "ioctl-command", CORDON_MATCH_LITERAL);
  cordon_filter_add_arg(f, "TIOCGWINSZ", false);
  cordon_target t;
  char err[64];
  cordon_target_parse("file-ioctl", "/dev/ttys001", &t, err, sizeof err);
  cordon_match_ctx none = {0};
  assert_int_equal(cordon_filter_match(f, &t, &none), CORDON_TRI_UNKNOWN);
  assert_string_equal(none.missing, "ioctl-command");
  cordon_fact cmd[] = {{"ioctl-command", "TIOCGWINSZ"}};
  cordon_match_ctx given = {.facts = cmd, .nfacts = 1};
  assert_int_equal(cordon_filter_match(f, &t, &given), CORDON_TRI_YES);
  cordon_filter_free(f);
  f = cordon_filter_new(CORDON_F_NAME, "signing-identifier", CORDON_MATCH_LITERAL);
  cordon_filter_add_arg(f, "com.apple.ls", false);
  cordon_target_parse("mach-lookup", "com.apple.ls", &t, err, sizeof err);
  cordon_match_ctx none2 = {0};
  assert_int_equal(cordon_filter_match(f, &t, &none2), CORDON_TRI_UNKNOWN); /* not the target's name */
  cordon_filter_free(f);
}

static cordon_filter *net(const char *dir, const char *proto, const char *addr) {
  cordon_filter *f = cordon_filter_new(CORDON_F_NETWORK, dir, CORDON_MATCH_NONE);
  cordon_filter_add_arg(f, proto, false);
  if (addr) cordon_filter_add_arg(f, addr, false);
  return f;
}

static cordon_tri net_match(cordon_filter *f, const char *op, const char *target) {
  cordon_target t;
  char err[128];
  assert_true(cordon_target_parse(op, target, &t, err, sizeof err));
  cordon_match_ctx ctx = {0};
  return cordon_filter_match(f, &t, &ctx);
}

static void network_filters_match_direction_protocol_host_and_port(void **state) {
  (void)state;
  cordon_filter *lh = net("remote", "tcp", "localhost:*");
  assert_int_equal(net_match(lh, "network-outbound", "remote:tcp:localhost:443"), CORDON_TRI_YES);
  assert_int_equal(net_match(lh, "network-outbound", "127.0.0.1:8080"), CORDON_TRI_YES);
  assert_int_equal(net_match(lh, "network-outbound", "[::1]:8080"), CORDON_TRI_YES);
  assert_int_equal(net_match(lh, "network-outbound", "example.com:443"), CORDON_TRI_NO);
  assert_int_equal(net_match(lh, "network-outbound", "udp:localhost:53"), CORDON_TRI_NO);
  assert_int_equal(net_match(lh, "network-outbound", "local:tcp:localhost:53"), CORDON_TRI_NO);
  cordon_filter *any = net("remote", "ip", "*:443");
  assert_int_equal(net_match(any, "network-outbound", "udp:example.com:443"), CORDON_TRI_YES);
  assert_int_equal(net_match(any, "network-outbound", "example.com:80"), CORDON_TRI_NO);
  cordon_filter *bind = net("local", "ip", "*:*");
  assert_int_equal(net_match(bind, "network-bind", "localhost:8080"), CORDON_TRI_YES);
  /* the trap: (local ip "*:*") on network-outbound matches every outbound connection's local end */
  assert_int_equal(net_match(bind, "network-outbound", "local:tcp:*:50000"), CORDON_TRI_YES);
  cordon_filter_free(lh);
  cordon_filter_free(any);
  cordon_filter_free(bind);
}

static void unix_sockets_match_by_path(void **state) {
  (void)state;
  cordon_filter *f = net("remote", "unix-socket", NULL);
  cordon_filter_add_child(f, cordon_filter_path("literal", "/private/var/run/mDNSResponder", false));
  assert_int_equal(net_match(f, "network-outbound", "/private/var/run/mDNSResponder"), CORDON_TRI_YES);
  assert_int_equal(net_match(f, "network-outbound", "remote:unix:/private/var/run/x"), CORDON_TRI_NO);
  assert_int_equal(net_match(f, "network-outbound", "localhost:80"), CORDON_TRI_NO);
  cordon_filter_free(f);
  cordon_filter *lit = cordon_filter_path("literal", "/var/run/docker.sock", false);
  assert_int_equal(net_match(lit, "network-outbound", "/var/run/docker.sock"), CORDON_TRI_YES);
  cordon_filter_free(lit);
}

static void malformed_network_targets_are_refused(void **state) {
  (void)state;
  cordon_target t;
  char err[128];
  assert_false(cordon_target_parse("network-outbound", "example.com", &t, err, sizeof err));
  assert_false(cordon_target_parse("network-outbound", "example.com:99999", &t, err, sizeof err));
  assert_false(cordon_target_parse("network-outbound", "unix:relative", &t, err, sizeof err));
  assert_true(cordon_target_parse("network-outbound", "remote:udp6:*:53", &t, err, sizeof err));
  assert_string_equal(t.proto, "udp6");
  assert_string_equal(t.host, "*");
  assert_string_equal(t.port, "53");
  assert_false(t.local);
}

static void parameters_resolve_from_the_context(void **state) {
  (void)state;
  cordon_filter *f = cordon_filter_path("subpath", "HOME_DIR", true);
  const char *params[] = {"HOME_DIR", "/Users/u"};
  cordon_target t;
  char err[64];
  cordon_target_parse("file-read-data", "/Users/u/x", &t, err, sizeof err);
  cordon_match_ctx with = {.params = params, .nparams = 1};
  assert_int_equal(cordon_filter_match(f, &t, &with), CORDON_TRI_YES);
  cordon_match_ctx without = {0};
  assert_int_equal(cordon_filter_match(f, &t, &without), CORDON_TRI_UNKNOWN);
  assert_string_equal(without.missing, "HOME_DIR");
  assert_true(without.missing_is_param);
  cordon_filter_free(f);
}

/* Stacked quantifiers make regcomp allocate gigabytes; the one regex primitive (used by decisions and
 * the Linux compiler alike) refuses them before compiling. */
static void a_regex_too_costly_to_compile_is_refused_not_compiled(void **state) {
  (void)state;
  char err[200] = "";
  cordon_regex *re = cordon_regex_new("^/a++++++++++++++++++++++++++++++++++++++++", err, sizeof err);
  assert_non_null(re);
  assert_false(cordon_regex_ok(re, NULL, 0));
  assert_non_null(strstr(err, "too costly"));
  assert_int_equal(cordon_regex_search(re, "/aaa", 4), -1);
  cordon_regex_free(re);
  re = cordon_regex_new("^/a{1,9}b+", err, sizeof err);
  assert_true(cordon_regex_ok(re, NULL, 0));
  assert_int_equal(cordon_regex_search(re, "/aab", 4), 1);
  cordon_regex_free(re);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(literal_matches_exactly),
      cmocka_unit_test(subpath_respects_segment_boundaries),
      cmocka_unit_test(trailing_slash_filters_never_match),
      cmocka_unit_test(prefix_is_a_raw_string_prefix),
      cmocka_unit_test(regex_is_an_unanchored_search),
      cmocka_unit_test(regex_knows_w_d_s_and_counted_repeats),
      cmocka_unit_test(anchored_regexes_with_inner_alternatives_match_as_before),
      cmocka_unit_test(regex_translation_keeps_escaped_dots_literal),
      cmocka_unit_test(a_bad_regex_is_unknown_not_a_crash),
      cmocka_unit_test(composite_filters_use_three_valued_logic),
      cmocka_unit_test(extensions_are_query_inputs),
      cmocka_unit_test(name_filters_compare_with_the_target_name),
      cmocka_unit_test(filters_about_the_process_or_command_are_facts),
      cmocka_unit_test(network_filters_match_direction_protocol_host_and_port),
      cmocka_unit_test(unix_sockets_match_by_path),
      cmocka_unit_test(malformed_network_targets_are_refused),
      cmocka_unit_test(parameters_resolve_from_the_context),
      cmocka_unit_test(a_regex_too_costly_to_compile_is_refused_not_compiled),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
