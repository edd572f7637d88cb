/* tests/c/test_sha256.c — SHA-256 against the FIPS 180-4 examples, in one piece and in pieces. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "core/sha256.h"

static void hex_of(const char *text, char out[CORDON_SHA256_HEX]) { cordon_sha256_hex(text, strlen(text), out); }

static void the_fips_examples_give_their_published_digests(void **state) {
  (void)state;
  char hex[CORDON_SHA256_HEX];
  hex_of("abc", hex);
  assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  hex_of("", hex);
  assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  hex_of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", hex);  /* 448 bits: padding spills a block */
  assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static void a_million_a_hashed_in_uneven_pieces_matches_the_published_digest(void **state) {
  (void)state;
  char chunk[997];
  memset(chunk, 'a', sizeof chunk);
  cordon_sha256 h;
  cordon_sha256_init(&h);
  size_t left = 1000000;
  while (left) {
    size_t n = left < sizeof chunk ? left : sizeof chunk;
    cordon_sha256_update(&h, chunk, n);
    left -= n;
  }
  unsigned char d[CORDON_SHA256_BYTES];
  cordon_sha256_final(&h, d);
  static const unsigned char want[CORDON_SHA256_BYTES] = {
      0xcd, 0xc7, 0x6e, 0x5c, 0x99, 0x14, 0xfb, 0x92, 0x81, 0xa1, 0xc7, 0xe2, 0x84, 0xd7, 0x3e, 0x67,
      0xf1, 0x80, 0x9a, 0x48, 0xa4, 0x97, 0x20, 0x0e, 0x04, 0x6d, 0x39, 0xcc, 0xc7, 0x11, 0x2c, 0xd0};
  assert_memory_equal(d, want, sizeof want);
}

static void every_length_around_a_block_boundary_agrees_with_hashing_byte_by_byte(void **state) {
  (void)state;
  char text[130];
  for (size_t i = 0; i < sizeof text; i++) text[i] = (char)('a' + i % 26);
  for (size_t len = 50; len <= sizeof text; len++) {
    char whole[CORDON_SHA256_HEX], bytes[CORDON_SHA256_HEX];
    cordon_sha256_hex(text, len, whole);
    cordon_sha256 h;
    cordon_sha256_init(&h);
    for (size_t i = 0; i < len; i++) cordon_sha256_update(&h, text + i, 1);
    unsigned char d[CORDON_SHA256_BYTES];
    cordon_sha256_final(&h, d);
    for (int i = 0; i < CORDON_SHA256_BYTES; i++) snprintf(bytes + 2 * i, 3, "%02x", d[i]);
    assert_string_equal(whole, bytes);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(the_fips_examples_give_their_published_digests),
      cmocka_unit_test(a_million_a_hashed_in_uneven_pieces_matches_the_published_digest),
      cmocka_unit_test(every_length_around_a_block_boundary_agrees_with_hashing_byte_by_byte),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
