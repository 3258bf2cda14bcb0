/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * push.c - PMIx_IOF_push: data into other processes' stdin (docs/iof.md,
 * "Pushing stdin").
 *
 * A push is an IOF_PUSH (proto.h) whose reply comes once the server's
 * host took the bytes (written into the targets' stdin, or refused them):
 * the blocking form (no callback) returns that status, the other reports
 * it to its callback in the progress thread, never inside the call. The
 * bytes are copied into the request, so the caller may release bo when
 * the call returns. PMIX_IOF_COMPLETE (or no bytes with it) closes the
 * targets' stdin after what went before.
 *
 * PMIX_IOF_PUSH_STDIN (bo NULL): a thread of this library reads this
 * process's own stdin and pushes it to the targets, at most PUSH_WINDOW
 * requests on their way at a time (so a target that reads slowly slows
 * the reading, and nothing piles up), then pushes PMIX_IOF_COMPLETE at
 * the end of the input. A push that fails ends the forwarding (logged).
 * One forwarder per process: a second is PMIX_ERR_RESOURCE_BUSY until the
 * first ended. PMIx_IOF_push(NULL, 0, NULL, {PMIX_IOF_COMPLETE}) stops
 * it, as finalize does.
 */
#include <errno.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/client.h"
#include "client/conn.h"
#include "client/push.h"
#include "client/request.h"
#include "info.h"
#include "pack.h"
#include "progress.h"
#include "proto.h"
#include "pxc.h"

#define PUSH_CHUNK 65536
#define PUSH_WINDOW 4
#define PUSH_POLL_MS 100

static struct {
	pthread_mutex_t m;
	pthread_cond_t c;
	pthread_t thr;
	bool running, stop, done; /* done: the thread ended by itself */
	bool joining;             /* a stop waits for the thread */
	bool ended;               /* the targets got their end */
	unsigned gen;             /* which forwarder a late callback belongs to */
	unsigned inflight;
	pmix_status_t failed;
	pmix_proc_t *targets;
	size_t ntargets;
	pmix_info_t *dirs; /* the caller's, without PMIX_IOF_PUSH_STDIN */
	size_t ndirs;
	uint64_t bytes;
} fw = { .m = PTHREAD_MUTEX_INITIALIZER, .c = PTHREAD_COND_INITIALIZER };

/* A request's bound: its PMIX_TIMEOUT, else the library's default. */
static int wait_ms(const pmix_info_t *info, size_t ninfo)
{
	int ms = pxc_request_timeout_ms(info, ninfo);

	return ms > 0 ? ms : pxc_default_timeout() * 1000;
}

/* The request: PROC[] targets, BYTE_OBJECT data, INFO[] directives (with
 * PMIX_IOF_COMPLETE added when complete and not there). */
static pmix_status_t pack_push(pmix_data_buffer_t *b, const pmix_proc_t *targets, size_t n,
			       const void *data, size_t len, const pmix_info_t *dirs, size_t ndirs,
			       bool complete)
{
	pmix_byte_object_t bo = { .bytes = (char *)data, .size = len };
	pmix_info_t *all = NULL;
	size_t nall = ndirs;
	bool yes = true;
	pmix_status_t st;

	if (complete && !pxc_info_flag(dirs, ndirs, PMIX_IOF_COMPLETE)) {
		if (!(all = calloc(ndirs + 1, sizeof(*all))))
			return PMIX_ERR_NOMEM;
		for (size_t i = 0; i < ndirs; i++)
			all[i] = dirs[i]; /* (shallow: only packed) */
		PMIx_Info_load(&all[nall++], PMIX_IOF_COMPLETE, &yes, PMIX_BOOL);
	}
	pxc_buf_init(b);
	st = pxc_pack_array(b, targets, n, PMIX_PROC);
	if (st == PMIX_SUCCESS)
		st = pxc_pack(b, &bo, 1, PMIX_BYTE_OBJECT);
	if (st == PMIX_SUCCESS)
		st = pxc_pack_array(b, all ? all : dirs, nall, PMIX_INFO);
	if (all)
		PMIx_Info_destruct(&all[ndirs]);
	free(all);
	if (st != PMIX_SUCCESS)
		pxc_buf_clear(b);
	return st;
}

/* ---- the stdin forwarder ------------------------------------------------ */

static void fw_answered(pmix_status_t st, void *cbdata)
{
	pthread_mutex_lock(&fw.m);
	if ((unsigned)(uintptr_t)cbdata == fw.gen) {
		fw.inflight--;
		if (st != PMIX_SUCCESS && fw.failed == PMIX_SUCCESS)
			fw.failed = st;
		pthread_cond_broadcast(&fw.c);
	}
	pthread_mutex_unlock(&fw.m);
}

/* Waits (lock held) until fewer than `most` pushes are on their way, or
 * the forwarder stops or failed. True to go on. */
static bool fw_wait(unsigned most)
{
	while (fw.inflight >= most && !fw.stop && fw.failed == PMIX_SUCCESS) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += PUSH_POLL_MS * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&fw.c, &fw.m, &ts);
	}
	return !fw.stop && fw.failed == PMIX_SUCCESS;
}

