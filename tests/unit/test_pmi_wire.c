/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_pmi_wire.c - check suite for the PMI-1 / PMI-2 wire
 * (src/pmix_core/server/pmi_wire.c) and its spawn requests as PMIx apps
 * (pmi_spawn.c): the requests MPICH's clients send
 * parse into their command and pairs; the reader splits a stream fed in
 * any pieces; replies come out in each format; and broken input (long
 * lines, bad lengths, words without '=', NUL bytes, too many pairs,
 * oversized messages) gives an error with a reason, never a crash.
 */
#include <check.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>
#include "server/pmi_spawn.h"
#include "server/pmi_wire.h"
#include "runner.h"

static int parse(pxc_pmi_shape_t shape, const char *body, pxc_pmi_msg_t *m, const char **why)
{
	*why = NULL;
	return pxc_pmi_parse(shape, body, strlen(body), m, why);
}

START_TEST(test_parse_v1)
{
	pxc_pmi_msg_t m;
	const char *why;

	ck_assert_int_eq(parse(PXC_PMI_SHAPE_V1, "cmd=put kvsname=kvs_1 key=P0-bc value=a=b:c", &m,
			       &why),
			 0);
	ck_assert_str_eq(m.cmd, "put");
	ck_assert_uint_eq(m.npairs, 3);
	ck_assert_str_eq(pxc_pmi_get(&m, "kvsname"), "kvs_1");
	ck_assert_str_eq(pxc_pmi_get(&m, "value"), "a=b:c");
	ck_assert_ptr_null(pxc_pmi_get(&m, "nosuch"));
	pxc_pmi_msg_clear(&m);
	ck_assert_int_eq(parse(PXC_PMI_SHAPE_V1, "  cmd=barrier_in \r", &m, &why), 0);
	ck_assert_str_eq(m.cmd, "barrier_in");
	ck_assert_uint_eq(m.npairs, 0);
	pxc_pmi_msg_clear(&m);
}
END_TEST

START_TEST(test_parse_v2)
{
	pxc_pmi_msg_t m;
	const char *why;

	ck_assert_int_eq(parse(PXC_PMI_SHAPE_V2, "cmd=kvs-put;key=k;value=a;;b;;;thrid=0x1;", &m,
			       &why),
			 0);
	ck_assert_str_eq(m.cmd, "kvs-put");
	ck_assert_str_eq(pxc_pmi_get(&m, "value"), "a;b;");
	ck_assert_str_eq(pxc_pmi_get(&m, "thrid"), "0x1");
	pxc_pmi_msg_clear(&m);
	/* spawn repeats its per-command keys */
	ck_assert_int_eq(parse(PXC_PMI_SHAPE_V2,
			       "cmd=spawn;ncmds=2;subcmd=a;maxprocs=1;subcmd=b;maxprocs=3;", &m,
			       &why),
			 0);
	ck_assert_str_eq(pxc_pmi_get_nth(&m, "subcmd", 1), "b");
	ck_assert_str_eq(pxc_pmi_get_nth(&m, "maxprocs", 1), "3");
	ck_assert_ptr_null(pxc_pmi_get_nth(&m, "maxprocs", 2));
	pxc_pmi_msg_clear(&m);
}
END_TEST

START_TEST(test_parse_mcmd)
{
	pxc_pmi_msg_t m;
	const char *why;

	ck_assert_int_eq(parse(PXC_PMI_SHAPE_MCMD,
			       "mcmd=spawn\nnprocs=2\nexecname=./a b\narg1=x y\nendcmd", &m, &why),
			 0);
	ck_assert_str_eq(m.cmd, "spawn");
	ck_assert_str_eq(pxc_pmi_get(&m, "execname"), "./a b");
	ck_assert_str_eq(pxc_pmi_get(&m, "arg1"), "x y");
	pxc_pmi_msg_clear(&m);
	ck_assert_int_eq(parse(PXC_PMI_SHAPE_MCMD, "mcmd=spawn\nnprocs=2\n", &m, &why), -1);
	ck_assert_str_eq(why, "an mcmd block without endcmd");
	pxc_pmi_msg_clear(&m);
}
END_TEST

