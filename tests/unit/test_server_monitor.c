/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_server_monitor.c - protocol tests of MONITOR (server/monitor.c):
 * heartbeat and file monitors raise their alert once more than DROPS
 * periods missed, to the requester and to the other clients registered
 * for the code, with the requested code and id, and hand it to the host
 * (range NAMESPACE); and the cases that must not fire: beats within the
 * drops, a cancelled monitor, a growing file, a client that finalized or
 * left. Broken requests get their error. File checks run on a helper
 * thread: one that hangs stalls neither the server nor its finalize. An
 * alert waits in the event queue one at a time per monitor; a client's
 * NOTIFY cannot pose as a raised one; a late handler of the monitored
 * process gets its cached alert.
 *
 * A monitor second lasts 100 ms here (PXC_SERVER_MONITOR_UNIT_MS). Each
 * test runs the real server in its own process (tests/lib/srvthread.h).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "fakehost.h"
#include "rawclient.h"
#include "srvthread.h"
#include "server/monitor.h"
#include "server/monstat.h"
#include "server/event.h"
#include "server/evqueue.h"
#include "proto.h"

#define UNIT_MS 100

/* An alert as received. */
typedef struct {
	pmix_status_t code;
	pmix_proc_t src;
	pmix_proc_t affected;
	char id[64];
	char file[256];
	bool raised; /* PXC_EVENT_RAISED was on it */
} alert_t;

static void start(void)
{
	pmix_info_t unit;

	load_u32(&unit, PXC_SERVER_MONITOR_UNIT_MS, UNIT_MS);
	ck_assert_int_eq(start_server_with(&full_module, false, &unit, 1), PMIX_SUCCESS);
	register_job(2);
}

