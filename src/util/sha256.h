/* SHA-256 (FIPS 180-4), for naming a catalog by the hash of its bytes.
 *
 * Streaming: init, update any number of times, final. The context is a plain
 * struct the caller embeds; nothing is allocated. */
#ifndef RIGHTSIZE_SHA256_H
#define RIGHTSIZE_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define RS_SHA256_SIZE 32
#define RS_SHA256_HEX_SIZE 65 /* 64 hex digits and a NUL */

typedef struct rs_sha256 {
  uint32_t h[8];
  uint64_t nbytes;         /* message bytes so far */
  unsigned char block[64]; /* the partial block */
  size_t nblock;
} rs_sha256;

void rs_sha256_init(rs_sha256 *ctx);
void rs_sha256_update(rs_sha256 *ctx, const void *data, size_t len);
/* Writes the digest to out; ctx must be initialized again before reuse. */
void rs_sha256_final(rs_sha256 *ctx, unsigned char out[RS_SHA256_SIZE]);

/* The lowercase hex digest of data into out (65 bytes, NUL-terminated). */
void rs_sha256_hex(char out[RS_SHA256_HEX_SIZE], const void *data, size_t len);

#endif
