/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * proc.c - process identifiers, keys and namespaces: PMIx_Proc_*,
 * PMIx_Load_key/nspace/procid, PMIx_Xfer_procid, PMIx_Check_*,
 * PMIx_Nspace_invalid, PMIx_Procid_invalid and the multicluster namespace
 * helpers.
 *
 * Matching rules are those of the PMIX_CHECK_* macros that every OpenPMIx
 * release shipped: an empty (invalid) namespace matches any namespace and
 * PMIX_RANK_WILDCARD matches any rank, so a "wildcard" proc matches its job.
 * Keys and namespaces are always stored NUL-terminated and truncated to
 * PMIX_MAX_KEYLEN / PMIX_MAX_NSLEN characters.
 *
 * Thread safety: none needed.
 */
#include <stdlib.h>
#include <string.h>
#include <pmix.h>

void PMIx_Proc_construct(pmix_proc_t *p)
{
	if (p)
		memset(p, 0, sizeof(*p));
}

void PMIx_Proc_destruct(pmix_proc_t *p)
{
	(void)p; /* a proc owns no memory */
}

pmix_proc_t *PMIx_Proc_create(size_t n)
{
	return n ? calloc(n, sizeof(pmix_proc_t)) : NULL;
}

void PMIx_Proc_free(pmix_proc_t *p, size_t n)
{
	(void)n;
	free(p);
}

void PMIx_Proc_load(pmix_proc_t *p, const char *nspace, pmix_rank_t rank)
{
	PMIx_Load_procid(p, nspace, rank);
}

void PMIx_Load_key(pmix_key_t key, const char *src)
{
	if (!key)
		return;
	memset(key, 0, PMIX_MAX_KEYLEN + 1);
	if (src)
		strncpy(key, src, PMIX_MAX_KEYLEN);
}

void PMIx_Load_nspace(pmix_nspace_t nspace, const char *str)
{
	if (!nspace)
		return;
	memset(nspace, 0, PMIX_MAX_NSLEN + 1);
	if (str)
		strncpy(nspace, str, PMIX_MAX_NSLEN);
}

void PMIx_Load_procid(pmix_proc_t *p, const char *ns, pmix_rank_t rk)
{
	if (!p)
		return;
	PMIx_Load_nspace(p->nspace, ns);
	p->rank = rk;
}

void PMIx_Xfer_procid(pmix_proc_t *dst, const pmix_proc_t *src)
{
	if (!dst || !src || dst == src)
		return;
	memcpy(dst, src, sizeof(*dst));
	dst->nspace[PMIX_MAX_NSLEN] = '\0';
}

bool PMIx_Check_key(const char *key, const char *str)
{
	if (!key || !str)
		return key == str;
	return 0 == strncmp(key, str, PMIX_MAX_KEYLEN);
}

bool PMIx_Check_reserved_key(const char *key)
{
	return key && 0 == strncmp(key, "pmix", 4);
}

bool PMIx_Nspace_invalid(const char *nspace)
{
	return !nspace || nspace[0] == '\0';
}

bool PMIx_Check_nspace(const char *key1, const char *key2)
{
	if (PMIx_Nspace_invalid(key1) || PMIx_Nspace_invalid(key2))
		return true;
	return 0 == strncmp(key1, key2, PMIX_MAX_NSLEN);
}

bool PMIx_Check_rank(pmix_rank_t a, pmix_rank_t b)
{
	return a == b || a == PMIX_RANK_WILDCARD || b == PMIX_RANK_WILDCARD;
}

bool PMIx_Check_procid(const pmix_proc_t *a, const pmix_proc_t *b)
{
	if (!a || !b)
		return false;
	return PMIx_Check_nspace(a->nspace, b->nspace) && PMIx_Check_rank(a->rank, b->rank);
}

bool PMIx_Procid_invalid(const pmix_proc_t *p)
{
	return !p || PMIx_Nspace_invalid(p->nspace) || p->rank == PMIX_RANK_INVALID;
}

/* target = "<cluster>:<nspace>", left unchanged when it would not fit. */
void PMIx_Multicluster_nspace_construct(pmix_nspace_t target, pmix_nspace_t cluster,
					pmix_nspace_t nspace)
{
	pmix_nspace_t out;
	size_t lc, ln;

	if (!target || !cluster || !nspace)
		return;
	lc = strnlen(cluster, PMIX_MAX_NSLEN);
	ln = strnlen(nspace, PMIX_MAX_NSLEN);
	if (lc + 1 + ln > PMIX_MAX_NSLEN)
		return;
	memset(out, 0, sizeof(out));
	memcpy(out, cluster, lc);
	out[lc] = ':';
	memcpy(out + lc + 1, nspace, ln);
	memcpy(target, out, sizeof(out));
}

/* Splits "<cluster>:<nspace>"; without a ':' the whole target is the nspace
 * and the cluster is empty. */
void PMIx_Multicluster_nspace_parse(pmix_nspace_t target, pmix_nspace_t cluster,
				    pmix_nspace_t nspace)
{
	pmix_nspace_t in;
	size_t len;
	const char *colon;

	if (!target || !cluster || !nspace)
		return;
	len = strnlen(target, PMIX_MAX_NSLEN);
	memcpy(in, target, len);
	in[len] = '\0';
	target = in; /* cluster or nspace may be the target itself */
	colon = memchr(target, ':', len);
	memset(cluster, 0, PMIX_MAX_NSLEN + 1);
	memset(nspace, 0, PMIX_MAX_NSLEN + 1);
	if (!colon) {
		memcpy(nspace, target, len);
		return;
	}
	memcpy(cluster, target, (size_t)(colon - target));
	memcpy(nspace, colon + 1, len - (size_t)(colon - target) - 1);
}