static void regev(int fd, pmix_status_t code)
{
	pmix_data_buffer_t b;

	pxc_buf_init(&b);
	pxc_pack_array(&b, &code, 1, PMIX_STATUS);
	pxc_pack_array(&b, NULL, 0, PMIX_INFO);
	rc_send(fd, PXC_CMD_REGEVENTS, 2, &b);
	ck_assert_int_eq(rc_reply(fd, 2, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
}

static void parse_alert(pmix_data_buffer_t *b, alert_t *a)
{
	pmix_data_range_t range;
	pmix_info_t *info = NULL;
	size_t n = 0;
	int32_t one = 1;

	memset(a, 0, sizeof(*a));
	ck_assert_int_eq(pxc_unpack_status(b, &a->code), PMIX_SUCCESS);
	ck_assert_int_eq(pxc_unpack_proc(b, &a->src), PMIX_SUCCESS);
	ck_assert_int_eq(pxc_unpack(b, &range, &one, PMIX_DATA_RANGE), PMIX_SUCCESS);
	ck_assert_int_eq(range, PMIX_RANGE_NAMESPACE);
	ck_assert_int_eq(pxc_unpack_array(b, (void **)&info, &n, PMIX_INFO), PMIX_SUCCESS);
	for (size_t i = 0; i < n; i++) {
		if (PMIx_Check_key(info[i].key, PMIX_EVENT_AFFECTED_PROC))
			a->affected = *info[i].value.data.proc;
		if (PMIx_Check_key(info[i].key, PMIX_MONITOR_ID))
			snprintf(a->id, sizeof(a->id), "%s", info[i].value.data.string);
		if (PMIx_Check_key(info[i].key, PMIX_MONITOR_FILE))
			snprintf(a->file, sizeof(a->file), "%s", info[i].value.data.string);
		a->raised |= PMIx_Check_key(info[i].key, PXC_EVENT_RAISED);
	}
	pxc_array_free(info, n, PMIX_INFO);
}

/* The next EVENT on fd within ms into a; -1 when none came. */
static int next_event(int fd, int ms, alert_t *a)
{
	pmix_data_buffer_t b;
	pxc_wire_hdr_t h;
	long end = pxc_now_ms() + ms;

	do { /* once at least: ms 0 looks at what came already */
		if (rc_recv(fd, &h, &b, (int)(end - pxc_now_ms()) + 1) < 0)
			return -1;
		if (h.cmd == PXC_CMD_EVENT && !(h.flags & PXC_WIRE_F_REPLY)) {
			parse_alert(&b, a);
			pxc_buf_clear(&b);
			return 0;
		}
		pxc_buf_clear(&b);
	} while (pxc_now_ms() < end);
	return -1;
}

/* The same for an alert: marked raised (else its source would drop it). */
static int next_alert(int fd, int ms, alert_t *a)
{
	if (next_event(fd, ms, a) < 0)
		return -1;
	ck_assert_msg(a->raised, "not marked raised: the source would drop it");
	return 0;
}

/* Waits (TMO at most) until the host was handed n notifications. */
static void wait_notify(int n)
{
	for (long end = pxc_now_ms() + TMO; host.n_notify < n && pxc_now_ms() < end;)
		usleep(10000);
	ck_assert_int_eq(host.n_notify, n);
}

/* Sends MONITOR (mon, error, dirs) with tag and waits for its reply,
 * counting the EVENTs that come before it in *nev (may be NULL). */
static pmix_status_t call(int fd, uint32_t tag, const pmix_info_t *mon, pmix_status_t error,
			  const pmix_info_t *dirs, size_t n, int *nev)
{
	pmix_data_buffer_t b;
	pxc_wire_hdr_t h;
	pmix_status_t st;

	pxc_buf_init(&b);
	pxc_pack_array(&b, mon, 1, PMIX_INFO);
	pxc_pack_status(&b, error);
	pxc_pack_array(&b, dirs, n, PMIX_INFO);
	rc_send(fd, PXC_CMD_MONITOR, tag, &b);
	for (;;) {
		ck_assert_int_eq(rc_recv(fd, &h, &b, TMO), 0);
		if (h.cmd == PXC_CMD_MONITOR && h.tag == tag)
			break;
		if (h.cmd == PXC_CMD_EVENT && nev)
			(*nev)++;
		pxc_buf_clear(&b);
	}
	ck_assert_int_eq(pxc_unpack_status(&b, &st), PMIX_SUCCESS);
	if (st == PMIX_SUCCESS) {
		pmix_info_t *res = NULL;
		size_t nres = 9;

		ck_assert_int_eq(pxc_unpack_array(&b, (void **)&res, &nres, PMIX_INFO),
				 PMIX_SUCCESS);
		ck_assert_uint_eq(nres, 0);
	}
	pxc_buf_clear(&b);
	return st;
}

/* A heartbeat monitor of period s seconds (units), drops, id (may be
 * NULL) and error. */
static pmix_status_t hb_monitor(int fd, uint32_t period, uint32_t drops, const char *id,
				pmix_status_t error)
{
	pmix_info_t mon, dirs[3];
	size_t n = 0;
	pmix_status_t st;

	PMIx_Info_load(&mon, PMIX_MONITOR_HEARTBEAT, NULL, PMIX_POINTER);
	load_u32(&dirs[n++], PMIX_MONITOR_HEARTBEAT_TIME, period);
	load_u32(&dirs[n++], PMIX_MONITOR_HEARTBEAT_DROPS, drops);
	if (id)
		PMIx_Info_load(&dirs[n++], PMIX_MONITOR_ID, id, PMIX_STRING);
	st = call(fd, 5, &mon, error, dirs, n, NULL);
	for (size_t i = 0; i < n; i++)
		PMIx_Info_destruct(&dirs[i]);
	return st;
}

/* One PMIx_Heartbeat; returns how many EVENTs came before its reply. */
static int beat(int fd)
{
	pmix_info_t mon;
	int nev = 0;

	PMIx_Info_load(&mon, PMIX_SEND_HEARTBEAT, NULL, PMIX_POINTER);
	ck_assert_int_eq(call(fd, 6, &mon, PMIX_SUCCESS, NULL, 0, &nev), PMIX_SUCCESS);
	return nev;
}

static pmix_status_t cancel(int fd, const char *id)
{
	pmix_info_t mon;
	pmix_status_t st;

	PMIx_Info_load(&mon, PMIX_MONITOR_CANCEL, id, PMIX_STRING);
	st = call(fd, 7, &mon, PMIX_SUCCESS, NULL, 0, NULL);
	PMIx_Info_destruct(&mon);
	return st;
}

/* A server with clients rank 0 (*fd0) and rank 1 (*fd1), both registered
 * for code (rank 0 only when reg0). */
static void setup(int *fd0, int *fd1, bool reg0, pmix_status_t code)
{
	start();
	*fd0 = rc_hello(0, PMIX_SUCCESS, NULL);
	*fd1 = rc_hello(1, PMIX_SUCCESS, NULL);
	if (reg0)
		regev(*fd0, code);
	regev(*fd1, code);
}

/* Beats, stop: the alert comes after more than DROPS missed periods, once,
 * to the requester and to rank 1 (registered for the code), and to the
 * host (range NAMESPACE); beats again arm it again. */
START_TEST(monitor_heartbeat_alert)
{
	alert_t a;
	long t0;
	int fd0, fd1;

	setup(&fd0, &fd1, true, PMIX_MONITOR_HEARTBEAT_ALERT);
	ck_assert_int_eq(hb_monitor(fd0, 2, 1, "hb", PMIX_SUCCESS), PMIX_SUCCESS);
	t0 = pxc_now_ms();
	ck_assert_int_eq(next_alert(fd0, TMO, &a), 0);
	ck_assert_int_ge(pxc_now_ms() - t0, 2 * 2 * UNIT_MS - 50); /* not before 2 misses */
	ck_assert_int_eq(a.code, PMIX_MONITOR_HEARTBEAT_ALERT);
	ck_assert_str_eq(a.src.nspace, NS);
	ck_assert_uint_eq(a.src.rank, 0);
	ck_assert_uint_eq(a.affected.rank, 0);
	ck_assert_str_eq(a.id, "hb");
	ck_assert_int_eq(next_alert(fd1, TMO, &a), 0);
	ck_assert_int_eq(a.code, PMIX_MONITOR_HEARTBEAT_ALERT);
	ck_assert_uint_eq(a.src.rank, 0);
	wait_notify(1);
	/* once: no second alert while the beats stay away */
	ck_assert_int_lt(next_alert(fd1, 10 * UNIT_MS, &a), 0);
	/* a beat arms it again */
	ck_assert_int_eq(beat(fd0), 0);
	ck_assert_int_eq(next_alert(fd1, TMO, &a), 0);
	ck_assert_str_eq(a.id, "hb");
	close(fd0);
	close(fd1);
	stop_server();
}
END_TEST

/* Must not fire: a beat every 4 units with a period of 2 leaves one or two
 * periods without a beat in a row, within DROPS 3 (ignoring the drops
 * would fire). Then the beats stop and it fires: it was running. */
START_TEST(monitor_heartbeat_within_drops)
{
	alert_t a;
	int fd0, fd1, nev = 0;

	setup(&fd0, &fd1, true, PMIX_MONITOR_HEARTBEAT_ALERT);
	ck_assert_int_eq(hb_monitor(fd0, 2, 3, NULL, PMIX_SUCCESS), PMIX_SUCCESS);
	for (int i = 0; i < 8; i++) {
		usleep(4 * UNIT_MS * 1000);
		nev += beat(fd0);
	}
	ck_assert_int_eq(nev, 0);
	ck_assert_int_lt(next_alert(fd1, 1, &a), 0);
	ck_assert_int_eq(host.n_notify, 0);
	ck_assert_int_eq(next_alert(fd1, TMO, &a), 0);
	ck_assert_str_eq(a.id, "");
	close(fd0);
	close(fd1);
	stop_server();
}
END_TEST

/* Must not fire: a cancelled monitor (by id) stays silent while another
 * of the same client, with its own requested code, fires; an unknown id
 * is NOT_FOUND, cancelling all leaves none. */
START_TEST(monitor_cancel)
{
	alert_t a;
	int fd0, fd1;

	setup(&fd0, &fd1, false, PMIX_MONITOR_HEARTBEAT_ALERT);
	regev(fd1, -12001);
	ck_assert_int_eq(hb_monitor(fd0, 2, 0, "c1", PMIX_SUCCESS), PMIX_SUCCESS);
	ck_assert_int_eq(hb_monitor(fd0, 2, 0, "c2", -12001), PMIX_SUCCESS);
	ck_assert_int_eq(cancel(fd0, "c1"), PMIX_SUCCESS);
	ck_assert_int_eq(cancel(fd0, "c1"), PMIX_ERR_NOT_FOUND);
	ck_assert_int_eq(cancel(fd0, "nope"), PMIX_ERR_NOT_FOUND);
	ck_assert_int_eq(next_alert(fd1, TMO, &a), 0);
	ck_assert_int_eq(a.code, -12001); /* the requested code */
	ck_assert_str_eq(a.id, "c2");
	ck_assert_int_lt(next_alert(fd1, 8 * UNIT_MS, &a), 0);
	ck_assert_uint_eq(pxc_monitor_count(), 1);
	/* all of them (no id); the directive form works as well */
	ck_assert_int_eq(hb_monitor(fd0, 2, 0, "c3", PMIX_SUCCESS), PMIX_SUCCESS);
	ck_assert_int_eq(cancel(fd0, NULL), PMIX_SUCCESS);
	ck_assert_uint_eq(pxc_monitor_count(), 0);
	ck_assert_int_eq(cancel(fd0, NULL), PMIX_SUCCESS);
	ck_assert_int_lt(next_alert(fd1, 8 * UNIT_MS, &a), 0);
	wait_notify(1);
	close(fd0);
	close(fd1);
	stop_server();
}
END_TEST

/* The directive form of CANCEL, and monitors die with their client: a
 * connection that ends (rank 0, watched by rank 1), a FINALIZE (rank 1). */
START_TEST(monitor_dies_with_client)
{
	pmix_info_t mon, dir;
	pmix_data_buffer_t b;
	alert_t a;
	int fd0, fd1;

	setup(&fd0, &fd1, false, PMIX_MONITOR_HEARTBEAT_ALERT);
	ck_assert_int_eq(hb_monitor(fd0, 2, 0, "d1", PMIX_SUCCESS), PMIX_SUCCESS);
	PMIx_Info_load(&mon, PMIX_MONITOR_HEARTBEAT, NULL, PMIX_POINTER);
	PMIx_Info_load(&dir, PMIX_MONITOR_CANCEL, "d1", PMIX_STRING);
	ck_assert_int_eq(call(fd0, 8, &mon, PMIX_SUCCESS, &dir, 1, NULL), PMIX_SUCCESS);
	PMIx_Info_destruct(&dir);
	ck_assert_uint_eq(pxc_monitor_count(), 0);
	ck_assert_int_eq(hb_monitor(fd0, 2, 0, NULL, PMIX_SUCCESS), PMIX_SUCCESS);
	close(fd0);
	ck_assert_int_lt(next_alert(fd1, 8 * UNIT_MS, &a), 0);
	ck_assert_uint_eq(pxc_monitor_count(), 0);
	ck_assert_int_eq(host.n_notify, 0);
	ck_assert_int_eq(hb_monitor(fd1, 2, 0, NULL, PMIX_SUCCESS), PMIX_SUCCESS);
	pxc_buf_init(&b);
	pxc_pack_array(&b, NULL, 0, PMIX_INFO);
	rc_send(fd1, PXC_CMD_FINALIZE, 9, &b);
	ck_assert_int_eq(rc_reply(fd1, 9, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	ck_assert_uint_eq(pxc_monitor_count(), 0);
	/* none after FINALIZE */
	ck_assert_int_eq(hb_monitor(fd1, 2, 0, NULL, PMIX_SUCCESS), PMIX_ERR_INIT);
	ck_assert_uint_eq(pxc_monitor_count(), 0);
	close(fd1);
	stop_server();
}
END_TEST

/* The server's end stops the monitors still running (no timer left). */
START_TEST(monitor_server_end)
{
	int fd0;

	start();
	fd0 = rc_hello(0, PMIX_SUCCESS, NULL);
	ck_assert_int_eq(hb_monitor(fd0, 1, 0, "end", PMIX_SUCCESS), PMIX_SUCCESS);
	ck_assert_uint_eq(pxc_monitor_count(), 1);
	stop_server();
	ck_assert_uint_eq(pxc_monitor_count(), 0);
	close(fd0);
}
END_TEST

/* A file monitor of path: flags SIZE / MODIFY, check every 2 units,
 * DROPS 1. */
static pmix_status_t file_monitor(int fd, const char *path, bool size, bool mod)
{
	pmix_info_t mon, dirs[5];
	size_t n = 0;
	bool t = true;
	pmix_status_t st;

	PMIx_Info_load(&mon, PMIX_MONITOR_FILE, path, PMIX_STRING);
	load_u32(&dirs[n++], PMIX_MONITOR_FILE_CHECK_TIME, 2);
	load_u32(&dirs[n++], PMIX_MONITOR_FILE_DROPS, 1);
	if (size)
		PMIx_Info_load(&dirs[n++], PMIX_MONITOR_FILE_SIZE, &t, PMIX_BOOL);
	if (mod) /* the header's type for it: a string */
		PMIx_Info_load(&dirs[n++], PMIX_MONITOR_FILE_MODIFY, "true", PMIX_STRING);
	PMIx_Info_load(&dirs[n++], PMIX_MONITOR_ID, "f", PMIX_STRING);
	st = call(fd, 5, &mon, PMIX_SUCCESS, dirs, n, NULL);
	PMIx_Info_destruct(&mon);
	for (size_t i = 0; i < n; i++)
		PMIx_Info_destruct(&dirs[i]);
	return st;
}

static void append(const char *path)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0600);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "x", 1), 1);
	close(fd);
}

