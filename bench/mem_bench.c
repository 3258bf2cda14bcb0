/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mem_bench.c - how much memory a PMIx server keeps per registered
 * process, per connected client and per posted key.
 *
 * One binary, built against the standard (OpenPMIx 4.2) headers and
 * linked with plain -lpmix: run with LD_LIBRARY_PATH pointing at our
 * libpmix.so.2 it measures our server, without it Debian's OpenPMIx. It is
 * a minimal PMIx host (PMIx_server_init with a fence_nb upcall only) and
 * counts the heap the server library holds with glibc's mallinfo2()
 * (uordblks + hblkhd: bytes in use in every arena plus mmapped chunks).
 * That is exact to the byte and free of page rounding, unlike RSS, and it
 * counts all of the server's state, not only its key-value store; what it
 * cannot see is memory a library maps itself (shared-memory segments),
 * which is why the RSS delta is printed as well.
 *
 * Steps (every figure is a difference of two readings):
 *   1. register namespaces of 1 and of NREG processes (job info, a
 *      PMIX_PROC_DATA array per process as a Slurm host gives, and
 *      PMIx_server_register_client for each): the marginal cost per
 *      registered process is (delta(NREG) - delta(1)) / (NREG - 1);
 *   2. register a namespace of NCLI processes, fork/exec them as clients
 *      (this program with --client): they PMIx_Init, say "ready" on a pipe
 *      and wait for "go" on another; the host then reads the heap: the
 *      cost per connected client is that delta / NCLI;
 *   3. each client Puts NKEYS keys of BYTES bytes, commits, fences (so the
 *      server has surely processed the commit), says "ready" and waits;
 *      the delta / (NCLI * NKEYS) is the cost per posted key (value
 *      included; the line after gives it without the value).
 * The heap is read while every client is idle, so the library's progress
 * thread is idle too and the readings are stable. Pipes rather than held
 * fences mark the phases because OpenPMIx completes a fence of local
 * processes without asking the host. The host's fence_nb upcall (ours asks
 * the host) is parked and answered by the main thread, which polls.
 *
 * Output: "mem <name> <bytes>" lines, and "info lib ...".
 * Usage: mem_bench [-r NREG] [-c NCLI] [-k NKEYS] [-s BYTES]
 *        (defaults 256, 8, 100, 8). Every wait times out (30 s).
 */
#include <errno.h>
#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <pmix.h>
#include <pmix_server.h>

#define WAIT_S 30

/* The one fence the library handed us and has not been answered yet. */
static struct {
	pthread_mutex_t lock;
	int arrived;
	pmix_modex_cbfunc_t cbfunc;
	void *cbdata;
	char *data;
	size_t ndata;
} fence_slot = { PTHREAD_MUTEX_INITIALIZER, 0, NULL, NULL, NULL, 0 };

static long heap_bytes(void)
{
	struct mallinfo2 mi = mallinfo2();

	return (long)(mi.uordblks + mi.hblkhd);
}

static long rss_bytes(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb * 1024;
}

/* ---------------------------------------------------------------- host */

static void free_data(void *cbdata)
{
	free(cbdata);
}

/* fence_nb upcall (library's thread): park it for the main thread. */
static pmix_status_t host_fence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
				size_t ninfo, char *data, size_t ndata, pmix_modex_cbfunc_t cbfunc,
				void *cbdata)
{
	char *copy = malloc(ndata ? ndata : 1);

	(void)procs, (void)nprocs, (void)info, (void)ninfo;
	if (!copy)
		return PMIX_ERR_NOMEM;
	if (ndata)
		memcpy(copy, data, ndata);
	pthread_mutex_lock(&fence_slot.lock);
	if (fence_slot.arrived) { /* one fence at a time here */
		pthread_mutex_unlock(&fence_slot.lock);
		free(copy);
		return PMIX_ERR_BAD_PARAM;
	}
	fence_slot.cbfunc = cbfunc;
	fence_slot.cbdata = cbdata;
	fence_slot.data = copy;
	fence_slot.ndata = ndata;
	fence_slot.arrived = 1;
	pthread_mutex_unlock(&fence_slot.lock);
	return PMIX_SUCCESS;
}

/* Answer a parked fence, if any (main thread). */
static void fence_release(void)
{
	pmix_modex_cbfunc_t cbfunc;

	pthread_mutex_lock(&fence_slot.lock);
	cbfunc = fence_slot.arrived ? fence_slot.cbfunc : NULL;
	fence_slot.arrived = 0;
	pthread_mutex_unlock(&fence_slot.lock);
	if (cbfunc)
		cbfunc(PMIX_SUCCESS, fence_slot.data, fence_slot.ndata, fence_slot.cbdata,
		       free_data, fence_slot.data);
}

