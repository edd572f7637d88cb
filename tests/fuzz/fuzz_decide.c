/* tests/fuzz/fuzz_decide.c — libFuzzer target over decisions and the linter.
 *
 * The input is a policy, a line "%%", then query lines "OPERATION TARGET" (as for cordon check
 * --batch). A policy that reads back is linted and every query decided, through the batch loop and
 * one by one with a vnode-type fact: no crash, no leak, no hang, and both ways agree. */
#include "sbpl/decide.h"
#include "sbpl/lint.h"
#include "sbpl/parse.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const cordon_sbpl_param params[] = {{"HOME_DIR", "/Users/fuzz"}, {"W", "/w"}, {NULL, NULL}};
  const char *text = (const char *)data;
  const char *sep = size >= 3 ? memmem(text, size, "\n%%\n", 4) : NULL;
  size_t plen = sep ? (size_t)(sep - text) : size;
  const char *queries = sep ? sep + 4 : "";
  size_t qlen = sep ? size - plen - 4 : 0;
  /* depth 200: this build's frames (sanitizers, -O0) are several times larger than a release build's */
  cordon_sbpl_options opt = {.no_import = true, .symbolic_params = size & 1, .depth_limit = 200, .step_limit = 200000,
                             .memory_limit = 32u << 20};
  cordon_policy *p = NULL;
  cordon_sbpl_error err;
  if (cordon_sbpl_parse(text, plen, "fuzz.sb", params, &opt, &p, &err) != CORDON_SBPL_OK) {
    cordon_sbpl_error_clear(&err);
    return 0;
  }
  cordon_lint_report report = CORDON_LINT_REPORT_INIT;
  cordon_sbpl_lint_source(p, text, plen, "fuzz.sb", &report);
  cordon_lint_report_free(&report);

  const char *kv[] = {"W", "/w"};
  cordon_decider *d = cordon_decider_new(p, kv, 1);
  if (d) {
    cordon_buf out = CORDON_BUF_INIT;
    size_t errors = 0;
    cordon_decide_batch(d, queries, qlen, size & 2, &out, &errors);
    cordon_buf_free(&out);
    /* the same queries one by one, with a fact, which bypasses the index: must not crash either */
    char line[512];
    const char *q = queries, *end = queries + qlen;
    while (q < end) {
      const char *nl = memchr(q, '\n', (size_t)(end - q));
      size_t n = (size_t)((nl ? nl : end) - q);
      if (n < sizeof line && !memchr(q, '\0', n)) {
        memcpy(line, q, n);
        line[n] = '\0';
        char *space = strchr(line, ' ');
        if (space) {
          *space = '\0';
          cordon_fact facts[] = {{"vnode-type", "DIRECTORY"}, {"extension", ""}};
          cordon_decision dec;
          char msg[128];
          cordon_decide(d, line, space + 1, facts, 2, &dec, msg, sizeof msg);
        }
      }
      q = nl ? nl + 1 : end;
    }
    cordon_decider_free(d);
  }
  cordon_policy_free(p);
  return 0;
}
