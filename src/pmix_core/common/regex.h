/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * regex.h - parsers for the node and process maps that PMIx_generate_regex
 * and PMIx_generate_ppn produce (format in regex.c), for our server.
 *
 * Both parsers also take plain text: a comma-separated node list
 * ("n1,n2,n3", optionally with Slurm-style brackets "n[1-3]") and a
 * semicolon-separated list of per-node rank lists ("0,1;2-3").
 *
 * Thread safety: pure functions; any thread.
 */
#ifndef PXC_REGEX_H
#define PXC_REGEX_H

#include <pmix_common.h>

#define PXC_REGEX_PREFIX "slurmix:"
/* Bounds on what a map may expand to: more is an error (EINVAL). */
#define PXC_REGEX_MAX_NODES (1u << 20)
#define PXC_REGEX_MAX_RANKS (1u << 22)

/* Expands a node map into a malloc'ed NULL-terminated argv of node names,
 * in order (duplicates kept). Returns 0, or -1 with errno EINVAL
 * (malformed, empty, or expanding beyond the bounds) or ENOMEM. */
int pxc_regex_parse_nodes(const char *regex, char ***names);

/* Expands a process map into an argv with one string per node, each the
 * comma-separated ranks of that node ("0,1,2"; "" for a node without
 * ranks). Returns 0, or -1 with errno EINVAL or ENOMEM. */
int pxc_regex_parse_ppn(const char *ppn, char ***per_node);

/* The text of a map held in a value: PMIX_STRING, or PMIX_REGEX whose byte
 * object has size strlen+1 (OpenPMIx) or strlen (no NUL). Returns a
 * malloc'ed NUL-terminated copy in *out; -1/EINVAL for other types or an
 * empty value, ENOMEM. */
int pxc_regex_value_text(const pmix_value_t *val, char **out);

/* Frees an argv returned by the parsers. NULL-tolerant. */
void pxc_regex_argv_free(char **argv);

#endif