/* Read n "ready" bytes from fd within WAIT_S seconds, answering parked
 * fences meanwhile; 0 on success. */
static int wait_ready(int fd, int n)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char buf[64];

	for (int waited = 0; n > 0 && waited < WAIT_S * 100; waited++) {
		fence_release();
		if (poll(&pfd, 1, 10) <= 0)
			continue;
		ssize_t got = read(fd, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf));
		if (got <= 0)
			return -1; /* every client gone */
		n -= (int)got;
	}
	return n == 0 ? 0 : -1;
}

/* Let n clients go on. */
static int send_go(int fd, int n)
{
	char c = 'g';

	for (int i = 0; i < n; i++)
		if (write(fd, &c, 1) != 1)
			return -1;
	return 0;
}

static void op_done(pmix_status_t status, void *cbdata)
{
	(void)status;
	*(volatile int *)cbdata = 1;
}

/* ---------------------------------------------------------------- nspace */

static void info_u32(pmix_info_t *in, const char *key, uint32_t v)
{
	PMIX_INFO_LOAD(in, key, &v, PMIX_UINT32);
}

/* The PMIX_PROC_DATA array of one process. */
static void proc_data(pmix_info_t *in, uint32_t rank, const char *host)
{
	pmix_data_array_t da;
	pmix_info_t *p;
	uint16_t lr = (uint16_t)rank;

	PMIX_INFO_CREATE(p, 6);
	PMIX_INFO_LOAD(&p[0], PMIX_RANK, &rank, PMIX_PROC_RANK);
	PMIX_INFO_LOAD(&p[1], PMIX_LOCAL_RANK, &lr, PMIX_UINT16);
	PMIX_INFO_LOAD(&p[2], PMIX_NODE_RANK, &lr, PMIX_UINT16);
	PMIX_INFO_LOAD(&p[3], PMIX_GLOBAL_RANK, &rank, PMIX_PROC_RANK);
	info_u32(&p[4], PMIX_NODEID, 0);
	PMIX_INFO_LOAD(&p[5], PMIX_HOSTNAME, host, PMIX_STRING);
	da.type = PMIX_INFO;
	da.size = 6;
	da.array = p;
	PMIX_INFO_LOAD(in, PMIX_PROC_DATA, &da, PMIX_DATA_ARRAY);
	PMIX_INFO_FREE(p, 6);
}

/* Job-level infos + one PMIX_PROC_DATA per process; *n gets the count. */
static pmix_info_t *job_info(uint32_t np, size_t *n)
{
	char host[256] = "localhost", *peers = calloc(np, 11), *regex = NULL, *ppn = NULL;
	pmix_info_t *in;
	size_t k = 0;

	PMIX_INFO_CREATE(in, 9 + np);
	if (!peers || !in)
		return NULL;
	gethostname(host, sizeof(host) - 1);
	for (uint32_t r = 0; r < np; r++)
		sprintf(peers + strlen(peers), r ? ",%u" : "%u", r);
	info_u32(&in[k++], PMIX_JOB_SIZE, np);
	info_u32(&in[k++], PMIX_UNIV_SIZE, np);
	info_u32(&in[k++], PMIX_LOCAL_SIZE, np);
	info_u32(&in[k++], PMIX_NODE_SIZE, np);
	info_u32(&in[k++], PMIX_NUM_NODES, 1);
	PMIX_INFO_LOAD(&in[k++], PMIX_LOCAL_PEERS, peers, PMIX_STRING);
	PMIX_INFO_LOAD(&in[k++], PMIX_HOSTNAME, host, PMIX_STRING);
	if (PMIx_generate_regex(host, &regex) == PMIX_SUCCESS && regex)
		PMIX_INFO_LOAD(&in[k++], PMIX_NODE_MAP, regex, PMIX_STRING);
	if (PMIx_generate_ppn(peers, &ppn) == PMIX_SUCCESS && ppn)
		PMIX_INFO_LOAD(&in[k++], PMIX_PROC_MAP, ppn, PMIX_STRING);
	for (uint32_t r = 0; r < np; r++)
		proc_data(&in[k++], r, host);
	free(regex);
	free(ppn);
	free(peers);
	*n = k;
	return in;
}

