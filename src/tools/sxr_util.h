/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sxr_util.h - the small helpers of slurmix-run (sxr_util.c): messages on
 * stderr, the monotonic clock, NULL-terminated string arrays (argv copies,
 * environments).
 *
 * Any thread may call them. The arrays are malloc'd, and so is each of
 * their strings; sxr_argv_free frees both.
 */
#ifndef SXR_UTIL_H
#define SXR_UTIL_H

#include "sxr.h"

/* Returns monotonic seconds: the clock of every timer of the launcher. */
double sxr_now(void);
/* Prints "slurmix-run: <message>" on stderr. */
void sxr_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same, with --verbose only. */
void sxr_verbose(struct sxr *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Sets (value) or removes (NULL) name in a malloc'd environment array;
 * 0, or -1 if out of memory (the array unchanged). */
int sxr_env_set(char ***envp, const char *name, const char *value);
/* Returns the value of name in env (env keeps it), or NULL. */
const char *sxr_env_get(char **env, const char *name);
/* Returns a copy of argv (NULL gives an empty array), or NULL. */
char **sxr_argv_dup(char **argv);
/* Frees argv and its strings; accepts NULL. */
void sxr_argv_free(char **argv);
/* Appends a copy of s to *argv (NULL is an empty array); 0, or -1 if out
 * of memory (*argv unchanged). */
int sxr_argv_add(char ***argv, const char *s);

#endif
