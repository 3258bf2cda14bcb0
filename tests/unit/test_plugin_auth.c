/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_plugin_auth.c - check suite for the plugin's crypto and handshake
 * primitives (src/plugin/lib/sha256.c, lib/auth.c) alone:
 *   sha256: the FIPS 180-4 examples ("abc", the 448-bit message), the
 *     million 'a' of FIPS 180-2 appendix B.3 fed in uneven pieces, the
 *     empty message;
 *   hmac: RFC 4231's seven HMAC-SHA256 test cases (case 5 truncated to
 *     128 bits, cases 6 and 7 with a key longer than a block);
 *   macs: what the handshake's MACs bind (role, both nonces, each field
 *     of the claim, the key), an answer checked against its own challenge
 *     only, and the acceptor's MAC never valid as the connector's.
 * The handshake over real connections is in test_plugin_net.c.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/auth.h"
#include "lib/sha256.h"
#include "runner.h"

#define KEY "0123456789abcdef0123456789abcdef"

static void hex(const unsigned char *d, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", d[i]);
}

static void check_sha(const void *data, size_t len, const char *want)
{
	unsigned char d[PLUG_SHA256_LEN];
	char got[2 * PLUG_SHA256_LEN + 1];

	plug_sha256(data, len, d);
	hex(d, sizeof(d), got);
	ck_assert_str_eq(got, want);
}

