/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * slurmix-attach.c - `slurmix-attach JOBID.STEP` (or --pid, --uri): attach
 * to a running step as a PMIx tool and print its tasks' output, what they
 * wrote before (the history each step daemon keeps) and then live, until
 * the step ends (docs/slurmix-attach.md).
 *
 * How: PMIx_tool_init finds the step's server through its rendezvous
 * files (PMIX_SERVER_NSPACE slurmix.JOBID.STEP: srun's on srun's host,
 * the step daemon's on a node of the step; PMIX_SERVER_PIDINFO with
 * --pid; PMIX_SERVER_URI with --uri). An event handler notes how tasks
 * ended; PMIx_IOF_pull of the ranks asked for (stdout and stderr, with
 * PMIX_IOF_TAG_OUTPUT / PMIX_IOF_TIMESTAMP_OUTPUT on request) writes
 * every chunk to our own stdout/stderr from the library's thread. The
 * main thread waits until the server goes (the step ended), or
 * SIGINT/SIGTERM.
 *
 * Exit status: the step's, as srun returns it: node 0's
 * PMIX_EVENT_JOB_END carries it (the highest exit code of the step's
 * tasks, 128 + the signal of a killed one); without that event (attached
 * on another node, or the status is not known), the first failure the
 * step's events told (an abort's status, the code of a task that ended
 * without finalizing), else 0. 2: bad usage; 3: no step to attach to;
 * 4: --stdin was refused (the tasks' stdin takes no pushes, or ended);
 * 130/143: interrupted; 141: our stdout was closed.
 *
 * --stdin: a thread reads our stdin and pushes each piece to the ranks
 * named (PMIx_IOF_push, blocking: the next piece is read once the last
 * is in the tasks' stdin), then PMIX_IOF_COMPLETE at its end.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pmix_tool.h>

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0"
#endif

#define MAX_RANKS 1000000u

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static struct {
	bool gone;              /* the server went: the step ended */
	int status;             /* exit status so far */
	bool status_set, final; /* final: the step's end event gave it */
	bool unknown;           /* the end event said it does not know */
	bool quiet;
	char nspace[PMIX_MAX_NSLEN + 1]; /* the step's, once known */
	pmix_status_t push_failed;       /* --stdin refused */
} st;
static volatile sig_atomic_t got_sig;

static void usage(FILE *f)
{
	fprintf(f, "usage: slurmix-attach [options] JOBID.STEP\n"
		   "       slurmix-attach [options] --pid SRUN_PID | --uri URI\n"
		   "Prints the output of a running srun --mpi=slurmix step: what its tasks\n"
		   "wrote before (the history the step keeps) and then live, until it ends.\n"
		   "  -p, --pid PID      the step of the srun with this pid (on srun's host)\n"
		   "  -u, --uri URI      the server at URI (unix:PATH, or file:PATH holding it)\n"
		   "  -r, --ranks LIST   only these ranks, e.g. 0-3,7 (default: all)\n"
		   "  -o, --stdout-only  only stdout\n"
		   "  -e, --stderr-only  only stderr\n"
		   "  -t, --tag          prefix every line with [nspace,rank]<channel>:\n"
		   "  -T, --timestamp    prefix every line with the time it arrived\n"
		   "  -n, --no-history   only what the tasks write from now on\n"
		   "  -i, --stdin LIST   push our stdin into these ranks' stdin (all: every\n"
		   "                     rank), its end after it\n"
		   "  -w, --wait SEC     wait up to SEC seconds for the step to appear\n"
		   "  -q, --quiet        no messages of our own\n"
		   "  -h, --help         this text\n"
		   "Exit status: the step's, as far as its events tell (see the manual).\n");
}

static void note(const char *fmt, const char *a, const char *b)
{
	if (!st.quiet) {
		fprintf(stderr, "slurmix-attach: ");
		fprintf(stderr, fmt, a, b);
		fputc('\n', stderr);
	}
}

/* The step's end event decides; before it, the first failure. */
static void set_status(int s, bool final)
{
	pthread_mutex_lock(&lock);
	if (final && !st.final) {
		st.status = s;
		st.status_set = st.final = true;
	} else if (!st.status_set && s != 0) {
		st.status = s;
		st.status_set = true;
	}
	pthread_mutex_unlock(&lock);
}

/* An event about another job (a tool gets its server's namespaces'). */
static bool other_job(const pmix_proc_t *source, const pmix_info_t *info, size_t ninfo)
{
	const char *ns = source ? source->nspace : NULL;

	for (size_t i = 0; i < ninfo; i++)
		if (PMIx_Check_key(info[i].key, PMIX_EVENT_AFFECTED_PROC) &&
		    info[i].value.type == PMIX_PROC && info[i].value.data.proc)
			ns = info[i].value.data.proc->nspace;
	pthread_mutex_lock(&lock);
	bool other = st.nspace[0] && ns && !PMIx_Check_nspace(ns, st.nspace);
	pthread_mutex_unlock(&lock);
	return other;
}

static void wake(void)
{
	pthread_mutex_lock(&lock);
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
}

static int info_int(const pmix_info_t *info, size_t ninfo, const char *key, int *out)
{
	for (size_t i = 0; i < ninfo; i++)
		if (PMIx_Check_key(info[i].key, key)) {
			if (info[i].value.type == PMIX_INT)
				*out = info[i].value.data.integer;
			else if (info[i].value.type == PMIX_INT32)
				*out = info[i].value.data.int32;
			else if (info[i].value.type == PMIX_STATUS)
				*out = info[i].value.data.status;
			else
				return 0;
			return 1;
		}
	return 0;
}

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
		     size_t ninfo, pmix_info_t results[], size_t nresults,
		     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
	int code = 0;

	(void)id;
	(void)results;
	(void)nresults;
	if (status == PMIX_ERR_LOST_CONNECTION || status == PMIX_ERR_LOST_CONNECTION_TO_SERVER ||
	    status == PMIX_ERR_UNREACH) {
		pthread_mutex_lock(&lock);
		st.gone = true;
		pthread_cond_broadcast(&cond);
		pthread_mutex_unlock(&lock);
	} else if (other_job(source, info, ninfo)) {
		/* not ours */
	} else if (status == PMIX_EVENT_JOB_END) {
		if (info_int(info, ninfo, PMIX_EXIT_CODE, &code))
			set_status(code, true); /* the step's end: as srun returns it */
		else if (info_int(info, ninfo, PMIX_JOB_TERM_STATUS, &code) && code != PMIX_SUCCESS)
			set_status(1, false);
		else
			st.unknown = true;
	} else if (info_int(info, ninfo, PMIX_EXIT_CODE, &code)) {
		set_status(code, false);
	} else {
		set_status(1, false);
	}
	if (cbfunc)
		cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

static void on_iof(size_t id, pmix_iof_channel_t channel, pmix_proc_t *source,
		   pmix_byte_object_t *payload, pmix_info_t info[], size_t ninfo)
{
	FILE *f = channel & PMIX_FWD_STDERR_CHANNEL ? stderr : stdout;

	(void)id;
	(void)source;
	(void)info;
	(void)ninfo;
	if (payload && payload->size &&
	    (fwrite(payload->bytes, 1, payload->size, f) != payload->size || fflush(f) != 0) &&
	    f == stdout) {
		got_sig = SIGPIPE; /* nobody reads us any more: end, as `| head` wants */
		wake();
	}
}

/* "0-3,7" into procs of nspace; the count, or -1. */
static long parse_ranks(const char *list, const char *nspace, pmix_proc_t **out)
{
	size_t n = 0, cap = 0;
	pmix_proc_t *p = NULL;
	const char *s = list;

	while (*s) {
		char *end;
		unsigned long a = strtoul(s, &end, 10), b = a;

		if (end == s || a >= MAX_RANKS)
			goto bad;
		s = end;
		if (*s == '-') {
			b = strtoul(s + 1, &end, 10);
			if (end == s + 1 || b < a || b >= MAX_RANKS)
				goto bad;
			s = end;
		}
		if (*s == ',')
			s++;
		else if (*s)
			goto bad;
		for (unsigned long r = a; r <= b; r++) {
			if (n == cap) {
				pmix_proc_t *g;

				cap = cap ? 2 * cap : 16;
				if (n >= MAX_RANKS || !(g = realloc(p, cap * sizeof(*p))))
					goto bad;
				p = g;
			}
			PMIx_Load_procid(&p[n++], nspace, (pmix_rank_t)r);
		}
	}
	if (!n)
		goto bad;
	*out = p;
	return (long)n;
bad:
	free(p);
	return -1;
}

/* --stdin: the targets and the thread that pushes. */
static struct {
	pmix_proc_t *procs;
	size_t n;
	volatile sig_atomic_t stop; /* we are ending: push the end, stop */
} in;

/* The end of the targets' stdin, unless they refused it. */
static pmix_status_t push_end(pmix_status_t why)
{
	pmix_info_t done;
	bool yes = true;
	pmix_status_t rc;

	if (why == PMIX_ERR_IOF_COMPLETE || why == PMIX_ERR_NOT_SUPPORTED ||
	    !PMIx_tool_is_connected())
		return why;
	PMIx_Info_load(&done, PMIX_IOF_COMPLETE, &yes, PMIX_BOOL);
	rc = PMIx_IOF_push(in.procs, in.n, NULL, &done, 1, NULL, NULL);
	PMIx_Info_destruct(&done);
	return why != PMIX_SUCCESS ? why : rc;
}

/* Our stdin, piece by piece (each once the last is in the tasks'
 * stdin), then its end; also when we end early (in.stop, looked at
 * every 200 ms) or a push failed (a slow reader past the timeout): a
 * reader is never left waiting for more. */
static void *push_stdin(void *arg)
{
	static char buf[65536];
	struct pollfd pf = { .fd = 0, .events = POLLIN };
	pmix_status_t rc = PMIX_SUCCESS;

	(void)arg;
	while (!in.stop) {
		ssize_t n;
		pmix_byte_object_t bo = { .bytes = buf };

		if (poll(&pf, 1, 200) <= 0)
			continue;
		if ((n = read(0, buf, sizeof(buf))) < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			break;
		bo.size = (size_t)n;
		if ((rc = PMIx_IOF_push(in.procs, in.n, &bo, NULL, 0, NULL, NULL)) != PMIX_SUCCESS)
			break;
	}
	rc = push_end(rc);
	if (rc != PMIX_SUCCESS) {
		pthread_mutex_lock(&lock);
		st.push_failed = rc;
		pthread_cond_broadcast(&cond);
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

/* The --stdin targets of nspace from list ("all", or ranks). 0/-1. */
static int stdin_targets(const char *list, const char *nspace)
{
	long n;

	if (!strcmp(list, "all")) {
		if (!(in.procs = malloc(sizeof(*in.procs))))
			return -1;
		PMIx_Load_procid(in.procs, nspace, PMIX_RANK_WILDCARD);
		in.n = 1;
		return 0;
	}
	if ((n = parse_ranks(list, nspace, &in.procs)) < 0)
		return -1;
	in.n = (size_t)n;
	return 0;
}

static void on_signal(int sig)
{
	got_sig = sig; /* the main thread's timed wait sees it */
}

/* Job and step from "JOBID.STEP". */
static int parse_step(const char *s, char *nspace, size_t len)
{
	unsigned job, step;
	int end = 0;

	if (sscanf(s, "%u.%u%n", &job, &step, &end) != 2 || s[end])
		return -1;
	snprintf(nspace, len, "slurmix.%u.%u", job, step);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = { { "pid", required_argument, NULL, 'p' },
					      { "uri", required_argument, NULL, 'u' },
					      { "ranks", required_argument, NULL, 'r' },
					      { "stdout-only", no_argument, NULL, 'o' },
					      { "stderr-only", no_argument, NULL, 'e' },
					      { "tag", no_argument, NULL, 't' },
					      { "timestamp", no_argument, NULL, 'T' },
					      { "no-history", no_argument, NULL, 'n' },
					      { "stdin", required_argument, NULL, 'i' },
					      { "wait", required_argument, NULL, 'w' },
					      { "quiet", no_argument, NULL, 'q' },
					      { "help", no_argument, NULL, 'h' },
					      { "version", no_argument, NULL, 'V' },
					      { NULL, 0, NULL, 0 } };
	const char *pid = NULL, *uri = NULL, *ranks = NULL, *stdin_list = NULL;
	pthread_t pusher;
	bool pushing = false;
	char nspace[PMIX_MAX_NSLEN + 1] = "";
	pmix_iof_channel_t ch = PMIX_FWD_STDOUT_CHANNEL | PMIX_FWD_STDERR_CHANNEL;
	bool tag = false, stamp = false, nohist = false, t = true;
	long wait_s = 0, nprocs = 1;
	pmix_info_t init[3], dirs[3];
	size_t ninit = 0, ndirs = 0;
	pmix_proc_t me, *procs = NULL;
	pmix_status_t codes[] = { PMIX_ERR_LOST_CONNECTION,     PMIX_ERR_LOST_CONNECTION_TO_SERVER,
				  PMIX_EVENT_JOB_END,           PMIX_ERR_PROC_TERM_WO_SYNC,
				  PMIX_ERR_PROC_ABORTED_BY_SIG, PMIX_ERR_PROC_REQUESTED_ABORT,
				  PMIX_ERR_PROC_ABORTED };
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESETHAND };
	struct timespec until;
	int c, id, rc;

	while ((c = getopt_long(argc, argv, "p:u:r:oetTni:w:qhV", opts, NULL)) != -1) {
		switch (c) {
		case 'p': pid = optarg; break;
		case 'u': uri = optarg; break;
		case 'r': ranks = optarg; break;
		case 'o': ch = PMIX_FWD_STDOUT_CHANNEL; break;
		case 'e': ch = PMIX_FWD_STDERR_CHANNEL; break;
		case 't': tag = true; break;
		case 'T': stamp = true; break;
		case 'n': nohist = true; break;
		case 'i': stdin_list = optarg; break;
		case 'w': {
			char *end;

			wait_s = strtol(optarg, &end, 10);
			if (end == optarg || *end)
				wait_s = -1;
			break;
		}
		case 'q': st.quiet = true; break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("slurmix-attach %s\n", PACKAGE_VERSION); return 0;
		default: usage(stderr); return 2;
		}
	}
	if ((optind < argc && parse_step(argv[optind], nspace, sizeof(nspace)) < 0) ||
	    argc - optind > 1 || (!pid && !uri && optind == argc) || wait_s < 0 || wait_s > 86400) {
		usage(stderr);
		return 2;
	}
	if (pid) {
		char *end;
		long v = strtol(pid, &end, 10);

		if (end == pid || *end || v <= 0) {
			usage(stderr);
			return 2;
		}
		PMIx_Info_load(&init[ninit++], PMIX_SERVER_PIDINFO, &(pid_t){ (pid_t)v }, PMIX_PID);
	} else if (uri) {
		PMIx_Info_load(&init[ninit++], PMIX_SERVER_URI, uri, PMIX_STRING);
	} else {
		PMIx_Info_load(&init[ninit++], PMIX_SERVER_NSPACE, nspace, PMIX_STRING);
	}
	for (long waited = 0;; waited++) {
		rc = PMIx_tool_init(&me, init, ninit);
		if (rc == PMIX_SUCCESS || waited >= wait_s * 10)
			break;
		usleep(100000);
	}
	if (rc != PMIX_SUCCESS) {
		note("no step to attach to here (%s): %s",
		     pid ? pid :
		     uri ? uri :
			   argv[optind],
		     PMIx_Error_string(rc));
		return 3;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* before anything else: the server's end must reach us */
	rc = PMIx_Register_event_handler(codes, sizeof(codes) / sizeof(codes[0]), NULL, 0, on_event,
					 NULL, NULL);
	if (rc < 0)
		note("no events (%s%s): the exit status will be 0", PMIx_Error_string(rc), "");
	/* the step we are attached to: its namespace is the server's */
	if (!nspace[0]) {
		pmix_query_t q;
		pmix_info_t *res = NULL;
		size_t nres = 0;

		PMIx_Query_construct(&q);
		PMIx_Argv_append_nosize(&q.keys, PMIX_QUERY_NAMESPACES);
		if (PMIx_Query_info(&q, 1, &res, &nres) == PMIX_SUCCESS && nres &&
		    res[0].value.type == PMIX_STRING && res[0].value.data.string) {
			char *comma = strchr(res[0].value.data.string, ',');

			if (comma)
				*comma = '\0';
			snprintf(nspace, sizeof(nspace), "%s", res[0].value.data.string);
		}
		if (res)
			PMIx_Info_free(res, nres);
		PMIx_Query_destruct(&q);
	}
	if (!nspace[0]) {
		note("the server %s%s names no step", "", "");
		PMIx_tool_finalize();
		return 3;
	}
	pthread_mutex_lock(&lock);
	snprintf(st.nspace, sizeof(st.nspace), "%s", nspace);
	pthread_mutex_unlock(&lock);
	if (ranks) {
		nprocs = parse_ranks(ranks, nspace, &procs);
		if (nprocs < 0) {
			note("bad --ranks %s%s", ranks, "");
			PMIx_tool_finalize();
			return 2;
		}
	} else {
		procs = malloc(sizeof(*procs));
		if (!procs)
			return 1;
		PMIx_Load_procid(procs, nspace, PMIX_RANK_WILDCARD);
	}
	if (tag)
		PMIx_Info_load(&dirs[ndirs++], PMIX_IOF_TAG_OUTPUT, &t, PMIX_BOOL);
	if (stamp)
		PMIx_Info_load(&dirs[ndirs++], PMIX_IOF_TIMESTAMP_OUTPUT, &t, PMIX_BOOL);
	if (nohist)
		PMIx_Info_load(&dirs[ndirs++], PMIX_IOF_CACHE_SIZE, &(uint32_t){ 0 }, PMIX_UINT32);
	id = PMIx_IOF_pull(procs, (size_t)nprocs, dirs, ndirs, ch, on_iof, NULL, NULL);
	if (id < 0) {
		note("cannot pull the output of %s: %s", nspace, PMIx_Error_string(id));
		free(procs);
		PMIx_tool_finalize();
		return 3;
	}
	if (stdin_list) {
		if (stdin_targets(stdin_list, nspace) < 0) {
			note("bad --stdin %s%s", stdin_list, "");
			PMIx_tool_finalize();
			free(procs);
			return 2;
		}
		pushing = pthread_create(&pusher, NULL, push_stdin, NULL) == 0;
		if (!pushing)
			note("cannot push our stdin%s%s", "", "");
	}
	pthread_mutex_lock(&lock);
	/* the server's end, or ours; the connection is looked at too, in case
	 * its end could not be told (no event handler) */
	while (!st.gone && !got_sig && !st.push_failed && PMIx_tool_is_connected()) {
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 200 * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&cond, &lock, &until);
	}
	rc = got_sig ? 128 + got_sig : st.push_failed ? 4 : st.status;
	if (st.push_failed && !got_sig)
		note("--stdin refused: %s%s", PMIx_Error_string(st.push_failed),
		     st.push_failed == PMIX_ERR_NOT_SUPPORTED ?
			     " (that stdin is no pipe of srun's: /dev/null, a file or a terminal)" :
		     st.push_failed == PMIX_ERR_IOF_COMPLETE ?
			     " (that stdin has ended; SLURMIX_STDIN=push keeps it open)" :
			     "");
	if (!got_sig && st.unknown && !st.final)
		note("the step's exit status is not known here%s%s", "", "");
	pthread_mutex_unlock(&lock);
	if (rc && !(rc & 0xff))
		rc = 1; /* a status like 256 must not read as success */
	rc &= 0xff;
	wake();
	if (!st.gone)
		PMIx_IOF_deregister((size_t)id, NULL, 0, NULL, NULL);
	if (pushing) { /* it ends within 200 ms, or with its push */
		struct timespec j;

		in.stop = 1;
		clock_gettime(CLOCK_REALTIME, &j);
		j.tv_sec += 5;
		if (pthread_timedjoin_np(pusher, NULL, &j) != 0)
			note("our stdin's pusher did not end: left%s%s", "", "");
	}
	PMIx_tool_finalize();
	fflush(stdout);
	free(procs);
	return rc;
}
