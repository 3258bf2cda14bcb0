/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmix_cred.c - PMIx_Get_credential / PMIx_Validate_credential from tasks,
 * for the management suite (run_mgmt_tests.sh, docs/credentials.md).
 *
 *   pmix_cred xfer            rank 0 gets a credential and hands it to the
 *                             others (Put, fence); each validates it and
 *                             prints "rank R validate STATUS uid=U gid=G"
 *                             (the _nb form on odd ranks)
 *   pmix_cred get FILE [TTL [TYPE]]
 *                             gets one (TTL: slurmix.cred.ttl seconds, 0
 *                             none; TYPE: PMIX_CRED_TYPE) into FILE; prints
 *                             "get STATUS [TYPE]"
 *   pmix_cred check FILE [tamper|TYPE]
 *                             validates FILE's bytes (tamper: one byte in
 *                             the middle changed; else TYPE as
 *                             PMIX_CRED_TYPE); prints "validate STATUS
 *                             [uid=U gid=G]"
 *
 * Exits 1 when PMIx does not start or an argument is wrong.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pmix.h>

static pmix_proc_t me;

static void print_result(const char *what, pmix_status_t st, const pmix_info_t *info, size_t n)
{
	printf("rank %u %s %s", me.rank, what, PMIx_Error_string(st));
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(info[i].key, PMIX_USERID) && info[i].value.type == PMIX_UINT32)
			printf(" uid=%u", info[i].value.data.uint32);
		else if (!strcmp(info[i].key, PMIX_GRPID) && info[i].value.type == PMIX_UINT32)
			printf(" gid=%u", info[i].value.data.uint32);
		else if (!strcmp(info[i].key, PMIX_CRED_TYPE) && info[i].value.type == PMIX_STRING)
			printf(" type=%s", info[i].value.data.string);
	}
	printf("\n");
	fflush(stdout);
}

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int done;
} nb = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0 };

static void validated(pmix_status_t st, pmix_info_t *info, size_t n, void *cbdata)
{
	(void)cbdata;
	print_result("validate", st, info, n);
	pthread_mutex_lock(&nb.lock);
	nb.done = 1;
	pthread_cond_signal(&nb.cond);
	pthread_mutex_unlock(&nb.lock);
}

static void validate(const pmix_byte_object_t *cred, const char *type, int use_nb)
{
	pmix_info_t *res = NULL, dir;
	size_t nres = 0, ndir = 0;
	pmix_status_t st;

	if (type) {
		PMIX_INFO_LOAD(&dir, PMIX_CRED_TYPE, type, PMIX_STRING);
		ndir = 1;
	}
	if (use_nb) {
		st = PMIx_Validate_credential_nb(cred, ndir ? &dir : NULL, ndir, validated, NULL);
		if (st != PMIX_SUCCESS) {
			print_result("validate", st, NULL, 0);
		} else {
			pthread_mutex_lock(&nb.lock);
			while (!nb.done)
				pthread_cond_wait(&nb.cond, &nb.lock);
			pthread_mutex_unlock(&nb.lock);
		}
	} else {
		st = PMIx_Validate_credential(cred, ndir ? &dir : NULL, ndir, &res, &nres);
		print_result("validate", st, res, nres);
		if (res)
			PMIX_INFO_FREE(res, nres);
	}
	if (ndir)
		PMIX_INFO_DESTRUCT(&dir);
}

static pmix_status_t get(pmix_byte_object_t *cred, int ttl, const char *type)
{
	pmix_info_t dirs[2];
	size_t nd = 0;
	pmix_status_t st;

	if (ttl > 0) {
		PMIX_INFO_LOAD(&dirs[nd], "slurmix.cred.ttl", &ttl, PMIX_INT);
		nd++;
	}
	if (type) {
		PMIX_INFO_LOAD(&dirs[nd], PMIX_CRED_TYPE, type, PMIX_STRING);
		nd++;
	}
	PMIX_BYTE_OBJECT_CONSTRUCT(cred);
	st = PMIx_Get_credential(nd ? dirs : NULL, nd, cred);
	for (size_t i = 0; i < nd; i++)
		PMIX_INFO_DESTRUCT(&dirs[i]);
	return st;
}

static int xfer(void)
{
	pmix_proc_t all, zero;
	pmix_value_t v, *got = NULL;
	pmix_byte_object_t cred;
	pmix_info_t collect;
	bool yes = true;
	pmix_status_t st = PMIX_SUCCESS;

	PMIX_LOAD_PROCID(&all, me.nspace, PMIX_RANK_WILDCARD);
	PMIX_LOAD_PROCID(&zero, me.nspace, 0);
	if (me.rank == 0) {
		st = get(&cred, 0, NULL);
		printf("rank 0 get %s\n", PMIx_Error_string(st));
		if (st == PMIX_SUCCESS) {
			v.type = PMIX_BYTE_OBJECT;
			v.data.bo = cred;
			PMIx_Put(PMIX_GLOBAL, "test.cred", &v);
			PMIx_Commit();
			free(cred.bytes);
		}
	}
	PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
	PMIx_Fence(&all, 1, &collect, 1);
	if (me.rank != 0 && PMIx_Get(&zero, "test.cred", NULL, 0, &got) == PMIX_SUCCESS && got &&
	    got->type == PMIX_BYTE_OBJECT) {
		validate(&got->data.bo, NULL, me.rank % 2);
		PMIX_VALUE_RELEASE(got);
	} else if (me.rank != 0) {
		printf("rank %u no credential from rank 0\n", me.rank);
	}
	PMIx_Fence(&all, 1, NULL, 0);
	return 0;
}

static int to_file(const char *path, int ttl, const char *type)
{
	pmix_byte_object_t cred;
	pmix_status_t st = get(&cred, ttl, type);
	FILE *f;

	printf("rank %u get %s\n", me.rank, PMIx_Error_string(st));
	if (st != PMIX_SUCCESS)
		return 0;
	if (!(f = fopen(path, "w")) || fwrite(cred.bytes, 1, cred.size, f) != cred.size) {
		perror(path);
		return 1;
	}
	fclose(f);
	free(cred.bytes);
	return 0;
}

static int from_file(const char *path, const char *how)
{
	static char buf[65536];
	pmix_byte_object_t cred;
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f) {
		perror(path);
		return 1;
	}
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	if (how && !strcmp(how, "tamper") && n > 2)
		buf[n / 2] = buf[n / 2] == 'A' ? 'B' : 'A';
	cred.bytes = buf;
	cred.size = n;
	validate(&cred, how && strcmp(how, "tamper") ? how : NULL, 0);
	return 0;
}

int main(int argc, char **argv)
{
	int rc = 1;

	if (argc < 2 || PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
		return 1;
	if (!strcmp(argv[1], "xfer"))
		rc = xfer();
	else if (!strcmp(argv[1], "get") && argc >= 3)
		rc = to_file(argv[2], argc > 3 ? atoi(argv[3]) : 0, argc > 4 ? argv[4] : NULL);
	else if (!strcmp(argv[1], "check") && argc >= 3)
		rc = from_file(argv[2], argc > 3 ? argv[3] : NULL);
	PMIx_Finalize(NULL, 0);
	return rc;
}
