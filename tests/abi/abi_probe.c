/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * abi_probe.c - prints the ABI facts of whichever PMIx headers it is
 * compiled against, one "NAME VALUE" line each: sizes and signedness of
 * the public types, offset and size of every struct member (including the
 * members of pmix_value_t's union and of pmix_server_module_t), the value
 * of every numeric constant and the text of every attribute key.
 *
 * The list of names is abi_names.h, generated from our headers; the same
 * source is built against OpenPMIx's headers by abi_check.sh and the two
 * outputs must be identical.
 */
#include <stddef.h>
#include <stdio.h>

#include <pmix.h>
#include <pmix_server.h>
#include <pmix_tool.h>

#define TYPE(t) printf("sizeof(%s) %zu\n", #t, sizeof(t));
#define SIGN(t) printf("signed(%s) %d\n", #t, (int)((t)-1 < (t)0));
#define OFF(s, m) \
	printf("offsetof(%s.%s) %zu size %zu\n", #s, #m, offsetof(s, m), sizeof(((s *)NULL)->m));
#define NUM(n) printf("%s %lld\n", #n, (long long)(n));
#define STR(n) printf("%s %s\n", #n, n);

int main(void)
{
#include "abi_names.h"
	return 0;
}
