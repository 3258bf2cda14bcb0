/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/sha256.c - SHA-256 from FIPS 180-4 (sections 4.1.2, 4.2.2, 5.1.1,
 * 5.3.3, 6.2) and HMAC from RFC 2104; see lib/sha256.h. Tested against the
 * FIPS 180-4 examples and RFC 4231's HMAC-SHA256 vectors
 * (tests/unit/test_plugin_auth.c).
 */
#include <string.h>

#include "lib/sha256.h"

/* FIPS 180-4 4.2.2: the first 32 bits of the fractional parts of the cube
 * roots of the first 64 primes. */
static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
	0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
	0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
	0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
	0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
	0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
	0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
	0xc67178f2,
};

static uint32_t rotr(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

static uint32_t load_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void store_be32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

/* FIPS 180-4 6.2.2: one 512-bit block into the hash value. */
static void compress(uint32_t h[8], const unsigned char *block)
{
	uint32_t w[64], v[8];

	for (int t = 0; t < 16; t++)
		w[t] = load_be32(block + 4 * t);
	for (int t = 16; t < 64; t++) {
		uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
		uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);

		w[t] = s1 + w[t - 7] + s0 + w[t - 16];
	}
	memcpy(v, h, sizeof(v));
	for (int t = 0; t < 64; t++) {
		uint32_t e = v[4], a = v[0];
		uint32_t t1 = v[7] + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) +
			      ((e & v[5]) ^ (~e & v[6])) + K[t] + w[t];
		uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) +
			      ((a & v[1]) ^ (a & v[2]) ^ (v[1] & v[2]));

		memmove(v + 1, v, 7 * sizeof(v[0]));
		v[4] += t1;
		v[0] = t1 + t2;
	}
	for (int i = 0; i < 8; i++)
		h[i] += v[i];
}

void plug_sha256_init(plug_sha256_t *s)
{
	/* FIPS 180-4 5.3.3 */
	static const uint32_t h0[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
					0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };

	memcpy(s->h, h0, sizeof(h0));
	s->bytes = 0;
	s->fill = 0;
}

void plug_sha256_update(plug_sha256_t *s, const void *data, size_t len)
{
	const unsigned char *p = data;

	s->bytes += len;
	while (len) {
		size_t take = PLUG_SHA256_BLOCK - s->fill;

		if (take > len)
			take = len;
		memcpy(s->block + s->fill, p, take);
		s->fill += take;
		p += take;
		len -= take;
		if (s->fill == PLUG_SHA256_BLOCK) {
			compress(s->h, s->block);
			s->fill = 0;
		}
	}
}

/* FIPS 180-4 5.1.1: a 1 bit, zeros, then the length in bits (64 bits). */
void plug_sha256_final(plug_sha256_t *s, unsigned char out[PLUG_SHA256_LEN])
{
	uint64_t bits = s->bytes * 8;
	unsigned char len[8];
	static const unsigned char one = 0x80, zero = 0;

	for (int i = 0; i < 8; i++)
		len[i] = (unsigned char)(bits >> (56 - 8 * i));
	plug_sha256_update(s, &one, 1);
	while (s->fill != PLUG_SHA256_BLOCK - 8)
		plug_sha256_update(s, &zero, 1);
	plug_sha256_update(s, len, 8);
	for (int i = 0; i < 8; i++)
		store_be32(out + 4 * i, s->h[i]);
	memset(s, 0, sizeof(*s));
}

void plug_sha256(const void *data, size_t len, unsigned char out[PLUG_SHA256_LEN])
{
	plug_sha256_t s;

	plug_sha256_init(&s);
	plug_sha256_update(&s, data, len);
	plug_sha256_final(&s, out);
}

/* RFC 2104: H((K ^ opad) || H((K ^ ipad) || text)). */
void plug_hmac_sha256(const void *key, size_t keylen, size_t n, const void *const parts[],
		      const size_t lens[], unsigned char out[PLUG_SHA256_LEN])
{
	unsigned char k[PLUG_SHA256_BLOCK] = { 0 }, pad[PLUG_SHA256_BLOCK];
	unsigned char inner[PLUG_SHA256_LEN];
	plug_sha256_t s;

	if (keylen > PLUG_SHA256_BLOCK)
		plug_sha256(key, keylen, k);
	else if (keylen)
		memcpy(k, key, keylen);
	for (int i = 0; i < PLUG_SHA256_BLOCK; i++)
		pad[i] = k[i] ^ 0x36;
	plug_sha256_init(&s);
	plug_sha256_update(&s, pad, sizeof(pad));
	for (size_t i = 0; i < n; i++)
		plug_sha256_update(&s, parts[i], lens[i]);
	plug_sha256_final(&s, inner);
	for (int i = 0; i < PLUG_SHA256_BLOCK; i++)
		pad[i] = k[i] ^ 0x5c;
	plug_sha256_init(&s);
	plug_sha256_update(&s, pad, sizeof(pad));
	plug_sha256_update(&s, inner, sizeof(inner));
	plug_sha256_final(&s, out);
	memset(k, 0, sizeof(k));
	memset(pad, 0, sizeof(pad));
}

int plug_mem_equal(const void *a, const void *b, size_t n)
{
	const volatile unsigned char *x = a, *y = b;
	unsigned diff = 0;

	for (size_t i = 0; i < n; i++)
		diff |= x[i] ^ y[i];
	return diff == 0;
}
