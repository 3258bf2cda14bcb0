/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/pubinfo.c - what both halves of publish/lookup read from a
 * request's info (lib/pubinfo.h).
 */
#include <pmix.h>

#include "pxc_host.h"
#include "lib/pubinfo.h"

int plug_pub_info_int(const pmix_info_t *info, size_t n, const char *key, int dflt)
{
	const pmix_info_t *i = pxc_info_find(info, n, key);

	if (!i)
		return dflt;
	switch (i->value.type) {
	case PMIX_INT: return i->value.data.integer;
	case PMIX_INT32: return i->value.data.int32;
	case PMIX_UINT32: return (int)i->value.data.uint32;
	case PMIX_BOOL: return i->value.data.flag ? 1 : 0;
	default: return dflt;
	}
}

pmix_data_range_t plug_pub_range(const pmix_info_t *info, size_t n)
{
	const pmix_info_t *i = pxc_info_find(info, n, PMIX_RANGE);

	return i && i->value.type == PMIX_DATA_RANGE ? i->value.data.range : PMIX_RANGE_SESSION;
}

int plug_pub_is_directive(const char *key)
{
	static const char *const dirs[] = {
		PMIX_RANGE, PMIX_PERSISTENCE,        PMIX_TIMEOUT, PMIX_WAIT, PMIX_USERID,
		PMIX_GRPID, PMIX_ACCESS_PERMISSIONS, NULL
	};

	for (const char *const *k = dirs; *k; k++)
		if (PMIx_Check_key(key, *k))
			return 1;
	return 0;
}

int plug_pub_ns_only(pmix_data_range_t r)
{
	return r == PMIX_RANGE_NAMESPACE || r == PMIX_RANGE_PROC_LOCAL;
}
