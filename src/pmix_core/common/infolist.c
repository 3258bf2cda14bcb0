/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * infolist.c - PMIx_Info_list_*: build an array of pmix_info_t one entry at
 * a time behind an opaque handle.
 *
 * The handle is a doubly linked list of nodes, each holding one pmix_info_t
 * it owns (entries added with _insert are shallow copies marked
 * PMIX_INFO_PERSISTENT, so the list never frees what the caller still owns).
 * _convert deep-copies the entries into a new PMIX_INFO data array and
 * leaves the list intact; _release frees the list and its entries.
 * _get_info iterates: prev == NULL gives the first entry, *next is the
 * cursor for the following call, NULL after the last entry.
 *
 * The "unique" variants look for an entry with the same key: with
 * overwrite the entry's value is replaced, without it the list is left
 * unchanged; either way PMIX_SUCCESS.
 *
 * Thread safety: a list belongs to one thread at a time.
 */
#include <stdlib.h>
#include <string.h>
#include <pmix.h>

struct node {
	struct node *prev, *next;
	pmix_info_t info;
};

struct infolist {
	struct node *head, *tail;
	size_t count;
};

void *PMIx_Info_list_start(void)
{
	return calloc(1, sizeof(struct infolist));
}

static void link_node(struct infolist *l, struct node *n, bool front)
{
	if (front) {
		n->next = l->head;
		if (l->head)
			l->head->prev = n;
		l->head = n;
		if (!l->tail)
			l->tail = n;
	} else {
		n->prev = l->tail;
		if (l->tail)
			l->tail->next = n;
		l->tail = n;
		if (!l->head)
			l->head = n;
	}
	l->count++;
}

static struct node *find_key(struct infolist *l, const char *key)
{
	struct node *n;

	for (n = l->head; n; n = n->next)
		if (PMIx_Check_key(n->info.key, key))
			return n;
	return NULL;
}

/* Adds key=value (copied). With unique, an existing entry of the same key
 * is replaced (overwrite) or kept. */
static pmix_status_t add(void *ptr, const char *key, const void *value, pmix_data_type_t type,
			 bool front, bool unique, bool overwrite)
{
	struct infolist *l = ptr;
	struct node *n, *old;
	pmix_status_t rc;

	if (!l || !key)
		return PMIX_ERR_BAD_PARAM;
	old = unique ? find_key(l, key) : NULL;
	if (old && !overwrite)
		return PMIX_SUCCESS;
	n = calloc(1, sizeof(*n));
	if (!n)
		return PMIX_ERR_NOMEM;
	rc = PMIx_Info_load(&n->info, key, value, type);
	if (rc != PMIX_SUCCESS) {
		free(n);
		return rc;
	}
	if (old) {
		PMIx_Info_destruct(&old->info);
		old->info = n->info;
		free(n);
		return PMIX_SUCCESS;
	}
	link_node(l, n, front);
	return PMIX_SUCCESS;
}

pmix_status_t PMIx_Info_list_add(void *ptr, const char *key, const void *value,
				 pmix_data_type_t type)
{
	return add(ptr, key, value, type, false, false, false);
}

pmix_status_t PMIx_Info_list_add_unique(void *ptr, const char *key, const void *value,
					pmix_data_type_t type, bool overwrite)
{
	return add(ptr, key, value, type, false, true, overwrite);
}

pmix_status_t PMIx_Info_list_prepend(void *ptr, const char *key, const void *value,
				     pmix_data_type_t type)
{
	return add(ptr, key, value, type, true, false, false);
}

static pmix_status_t xfer(void *ptr, const pmix_info_t *info, bool unique, bool overwrite);

/* Adds a deep copy of value under key, through a borrowing info. */
static pmix_status_t add_value(void *ptr, const char *key, const pmix_value_t *value, bool unique,
			       bool overwrite)
{
	pmix_info_t tmp;

	if (!key || !value)
		return PMIX_ERR_BAD_PARAM;
	memset(&tmp, 0, sizeof(tmp));
	PMIx_Load_key(tmp.key, key);
	tmp.value = *value;
	return xfer(ptr, &tmp, unique, overwrite);
}

