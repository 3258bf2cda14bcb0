/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmix_event.c - one event from rank 0 across the step's nodes. Every
 * rank registers a handler for a code of its own (PMIX_EXTERNAL_ERR_BASE
 * - 7), all fence, rank 0 notifies it with the range given (namespace,
 * session, global, or custom: the last rank only) and a payload, all
 * fence again. Every rank then waits at most 10 s for what it should get
 * (one event with the payload, rank 0 as source, and rank 0's node named:
 * its PMIX_HOSTNAME, PMIX_NODEID 0 and a PMIX_EVENT_TIMESTAMP; none outside
 * a custom range), fences once more, waits 300 ms for anything extra and prints
 * "RANK r GOT n" and "OK" (or "WRONG ..."). Rank 0 also prints
 * "NOTIFIED <status>" when its notification completed.
 * Usage: pmix_event namespace|session|global|custom
 *
 * Across two steps of one job:
 *   pmix_event listen FILE   every rank registers and fences, rank 0
 *                            writes its nspace into FILE; every rank
 *                            waits at most 15 s for one event from
 *                            another step, all fence, and each prints
 *                            "RANK r GOT n FROM <nspace>" and "OK"
 *   pmix_event tell FILE     rank 0 waits for FILE, notifies with range
 *                            SESSION and prints "NOTIFIED <status>"; then
 *                            all ranks fence
 *   pmix_event listenc FILE  as listen, but only rank 3 may get one
 *   pmix_event tellc FILE    as tell, with range CUSTOM naming rank 3 of
 *                            the nspace in FILE
 *
 * A broken link of the tree (4 nodes, 2 ranks each, TreeWidth >= 3: node
 * 0 is the root, the others its leaves):
 *   pmix_event degrade       all fence; the ranks of node 0 finalize and
 *                            exit (its stepd ends); then rank 2 (node 1)
 *                            registers, which no other node can learn;
 *                            rank 4 (node 2) notifies (NAMESPACE) and
 *                            ranks 2-7 fence: rank 2 must get it ("RANK r
 *                            GOT n" and "OK", nobody else any)
 *
 * Cache overflow (run with a small SLURMIX_EVENT_CACHE_BYTES):
 *   pmix_event overflow N    rank 0 notifies N events (range NAMESPACE,
 *                            1 KiB of payload each) before anyone
 *                            registered, all fence and register; every
 *                            other rank must get some but not all of
 *                            them, the first with SLURMIX_EVENT_CACHE_
 *                            DROPPED > 0: "OVERFLOW rank r got G of N,
 *                            dropped D" and "OK"
 *
 * Affected procs:
 *   pmix_event affected      every rank registers for events affecting
 *                            the last rank; rank 0 notifies one
 *                            affecting rank 1, then one affecting the
 *                            last; every rank must get the second only:
 *                            "RANK r GOT n" and "OK"
 *
 * Order against a fence:
 *   pmix_event order N       N rounds: rank 0 notifies round i (range
 *                            NAMESPACE, the round in the payload), waits
 *                            for its callback, and fences; every other
 *                            rank fences and then must already have seen
 *                            round i. Every rank prints "ORDER rank r
 *                            rounds N late L" and "OK" when L is 0 (and
 *                            it saw all N rounds).
 *
 * Capacity:
 *   pmix_event burst N       every rank notifies N events (range
 *                            NAMESPACE, a sequence number in the payload)
 *                            without waiting, then waits for all its
 *                            callbacks; every rank must get the N events
 *                            of every other rank, each source's in order:
 *                            "BURST rank r got G of W, V out of order,
 *                            F failed" and "OK"
 *
 * Late registrants:
 *   pmix_event late          rank 0 notifies (range NAMESPACE) before
 *                            anyone registered and all fence; then every
 *                            rank registers, and every rank but rank 0
 *                            (the notifier) must get the event once, with
 *                            its payload, source and source node: "RANK r
 *                            GOT n" and "OK".
 *
 * Routing by registration:
 *   pmix_event sparse        only the last rank registers and all fence;
 *                            rank 0 notifies (range NAMESPACE) and all
 *                            fence; the last rank must have the event.
 *                            Then the others but rank 0 register and
 *                            must get it once too (their nodes were not
 *                            sent it: the notifier's stepd kept it):
 *                            "RANK r GOT n" and "OK".
 */
#include <pmix.h>
#include <pmix_slurmix.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CODE (PMIX_EXTERNAL_ERR_BASE - 7)
#define ORDER_CODE (PMIX_EXTERNAL_ERR_BASE - 8)
#define PAYLOAD_KEY "slurmix.test.payload"
#define PAYLOAD "from rank 0"
#define ROUND_KEY "slurmix.test.round"

static volatile int got, bad_payload, bad_source, bad_node, notified;
static pmix_proc_t self;
static char src_host[256]; /* rank 0's PMIX_HOSTNAME; "" in another step */
static char got_from[PMIX_MAX_NSLEN + 1];
static volatile pmix_status_t notify_status = PMIX_ERROR;

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
		     size_t ninfo, pmix_info_t *results, size_t nresults,
		     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	int payload = 0, host = 0, node = 0, stamp = 0;

	(void)id, (void)results, (void)nresults;
	for (size_t i = 0; i < ninfo; i++) {
		const pmix_value_t *v = &info[i].value;

		if (PMIx_Check_key(info[i].key, PAYLOAD_KEY) && v->type == PMIX_STRING &&
		    strcmp(v->data.string, PAYLOAD) == 0)
			payload = 1;
		else if (PMIx_Check_key(info[i].key, PMIX_HOSTNAME) && v->type == PMIX_STRING)
			host = !src_host[0] || strcmp(v->data.string, src_host) == 0;
		else if (PMIx_Check_key(info[i].key, PMIX_NODEID) && v->type == PMIX_UINT32)
			node = !src_host[0] || v->data.uint32 == 0;
		else if (PMIx_Check_key(info[i].key, PMIX_EVENT_TIMESTAMP) && v->type == PMIX_TIME)
			stamp = v->data.time > 0;
	}
	/* from another process: the source node is named (not in one's own) */
	if (status == CODE && source && !PMIx_Check_procid(source, &self))
		bad_node += !host || !node || !stamp;
	if (status == CODE) {
		bad_payload += !payload;
		bad_source += !source || source->rank != 0;
		if (source)
			snprintf(got_from, sizeof(got_from), "%s", source->nspace);
		got++;
	}
	if (cbfunc)
		cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static void on_notified(pmix_status_t st, void *cbdata)
{
	(void)cbdata;
	notify_status = st;
	notified = 1;
}

static volatile uint32_t round_seen, rounds_got;

static void on_round(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
		     size_t ninfo, pmix_info_t *results, size_t nresults,
		     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	(void)id, (void)source, (void)results, (void)nresults;
	for (size_t i = 0; status == ORDER_CODE && i < ninfo; i++)
		if (PMIx_Check_key(info[i].key, ROUND_KEY) && info[i].value.type == PMIX_UINT32) {
			round_seen = info[i].value.data.uint32;
			rounds_got++;
		}
	if (cbfunc)
		cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

/* Notify-then-fence, n rounds. */
static int order(const pmix_proc_t *me, uint32_t n)
{
	pmix_status_t code = ORDER_CODE, st;
	pmix_proc_t wild;
	pmix_info_t info;
	uint32_t late = 0, failed = 0;

	PMIx_Load_procid(&wild, me->nspace, PMIX_RANK_WILDCARD);
	st = PMIx_Register_event_handler(&code, 1, NULL, 0, on_round, NULL, NULL);
	if (st < 0 || PMIx_Fence(&wild, 1, NULL, 0) != PMIX_SUCCESS)
		return 3;
	for (uint32_t i = 1; i <= n; i++) {
		if (me->rank == 0) {
			notified = 0;
			PMIx_Info_load(&info, ROUND_KEY, &i, PMIX_UINT32);
			st = PMIx_Notify_event(ORDER_CODE, me, PMIX_RANGE_NAMESPACE, &info, 1,
					       on_notified, NULL);
			for (int t = 0; st == PMIX_SUCCESS && !notified && t < 100000; t++)
				usleep(100);
			failed += st != PMIX_SUCCESS || !notified || notify_status != PMIX_SUCCESS;
		}
		if (PMIx_Fence(&wild, 1, NULL, 0) != PMIX_SUCCESS)
			return 3;
		if (me->rank != 0 && round_seen < i)
			late++;
	}
	printf("ORDER rank %u rounds %u late %u failed %u got %u\n", me->rank, n, late, failed,
	       me->rank ? rounds_got : n);
	printf("%s\n", !late && !failed && (me->rank == 0 || rounds_got == n) ? "OK" : "WRONG");
	return 0;
}

static void wait_for(volatile int *v, int want, int ms)
{
	for (int t = 0; *v < want && t < ms; t += 10)
		usleep(10000);
}

static pmix_data_range_t range_of(const char *s)
{
	return !strcmp(s, "namespace") ? PMIX_RANGE_NAMESPACE :
	       !strcmp(s, "session")   ? PMIX_RANGE_SESSION :
	       !strcmp(s, "global")    ? PMIX_RANGE_GLOBAL :
	       !strcmp(s, "custom")    ? PMIX_RANGE_CUSTOM :
					 PMIX_RANGE_UNDEF;
}

#define BURST_CODE (PMIX_EXTERNAL_ERR_BASE - 9)
#define BURST_MAX_RANKS 64
static _Atomic uint32_t burst_got, burst_bad, burst_done, burst_failed;
static uint32_t burst_last[BURST_MAX_RANKS];

static void on_burst(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
		     size_t ninfo, pmix_info_t *results, size_t nresults,
		     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	(void)id, (void)results, (void)nresults;
	for (size_t i = 0; status == BURST_CODE && source && source->rank < BURST_MAX_RANKS &&
			   source->rank != self.rank && i < ninfo;
	     i++)
		if (PMIx_Check_key(info[i].key, ROUND_KEY) && info[i].value.type == PMIX_UINT32) {
			if (info[i].value.data.uint32 != burst_last[source->rank] + 1)
				burst_bad++;
			burst_last[source->rank] = info[i].value.data.uint32;
			burst_got++;
		}
	if (cbfunc)
		cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static void burst_cb(pmix_status_t st, void *cbdata)
{
	(void)cbdata;
	if (st != PMIX_SUCCESS)
		burst_failed++;
	burst_done++;
}

static int burst(const pmix_proc_t *me, uint32_t n)
{
	pmix_status_t code = BURST_CODE, st;
	pmix_proc_t wild;
	pmix_info_t info;
	pmix_value_t *v = NULL;
	uint32_t size = 0, want;

	PMIx_Load_procid(&wild, me->nspace, PMIX_RANK_WILDCARD);
	if (PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v) != PMIX_SUCCESS || !v)
		return 2;
	size = v->data.uint32;
	PMIx_Value_free(v, 1);
	if (size > BURST_MAX_RANKS)
		return 2;
	want = (size - 1) * n;
	st = PMIx_Register_event_handler(&code, 1, NULL, 0, on_burst, NULL, NULL);
	if (st < 0 || PMIx_Fence(&wild, 1, NULL, 0) != PMIX_SUCCESS)
		return 3;
	for (uint32_t i = 1; i <= n; i++) {
		PMIx_Info_load(&info, ROUND_KEY, &i, PMIX_UINT32);
		if (PMIx_Notify_event(BURST_CODE, me, PMIX_RANGE_NAMESPACE, &info, 1, burst_cb,
				      NULL) != PMIX_SUCCESS) {
			burst_failed++;
			burst_done++;
		}
		PMIx_Info_destruct(&info);
	}
	for (int t = 0; burst_done < n && t < 240000; t += 10)
		usleep(10000);
	if (PMIx_Fence(&wild, 1, NULL, 0) != PMIX_SUCCESS)
		return 3;
	for (int t = 0; burst_got < want && t < 60000; t += 10)
		usleep(10000);
	printf("BURST rank %u got %u of %u, %u out of order, %u failed, %u of %u sent\n", me->rank,
	       (unsigned)burst_got, want, (unsigned)burst_bad, (unsigned)burst_failed,
	       (unsigned)burst_done, n);
	printf("%s\n", burst_got == want && !burst_bad && !burst_failed && burst_done == n ?
			       "OK" :
			       "WRONG");
	return 0;
}

/* src_host = rank 0's PMIX_HOSTNAME (the source node events must name).
 * 0 or -1. */
static int load_src_host(const pmix_proc_t *me)
{
	pmix_proc_t zero;
	pmix_value_t *v = NULL;

	PMIx_Load_procid(&zero, me->nspace, 0);
	if (PMIx_Get(&zero, PMIX_HOSTNAME, NULL, 0, &v) != PMIX_SUCCESS || !v ||
	    v->type != PMIX_STRING) {
		if (v)
			PMIx_Value_free(v, 1);
		return -1;
	}
	snprintf(src_host, sizeof(src_host), "%s", v->data.string);
	PMIx_Value_free(v, 1);
	return 0;
}

/* CODE from me, in range, with payload and one more info (key NULL:
 * none); waits for its callback and prints "NOTIFIED <status>". */
static void notify_with(const pmix_proc_t *me, pmix_data_range_t range, const char *payload,
			const char *key, const void *val, pmix_data_type_t type)
{
	pmix_info_t info[2];
	pmix_status_t st;

	PMIx_Info_load(&info[0], PAYLOAD_KEY, payload, PMIX_STRING);
	if (key)
		PMIx_Info_load(&info[1], key, val, type);
	notified = 0;
	st = PMIx_Notify_event(CODE, me, range, info, key ? 2 : 1, on_notified, NULL);
	wait_for(&notified, 1, 10000);
	printf("NOTIFIED %s\n", st != PMIX_SUCCESS ? PMIx_Error_string(st) :
				notified           ? PMIx_Error_string(notify_status) :
						     "never");
	for (int i = 0; i < (key ? 2 : 1); i++)
		PMIx_Info_destruct(&info[i]);
}

static void notify_payload(const pmix_proc_t *me, pmix_data_range_t range)
{
	notify_with(me, range, PAYLOAD, NULL, NULL, PMIX_UNDEF);
}

/* Waits at most 5 s for want events (and 300 ms for more), fences and
 * prints "RANK r GOT n" and "OK" (or "WRONG", also when wrong). 0 or 3. */
static int report_got(const pmix_proc_t *me, int want, bool wrong)
{
	pmix_proc_t wild;

	PMIx_Load_procid(&wild, me->nspace, PMIX_RANK_WILDCARD);
	wait_for(&got, want, 5000);
	usleep(300000);
	if (PMIx_Fence(&wild, 1, NULL, 0) != PMIX_SUCCESS)
		return 3;
	printf("RANK %u GOT %d\n%s\n", me->rank, got,
	       got == want && !wrong && !bad_payload && !bad_source && !bad_node ? "OK" : "WRONG");
	return 0;
}

/* Registration after the event was notified. */
static int late(const pmix_proc_t *me)
{
	pmix_status_t code = CODE, st;
	pmix_proc_t wild;
	int want = me->rank != 0;

	PMIx_Load_procid(&wild, me->nspace, PMIX_RANK_WILDCARD);
	if (load_src_host(me) < 0)
		return 2;
	if (me->rank == 0)
		notify_payload(me, PMIX_RANGE_NAMESPACE);
	if (PMIx_Fence(&wild, 1, NULL, 0) != PMIX_SUCCESS)
		return 3;
	st = PMIx_Register_event_handler(&code, 1, NULL, 0, on_event, NULL, NULL);
	if (st < 0)
		return 3;
	return report_got(me, want, false);
}

/* Only the last rank has a handler when rank 0 notifies; the others
 * register afterwards. */
static int sparse(const pmix_proc_t *me)
{
	pmix_status_t code = CODE;
	pmix_proc_t wild;
	pmix_value_t *v = NULL;
	uint32_t size;
	int want = me->rank != 0, late_at_fence;

	PMIx_Load_procid(&wild, me->nspace, PMIX_RANK_WILDCARD);
	if (load_src_host(me) < 0 || PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v) != PMIX_SUCCESS ||
	    !v || v->type != PMIX_UINT32)
		return 2;
	size = v->data.uint32;
	PMIx_Value_free(v, 1);
	if (me->rank == size - 1 &&
	    PMIx_Register_event_handler(&code, 1, NULL, 0, on_event, NULL, NULL) < 0)
		return 3;
	if (PMIx_Fence(&wild, 1, NULL, 0) != PMIX_SUCCESS)
		return 3;
	if (me->rank == 0)
		notify_payload(me, PMIX_RANGE_NAMESPACE);
	if (PMIx_Fence(&wild, 1, NULL, 0) != PMIX_SUCCESS)
		return 3;
	late_at_fence = me->rank == size - 1 && got != 1;
	if (late_at_fence)
		printf("RANK %u: not there after the fence (%d)\n", me->rank, got);
	if (me->rank != size - 1 &&
	    PMIx_Register_event_handler(&code, 1, NULL, 0, on_event, NULL, NULL) < 0)
		return 3;
	return report_got(me, want, late_at_fence);
}

/* Handlers that asked for the events affecting the last rank only: of
 * rank 0's two events (one affecting rank 1, with another payload, then
 * one affecting the last rank), each rank's gets the second alone. */
static int affected(const pmix_proc_t *me)
{
	pmix_status_t code = CODE;
	pmix_proc_t wild, last, one;
	pmix_value_t *v = NULL;
	pmix_info_t reg;
	uint32_t size;

	PMIx_Load_procid(&wild, me->nspace, PMIX_RANK_WILDCARD);
	if (load_src_host(me) < 0 || PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v) != PMIX_SUCCESS ||
	    !v || v->type != PMIX_UINT32 || v->data.uint32 < 3)
		return 2;
	size = v->data.uint32;
	PMIx_Value_free(v, 1);
	PMIx_Load_procid(&last, me->nspace, size - 1);
	PMIx_Load_procid(&one, me->nspace, 1);
	PMIx_Info_load(&reg, PMIX_EVENT_AFFECTED_PROC, &last, PMIX_PROC);
	if (PMIx_Register_event_handler(&code, 1, &reg, 1, on_event, NULL, NULL) < 0 ||
	    PMIx_Fence(&wild, 1, NULL, 0) != PMIX_SUCCESS)
		return 3;
	PMIx_Info_destruct(&reg);
	if (me->rank == 0) {
		notify_with(me, PMIX_RANGE_NAMESPACE, "not for you", PMIX_EVENT_AFFECTED_PROC, &one,
			    PMIX_PROC);
		notify_with(me, PMIX_RANGE_NAMESPACE, PAYLOAD, PMIX_EVENT_AFFECTED_PROC, &last,
			    PMIX_PROC);
	}
	if (PMIx_Fence(&wild, 1, NULL, 0) != PMIX_SUCCESS)
		return 3;
	return report_got(me, 1, false);
}

