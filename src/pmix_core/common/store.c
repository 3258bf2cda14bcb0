/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * store.c - the key-value store of store.h.
 *
 * Three levels of objects, each found through its own chained hash table:
 *   namespace  by name                    (list of its groups)
 *   group      by (namespace, level, id)  (list of its records, in
 *                                          insertion order)
 *   record     by (group, key)            (the value, a deep copy)
 * A lookup hashes the namespace name and the key once each and walks three
 * short chains, so PMIx_Get of a job-level key costs a few tens of
 * nanoseconds whatever the store holds. Groups make "every record of this
 * process" (fence and direct-modex blobs, removal of a namespace) a walk
 * of just those records. Empty groups and namespaces are freed at once.
 *
 * Tables double when their load passes 1; a failed resize only lengthens
 * chains. Blobs (store.h) are a sequence of pack.h items; unpack decodes
 * the whole blob into a temporary array before merging anything, so a
 * malformed blob merges nothing (an allocation failure during the merge
 * itself may leave part of a well-formed blob merged).
 *
 * Thread safety: none; the owner serialises access (store.h).
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pmix.h>

#include "pack.h"
#include "store.h"

#define NKINDS 8
#define NLEVELS 5
#define MIN_BUCKETS 64

/* ------------------------------------------------------------------ */
/* a small intrusive hash table                                        */

struct hnode {
	struct hnode *next;
	uint64_t hash;
};

struct htab {
	struct hnode **b;
	size_t nb, n;
};

/* clang-format: read as a cast of a negation */
/* clang-format off */
#define CONTAINER(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))
/* clang-format on */

static int ht_init(struct htab *t)
{
	t->b = calloc(MIN_BUCKETS, sizeof(*t->b));
	t->nb = MIN_BUCKETS;
	t->n = 0;
	return t->b ? 0 : -1;
}

static void ht_grow(struct htab *t)
{
	size_t nb = t->nb * 2, i;
	struct hnode **b = calloc(nb, sizeof(*b)), *n, *next;

	if (!b)
		return; /* keep the longer chains */
	for (i = 0; i < t->nb; i++)
		for (n = t->b[i]; n; n = next) {
			next = n->next;
			n->next = b[n->hash & (nb - 1)];
			b[n->hash & (nb - 1)] = n;
		}
	free(t->b);
	t->b = b;
	t->nb = nb;
}

static void ht_insert(struct htab *t, struct hnode *n)
{
	struct hnode **head;

	if (t->n >= t->nb)
		ht_grow(t);
	head = &t->b[n->hash & (t->nb - 1)];
	n->next = *head;
	*head = n;
	t->n++;
}

static void ht_remove(struct htab *t, struct hnode *n)
{
	struct hnode **pp = &t->b[n->hash & (t->nb - 1)];

	while (*pp && *pp != n)
		pp = &(*pp)->next;
	if (*pp) {
		*pp = n->next;
		t->n--;
	}
}

static struct hnode *ht_first(const struct htab *t, uint64_t hash)
{
	return t->b[hash & (t->nb - 1)];
}

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/* FNV-1a; *len receives the string's length. */
static uint64_t str_hash(const char *s, size_t *len)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	const char *p = s;

	for (; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
	*len = (size_t)(p - s);
	return h;
}

/* ------------------------------------------------------------------ */
/* objects                                                             */

struct grp;

struct rec {
	struct hnode h;
	struct rec *next, *prev; /* in the group, insertion order */
	struct grp *g;
	pmix_value_t val;
	size_t bytes;
	uint8_t kind;
	char key[];
};

struct ns;

struct grp {
	struct hnode h;
	struct grp *next, *prev; /* in the namespace */
	struct ns *ns;
	pxc_level_t level;
	uint32_t id;
	struct rec *first, *last;
	size_t count;
};

struct ns {
	struct hnode h;
	struct grp *groups;
	size_t ngroups;
	char name[];
};

struct pxc_store {
	struct htab nst, grt, rct;
	size_t rec_bytes;
};

static uint64_t grp_hash(const struct ns *ns, pxc_level_t level, uint32_t id)
{
	return mix64((uint64_t)(uintptr_t)ns ^ ((uint64_t)level << 56) ^
		     ((uint64_t)id * 0x9e3779b97f4a7c15ULL));
}

static uint64_t rec_hash(const struct grp *g, uint64_t key_hash)
{
	return mix64((uint64_t)(uintptr_t)g ^ key_hash);
}