static pmix_status_t fw_send(const char *buf, size_t n, bool eof)
{
	pmix_data_buffer_t b;
	pmix_status_t st = pack_push(&b, fw.targets, fw.ntargets, buf, n, fw.dirs, fw.ndirs, eof);

	if (st != PMIX_SUCCESS)
		return st;
	pthread_mutex_lock(&fw.m);
	fw.inflight++;
	pthread_mutex_unlock(&fw.m);
	st = pxc_request_op_nb(PXC_CMD_IOF_PUSH, &b, wait_ms(fw.dirs, fw.ndirs), false, fw_answered,
			       (void *)(uintptr_t)fw.gen);
	if (st != PMIX_SUCCESS) {
		pthread_mutex_lock(&fw.m);
		fw.inflight--;
		pthread_mutex_unlock(&fw.m);
	}
	return st;
}

/* One read of fd 0 once it is readable: > 0 bytes, 0 at its end (or an
 * error, which ends the input too), -1 nothing yet. A pipe or socket is
 * read only for what it holds, so that a read never blocks (another
 * thread of the process may read it too), and the stop is seen. */
static ssize_t fw_read(char *buf)
{
	struct pollfd pf = { .fd = 0, .events = POLLIN };
	int r = poll(&pf, 1, PUSH_POLL_MS), avail = 0;
	size_t want = PUSH_CHUNK;
	struct stat st;
	ssize_t n;

	if (r == 0 || (r < 0 && errno == EINTR))
		return -1;
	if (r > 0 && fstat(0, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) &&
	    ioctl(0, FIONREAD, &avail) == 0) {
		if (avail <= 0 && !(pf.revents & (POLLHUP | POLLERR)))
			return -1; /* (taken by someone else meanwhile) */
		if (avail > 0 && (size_t)avail < want)
			want = (size_t)avail;
	}
	n = read(0, buf, want);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return -1;
	if (n < 0)
		pxc_error("client: reading stdin to push it: %s: its end is pushed",
			  strerror(errno));
	return n > 0 ? n : 0;
}

/* The forwarding ends early (failed with st, or stopped): the targets'
 * stdin ends after what they got, so that a reader is not left waiting,
 * unless they refused it or the server is gone. Fire and forget. */
static void fw_end(pmix_status_t st)
{
	pmix_data_buffer_t b;

	if (fw.ended || st == PMIX_ERR_IOF_COMPLETE || st == PMIX_ERR_NOT_SUPPORTED ||
	    pxc_client_ready() != PMIX_SUCCESS)
		return;
	fw.ended = true;
	if (pack_push(&b, fw.targets, fw.ntargets, NULL, 0, fw.dirs, fw.ndirs, true) ==
	    PMIX_SUCCESS)
		(void)pxc_request_op_nb(PXC_CMD_IOF_PUSH, &b, wait_ms(fw.dirs, fw.ndirs), false,
					NULL, NULL);
}

static void *fw_run(void *arg)
{
	char *buf = malloc(PUSH_CHUNK);
	pmix_status_t st = buf ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
	bool go = true;

	(void)arg;
	while (go && st == PMIX_SUCCESS) {
		ssize_t n;

		pthread_mutex_lock(&fw.m);
		go = fw_wait(PUSH_WINDOW);
		pthread_mutex_unlock(&fw.m);
		if (!go || (n = fw_read(buf)) < 0)
			continue;
		st = fw_send(buf, (size_t)n, n == 0);
		fw.bytes += (uint64_t)n;
		fw.ended = fw.ended || (st == PMIX_SUCCESS && n == 0);
		go = n > 0;
	}
	pthread_mutex_lock(&fw.m);
	fw_wait(1); /* the last answers (or the stop) */
	if (st == PMIX_SUCCESS)
		st = fw.failed;
	fw.done = true;
	pthread_mutex_unlock(&fw.m);
	if (st != PMIX_SUCCESS && !fw.stop)
		pxc_error("client: pushing stdin to %s: %s after %llu bytes: no more is read",
			  fw.targets[0].nspace, PMIx_Error_string(st),
			  (unsigned long long)fw.bytes);
	if (st != PMIX_SUCCESS)
		fw_end(st);
	free(buf);
	return NULL;
}

static void fw_clear(void)
{
	free(fw.targets);
	pxc_array_free(fw.dirs, fw.ndirs, PMIX_INFO);
	fw.targets = NULL;
	fw.dirs = NULL;
	fw.ntargets = fw.ndirs = 0;
}

