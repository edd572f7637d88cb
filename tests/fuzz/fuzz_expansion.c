/* tests/fuzz/fuzz_expansion.c — libFuzzer target over the stored form of an expansion
 * (cordon_expansion_decode in src/core/expansion_json.c): a session's requests and approved deltas are
 * read back from a database anyone with write access may have edited.
 *
 * Any input must end in a valid expansion or a clean error: no crash, no leak, no hang. What decodes
 * holds only what cordon_expansion_add accepts (normalized absolute paths, no control byte, within the
 * limits), and encodes to a form that decodes to the same encoding. */
#include "core/boundary.h"
#include "core/buf.h"
#include "core/path.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what) {
  fprintf(stderr, "fuzz_expansion: %s\n", what);
  __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  cordon_expansion x = CORDON_EXPANSION_INIT;
  cordon_buf err = CORDON_BUF_INIT;
  cordon_boundary_status st = cordon_expansion_decode((const char *)data, size, &x, &err);
  cordon_buf_free(&err);
  if (st != CORDON_BOUNDARY_OK) {
    if (x.count || x.entries) fail("a failed decode left entries");
    return 0;
  }
  if (x.count == 0 && !x.network) fail("an empty expansion decoded");
  if (x.count > CORDON_EXPANSION_MAX_ENTRIES || x.bytes > CORDON_EXPANSION_MAX_BYTES) fail("past the limits");
  for (size_t i = 0; i < x.count; i++) {
    char norm[CORDON_PATH_MAX + 1];
    const char *p = x.entries[i].path;
    if (cordon_path_normalize(p, norm, sizeof norm) != CORDON_PATH_OK || strcmp(norm, p) != 0) fail("a path that is not normalized");
  }
  cordon_buf first = CORDON_BUF_INIT, second = CORDON_BUF_INIT, err2 = CORDON_BUF_INIT;
  if (cordon_expansion_encode(&x, &first) != CORDON_BOUNDARY_OK) fail("a decoded expansion does not encode");
  cordon_expansion again = CORDON_EXPANSION_INIT;
  if (cordon_expansion_decode(first.data, first.len, &again, &err2) != CORDON_BOUNDARY_OK) fail("its encoding does not decode");
  if (cordon_expansion_encode(&again, &second) != CORDON_BOUNDARY_OK || first.len != second.len ||
      memcmp(first.data, second.data, first.len) != 0)
    fail("encode(decode(encode(x))) differs from encode(x)");
  cordon_expansion_free(&again);
  cordon_expansion_free(&x);
  cordon_buf_free(&first);
  cordon_buf_free(&second);
  cordon_buf_free(&err2);
  return 0;
}
