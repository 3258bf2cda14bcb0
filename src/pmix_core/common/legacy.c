/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * legacy.c - lower-case symbols that binaries built against OpenPMIx <= 4.1
 * headers call directly (declared in those releases' pmix_extend.h):
 * pmix_value_load/unload/xfer, pmix_argv_*, pmix_setenv. They forward to
 * the PMIx_* functions.
 *
 * Why this file includes no PMIx header: the 4.2.3+ headers (and ours)
 * #define these lower-case names to the PMIx_* functions, and the 4.2.0-4.2.2
 * headers define them as static inline functions; either would collide with
 * the definitions below. So the few prototypes needed are declared here with
 * ABI-identical types (pmix_value_t is passed by pointer only, so it is
 * opaque here; pmix_status_t is int, pmix_data_type_t is uint16_t).
 *
 * pmix_value_load returns nothing, as in those headers.
 * pmix_argv_append_unique_nosize takes the two-argument form of v4.1
 * (v3.2 had a third "bool overwrite" argument; a v3.2 caller passing it is
 * harmless under the SysV calling convention, the extra argument is ignored).
 *
 * Thread safety: as the functions forwarded to.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#undef pmix_value_load
#undef pmix_value_unload
#undef pmix_value_xfer
#undef pmix_argv_append_nosize
#undef pmix_argv_prepend_nosize
#undef pmix_argv_append_unique_nosize
#undef pmix_argv_free
#undef pmix_argv_split
#undef pmix_argv_count
#undef pmix_argv_join
#undef pmix_argv_copy
#undef pmix_setenv

#define LEGACY __attribute__((visibility("default")))

/* The PMIx_* functions forwarded to (defined in value.c and argv.c). */
int PMIx_Value_load(void *val, const void *data, uint16_t type);
int PMIx_Value_unload(void *val, void **data, size_t *sz);
int PMIx_Value_xfer(void *dest, const void *src);
int PMIx_Argv_append_nosize(char ***argv, const char *arg);
int PMIx_Argv_prepend_nosize(char ***argv, const char *arg);
int PMIx_Argv_append_unique_nosize(char ***argv, const char *arg);
void PMIx_Argv_free(char **argv);
char **PMIx_Argv_split(const char *src_string, int delimiter);
int PMIx_Argv_count(char **argv);
char *PMIx_Argv_join(char **argv, int delimiter);
char **PMIx_Argv_copy(char **argv);
int PMIx_Setenv(const char *name, const char *value, bool overwrite, char ***env);

LEGACY void pmix_value_load(void *v, const void *data, uint16_t type);
LEGACY int pmix_value_unload(void *kv, void **data, size_t *sz);
LEGACY int pmix_value_xfer(void *kv, const void *src);
LEGACY int pmix_argv_append_nosize(char ***argv, const char *arg);
LEGACY int pmix_argv_prepend_nosize(char ***argv, const char *arg);
LEGACY int pmix_argv_append_unique_nosize(char ***argv, const char *arg);
LEGACY void pmix_argv_free(char **argv);
LEGACY char **pmix_argv_split(const char *src_string, int delimiter);
LEGACY int pmix_argv_count(char **argv);
LEGACY char *pmix_argv_join(char **argv, int delimiter);
LEGACY char **pmix_argv_copy(char **argv);
LEGACY int pmix_setenv(const char *name, const char *value, bool overwrite, char ***env);

void pmix_value_load(void *v, const void *data, uint16_t type)
{
	(void)PMIx_Value_load(v, data, type);
}

int pmix_value_unload(void *kv, void **data, size_t *sz)
{
	return PMIx_Value_unload(kv, data, sz);
}

int pmix_value_xfer(void *kv, const void *src)
{
	return PMIx_Value_xfer(kv, src);
}

int pmix_argv_append_nosize(char ***argv, const char *arg)
{
	return PMIx_Argv_append_nosize(argv, arg);
}

int pmix_argv_prepend_nosize(char ***argv, const char *arg)
{
	return PMIx_Argv_prepend_nosize(argv, arg);
}

int pmix_argv_append_unique_nosize(char ***argv, const char *arg)
{
	return PMIx_Argv_append_unique_nosize(argv, arg);
}

void pmix_argv_free(char **argv)
{
	PMIx_Argv_free(argv);
}

char **pmix_argv_split(const char *src_string, int delimiter)
{
	return PMIx_Argv_split(src_string, delimiter);
}

int pmix_argv_count(char **argv)
{
	return PMIx_Argv_count(argv);
}

char *pmix_argv_join(char **argv, int delimiter)
{
	return PMIx_Argv_join(argv, delimiter);
}

char **pmix_argv_copy(char **argv)
{
	return PMIx_Argv_copy(argv);
}

int pmix_setenv(const char *name, const char *value, bool overwrite, char ***env)
{
	return PMIx_Setenv(name, value, overwrite, env);
}