static struct ns *ns_find(const pxc_store_t *st, const char *name)
{
	size_t len;
	uint64_t h = str_hash(name, &len);
	struct hnode *n;

	for (n = ht_first(&st->nst, h); n; n = n->next) {
		struct ns *ns = CONTAINER(n, struct ns, h);

		if (n->hash == h && !strcmp(ns->name, name))
			return ns;
	}
	return NULL;
}

static struct grp *grp_find(const pxc_store_t *st, const struct ns *ns, pxc_level_t level,
			    uint32_t id)
{
	uint64_t h = grp_hash(ns, level, id);
	struct hnode *n;

	for (n = ht_first(&st->grt, h); n; n = n->next) {
		struct grp *g = CONTAINER(n, struct grp, h);

		if (n->hash == h && g->ns == ns && g->level == level && g->id == id)
			return g;
	}
	return NULL;
}

static struct rec *rec_find(const pxc_store_t *st, const struct grp *g, const char *key,
			    uint64_t key_hash)
{
	uint64_t h = rec_hash(g, key_hash);
	struct hnode *n;

	for (n = ht_first(&st->rct, h); n; n = n->next) {
		struct rec *r = CONTAINER(n, struct rec, h);

		if (n->hash == h && r->g == g && !strcmp(r->key, key))
			return r;
	}
	return NULL;
}

static struct ns *ns_get(pxc_store_t *st, const char *name)
{
	struct ns *ns = ns_find(st, name);
	size_t len;

	if (ns)
		return ns;
	ns = calloc(1, sizeof(*ns) + strlen(name) + 1);
	if (!ns)
		return NULL;
	ns->h.hash = str_hash(name, &len);
	memcpy(ns->name, name, len + 1);
	ht_insert(&st->nst, &ns->h);
	return ns;
}

static struct grp *grp_get(pxc_store_t *st, struct ns *ns, pxc_level_t level, uint32_t id)
{
	struct grp *g = grp_find(st, ns, level, id);

	if (g)
		return g;
	g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->ns = ns;
	g->level = level;
	g->id = id;
	g->h.hash = grp_hash(ns, level, id);
	ht_insert(&st->grt, &g->h);
	g->next = ns->groups;
	if (ns->groups)
		ns->groups->prev = g;
	ns->groups = g;
	ns->ngroups++;
	return g;
}

static void ns_drop_if_empty(pxc_store_t *st, struct ns *ns)
{
	if (ns->ngroups)
		return;
	ht_remove(&st->nst, &ns->h);
	free(ns);
}

static void grp_drop_if_empty(pxc_store_t *st, struct grp *g)
{
	struct ns *ns = g->ns;

	if (g->count)
		return;
	ht_remove(&st->grt, &g->h);
	if (g->prev)
		g->prev->next = g->next;
	else
		ns->groups = g->next;
	if (g->next)
		g->next->prev = g->prev;
	ns->ngroups--;
	free(g);
	ns_drop_if_empty(st, ns);
}

/* Approximate heap held by one record. */
static size_t rec_size(const struct rec *r, size_t keylen)
{
	size_t vsz = 0;

	if (PMIx_Value_get_size(&r->val, &vsz) != PMIX_SUCCESS || vsz < sizeof(pmix_value_t))
		vsz = sizeof(pmix_value_t);
	return sizeof(*r) - sizeof(pmix_value_t) + vsz + keylen + 1;
}

/* Unlinks and frees one record (and its group/namespace when empty). */
static void rec_drop(pxc_store_t *st, struct rec *r)
{
	struct grp *g = r->g;

	ht_remove(&st->rct, &r->h);
	if (r->prev)
		r->prev->next = r->next;
	else
		g->first = r->next;
	if (r->next)
		r->next->prev = r->prev;
	else
		g->last = r->prev;
	g->count--;
	st->rec_bytes -= r->bytes;
	PMIx_Value_destruct(&r->val);
	free(r);
	grp_drop_if_empty(st, g);
}

/* ------------------------------------------------------------------ */
/* create, put, get                                                    */

pxc_store_t *pxc_store_create(void)
{
	pxc_store_t *st = calloc(1, sizeof(*st));

	if (!st || ht_init(&st->nst) || ht_init(&st->grt) || ht_init(&st->rct)) {
		pxc_store_destroy(st);
		errno = ENOMEM;
		return NULL;
	}
	return st;
}