/* Must not fire while the file grows; fires (FILE_ALERT, with the path)
 * once it stops. Every requested attribute counts: a file that grows
 * while its mtime is held still fires with SIZE and MODIFY asked. */
START_TEST(monitor_file)
{
	char path[128];
	bool fired;
	alert_t a;
	int fd0;

	start();
	snprintf(path, sizeof(path), "%s/watched", tmpdir);
	append(path);
	fd0 = rc_hello(0, PMIX_SUCCESS, NULL);
	regev(fd0, PMIX_MONITOR_FILE_ALERT);
	ck_assert_int_eq(file_monitor(fd0, path, true, false), PMIX_SUCCESS);
	for (int i = 0; i < 15; i++) {
		usleep(UNIT_MS * 1000);
		append(path);
		ck_assert_int_lt(next_alert(fd0, 0, &a), 0);
	}
	ck_assert_int_eq(next_alert(fd0, TMO, &a), 0);
	ck_assert_int_eq(a.code, PMIX_MONITOR_FILE_ALERT);
	ck_assert_str_eq(a.file, path);
	ck_assert_str_eq(a.id, "f");
	ck_assert_int_eq(cancel(fd0, "f"), PMIX_SUCCESS);
	/* grows, mtime held: the MODIFY half misses */
	ck_assert_int_eq(file_monitor(fd0, path, true, true), PMIX_SUCCESS);
	fired = false;
	for (int i = 0; i < 15 && !fired; i++) {
		struct timespec ts[2] = { { 1000, 0 }, { 1000, 0 } };

		usleep(UNIT_MS * 1000);
		append(path);
		ck_assert_int_eq(utimensat(AT_FDCWD, path, ts, 0), 0);
		fired = next_alert(fd0, 0, &a) == 0;
	}
	ck_assert_msg(fired, "an unchanged mtime was not a miss");
	ck_assert_int_eq(a.code, PMIX_MONITOR_FILE_ALERT);
	close(fd0);
	stop_server();
}
END_TEST