pmix_status_t PMIx_Info_list_add_value(void *ptr, const char *key, const pmix_value_t *value)
{
	return add_value(ptr, key, value, false, false);
}

pmix_status_t PMIx_Info_list_add_value_unique(void *ptr, const char *key, const pmix_value_t *value,
					      bool overwrite)
{
	return add_value(ptr, key, value, true, overwrite);
}

/* Shallow copy of info, marked persistent: the caller keeps ownership of
 * whatever the value points to and must keep it alive while the list is. */
pmix_status_t PMIx_Info_list_insert(void *ptr, pmix_info_t *info)
{
	struct infolist *l = ptr;
	struct node *n;

	if (!l || !info)
		return PMIX_ERR_BAD_PARAM;
	n = calloc(1, sizeof(*n));
	if (!n)
		return PMIX_ERR_NOMEM;
	n->info = *info;
	n->info.flags |= PMIX_INFO_PERSISTENT;
	link_node(l, n, false);
	return PMIX_SUCCESS;
}

/* Deep copy of info (keeping its directives). */
static pmix_status_t xfer(void *ptr, const pmix_info_t *info, bool unique, bool overwrite)
{
	struct infolist *l = ptr;
	struct node *n, *old;
	pmix_status_t rc;

	if (!l || !info)
		return PMIX_ERR_BAD_PARAM;
	old = unique ? find_key(l, info->key) : NULL;
	if (old && !overwrite)
		return PMIX_SUCCESS;
	n = calloc(1, sizeof(*n));
	if (!n)
		return PMIX_ERR_NOMEM;
	rc = PMIx_Info_xfer(&n->info, info);
	if (rc != PMIX_SUCCESS) {
		free(n);
		return rc;
	}
	if (old) {
		PMIx_Info_destruct(&old->info);
		old->info = n->info;
		free(n);
	} else {
		link_node(l, n, false);
	}
	return PMIX_SUCCESS;
}

pmix_status_t PMIx_Info_list_xfer(void *ptr, const pmix_info_t *info)
{
	return xfer(ptr, info, false, false);
}

pmix_status_t PMIx_Info_list_xfer_unique(void *ptr, const pmix_info_t *info, bool overwrite)
{
	return xfer(ptr, info, true, overwrite);
}

/* par becomes a new PMIX_INFO array holding copies of the entries; the
 * array-end flag is set on the last one. PMIX_ERR_EMPTY for an empty list. */
pmix_status_t PMIx_Info_list_convert(void *ptr, pmix_data_array_t *par)
{
	struct infolist *l = ptr;
	struct node *n;
	pmix_info_t *array;
	pmix_status_t rc;
	size_t i = 0;

	if (!l || !par)
		return PMIX_ERR_BAD_PARAM;
	PMIx_Data_array_init(par, PMIX_INFO);
	if (!l->count)
		return PMIX_ERR_EMPTY;
	array = PMIx_Info_create(l->count);
	if (!array)
		return PMIX_ERR_NOMEM;
	for (n = l->head; n; n = n->next, i++) {
		rc = PMIx_Info_xfer(&array[i], &n->info);
		if (rc != PMIX_SUCCESS) {
			PMIx_Info_free(array, i);
			return rc;
		}
	}
	array[l->count - 1].flags |= PMIX_INFO_ARRAY_END;
	par->array = array;
	par->size = l->count;
	return PMIX_SUCCESS;
}

void PMIx_Info_list_release(void *ptr)
{
	struct infolist *l = ptr;
	struct node *n, *next;

	if (!l)
		return;
	for (n = l->head; n; n = next) {
		next = n->next;
		PMIx_Info_destruct(&n->info);
		free(n);
	}
	free(l);
}

pmix_info_t *PMIx_Info_list_get_info(void *ptr, void *prev, void **next)
{
	struct infolist *l = ptr;
	struct node *cur = prev ? prev : (l ? l->head : NULL);

	if (next)
		*next = cur ? cur->next : NULL;
	return cur ? &cur->info : NULL;
}
