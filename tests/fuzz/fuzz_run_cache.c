/* tests/fuzz/fuzz_run_cache.c — libFuzzer target over a run cache entry's bytes
 * (cordon_lx_runcache_parse in src/backend/linux/runcache_format.c). Entries are read from the user's
 * cache directory; the parser must survive any bytes.
 *
 * Any input must end in an entry or a miss with a reason: no crash, no leak, no hang. What parses must
 * also hold together: it encodes back to exactly the bytes it came from (the format has one spelling),
 * every record call and observation kind is one the replay knows, and argv and cwd are usable. The
 * seeds use the key "k". */
#include "backend/linux/runcache.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what) {
  fprintf(stderr, "fuzz_run_cache: %s\n", what);
  __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  cordon_lx_run_entry e;
  const char *why = NULL;
  if (!cordon_lx_runcache_parse((const char *)data, size, "k", &e, &why)) {
    if (!why || !*why) fail("a miss without a reason");
    if (e.plan || e.argv || e.key) fail("a failed parse left something behind");
    return 0;
  }
  if (!e.argv || !e.argv[0] || !e.argv[0][0] || !e.cwd || e.cwd[0] != '/' || !e.plan) fail("an unusable entry parsed");
  for (size_t i = 0; i < e.nrecords; i++)
    if (!strchr("sldfrpchtgi", e.calls[i]) || !e.args[i] || !e.digests[i]) fail("an unknown record parsed");
  for (size_t i = 0; i < e.nobs; i++)
    if (!strchr("dfs-eDFSL_E", e.obs_kinds[i]) || e.obs_paths[i][0] != '/') fail("an unknown observation parsed");
  cordon_buf again = CORDON_BUF_INIT;
  cordon_lx_runcache_encode(&e, &again);
  if (again.oom) {
    cordon_buf_free(&again);
    cordon_lx_run_entry_free(&e);
    return 0;
  }
  if (again.len != size || memcmp(again.data, data, size) != 0) fail("an entry does not encode to its own bytes");
  cordon_buf_free(&again);
  cordon_lx_run_entry_free(&e);
  return 0;
}
