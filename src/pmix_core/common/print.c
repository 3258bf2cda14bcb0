/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * print.c - human-readable renderings: PMIx_Value_string, PMIx_Info_string,
 * PMIx_Data_print, PMIx_App_string, PMIx_Proc_string.
 *
 * All renderings are built by appending to one malloc'ed string
 * (pxc_sappend); pxc_elem_print renders one element of any type and
 * recurses into data arrays, values and infos, indenting nested arrays so a
 * deep structure stays readable. The returned strings belong to the caller.
 * The exact layout is ours (no tool parses it); enum values use the same
 * names as the PMIx_*_string functions.
 *
 * Thread safety: none needed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <hwloc.h>
#include <pmix.h>

#include "print.h"
#include "types.h"

int pxc_sappend(char **out, const char *fmt, ...)
{
	va_list ap;
	char *add = NULL, *grown;
	size_t old = *out ? strlen(*out) : 0;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&add, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	grown = realloc(*out, old + (size_t)n + 1);
	if (!grown) {
		free(add);
		return -1;
	}
	memcpy(grown + old, add, (size_t)n + 1);
	free(add);
	*out = grown;
	return 0;
}

static const char *rank_name(pmix_rank_t r, char *buf, size_t len)
{
	switch (r) {
	case PMIX_RANK_UNDEF: return "PMIX_RANK_UNDEF";
	case PMIX_RANK_WILDCARD: return "PMIX_RANK_WILDCARD";
	case PMIX_RANK_LOCAL_NODE: return "PMIX_RANK_LOCAL_NODE";
	case PMIX_RANK_INVALID: return "PMIX_RANK_INVALID";
	case PMIX_RANK_LOCAL_PEERS: return "PMIX_RANK_LOCAL_PEERS";
	default: snprintf(buf, len, "%u", r); return buf;
	}
}

static const char *safe(const char *s)
{
	return s ? s : "NULL";
}

static int print_scalar(char **o, const void *e, pmix_data_type_t t)
{
	char rb[16];

/* clang-format: macros that make case labels */
/* clang-format off */
#define P(T, C, F) case T: return pxc_sappend(o, F, *(const C *)e)
	switch (t) {
	case PMIX_BOOL:
		return pxc_sappend(o, "%s", *(const bool *)e ? "TRUE" : "FALSE");
	P(PMIX_BYTE, uint8_t, "%u");
	P(PMIX_SIZE, size_t, "%zu");
	P(PMIX_PID, pid_t, "%d");
	P(PMIX_INT, int, "%d");
	P(PMIX_INT8, int8_t, "%d");
	P(PMIX_INT16, int16_t, "%d");
	P(PMIX_INT32, int32_t, "%d");
	P(PMIX_INT64, int64_t, "%" PRId64);
	P(PMIX_UINT, unsigned int, "%u");
	P(PMIX_UINT8, uint8_t, "%u");
	P(PMIX_UINT16, uint16_t, "%u");
	P(PMIX_UINT32, uint32_t, "%u");
	P(PMIX_UINT64, uint64_t, "%" PRIu64);
	P(PMIX_FLOAT, float, "%f");
	P(PMIX_DOUBLE, double, "%f");
	P(PMIX_TIME, time_t, "%ld");
	P(PMIX_COMMAND, uint8_t, "%u");
	P(PMIX_IOF_CHANNEL, pmix_iof_channel_t, "0x%x");
	P(PMIX_LOCTYPE, pmix_locality_t, "0x%x");
	P(PMIX_STOR_MEDIUM, uint64_t, "0x%" PRIx64);
	P(PMIX_STOR_ACCESS, uint64_t, "0x%" PRIx64);
	P(PMIX_STOR_PERSIST, uint64_t, "0x%" PRIx64);
	P(PMIX_STOR_ACCESS_TYPE, uint16_t, "0x%x");
	P(PMIX_POINTER, void *const, "%p");
	case PMIX_TIMEVAL:
		return pxc_sappend(o, "%lld.%06lld", (long long)((const struct timeval *)e)->tv_sec,
				   (long long)((const struct timeval *)e)->tv_usec);
	case PMIX_STATUS:
		return pxc_sappend(o, "%s", PMIx_Error_string(*(const pmix_status_t *)e));
	case PMIX_PROC_RANK:
		return pxc_sappend(o, "%s", rank_name(*(const pmix_rank_t *)e, rb, sizeof(rb)));
	case PMIX_PERSIST:
		return pxc_sappend(o, "%s", PMIx_Persistence_string(*(const uint8_t *)e));
	case PMIX_SCOPE:
		return pxc_sappend(o, "%s", PMIx_Scope_string(*(const uint8_t *)e));
	case PMIX_DATA_RANGE:
		return pxc_sappend(o, "%s", PMIx_Data_range_string(*(const uint8_t *)e));
	case PMIX_PROC_STATE:
		return pxc_sappend(o, "%s", PMIx_Proc_state_string(*(const uint8_t *)e));
	case PMIX_JOB_STATE:
		return pxc_sappend(o, "%s", PMIx_Job_state_string(*(const uint8_t *)e));
	case PMIX_LINK_STATE:
		return pxc_sappend(o, "%s", PMIx_Link_state_string(*(const uint8_t *)e));
	case PMIX_ALLOC_DIRECTIVE:
		return pxc_sappend(o, "%s", PMIx_Alloc_directive_string(*(const uint8_t *)e));
	case PMIX_DATA_TYPE:
		return pxc_sappend(o, "%s", PMIx_Data_type_string(*(const pmix_data_type_t *)e));
	case PMIX_DEVTYPE:
		return pxc_sappend(o, "%s", PMIx_Device_type_string(*(const pmix_device_type_t *)e));
	default:
		return pxc_sappend(o, "<unprintable type %u>", (unsigned)t);
	}
#undef P
	/* clang-format on */
}

