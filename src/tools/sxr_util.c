/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sxr_util.c - the small helpers every file of slurmix-run uses: messages
 * on stderr, the monotonic clock, and NULL-terminated string arrays
 * (argv copies, environments).
 *
 * They keep no state and change none of the launcher's (sxr_verbose only
 * reads an option set before the server starts), so any thread may call
 * them: the server's progress thread does, through the copies and the
 * queue of sxr_req.c.
 */
#include "sxr.h"
#include "sxr_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---------------------------------------------------------------- messages */

double sxr_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void vmsg(const char *fmt, va_list ap)
{
	char buf[1024];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	fprintf(stderr, "%s: %s\n", SXR_NAME, buf);
}

void sxr_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

void sxr_verbose(struct sxr *s, const char *fmt, ...)
{
	va_list ap;

	if (!s->o.verbose)
		return;
	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

/* ---------------------------------------------------------------- argv/env */

int sxr_argv_add(char ***argv, const char *str)
{
	size_t n = 0;
	char **nv, *dup = strdup(str);

	while (*argv && (*argv)[n])
		n++;
	nv = dup ? realloc(*argv, (n + 2) * sizeof(char *)) : NULL;
	if (!nv) {
		free(dup);
		return -1;
	}
	nv[n] = dup;
	nv[n + 1] = NULL;
	*argv = nv;
	return 0;
}

void sxr_argv_free(char **argv)
{
	for (char **p = argv; p && *p; p++)
		free(*p);
	free(argv);
}

char **sxr_argv_dup(char **argv)
{
	char **out = calloc(1, sizeof(char *));

	for (char **p = argv; out && p && *p; p++)
		if (sxr_argv_add(&out, *p) < 0) {
			sxr_argv_free(out);
			return NULL;
		}
	return out;
}

static char **env_slot(char **env, const char *name)
{
	size_t len = strlen(name);

	for (char **p = env; p && *p; p++)
		if (!strncmp(*p, name, len) && (*p)[len] == '=')
			return p;
	return NULL;
}

const char *sxr_env_get(char **env, const char *name)
{
	char **slot = env_slot(env, name);

	return slot ? *slot + strlen(name) + 1 : NULL;
}

/* Sets (value) or removes (NULL) name in a malloc'd environment array. */
int sxr_env_set(char ***envp, const char *name, const char *value)
{
	char **slot = env_slot(*envp, name), *entry;

	if (!value) {
		if (slot) {
			free(*slot);
			do
				slot[0] = slot[1];
			while (*slot++);
		}
		return 0;
	}
	if (asprintf(&entry, "%s=%s", name, value) < 0)
		return -1;
	if (slot) {
		free(*slot);
		*slot = entry;
		return 0;
	}
	if (sxr_argv_add(envp, entry) < 0) {
		free(entry);
		return -1;
	}
	free(entry);
	return 0;
}
