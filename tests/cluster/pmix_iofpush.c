/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmix_iofpush.c - a parent pushes into its spawned children's stdin
 * (docs/iof.md, "Pushing stdin"). Rank 0 spawns N children, each
 * "sha256sum >PREFIX.R" of its stdin (no PMIx clients: PMIX_NON_PMI),
 * and pushes BYTES of a pattern (PREFIX.want holds them) with
 * PMIx_IOF_push, 64 KiB at a time, the last piece non-blocking, then
 * PMIX_IOF_COMPLETE, which ends the children's input.
 *
 *   pmix_iofpush N BYTES PREFIX all   PMIX_FWD_STDIN, pushes to WILDCARD
 *   pmix_iofpush N BYTES PREFIX tgt   PMIX_STDIN_TGT 1, pushes to rank 1;
 *                                     a push to rank 0 (/dev/null) must
 *                                     fail with NOT_SUPPORTED
 *
 * Prints "CHILDPUSH ok" once the children's files are there (or
 * "CHILDPUSH bad ..."); the test compares them with PREFIX.want's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pmix.h>

static volatile int nb_done, nb_status = 1;

static void pushed(pmix_status_t st, void *cbdata)
{
	(void)cbdata;
	nb_status = st;
	nb_done = 1;
}

static int bad(const char *what, pmix_status_t st)
{
	printf("CHILDPUSH bad %s: %s\n", what, PMIx_Error_string(st));
	fflush(stdout);
	PMIx_Finalize(NULL, 0);
	return 1;
}

/* Pushes len bytes of the pattern to t (blocking, the last piece not),
 * writing them to want too. */
static pmix_status_t push_all(const pmix_proc_t *t, long len, FILE *want)
{
	static char buf[65536];
	pmix_byte_object_t bo = { .bytes = buf };
	pmix_status_t st = PMIX_SUCCESS;

	for (long off = 0; off < len && st == PMIX_SUCCESS; off += (long)bo.size) {
		bo.size = len - off < (long)sizeof(buf) ? (size_t)(len - off) : sizeof(buf);
		for (size_t i = 0; i < bo.size; i++)
			buf[i] = (char)((off + (long)i) * 7 % 251);
		fwrite(buf, 1, bo.size, want);
		if (off + (long)bo.size < len) {
			st = PMIx_IOF_push(t, 1, &bo, NULL, 0, NULL, NULL);
			continue;
		}
		st = PMIx_IOF_push(t, 1, &bo, NULL, 0, pushed, NULL);
		for (int k = 0; st == PMIX_SUCCESS && k < 3000 && !nb_done; k++)
			usleep(10000);
		if (st == PMIX_SUCCESS)
			st = nb_done ? nb_status : PMIX_ERR_TIMEOUT;
	}
	return st;
}

int main(int argc, char **argv)
{
	pmix_proc_t me, t, zero;
	pmix_app_t app;
	pmix_info_t info[2], end;
	pmix_byte_object_t bo = { .bytes = "x", .size = 1 };
	char child[PMIX_MAX_NSLEN + 1], path[512], cmd[600];
	bool yes = true, tgt;
	uint32_t one = 1;
	long len;
	int n, found = 0;
	pmix_status_t st;
	FILE *want;

	if (argc != 5 || (n = atoi(argv[1])) < 2 || n > 16 || (len = atol(argv[2])) < 0)
		return 2;
	tgt = !strcmp(argv[4], "tgt");
	if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
		return 1;
	if (me.rank != 0) {
		PMIx_Finalize(NULL, 0);
		return 0;
	}
	PMIx_App_construct(&app);
	app.cmd = strdup("/bin/sh");
	snprintf(cmd, sizeof(cmd),
		 "sha256sum >%s.$SLURM_PROCID.tmp && mv %s.$SLURM_PROCID.tmp %s.$SLURM_PROCID",
		 argv[3], argv[3], argv[3]);
	PMIx_Argv_append_nosize(&app.argv, "/bin/sh");
	PMIx_Argv_append_nosize(&app.argv, "-c");
	PMIx_Argv_append_nosize(&app.argv, cmd);
	app.maxprocs = n;
	app.cwd = getcwd(NULL, 0);
	PMIx_Info_load(&info[0], "pmix.nonpmi", &yes, PMIX_BOOL);
	if (tgt)
		PMIx_Info_load(&info[1], PMIX_STDIN_TGT, &one, PMIX_UINT32);
	else
		PMIx_Info_load(&info[1], PMIX_FWD_STDIN, &yes, PMIX_BOOL);
	if ((st = PMIx_Spawn(info, 2, &app, 1, child)) != PMIX_SUCCESS)
		return bad("spawn", st);
	snprintf(path, sizeof(path), "%s.want", argv[3]);
	if (!(want = fopen(path, "w")))
		return bad("want file", PMIX_ERR_FILE_OPEN_FAILURE);
	PMIx_Load_procid(&t, child, tgt ? 1 : PMIX_RANK_WILDCARD);
	st = push_all(&t, len, want);
	fclose(want);
	if (st != PMIX_SUCCESS)
		return bad("push", st);
	PMIx_Info_load(&end, PMIX_IOF_COMPLETE, &yes, PMIX_BOOL);
	if ((st = PMIx_IOF_push(&t, 1, NULL, &end, 1, NULL, NULL)) != PMIX_SUCCESS)
		return bad("end", st);
	if (tgt) { /* the others' stdin is /dev/null: refused at once */
		PMIx_Load_procid(&zero, child, 0);
		if ((st = PMIx_IOF_push(&zero, 1, &bo, NULL, 0, NULL, NULL)) !=
		    PMIX_ERR_NOT_SUPPORTED)
			return bad("push to rank 0 not refused", st);
	}
	for (int k = 0; k < 600 && found < (tgt ? 1 : n); k++) { /* 60 s at most */
		found = 0;
		for (int r = 0; r < n; r++) {
			snprintf(path, sizeof(path), "%s.%d", argv[3], r);
			found += access(path, F_OK) == 0;
		}
		usleep(100000);
	}
	printf("CHILDPUSH %s files=%d\n", found >= (tgt ? 1 : n) ? "ok" : "bad", found);
	fflush(stdout);
	PMIx_Finalize(NULL, 0);
	return 0;
}
