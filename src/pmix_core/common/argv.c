/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * argv.c - NULL-terminated string arrays ("argv") and environment arrays:
 * PMIx_Argv_* and PMIx_Setenv.
 *
 * An argv is a malloc'ed array of malloc'ed strings ending in NULL; a NULL
 * argv is the empty one. Every function that grows an argv reallocates it,
 * so the caller's pointer may change, and on allocation failure the argv is
 * left as it was. The legacy lower-case names (pmix_argv_*, pmix_setenv)
 * are defined in legacy.c on top of these.
 *
 * Thread safety: none needed; PMIx_Setenv on &environ is as unsafe as
 * setenv(3) itself.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pmix.h>

int PMIx_Argv_count(char **argv)
{
	int n = 0;

	while (argv && argv[n])
		n++;
	return n;
}

/* Grows *argv by one slot at position pos (0 = front, count = back) and
 * stores an owned copy of arg there. */
static pmix_status_t argv_insert(char ***argv, const char *arg, int pos)
{
	int n;
	char **grown, *copy;

	if (!argv || !arg)
		return PMIX_ERR_BAD_PARAM;
	n = PMIx_Argv_count(*argv);
	copy = strdup(arg);
	if (!copy)
		return PMIX_ERR_NOMEM;
	grown = realloc(*argv, (size_t)(n + 2) * sizeof(char *));
	if (!grown) {
		free(copy);
		return PMIX_ERR_NOMEM;
	}
	memmove(&grown[pos + 1], &grown[pos], (size_t)(n - pos) * sizeof(char *));
	grown[pos] = copy;
	grown[n + 1] = NULL;
	*argv = grown;
	return PMIX_SUCCESS;
}

pmix_status_t PMIx_Argv_append_nosize(char ***argv, const char *arg)
{
	return argv_insert(argv, arg, argv ? PMIx_Argv_count(*argv) : 0);
}

pmix_status_t PMIx_Argv_prepend_nosize(char ***argv, const char *arg)
{
	return argv_insert(argv, arg, 0);
}

pmix_status_t PMIx_Argv_append_unique_nosize(char ***argv, const char *arg)
{
	int i;

	if (!argv || !arg)
		return PMIX_ERR_BAD_PARAM;
	for (i = 0; *argv && (*argv)[i]; i++)
		if (!strcmp((*argv)[i], arg))
			return PMIX_SUCCESS;
	return PMIx_Argv_append_nosize(argv, arg);
}

void PMIx_Argv_free(char **argv)
{
	char **p;

	if (!argv)
		return;
	for (p = argv; *p; p++)
		free(*p);
	free(argv);
}

/* Appends src[0..len) as a new string. */
static pmix_status_t append_span(char ***argv, const char *src, size_t len)
{
	char *s = strndup(src, len);
	pmix_status_t rc;

	if (!s)
		return PMIX_ERR_NOMEM;
	rc = PMIx_Argv_append_nosize(argv, s);
	free(s);
	return rc;
}

char **PMIx_Argv_split_inter(const char *src_string, int delimiter, bool include_empty)
{
	char **argv = NULL;
	const char *p, *end;

	if (!src_string)
		return NULL;
	for (p = src_string;; p = end + 1) {
		end = strchr(p, delimiter);
		if (!end || delimiter == '\0')
			end = p + strlen(p);
		if ((end > p || include_empty) && append_span(&argv, p, (size_t)(end - p))) {
			PMIx_Argv_free(argv);
			return NULL;
		}
		if (*end == '\0')
			break;
	}
	return argv;
}

char **PMIx_Argv_split_with_empty(const char *src_string, int delimiter)
{
	return PMIx_Argv_split_inter(src_string, delimiter, true);
}

char **PMIx_Argv_split(const char *src_string, int delimiter)
{
	return PMIx_Argv_split_inter(src_string, delimiter, false);
}

/* The empty argv joins to "" (a new string), as in OpenPMIx. */
char *PMIx_Argv_join(char **argv, int delimiter)
{
	size_t len = 0, off = 0, l;
	char *out;
	int i;

	for (i = 0; argv && argv[i]; i++)
		len += strlen(argv[i]) + 1;
	out = malloc(len ? len : 1);
	if (!out)
		return NULL;
	for (i = 0; argv && argv[i]; i++) {
		l = strlen(argv[i]);
		memcpy(out + off, argv[i], l);
		off += l;
		if (argv[i + 1])
			out[off++] = (char)delimiter;
	}
	out[off] = '\0';
	return out;
}

char **PMIx_Argv_copy(char **argv)
{
	char **dup;
	int i, n;

	if (!argv)
		return NULL;
	n = PMIx_Argv_count(argv);
	dup = calloc((size_t)n + 1, sizeof(char *));
	if (!dup)
		return NULL;
	for (i = 0; i < n; i++) {
		dup[i] = strdup(argv[i]);
		if (!dup[i]) {
			PMIx_Argv_free(dup);
			return NULL;
		}
	}
	return dup;
}

/* Index of "name=..." in env, or -1. */
static int env_find(char **env, const char *name)
{
	size_t len = strlen(name);
	int i;

	for (i = 0; env && env[i]; i++)
		if (!strncmp(env[i], name, len) && env[i][len] == '=')
			return i;
	return -1;
}

/* Sets name=value in *env. When env is the process environment (&environ)
 * setenv(3) is used so libc stays consistent. PMIX_ERR_BAD_PARAM for a bad
 * name, PMIX_EXISTS when it is set and overwrite is false. */
pmix_status_t PMIx_Setenv(const char *name, const char *value, bool overwrite, char ***env)
{
	extern char **environ;
	char *entry;
	int i;

	if (!name || !*name || strchr(name, '=') || !env)
		return PMIX_ERR_BAD_PARAM;
	if (*env == environ && environ) {
		if (!overwrite && getenv(name))
			return PMIX_EXISTS;
		return setenv(name, value ? value : "", 1) ? PMIX_ERR_NOMEM : PMIX_SUCCESS;
	}
	i = env_find(*env, name);
	if (i >= 0 && !overwrite)
		return PMIX_EXISTS;
	if (asprintf(&entry, "%s=%s", name, value ? value : "") < 0)
		return PMIX_ERR_NOMEM;
	if (i >= 0) {
		free((*env)[i]);
		(*env)[i] = entry;
		return PMIX_SUCCESS;
	}
	i = PMIx_Argv_append_nosize(env, entry);
	free(entry);
	return i;
}