void pxc_store_destroy(pxc_store_t *st)
{
	size_t i;

	if (!st)
		return;
	for (i = 0; st->rct.b && i < st->rct.nb; i++)
		while (st->rct.b[i])
			rec_drop(st, CONTAINER(st->rct.b[i], struct rec, h));
	free(st->nst.b);
	free(st->grt.b);
	free(st->rct.b);
	free(st);
}

static bool valid_addr(const char *nspace, int level, const char *key, unsigned kind)
{
	return nspace && *nspace && strnlen(nspace, PMIX_MAX_NSLEN + 1) <= PMIX_MAX_NSLEN && key &&
	       *key && strnlen(key, PMIX_MAX_KEYLEN + 1) <= PMIX_MAX_KEYLEN && level >= 0 &&
	       level < NLEVELS && kind < NKINDS;
}

/* Stores *val (moved in: on success the store owns its contents, on
 * failure the caller still does). 0 or -1/ENOMEM. */
static int put_take(pxc_store_t *st, const char *nspace, pxc_level_t level, uint32_t id,
		    const char *key, pmix_value_t *val, uint8_t kind)
{
	struct ns *ns = ns_get(st, nspace);
	struct grp *g = ns ? grp_get(st, ns, level, id) : NULL;
	size_t keylen;
	uint64_t kh = str_hash(key, &keylen);
	struct rec *r = g ? rec_find(st, g, key, kh) : NULL;

	if (r) {
		st->rec_bytes -= r->bytes;
		PMIx_Value_destruct(&r->val);
	} else if (g && (r = calloc(1, sizeof(*r) + keylen + 1))) {
		memcpy(r->key, key, keylen + 1);
		r->g = g;
		r->h.hash = rec_hash(g, kh);
		ht_insert(&st->rct, &r->h);
		r->prev = g->last;
		if (g->last)
			g->last->next = r;
		else
			g->first = r;
		g->last = r;
		g->count++;
	} else {
		if (g)
			grp_drop_if_empty(st, g);
		else if (ns)
			ns_drop_if_empty(st, ns);
		errno = ENOMEM;
		return -1;
	}
	r->val = *val;
	r->kind = kind;
	r->bytes = rec_size(r, keylen);
	st->rec_bytes += r->bytes;
	memset(val, 0, sizeof(*val));
	return 0;
}

int pxc_store_put(pxc_store_t *st, const char *nspace, pxc_level_t level, uint32_t id,
		  const char *key, const pmix_value_t *val, uint8_t kind)
{
	pmix_value_t copy;

	if (!st || !val || !valid_addr(nspace, (int)level, key, kind)) {
		errno = EINVAL;
		return -1;
	}
	memset(&copy, 0, sizeof(copy));
	if (PMIx_Value_xfer(&copy, val) != PMIX_SUCCESS) {
		PMIx_Value_destruct(&copy);
		errno = ENOMEM;
		return -1;
	}
	if (put_take(st, nspace, level, id, key, &copy, kind)) {
		PMIx_Value_destruct(&copy);
		return -1;
	}
	return 0;
}

const pmix_value_t *pxc_store_get(const pxc_store_t *st, const char *nspace, pxc_level_t level,
				  uint32_t id, const char *key, uint8_t *kind)
{
	const struct ns *ns;
	const struct grp *g;
	const struct rec *r = NULL;
	size_t len;

	if (st && nspace && key && (ns = ns_find(st, nspace)) && (g = grp_find(st, ns, level, id)))
		r = rec_find(st, g, key, str_hash(key, &len));
	if (!r) {
		errno = ENOENT;
		return NULL;
	}
	if (kind)
		*kind = r->kind;
	return &r->val;
}

/* ------------------------------------------------------------------ */
/* selections                                                          */

/* Calls fn on every record of the selection (level -1 = all levels,
 * id PXC_ID_ANY = all ids, nspace NULL = all namespaces). fn may drop the
 * record it is given. Returns fn's first non-zero result, else 0. */
typedef int (*rec_visit_f)(pxc_store_t *st, struct rec *r, void *arg);

static int visit_group(pxc_store_t *st, struct grp *g, unsigned kinds, rec_visit_f fn, void *arg)
{
	struct rec *r, *next;
	int rc;

	for (r = g->first; r; r = next) {
		next = r->next;
		if (!(kinds & PXC_KIND_BIT(r->kind)))
			continue;
		if ((rc = fn(st, r, arg)) != 0)
			return rc;
	}
	return 0;
}

