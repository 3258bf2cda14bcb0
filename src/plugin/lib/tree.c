/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/tree.c - see lib/tree.h. Walks down from the root, narrowing the
 * range that contains `me`, so it costs O(depth) and needs no
 * table; every stepd computes its own neighbours independently and all
 * agree because the function is deterministic.
 */
#include <errno.h>
#include "lib/tree.h"

/* Block size for the children of a subtree with `rest` nodes below its
 * root: ceil(rest / w), at least 1. */
static uint64_t block_size(uint64_t rest, uint64_t w)
{
	return rest ? (rest + w - 1) / w : 1;
}

int plug_tree_node(uint32_t me, uint32_t n, uint32_t width, uint32_t *parent, uint32_t *children,
		   uint32_t *nchildren)
{
	uint64_t lo = 0, hi = n, s;
	uint32_t up = PLUG_TREE_NONE, k = 0;

	if (n == 0 || width == 0 || me >= n) {
		errno = EINVAL;
		return -1;
	}
	while (lo != me) { /* me is in (lo, hi) */
		s = block_size(hi - lo - 1, width);
		up = (uint32_t)lo;
		lo = lo + 1 + (me - lo - 1) / s * s;
		hi = lo + s < hi ? lo + s : hi;
	}
	s = block_size(hi - lo - 1, width);
	for (uint64_t c = lo + 1; c < hi && k < width; c += s, k++)
		if (children)
			children[k] = (uint32_t)c;
	if (parent)
		*parent = up;
	if (nchildren)
		*nchildren = k;
	return 0;
}