void pxc_push_stop(void)
{
	pthread_mutex_lock(&fw.m);
	if (!fw.running || fw.joining) { /* (another stop joins it) */
		pthread_mutex_unlock(&fw.m);
		return;
	}
	fw.stop = fw.joining = true;
	pthread_cond_broadcast(&fw.c);
	pthread_mutex_unlock(&fw.m);
	pthread_join(fw.thr, NULL); /* (it checks the stop every PUSH_POLL_MS) */
	fw_end(PMIX_SUCCESS);
	pthread_mutex_lock(&fw.m);
	fw.joining = false;
	fw.running = false;
	fw.gen++; /* answers still on their way are ignored */
	fw_clear();
	pthread_mutex_unlock(&fw.m);
}

/* Starts the forwarder of this process's stdin to targets. */
static pmix_status_t fw_start(const pmix_proc_t *targets, size_t n, const pmix_info_t *dirs,
			      size_t ndirs)
{
	pmix_status_t st = PMIX_SUCCESS;

	pthread_mutex_lock(&fw.m);
	if (fw.running && fw.done && !fw.joining) { /* ended by itself: can go again */
		pthread_mutex_unlock(&fw.m);
		pxc_push_stop();
		pthread_mutex_lock(&fw.m);
	}
	if (fw.running) {
		pthread_mutex_unlock(&fw.m);
		return PMIX_ERR_RESOURCE_BUSY;
	}
	fw.gen++;
	fw.stop = fw.done = fw.ended = false;
	fw.inflight = 0;
	fw.failed = PMIX_SUCCESS;
	fw.bytes = 0;
	if (!(fw.targets = malloc(n * sizeof(*targets))) ||
	    !(fw.dirs = calloc(ndirs ? ndirs : 1, sizeof(*fw.dirs))))
		st = PMIX_ERR_NOMEM;
	else
		memcpy(fw.targets, targets, n * sizeof(*targets));
	fw.ntargets = n;
	for (size_t i = 0; st == PMIX_SUCCESS && i < ndirs; i++)
		if (!PMIx_Check_key(dirs[i].key, PMIX_IOF_PUSH_STDIN))
			PMIx_Info_xfer(&fw.dirs[fw.ndirs++], &dirs[i]);
	if (st == PMIX_SUCCESS && pthread_create(&fw.thr, NULL, fw_run, NULL) != 0)
		st = PMIX_ERR_OUT_OF_RESOURCE;
	if (st == PMIX_SUCCESS)
		fw.running = true;
	else
		fw_clear();
	pthread_mutex_unlock(&fw.m);
	return st;
}

/* ---- the call ----------------------------------------------------------- */

pmix_status_t PMIx_IOF_push(const pmix_proc_t targets[], size_t ntargets, pmix_byte_object_t *bo,
			    const pmix_info_t directives[], size_t ndirs, pmix_op_cbfunc_t cbfunc,
			    void *cbdata)
{
	bool complete = pxc_info_flag(directives, ndirs, PMIX_IOF_COMPLETE);
	bool from_stdin = pxc_info_flag(directives, ndirs, PMIX_IOF_PUSH_STDIN);
	pmix_data_buffer_t b;
	pmix_status_t st;

	if ((!directives && ndirs) || (bo && bo->size && !bo->bytes))
		return PMIX_ERR_BAD_PARAM;
	if ((st = pxc_request_ready()) != PMIX_SUCCESS)
		return st;
	if (!targets || !ntargets) {
		if (!complete || from_stdin)
			return PMIX_ERR_BAD_PARAM;
		pxc_push_stop(); /* the end of this process's stdin forwarding */
		return cbfunc ? pxc_request_op_later(PMIX_SUCCESS, cbfunc, cbdata) : PMIX_SUCCESS;
	}
	if (from_stdin) {
		if (bo && bo->size)
			return PMIX_ERR_BAD_PARAM; /* either the bytes or stdin */
		st = fw_start(targets, ntargets, directives, ndirs);
		if (st != PMIX_SUCCESS || !cbfunc)
			return st;
		return pxc_request_op_later(PMIX_SUCCESS, cbfunc, cbdata);
	}
	if ((!bo || !bo->size) && !complete)
		return PMIX_ERR_BAD_PARAM; /* nothing to push */
	if (!cbfunc && pxc_progress_in_thread(pxc_cl.pg))
		return PMIX_ERR_WOULD_BLOCK;
	st = pack_push(&b, targets, ntargets, bo ? bo->bytes : NULL, bo ? bo->size : 0, directives,
		       ndirs, complete);
	if (st != PMIX_SUCCESS)
		return st;
	if (cbfunc)
		return pxc_request_op_nb(PXC_CMD_IOF_PUSH, &b, wait_ms(directives, ndirs), false,
					 cbfunc, cbdata);
	st = pxc_client_call(PXC_CMD_IOF_PUSH, &b, wait_ms(directives, ndirs), NULL, NULL);
	pxc_buf_clear(&b);
	return st;
}
