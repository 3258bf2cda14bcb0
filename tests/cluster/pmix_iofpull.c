/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmix_iofpull.c - PMIx_IOF_pull of a running step's captured output, on
 * any node (docs/iof.md). Every rank but 0 writes OUT bytes on stdout and
 * ERR on stderr (tests/cluster/iof_gen.h, its rank as seed) after the
 * first fence, then closes both, so that its streams end.
 *
 *   pmix_iofpull live OUT ERR   rank 0 pulls every rank's stdout and
 *       stderr before the writers start and must get every byte, in
 *       order, then each stream's end: "LIVE ok streams=S bytes=B";
 *   pmix_iofpull cache OUT ERR  rank 0 pulls after the writers ended
 *       (each waits for its own streams' ends in its server, with a pull
 *       of its own, before a second fence): PMIX_IOF_CACHE_SIZE 4096 with
 *       DROP_NEWEST (the first 4096 bytes of each stream; the first pull
 *       of the other nodes' streams, which arrive as history), with
 *       DROP_OLDEST (the last 4096), and DROP_NEWEST again (a second
 *       subscriber gets the same history), each with OUT - 4096
 *       (ERR - 4096) reported dropped: "CACHE ok streams=S".
 * Otherwise rank 0 prints what differs ("BAD ...") and exits 1. Each wait
 * for the streams' ends lasts at most IOFPULL_WAIT_S seconds (60).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pmix.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iof_gen.h"
#include "pmix_slurmix.h"

#define MAXR 64

typedef struct {
	char *data;
	size_t n, cap;
	uint64_t dropped;
	int ends;
} strm_t;

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static strm_t got[MAXR][2];
static int ends;
static pmix_rank_t own_rank; /* rank 0 ignores its own output */

static void on_iof(size_t id, pmix_iof_channel_t ch, pmix_proc_t *src, pmix_byte_object_t *bo,
		   pmix_info_t info[], size_t ninfo)
{
	strm_t *s;

	(void)id;
	if ((src->rank == 0 && !own_rank) || src->rank >= MAXR ||
	    (ch != PMIX_FWD_STDOUT_CHANNEL && ch != PMIX_FWD_STDERR_CHANNEL))
		return;
	pthread_mutex_lock(&m);
	s = &got[src->rank][ch == PMIX_FWD_STDERR_CHANNEL];
	if (bo->size && s->n + bo->size > s->cap) {
		s->cap = (s->n + bo->size) * 2;
		s->data = realloc(s->data, s->cap);
	}
	if (bo->size) {
		memcpy(s->data + s->n, bo->bytes, bo->size);
		s->n += bo->size;
	}
	for (size_t i = 0; i < ninfo; i++) {
		if (PMIx_Check_key(info[i].key, PMIX_IOF_COMPLETE)) {
			s->ends++;
			ends++;
		}
		if (PMIx_Check_key(info[i].key, SLURMIX_IOF_DROPPED) &&
		    info[i].value.type == PMIX_UINT64)
			s->dropped += info[i].value.data.uint64;
	}
	pthread_mutex_unlock(&m);
}

static void reset(void)
{
	pthread_mutex_lock(&m);
	for (int r = 0; r < MAXR; r++)
		for (int c = 0; c < 2; c++) {
			free(got[r][c].data);
			memset(&got[r][c], 0, sizeof(got[r][c]));
		}
	ends = 0;
	pthread_mutex_unlock(&m);
}

/* Waits for want ends, IOFPULL_WAIT_S seconds at most (default 60). */
static int wait_ends(int want)
{
	const char *w = getenv("IOFPULL_WAIT_S");
	int tries = (w ? atoi(w) : 60) * 100;

	for (int i = 0; i < tries; i++) {
		int n;

		pthread_mutex_lock(&m);
		n = ends;
		pthread_mutex_unlock(&m);
		if (n >= want)
			return 0;
		usleep(10000);
	}
	return -1;
}

typedef struct {
	char *p;
	size_t n;
} mem_t;

static int to_mem(void *arg, const char *p, size_t len)
{
	mem_t *b = arg;

	memcpy(b->p + b->n, p, len);
	b->n += len;
	return 0;
}

static char *want_of(int rank, int c, unsigned long long n)
{
	mem_t b = { malloc(n ? n : 1), 0 };

	iof_make(n, c + 1, (unsigned)rank, to_mem, &b);
	return b.p;
}

/* Checks every writer's streams: `how` 0 all bytes, 1 the first c, 2 the
 * last c (c 4096), and the dropped count. 0, or -1 after a BAD line. */
static int check(const char *what, int size, const unsigned long long len[2], int how)
{
	for (int r = 1; r < size; r++)
		for (int c = 0; c < 2; c++) {
			strm_t *s = &got[r][c];
			char *w = want_of(r, c, len[c]);
			size_t n = how ? (len[c] < 4096 ? len[c] : 4096) : len[c];
			const char *from = how == 2 ? w + len[c] - n : w;
			uint64_t drop = len[c] - n;

			if (s->n != n || memcmp(s->data ? s->data : "", from, n) || s->ends != 1 ||
			    s->dropped != drop) {
				printf("BAD %s rank %d %s: %zu bytes (want %zu, %s), %d ends, "
				       "%llu dropped (want %llu)\n",
				       what, r, c ? "stderr" : "stdout", s->n, n,
				       s->n == n && !memcmp(s->data ? s->data : "", from, n) ?
					       "same" :
					       "differ",
				       s->ends, (unsigned long long)s->dropped,
				       (unsigned long long)drop);
				free(w);
				return -1;
			}
			free(w);
		}
	return 0;
}

static int pull(const pmix_proc_t *all, const pmix_info_t *dirs, size_t ndirs)
{
	int id = PMIx_IOF_pull(all, 1, (pmix_info_t *)dirs, ndirs,
			       PMIX_FWD_STDOUT_CHANNEL | PMIX_FWD_STDERR_CHANNEL, on_iof, NULL,
			       NULL);

	if (id < 0)
		printf("BAD PMIx_IOF_pull: %s\n", PMIx_Error_string(id));
	return id;
}

int main(int argc, char **argv)
{
	pmix_proc_t me, all;
	pmix_value_t *v;
	unsigned long long len[2];
	int size, live, id = -1, rc = 0;

	if (argc != 4 || PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
		return 2;
	live = !strcmp(argv[1], "live");
	own_rank = me.rank;
	len[0] = strtoull(argv[2], NULL, 10);
	len[1] = strtoull(argv[3], NULL, 10);
	PMIX_LOAD_PROCID(&all, me.nspace, PMIX_RANK_WILDCARD);
	if (PMIx_Get(&all, PMIX_JOB_SIZE, NULL, 0, &v) != PMIX_SUCCESS)
		return 2;
	size = (int)v->data.uint32;
	PMIx_Value_free(v, 1);
	if (size > MAXR)
		return 2;
	if (me.rank == 0 && live && (id = pull(&all, NULL, 0)) < 0)
		rc = 1;
	if (PMIx_Fence(NULL, 0, NULL, 0) != PMIX_SUCCESS)
		return 3;
	if (me.rank) {
		int o = 1, e = 2;

		if (iof_make(len[0], 1, me.rank, iof_to_fd, &o) < 0 ||
		    iof_make(len[1], 2, me.rank, iof_to_fd, &e) < 0)
			return 4;
		close(1);
		close(2);
		if (!live) { /* its own ends, so that they are in its server */
			pmix_proc_t self = me;
			pmix_info_t d;
			size_t one = 1;

			PMIx_Info_load(&d, PMIX_IOF_CACHE_SIZE, &one, PMIX_SIZE);
			if ((id = pull(&self, &d, 1)) < 0 || wait_ends(2) < 0)
				return 5;
			PMIx_IOF_deregister((size_t)id, NULL, 0, NULL, NULL);
		}
	}
	if (PMIx_Fence(NULL, 0, NULL, 0) != PMIX_SUCCESS)
		return 3;
	if (me.rank == 0 && !rc && live) {
		if (wait_ends(2 * (size - 1)) < 0)
			printf("BAD LIVE: %d of %d ends\n", ends, 2 * (size - 1)), rc = 1;
		if (!rc && check("LIVE", size, len, 0) < 0)
			rc = 1;
		if (!rc)
			printf("LIVE ok streams=%d bytes=%llu\n", 2 * (size - 1),
			       (len[0] + len[1]) * (unsigned long long)(size - 1));
	}
	if (me.rank == 0 && !live) {
		static const struct {
			const char *what;
			bool newest;
		} rounds[] = { { "CACHE newest", true },
			       { "CACHE oldest", false },
			       { "CACHE newest again", true } };
		pmix_info_t dirs[2];
		size_t cache = 4096;
		bool yes = true;

		for (size_t k = 0; !rc && k < 3; k++) {
			reset();
			PMIx_Info_load(&dirs[0], PMIX_IOF_CACHE_SIZE, &cache, PMIX_SIZE);
			PMIx_Info_load(&dirs[1],
				       rounds[k].newest ? PMIX_IOF_DROP_NEWEST :
							  PMIX_IOF_DROP_OLDEST,
				       &yes, PMIX_BOOL);
			if ((id = pull(&all, dirs, 2)) < 0 || wait_ends(2 * (size - 1)) < 0 ||
			    check(rounds[k].what, size, len, rounds[k].newest ? 1 : 2) < 0)
				rc = 1;
			if (id >= 0)
				PMIx_IOF_deregister((size_t)id, NULL, 0, NULL, NULL);
		}
		if (!rc)
			printf("CACHE ok streams=%d\n", 2 * (size - 1));
	}
	fflush(stdout);
	if (PMIx_Fence(NULL, 0, NULL, 0) != PMIX_SUCCESS)
		return 3;
	PMIx_Finalize(NULL, 0);
	return rc;
}
