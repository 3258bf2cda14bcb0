/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net/group.h - the server module's group (net/group.c): group construct
 * and destruct between the members' step daemons. Progress thread.
 */
#ifndef PLUG_NET_GROUP_H
#define PLUG_NET_GROUP_H

#include <pmix_server.h>

pmix_status_t plug_group(pmix_group_operation_t op, char grp[], const pmix_proc_t procs[],
			 size_t nprocs, const pmix_info_t info[], size_t ninfo,
			 pmix_info_cbfunc_t cbfunc, void *cbdata);

#endif