/* Registrations cut off from the notifier by a gone root. */
static int degrade(const pmix_proc_t *me)
{
	pmix_status_t code = CODE;
	pmix_proc_t wild, rest[6];

	PMIx_Load_procid(&wild, me->nspace, PMIX_RANK_WILDCARD);
	if (PMIx_Fence(&wild, 1, NULL, 0) != PMIX_SUCCESS)
		return 3;
	if (me->rank < 2) {
		printf("RANK %u GOT 0\nOK\n", me->rank);
		return 0; /* finalize and exit: node 0's stepd ends */
	}
	for (int i = 0; i < 6; i++)
		PMIx_Load_procid(&rest[i], me->nspace, (pmix_rank_t)(i + 2));
	usleep(1500000); /* node 0 is gone by then */
	if (me->rank == 2 &&
	    PMIx_Register_event_handler(&code, 1, NULL, 0, on_event, NULL, NULL) < 0)
		return 3;
	usleep(500000);
	if (me->rank == 4)
		notify_payload(me, PMIX_RANGE_NAMESPACE);
	if (PMIx_Fence(rest, 6, NULL, 0) != PMIX_SUCCESS)
		return 3;
	wait_for(&got, me->rank == 2, 5000);
	usleep(300000);
	printf("RANK %u GOT %d\n%s\n", me->rank, got,
	       got == (me->rank == 2) && !bad_payload ? "OK" : "WRONG");
	return 0;
}