/* Broken requests get their error and start nothing. */
START_TEST(monitor_refused)
{
	pmix_info_t mon, dirs[2];
	pmix_data_range_t r = PMIX_RANGE_PROC_LOCAL;
	char path[128];
	bool t = true;
	int fd0;

	start();
	fd0 = rc_hello(0, PMIX_SUCCESS, NULL);
	/* heartbeat: no period, zero period, a string for a count */
	PMIx_Info_load(&mon, PMIX_MONITOR_HEARTBEAT, NULL, PMIX_POINTER);
	ck_assert_int_eq(call(fd0, 5, &mon, 0, NULL, 0, NULL), PMIX_ERR_BAD_PARAM);
	ck_assert_int_eq(hb_monitor(fd0, 0, 0, NULL, 0), PMIX_ERR_BAD_PARAM);
	load_u32(&dirs[0], PMIX_MONITOR_HEARTBEAT_TIME, 1);
	PMIx_Info_load(&dirs[1], PMIX_MONITOR_HEARTBEAT_DROPS, "2", PMIX_STRING);
	ck_assert_int_eq(call(fd0, 5, &mon, 0, dirs, 2, NULL), PMIX_ERR_BAD_PARAM);
	PMIx_Info_destruct(&dirs[1]);
	/* any integer type: an INT8 -1 is refused, UINT8 / INT8 counts taken */
	PMIx_Info_load(&dirs[1], PMIX_MONITOR_HEARTBEAT_DROPS, &(int8_t){ -1 }, PMIX_INT8);
	ck_assert_int_eq(call(fd0, 5, &mon, 0, dirs, 2, NULL), PMIX_ERR_BAD_PARAM);
	PMIx_Info_load(&dirs[1], PMIX_MONITOR_HEARTBEAT_DROPS, &(int8_t){ 2 }, PMIX_INT8);
	ck_assert_int_eq(call(fd0, 5, &mon, 0, dirs, 2, NULL), PMIX_SUCCESS);
	PMIx_Info_load(&dirs[1], PMIX_MONITOR_HEARTBEAT_TIME, &(uint8_t){ 3 }, PMIX_UINT8);
	ck_assert_int_eq(call(fd0, 5, &mon, 0, &dirs[1], 1, NULL), PMIX_SUCCESS);
	ck_assert_int_eq(cancel(fd0, NULL), PMIX_SUCCESS);
	/* an unknown required directive, an unsupported range, a bad id */
	PMIx_Info_load(&dirs[1], "pmix.no.such", &t, PMIX_BOOL);
	PMIx_Info_required(&dirs[1]);
	ck_assert_int_eq(call(fd0, 5, &mon, 0, dirs, 2, NULL), PMIX_ERR_NOT_SUPPORTED);
	dirs[1].flags = 0; /* not required: ignored */
	ck_assert_int_eq(call(fd0, 5, &mon, 0, dirs, 2, NULL), PMIX_SUCCESS);
	ck_assert_int_eq(cancel(fd0, NULL), PMIX_SUCCESS);
	PMIx_Info_load(&dirs[1], PMIX_RANGE, &r, PMIX_DATA_RANGE);
	ck_assert_int_eq(call(fd0, 5, &mon, 0, dirs, 2, NULL), PMIX_ERR_NOT_SUPPORTED);
	PMIx_Info_load(&dirs[1], PMIX_MONITOR_ID, &t, PMIX_BOOL);
	ck_assert_int_eq(call(fd0, 5, &mon, 0, dirs, 2, NULL), PMIX_ERR_BAD_PARAM);
	/* an id twice */
	ck_assert_int_eq(hb_monitor(fd0, 5, 0, "twice", 0), PMIX_SUCCESS);
	ck_assert_int_eq(hb_monitor(fd0, 5, 0, "twice", 0), PMIX_ERR_EXISTS);
	/* a kind we do not run, a cancel that is no string */
	PMIx_Info_load(&mon, "pmix.monitor.other", &t, PMIX_BOOL);
	ck_assert_int_eq(call(fd0, 5, &mon, 0, NULL, 0, NULL), PMIX_ERR_NOT_SUPPORTED);
	PMIx_Info_load(&mon, PMIX_MONITOR_CANCEL, &t, PMIX_BOOL);
	ck_assert_int_eq(call(fd0, 5, &mon, 0, NULL, 0, NULL), PMIX_ERR_BAD_PARAM);
	/* files: relative, no path, not a string, nothing to watch, missing,
	 * a directory, through a symlink */
	ck_assert_int_eq(file_monitor(fd0, "relative/file", true, false), PMIX_ERR_BAD_PARAM);
	ck_assert_int_eq(file_monitor(fd0, NULL, true, false), PMIX_ERR_BAD_PARAM);
	PMIx_Info_load(&mon, PMIX_MONITOR_FILE, &t, PMIX_BOOL);
	ck_assert_int_eq(call(fd0, 5, &mon, 0, dirs, 1, NULL), PMIX_ERR_BAD_PARAM);
	snprintf(path, sizeof(path), "%s/f", tmpdir);
	append(path);
	ck_assert_int_eq(file_monitor(fd0, path, false, false), PMIX_ERR_BAD_PARAM);
	snprintf(path, sizeof(path), "%s/absent", tmpdir);
	ck_assert_int_eq(file_monitor(fd0, path, true, false), PMIX_ERR_NOT_FOUND);
	ck_assert_int_eq(file_monitor(fd0, tmpdir, true, false), PMIX_ERR_NO_PERMISSIONS);
	snprintf(path, sizeof(path), "%s/link", tmpdir);
	ck_assert_int_eq(symlink(tmpdir, path), 0);
	snprintf(path, sizeof(path), "%s/link/f", tmpdir);
	ck_assert_int_eq(file_monitor(fd0, path, true, false), PMIX_ERR_NO_PERMISSIONS);
	/* "." and ".." parts; more than PXC_MONSTAT_MAX_PARTS parts (the
	 * limit itself is walked: NOT_FOUND) */
	snprintf(path, sizeof(path), "%s/./f", tmpdir);
	ck_assert_int_eq(file_monitor(fd0, path, true, false), PMIX_ERR_BAD_PARAM);
	snprintf(path, sizeof(path), "%s/../f", tmpdir);
	ck_assert_int_eq(file_monitor(fd0, path, true, false), PMIX_ERR_BAD_PARAM);
	ck_assert_int_eq(file_monitor(fd0, "/tmp/..", true, false), PMIX_ERR_BAD_PARAM);
	ck_assert_int_eq(file_monitor(fd0, "/tmp/.x", true, false), PMIX_ERR_NOT_FOUND);
	{
		char deep[2 * (PXC_MONSTAT_MAX_PARTS + 1) + 1] = "";

		for (int i = 0; i < PXC_MONSTAT_MAX_PARTS; i++)
			strcat(deep, "/n");
		ck_assert_int_eq(file_monitor(fd0, deep, true, false), PMIX_ERR_NOT_FOUND);
		strcat(deep, "/n");
		ck_assert_int_eq(file_monitor(fd0, deep, true, false), PMIX_ERR_BAD_PARAM);
	}
	ck_assert_uint_eq(pxc_monitor_count(), 1); /* "twice" */
	PMIx_Info_destruct(&dirs[0]);
	close(fd0);
	stop_server();
}
END_TEST