static int print_dirs(char **o, pmix_info_directives_t d)
{
	char *s = PMIx_Info_directives_string(d);
	int rc;

	if (!s)
		return -1;
	rc = pxc_sappend(o, "%s", s);
	free(s);
	return rc;
}

static int print_value(char **o, const pmix_value_t *v)
{
	const void *e = pxc_value_elem(v);

	if (pxc_sappend(o, "%s: ", PMIx_Data_type_string(v->type)))
		return -1;
	if (v->type == PMIX_UNDEF)
		return pxc_sappend(o, "(none)");
	if (!e)
		return pxc_sappend(o, "NULL");
	return pxc_elem_print(o, e, v->type);
}

static int print_darray(char **o, const pmix_data_array_t *d)
{
	size_t i, esz = pxc_type_size(d->type);

	if (pxc_sappend(o, "ARRAY of %zu %s [", d->size, PMIx_Data_type_string(d->type)))
		return -1;
	for (i = 0; esz && d->array && i < d->size; i++) {
		if (pxc_sappend(o, "%s", i ? ", " : "") ||
		    pxc_elem_print(o, (const char *)d->array + i * esz, d->type))
			return -1;
	}
	return pxc_sappend(o, "]");
}

static int print_argv(char **o, const char *label, char **argv)
{
	char *j = argv ? PMIx_Argv_join(argv, ',') : NULL;
	int rc = pxc_sappend(o, "%s: %s", label, argv ? safe(j) : "NONE");

	free(j);
	return rc;
}

static int print_info_array(char **o, const pmix_info_t *info, size_t n)
{
	pmix_data_array_t d = { PMIX_INFO, n, (void *)info };

	return print_darray(o, &d);
}

static int print_proc(char **o, const pmix_proc_t *p)
{
	char rb[16];

	return pxc_sappend(o, "%.*s:%s", PMIX_MAX_NSLEN, p->nspace,
			   rank_name(p->rank, rb, sizeof(rb)));
}