START_TEST(test_parse_broken)
{
	static const struct {
		pxc_pmi_shape_t shape;
		const char *body;
	} bad[] = {
		{ PXC_PMI_SHAPE_V1, "" },
		{ PXC_PMI_SHAPE_V1, "   " },
		{ PXC_PMI_SHAPE_V1, "key=a cmd=put" },
		{ PXC_PMI_SHAPE_V1, "cmd=put key" },
		{ PXC_PMI_SHAPE_V1, "cmd=put =x" },
		{ PXC_PMI_SHAPE_V1, "cmd=" },
		{ PXC_PMI_SHAPE_V1, "cmd=put k$y=1" },
		{ PXC_PMI_SHAPE_V1, "mcmd=spawn" },
		{ PXC_PMI_SHAPE_V2, "" },
		{ PXC_PMI_SHAPE_V2, ";;;" },
		{ PXC_PMI_SHAPE_V2, "key=a;cmd=x;" },
		{ PXC_PMI_SHAPE_V2, "cmd=kvs-put;key;" },
		{ PXC_PMI_SHAPE_MCMD, "cmd=spawn\nendcmd" },
		{ PXC_PMI_SHAPE_MCMD, "mcmd=spawn\nnovalue\nendcmd" },
	};
	pxc_pmi_msg_t m;
	const char *why;
	char *many;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(parse(bad[i].shape, bad[i].body, &m, &why) == -1, "accepted \"%s\"",
			      bad[i].body);
		ck_assert_ptr_nonnull(why);
		pxc_pmi_msg_clear(&m);
	}
	/* a NUL byte inside */
	ck_assert_int_eq(pxc_pmi_parse(PXC_PMI_SHAPE_V1, "cmd=put\0x=1", 11, &m, &why), -1);
	ck_assert_str_eq(why, "a NUL byte in the request");
	pxc_pmi_msg_clear(&m);
	/* too many pairs */
	many = malloc(5 + 4 * (PXC_PMI_MAX_PAIRS + 1) + 1);
	strcpy(many, "cmd=x");
	for (int i = 0; i <= PXC_PMI_MAX_PAIRS; i++)
		strcat(many, " a=b");
	ck_assert_int_eq(parse(PXC_PMI_SHAPE_V1, many, &m, &why), -1);
	ck_assert_str_eq(why, "too many key=value pairs");
	pxc_pmi_msg_clear(&m);
	free(many);
	/* over the message limit */
	many = calloc(1, PXC_PMI_MAX_MSG + 2);
	memset(many, 'a', PXC_PMI_MAX_MSG + 1);
	ck_assert_int_eq(parse(PXC_PMI_SHAPE_V2, many, &m, &why), -1);
	pxc_pmi_msg_clear(&m);
	free(many);
	pxc_pmi_msg_clear(NULL);
}
END_TEST

START_TEST(test_int)
{
	long v;

	ck_assert_int_eq(pxc_pmi_int("42", 0, 100, &v), 0);
	ck_assert_int_eq(v, 42);
	ck_assert_int_eq(pxc_pmi_int("-1", -1, 100, &v), 0);
	ck_assert_int_eq(pxc_pmi_int("101", 0, 100, &v), -1);
	ck_assert_int_eq(pxc_pmi_int("4x", 0, 100, &v), -1);
	ck_assert_int_eq(pxc_pmi_int("", 0, 100, &v), -1);
	ck_assert_int_eq(pxc_pmi_int(NULL, 0, 100, &v), -1);
	ck_assert_int_eq(pxc_pmi_int("99999999999999999999999", 0, 100, &v), -1);
}
END_TEST

/* Feeds text in pieces of step bytes; returns the requests' bodies joined
 * by '|' (errors as "!reason"). */