/* Register namespace ns with np processes and each of them as a client. */
static int register_job(const char *ns, uint32_t np)
{
	volatile int done = 0;
	size_t n = 0;
	pmix_info_t *in = job_info(np, &n);
	pmix_proc_t p;

	pmix_status_t rc = in ? PMIx_server_register_nspace(ns, (int)np, in, n, op_done,
							    (void *)&done) :
				PMIX_ERR_NOMEM;

	if (rc == PMIX_OPERATION_SUCCEEDED) /* done at once, no callback */
		rc = PMIX_SUCCESS, done = 1;

	for (int i = 0; rc == PMIX_SUCCESS && !done && i < WAIT_S * 1000; i++)
		usleep(1000);
	if (in)
		PMIX_INFO_FREE(in, 9 + np);
	if (rc == PMIX_SUCCESS && !done)
		rc = PMIX_ERR_TIMEOUT;
	for (uint32_t r = 0; rc == PMIX_SUCCESS && r < np; r++) {
		PMIX_LOAD_PROCID(&p, ns, r);
		rc = PMIx_server_register_client(&p, getuid(), getgid(), NULL, NULL, NULL);
		rc = rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc;
	}
	if (rc != PMIX_SUCCESS)
		fprintf(stderr, "mem_bench: registering %s: %s\n", ns, PMIx_Error_string(rc));
	return rc == PMIX_SUCCESS ? 0 : -1;
}

/* ---------------------------------------------------------------- client */

/* Tell the host we are ready, then wait for its go; 0 on success. */
static int ready_then_wait(int rfd, int gfd)
{
	char c = 'r';

	return write(rfd, &c, 1) == 1 && read(gfd, &c, 1) == 1 ? 0 : -1;
}

static int client_main(int nkeys, int bytes, int rfd, int gfd)
{
	pmix_proc_t me;
	pmix_value_t v = { .type = PMIX_BYTE_OBJECT };
	char key[PMIX_MAX_KEYLEN + 1], *buf = calloc(1, bytes);
	int ok = buf && PMIx_Init(&me, NULL, 0) == PMIX_SUCCESS;

	ok = ok && ready_then_wait(rfd, gfd) == 0;
	v.data.bo.bytes = buf;
	v.data.bo.size = bytes;
	for (int k = 0; ok && k < nkeys; k++) {
		snprintf(key, sizeof(key), "mem.%d", k);
		ok = PMIx_Put(PMIX_GLOBAL, key, &v) == PMIX_SUCCESS;
	}
	ok = ok && PMIx_Commit() == PMIX_SUCCESS && PMIx_Fence(NULL, 0, NULL, 0) == PMIX_SUCCESS;
	ok = ok && ready_then_wait(rfd, gfd) == 0;
	PMIx_Finalize(NULL, 0);
	free(buf);
	return ok ? 0 : 1;
}

/* A malloc'd copy of environ (PMIx_server_setup_fork may grow it). */
static char **env_dup(void)
{
	size_t n = 0;
	char **env;

	while (environ[n])
		n++;
	if (!(env = calloc(n + 1, sizeof(*env))))
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (!(env[i] = strdup(environ[i])))
			return env; /* shorter, still NULL-terminated */
	return env;
}

static void env_free(char **env)
{
	for (size_t i = 0; env && env[i]; i++)
		free(env[i]);
	free(env);
}

/* Fork/exec np clients of namespace ns; their pids into pids[]. */
static int start_clients(const char *self, const char *ns, int np, int nkeys, int bytes,
			 const int fds[2], pid_t *pids)
{
	char k[16], s[16], rfd[16], gfd[16];
	pmix_proc_t p;

	snprintf(k, sizeof(k), "%d", nkeys);
	snprintf(s, sizeof(s), "%d", bytes);
	snprintf(rfd, sizeof(rfd), "%d", fds[0]);
	snprintf(gfd, sizeof(gfd), "%d", fds[1]);
	for (int r = 0; r < np; r++) {
		char **env = env_dup();
		PMIX_LOAD_PROCID(&p, ns, r);
		if (!env || PMIx_server_setup_fork(&p, &env) != PMIX_SUCCESS) {
			env_free(env);
			return -1;
		}
		if ((pids[r] = fork()) == 0) {
			execle(self, self, "--client", k, s, rfd, gfd, (char *)NULL, env);
			_exit(127);
		}
		env_free(env);
		if (pids[r] < 0)
			return -1;
	}
	return 0;
}

/* ---------------------------------------------------------------- main */

struct readings {
	long h, r;
};

static struct readings read_now(void)
{
	return (struct readings){ heap_bytes(), rss_bytes() };
}

static void print_delta(const char *name, struct readings a, struct readings b, double div)
{
	printf("mem %s %.0f (rss %.0f)\n", name, (b.h - a.h) / div, (b.r - a.r) / div);
}