/* A client of another uid (the server runs as root): a file it does not
 * own, or one it owns in a directory it may not search, is refused alike
 * (NO_PERMISSIONS, never NOT_FOUND); its own file in a directory open to
 * it is accepted. */
START_TEST(monitor_file_other_uid)
{
	const uid_t uid = 12345;
	char dir[128], path[160];
	pmix_proc_t p;
	int fd;

	if (getuid() != 0)
		return; /* needs root to play another uid */
	start();
	ck_assert_int_eq(reg_nspace(NS2, 1, NULL, 0, NULL, NULL), PMIX_SUCCESS);
	PMIx_Load_procid(&p, NS2, 0);
	ck_assert_int_eq(PMIx_server_register_client(&p, uid, uid, NULL, NULL, NULL), PMIX_SUCCESS);
	fd = rc_hello_kind(PXC_PEER_CLIENT, NS2, 0, PMIX_SUCCESS);
	snprintf(dir, sizeof(dir), "%s/d", tmpdir);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	snprintf(path, sizeof(path), "%s/mine", dir);
	append(path);
	ck_assert_int_eq(chown(path, uid, uid), 0);
	ck_assert_int_eq(chmod(tmpdir, 0711), 0);
	/* d is root's 0700: neither its file nor its absence may show */
	ck_assert_int_eq(file_monitor(fd, path, true, false), PMIX_ERR_NO_PERMISSIONS);
	snprintf(path, sizeof(path), "%s/absent", dir);
	ck_assert_int_eq(file_monitor(fd, path, true, false), PMIX_ERR_NO_PERMISSIONS);
	ck_assert_int_eq(chmod(dir, 0711), 0);
	ck_assert_int_eq(file_monitor(fd, path, true, false), PMIX_ERR_NOT_FOUND);
	snprintf(path, sizeof(path), "%s/mine", dir);
	ck_assert_int_eq(file_monitor(fd, path, true, false), PMIX_SUCCESS);
	ck_assert_int_eq(cancel(fd, "f"), PMIX_SUCCESS);
	snprintf(path, sizeof(path), "%s/roots", dir);
	append(path);
	ck_assert_int_eq(file_monitor(fd, path, true, false), PMIX_ERR_NO_PERMISSIONS);
	close(fd);
	stop_server();
}
END_TEST

