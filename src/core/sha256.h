/* src/core/sha256.h — SHA-256 (FIPS 180-4), for pinning trust to a file's content */
#ifndef CORDON_SHA256_H
#define CORDON_SHA256_H
#include <stddef.h>
#include <stdint.h>

#define CORDON_SHA256_BYTES 32
#define CORDON_SHA256_HEX (2 * CORDON_SHA256_BYTES + 1)  /* lower-case hex digits and the NUL */

typedef struct {
  uint32_t state[8];
  uint64_t length;           /* bytes hashed so far */
  unsigned char block[64];
  size_t used;               /* bytes waiting in `block` */
} cordon_sha256;

void cordon_sha256_init(cordon_sha256 *h);
void cordon_sha256_update(cordon_sha256 *h, const void *data, size_t len);
void cordon_sha256_final(cordon_sha256 *h, unsigned char out[CORDON_SHA256_BYTES]);

/* The digest of `len` bytes at `data` as 64 lower-case hex digits. */
void cordon_sha256_hex(const void *data, size_t len, char out[CORDON_SHA256_HEX]);
#endif
