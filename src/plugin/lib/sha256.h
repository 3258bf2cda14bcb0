/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/sha256.h - SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), written
 * here from the standards so that the plugin needs no crypto library. They
 * authenticate the plugin's own connections (lib/auth.h): a MAC of a fresh
 * challenge proves a process holds the job key without sending it.
 * Slurm-free, no state of its own: any thread.
 */
#ifndef PLUG_LIB_SHA256_H
#define PLUG_LIB_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define PLUG_SHA256_LEN 32   /* bytes of a digest */
#define PLUG_SHA256_BLOCK 64 /* bytes of a block */

typedef struct {
	uint32_t h[8];
	uint64_t bytes; /* hashed so far */
	unsigned char block[PLUG_SHA256_BLOCK];
	size_t fill; /* bytes in block */
} plug_sha256_t;

void plug_sha256_init(plug_sha256_t *s);
void plug_sha256_update(plug_sha256_t *s, const void *data, size_t len);
/* Writes the digest to out and leaves s to be initialized again. */
void plug_sha256_final(plug_sha256_t *s, unsigned char out[PLUG_SHA256_LEN]);
/* The digest of one buffer. */
void plug_sha256(const void *data, size_t len, unsigned char out[PLUG_SHA256_LEN]);

/* HMAC-SHA256 of the concatenation of n parts (parts[i], lens[i]) under
 * key (any length: longer than a block is hashed first, RFC 2104). */
void plug_hmac_sha256(const void *key, size_t keylen, size_t n, const void *const parts[],
		      const size_t lens[], unsigned char out[PLUG_SHA256_LEN]);

/* True when the n bytes of a and b are equal; takes the same time
 * whichever bytes differ. */
int plug_mem_equal(const void *a, const void *b, size_t n);

#endif
