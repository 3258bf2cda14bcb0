/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/alloc_req.c - see lib/alloc_req.h.
 *
 * Numbers are taken from any integer type (the Standard's are uint64_t
 * for counts, uint32_t for the time; programs pass what they have), never
 * from strings, negatives or values beyond 32 bits. Attributes other than
 * the ones below are ignored unless marked required (PMIX_INFO_REQD):
 * then the request is NOT_SUPPORTED, since we would not honour them.
 * PMIX_USERID and PMIX_GRPID are the server's (the caller's own ids).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/alloc_req.h"

/* A non-negative integer of any integer type, into *out; -1 otherwise. */
static int num_of(const pmix_value_t *v, uint64_t *out)
{
	int64_t s;

	switch (v->type) {
	case PMIX_UINT8: *out = v->data.uint8; return 0;
	case PMIX_UINT16: *out = v->data.uint16; return 0;
	case PMIX_UINT32: *out = v->data.uint32; return 0;
	case PMIX_UINT64: *out = v->data.uint64; return 0;
	case PMIX_UINT: *out = v->data.uint; return 0;
	case PMIX_SIZE: *out = v->data.size; return 0;
	case PMIX_INT8: s = v->data.int8; break;
	case PMIX_INT16: s = v->data.int16; break;
	case PMIX_INT32: s = v->data.int32; break;
	case PMIX_INT64: s = v->data.int64; break;
	case PMIX_INT: s = v->data.integer; break;
	default: return -1;
	}
	if (s < 0)
		return -1;
	*out = (uint64_t)s;
	return 0;
}

static pmix_status_t fail(char *err, size_t len, pmix_status_t st, const char *what,
			  const char *key)
{
	snprintf(err, len, "%s%s%s", key ? key : "", key ? ": " : "", what);
	return st;
}

/* A 32-bit number in [min, max] into *out. */
static pmix_status_t u32_of(const pmix_info_t *i, uint32_t min, uint32_t max, uint32_t *out,
			    char *err, size_t len)
{
	uint64_t v;

	if (num_of(&i->value, &v) < 0)
		return fail(err, len, PMIX_ERR_BAD_PARAM, "not a non-negative integer", i->key);
	if (v < min || v > max)
		return fail(err, len, PMIX_ERR_BAD_PARAM, "out of range", i->key);
	*out = (uint32_t)v;
	return PMIX_SUCCESS;
}

/* A string of at most PLUG_ALLOC_STR_MAX bytes; empty only when
 * may_be_empty. */
static pmix_status_t str_of(const pmix_info_t *i, const char **out, char *err, size_t len)
{
	const char *s = i->value.type == PMIX_STRING ? i->value.data.string : NULL;

	if (!s || !*s || strnlen(s, PLUG_ALLOC_STR_MAX + 1) > PLUG_ALLOC_STR_MAX)
		return fail(err, len, PMIX_ERR_BAD_PARAM, "not a non-empty string", i->key);
	*out = s;
	return PMIX_SUCCESS;
}

int plug_alloc_id_parse(const char *s, uint32_t *id)
{
	unsigned long long v = 0;

	if (!s || !*s || strlen(s) > 10)
		return -1;
	for (const char *c = s; *c; c++) {
		if (*c < '0' || *c > '9')
			return -1;
		v = v * 10 + (unsigned)(*c - '0');
	}
	if (v == 0 || v > UINT32_MAX - 2)
		return -1;
	*id = (uint32_t)v;
	return 0;
}

static pmix_status_t one(const pmix_info_t *i, plug_alloc_req_t *r, char *err, size_t len)
{
	uint32_t id;

	if (PMIx_Check_key(i->key, PMIX_ALLOC_NUM_NODES))
		return u32_of(i, 1, UINT32_MAX - 2, &r->nnodes, err, len);
	if (PMIx_Check_key(i->key, PMIX_ALLOC_NUM_CPUS))
		return u32_of(i, 1, UINT32_MAX - 2, &r->ncpus, err, len);
	if (PMIx_Check_key(i->key, PMIX_ALLOC_TIME))
		return u32_of(i, 1, UINT32_MAX - 2, &r->time_s, err, len);
	if (PMIx_Check_key(i->key, PMIX_TIMEOUT))
		return u32_of(i, 0, PLUG_ALLOC_TIMEOUT_MAX, &r->timeout_s, err, len);
	if (PMIx_Check_key(i->key, PMIX_ALLOC_NODE_LIST))
		return str_of(i, &r->nodelist, err, len);
	if (PMIx_Check_key(i->key, PMIX_ALLOC_QUEUE))
		return str_of(i, &r->queue, err, len);
	if (PMIx_Check_key(i->key, PMIX_ALLOC_REQ_ID))
		return str_of(i, &r->reqid, err, len);
	if (PMIx_Check_key(i->key, PMIX_ALLOC_ID)) {
		if (str_of(i, &r->allocid, err, len) != PMIX_SUCCESS ||
		    plug_alloc_id_parse(r->allocid, &id) < 0)
			return fail(err, len, PMIX_ERR_BAD_PARAM, "not a Slurm job id", i->key);
		return PMIX_SUCCESS;
	}
	if (PMIx_Check_key(i->key, PMIX_USERID) || PMIx_Check_key(i->key, PMIX_GRPID))
		return PMIX_SUCCESS;
	if (PMIX_INFO_IS_REQUIRED(i))
		return fail(err, len, PMIX_ERR_NOT_SUPPORTED, "required, not honoured", i->key);
	return PMIX_SUCCESS;
}

static pmix_status_t directive_ok(pmix_alloc_directive_t d, char *err, size_t len)
{
	switch (d) {
	case PMIX_ALLOC_NEW:
	case PMIX_ALLOC_RELEASE: return PMIX_SUCCESS;
	case PMIX_ALLOC_EXTEND:
		return fail(err, len, PMIX_ERR_NO_PERMISSIONS,
			    "Slurm lets no user grow a running job or raise its time limit", NULL);
	case PMIX_ALLOC_REAQUIRE:
	case PMIX_ALLOC_EXTERNAL:
		return fail(err, len, PMIX_ERR_NOT_SUPPORTED, "directive not supported", NULL);
	default: return fail(err, len, PMIX_ERR_BAD_PARAM, "unknown directive", NULL);
	}
}

pmix_status_t plug_alloc_parse(pmix_alloc_directive_t directive, const pmix_info_t *info,
			       size_t ninfo, plug_alloc_req_t *r, char *err, size_t errlen)
{
	pmix_status_t st;

	memset(r, 0, sizeof(*r));
	r->directive = directive;
	snprintf(err, errlen, "-");
	if ((st = directive_ok(directive, err, errlen)) != PMIX_SUCCESS)
		return st;
	if (!info && ninfo)
		return fail(err, errlen, PMIX_ERR_BAD_PARAM, "no infos", NULL);
	for (size_t i = 0; i < ninfo; i++)
		if ((st = one(&info[i], r, err, errlen)) != PMIX_SUCCESS)
			return st;
	if (directive == PMIX_ALLOC_RELEASE && !r->nnodes && !r->nodelist && !r->time_s &&
	    !r->allocid)
		return fail(err, errlen, PMIX_ERR_BAD_PARAM,
			    "nothing to release (no nodes, time or allocation id)", NULL);
	if (r->nnodes && r->nodelist && directive == PMIX_ALLOC_RELEASE)
		return fail(err, errlen, PMIX_ERR_BAD_PARAM,
			    "both a node count and a node list to release", NULL);
	return PMIX_SUCCESS;
}
