/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmix_log.c - PMIx_Log from tasks, for the management suite
 * (run_mgmt_tests.sh, docs/log.md).
 *
 *   pmix_log MODE [ARG...]
 *     stderr MSG [tag|ts|xml]   PMIX_LOG_STDERR (with that format)
 *     stdout MSG                PMIX_LOG_STDOUT
 *     agg KEY VAL MSG           PMIX_LOG_STDERR, PMIX_LOG_AGG + KEY + VAL,
 *                               with PMIx_Log_nb, as Open MPI 5 sends its
 *                               help messages
 *     syslog MSG, gsyslog MSG   PMIX_LOG_SYSLOG, PMIX_LOG_GLOBAL_SYSLOG
 *     jobrec MSG                PMIX_LOG_JOB_RECORD
 *     once MSG                  PMIX_LOG_EMAIL then PMIX_LOG_STDERR, ONCE
 *     email MSG                 PMIX_LOG_EMAIL alone
 *     bad                       PMIX_LOG_STDERR with an int value
 *
 * MSG may contain "%r" for the rank. Every rank logs; each prints
 * "rank R log STATUS" on stdout. Exits 1 when PMIx does not start.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pmix.h>

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int done;
	pmix_status_t st;
} nb = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, PMIX_SUCCESS };

static void logged(pmix_status_t st, void *cbdata)
{
	(void)cbdata;
	pthread_mutex_lock(&nb.lock);
	nb.st = st;
	nb.done = 1;
	pthread_cond_signal(&nb.cond);
	pthread_mutex_unlock(&nb.lock);
}

/* MSG with %r replaced by the rank. */
static char *expand(const char *msg, pmix_rank_t rank)
{
	char *out = malloc(strlen(msg) + 16), *o = out;

	for (const char *p = msg; out && *p; p++) {
		if (p[0] == '%' && p[1] == 'r') {
			o += sprintf(o, "%u", rank);
			p++;
		} else {
			*o++ = *p;
		}
	}
	if (out)
		*o = '\0';
	return out;
}

int main(int argc, char **argv)
{
	pmix_proc_t me;
	pmix_info_t data[2], dirs[3];
	size_t nd = 0, ndir = 0;
	pmix_status_t st;
	bool yes = true;
	char *msg = NULL;
	const char *mode = argc > 1 ? argv[1] : "";
	int bad = 5;

	if (argc < 2 || PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
		return 1;
	if (argc > 2)
		msg = expand(argv[strcmp(mode, "agg") ? 2 : (argc > 4 ? 4 : 2)], me.rank);
	if (!strcmp(mode, "stderr") || !strcmp(mode, "stdout")) {
		PMIX_INFO_LOAD(&data[nd++], mode[3] == 'o' ? PMIX_LOG_STDOUT : PMIX_LOG_STDERR, msg,
			       PMIX_STRING);
		if (argc > 3 && !strcmp(argv[3], "tag"))
			PMIX_INFO_LOAD(&dirs[ndir++], PMIX_LOG_TAG_OUTPUT, &yes, PMIX_BOOL);
		if (argc > 3 && !strcmp(argv[3], "ts"))
			PMIX_INFO_LOAD(&dirs[ndir++], PMIX_LOG_GENERATE_TIMESTAMP, &yes, PMIX_BOOL);
		if (argc > 3 && !strcmp(argv[3], "xml"))
			PMIX_INFO_LOAD(&dirs[ndir++], PMIX_LOG_XML_OUTPUT, &yes, PMIX_BOOL);
	} else if (!strcmp(mode, "agg") && argc > 4) {
		PMIX_INFO_LOAD(&data[nd++], PMIX_LOG_STDERR, msg, PMIX_STRING);
		PMIX_INFO_LOAD(&dirs[ndir++], PMIX_LOG_AGG, &yes, PMIX_BOOL);
		PMIX_INFO_LOAD(&dirs[ndir++], PMIX_LOG_KEY, argv[2], PMIX_STRING);
		PMIX_INFO_LOAD(&dirs[ndir++], PMIX_LOG_VAL, argv[3], PMIX_STRING);
	} else if (!strcmp(mode, "syslog") || !strcmp(mode, "gsyslog")) {
		PMIX_INFO_LOAD(&data[nd++],
			       mode[0] == 'g' ? PMIX_LOG_GLOBAL_SYSLOG : PMIX_LOG_SYSLOG, msg,
			       PMIX_STRING);
	} else if (!strcmp(mode, "jobrec")) {
		PMIX_INFO_LOAD(&data[nd++], PMIX_LOG_JOB_RECORD, msg, PMIX_STRING);
	} else if (!strcmp(mode, "once") || !strcmp(mode, "email")) {
		PMIX_INFO_LOAD(&data[nd++], PMIX_LOG_EMAIL, msg, PMIX_STRING);
		if (mode[0] == 'o') {
			PMIX_INFO_LOAD(&data[nd++], PMIX_LOG_STDERR, msg, PMIX_STRING);
			PMIX_INFO_LOAD(&dirs[ndir++], PMIX_LOG_ONCE, &yes, PMIX_BOOL);
		}
	} else if (!strcmp(mode, "bad")) {
		PMIX_INFO_LOAD(&data[nd++], PMIX_LOG_STDERR, &bad, PMIX_INT);
	} else {
		return 1;
	}
	if (!strcmp(mode, "agg")) {
		st = PMIx_Log_nb(data, nd, dirs, ndir, logged, NULL);
		if (st == PMIX_SUCCESS) {
			pthread_mutex_lock(&nb.lock);
			while (!nb.done)
				pthread_cond_wait(&nb.cond, &nb.lock);
			st = nb.st;
			pthread_mutex_unlock(&nb.lock);
		}
	} else {
		st = PMIx_Log(data, nd, ndir ? dirs : NULL, ndir);
	}
	printf("rank %u log %s\n", me.rank, PMIx_Error_string(st));
	fflush(stdout);
	for (size_t i = 0; i < nd; i++)
		PMIX_INFO_DESTRUCT(&data[i]);
	for (size_t i = 0; i < ndir; i++)
		PMIX_INFO_DESTRUCT(&dirs[i]);
	free(msg);
	PMIx_Finalize(NULL, 0);
	return 0;
}
