/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/endpoints.c - packing and checking the endpoint table
 * (lib/endpoints.h). Every reader goes through plug_endpoints_unpack, so
 * that the checks cannot drift apart.
 */
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "pxc_host.h"
#include "lib/endpoints.h"

int plug_endpoints_pack(pmix_data_buffer_t *b, uint32_t n, char *const *addr, const uint32_t *port)
{
	int rc = pxc_pack_u32(b, n) != PMIX_SUCCESS;

	for (uint32_t i = 0; !rc && i < n; i++)
		rc = pxc_pack_str(b, addr[i]) || pxc_pack_u32(b, port[i]);
	return rc ? -1 : 0;
}

int plug_endpoints_unpack(pmix_data_buffer_t *in, uint32_t nnodes, plug_endpoints_entry_f fn,
			  void *arg)
{
	uint32_t n = 0, port;
	char *addr;
	int rc = 0;

	if (pxc_unpack_u32(in, &n) != PMIX_SUCCESS || n != nnodes)
		return -1;
	for (uint32_t i = 0; rc == 0 && i < n; i++) {
		addr = NULL;
		rc = pxc_unpack_str(in, &addr) != PMIX_SUCCESS || !addr ||
				     strlen(addr) >= INET6_ADDRSTRLEN ||
				     pxc_unpack_u32(in, &port) != PMIX_SUCCESS || !port ||
				     port > 65535 || (fn && fn(arg, i, addr, (uint16_t)port) < 0) ?
			     -1 :
			     0;
		free(addr);
	}
	return rc;
}
