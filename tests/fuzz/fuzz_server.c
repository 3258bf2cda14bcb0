/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_server.c - the PMIx server (src/pmix_core/server) on hostile
 * frames from a client it accepted: the real server runs in this process
 * (its own progress thread), as in the server unit suites, with a host
 * whose upcalls answer at once (fences succeed without data, the rest is
 * not supported), so every command's decoding and the server's own work
 * run, not the host's.
 *
 * Each input gets a namespace of its own (two local clients, registered
 * before and deregistered after, so nothing of one input reaches the
 * next). An input is: u8 rank (its low bit: the connection says HELLO as
 * client 0 or 1), u8 n and n bytes: the namespace's name (recorded
 * traffic names its own, tests/fuzz/record.c; it gets ".<count>" so that
 * no name comes back, as under a real host; n = 0 or a name that is not
 * printable: "fuzz.<count>"), then frames: u8 command (any value;
 * past the last command: unknown ones), u8 flags, u32 tag, u16 length,
 * then that many payload bytes (fewer when the input ends). A last GET of the job
 * size must be answered, or the connection closed by the server, within
 * 15 s: a server that stops answering a client is a finding (abort), like
 * a crash, a leak or undefined behaviour.
 *
 * Confinement: a client may register files and directories for the
 * server to remove (PMIx_Job_control's PMIX_REGISTER_CLEANUP*), and the
 * fuzzer will name any path; this process runs as root in CI. So the
 * target is linked with --wrap for unlink, unlinkat, rmdir and remove
 * (tests/fuzz/run.sh): a removal goes through only inside this target's
 * own directory, and not of the server's socket or directory before the
 * server finalizes; anything else fails with EPERM, after the server's
 * checks ran (those are what is fuzzed). An early version without it
 * emptied /tmp of root's files in a few minutes.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <pmix.h>
#include <pmix_server.h>

#include "pxc.h"
#include "pack.h"
#include "progress.h"
#include "frame.h"
#include "proto.h"
#include "server/internal.h"
#include "server/server.h"

#define SYNC_TAG 0x7ffffff0u
#define WAIT_MS 15000

static char dir[64];
static unsigned long seq;
static bool finalizing;

int __real_unlink(const char *path);
int __real_unlinkat(int dfd, const char *path, int flags);
int __real_rmdir(const char *path);
int __real_remove(const char *path);
int __wrap_unlink(const char *path);
int __wrap_unlinkat(int dfd, const char *path, int flags);
int __wrap_rmdir(const char *path);
int __wrap_remove(const char *path);

/* Whether path (absolute, or relative to the directory open as dfd) may
 * be removed: inside dir, and not the server's own before finalize. */
static bool removable(int dfd, const char *path)
{
	char full[PATH_MAX], link[64], at[PATH_MAX];
	size_t n = strlen(dir);
	ssize_t len;

	if (!path || !dir[0])
		return false;
	if (path[0] == '/' || dfd == AT_FDCWD) {
		if (path[0] != '/')
			return false; /* (the server removes by absolute path) */
		snprintf(full, sizeof(full), "%s", path);
	} else {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", dfd);
		if ((len = readlink(link, at, sizeof(at) - 1)) < 0)
			return false;
		at[len] = '\0';
		snprintf(full, sizeof(full), "%s/%s", at, path);
	}
	if (strstr(full, "/..") || strncmp(full, dir, n) || (full[n] && full[n] != '/'))
		return false;
	if (!finalizing && pxc_srv.dir && !strncmp(full, pxc_srv.dir, strlen(pxc_srv.dir)))
		return false;
	return full[n] != '\0' || finalizing;
}

int __wrap_unlink(const char *path)
{
	return removable(AT_FDCWD, path) ? __real_unlink(path) : (errno = EPERM, -1);
}

int __wrap_unlinkat(int dfd, const char *path, int flags)
{
	return removable(dfd, path) ? __real_unlinkat(dfd, path, flags) : (errno = EPERM, -1);
}

int __wrap_rmdir(const char *path)
{
	return removable(AT_FDCWD, path) ? __real_rmdir(path) : (errno = EPERM, -1);
}

int __wrap_remove(const char *path)
{
	return removable(AT_FDCWD, path) ? __real_remove(path) : (errno = EPERM, -1);
}

static pmix_status_t fence_nb(const pmix_proc_t p[], size_t np, const pmix_info_t i[], size_t ni,
			      char *d, size_t nd, pmix_modex_cbfunc_t cb, void *cbd)
{
	(void)p, (void)np, (void)i, (void)ni, (void)d, (void)nd, (void)cb, (void)cbd;
	return PMIX_OPERATION_SUCCEEDED;
}

static pmix_server_module_t module = { .fence_nb = fence_nb };

static void op_cb(pmix_status_t st, void *arg)
{
	pxc_sync_signal(arg, st);
}

/* At exit: the server's socket and files go, then its directory. */
static void cleanup(void)
{
	finalizing = true;
	PMIx_server_finalize();
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	pmix_info_t info[2];

	(void)argc, (void)argv;
	snprintf(dir, sizeof(dir), "/tmp/fuzzsrv.XXXXXX");
	if (!mkdtemp(dir))
		abort();
	PMIx_Info_load(&info[0], PMIX_SERVER_TMPDIR, dir, PMIX_STRING);
	PMIx_Info_load(&info[1], PMIX_HOSTNAME, "fuzzhost", PMIX_STRING);
	if (PMIx_server_init(&module, info, 2) != PMIX_SUCCESS)
		abort();
	PMIx_Info_destruct(&info[0]);
	PMIx_Info_destruct(&info[1]);
	atexit(cleanup);
	return 0;
}

/* Registers (or, when on is false, deregisters) namespace ns. */
static void nspace(const char *ns, bool on)
{
	pmix_nspace_t n;
	pxc_sync_t s;
	pmix_info_t info[3];
	uint32_t size = 4;

	PMIx_Load_nspace(n, ns);
	pxc_sync_init(&s);
	if (on) {
		PMIx_Info_load(&info[0], PMIX_JOB_SIZE, &size, PMIX_UINT32);
		PMIx_Info_load(&info[1], PMIX_NODE_MAP, "fuzzhost,other", PMIX_STRING);
		PMIx_Info_load(&info[2], PMIX_PROC_MAP, "0,1;2,3", PMIX_STRING);
		if (PMIx_server_register_nspace(n, 2, info, 3, op_cb, &s) != PMIX_SUCCESS ||
		    pxc_sync_wait(&s, WAIT_MS) != PMIX_SUCCESS)
			abort();
		for (int i = 0; i < 3; i++)
			PMIx_Info_destruct(&info[i]);
		for (pmix_rank_t r = 0; r < 2; r++) {
			pmix_proc_t p;

			PMIx_Load_procid(&p, ns, r);
			if (PMIx_server_register_client(&p, getuid(), getgid(), NULL, NULL, NULL) !=
			    PMIX_SUCCESS)
				abort();
		}
	} else {
		PMIx_server_deregister_nspace(n, op_cb, &s);
		if (pxc_sync_wait(&s, WAIT_MS) != PMIX_SUCCESS)
			abort();
	}
	pxc_sync_fini(&s);
}

static void send_frame(int fd, uint16_t cmd, uint16_t flags, uint32_t tag, const void *p,
		       size_t len)
{
	unsigned char hdr[PXC_WIRE_HDR_LEN];
	pxc_wire_hdr_t h = { .len = (uint32_t)len, .tag = tag, .cmd = cmd, .flags = flags };

	pxc_wire_hdr_encode(&h, hdr);
	if (send(fd, hdr, sizeof(hdr), MSG_NOSIGNAL) < 0 ||
	    (len && send(fd, p, len, MSG_NOSIGNAL) < 0))
		return; /* the server closed it: fine */
}

/* Reads frames until the one with tag (true) or the end (false; EOF is
 * an answer too). A wait past WAIT_MS aborts. */
static bool await(int fd, uint32_t tag)
{
	unsigned char hdr[PXC_WIRE_HDR_LEN];
	pxc_wire_hdr_t h;

	for (;;) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		size_t got = 0;

		while (got < sizeof(hdr)) {
			ssize_t r;

			if (poll(&pf, 1, WAIT_MS) <= 0)
				abort(); /* the server stopped answering */
			if ((r = recv(fd, hdr + got, sizeof(hdr) - got, 0)) <= 0)
				return false;
			got += (size_t)r;
		}
		if (pxc_wire_hdr_decode(hdr, PXC_WIRE_MAX_PAYLOAD, &h) != 0)
			abort(); /* the server sent a broken frame */
		for (size_t left = h.len; left;) {
			char sink[4096];
			ssize_t r;

			if (poll(&pf, 1, WAIT_MS) <= 0)
				abort();
			if ((r = recv(fd, sink, left < sizeof(sink) ? left : sizeof(sink), 0)) <= 0)
				return false;
			left -= (size_t)r;
		}
		if (h.tag == tag && (h.flags & PXC_WIRE_F_REPLY))
			return true;
	}
}

