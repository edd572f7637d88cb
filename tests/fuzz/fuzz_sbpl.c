/* tests/fuzz/fuzz_sbpl.c — libFuzzer target over the SBPL reader and evaluator (cordon_sbpl_parse).
 *
 * Any input must end in a policy or a clean error: no crash, no leak, no hang. Imports are off (the
 * fuzzer must not read files) and the limits are tightened so one input stays within libFuzzer's time and
 * memory budgets; the limits themselves are part of what is tested. */
#include "sbpl/parse.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const cordon_sbpl_param params[] = {{"HOME_DIR", "/Users/fuzz"}, {"WORK", "/w"}, {NULL, NULL}};
  cordon_sbpl_options opt = {
    .no_import = true,
    .symbolic_params = size & 1, /* both ways of treating an undefined (param …) */
    .depth_limit = 200,  /* this build's frames (sanitizers, -O0) are several times larger: 1000 levels would overflow the stack first */
    .step_limit = 200000,
    .memory_limit = 32u << 20,
  };
  cordon_policy *p = NULL;
  cordon_sbpl_error err;
  cordon_sbpl_status st = cordon_sbpl_parse((const char *)data, size, "fuzz.sb", params, &opt, &p, &err);
  if (st == CORDON_SBPL_OK) {
    /* Touch what consumers read, so a malformed rule would show up under ASan. */
    for (size_t i = 0; i < p->nrules; i++) {
      const cordon_rule *r = &p->rules[i];
      for (size_t k = 0; k < r->nops; k++)
        if (!r->ops[k] || !*r->ops[k]) __builtin_trap();
    }
    cordon_policy_free(p);
  } else {
    if (p || !err.text) __builtin_trap();
    cordon_sbpl_error_clear(&err);
  }
  return 0;
}
