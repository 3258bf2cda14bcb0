/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * info.c - pmix_info_t helpers: load, xfer, construct/create/destruct/free,
 * directive flags and PMIx_Info_true/get_size.
 *
 * Ownership rule: an info owns its value unless PMIX_INFO_PERSISTENT is set,
 * in which case destruct leaves the value alone and xfer copies it shallowly
 * (the copy stays persistent, so it will not free what it does not own).
 * PMIx_Info_create marks the last element PMIX_INFO_ARRAY_END, as the
 * PMIX_INFO_CREATE macro of every OpenPMIx release does. PMIx_Info_load
 * zeroes the directives and copies the data (see value.c for the NULL-bool
 * convention).
 *
 * Thread safety: none needed.
 */
#include <stdlib.h>
#include <string.h>
#include <pmix.h>

#include "pxc.h"
#include "info.h"
#include "value.h"
#include "print.h"
#include "pack.h"

void PMIx_Info_construct(pmix_info_t *p)
{
	if (p)
		memset(p, 0, sizeof(*p));
}

void PMIx_Info_destruct(pmix_info_t *p)
{
	if (!p)
		return;
	if (!(p->flags & PMIX_INFO_PERSISTENT))
		PMIx_Value_destruct(&p->value);
	memset(p, 0, sizeof(*p));
}

pmix_info_t *PMIx_Info_create(size_t n)
{
	pmix_info_t *p;

	if (!n)
		return NULL;
	p = calloc(n, sizeof(*p));
	if (p)
		p[n - 1].flags = PMIX_INFO_ARRAY_END;
	return p;
}

void PMIx_Info_free(pmix_info_t *p, size_t n)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < n; i++)
		PMIx_Info_destruct(&p[i]);
	free(p);
}

pmix_status_t PMIx_Info_load(pmix_info_t *info, const char *key, const void *data,
			     pmix_data_type_t type)
{
	if (!info)
		return PMIX_ERR_BAD_PARAM;
	memset(info->key, 0, sizeof(info->key));
	if (key)
		strncpy(info->key, key, PMIX_MAX_KEYLEN);
	info->flags = 0;
	return PMIx_Value_load(&info->value, data, type);
}

pmix_status_t PMIx_Info_xfer(pmix_info_t *dest, const pmix_info_t *src)
{
	if (!dest || !src)
		return PMIX_ERR_BAD_PARAM;
	if (dest == src)
		return PMIX_SUCCESS;
	memcpy(dest->key, src->key, sizeof(dest->key));
	dest->key[PMIX_MAX_KEYLEN] = '\0';
	dest->flags = src->flags;
	if (src->flags & PMIX_INFO_PERSISTENT) {
		dest->value = src->value;
		return PMIX_SUCCESS;
	}
	return PMIx_Value_xfer(&dest->value, &src->value);
}

pmix_boolean_t PMIx_Info_true(const pmix_info_t *p)
{
	return p ? pxc_value_true(&p->value) : PMIX_NON_BOOL;
}

pmix_status_t PMIx_Info_get_size(const pmix_info_t *val, size_t *size)
{
	pmix_status_t rc;

	if (!val || !size)
		return PMIX_ERR_BAD_PARAM;
	rc = PMIx_Value_get_size(&val->value, size);
	if (rc != PMIX_SUCCESS)
		return rc;
	*size += sizeof(pmix_info_t) - sizeof(pmix_value_t) + strnlen(val->key, PMIX_MAX_KEYLEN);
	return PMIX_SUCCESS;
}

/* ---- directive flags ---- */

static void set_flag(pmix_info_t *p, pmix_info_directives_t f)
{
	if (p)
		p->flags |= f;
}

static bool has_flag(const pmix_info_t *p, pmix_info_directives_t f)
{
	return p && (p->flags & f);
}

