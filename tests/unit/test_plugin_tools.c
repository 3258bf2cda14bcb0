/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_plugin_tools.c - srun's side of an attached tool (srun/tools.c)
 * alone: a fake agent (this file: the progress engine, node 0's endpoint,
 * the key, the job directory) and a fake node 0 step daemon (a thread on a
 * loopback port that checks TOOL_ATTACH, answers, then echoes). A tool is
 * a plain Unix socket client of the rendezvous file's socket.
 *   carried: the rendezvous files (mode 0600, the socket's URI), 4 MiB
 *     through and back byte-exact, the tool's bytes held back until the
 *     answer, TOOL_ATTACH's fields; stop removes files and socket;
 *   refused / closed / unreachable: the tool's connection ends at once;
 *   slow_tool_bounded: a tool that reads nothing holds srun to its bounds
 *     (the step side's reading stops), and later gets every byte;
 *   closing_rest_dropped: what srun holds for a tool when the step side
 *     closes goes within 5 s or is dropped.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <event2/event.h>

#include "runner.h"
#include "pxc_host.h"
#include "lib/jobdir.h"
#include "lib/proto.h"
#include "srun/agent.h"
#include "srun/tools.h"

#define KEY "0123456789abcdef0123456789abcdef"

/* ---- the fake agent ----------------------------------------------------- */

static plug_agent_table_f table_fn;
static plug_agent_stop_f stop_fn;
static uint16_t root_port;
static char jobdir[96];

int plug_agent_on_table(plug_agent_table_f fn)
{
	table_fn = fn;
	return 0;
}

int plug_agent_on_stop(plug_agent_stop_f fn)
{
	stop_fn = fn;
	return 0;
}

const char *plug_agent_root(uint16_t *port)
{
	*port = root_port;
	return root_port ? "127.0.0.1" : NULL;
}

const char *plug_agent_key(void)
{
	return KEY;
}

struct event_base *plug_agent_base(void)
{
	return pxc_progress_base(pxc_progress_global());
}

uint32_t plug_agent_job(void)
{
	return 7;
}

uint32_t plug_agent_step(void)
{
	return 3;
}

const char *plug_jobdir_path(void)
{
	return jobdir;
}

static void call_fn(void *arg)
{
	pxc_sync_t *s = arg;
	void (*fn)(void) = (void (*)(void))s->arg;

	fn();
	pxc_sync_signal(s, PMIX_SUCCESS);
}

static void in_thread(void (*fn)(void))
{
	ck_assert_int_eq(pxc_progress_call_arg(pxc_progress_global(), call_fn, (void *)fn, 5000),
			 PMIX_SUCCESS);
}

/* ---- the fake node 0 ---------------------------------------------------- */

enum { ECHO, REFUSE, CLOSE, HOLD, BURST };
static struct {
	int lfd, mode;
	pthread_t th;
	uint32_t step, uid, pid;
	int got_key;
	size_t early;   /* bytes that came before the answer */
	size_t written; /* HOLD: what it could write */
} node;

static int read_full(int fd, void *buf, size_t n)
{
	for (size_t got = 0; got < n;) {
		ssize_t r = read(fd, (char *)buf + got, n - got);

		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

static void *node_main(void *arg)
{
	unsigned char hdr[PXC_WIRE_HDR_LEN], buf[65536];
	pxc_wire_hdr_t h;
	int fd = accept(node.lfd, NULL, NULL);
	pmix_data_buffer_t p;
	char *key = NULL;
	struct pollfd pf;

	(void)arg;
	if (fd < 0)
		return NULL;
	if (read_full(fd, hdr, sizeof(hdr)) < 0 || pxc_wire_hdr_decode(hdr, 1 << 20, &h) < 0 ||
	    h.cmd != PLUG_NET_TOOL_ATTACH || h.len > sizeof(buf) || read_full(fd, buf, h.len) < 0) {
		close(fd);
		return NULL;
	}
	pxc_buf_init(&p);
	pxc_buf_append(&p, buf, h.len);
	node.got_key = pxc_unpack_str(&p, &key) == PMIX_SUCCESS && key && !strcmp(key, KEY);
	pxc_unpack_u32(&p, &node.step);
	pxc_unpack_u32(&p, &node.uid);
	pxc_unpack_u32(&p, &node.uid);
	pxc_unpack_u32(&p, &node.pid);
	free(key);
	pxc_buf_clear(&p);
	/* nothing of the tool may have come yet */
	pf = (struct pollfd){ .fd = fd, .events = POLLIN };
	usleep(100000);
	if (poll(&pf, 1, 0) == 1)
		node.early = (size_t)recv(fd, buf, sizeof(buf), MSG_DONTWAIT | MSG_PEEK);
	if (node.mode == CLOSE) {
		close(fd);
		return NULL;
	}
	if (write(fd, node.mode == REFUSE ? "\0" : "\1", 1) != 1 || node.mode == REFUSE) {
		close(fd);
		return NULL;
	}
	if (node.mode == BURST) { /* 800 KiB, then it closes */
		memset(buf, 'y', sizeof(buf));
		for (int i = 0; i < 800 / 64; i++)
			if (write(fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf))
				node.written += sizeof(buf);
		close(fd);
		return NULL;
	}
	if (node.mode == HOLD) { /* writes until srun stops taking, then closes */
		memset(buf, 'x', sizeof(buf));
		fcntl(fd, F_SETFL, O_NONBLOCK);
		for (int idle = 0; idle < 50;) {
			ssize_t w = write(fd, buf, sizeof(buf));

			if (w > 0)
				idle = 0, node.written += (size_t)w;
			else
				idle++, usleep(20000);
		}
		close(fd);
		return NULL;
	}
	for (ssize_t n; (n = read(fd, buf, sizeof(buf))) > 0;)
		if (write(fd, buf, (size_t)n) != n)
			break;
	close(fd);
	return NULL;
}

static void node_start(int mode)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);

	memset(&node, 0, sizeof(node));
	node.mode = mode;
	ck_assert_int_ge(node.lfd = socket(AF_INET, SOCK_STREAM, 0), 0);
	ck_assert_int_eq(bind(node.lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(node.lfd, 4), 0);
	ck_assert_int_eq(getsockname(node.lfd, (struct sockaddr *)&sa, &len), 0);
	root_port = ntohs(sa.sin_port);
	ck_assert_int_eq(pthread_create(&node.th, NULL, node_main, NULL), 0);
}

static void node_stop(void)
{
	shutdown(node.lfd, SHUT_RDWR);
	pthread_join(node.th, NULL);
	close(node.lfd);
}

/* ---- the tool ----------------------------------------------------------- */

static char tmpdir[64], rdv[256];

static void setup(void)
{
	char host[256] = "";

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/tooltest.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
	snprintf(jobdir, sizeof(jobdir), "%s/job", tmpdir);
	ck_assert_int_eq(mkdir(jobdir, 0700), 0);
	setenv("TMPDIR", tmpdir, 1);
	ck_assert_ptr_nonnull(pxc_progress_acquire()); /* the agent's engine */
	gethostname(host, sizeof(host) - 1);
	snprintf(rdv, sizeof(rdv), "%s/pmix.%s.tool.%d", tmpdir, host, (int)getpid());
	ck_assert_int_eq(plug_tools_srun_init(), 0);
	in_thread(table_fn); /* the endpoint table is in: listen */
}

static void teardown(void)
{
	in_thread(stop_fn);
	pxc_progress_release();
	rmdir(jobdir);
	rmdir(tmpdir);
}

static int tool_connect(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char line[200] = "";
	FILE *f = fopen(rdv, "r");
	struct stat sb;
	int fd;

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fstat(fileno(f), &sb), 0);
	ck_assert_int_eq(sb.st_mode & 0777, 0600);
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), f));
	fclose(f);
	ck_assert_int_eq(strncmp(line, "unix:", 5), 0);
	line[strcspn(line, "\n")] = '\0';
	strcpy(sa.sun_path, line + 5);
	ck_assert_int_ge(fd = socket(AF_UNIX, SOCK_STREAM, 0), 0);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

