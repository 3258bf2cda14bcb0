/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/key.c - comparing job keys (lib/key.h) without leaking, by
 * the time it takes, how much of a guess was right.
 */
#include <string.h>

#include "lib/key.h"

int plug_key_ok(const char *a, const char *b)
{
	unsigned diff = 0;

	if (!a || !b || strlen(a) != PLUG_KEY_LEN || strlen(b) != PLUG_KEY_LEN)
		return 0;
	for (size_t i = 0; i < PLUG_KEY_LEN; i++)
		diff |= (unsigned)(a[i] ^ b[i]);
	return diff == 0;
}