START_TEST(t_sha256)
{
	static const char m448[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	unsigned char d[PLUG_SHA256_LEN];
	char got[2 * PLUG_SHA256_LEN + 1], *a = malloc(1000000);
	plug_sha256_t s;

	check_sha("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	check_sha(m448, strlen(m448),
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	check_sha("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	ck_assert_ptr_nonnull(a);
	memset(a, 'a', 1000000);
	check_sha(a, 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	/* the same in pieces that straddle the blocks */
	plug_sha256_init(&s);
	for (size_t off = 0, k = 1; off < 1000000; off += k, k = k % 97 + 13)
		plug_sha256_update(&s, a + off, off + k > 1000000 ? 1000000 - off : k);
	plug_sha256_final(&s, d);
	hex(d, sizeof(d), got);
	ck_assert_str_eq(got, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	/* 55, 56 and 64 bytes: where the padding needs one block or two */
	check_sha(a, 55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
	check_sha(a, 56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
	check_sha(a, 64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
	free(a);
}
END_TEST

typedef struct {
	unsigned char key[131];
	size_t keylen;
	const char *data;
	size_t datalen;
	const char *mac; /* hex; shorter: truncated */
} rfc4231_t;

START_TEST(t_hmac_rfc4231)
{
	static rfc4231_t tc[7];
	unsigned char dd[50], cd[50], mac[PLUG_SHA256_LEN];
	char got[2 * PLUG_SHA256_LEN + 1];

	memset(dd, 0xdd, sizeof(dd));
	memset(cd, 0xcd, sizeof(cd));
	memset(tc[0].key, 0x0b, tc[0].keylen = 20);
	tc[0].data = "Hi There";
	tc[0].mac = "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7";
	memcpy(tc[1].key, "Jefe", tc[1].keylen = 4);
	tc[1].data = "what do ya want for nothing?";
	tc[1].mac = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843";
	memset(tc[2].key, 0xaa, tc[2].keylen = 20);
	tc[2].data = (const char *)dd;
	tc[2].datalen = sizeof(dd);
	tc[2].mac = "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe";
	for (int i = 0; i < 25; i++)
		tc[3].key[i] = (unsigned char)(i + 1);
	tc[3].keylen = 25;
	tc[3].data = (const char *)cd;
	tc[3].datalen = sizeof(cd);
	tc[3].mac = "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b";
	memset(tc[4].key, 0x0c, tc[4].keylen = 20);
	tc[4].data = "Test With Truncation";
	tc[4].mac = "a3b6167473100ee06e0c796c2955552b";
	memset(tc[5].key, 0xaa, tc[5].keylen = 131);
	tc[5].data = "Test Using Larger Than Block-Size Key - Hash Key First";
	tc[5].mac = "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54";
	memset(tc[6].key, 0xaa, tc[6].keylen = 131);
	tc[6].data = "This is a test using a larger than block-size key and a larger than "
		     "block-size data. The key needs to be hashed before being used by the "
		     "HMAC algorithm.";
	tc[6].mac = "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2";
	for (int i = 0; i < 7; i++) {
		size_t len = tc[i].datalen ? tc[i].datalen : strlen(tc[i].data);
		const void *parts[] = { tc[i].data };

		plug_hmac_sha256(tc[i].key, tc[i].keylen, 1, parts, &len, mac);
		hex(mac, sizeof(mac), got);
		got[strlen(tc[i].mac)] = '\0';
		ck_assert_msg(!strcmp(got, tc[i].mac), "RFC 4231 case %d: %s", i + 1, got);
	}
	{ /* parts are concatenated: case 2 in three pieces */
		const void *parts[] = { "what do ya", " want for ", "nothing?" };
		size_t lens[] = { 10, 10, 8 };

		plug_hmac_sha256("Jefe", 4, 3, parts, lens, mac);
		hex(mac, sizeof(mac), got);
		ck_assert_str_eq(got, tc[1].mac);
	}
}
END_TEST

START_TEST(t_macs_bind)
{
	unsigned char na[PLUG_AUTH_NONCE], na2[PLUG_AUTH_NONCE], nc[PLUG_AUTH_NONCE];
	unsigned char m[PLUG_AUTH_MSG], ref[PLUG_AUTH_MAC], other[PLUG_AUTH_MAC];
	plug_auth_claim_t cl = { 1, 2, 3 }, c2;

	ck_assert_int_eq(plug_auth_random(na, sizeof(na)), 0);
	memcpy(na2, na, sizeof(na));
	na2[31] ^= 1;
	ck_assert_int_eq(plug_auth_answer(KEY, &cl, na, nc, m), 0);
	ck_assert_mem_eq(m, nc, PLUG_AUTH_NONCE);
	/* the connector's MAC at the end of its AUTH */
	plug_auth_mac(KEY, 'C', na, nc, &cl, ref);
	ck_assert_mem_eq(m + PLUG_AUTH_MSG - PLUG_AUTH_MAC, ref, PLUG_AUTH_MAC);
	/* each input changes it */
	plug_auth_mac(KEY, 'C', na2, nc, &cl, other);
	ck_assert(!plug_mem_equal(ref, other, PLUG_AUTH_MAC)); /* another challenge: a replay */
	plug_auth_mac(KEY, 'A', na, nc, &cl, other);
	ck_assert(!plug_mem_equal(ref, other, PLUG_AUTH_MAC)); /* the other role */
	plug_auth_mac("0123456789abcdef0123456789abcdee", 'C', na, nc, &cl, other);
	ck_assert(!plug_mem_equal(ref, other, PLUG_AUTH_MAC)); /* another key */
	for (int f = 0; f < 3; f++) {
		c2 = cl;
		((uint32_t *)&c2)[f] ^= 0x100;
		plug_auth_mac(KEY, 'C', na, nc, &c2, other);
		ck_assert_msg(!plug_mem_equal(ref, other, PLUG_AUTH_MAC), "claim field %d", f);
	}
	/* the acceptor's proof checks out for this handshake only */
	plug_auth_mac(KEY, 'A', na, nc, &cl, other);
	ck_assert(plug_auth_acceptor_ok(KEY, &cl, na, nc, other));
	ck_assert(!plug_auth_acceptor_ok(KEY, &cl, na2, nc, other));
	ck_assert(!plug_auth_acceptor_ok(KEY, &cl, na, nc, ref)); /* reflected */
	c2 = cl;
	c2.node = 9;
	ck_assert(!plug_auth_acceptor_ok(KEY, &c2, na, nc, other));
	/* two answers to one challenge differ (fresh nonce_c) */
	ck_assert_int_eq(plug_auth_answer(KEY, &cl, na, nc, m), 0);
	ck_assert(!plug_mem_equal(m + PLUG_AUTH_MSG - PLUG_AUTH_MAC, ref, PLUG_AUTH_MAC));
	ck_assert(plug_mem_equal("abc", "abc", 3));
	ck_assert(!plug_mem_equal("abc", "abd", 3));
}
END_TEST

static Suite *auth_suite(void)
{
	Suite *s = suite_create("plugin_auth");
	TCase *tc = tcase_create("auth");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, t_sha256);
	tcase_add_test(tc, t_hmac_rfc4231);
	tcase_add_test(tc, t_macs_bind);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	return unit_main(argc, argv, &(struct unit_spec){ .suite = auth_suite, .fork = CK_FORK });
}