/* The tool's connection is closed within ms (no bytes come). */
static void closed_within(int fd, int ms)
{
	struct pollfd pf = { .fd = fd, .events = POLLIN };
	char c;

	ck_assert_int_eq(poll(&pf, 1, ms), 1);
	ck_assert_int_le(read(fd, &c, 1), 0);
}

START_TEST(carried)
{
	size_t n = 4u << 20, sent = 0, got = 0;
	unsigned char *out = malloc(n), *in = malloc(n);
	int fd;

	node_start(ECHO);
	setup();
	for (size_t i = 0; i < n; i++)
		out[i] = (unsigned char)(i * 7 + (i >> 13));
	fd = tool_connect();
	ck_assert_int_eq(write(fd, out, 1000), 1000); /* before the answer: held */
	sent = 1000;
	fcntl(fd, F_SETFL, O_NONBLOCK);
	while (got < n) {
		struct pollfd pf = { .fd = fd, .events = POLLIN | (sent < n ? POLLOUT : 0) };
		ssize_t r;

		ck_assert_int_eq(poll(&pf, 1, 10000), 1);
		if ((pf.revents & POLLOUT) && (r = write(fd, out + sent, n - sent)) > 0)
			sent += (size_t)r;
		if ((pf.revents & POLLIN) && (r = read(fd, in + got, n - got)) > 0)
			got += (size_t)r;
		ck_assert(!(pf.revents & (POLLHUP | POLLERR)) || got == n);
	}
	ck_assert_int_eq(memcmp(in, out, n), 0);
	ck_assert_int_eq(node.early, 0);
	ck_assert(node.got_key);
	ck_assert_uint_eq(node.step, 3);
	ck_assert_uint_eq(node.uid, getgid()); /* the second u32 is the gid */
	ck_assert_uint_eq(node.pid, (uint32_t)getpid());
	close(fd);
	plug_tools_drain(3000);
	node_stop();
	teardown();
	ck_assert_int_eq(access(rdv, F_OK), -1); /* gone with the stop */
	free(out);
	free(in);
}
END_TEST

