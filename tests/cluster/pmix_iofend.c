/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmix_iofend.c - a task's end of stream comes before its termination
 * event (docs/iof.md, "Capture in the step daemon"). Two ranks on one
 * node. Rank 0 registers for PMIX_ERR_PROC_TERM_WO_SYNC and pulls rank
 * 1's stdout; after a fence, rank 1 writes 100 lines, leaves a child that
 * keeps its stdout (and no other descriptor) open for 300 ms and then
 * writes one more line, and
 * exits 3 without finalizing. Rank 0 prints
 *   "ORDER first=complete|event lines=N late=L"
 * (which of the two came first, the lines and late lines it got) once it
 * has both, or "ORDER timeout ..." after 20 s.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pmix.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static int lines, late, got_complete, got_event;
static const char *first;

static void on_iof(size_t id, pmix_iof_channel_t ch, pmix_proc_t *src, pmix_byte_object_t *bo,
		   pmix_info_t info[], size_t ninfo)
{
	(void)id, (void)ch, (void)src;
	pthread_mutex_lock(&m);
	for (size_t i = 0; i < bo->size; i++)
		lines += bo->bytes[i] == '\n';
	if (bo->size && memmem(bo->bytes, bo->size, "late", 4))
		late++;
	for (size_t i = 0; i < ninfo; i++)
		if (PMIx_Check_key(info[i].key, PMIX_IOF_COMPLETE) && !got_complete++ && !first)
			first = "complete";
	pthread_mutex_unlock(&m);
}

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
		     size_t ninfo, pmix_info_t *results, size_t nresults,
		     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	(void)id, (void)status, (void)info, (void)ninfo, (void)results, (void)nresults;
	pthread_mutex_lock(&m);
	if (source->rank == 1 && !got_event++ && !first)
		first = "event";
	pthread_mutex_unlock(&m);
	if (cbfunc)
		cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

int main(void)
{
	pmix_proc_t me, one;
	pmix_status_t code = PMIX_ERR_PROC_TERM_WO_SYNC;
	int done = 0;

	if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
		return 1;
	PMIX_LOAD_PROCID(&one, me.nspace, 1);
	if (me.rank == 0) {
		if (PMIx_Register_event_handler(&code, 1, NULL, 0, on_event, NULL, NULL) < 0 ||
		    PMIx_IOF_pull(&one, 1, NULL, 0, PMIX_FWD_STDOUT_CHANNEL, on_iof, NULL, NULL) <
			    0) {
			fprintf(stderr, "registration failed\n");
			return 1;
		}
	}
	if (PMIx_Fence(NULL, 0, NULL, 0) != PMIX_SUCCESS)
		return 1;
	if (me.rank == 1) {
		for (int i = 0; i < 100; i++)
			printf("line %d\n", i);
		fflush(stdout);
		if (fork() == 0) { /* stdout only: rank 1's connection goes now */
			for (int fd = 3; fd < 1024; fd++)
				close(fd);
			usleep(300000);
			printf("late line\n");
			fflush(stdout);
			_exit(0);
		}
		_exit(3);
	}
	if (me.rank == 0) {
		for (int i = 0; i < 2000 && !done; i++) {
			usleep(10000);
			pthread_mutex_lock(&m);
			done = got_complete && got_event;
			pthread_mutex_unlock(&m);
		}
		pthread_mutex_lock(&m);
		printf("ORDER %s%s lines=%d late=%d\n",
		       done ? "first=" : "timeout first=", first ? first : "none", lines, late);
		pthread_mutex_unlock(&m);
		fflush(stdout);
	}
	PMIx_Finalize(NULL, 0);
	return 0;
}
