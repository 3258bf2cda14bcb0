/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * delta.c - what a collecting fence has to send: only the posted records
 * a local client has not yet delivered to the same participant set.
 *
 * Without this, a fence with PMIX_COLLECT_DATA carries every record each
 * participant ever posted, so a program that posts a little and fences
 * again and again moves k times its data at the k-th fence.
 *
 * Per local client (pxc_sclient_t.delta, allocated on its first commit):
 *  - seq: the number of its COMMITs with REMOTE/GLOBAL records so far;
 *  - keys: the commit seq of each such key it posted, in an open-address
 *    table of 32-bit key hashes, 8 bytes a slot (no key strings: a
 *    collision only makes the two keys share the later seq, which resends
 *    one of them, never drops one);
 *  - marks: for up to PXC_DELTA_MARKS collective signatures (sorted,
 *    unique proc lists, shared refcounted pxc_fsig_t in pxc_srv.fsigs),
 *    the highest seq it contributed to a collecting fence over that
 *    signature that completed. The least recently used mark is evicted.
 * A fence packs the client's REMOTE/GLOBAL records whose key seq is above
 * the mark of the fence's signature (no mark: every record; a key not in
 * the table: sent). The fence records the seq it covered per member and
 * moves the marks on only when it succeeded (pxc_delta_done).
 *
 * Why that is enough: every participant's store (clients, and the other
 * servers through the host) keeps what earlier fences brought; only a
 * participant that was part of the same set got the earlier records. A
 * different set has its own mark (none at first) and gets everything.
 * A local client that connects again (a new process, or PMIx_Init after
 * PMIx_Finalize, whose store starts empty) drops every mark of this
 * server, so that the next fence resends all local data. A process on
 * another node that starts again gets only the new records from its
 * peers' servers; what it misses it asks for with a GET, which its
 * server answers from its store (only a PMIX_OPTIONAL Get does not ask).
 *
 * If memory runs out the client falls back to sending everything.
 * Progress thread only.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "delta.h"
#include "nspace.h"

#define PXC_DELTA_MARKS 16
#define KINDS_FENCE (PXC_KIND_BIT(PMIX_REMOTE) | PXC_KIND_BIT(PMIX_GLOBAL))

struct pxc_fsig {
	struct pxc_fsig *next;
	pmix_proc_t *procs;
	size_t nprocs;
	size_t refs; /* marks (and callers) holding it */
};

typedef struct {
	struct pxc_fsig *sig; /* NULL = free slot */
	uint32_t upto;
	uint32_t used; /* LRU stamp (a wrap only misorders) */
} mark_t;

typedef struct {
	uint32_t h;   /* key hash, 0 = empty slot */
	uint32_t seq; /* its commit */
} slot_t;

struct pxc_delta {
	uint32_t seq; /* commits with fence-visible records */
	bool all;     /* out of memory once: send everything */
	slot_t *keys;
	size_t cap, n;
	mark_t marks[PXC_DELTA_MARKS];
};

static uint32_t stamp;

/* --------------------------------------------------------------- keys */

static uint32_t key_hash(const char *key)
{
	uint32_t h = 2166136261u; /* FNV-1a, then a final mix */

	for (const unsigned char *p = (const unsigned char *)key; *p; p++)
		h = (h ^ *p) * 16777619u;
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	return h ? h : 1;
}

static size_t slot_of(const pxc_delta_t *d, uint32_t h)
{
	size_t i = h & (d->cap - 1);

	while (d->keys[i].h && d->keys[i].h != h)
		i = (i + 1) & (d->cap - 1);
	return i;
}

static int keys_grow(pxc_delta_t *d)
{
	slot_t *old = d->keys;
	size_t ocap = d->cap;

	d->keys = calloc(ocap ? ocap * 2 : 16, sizeof(*d->keys));
	if (!d->keys) {
		d->keys = old;
		return -1;
	}
	d->cap = ocap ? ocap * 2 : 16;
	for (size_t i = 0; i < ocap; i++)
		if (old[i].h)
			d->keys[slot_of(d, old[i].h)] = old[i];
	free(old);
	return 0;
}

/* The seq of key, or UINT32_MAX when unknown (then it is sent). */
static uint32_t key_seq(const pxc_delta_t *d, const char *key)
{
	size_t s;

	if (!d->cap)
		return UINT32_MAX;
	s = slot_of(d, key_hash(key));
	return d->keys[s].h ? d->keys[s].seq : UINT32_MAX;
}

static pxc_delta_t *delta_get(pxc_sclient_t *cl)
{
	if (!cl->delta)
		cl->delta = calloc(1, sizeof(*cl->delta));
	return cl->delta;
}

void pxc_delta_commit(pxc_sclient_t *cl)
{
	pxc_delta_t *d = delta_get(cl);

	if (d && d->seq < UINT32_MAX - 1)
		d->seq++;
	else if (d)
		d->all = true;
}

void pxc_delta_touch(pxc_sclient_t *cl, const char *key, uint8_t kind)
{
	pxc_delta_t *d = cl->delta;
	uint32_t h;
	size_t s;

	if (!d || d->all || !(KINDS_FENCE & PXC_KIND_BIT(kind)))
		return;
	if ((d->n + 1) * 4 > d->cap * 3 && keys_grow(d) < 0) {
		d->all = true;
		return;
	}
	h = key_hash(key);
	s = slot_of(d, h);
	d->n += d->keys[s].h == 0;
	d->keys[s] = (slot_t){ .h = h, .seq = d->seq };
}

/* --------------------------------------------------------- signatures */