static char *read_all(pxc_pmi_version_t v, const char *text, size_t len, size_t step)
{
	pxc_pmi_reader_t r;
	char *out = calloc(1, 4 * len + 64);

	pxc_pmi_reader_init(&r);
	r.version = v;
	for (size_t off = 0; off < len; off += step) {
		size_t n = len - off < step ? len - off : step;
		int rc;

		ck_assert_int_eq(pxc_pmi_reader_feed(&r, text + off, n), 0);
		for (;;) {
			pxc_pmi_shape_t shape;
			const char *why = NULL;
			char *body;
			size_t blen;
			bool fatal;

			rc = pxc_pmi_reader_next(&r, &shape, &body, &blen, &why, &fatal);
			if (rc == 0)
				break;
			if (rc < 0) {
				strcat(out, "!");
				strcat(out, why);
				strcat(out, fatal ? "(fatal)|" : "|");
				if (fatal)
					goto done;
				continue;
			}
			ck_assert_uint_eq(strlen(body), blen);
			strcat(out, shape == PXC_PMI_SHAPE_MCMD ? "M:" :
				    shape == PXC_PMI_SHAPE_V2   ? "2:" :
								  "1:");
			strcat(out, body);
			strcat(out, "|");
			free(body);
		}
	}
done:
	pxc_pmi_reader_clear(&r);
	return out;
}

START_TEST(test_reader)
{
	static const char v1[] = "cmd=init pmi_version=1\ncmd=get_maxes\n"
				 "mcmd=spawn\nnprocs=1\nendcmd\ncmd=barrier_in\n";
	static const char v2[] = "    22cmd=kvs-fence;thrid=1;"
				 "000017cmd=finalize;x=y;"
				 "14    cmd=job-getid;";
	const size_t steps[] = { 1, 3, 7, 4096 };

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		char *o = read_all(PXC_PMI_V1, v1, strlen(v1), steps[i]);

		ck_assert_str_eq(o, "1:cmd=init pmi_version=1|1:cmd=get_maxes|"
				    "M:mcmd=spawn\nnprocs=1\nendcmd|1:cmd=barrier_in|");
		free(o);
		o = read_all(PXC_PMI_V2, v2, strlen(v2), steps[i]);
		ck_assert_str_eq(o, "2:cmd=kvs-fence;thrid=1;|2:cmd=finalize;x=y;|"
				    "2:cmd=job-getid;|");
		free(o);
	}
}
END_TEST

START_TEST(test_reader_broken)
{
	size_t n = PXC_PMI_MAX_LINE * 3;
	char *big = malloc(n + 64), *o;

	/* an over-long line is skipped up to its newline; the next one works */
	memset(big, 'x', n);
	memcpy(big, "cmd=put value=", 14);
	strcpy(big + n, "\ncmd=get_maxes\n");
	o = read_all(PXC_PMI_V1, big, strlen(big), 1000);
	ck_assert_str_eq(o, "!line too long|1:cmd=get_maxes|");
	free(o);
	/* bad PMI-2 lengths lose the framing */
	o = read_all(PXC_PMI_V2, "abcdefcmd=x;", 12, 5);
	ck_assert_str_eq(o, "!a PMI-2 message without a valid length(fatal)|");
	free(o);
	o = read_all(PXC_PMI_V2, "     0cmd=x;", 12, 12);
	ck_assert_str_eq(o, "!a PMI-2 message without a valid length(fatal)|");
	free(o);
	o = read_all(PXC_PMI_V2, "1 2   cmd=x;", 12, 12);
	ck_assert_str_eq(o, "!a PMI-2 message without a valid length(fatal)|");
	free(o);
	o = read_all(PXC_PMI_V2, "999999cmd=x;", 12, 12);
	ck_assert_str_eq(o, "!PMI-2 message too long(fatal)|");
	free(o);
	/* an mcmd block that never ends */
	free(big);
	n = PXC_PMI_MAX_MSG + 100;
	big = malloc(n + 1);
	memset(big, 'y', n);
	memcpy(big, "mcmd=spawn\n", 11);
	for (size_t i = 20; i < n; i += 50)
		big[i] = '\n';
	big[n] = '\0';
	o = read_all(PXC_PMI_V1, big, n, 4096);
	ck_assert_str_eq(o, "!mcmd request too long(fatal)|");
	free(o);
	free(big);
}
END_TEST