/* At most PXC_MONITOR_MAX_PER_CLIENT per client; a beat without a monitor
 * is fine; a MONITOR without exactly one monitor info closes the
 * connection. */
START_TEST(monitor_limits)
{
	pmix_data_buffer_t b;
	int fd0;

	start();
	fd0 = rc_hello(0, PMIX_SUCCESS, NULL);
	ck_assert_int_eq(beat(fd0), 0);
	for (int i = 0; i < PXC_MONITOR_MAX_PER_CLIENT; i++)
		ck_assert_int_eq(hb_monitor(fd0, 100, 0, NULL, 0), PMIX_SUCCESS);
	ck_assert_int_eq(hb_monitor(fd0, 100, 0, NULL, 0), PMIX_ERR_OUT_OF_RESOURCE);
	ck_assert_uint_eq(pxc_monitor_count(), PXC_MONITOR_MAX_PER_CLIENT);
	pxc_buf_init(&b);
	pxc_pack_array(&b, NULL, 0, PMIX_INFO);
	pxc_pack_status(&b, 0);
	pxc_pack_array(&b, NULL, 0, PMIX_INFO);
	rc_send(fd0, PXC_CMD_MONITOR, 5, &b);
	ck_assert(rc_closed(fd0));
	close(fd0);
	fd0 = rc_hello(1, PMIX_SUCCESS, NULL);
	rc_send(fd0, PXC_CMD_MONITOR, 5, NULL); /* empty payload */
	ck_assert(rc_closed(fd0));
	close(fd0);
	ck_assert_uint_eq(pxc_monitor_count(), 0);
	stop_server();
}
END_TEST

/* ------------------------------------------------- a hanging file system */

static atomic_int stall; /* the check thread waits while set (30 s at most) */

static void stall_hook(const char *path)
{
	(void)path;
	for (int i = 0; i < 3000 && atomic_load(&stall); i++)
		usleep(10000);
}

/* A check that hangs (as on an NFS server that stopped answering) stalls
 * nothing else: other requests are answered at once, the stuck monitor's
 * ticks are misses (its alert comes), a new file monitor's request gets
 * PMIX_ERR_TIMEOUT after FIRST_CHECK (10) monitor seconds, the server
 * finalizes at once, and the thread left behind ends cleanly once the
 * file system answers (nothing of the server touched: valgrind). */
