/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/srun_io.c - an srun's --output, --error and --label from its
 * command line; see lib/srun_io.h.
 *
 * srun parses with getopt_long, stopping at the first word that is no
 * option. To find where its options end, the parser needs to know which
 * options take the next word as their value: the lists below are srun's
 * options with a required value (22.05 to 26.05); an option with an
 * optional value takes one only with '=' (or attached, for a short
 * option). A long option may be shortened to any prefix that names one
 * option only, as getopt_long allows; a word that names none counts as
 * an option without a value.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/srun_io.h"

/* Short options that take a value. */
static const char short_arg[] = "ABCDFGJLMNSTWbcdeimnopqrtwx";

/* Long options that take a value ("=v" or the next word). */
static const char *const long_arg[] = { "accel-bind",
					"account",
					"acctg-freq",
					"bb",
					"bbf",
					"bcast-exclude",
					"begin",
					"chdir",
					"cluster",
					"cluster-constraint",
					"clusters",
					"comment",
					"constraint",
					"container",
					"container-id",
					"context",
					"core-spec",
					"cores-per-socket",
					"cpu-bind",
					"cpu-freq",
					"cpus-per-gpu",
					"cpus-per-task",
					"deadline",
					"delay-boot",
					"dependency",
					"distribution",
					"epilog",
					"error",
					"exclude",
					"export",
					"extra",
					"extra-node-info",
					"gid",
					"gpu-bind",
					"gpu-freq",
					"gpus",
					"gpus-per-node",
					"gpus-per-socket",
					"gpus-per-task",
					"gres",
					"gres-flags",
					"het-group",
					"hint",
					"input",
					"job-name",
					"jobid",
					"licenses",
					"mail-type",
					"mail-user",
					"mcs-label",
					"mem",
					"mem-bind",
					"mem-per-cpu",
					"mem-per-gpu",
					"mincpus",
					"mpi",
					"msg-timeout",
					"network",
					"nodefile",
					"nodelist",
					"nodes",
					"ntasks",
					"ntasks-per-core",
					"ntasks-per-gpu",
					"ntasks-per-node",
					"ntasks-per-socket",
					"ntasks-per-tres",
					"open-mode",
					"output",
					"pack-group",
					"partition",
					"prefer",
					"priority",
					"profile",
					"prolog",
					"qos",
					"relative",
					"reservation",
					"segment",
					"signal",
					"slurmd-debug",
					"sockets-per-node",
					"switches",
					"task-epilog",
					"task-prolog",
					"tasks-per-node",
					"thread-spec",
					"threads",
					"threads-per-core",
					"time",
					"time-min",
					"tmp",
					"tres-bind",
					"tres-per-task",
					"uid",
					"wait",
					"wait-all-nodes",
					"wckey",
					NULL };

/* The others srun knows (no value, or an optional one): for prefixes. */
static const char *const long_flag[] = { "bcast",
					 "bell",
					 "compress",
					 "contiguous",
					 "cpu_bind",
					 "debugger-test",
					 "disable-status",
					 "exact",
					 "exclusive",
					 "external-launcher",
					 "get-user-env",
					 "help",
					 "hold",
					 "immediate",
					 "interactive",
					 "kill-command",
					 "kill-on-bad-exit",
					 "label",
					 "multi-prog",
					 "nice",
					 "no-allocate",
					 "no-kill",
					 "oom-kill-step",
					 "overcommit",
					 "overlap",
					 "oversubscribe",
					 "preserve-env",
					 "propagate",
					 "pty",
					 "quiet",
					 "quit-on-interrupt",
					 "reboot",
					 "resv-ports",
					 "send-libs",
					 "spread-job",
					 "test-only",
					 "unbuffered",
					 "usage",
					 "use-min-nodes",
					 "verbose",
					 "version",
					 "whole",
					 "x11",
					 NULL };

/* The option a long name (or a unique prefix of one) means; *takes: it
 * takes a value. NULL when it names none or several. */
static const char *long_name(const char *w, size_t n, bool *takes)
{
	const char *hit = NULL;
	int hits = 0;

	for (int l = 0; l < 2; l++)
		for (const char *const *p = l ? long_flag : long_arg; *p; p++) {
			if (strncmp(*p, w, n))
				continue;
			if (strlen(*p) == n) { /* exact: no prefix question */
				*takes = !l;
				return *p;
			}
			hits++;
			hit = *p;
			*takes = !l;
		}
	return hits == 1 ? hit : NULL;
}

