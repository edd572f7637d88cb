/* tests/fuzz/fuzz_plan_cache.c — libFuzzer target over a plan cache file's bytes
 * (cordon_lx_plancache_parse in src/backend/linux/runcache_format.c). Plans are read from the user's
 * cache directory; the parser must survive any bytes.
 *
 * Any input must end in a plan or a miss: no crash, no leak, no hang. What parses must hold together:
 * its observations are kinds the replay knows on absolute paths, and it encodes back to the bytes it came
 * from (the format has one spelling), up to a seccomp program kept for another machine, which a parse
 * drops. The seeds use the key "k". */
#include "backend/linux/runcache.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what) {
  fprintf(stderr, "fuzz_plan_cache: %s\n", what);
  __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  cordon_lx_plan *p = cordon_lx_plancache_parse((const char *)data, size, "k");
  if (!p) return 0;
  if (!p->record) fail("a parsed plan without its observations");
  for (size_t i = 0; i < p->nobs; i++)
    if (!strchr("dfs-eDFSL_E", p->obs_kinds[i]) || p->obs_paths[i][0] != '/') fail("an unknown observation parsed");
  if (p->gate_raw) fail("a parsed plan with its gate undecoded");
  cordon_buf again = CORDON_BUF_INIT;
  cordon_lx_plancache_encode("k", p, &again);
  if (!again.oom) {
    bool same = again.len == size && memcmp(again.data, data, size) == 0;
    bool prefix = !p->seccomp_bpf && again.len < size && memcmp(again.data, data, again.len) == 0;
    if (!same && !prefix) fail("a plan does not encode to its own bytes");
  }
  cordon_buf_free(&again);
  cordon_lx_plan_free(p);
  return 0;
}