static int connect_server(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", pxc_srv.sockpath);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		abort();
	return fd;
}

static void hello(int fd, const char *ns, pmix_rank_t rank)
{
	pmix_data_buffer_t b;
	uint32_t v = PXC_PROTO_VERSION;
	uint8_t kind = PXC_PEER_CLIENT;
	pid_t pid = getpid();

	pxc_buf_init(&b);
	pxc_pack_u32(&b, v);
	pxc_pack(&b, &kind, 1, PMIX_UINT8);
	pxc_pack_str(&b, ns);
	pxc_pack(&b, &rank, 1, PMIX_PROC_RANK);
	pxc_pack(&b, &pid, 1, PMIX_PID);
	pxc_pack_array(&b, NULL, 0, PMIX_INFO);
	send_frame(fd, PXC_CMD_HELLO, 0, 1, b.base_ptr, b.bytes_used);
	pxc_buf_clear(&b);
	if (!await(fd, 1))
		abort(); /* a registered client is answered */
}

/* The last request: a GET of the job's size. */
static void sync_get(int fd, const char *ns)
{
	pmix_data_buffer_t b;
	pmix_proc_t p;
	const char *key = PMIX_JOB_SIZE;

	PMIx_Load_procid(&p, ns, PMIX_RANK_WILDCARD);
	pxc_buf_init(&b);
	pxc_pack_proc(&b, &p);
	pxc_pack_str(&b, key);
	pxc_pack_array(&b, NULL, 0, PMIX_INFO);
	send_frame(fd, PXC_CMD_GET, 0, SYNC_TAG, b.base_ptr, b.bytes_used);
	pxc_buf_clear(&b);
	await(fd, SYNC_TAG);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char ns[PMIX_MAX_NSLEN + 1];
	size_t off = 2, nl;
	bool named = true;
	int fd;

	if (size < 2 || (nl = data[1]) > size - 2)
		return 0;
	for (size_t i = 0; i < nl; i++)
		named = named && data[2 + i] > ' ' && data[2 + i] < 127;
	/* a fresh name each time, as a host never reuses one (a recorded name
	 * gets the input's number) */
	if (named && nl)
		snprintf(ns, sizeof(ns), "%.*s.%lu", (int)(nl < 200 ? nl : 200), data + 2, ++seq);
	else
		snprintf(ns, sizeof(ns), "fuzz.%lu", ++seq);
	off += nl;
	nspace(ns, true);
	fd = connect_server();
	hello(fd, ns, data[0] & 1);
	while (off + 8 <= size) {
		uint16_t cmd = data[off], flags = data[off + 1];
		uint32_t tag = (uint32_t)data[off + 2] << 24 | (uint32_t)data[off + 3] << 16 |
			       (uint32_t)data[off + 4] << 8 | data[off + 5];
		size_t len = (size_t)data[off + 6] << 8 | data[off + 7];

		off += 8;
		if (len > size - off)
			len = size - off;
		send_frame(fd, cmd, flags, tag == SYNC_TAG ? 0 : tag, data + off, len);
		off += len;
	}
	sync_get(fd, ns);
	close(fd);
	nspace(ns, false);
	return 0;
}
