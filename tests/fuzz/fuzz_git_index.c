/* tests/fuzz/fuzz_git_index.c — libFuzzer target over the index parser (src/core/gitindex.c), whose input
 * the sandbox writes: any bytes end in a status, every entry's path is as long as it says and checked
 * by verify_path's rules without reading past it. The first byte picks SHA-1 or SHA-256 ids. */
#include "core/gitindex.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int visit(void *ctx, const cordon_gitindex_entry *e) {
  (void)ctx;
  if (strlen(e->path) != e->len || e->len >= CORDON_GITINDEX_PATH_MAX) abort();
  (void)cordon_gitindex_path_refusal(e->path, e->len, e->mode == 040000);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  size_t oidlen = data[0] & 1 ? 32 : 20;
  unsigned char *copy = malloc(size - 1 ? size - 1 : 1);  /* exactly the input: an overread is caught */
  if (!copy) return 0;
  memcpy(copy, data + 1, size - 1);
  cordon_gitindex_status st = cordon_gitindex_walk(copy, size - 1, oidlen, visit, NULL);
  if (!cordon_gitindex_status_name(st)) abort();
  free(copy);
  return 0;
}