START_TEST(monitor_file_hangs)
{
	char path[128];
	alert_t a;
	long t0;
	int fd0, fd1;

	start();
	snprintf(path, sizeof(path), "%s/watched", tmpdir);
	append(path);
	fd0 = rc_hello(0, PMIX_SUCCESS, NULL);
	fd1 = rc_hello(1, PMIX_SUCCESS, NULL);
	regev(fd0, PMIX_MONITOR_FILE_ALERT);
	pxc_monstat_test_hook = stall_hook;
	ck_assert_int_eq(file_monitor(fd0, path, true, false), PMIX_SUCCESS);
	ck_assert_uint_eq(pxc_monstat_threads(), 1);
	atomic_store(&stall, 1);
	t0 = pxc_now_ms();
	for (int i = 0; i < 5; i++) { /* the server answers meanwhile */
		long t = pxc_now_ms();

		ck_assert_int_eq(hb_monitor(fd1, 100, 0, NULL, PMIX_SUCCESS), PMIX_SUCCESS);
		ck_assert_int_eq(cancel(fd1, "nope"), PMIX_ERR_NOT_FOUND);
		ck_assert_int_lt(pxc_now_ms() - t, 300);
		usleep(UNIT_MS * 1000);
	}
	/* the checks that never come back are misses: DROPS 1, every 2 */
	ck_assert_int_eq(next_alert(fd0, TMO, &a), 0);
	ck_assert_int_eq(a.code, PMIX_MONITOR_FILE_ALERT);
	ck_assert_int_lt(pxc_now_ms() - t0, 10 * UNIT_MS);
	/* a new one waits for its first check, FIRST_CHECK at most */
	t0 = pxc_now_ms();
	ck_assert_int_eq(file_monitor(fd1, path, true, false), PMIX_ERR_TIMEOUT);
	ck_assert_int_ge(pxc_now_ms() - t0, 10 * UNIT_MS - 50);
	ck_assert_int_lt(pxc_now_ms() - t0, 10 * UNIT_MS + 1000);
	ck_assert_uint_eq(pxc_monitor_count(), 6); /* 5 heartbeats and the stuck one */
	t0 = pxc_now_ms();
	stop_server();
	ck_assert_int_lt(pxc_now_ms() - t0, 1000);
	ck_assert_uint_eq(pxc_monstat_threads(), 1); /* left behind, still stuck */
	atomic_store(&stall, 0);
	for (long end = pxc_now_ms() + TMO; pxc_monstat_threads() && pxc_now_ms() < end;)
		usleep(10000);
	ck_assert_uint_eq(pxc_monstat_threads(), 0);
	close(fd0);
	close(fd1);
}
END_TEST

/* The kernel decides the access, with the client's identity: a
 * directory its mode bits close to the client but an ACL opens (read as
 * the bits alone, it would be refused). Skipped where the file system has
 * no ACLs, or without root. */
START_TEST(monitor_file_acl)
{
	const uid_t uid = 12345;
	/* version 2; USER_OBJ rwx, USER 12345 --x, GROUP_OBJ ---, MASK --x,
	 * OTHER --- (tag, perm: 16 bits each; id: 32 bits; little endian) */
	const uint32_t acl[] = { 2,          0x00070001, 0xffffffff, 0x00010002,
				 uid,        0x00000004, 0xffffffff, 0x00010010,
				 0xffffffff, 0x00000020, 0xffffffff };
	char dir[128], path[160];
	pmix_proc_t p;
	int fd;

	if (getuid() != 0)
		return;
	start();
	ck_assert_int_eq(reg_nspace(NS2, 1, NULL, 0, NULL, NULL), PMIX_SUCCESS);
	PMIx_Load_procid(&p, NS2, 0);
	ck_assert_int_eq(PMIx_server_register_client(&p, uid, uid, NULL, NULL, NULL), PMIX_SUCCESS);
	fd = rc_hello_kind(PXC_PEER_CLIENT, NS2, 0, PMIX_SUCCESS);
	ck_assert_int_eq(chmod(tmpdir, 0711), 0);
	snprintf(dir, sizeof(dir), "%s/acl", tmpdir);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	snprintf(path, sizeof(path), "%s/mine", dir);
	append(path);
	ck_assert_int_eq(chown(path, uid, uid), 0);
	ck_assert_int_eq(file_monitor(fd, path, true, false), PMIX_ERR_NO_PERMISSIONS);
	if (setxattr(dir, "system.posix_acl_access", acl, sizeof(acl), 0) < 0) {
		ck_assert_int_eq(errno, EOPNOTSUPP);
		fprintf(stderr, "monitor_file_acl: no ACLs on %s: skipped\n", tmpdir);
	} else {
		ck_assert_int_eq(file_monitor(fd, path, true, false), PMIX_SUCCESS);
	}
	close(fd);
	stop_server();
}
END_TEST

/* --------------------------------------------------------- the event path */

/* notify_event that never calls back: the event queue's bytes stay taken,
 * so the next notification waits in the queue. */
static pmix_status_t hold_notify(pmix_status_t code, const pmix_proc_t *src,
				 pmix_data_range_t range, pmix_info_t info[], size_t ninfo,
				 pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	(void)code, (void)src, (void)range, (void)info, (void)ninfo, (void)cbfunc, (void)cbdata;
	host.n_notify++;
	return PMIX_SUCCESS;
}

/* At most one alert of a monitor waits in the event queue: a monitor
 * that alternates beats and misses while the queue is blocked (the host
 * holds the first alert) adds no more than one. */