#define OVF_CODE (PMIX_EXTERNAL_ERR_BASE - 10)
static _Atomic uint32_t ovf_got, ovf_dropped, ovf_first_dropped;

static void on_overflow(size_t id, pmix_status_t status, const pmix_proc_t *source,
			pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
			pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	uint32_t d = 0;

	(void)id, (void)source, (void)results, (void)nresults;
	for (size_t i = 0; status == OVF_CODE && i < ninfo; i++)
		if (PMIx_Check_key(info[i].key, SLURMIX_EVENT_CACHE_DROPPED) &&
		    info[i].value.type == PMIX_UINT32)
			d = info[i].value.data.uint32;
	if (status == OVF_CODE) {
		if (ovf_got++ == 0)
			ovf_first_dropped = d;
		ovf_dropped += d;
	}
	if (cbfunc)
		cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static void ovf_cb(pmix_status_t st, void *cbdata)
{
	(void)st, (void)cbdata;
	notified++;
}

/* More events than the caches hold, before anyone registered. */
static int overflow(const pmix_proc_t *me, uint32_t n)
{
	pmix_status_t code = OVF_CODE;
	pmix_proc_t wild;
	pmix_info_t info;
	static char pad[1024];

	PMIx_Load_procid(&wild, me->nspace, PMIX_RANK_WILDCARD);
	memset(pad, 'x', sizeof(pad) - 1);
	for (uint32_t i = 0; me->rank == 0 && i < n; i++) {
		PMIx_Info_load(&info, PAYLOAD_KEY, pad, PMIX_STRING);
		if (PMIx_Notify_event(OVF_CODE, me, PMIX_RANGE_NAMESPACE, &info, 1, ovf_cb, NULL) !=
		    PMIX_SUCCESS)
			notified++;
		PMIx_Info_destruct(&info);
	}
	wait_for(&notified, me->rank == 0 ? (int)n : 0, 10000);
	if (PMIx_Fence(&wild, 1, NULL, 0) != PMIX_SUCCESS ||
	    PMIx_Register_event_handler(&code, 1, NULL, 0, on_overflow, NULL, NULL) < 0)
		return 3;
	usleep(1000000);
	if (PMIx_Fence(&wild, 1, NULL, 0) != PMIX_SUCCESS)
		return 3;
	printf("OVERFLOW rank %u got %u of %u, dropped %u (first event: %u)\n", me->rank,
	       (unsigned)ovf_got, n, (unsigned)ovf_dropped, (unsigned)ovf_first_dropped);
	printf("%s\n", me->rank == 0 || (ovf_got > 0 && ovf_got < n && ovf_first_dropped > 0) ?
			       "OK" :
			       "WRONG");
	return 0;
}

/* The two-step case: listen for an event of another step, or tell one. */
/* The listener's nspace from file (rank 0 of the listening step wrote
 * it), into ns. 0 or -1. */
static int read_nspace(const char *file, char *ns, size_t len)
{
	FILE *f = NULL;
	int rc = -1;

	for (int t = 0; access(file, F_OK) != 0 && t < 1500; t++)
		usleep(10000);
	usleep(50000); /* written whole */
	if ((f = fopen(file, "r")) && fgets(ns, (int)len, f) && ns[0]) {
		ns[strcspn(ns, "\n")] = 0;
		rc = 0;
	}
	if (f)
		fclose(f);
	return rc;
}

/* tell: rank 0 notifies with range SESSION, or (custom) CUSTOM naming
 * rank 3 of the listening step only. */
static int tell(const pmix_proc_t *me, bool custom, const char *file)
{
	pmix_proc_t wild, target;
	pmix_data_array_t da = { .type = PMIX_PROC, .size = 1, .array = &target };
	char ns[PMIX_MAX_NSLEN + 2] = "";

	PMIx_Load_procid(&wild, me->nspace, PMIX_RANK_WILDCARD);
	if (me->rank == 0 && read_nspace(file, ns, sizeof(ns)) < 0)
		return 2;
	if (me->rank == 0 && !custom)
		notify_payload(me, PMIX_RANGE_SESSION);
	if (me->rank == 0 && custom) {
		PMIx_Load_procid(&target, ns, 3);
		notify_with(me, PMIX_RANGE_CUSTOM, PAYLOAD, PMIX_EVENT_CUSTOM_RANGE, &da,
			    PMIX_DATA_ARRAY);
	}
	/* the step's other stepds stay until the notification completed */
	return PMIx_Fence(&wild, 1, NULL, 0) == PMIX_SUCCESS ? 0 : 3;
}

/* listen: every rank (or, custom, rank 3 only) must get one event from
 * another step; then all fence and wait 300 ms for anything extra. */
static int listen_other(const pmix_proc_t *me, bool custom, const char *file)
{
	pmix_status_t code = CODE;
	pmix_proc_t wild;
	int want = !custom || me->rank == 3, ok;
	FILE *f;

	PMIx_Load_procid(&wild, me->nspace, PMIX_RANK_WILDCARD);
	if (PMIx_Register_event_handler(&code, 1, NULL, 0, on_event, NULL, NULL) < 0 ||
	    PMIx_Fence(&wild, 1, NULL, 0) != PMIX_SUCCESS)
		return 3;
	if (me->rank == 0 && (f = fopen(file, "w"))) {
		fprintf(f, "%s\n", me->nspace);
		fclose(f);
	}
	wait_for(&got, want, 15000);
	if (PMIx_Fence(&wild, 1, NULL, 0) != PMIX_SUCCESS)
		return 3;
	usleep(300000);
	ok = got == want && !bad_payload && !bad_source && !bad_node &&
	     (!want || (got_from[0] && !PMIx_Check_nspace(got_from, me->nspace)));
	printf("RANK %u GOT %d FROM %s\n%s\n", me->rank, got, got_from[0] ? got_from : "-",
	       ok ? "OK" : "WRONG");
	return 0;
}

/* The cases other than one event with a range: late, sparse, affected
 * (no argument); burst N, order N; listen[c] FILE, tell[c] FILE. */
static bool is_mode(int argc, const char *mode)
{
	return !strcmp(mode, "late") || !strcmp(mode, "sparse") || !strcmp(mode, "affected") ||
	       !strcmp(mode, "degrade") ||
	       (argc > 2 &&
		(!strcmp(mode, "burst") || !strcmp(mode, "order") || !strcmp(mode, "listen") ||
		 !strcmp(mode, "tell") || !strcmp(mode, "listenc") || !strcmp(mode, "tellc") ||
		 !strcmp(mode, "overflow")));
}

static int run_mode(const pmix_proc_t *me, const char *mode, const char *arg)
{
	if (!strcmp(mode, "late"))
		return late(me);
	if (!strcmp(mode, "sparse"))
		return sparse(me);
	if (!strcmp(mode, "affected"))
		return affected(me);
	if (!strcmp(mode, "degrade"))
		return degrade(me);
	if (!strcmp(mode, "burst"))
		return burst(me, (uint32_t)strtoul(arg, NULL, 10));
	if (!strcmp(mode, "overflow"))
		return overflow(me, (uint32_t)strtoul(arg, NULL, 10));
	if (!strcmp(mode, "order"))
		return order(me, (uint32_t)strtoul(arg, NULL, 10));
	if (!strncmp(mode, "listen", 6))
		return listen_other(me, mode[6] == 'c', arg);
	return tell(me, mode[4] == 'c', arg);
}

int main(int argc, char **argv)
{
	pmix_status_t code = CODE, st;
	pmix_data_range_t range = range_of(argc > 1 ? argv[1] : "");
	pmix_proc_t me, wild, last;
	pmix_info_t info[2];
	pmix_data_array_t da;
	pmix_value_t *v = NULL;
	uint32_t size = 0;
	int want;

	if (argc > 1 && is_mode(argc, argv[1])) {
		int rc;

		if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
			return 2;
		self = me;
		rc = run_mode(&me, argv[1], argc > 2 ? argv[2] : "");
		fflush(stdout);
		PMIx_Finalize(NULL, 0);
		return rc;
	}
	if (range == PMIX_RANGE_UNDEF || PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
		return 2;
	self = me;
	PMIx_Load_procid(&wild, me.nspace, PMIX_RANK_WILDCARD);
	if (PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v) != PMIX_SUCCESS || !v)
		return 2;
	size = v->type == PMIX_UINT32 ? v->data.uint32 : 0;
	PMIx_Value_free(v, 1);
	if (!size)
		return 2;
	PMIx_Load_procid(&last, me.nspace, size - 1);
	if (load_src_host(&me) < 0)
		return 2;
	st = PMIx_Register_event_handler(&code, 1, NULL, 0, on_event, NULL, NULL);
	if (st < 0) {
		printf("REGISTER_FAILED %s\n", PMIx_Error_string(st));
		return 1;
	}
	if (PMIx_Fence(&wild, 1, NULL, 0) != PMIX_SUCCESS)
		return 3;
	if (me.rank == 0) {
		PMIx_Info_load(&info[0], PAYLOAD_KEY, PAYLOAD, PMIX_STRING);
		da.type = PMIX_PROC;
		da.size = 1;
		da.array = &last;
		PMIx_Info_load(&info[1], PMIX_EVENT_CUSTOM_RANGE, &da, PMIX_DATA_ARRAY);
		st = PMIx_Notify_event(CODE, &me, range, info, range == PMIX_RANGE_CUSTOM ? 2 : 1,
				       on_notified, NULL);
		if (st != PMIX_SUCCESS)
			printf("NOTIFY_FAILED %s\n", PMIx_Error_string(st));
		wait_for(&notified, 1, 10000);
		printf("NOTIFIED %s\n", notified ? PMIx_Error_string(notify_status) : "never");
	}
	if (PMIx_Fence(&wild, 1, NULL, 0) != PMIX_SUCCESS)
		return 3;
	want = range != PMIX_RANGE_CUSTOM || me.rank == last.rank;
	wait_for(&got, want, 10000);
	if (PMIx_Fence(&wild, 1, NULL, 0) != PMIX_SUCCESS)
		return 3;
	usleep(300000);
	printf("RANK %u GOT %d\n", me.rank, got);
	if (got == want && !bad_payload && !bad_source && !bad_node)
		printf("OK\n");
	else
		printf("WRONG rank %u: %d events (want %d), %d without the payload, %d from "
		       "another source, %d without the source node\n",
		       me.rank, got, want, bad_payload, bad_source, bad_node);
	fflush(stdout);
	PMIx_Finalize(NULL, 0);
	return 0;
}
