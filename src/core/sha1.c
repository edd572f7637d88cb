/* src/core/sha1.c — SHA-1 (FIPS 180-4): git's object names; not used for anything needing collision resistance */
#include "core/sha1.h"

#include <string.h>

static uint32_t rol(uint32_t x, unsigned n) { return (x << n) | (x >> (32 - n)); }

static void compress(uint32_t s[5], const unsigned char *p) {
  uint32_t w[80];
  for (int i = 0; i < 16; i++)
    w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
  for (int i = 16; i < 80; i++) w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
  uint32_t a = s[0], b = s[1], c = s[2], d = s[3], e = s[4];
  for (int i = 0; i < 80; i++) {
    uint32_t f, k;
    if (i < 20) f = (b & c) | (~b & d), k = 0x5a827999;
    else if (i < 40) f = b ^ c ^ d, k = 0x6ed9eba1;
    else if (i < 60) f = (b & c) | (b & d) | (c & d), k = 0x8f1bbcdc;
    else f = b ^ c ^ d, k = 0xca62c1d6;
    uint32_t t = rol(a, 5) + f + e + k + w[i];
    e = d, d = c, c = rol(b, 30), b = a, a = t;
  }
  s[0] += a, s[1] += b, s[2] += c, s[3] += d, s[4] += e;
}

void cordon_sha1_init(cordon_sha1 *h) {
  static const uint32_t iv[5] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0};
  memcpy(h->state, iv, sizeof iv);
  h->length = 0;
  h->used = 0;
}

void cordon_sha1_update(cordon_sha1 *h, const void *data, size_t len) {
  const unsigned char *p = data;
  h->length += len;
  while (len > 0) {
    if (h->used == 0 && len >= 64) {  /* whole blocks straight from the input */
      compress(h->state, p);
      p += 64, len -= 64;
      continue;
    }
    size_t take = 64 - h->used < len ? 64 - h->used : len;
    memcpy(h->block + h->used, p, take);
    h->used += take, p += take, len -= take;
    if (h->used == 64) {
      compress(h->state, h->block);
      h->used = 0;
    }
  }
}

void cordon_sha1_final(cordon_sha1 *h, unsigned char out[CORDON_SHA1_BYTES]) {
  uint64_t bits = h->length * 8;
  unsigned char pad[72] = {0x80};
  size_t n = (h->used < 56 ? 56 : 120) - h->used;
  for (int i = 0; i < 8; i++) pad[n + (size_t)i] = (unsigned char)(bits >> (56 - 8 * i));
  cordon_sha1_update(h, pad, n + 8);
  for (int i = 0; i < 5; i++)
    for (int j = 0; j < 4; j++) out[4 * i + j] = (unsigned char)(h->state[i] >> (24 - 8 * j));
}