START_TEST(monitor_alert_backpressure)
{
	pmix_server_module_t mod = full_module;
	pmix_info_t extra[2];
	int fd0, fd1;

	mod.notify_event = hold_notify;
	load_u32(&extra[0], PXC_SERVER_MONITOR_UNIT_MS, UNIT_MS);
	load_u32(&extra[1], PXC_SERVER_EVENT_QUEUE_BYTES, 1000);
	ck_assert_int_eq(start_server_with(&mod, false, extra, 2), PMIX_SUCCESS);
	register_job(2);
	fd0 = rc_hello(0, PMIX_SUCCESS, NULL);
	fd1 = rc_hello(1, PMIX_SUCCESS, NULL);
	regev(fd1, PMIX_MONITOR_HEARTBEAT_ALERT);
	ck_assert_int_eq(hb_monitor(fd0, 1, 0, "bp", PMIX_SUCCESS), PMIX_SUCCESS);
	for (int i = 0; i < 12; i++) { /* a hit, then a miss or two */
		usleep(25 * UNIT_MS * 100);
		beat(fd0);
	}
	usleep(3 * UNIT_MS * 1000);
	ck_assert_int_eq(host.n_notify, 1);
	ck_assert_uint_le(pxc_evq_waiting(), 1);
	close(fd0);
	close(fd1);
	stop_server();
}
END_TEST

/* A client cannot pose as the server raising an event in its name: the
 * mark is taken out of its NOTIFY. */
START_TEST(monitor_raised_mark_stripped)
{
	pmix_data_buffer_t b;
	pmix_data_range_t range = PMIX_RANGE_NAMESPACE;
	pmix_info_t mark;
	pmix_proc_t src;
	alert_t a;
	bool yes = true;
	int fd0, fd1;

	setup(&fd0, &fd1, true, -12002);
	PMIx_Info_load(&mark, PXC_EVENT_RAISED, &yes, PMIX_BOOL);
	PMIx_Load_procid(&src, NS, 1);
	pxc_buf_init(&b);
	pxc_pack_status(&b, -12002);
	pxc_pack_proc(&b, &src);
	pxc_pack(&b, &range, 1, PMIX_DATA_RANGE);
	pxc_pack_array(&b, &mark, 1, PMIX_INFO);
	rc_send(fd1, PXC_CMD_NOTIFY, 11, &b);
	ck_assert_int_eq(rc_reply(fd1, 11, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	ck_assert_int_eq(next_event(fd0, TMO, &a), 0);
	ck_assert_int_eq(a.code, -12002);
	ck_assert_uint_eq(a.src.rank, 1);
	ck_assert_msg(!a.raised, "a client's NOTIFY kept PXC_EVENT_RAISED");
	close(fd0);
	close(fd1);
	stop_server();
}
END_TEST

/* The monitored process registers its handler after its alert: the
 * handler gets the cached alert (the cache replays an event raised in a
 * process's name to that process too). */
START_TEST(monitor_alert_cached_for_source)
{
	pmix_status_t code = PMIX_MONITOR_HEARTBEAT_ALERT;
	pmix_data_buffer_t b;
	pmix_info_t hid;
	size_t hdlr = 7;
	alert_t a;
	int fd0;

	start();
	fd0 = rc_hello(0, PMIX_SUCCESS, NULL);
	ck_assert_int_eq(hb_monitor(fd0, 1, 0, "late", PMIX_SUCCESS), PMIX_SUCCESS);
	wait_notify(1); /* raised, and nobody had registered */
	ck_assert_int_eq(cancel(fd0, NULL), PMIX_SUCCESS);
	PMIx_Info_load(&hid, PXC_REG_HDLR_ID, &hdlr, PMIX_SIZE);
	pxc_buf_init(&b);
	pxc_pack_array(&b, &code, 1, PMIX_STATUS);
	pxc_pack_array(&b, &hid, 1, PMIX_INFO);
	rc_send(fd0, PXC_CMD_REGEVENTS, 2, &b);
	ck_assert_int_eq(rc_reply(fd0, 2, &b), PMIX_SUCCESS);
	pxc_buf_clear(&b);
	ck_assert_int_eq(next_alert(fd0, TMO, &a), 0);
	ck_assert_int_eq(a.code, PMIX_MONITOR_HEARTBEAT_ALERT);
	ck_assert_str_eq(a.id, "late");
	close(fd0);
	stop_server();
}
END_TEST

int main(int argc, char **argv)
{
	const struct unit_test tests[] = {
		{ "monitor_heartbeat_alert", monitor_heartbeat_alert },
		{ "monitor_heartbeat_within_drops", monitor_heartbeat_within_drops },
		{ "monitor_cancel", monitor_cancel },
		{ "monitor_dies_with_client", monitor_dies_with_client },
		{ "monitor_server_end", monitor_server_end },
		{ "monitor_file", monitor_file },
		{ "monitor_refused", monitor_refused },
		{ "monitor_file_other_uid", monitor_file_other_uid },
		{ "monitor_limits", monitor_limits },
		{ "monitor_file_hangs", monitor_file_hangs },
		{ "monitor_file_acl", monitor_file_acl },
		{ "monitor_alert_backpressure", monitor_alert_backpressure },
		{ "monitor_raised_mark_stripped", monitor_raised_mark_stripped },
		{ "monitor_alert_cached_for_source", monitor_alert_cached_for_source },
	};

	return server_main(argc, argv, tests, sizeof(tests) / sizeof(tests[0]));
}
