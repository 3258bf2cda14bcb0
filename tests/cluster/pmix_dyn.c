/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmix_dyn.c - a PMIx client for the cluster tests of publish/lookup and
 * connect across steps. Rank 0 (or every rank with "all" first) runs the
 * commands of its argument list in order and prints one line each:
 *   pub KEY VALUE RANGE PERSIST   PMIx_Publish (RANGE: session|ns|dflt,
 *                                 PERSIST: first|proc|session|indef|dflt)
 *   look KEY WAIT RANGE           PMIx_Lookup; WAIT -1: no PMIX_WAIT, else
 *                                 PMIX_WAIT=true with PMIX_TIMEOUT=WAIT s
 *   unpub KEY                     PMIx_Unpublish of KEY
 *   sleep SEC
 *   xconn ME OTHER                connect with the step that publishes
 *                                 "xns.OTHER" (this one publishes
 *                                 "xns.ME"), every rank: Put/Commit a
 *                                 value, PMIx_Connect, Get the other job's
 *                                 size (PMIX_OPTIONAL) and its rank 0's
 *                                 value, PMIx_Fence across both,
 *                                 PMIx_Disconnect (use with "all")
 * Output: "<cmd> <key> <status name> [<value> <nspace>:<rank>]".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pmix.h>

static pmix_proc_t me;

static pmix_data_range_t range_of(const char *s)
{
	return !strcmp(s, "ns") ? PMIX_RANGE_NAMESPACE : PMIX_RANGE_SESSION;
}

static int do_pub(char **a)
{
	pmix_info_t info[3];
	size_t n = 1;
	pmix_persistence_t p = !strcmp(a[3], "first") ? PMIX_PERSIST_FIRST_READ :
			       !strcmp(a[3], "proc") ? PMIX_PERSIST_PROC :
			       !strcmp(a[3], "indef") ? PMIX_PERSIST_INDEF : PMIX_PERSIST_SESSION;
	pmix_data_range_t r = range_of(a[2]);
	pmix_status_t rc;

	PMIX_INFO_LOAD(&info[0], a[0], a[1], PMIX_STRING);
	if (strcmp(a[2], "dflt"))
		PMIX_INFO_LOAD(&info[n++], PMIX_RANGE, &r, PMIX_DATA_RANGE);
	if (strcmp(a[3], "dflt"))
		PMIX_INFO_LOAD(&info[n++], PMIX_PERSISTENCE, &p, PMIX_PERSIST);
	rc = PMIx_Publish(info, n);
	printf("pub %s %s\n", a[0], PMIx_Error_string(rc));
	return 4;
}

static int do_look(char **a)
{
	pmix_pdata_t pd;
	pmix_info_t info[3];
	size_t n = 0;
	int wait = atoi(a[1]);
	bool yes = true;
	pmix_data_range_t r = range_of(a[2]);
	pmix_status_t rc;

	PMIX_PDATA_CONSTRUCT(&pd);
	PMIX_LOAD_KEY(pd.key, a[0]);
	if (wait >= 0) {
		PMIX_INFO_LOAD(&info[n++], PMIX_WAIT, &yes, PMIX_BOOL);
		PMIX_INFO_LOAD(&info[n++], PMIX_TIMEOUT, &wait, PMIX_INT);
	}
	if (strcmp(a[2], "dflt"))
		PMIX_INFO_LOAD(&info[n++], PMIX_RANGE, &r, PMIX_DATA_RANGE);
	rc = PMIx_Lookup(&pd, 1, n ? info : NULL, n);
	if (rc == PMIX_SUCCESS && pd.value.type == PMIX_STRING)
		printf("look %s %s %s %s:%u\n", a[0], PMIx_Error_string(rc),
		       pd.value.data.string, pd.proc.nspace, pd.proc.rank);
	else
		printf("look %s %s\n", a[0], PMIx_Error_string(rc));
	return 3;
}

static int do_unpub(char **a)
{
	char *keys[2] = { a[0], NULL };
	pmix_status_t rc = PMIx_Unpublish(keys, NULL, 0);

	printf("unpub %s %s\n", a[0], PMIx_Error_string(rc));
	return 1;
}

