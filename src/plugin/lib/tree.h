/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/tree.h - the shape of the collective tree over n participants
 * (indices 0..n-1, index 0 the root) with at most `width` children per
 * node: a depth-first, contiguous tree in the manner of Slurm's reverse
 * tree, so that every subtree is a contiguous range of indices.
 *
 * Shape: a subtree rooted at index r covering the range [r, end) splits
 * the m = end - r - 1 indices after r into at most `width` consecutive
 * blocks of ceil(m / width) indices (the last one may be shorter); each
 * block is a child subtree rooted at its first index. Depth is about
 * log_width(n); with width 1 the tree is a chain.
 *
 * Pure (no Slurm, no PMIx), unit-tested in tests/unit/test_plugin_tree.c.
 */
#ifndef PLUG_TREE_H
#define PLUG_TREE_H

#include <stdint.h>

#define PLUG_TREE_NONE UINT32_MAX

/* Parent (PLUG_TREE_NONE for the root) and children of index `me` in the
 * tree of n nodes. children (room for `width` entries, may be NULL) gets
 * the children's indices in increasing order, *nchildren their count.
 * 0, or -1 with EINVAL (n == 0, width == 0, me >= n). */
int plug_tree_node(uint32_t me, uint32_t n, uint32_t width, uint32_t *parent, uint32_t *children,
		   uint32_t *nchildren);

#endif