static int print_struct(char **o, const void *e, pmix_data_type_t t)
{
	switch (t) {
	case PMIX_APP: {
		char *s = PMIx_App_string(e);
		int rc = s ? pxc_sappend(o, "%s", s) : -1;
		free(s);
		return rc;
	}
	case PMIX_QUERY: {
		const pmix_query_t *q = e;
		return print_argv(o, "KEYS", q->keys) || pxc_sappend(o, " QUALIFIERS: ") ||
		       print_info_array(o, q->qualifiers, q->nqual);
	}
	case PMIX_PROC_INFO: {
		const pmix_proc_info_t *p = e;
		return pxc_sappend(o, "PROC: ") || print_proc(o, &p->proc) ||
		       pxc_sappend(o, " HOST: %s EXE: %s PID: %d EXIT: %d STATE: %s",
				   safe(p->hostname), safe(p->executable_name), (int)p->pid,
				   p->exit_code, PMIx_Proc_state_string(p->state));
	}
	case PMIX_COORD: {
		const pmix_coord_t *c = e;
		size_t i;
		if (pxc_sappend(o, "VIEW: %s DIMS: %zu COORD: (",
				c->view == PMIX_COORD_LOGICAL_VIEW  ? "LOGICAL" :
				c->view == PMIX_COORD_PHYSICAL_VIEW ? "PHYSICAL" :
								      "UNDEF",
				c->dims))
			return -1;
		for (i = 0; c->coord && i < c->dims; i++)
			if (pxc_sappend(o, "%s%u", i ? "," : "", c->coord[i]))
				return -1;
		return pxc_sappend(o, ")");
	}
	case PMIX_REGATTR: {
		const pmix_regattr_t *r = e;
		return pxc_sappend(o, "NAME: %s STRING: %.*s TYPE: %s ", safe(r->name),
				   PMIX_MAX_KEYLEN, r->string, PMIx_Data_type_string(r->type)) ||
		       print_argv(o, "DESCRIPTION", r->description);
	}
	case PMIX_TOPO: {
		const pmix_topology_t *tp = e;
		return pxc_sappend(o, "SOURCE: %s TOPOLOGY: %p", safe(tp->source), tp->topology);
	}
	case PMIX_PROC_CPUSET: {
		const pmix_cpuset_t *c = e;
		char *list = NULL;
		int rc;
		if (c->source && !strcasecmp(c->source, "hwloc") && c->bitmap)
			hwloc_bitmap_list_asprintf(&list, c->bitmap);
		rc = pxc_sappend(o, "SOURCE: %s CPUS: %s", safe(c->source), safe(list));
		free(list);
		return rc;
	}
	case PMIX_GEOMETRY: {
		const pmix_geometry_t *g = e;
		pmix_data_array_t d = { PMIX_COORD, g->ncoords, g->coordinates };
		return pxc_sappend(o, "FABRIC: %zu UUID: %s OSNAME: %s COORDS: ", g->fabric,
				   safe(g->uuid), safe(g->osname)) ||
		       print_darray(o, &d);
	}
	case PMIX_DEVICE_DIST: {
		const pmix_device_distance_t *d = e;
		return pxc_sappend(o, "UUID: %s OSNAME: %s TYPE: %s MINDIST: %u MAXDIST: %u",
				   safe(d->uuid), safe(d->osname), PMIx_Device_type_string(d->type),
				   d->mindist, d->maxdist);
	}
	case PMIX_ENDPOINT: {
		const pmix_endpoint_t *p = e;
		return pxc_sappend(o, "UUID: %s OSNAME: %s ENDPT: %zu bytes", safe(p->uuid),
				   safe(p->osname), p->endpt.size);
	}
	case PMIX_DATA_BUFFER: {
		const pmix_data_buffer_t *b = e;
		return pxc_sappend(o, "BUFFER: %zu bytes used of %zu", b->bytes_used,
				   b->bytes_allocated);
	}
	case PMIX_PROC_STATS: {
		const pmix_proc_stats_t *p = e;
		return pxc_sappend(o, "NODE: %s PROC: ", safe(p->node)) ||
		       print_proc(o, &p->proc) ||
		       pxc_sappend(
			       o,
			       " PID: %d CMD: %s STATE: %c CPU: %f THREADS: %u RSS: %f VSIZE: %f",
			       (int)p->pid, safe(p->cmd), p->state ? p->state : '-', p->percent_cpu,
			       p->num_threads, p->rss, p->vsize);
	}
	case PMIX_DISK_STATS: {
		const pmix_disk_stats_t *d = e;
		return pxc_sappend(o, "DISK: %s READS: %llu WRITES: %llu", safe(d->disk),
				   (unsigned long long)d->num_reads_completed,
				   (unsigned long long)d->num_writes_completed);
	}
	case PMIX_NET_STATS: {
		const pmix_net_stats_t *n = e;
		return pxc_sappend(o, "NET: %s RECVD: %llu SENT: %llu", safe(n->net_interface),
				   (unsigned long long)n->num_bytes_recvd,
				   (unsigned long long)n->num_bytes_sent);
	}
	case PMIX_NODE_STATS: {
		const pmix_node_stats_t *n = e;
		pmix_data_array_t dk = { PMIX_DISK_STATS, n->ndiskstats, n->diskstats };
		pmix_data_array_t nt = { PMIX_NET_STATS, n->nnetstats, n->netstats };
		return pxc_sappend(o, "NODE: %s LOAD: %f FREE MEM: %f DISKS: ", safe(n->node),
				   n->la, n->free_mem) ||
		       print_darray(o, &dk) || pxc_sappend(o, " NETS: ") || print_darray(o, &nt);
	}
	default: return print_scalar(o, e, t);
	}
}