static int visit_ns(pxc_store_t *st, struct ns *ns, int level, uint32_t id, unsigned kinds,
		    rec_visit_f fn, void *arg)
{
	struct grp *g, *next;
	int rc = 0;

	if (level >= 0 && id != PXC_ID_ANY) {
		g = grp_find(st, ns, (pxc_level_t)level, id);
		return g ? visit_group(st, g, kinds, fn, arg) : 0;
	}
	/* a visitor may free the group, and with it the namespace */
	for (g = ns->groups; g && !rc; g = next) {
		next = g->next;
		if ((level < 0 || g->level == (pxc_level_t)level) &&
		    (id == PXC_ID_ANY || g->id == id))
			rc = visit_group(st, g, kinds, fn, arg);
	}
	return rc;
}

static int visit(pxc_store_t *st, const char *nspace, int level, uint32_t id, unsigned kinds,
		 rec_visit_f fn, void *arg)
{
	struct ns *ns, **all;
	size_t i, n = 0;
	int rc = 0;

	if (nspace) {
		ns = ns_find(st, nspace);
		return ns ? visit_ns(st, ns, level, id, kinds, fn, arg) : 0;
	}
	/* snapshot the namespaces: visitors may free them */
	all = malloc((st->nst.n ? st->nst.n : 1) * sizeof(*all));
	if (!all)
		return -1;
	for (i = 0; i < st->nst.nb; i++)
		for (struct hnode *h = st->nst.b[i]; h; h = h->next)
			all[n++] = CONTAINER(h, struct ns, h);
	for (i = 0; i < n && !rc; i++)
		rc = visit_ns(st, all[i], level, id, kinds, fn, arg);
	free(all);
	return rc;
}

struct user_visit {
	pxc_store_visit_f fn;
	void *arg;
};

static int call_user(pxc_store_t *st, struct rec *r, void *arg)
{
	struct user_visit *u = arg;

	(void)st;
	return u->fn(r->g->ns->name, r->g->level, r->g->id, r->key, &r->val, r->kind, u->arg);
}

int pxc_store_foreach(const pxc_store_t *st, const char *nspace, pxc_level_t level, uint32_t id,
		      unsigned kinds, pxc_store_visit_f fn, void *arg)
{
	struct user_visit u = { fn, arg };

	if (!st || !fn)
		return 0;
	/* call_user never modifies the store */
	return visit((pxc_store_t *)st, nspace, (int)level, id, kinds, call_user, &u);
}

bool pxc_store_has_nspace(const pxc_store_t *st, const char *nspace)
{
	return st && nspace && ns_find(st, nspace);
}

static int count_one(pxc_store_t *st, struct rec *r, void *arg)
{
	(void)st;
	(void)r;
	(*(size_t *)arg)++;
	return 0;
}

size_t pxc_store_count(const pxc_store_t *st, const char *nspace, pxc_level_t level, uint32_t id,
		       unsigned kinds)
{
	size_t n = 0;

	if (st)
		(void)visit((pxc_store_t *)st, nspace, (int)level, id, kinds, count_one, &n);
	return n;
}

static int drop_one(pxc_store_t *st, struct rec *r, void *arg)
{
	(void)arg;
	rec_drop(st, r);
	return 0;
}

void pxc_store_remove(pxc_store_t *st, const char *nspace, int level, uint32_t id, unsigned kinds)
{
	if (st)
		(void)visit(st, nspace, level, id, kinds, drop_one, NULL);
}

size_t pxc_store_bytes(const pxc_store_t *st)
{
	if (!st)
		return 0;
	return sizeof(*st) + st->rec_bytes +
	       (st->nst.nb + st->grt.nb + st->rct.nb) * sizeof(struct hnode *) +
	       st->nst.n * (sizeof(struct ns) + 32) + st->grt.n * sizeof(struct grp);
}

/* ------------------------------------------------------------------ */
/* blobs                                                               */