START_TEST(test_out)
{
	pxc_pmi_out_t o;

	pxc_pmi_out_begin(&o, PXC_PMI_V1, "get_result");
	pxc_pmi_out_addi(&o, "rc", -1);
	pxc_pmi_out_add(&o, "msg", "key not found");
	ck_assert_int_eq(pxc_pmi_out_end(&o), 0);
	ck_assert_str_eq(o.buf, "cmd=get_result rc=-1 msg=key_not_found\n");
	ck_assert_uint_eq(o.len, strlen(o.buf));
	pxc_pmi_out_clear(&o);
	pxc_pmi_out_begin(&o, PXC_PMI_V2, "kvs-get-response");
	pxc_pmi_out_addi(&o, "rc", 0);
	pxc_pmi_out_add(&o, "value", "a;b");
	ck_assert_int_eq(pxc_pmi_out_end(&o), 0);
	ck_assert_str_eq(o.buf, "    37cmd=kvs-get-response;rc=0;value=a;;b;");
	pxc_pmi_out_clear(&o);
	pxc_pmi_out_clear(&o);
}
END_TEST

START_TEST(test_preamble)
{
	unsigned char b[PXC_PMI_PREAMBLE_LEN];
	int sv[2];

	ck_assert_int_eq(pipe(sv), 0);
	ck_assert_int_eq(pxc_pmi_preamble_write(sv[1], 4242), 0);
	ck_assert_int_eq(read(sv[0], b, sizeof(b)), (int)sizeof(b));
	ck_assert_int_eq(pxc_pmi_preamble_pid(b), 4242);
	b[0] ^= 1;
	ck_assert_int_eq(pxc_pmi_preamble_pid(b), -1);
	memcpy(b, "cmd=init", 8);
	ck_assert_int_eq(pxc_pmi_preamble_pid(b), -1);
	close(sv[0]);
	ck_assert_int_eq(pxc_pmi_preamble_write(sv[1], 1), -1); /* EPIPE/SIGPIPE ignored */
	close(sv[1]);
}
END_TEST

static void msg(pxc_pmi_shape_t shape, const char *body, pxc_pmi_msg_t *m)
{
	const char *why;

	ck_assert_msg(parse(shape, body, m, &why) == 0, "%s: %s", body, why);
}

START_TEST(test_spawn_v1)
{
	pxc_pmi_msg_t m;
	pmix_app_t app;
	char **pre = NULL;
	const char *why = NULL;
	long total, sofar;

	msg(PXC_PMI_SHAPE_MCMD,
	    "mcmd=spawn\nnprocs=3\nexecname=./a\ntotspawns=2\nspawnssofar=1\nargcnt=2\n"
	    "arg1=x y\narg2=z\npreput_num=1\npreput_key_0=PARENT_ROOT_PORT_NAME\n"
	    "preput_val_0=tag#0$p=1\ninfo_num=2\ninfo_key_0=wdir\ninfo_val_0=/w\n"
	    "info_key_1=host\ninfo_val_1=vn2\nendcmd",
	    &m);
	PMIx_App_construct(&app);
	ck_assert_int_eq(pxc_pmi_spawn_v1(&m, &app, &total, &sofar, &pre, &why), 0);
	ck_assert_int_eq(total, 2);
	ck_assert_int_eq(sofar, 1);
	ck_assert_str_eq(app.cmd, "./a");
	ck_assert_int_eq(app.maxprocs, 3);
	ck_assert_str_eq(app.argv[0], "./a");
	ck_assert_str_eq(app.argv[1], "x y");
	ck_assert_str_eq(app.argv[2], "z");
	ck_assert_ptr_null(app.argv[3]);
	ck_assert_str_eq(app.cwd, "/w");
	ck_assert_uint_eq(app.ninfo, 1);
	ck_assert_str_eq(app.info[0].key, PMIX_HOST);
	ck_assert_str_eq(pre[0], PXC_PMI_PREPUT_ENV "0=PARENT_ROOT_PORT_NAME=tag#0$p=1");
	ck_assert_str_eq(pre[1], PXC_PMI_PREPUT_ENV_COUNT "=1");
	ck_assert_ptr_null(pre[2]);
	PMIx_Argv_free(pre);
	PMIx_App_destruct(&app);
	pxc_pmi_msg_clear(&m);
}
END_TEST

