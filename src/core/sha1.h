/* src/core/sha1.h — SHA-1 (FIPS 180-4), only to name git blobs as a SHA-1 repository does */
#ifndef CORDON_SHA1_H
#define CORDON_SHA1_H
#include <stddef.h>
#include <stdint.h>

#define CORDON_SHA1_BYTES 20

typedef struct {
  uint32_t state[5];
  uint64_t length;           /* bytes hashed so far */
  unsigned char block[64];
  size_t used;               /* bytes waiting in `block` */
} cordon_sha1;

void cordon_sha1_init(cordon_sha1 *h);
void cordon_sha1_update(cordon_sha1 *h, const void *data, size_t len);
void cordon_sha1_final(cordon_sha1 *h, unsigned char out[CORDON_SHA1_BYTES]);
#endif
