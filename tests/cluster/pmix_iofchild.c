/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmix_iofchild.c - a parent pulls its spawned children's output
 * (docs/iof.md, "Between nodes": another step's streams). Rank 0 spawns N
 * children, each "./iof_gen lines L" and then 2 s of sleep (no PMIx
 * clients: PMIX_NON_PMI), then pulls their stdout with PMIx_IOF_pull
 * {child, WILDCARD}: what they wrote before (history) and the end of each
 * stream. It writes child rank R's bytes to PREFIX.R and prints
 * "CHILDIOF ok ranks=N ends=N" (or "CHILDIOF bad ..."); the test
 * compares the files with iof_gen's output.
 *
 *   pmix_iofchild N L PREFIX [quiet|stamp|file|pattern|dir|xml]
 *
 * quiet: the spawn says PMIX_FWD_STDOUT false: srun prints none of the
 * children's stdout (their stderr, a line "childerr" each, still), and
 * the pull still gets all of it. stamp: PMIX_TIMESTAMP_OUTPUT and
 * PMIX_MERGE_STDERR_STDOUT (srun's stdout gets both, each line stamped;
 * the pull's stdout has the "childerr" lines too). file:
 * PMIX_OUTPUT_TO_FILE PREFIX-f (files PREFIX-f.<nspace>.<rank>.stdout
 * and .stderr). pattern: PMIX_OUTPUT_TO_FILE PREFIX-p.%n.%r with
 * PMIX_IOF_FILE_PATTERN (one file per rank, both channels). dir:
 * PMIX_OUTPUT_TO_DIRECTORY PREFIX-d, relative (files
 * PREFIX-d/<nspace>/rank.<R>/stdout and stderr). xml: PMIX_IOF_XML_OUTPUT
 * (srun's output gets one element per line).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pmix.h>

#define MAXR 16

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *files[MAXR];
static int ends, bad;
static char child[PMIX_MAX_NSLEN + 1];

static void on_iof(size_t id, pmix_iof_channel_t channel, pmix_proc_t *source,
		   pmix_byte_object_t *payload, pmix_info_t info[], size_t ninfo)
{
	(void)id;
	pthread_mutex_lock(&lock);
	if (!PMIx_Check_nspace(source->nspace, child) || source->rank >= MAXR ||
	    !files[source->rank] || channel != PMIX_FWD_STDOUT_CHANNEL)
		bad++;
	else if (payload && payload->size)
		fwrite(payload->bytes, 1, payload->size, files[source->rank]);
	for (size_t i = 0; i < ninfo; i++)
		if (PMIx_Check_key(info[i].key, PMIX_IOF_COMPLETE) && PMIX_INFO_TRUE(&info[i]))
			ends++;
	pthread_mutex_unlock(&lock);
}

int main(int argc, char **argv)
{
	pmix_proc_t me, all;
	pmix_app_t app;
	pmix_info_t info[4];
	char file[4096];
	bool no = false;
	size_t ninfo = 1;
	char cmd[256], path[512];
	bool yes = true;
	int n, id, done = 0;

	if ((argc != 4 && argc != 5) || (n = atoi(argv[1])) < 1 || n > MAXR)
		return 2;
	if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
		return 1;
	if (me.rank != 0) {
		PMIx_Finalize(NULL, 0);
		return 0;
	}
	PMIx_App_construct(&app);
	app.cmd = strdup("/bin/sh");
	snprintf(cmd, sizeof(cmd), "./iof_gen lines %s && echo childerr >&2 && sleep 2", argv[2]);
	PMIx_Argv_append_nosize(&app.argv, "/bin/sh");
	PMIx_Argv_append_nosize(&app.argv, "-c");
	PMIx_Argv_append_nosize(&app.argv, cmd);
	app.maxprocs = n;
	app.cwd = getcwd(NULL, 0);
	PMIx_Info_load(&info[0], "pmix.nonpmi", &yes, PMIX_BOOL);
	if (argc == 5 && !strcmp(argv[4], "quiet"))
		PMIx_Info_load(&info[ninfo++], PMIX_FWD_STDOUT, &no, PMIX_BOOL);
	if (argc == 5 && !strcmp(argv[4], "stamp")) {
		PMIx_Info_load(&info[ninfo++], PMIX_IOF_TIMESTAMP_OUTPUT, &yes, PMIX_BOOL);
		PMIx_Info_load(&info[ninfo++], PMIX_IOF_MERGE_STDERR_STDOUT, &yes, PMIX_BOOL);
	}
	if (argc == 5 && !strcmp(argv[4], "file")) {
		snprintf(file, sizeof(file), "%s/%s-f", app.cwd, argv[3]);
		PMIx_Info_load(&info[ninfo++], PMIX_IOF_OUTPUT_TO_FILE, file, PMIX_STRING);
	}
	if (argc == 5 && !strcmp(argv[4], "pattern")) {
		snprintf(file, sizeof(file), "%s/%s-p.%%n.%%r", app.cwd, argv[3]);
		PMIx_Info_load(&info[ninfo++], PMIX_IOF_OUTPUT_TO_FILE, file, PMIX_STRING);
		PMIx_Info_load(&info[ninfo++], PMIX_IOF_FILE_PATTERN, &yes, PMIX_BOOL);
	}
	if (argc == 5 && !strcmp(argv[4], "dir")) {
		snprintf(file, sizeof(file), "%s-d", argv[3]);
		PMIx_Info_load(&info[ninfo++], PMIX_IOF_OUTPUT_TO_DIRECTORY, file, PMIX_STRING);
	}
	if (argc == 5 && !strcmp(argv[4], "xml"))
		PMIx_Info_load(&info[ninfo++], PMIX_IOF_XML_OUTPUT, &yes, PMIX_BOOL);
	if (PMIx_Spawn(info, ninfo, &app, 1, child) != PMIX_SUCCESS) {
		printf("CHILDIOF bad spawn\n");
		PMIx_Finalize(NULL, 0);
		return 1;
	}
	for (int r = 0; r < n; r++) {
		snprintf(path, sizeof(path), "%s.%d", argv[3], r);
		files[r] = fopen(path, "w");
	}
	PMIx_Load_procid(&all, child, PMIX_RANK_WILDCARD);
	id = PMIx_IOF_pull(&all, 1, NULL, 0, PMIX_FWD_STDOUT_CHANNEL, on_iof, NULL, NULL);
	if (id < 0) {
		printf("CHILDIOF bad pull %s\n", PMIx_Error_string(id));
		PMIx_Finalize(NULL, 0);
		return 1;
	}
	for (int i = 0; i < 300 && !done; i++) { /* 30 s at most */
		usleep(100000);
		pthread_mutex_lock(&lock);
		done = ends >= n;
		pthread_mutex_unlock(&lock);
	}
	pthread_mutex_lock(&lock);
	for (int r = 0; r < n; r++)
		if (files[r])
			fclose(files[r]);
	printf("CHILDIOF %s ranks=%d ends=%d stray=%d\n", ends == n && !bad ? "ok" : "bad", n, ends,
	       bad);
	pthread_mutex_unlock(&lock);
	fflush(stdout);
	PMIx_IOF_deregister((size_t)id, NULL, 0, NULL, NULL);
	PMIx_Finalize(NULL, 0);
	return ends == n && !bad ? 0 : 1;
}
