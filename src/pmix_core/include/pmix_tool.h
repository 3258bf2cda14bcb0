/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmix_tool.h - the PMIx tool interface, for programs that were not
 * started by a PMIx server but attach to one: debuggers, monitors,
 * launchers.  A tool gets its own identity from the server it connects
 * to and then uses the client calls of pmix.h (queries, IO forwarding,
 * events, spawn) through that connection.
 *
 * Functions return PMIX_SUCCESS or an error status; they may be called
 * from any thread except from inside a PMIx callback.
 */
#ifndef SLURMIX_PMIX_TOOL_H
#define SLURMIX_PMIX_TOOL_H

#include <pmix.h>
#include <pmix_server.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Start the tool library and connect to a server chosen by the info
   (PMIX_SERVER_URI, PMIX_SERVER_PIDINFO, PMIX_CONNECT_TO_SYSTEM, ...). */
PMIX_EXPORT pmix_status_t PMIx_tool_init(pmix_proc_t *proc, pmix_info_t info[],
                                         size_t ninfo);
PMIX_EXPORT pmix_status_t PMIx_tool_finalize(void);
PMIX_EXPORT bool PMIx_tool_is_connected(void);

/* Manage connections to several servers. */
PMIX_EXPORT pmix_status_t PMIx_tool_attach_to_server(pmix_proc_t *myproc,
                                                     pmix_proc_t *server,
                                                     pmix_info_t info[],
                                                     size_t ninfo);
PMIX_EXPORT pmix_status_t PMIx_tool_disconnect(const pmix_proc_t *server);
PMIX_EXPORT pmix_status_t PMIx_tool_get_servers(pmix_proc_t *servers[],
                                                size_t *nservers);
PMIX_EXPORT pmix_status_t PMIx_tool_set_server(const pmix_proc_t *server,
                                               pmix_info_t info[],
                                               size_t ninfo);

/* Let the tool serve clients of its own through a host module. */
PMIX_EXPORT pmix_status_t PMIx_tool_set_server_module(pmix_server_module_t *module);

#ifdef __cplusplus
}
#endif

#endif /* SLURMIX_PMIX_TOOL_H */