static void show(const char *what, pmix_status_t rc)
{
	printf("%s %u %s\n", what, me.rank, PMIx_Error_string(rc));
	fflush(stdout);
}

static int do_xconn(char **a)
{
	pmix_proc_t procs[2], p0;
	pmix_info_t info[2], opt;
	pmix_pdata_t pd;
	pmix_value_t val, *v = NULL;
	char key[64], mine[PMIX_MAX_NSLEN + 32];
	bool yes = true;
	int wait = 30;
	pmix_status_t rc;

	snprintf(mine, sizeof(mine), "%s:%u", me.nspace, me.rank);
	PMIX_VALUE_LOAD(&val, mine, PMIX_STRING);
	PMIx_Put(PMIX_GLOBAL, "dyn.val", &val);
	PMIx_Commit();
	snprintf(key, sizeof(key), "xns.%s", a[0]);
	if (me.rank == 0) {
		PMIX_INFO_LOAD(&info[0], key, me.nspace, PMIX_STRING);
		show("xpub", PMIx_Publish(info, 1));
	}
	PMIX_PDATA_CONSTRUCT(&pd);
	snprintf(pd.key, sizeof(pd.key), "xns.%s", a[1]);
	PMIX_INFO_LOAD(&info[0], PMIX_WAIT, &yes, PMIX_BOOL);
	PMIX_INFO_LOAD(&info[1], PMIX_TIMEOUT, &wait, PMIX_INT);
	if ((rc = PMIx_Lookup(&pd, 1, info, 2)) != PMIX_SUCCESS)
		return show("xlook", rc), 2;
	PMIx_Load_procid(&procs[0], me.nspace, PMIX_RANK_WILDCARD);
	PMIx_Load_procid(&procs[1], pd.value.data.string, PMIX_RANK_WILDCARD);
	show("connect", PMIx_Connect(procs, 2, NULL, 0));
	PMIX_INFO_LOAD(&opt, PMIX_OPTIONAL, &yes, PMIX_BOOL);
	rc = PMIx_Get(&procs[1], PMIX_JOB_SIZE, &opt, 1, &v);
	printf("size %u %s %u\n", me.rank, PMIx_Error_string(rc),
	       rc == PMIX_SUCCESS ? v->data.uint32 : 0);
	PMIx_Load_procid(&p0, procs[1].nspace, 0);
	rc = PMIx_Get(&p0, "dyn.val", NULL, 0, &v);
	printf("val %u %s %s\n", me.rank, PMIx_Error_string(rc),
	       rc == PMIX_SUCCESS ? v->data.string : "-");
	show("fence", PMIx_Fence(procs, 2, NULL, 0));
	show("disconnect", PMIx_Disconnect(procs, 2, NULL, 0));
	return 2;
}

int main(int argc, char **argv)
{
	int i = 1, all = argc > 1 && !strcmp(argv[1], "all");
	pmix_status_t rc = PMIx_Init(&me, NULL, 0);

	if (rc != PMIX_SUCCESS) {
		printf("init %s\n", PMIx_Error_string(rc));
		return 1;
	}
	i += all;
	while ((all || me.rank == 0) && i < argc) {
		char *c = argv[i++];

		if (!strcmp(c, "pub") && i + 4 <= argc)
			i += do_pub(&argv[i]);
		else if (!strcmp(c, "look") && i + 3 <= argc)
			i += do_look(&argv[i]);
		else if (!strcmp(c, "unpub") && i + 1 <= argc)
			i += do_unpub(&argv[i]);
		else if (!strcmp(c, "xconn") && i + 2 <= argc)
			i += do_xconn(&argv[i]);
		else if (!strcmp(c, "sleep") && i + 1 <= argc)
			sleep((unsigned)atoi(argv[i++]));
		else
			return printf("bad command %s\n", c), 2;
		fflush(stdout);
	}
	PMIx_Finalize(NULL, 0);
	return 0;
}