/* Steps 2 and 3 with the clients' pipes; 0 on success. */
static int live_steps(const char *self, int ncli, int nkeys, int bytes, int rp[2], int gp[2],
		      pid_t *pids)
{
	struct readings r0, r1, r2, r3;
	int child_fds[2] = { rp[1], gp[0] };

	r0 = read_now();
	if (register_job("mem.live", ncli) < 0)
		return -1;
	r1 = read_now();
	if (start_clients(self, "mem.live", ncli, nkeys, bytes, child_fds, pids) < 0 ||
	    wait_ready(rp[0], ncli) < 0)
		return -1;
	r2 = read_now();
	if (send_go(gp[1], ncli) < 0 || wait_ready(rp[0], ncli) < 0)
		return -1;
	r3 = read_now();
	if (send_go(gp[1], ncli) < 0)
		return -1;
	print_delta("registered_ns_of_ncli", r0, r1, 1);
	print_delta("per_connected_client", r1, r2, ncli);
	print_delta("per_posted_key", r2, r3, (double)ncli * nkeys);
	printf("mem per_posted_key_without_value %.0f\n",
	       (r3.h - r2.h) / ((double)ncli * nkeys) - bytes);
	return 0;
}

/* Wait (bounded) for a client to exit, or kill it; 0 if it exited 0. */
static int reap(pid_t pid, int kill_it)
{
	int st;

	for (int i = 0; pid > 0 && !kill_it && i < WAIT_S * 100; i++) {
		pid_t w = waitpid(pid, &st, WNOHANG);
		if (w == pid)
			return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
		if (w < 0)
			return -1;
		usleep(10000);
	}
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
	return -1;
}

/* Steps 2 and 3; reaps the clients (killed if a step failed). */
static int live_clients(const char *self, int ncli, int nkeys, int bytes)
{
	pid_t *pids = calloc(ncli, sizeof(*pids));
	int rp[2] = { -1, -1 }, gp[2] = { -1, -1 }, rc = -1;

	if (pids && pipe(rp) == 0 && pipe(gp) == 0)
		rc = live_steps(self, ncli, nkeys, bytes, rp, gp, pids);
	if (rc < 0)
		fprintf(stderr, "mem_bench: the clients did not get through their steps\n");
	for (int i = 0; pids && i < ncli; i++)
		if (reap(pids[i], rc < 0) < 0)
			rc = -1;
	for (int i = 0; i < 2; i++)
		close(rp[i]), close(gp[i]);
	free(pids);
	return rc;
}

static int server_main(const char *self, int nreg, int ncli, int nkeys, int bytes)
{
	pmix_server_module_t mod = { .fence_nb = host_fence };
	char dir[] = "/tmp/mem_bench.XXXXXX";
	pmix_info_t in[2];
	struct readings a, b, c;

	if (!mkdtemp(dir))
		return 1;
	PMIX_INFO_LOAD(&in[0], PMIX_SERVER_TMPDIR, dir, PMIX_STRING);
	PMIX_INFO_LOAD(&in[1], PMIX_SYSTEM_TMPDIR, dir, PMIX_STRING);
	pmix_status_t rc = PMIx_server_init(&mod, in, 2);

	PMIX_INFO_DESTRUCT(&in[0]);
	PMIX_INFO_DESTRUCT(&in[1]);
	if (rc != PMIX_SUCCESS) {
		fprintf(stderr, "mem_bench: PMIx_server_init failed\n");
		return 1;
	}
	a = read_now();
	int ok = register_job("mem.reg1", 1) == 0;
	b = read_now();
	ok = ok && register_job("mem.regn", nreg) == 0;
	c = read_now();
	if (ok) {
		printf("mem ns_of_1 %ld (rss %ld)\n", b.h - a.h, b.r - a.r);
		printf("mem ns_of_%d %ld (rss %ld)\n", nreg, c.h - b.h, c.r - b.r);
		printf("mem per_registered_process %.0f (rss %.0f)\n",
		       ((c.h - b.h) - (b.h - a.h)) / (double)(nreg - 1),
		       ((c.r - b.r) - (b.r - a.r)) / (double)(nreg - 1));
	}
	ok = ok && live_clients(self, ncli, nkeys, bytes) == 0;
	printf("info lib %s\n", PMIx_Get_version());
	if (!ok)
		fprintf(stderr, "mem_bench: a step failed\n");
	PMIx_server_finalize();
	rmdir(dir);
	return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	int nreg = 256, ncli = 8, nkeys = 100, bytes = 8, c;

	if (argc == 6 && !strcmp(argv[1], "--client"))
		return client_main(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), atoi(argv[5]));
	while ((c = getopt(argc, argv, "r:c:k:s:")) != -1) {
		switch (c) {
		case 'r': nreg = atoi(optarg); break;
		case 'c': ncli = atoi(optarg); break;
		case 'k': nkeys = atoi(optarg); break;
		case 's': bytes = atoi(optarg); break;
		default: return 2;
		}
	}
	if (nreg < 2 || nreg > 100000 || ncli < 1 || ncli > 1024 || nkeys < 1 || nkeys > 100000 ||
	    bytes < 1 || bytes > (1 << 20))
		return 2;
	signal(SIGPIPE, SIG_IGN);
	return server_main("/proc/self/exe", nreg, ncli, nkeys, bytes);
}
