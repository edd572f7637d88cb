/* tests/fuzz/fuzz_boundary.c — libFuzzer target over the stored form of a boundary
 * (cordon_boundary_decode in src/core/boundary_json.c): session databases and `cordon session validate`
 * read it from files anyone may have edited.
 *
 * Any input must end in a boundary or a clean error with a message: no crash, no leak, no hang. What
 * decodes must also hold together: it encodes, and the encoding decodes again to the same encoding
 * (the stored form is canonical), and a boundary contains itself. */
#include "core/boundary.h"
#include "core/buf.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *what, const cordon_buf *a, const cordon_buf *b) {
  fprintf(stderr, "fuzz_boundary: %s\n  first:  %s\n  second: %s\n", what, a && a->data ? a->data : "",
          b && b->data ? b->data : "");
  __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  cordon_boundary *b = NULL;
  cordon_buf err = CORDON_BUF_INIT;
  cordon_boundary_status st = cordon_boundary_decode((const char *)data, size, &b, &err);
  if (st != CORDON_BOUNDARY_OK) {
    if (b) fail("a failed decode left a boundary", NULL, NULL);
    if (st == CORDON_BOUNDARY_INVALID_JSON && (!err.data || !*err.data)) fail("invalid_json without a message", NULL, NULL);
    cordon_buf_free(&err);
    return 0;
  }
  cordon_buf_free(&err);
  if (!b) fail("a successful decode gave no boundary", NULL, NULL);

  cordon_buf first = CORDON_BUF_INIT, second = CORDON_BUF_INIT, err2 = CORDON_BUF_INIT;
  if (cordon_boundary_encode(b, &first) != CORDON_BOUNDARY_OK) fail("a decoded boundary does not encode", NULL, NULL);
  cordon_boundary *again = NULL;
  if (cordon_boundary_decode(first.data, first.len, &again, &err2) != CORDON_BOUNDARY_OK)
    fail("the encoding of a decoded boundary does not decode", &first, &err2);
  if (cordon_boundary_encode(again, &second) != CORDON_BOUNDARY_OK) fail("a re-decoded boundary does not encode", &first, NULL);
  if (first.len != second.len || memcmp(first.data, second.data, first.len) != 0)
    fail("encode(decode(encode(b))) differs from encode(b)", &first, &second);
  if (cordon_boundary_revision(again) != cordon_boundary_revision(b)) fail("the revision changed", &first, &second);
  if (!cordon_boundary_contains(b, b)) fail("a boundary does not contain itself", &first, NULL);
  if (!cordon_boundary_contains(b, again) || !cordon_boundary_contains(again, b))
    fail("a boundary and its round trip do not contain each other", &first, &second);

  cordon_boundary *copy = cordon_boundary_copy(b);
  if (copy) {
    if (!cordon_boundary_contains(b, copy)) fail("a copy is not contained", &first, NULL);
    cordon_boundary_free(copy);
  }
  cordon_boundary_free(again);
  cordon_boundary_free(b);
  cordon_buf_free(&first);
  cordon_buf_free(&second);
  cordon_buf_free(&err2);
  return 0;
}