int pxc_elem_print(char **o, const void *e, pmix_data_type_t t)
{
	switch (t) {
	case PMIX_STRING: return pxc_sappend(o, "%s", safe(*(char *const *)e));
	case PMIX_BYTE_OBJECT:
	case PMIX_COMPRESSED_STRING:
	case PMIX_COMPRESSED_BYTE_OBJECT:
	case PMIX_REGEX: return pxc_sappend(o, "%zu bytes", ((const pmix_byte_object_t *)e)->size);
	case PMIX_PROC: return print_proc(o, e);
	case PMIX_PROC_NSPACE: return pxc_sappend(o, "%.*s", PMIX_MAX_NSLEN, (const char *)e);
	case PMIX_ENVAR: {
		const pmix_envar_t *v = e;
		return pxc_sappend(o, "NAME: %s VALUE: %s SEPARATOR: %c", safe(v->envar),
				   safe(v->value), v->separator ? v->separator : ' ');
	}
	case PMIX_DATA_ARRAY: return print_darray(o, e);
	case PMIX_VALUE: return print_value(o, e);
	case PMIX_INFO: {
		const pmix_info_t *i = e;
		return pxc_sappend(o, "KEY: %.*s DIRECTIVES: ", PMIX_MAX_KEYLEN, i->key) ||
		       print_dirs(o, i->flags) || pxc_sappend(o, " VALUE: ") ||
		       print_value(o, &i->value);
	}
	case PMIX_PDATA: {
		const pmix_pdata_t *p = e;
		return pxc_sappend(o, "PROC: ") || print_proc(o, &p->proc) ||
		       pxc_sappend(o, " KEY: %.*s VALUE: ", PMIX_MAX_KEYLEN, p->key) ||
		       print_value(o, &p->value);
	}
	default: return print_struct(o, e, t);
	}
}

char *PMIx_Value_string(const pmix_value_t *value)
{
	char *out = NULL;

	if (!value)
		return strdup("NULL");
	if (print_value(&out, value)) {
		free(out);
		return NULL;
	}
	return out;
}

char *PMIx_Info_string(const pmix_info_t *info)
{
	char *out = NULL;

	if (!info)
		return strdup("NULL");
	if (pxc_elem_print(&out, info, PMIX_INFO)) {
		free(out);
		return NULL;
	}
	return out;
}

pmix_status_t PMIx_Data_print(char **output, char *prefix, void *src, pmix_data_type_t type)
{
	char *out = NULL;
	int rc;

	if (!output)
		return PMIX_ERR_BAD_PARAM;
	*output = NULL;
	if (type != PMIX_UNDEF && !pxc_type_size(type))
		return PMIX_ERR_UNKNOWN_DATA_TYPE;
	rc = pxc_sappend(&out, "%s%s: ", prefix ? prefix : "", PMIx_Data_type_string(type));
	if (!rc && !src)
		rc = pxc_sappend(&out, "NULL");
	else if (!rc && type == PMIX_STRING)
		rc = pxc_sappend(&out, "%s", (const char *)src);
	else if (!rc && type == PMIX_POINTER)
		rc = pxc_sappend(&out, "%p", src);
	else if (!rc && type != PMIX_UNDEF)
		rc = pxc_elem_print(&out, src, type);
	if (rc) {
		free(out);
		return PMIX_ERR_NOMEM;
	}
	*output = out;
	return PMIX_SUCCESS;
}

static int app_lines(char **o, const pmix_app_t *app)
{
	size_t i;

	if (pxc_sappend(o, "CMD: %s\n    ARGV:", safe(app->cmd)))
		return -1;
	for (i = 0; app->argv && app->argv[i]; i++)
		if (pxc_sappend(o, "\n        ARGV[%zu]: %s", i, app->argv[i]))
			return -1;
	if (pxc_sappend(o, "%s\n    ENV:", app->argv ? "" : " NONE"))
		return -1;
	for (i = 0; app->env && app->env[i]; i++)
		if (pxc_sappend(o, "\n        ENV[%zu]: %s", i, app->env[i]))
			return -1;
	if (pxc_sappend(o, "%s\n    CWD: %s\n    MAXPROCS: %d\n    INFO:%s",
			app->env ? "" : " NONE", safe(app->cwd), app->maxprocs,
			app->info ? "" : " NONE"))
		return -1;
	for (i = 0; app->info && i < app->ninfo; i++)
		if (pxc_sappend(o, "\n        INFO[%zu]: ", i) ||
		    pxc_elem_print(o, &app->info[i], PMIX_INFO))
			return -1;
	return 0;
}

char *PMIx_App_string(const pmix_app_t *app)
{
	char *out = NULL;

	if (!app)
		return strdup("NULL");
	if (app_lines(&out, app)) {
		free(out);
		return NULL;
	}
	return out;
}

char *PMIx_Proc_string(const pmix_proc_t *proc)
{
	char *out = NULL;

	if (!proc)
		return strdup("NULL");
	if (print_proc(&out, proc)) {
		free(out);
		return NULL;
	}
	return out;
}
