/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ptools.h - what OpenPMIx 4.2's own command-line tools (pps, pquery,
 * pevent, plookup, pattrs, as Debian's libpmix-bin ships them) take from
 * their libpmix.so.2 besides the PMIx API: a small object system whose
 * memory layout their inline code touches, a command-line parser, help
 * texts and attribute names (ptools.c, docs/iof.md "OpenPMIx's tools").
 *
 * The layouts are those of OpenPMIx 4.2 built without debugging
 * (x86_64; ptools.c checks the offsets at compile time). Only these tools
 * use any of it; nothing of the core does.
 */
#ifndef PXC_COMPAT_PTOOLS_H
#define PXC_COMPAT_PTOOLS_H

#include <getopt.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pmix_common.h>

typedef struct ptl_class ptl_class_t;
typedef struct ptl_object ptl_object_t;
typedef void (*ptl_ctor_f)(ptl_object_t *obj);

struct ptl_class {
	const char *name;
	ptl_class_t *parent;
	ptl_ctor_f construct, destruct;
	int initialized; /* == pmix_class_init_epoch: the arrays are set */
	int depth;
	ptl_ctor_f *construct_array; /* parents' first, NULL-terminated */
	ptl_ctor_f *destruct_array;  /* own first, NULL-terminated */
	size_t size;
};

struct ptl_object {
	pthread_mutex_t lock;
	ptl_class_t *cls;
	int32_t refcount;
	void *tma[5]; /* an allocator's hooks: unused, zero */
	void *arena;
	bool dontfree;
};

typedef struct ptl_item {
	ptl_object_t super;
	struct ptl_item *volatile next, *volatile prev;
	int32_t item_free;
} ptl_item_t;

typedef struct {
	ptl_object_t super;
	ptl_item_t sentinel;
	volatile size_t length;
} ptl_list_t;

/* One option of a parsed command line: its long name and values (NULL:
 * a flag). */
typedef struct {
	ptl_item_t super;
	char *key;
	char **values;
} ptl_cli_item_t;

typedef struct {
	ptl_object_t super;
	ptl_list_t instances; /* of ptl_cli_item_t */
	char **tail;          /* the arguments after the options */
} ptl_cli_result_t;

typedef struct {
	ptl_object_t super;
	pthread_mutex_t m;
} ptl_mutex_t;

typedef struct {
	ptl_item_t super;
	pmix_info_t info;
} ptl_infolist_t;

typedef struct {
	ptl_item_t super;
	pmix_query_t query;
} ptl_querylist_t;

/* The tools' names for the classes and their state. */
PMIX_EXPORT extern int pmix_class_init_epoch;
PMIX_EXPORT extern ptl_class_t pmix_object_t_class, pmix_list_item_t_class, pmix_list_t_class,
	pmix_mutex_t_class, pmix_cli_item_t_class, pmix_cli_result_t_class, pmix_infolist_t_class,
	pmix_querylist_t_class;
PMIX_EXPORT extern const char *pmix_tool_basename, *pmix_tool_org, *pmix_tool_version,
	*pmix_tool_msg;
PMIX_EXPORT extern const char *PMIX_PROXY_VERSION, *PMIX_PROXY_BUGREPORT;
PMIX_EXPORT extern struct ptl_framework {
	unsigned char opaque[592];
} pmix_pinstalldirs_base_framework;

/* Sets a class's constructor and destructor arrays (from its parents). */
PMIX_EXPORT void pmix_class_initialize(ptl_class_t *cls);

/* The set-up calls the tools make first: nothing to set up here, they
 * succeed (pmix_output_init returns true). */
PMIX_EXPORT bool pmix_output_init(void);
PMIX_EXPORT int pmix_mca_base_framework_open(struct ptl_framework *framework, int flags);
PMIX_EXPORT int pmix_mca_base_var_init(void);
PMIX_EXPORT int pmix_pinstall_dirs_base_init(pmix_info_t info[], size_t ninfo);
PMIX_EXPORT pmix_status_t pmix_show_help_init(char *helpdir);
PMIX_EXPORT int pmix_util_keyval_parse_init(void);
PMIX_EXPORT pmix_status_t pmix_register_params(void);
PMIX_EXPORT int pmix_init_util(pmix_info_t info[], size_t ninfo, char *libdir);

/* argv's options (shorts and opts as for getopt_long) into results:
 * PMIX_SUCCESS, PMIX_OPERATION_SUCCEEDED after printing help (the tool
 * exits 0), PMIX_ERR_SILENT after printing an error. storefn must be
 * NULL (the default store). */
PMIX_EXPORT int pmix_cmd_line_parse(char **argv, char *shorts, struct option opts[], void *storefn,
				    ptl_cli_result_t *results, char *helpfile);

/* A topic of an OpenPMIx help file, formatted with the arguments
 * (malloc'ed), or NULL; pmix_show_help writes it to stderr. */
PMIX_EXPORT char *pmix_show_help_string(const char *filename, const char *topic,
					int want_error_header, ...);
PMIX_EXPORT pmix_status_t pmix_show_help(const char *filename, const char *topic,
					 int want_error_header, ...);
PMIX_EXPORT int pmix_asprintf(char **ptr, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Attribute names: "PMIX_QUERY_NAMESPACES" <-> "pmix.qry.ns" (either way
 * an unknown input comes back), and the attribute tables pattrs prints:
 * a level's functions (print_functions: the title, then one per line),
 * the attributes of the functions named (print_attr: level is a
 * PMIX_*_ATTRIBUTES key, function a comma list or "all"; the host level
 * only in a server process), from common/attr_support.c. */
PMIX_EXPORT const char *pmix_attributes_lookup(const char *name);
PMIX_EXPORT const char *pmix_attributes_reverse_lookup(const char *attrstring);
PMIX_EXPORT void pmix_init_registered_attrs(void);
PMIX_EXPORT pmix_status_t pmix_register_client_attrs(void);
PMIX_EXPORT pmix_status_t pmix_register_server_attrs(void);
PMIX_EXPORT pmix_status_t pmix_register_tool_attrs(void);
PMIX_EXPORT char **pmix_attributes_print_functions(char *level);
PMIX_EXPORT char **pmix_attributes_print_attr(char *level, char *function);
PMIX_EXPORT void pmix_attributes_print_headers(char ***ans, char *level);
PMIX_EXPORT void pmix_attributes_print_attrs(char ***ans, char *function, pmix_regattr_t *attrs,
					     size_t nattrs);

#endif