static int set(char **slot, const char *v)
{
	char *c = strdup(v ? v : "");

	if (!c)
		return -1;
	free(*slot);
	*slot = c;
	return 0;
}

static const char *env_of(char *const *env, const char *name)
{
	size_t n = strlen(name);

	for (; env && *env; env++)
		if (!strncmp(*env, name, n) && (*env)[n] == '=')
			return *env + n + 1;
	return NULL;
}

/* One long option word (without "--") and maybe the next word: the words
 * used (1 or 2). */
static int take_long(const char *w, const char *next, plug_srun_io_t *io, int *rc)
{
	const char *eq = strchr(w, '='), *name, *v;
	bool takes = false;

	name = long_name(w, eq ? (size_t)(eq - w) : strlen(w), &takes);
	if (!name)
		return 1;
	v = eq ? eq + 1 : takes ? next : NULL;
	if (!strcmp(name, "output") && v)
		*rc |= set(&io->out, v);
	else if (!strcmp(name, "error") && v)
		*rc |= set(&io->err, v);
	else if (!strcmp(name, "label"))
		io->label = true;
	return takes && !eq && next ? 2 : 1;
}

/* One word of short options ("-l", "-o f", "-ofile", "-lN2"). */
static int take_short(const char *w, const char *next, plug_srun_io_t *io, int *rc)
{
	for (const char *c = w; *c; c++) {
		const char *v;

		if (*c == 'l') {
			io->label = true;
			continue;
		}
		if (*c == 'K' || *c == 'k' || *c == 'I')
			return 1; /* an optional value: the rest of the word */
		if (!strchr(short_arg, *c))
			continue;
		v = c[1] ? c + 1 : next;
		if (*c == 'o' && v)
			*rc |= set(&io->out, v);
		else if (*c == 'e' && v)
			*rc |= set(&io->err, v);
		return c[1] || !next ? 1 : 2;
	}
	return 1;
}

int plug_srun_io_parse(char *const *argv, char *const *env, plug_srun_io_t *io)
{
	const char *e;
	int rc = 0;

	*io = (plug_srun_io_t){ 0 };
	if ((e = env_of(env, "SLURM_STDOUTMODE")) && *e)
		rc |= set(&io->out, e);
	if ((e = env_of(env, "SLURM_STDERRMODE")) && *e)
		rc |= set(&io->err, e);
	io->label = env_of(env, "SLURM_LABELIO") != NULL;
	for (int i = argv && argv[0] ? 1 : 0; !rc && argv && argv[i];) {
		const char *w = argv[i], *next = argv[i + 1];

		if (!strcmp(w, "--") || w[0] != '-' || !w[1])
			break; /* the program (or the end of the options) */
		i += w[1] == '-' ? take_long(w + 2, next, io, &rc) :
				   take_short(w + 1, next, io, &rc);
	}
	if (rc) {
		plug_srun_io_free(io);
		return errno = ENOMEM, -1;
	}
	return 0;
}

int plug_srun_io_cmdline(const char *cmdline, size_t n, char *const *env, plug_srun_io_t *io)
{
	size_t words = 0, k = 0;
	char **argv;
	int rc;

	for (size_t i = 0; i < n; i++)
		words += cmdline[i] == '\0' || i + 1 == n;
	if (!(argv = calloc(words + 1, sizeof(*argv))))
		return errno = ENOMEM, -1;
	for (size_t i = 0; i < n && k < words; k++) {
		size_t len = strnlen(cmdline + i, n - i);

		if (!(argv[k] = strndup(cmdline + i, len)))
			break;
		i += len + 1;
	}
	rc = k == words ? plug_srun_io_parse(argv, env, io) : (errno = ENOMEM, -1);
	for (size_t i = 0; i < words; i++)
		free(argv[i]);
	free(argv);
	return rc;
}

void plug_srun_io_free(plug_srun_io_t *io)
{
	free(io->out);
	free(io->err);
	*io = (plug_srun_io_t){ 0 };
}