void PMIx_Info_required(pmix_info_t *p)
{
	set_flag(p, PMIX_INFO_REQD);
}
bool PMIx_Info_is_required(const pmix_info_t *p)
{
	return has_flag(p, PMIX_INFO_REQD);
}
bool PMIx_Info_is_optional(const pmix_info_t *p)
{
	return p && !has_flag(p, PMIX_INFO_REQD);
}
void PMIx_Info_processed(pmix_info_t *p)
{
	set_flag(p, PMIX_INFO_REQD_PROCESSED);
}
bool PMIx_Info_was_processed(const pmix_info_t *p)
{
	return has_flag(p, PMIX_INFO_REQD_PROCESSED);
}
void PMIx_Info_set_end(pmix_info_t *p)
{
	set_flag(p, PMIX_INFO_ARRAY_END);
}
bool PMIx_Info_is_end(const pmix_info_t *p)
{
	return has_flag(p, PMIX_INFO_ARRAY_END);
}
void PMIx_Info_qualifier(pmix_info_t *p)
{
	set_flag(p, PMIX_INFO_QUALIFIER);
}
bool PMIx_Info_is_qualifier(const pmix_info_t *p)
{
	return has_flag(p, PMIX_INFO_QUALIFIER);
}
void PMIx_Info_persistent(pmix_info_t *p)
{
	set_flag(p, PMIX_INFO_PERSISTENT);
}
bool PMIx_Info_is_persistent(const pmix_info_t *p)
{
	return has_flag(p, PMIX_INFO_PERSISTENT);
}

void PMIx_Info_optional(pmix_info_t *p)
{
	if (p)
		p->flags &= ~(pmix_info_directives_t)PMIX_INFO_REQD;
}

/* Same words and order as OpenPMIx: a qualifier is only "QUALIFIER";
 * otherwise REQUIRED/OPTIONAL, then PROCESSED and END when set. */
char *PMIx_Info_directives_string(pmix_info_directives_t d)
{
	char *out = NULL;
	int rc;

	if (d & PMIX_INFO_QUALIFIER)
		return strdup("QUALIFIER");
	rc = pxc_sappend(&out, "%s", (d & PMIX_INFO_REQD) ? "REQUIRED" : "OPTIONAL");
	if (!rc && (d & PMIX_INFO_REQD_PROCESSED))
		rc = pxc_sappend(&out, ":PROCESSED");
	if (!rc && (d & PMIX_INFO_ARRAY_END))
		rc = pxc_sappend(&out, ":END");
	if (rc) {
		free(out);
		return NULL;
	}
	return out;
}

const pmix_info_t *pxc_info_find(const pmix_info_t *info, size_t ninfo, const char *key)
{
	for (size_t i = 0; info && i < ninfo; i++)
		if (strncmp(info[i].key, key, PMIX_MAX_KEYLEN) == 0)
			return &info[i];
	return NULL;
}

bool pxc_info_flag(const pmix_info_t *info, size_t ninfo, const char *key)
{
	const pmix_info_t *i = pxc_info_find(info, ninfo, key);

	if (!i)
		return false;
	switch (i->value.type) {
	case PMIX_UNDEF: return true;
	case PMIX_BOOL: return i->value.data.flag;
	case PMIX_INT: return i->value.data.integer != 0;
	default: return PMIx_Value_true(&i->value) == PMIX_BOOL_TRUE;
	}
}

bool pxc_info_take(pmix_info_t *info, size_t *ninfo, const char *key, pmix_info_t *out)
{
	for (size_t i = 0; info && i < *ninfo; i++) {
		if (!PMIx_Check_key(info[i].key, key))
			continue;
		*out = info[i];
		memmove(&info[i], &info[i + 1], (*ninfo - i - 1) * sizeof(*info));
		memset(&info[*ninfo - 1], 0, sizeof(*info));
		(*ninfo)--;
		return true;
	}
	return false;
}

pmix_info_t *pxc_infolist_add(pxc_infolist_t *l, const char *key)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 8;
		pmix_info_t *g = realloc(l->info, cap * sizeof(*g));

		if (!g)
			return NULL;
		l->info = g;
		l->cap = cap;
	}
	PMIx_Info_construct(&l->info[l->n]);
	if (key)
		PMIx_Load_key(l->info[l->n].key, key);
	return &l->info[l->n++];
}

void pxc_infolist_free(pxc_infolist_t *l)
{
	for (size_t i = 0; i < l->n; i++)
		PMIx_Info_destruct(&l->info[i]);
	free(l->info);
	l->info = NULL;
	l->n = l->cap = 0;
}

pmix_status_t pxc_info_dup(const pmix_info_t *in, size_t n, pmix_info_t **out)
{
	*out = NULL;
	if (!in || n == 0)
		return PMIX_SUCCESS;
	*out = calloc(n, sizeof(**out));
	if (!*out)
		return PMIX_ERR_NOMEM;
	for (size_t i = 0; i < n; i++)
		if (PMIx_Info_xfer(&(*out)[i], &in[i]) != PMIX_SUCCESS) {
			pxc_array_free(*out, n, PMIX_INFO);
			*out = NULL;
			return PMIX_ERR_NOMEM;
		}
	return PMIX_SUCCESS;
}