START_TEST(refused_closed_unreachable)
{
	int fd;

	for (int mode = REFUSE; mode <= CLOSE; mode++) {
		node_start(mode);
		setup();
		fd = tool_connect();
		closed_within(fd, 2000);
		close(fd);
		node_stop();
		teardown();
	}
	root_port = 0; /* no table: nobody to reach */
	setup();
	fd = tool_connect();
	closed_within(fd, 2000);
	close(fd);
	teardown();
}
END_TEST

/* Reads what comes until the end (5 s at most); the byte count. */
static size_t read_to_end(int fd)
{
	char buf[65536];
	size_t got = 0;
	ssize_t r = 1;

	fcntl(fd, F_SETFL, O_NONBLOCK);
	for (int i = 0; i < 500 && r != 0; i++) {
		r = read(fd, buf, sizeof(buf));
		if (r > 0)
			got += (size_t)r;
		else if (r < 0)
			usleep(10000);
	}
	ck_assert_int_eq(r, 0); /* srun closed it */
	return got;
}

/* A tool that reads nothing: srun stops taking from the step side once
 * 1 MiB waits for the tool, so node 0 cannot write more than that and
 * the sockets' buffers; read later, every byte is there. */
START_TEST(slow_tool_bounded)
{
	int fd;

	node_start(HOLD);
	setup();
	fd = tool_connect();
	pthread_join(node.th, NULL); /* node 0 could not write any more: closed */
	close(node.lfd);
	ck_assert_msg(node.written < (16u << 20), "node 0 wrote %zu bytes", node.written);
	ck_assert_uint_eq(read_to_end(fd), node.written);
	close(fd);
	teardown();
}
END_TEST

/* The step side ends while the tool does not read: what srun still holds
 * for it goes within 5 s or not at all (without that rule the tool would
 * get all 800 KiB, however late). */
START_TEST(closing_rest_dropped)
{
	size_t got;
	int fd;

	node_start(BURST);
	setup();
	fd = tool_connect();
	pthread_join(node.th, NULL);
	close(node.lfd);
	sleep(6);
	got = read_to_end(fd);
	ck_assert_msg(got < node.written, "got %zu of %zu", got, node.written);
	close(fd);
	teardown();
}
END_TEST

int main(int argc, char **argv)
{
	const struct unit_test tests[] = {
		{ "carried", carried },
		{ "refused_closed_unreachable", refused_closed_unreachable },
		{ "slow_tool_bounded", slow_tool_bounded },
		{ "closing_rest_dropped", closing_rest_dropped },
	};

	return unit_main(argc, argv,
			 &(struct unit_spec){ .name = "plugin_tools",
					      .tests = tests,
					      .ntests = sizeof(tests) / sizeof(tests[0]),
					      .timeout = 30 });
}