pxc_fsig_t *pxc_delta_sig_find(const pmix_proc_t *procs, size_t n)
{
	for (pxc_fsig_t *s = pxc_srv.fsigs; s; s = s->next)
		if (s->nprocs == n && memcmp(s->procs, procs, n * sizeof(*procs)) == 0)
			return s;
	return NULL;
}

pxc_fsig_t *pxc_delta_sig_hold(const pmix_proc_t *procs, size_t n)
{
	pxc_fsig_t *s = pxc_delta_sig_find(procs, n);

	if (s) {
		s->refs++;
		return s;
	}
	s = calloc(1, sizeof(*s));
	if (!s || !(s->procs = malloc(n * sizeof(*procs)))) {
		free(s);
		return NULL;
	}
	memcpy(s->procs, procs, n * sizeof(*procs));
	s->nprocs = n;
	s->refs = 1;
	s->next = pxc_srv.fsigs;
	pxc_srv.fsigs = s;
	return s;
}

void pxc_delta_sig_release(pxc_fsig_t *s)
{
	if (!s || --s->refs)
		return;
	for (pxc_fsig_t **pp = &pxc_srv.fsigs; *pp; pp = &(*pp)->next)
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	free(s->procs);
	free(s);
}

/* -------------------------------------------------------------- marks */

static mark_t *mark_find(pxc_delta_t *d, const pxc_fsig_t *sig)
{
	for (size_t i = 0; sig && i < PXC_DELTA_MARKS; i++)
		if (d->marks[i].sig == sig)
			return &d->marks[i];
	return NULL;
}

/* The mark for sig, taking a free or the least recently used slot. */
static mark_t *mark_slot(pxc_delta_t *d, pxc_fsig_t *sig)
{
	mark_t *m = mark_find(d, sig), *old = NULL;

	if (m)
		return m;
	for (size_t i = 0; i < PXC_DELTA_MARKS; i++) {
		if (!d->marks[i].sig) {
			old = &d->marks[i];
			break;
		}
		if (!old || d->marks[i].used < old->used)
			old = &d->marks[i];
	}
	pxc_delta_sig_release(old->sig);
	sig->refs++;
	*old = (mark_t){ .sig = sig, .upto = 0 };
	return old;
}

static void marks_clear(pxc_delta_t *d)
{
	for (size_t i = 0; i < PXC_DELTA_MARKS; i++) {
		pxc_delta_sig_release(d->marks[i].sig);
		d->marks[i] = (mark_t){ 0 };
	}
}

void pxc_delta_done(pxc_fsig_t *sig, const pmix_proc_t *proc, uint32_t upto)
{
	pxc_sclient_t *cl = pxc_client_find(proc);
	mark_t *m;

	if (!sig || !cl || !cl->delta || cl->delta->all || upto == 0)
		return;
	m = mark_slot(cl->delta, sig);
	if (upto > m->upto)
		m->upto = upto;
	m->used = ++stamp;
}

void pxc_delta_forget_all(void)
{
	for (pxc_snspace_t *ns = pxc_srv.nspaces; ns; ns = ns->next)
		for (pxc_sclient_t *cl = ns->clients; cl; cl = cl->next)
			if (cl->delta)
				marks_clear(cl->delta);
}

void pxc_delta_free(pxc_sclient_t *cl)
{
	pxc_delta_t *d = cl->delta;

	if (!d)
		return;
	marks_clear(d);
	free(d->keys);
	free(d);
	cl->delta = NULL;
}

/* ------------------------------------------------------------ packing */

typedef struct {
	const pxc_delta_t *d;
	uint32_t above;
	pmix_data_buffer_t *out;
} pack_t;

/* One record in the store's blob format (store.h). */
static int pack_visit(const char *ns, pxc_level_t lvl, uint32_t id, const char *key,
		      const pmix_value_t *val, uint8_t kind, void *arg)
{
	pack_t *pk = arg;
	uint8_t level = (uint8_t)lvl;
	pmix_info_t info;

	if (key_seq(pk->d, key) <= pk->above)
		return 0;
	memset(&info, 0, sizeof(info));
	memcpy(info.key, key, strnlen(key, PMIX_MAX_KEYLEN));
	info.value = *val; /* shallow: only read */
	if (pxc_pack_str(pk->out, ns) != PMIX_SUCCESS ||
	    pxc_pack(pk->out, &level, 1, PMIX_UINT8) != PMIX_SUCCESS ||
	    pxc_pack_u32(pk->out, id) != PMIX_SUCCESS ||
	    pxc_pack(pk->out, &kind, 1, PMIX_UINT8) != PMIX_SUCCESS ||
	    pxc_pack(pk->out, &info, 1, PMIX_INFO) != PMIX_SUCCESS)
		return -1;
	return 0;
}

int pxc_delta_pack(const pmix_proc_t *proc, const pxc_fsig_t *sig, pmix_data_buffer_t *out,
		   uint32_t *upto)
{
	pxc_sclient_t *cl = pxc_client_find(proc);
	pxc_delta_t *d = cl ? cl->delta : NULL;
	mark_t *m = d && !d->all ? mark_find(d, sig) : NULL;
	pack_t pk = { .d = d, .above = m ? m->upto : 0, .out = out };
	size_t at = out->bytes_used;

	*upto = d && !d->all ? d->seq : 0;
	if (!m)
		return pxc_store_pack(pxc_srv.store, proc->nspace, PXC_LVL_PROC, proc->rank,
				      KINDS_FENCE, out);
	m->used = ++stamp;
	if (pxc_store_foreach(pxc_srv.store, proc->nspace, PXC_LVL_PROC, proc->rank, KINDS_FENCE,
			      pack_visit, &pk) == 0)
		return 0;
	out->bytes_used = at; /* drop the partial blob */
	out->pack_ptr = out->base_ptr + at;
	errno = ENOMEM;
	return -1;
}