static int pack_one(pxc_store_t *st, struct rec *r, void *arg)
{
	pmix_data_buffer_t *out = arg;
	uint8_t level = (uint8_t)r->g->level;
	pmix_info_t info;

	(void)st;
	memset(&info, 0, sizeof(info));
	memcpy(info.key, r->key, strlen(r->key) + 1);
	info.value = r->val; /* shallow: only read */
	if (pxc_pack_str(out, r->g->ns->name) != PMIX_SUCCESS ||
	    pxc_pack(out, &level, 1, PMIX_UINT8) != PMIX_SUCCESS ||
	    pxc_pack_u32(out, r->g->id) != PMIX_SUCCESS ||
	    pxc_pack(out, &r->kind, 1, PMIX_UINT8) != PMIX_SUCCESS ||
	    pxc_pack(out, &info, 1, PMIX_INFO) != PMIX_SUCCESS)
		return -1;
	return 0;
}

int pxc_store_pack(const pxc_store_t *st, const char *nspace, int level, uint32_t id,
		   unsigned kinds, pmix_data_buffer_t *out)
{
	size_t mark;

	if (!st || !out) {
		errno = EINVAL;
		return -1;
	}
	mark = out->bytes_used;
	if (visit((pxc_store_t *)st, nspace, level, id, kinds, pack_one, out)) {
		if (out->base_ptr) { /* drop the partial blob */
			out->bytes_used = mark;
			out->pack_ptr = out->base_ptr + mark;
		}
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

struct blob_rec {
	char *nspace;
	uint8_t level, kind;
	uint32_t id;
	pmix_info_t info;
};

static pmix_status_t unpack_rec(pmix_data_buffer_t *in, struct blob_rec *b)
{
	int32_t n = 1;
	pmix_status_t rc;

	memset(b, 0, sizeof(*b));
	rc = pxc_unpack_str(in, &b->nspace);
	if (rc == PMIX_SUCCESS)
		rc = pxc_unpack(in, &b->level, &n, PMIX_UINT8);
	if (rc == PMIX_SUCCESS)
		rc = pxc_unpack_u32(in, &b->id);
	n = 1;
	if (rc == PMIX_SUCCESS)
		rc = pxc_unpack(in, &b->kind, &n, PMIX_UINT8);
	n = 1;
	if (rc == PMIX_SUCCESS)
		rc = pxc_unpack(in, &b->info, &n, PMIX_INFO);
	if (rc == PMIX_SUCCESS && !valid_addr(b->nspace, b->level, b->info.key, b->kind))
		rc = PMIX_ERR_UNPACK_FAILURE;
	return rc;
}

static void blob_free(struct blob_rec *recs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(recs[i].nspace);
		PMIx_Value_destruct(&recs[i].info.value);
	}
	free(recs);
}

/* Decodes the whole blob; nothing is left allocated on failure. */
static pmix_status_t unpack_all(pmix_data_buffer_t *in, struct blob_rec **out, size_t *n)
{
	struct blob_rec *recs = NULL, *more;
	size_t cnt = 0, cap = 0;
	pmix_status_t rc = PMIX_SUCCESS;

	while (pxc_buf_remaining(in) && rc == PMIX_SUCCESS) {
		if (cnt == cap) {
			cap = cap ? cap * 2 : 16;
			more = realloc(recs, cap * sizeof(*recs));
			if (!more) {
				rc = PMIX_ERR_NOMEM;
				break;
			}
			recs = more;
		}
		rc = unpack_rec(in, &recs[cnt]);
		cnt++;
	}
	if (rc != PMIX_SUCCESS) {
		blob_free(recs, cnt);
		return rc;
	}
	*out = recs;
	*n = cnt;
	return PMIX_SUCCESS;
}

pmix_status_t pxc_store_unpack(pxc_store_t *st, pmix_data_buffer_t *in)
{
	struct blob_rec *recs = NULL;
	const char *start;
	size_t n = 0, i;
	pmix_status_t rc;

	if (!st || !in)
		return PMIX_ERR_BAD_PARAM;
	start = pxc_buf_read_ptr(in);
	rc = unpack_all(in, &recs, &n);
	if (rc != PMIX_SUCCESS) {
		in->unpack_ptr = (char *)start;
		return rc;
	}
	for (i = 0; i < n; i++)
		if (put_take(st, recs[i].nspace, recs[i].level, recs[i].id, recs[i].info.key,
			     &recs[i].info.value, recs[i].kind))
			rc = PMIX_ERR_NOMEM;
	blob_free(recs, n);
	return rc;
}

bool pxc_store_group_key(char *out, const char *key, uint64_t cid)
{
	int n = snprintf(out, PMIX_MAX_KEYLEN + 1, "%s@grp:%llx", key, (unsigned long long)cid);

	return n > 0 && n <= PMIX_MAX_KEYLEN;
}