START_TEST(test_spawn_v2)
{
	pxc_pmi_msg_t m;
	pmix_app_t *apps;
	char **pre = NULL;
	const char *why = NULL;
	size_t n;

	msg(PXC_PMI_SHAPE_V2,
	    "cmd=spawn;thrid=1;ncmds=2;preputcount=1;ppkey0=k;ppval0=v;subcmd=./a;maxprocs=2;"
	    "argc=1;argv0=one;infokeycount=0;subcmd=./b;maxprocs=1;argc=0;",
	    &m);
	ck_assert_int_eq(pxc_pmi_spawn_v2(&m, &apps, &n, &pre, &why), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(apps[0].cmd, "./a");
	ck_assert_int_eq(apps[0].maxprocs, 2);
	ck_assert_str_eq(apps[0].argv[1], "one");
	ck_assert_ptr_null(apps[0].argv[2]);
	ck_assert_str_eq(apps[1].cmd, "./b");
	ck_assert_ptr_null(apps[1].argv[1]);
	ck_assert_str_eq(pre[0], PXC_PMI_PREPUT_ENV "0=k=v");
	PMIx_Argv_free(pre);
	PMIx_App_free(apps, n);
	pxc_pmi_msg_clear(&m);
}
END_TEST

START_TEST(test_spawn_broken)
{
	static const char *v1bad[] = {
		"mcmd=spawn\nnprocs=1\nendcmd",
		"mcmd=spawn\nexecname=x\nendcmd",
		"mcmd=spawn\nnprocs=0\nexecname=x\nendcmd",
		"mcmd=spawn\nnprocs=99999999\nexecname=x\nendcmd",
		"mcmd=spawn\nnprocs=1\nexecname=x\ntotspawns=2\nspawnssofar=3\nendcmd",
		"mcmd=spawn\nnprocs=1\nexecname=x\ntotspawns=999\nendcmd",
		"mcmd=spawn\nnprocs=1\nexecname=x\nargcnt=1\nendcmd",
		"mcmd=spawn\nnprocs=1\nexecname=x\nargcnt=100000\nendcmd",
		"mcmd=spawn\nnprocs=1\nexecname=x\ninfo_num=1\ninfo_key_0=wdir\nendcmd",
		"mcmd=spawn\nnprocs=1\nexecname=x\npreput_num=1\npreput_key_0=a\nendcmd",
		"mcmd=spawn\nnprocs=1\nexecname=x\npreput_num=1\npreput_key_0=a=b\n"
		"preput_val_0=c\nendcmd",
	};
	static const char *v2bad[] = {
		"cmd=spawn;",
		"cmd=spawn;ncmds=0;",
		"cmd=spawn;ncmds=2;subcmd=a;maxprocs=1;",
		"cmd=spawn;ncmds=1;subcmd=a;maxprocs=1;subcmd=b;maxprocs=1;",
		"cmd=spawn;ncmds=1;subcmd=a;",
		"cmd=spawn;ncmds=1;subcmd=a;maxprocs=1;argc=2;argv0=x;",
		"cmd=spawn;ncmds=1;preputcount=1;subcmd=a;maxprocs=1;",
		"cmd=spawn;ncmds=1;preputcount=65;subcmd=a;maxprocs=1;",
	};
	pxc_pmi_msg_t m;
	pmix_app_t app, *apps;
	char **pre;
	const char *why;
	long total, sofar;
	size_t n;

	for (size_t i = 0; i < sizeof(v1bad) / sizeof(v1bad[0]); i++) {
		msg(PXC_PMI_SHAPE_MCMD, v1bad[i], &m);
		PMIx_App_construct(&app);
		pre = NULL;
		why = NULL;
		ck_assert_msg(pxc_pmi_spawn_v1(&m, &app, &total, &sofar, &pre, &why) == -1,
			      "accepted %s", v1bad[i]);
		ck_assert_ptr_nonnull(why);
		PMIx_Argv_free(pre);
		PMIx_App_destruct(&app);
		pxc_pmi_msg_clear(&m);
	}
	for (size_t i = 0; i < sizeof(v2bad) / sizeof(v2bad[0]); i++) {
		msg(PXC_PMI_SHAPE_V2, v2bad[i], &m);
		pre = NULL;
		why = NULL;
		ck_assert_msg(pxc_pmi_spawn_v2(&m, &apps, &n, &pre, &why) == -1, "accepted %s",
			      v2bad[i]);
		ck_assert_ptr_nonnull(why);
		ck_assert_ptr_null(pre);
		pxc_pmi_msg_clear(&m);
	}
}
END_TEST

/* Random streams built from the formats' own pieces, in both framings,
 * fed in random pieces: every request parses or fails with a reason, the
 * reader stays within its bound, and spawn translation never crashes. */
START_TEST(test_random_streams)
{
	static const char *pieces[] = {
		"cmd=",     "mcmd=",      "spawn",        "put",        "get",     "kvs-put",
		" ",        ";",          ";;",           "=",          "\n",      "endcmd\n",
		"key=",     "value=",     "nprocs=",      "execname=x", "argcnt=", "arg1=",
		"ncmds=",   "subcmd=a",   "maxprocs=",    "argc=",      "argv0=",  "preputcount=",
		"ppkey0=",  "totspawns=", "spawnssofar=", "1",          "2",       "-1",
		"99999999", "    12",     "000040",       "x",          "\r",      "\t",
		"$",        "\0",
	};
	unsigned seed = 12345;
	char *stream = malloc(9000);

	for (int round = 0; round < 1500; round++) {
		pxc_pmi_reader_t r;
		size_t len = 0;

		while (len < 8000) {
			const char *pc =
				pieces[rand_r(&seed) % (sizeof(pieces) / sizeof(pieces[0]))];
			size_t n = pc[0] ? strlen(pc) : 1;

			memcpy(stream + len, pc, n);
			len += n;
			if (rand_r(&seed) % 50 == 0)
				break;
		}
		pxc_pmi_reader_init(&r);
		r.version = round % 2 ? PXC_PMI_V2 : PXC_PMI_V1;
		for (size_t off = 0; off < len;) {
			size_t n = 1 + rand_r(&seed) % 700;
			bool stop = false;

			n = n > len - off ? len - off : n;
			ck_assert_int_eq(pxc_pmi_reader_feed(&r, stream + off, n), 0);
			off += n;
			for (;;) {
				pxc_pmi_shape_t shape;
				pxc_pmi_msg_t m;
				const char *why = NULL;
				char *body;
				size_t blen;
				bool fatal;
				int rc = pxc_pmi_reader_next(&r, &shape, &body, &blen, &why,
							     &fatal);

				ck_assert_uint_le(r.len, PXC_PMI_MAX_MSG + 8 + PXC_PMI_READ_CHUNK);
				if (rc == 0)
					break;
				if (rc < 0) {
					ck_assert_ptr_nonnull(why);
					if (!fatal)
						continue;
					stop = true;
					break;
				}
				why = NULL;
				if (pxc_pmi_parse(shape, body, blen, &m, &why) < 0)
					ck_assert_ptr_nonnull(why);
				else if (!strcmp(m.cmd, "spawn")) {
					pmix_app_t app, *apps;
					char **pre = NULL;
					long t, so;
					size_t na;

					PMIx_App_construct(&app);
					pxc_pmi_spawn_v1(&m, &app, &t, &so, &pre, &why);
					PMIx_App_destruct(&app);
					PMIx_Argv_free(pre);
					pre = NULL;
					if (pxc_pmi_spawn_v2(&m, &apps, &na, &pre, &why) == 0) {
						PMIx_App_free(apps, na);
						PMIx_Argv_free(pre);
					}
				}
				pxc_pmi_msg_clear(&m);
				free(body);
			}
			if (stop)
				break;
		}
		pxc_pmi_reader_clear(&r);
	}
	free(stream);
}
END_TEST

static Suite *pmi_wire_suite(void)
{
	Suite *s = suite_create("pmi_wire");
	TCase *tc = tcase_create("wire");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_parse_v1);
	tcase_add_test(tc, test_parse_v2);
	tcase_add_test(tc, test_parse_mcmd);
	tcase_add_test(tc, test_parse_broken);
	tcase_add_test(tc, test_int);
	tcase_add_test(tc, test_reader);
	tcase_add_test(tc, test_reader_broken);
	tcase_add_test(tc, test_out);
	tcase_add_test(tc, test_preamble);
	tcase_add_test(tc, test_spawn_v1);
	tcase_add_test(tc, test_spawn_v2);
	tcase_add_test(tc, test_spawn_broken);
	tcase_add_test(tc, test_random_streams);
	suite_add_tcase(s, tc);
	return s;
}

int main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN);
	return unit_main(argc, argv,
			 &(struct unit_spec){ .suite = pmi_wire_suite, .fork = CK_FORK });
}
