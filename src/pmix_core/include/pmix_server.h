/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmix_server.h - the PMIx server interface, used by a host (our Slurm
 * plugin, slurmix-run, or any resource manager) to run a PMIx server for
 * the processes it starts.
 *
 * The host fills a pmix_server_module_t with the callbacks it supports
 * (NULL for the others: clients then get PMIX_ERR_NOT_SUPPORTED) and calls
 * PMIx_server_init.  The library owns the client connections and the
 * local part of every collective; it calls the host once per operation
 * that needs the rest of the system.  Host callbacks run on the library's
 * progress thread and must not block: they return PMIX_SUCCESS and
 * complete later through the cbfunc they were given (from any thread),
 * return PMIX_OPERATION_SUCCEEDED when done at once (cbfunc is then not
 * called), or return an error.
 *
 * pmix_server_module_t has the member order of OpenPMIx 4.2, so a host
 * built against OpenPMIx headers can use our library.
 */
#ifndef SLURMIX_PMIX_SERVER_H
#define SLURMIX_PMIX_SERVER_H

#include <pmix_common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Host callbacks                                                      */
/* ------------------------------------------------------------------ */

/* A local client finished its handshake (PMIx_Init). */
typedef pmix_status_t (*pmix_server_client_connected_fn_t)(
        const pmix_proc_t *proc, void *server_object, pmix_op_cbfunc_t cbfunc,
        void *cbdata);

/* Same as client_connected, with the info the client passed. */
typedef pmix_status_t (*pmix_server_client_connected2_fn_t)(
        const pmix_proc_t *proc, void *server_object, pmix_info_t info[],
        size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata);

/* A local client called PMIx_Finalize. */
typedef pmix_status_t (*pmix_server_client_finalized_fn_t)(
        const pmix_proc_t *proc, void *server_object, pmix_op_cbfunc_t cbfunc,
        void *cbdata);

/* A client called PMIx_Abort for the listed processes (all when nprocs is 0). */
typedef pmix_status_t (*pmix_server_abort_fn_t)(
        const pmix_proc_t *proc, void *server_object, int status,
        const char msg[], pmix_proc_t procs[], size_t nprocs,
        pmix_op_cbfunc_t cbfunc, void *cbdata);

/* All local participants reached a fence; `data` is their combined
 * contribution.  The host runs the fence across nodes and returns the
 * combined data of every node through cbfunc. */
typedef pmix_status_t (*pmix_server_fencenb_fn_t)(
        const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
        size_t ninfo, char *data, size_t ndata, pmix_modex_cbfunc_t cbfunc,
        void *cbdata);

/* A local client needs data posted by a remote process. */
typedef pmix_status_t (*pmix_server_dmodex_req_fn_t)(
        const pmix_proc_t *proc, const pmix_info_t info[], size_t ninfo,
        pmix_modex_cbfunc_t cbfunc, void *cbdata);

/* Store published data in the host's directory. */
typedef pmix_status_t (*pmix_server_publish_fn_t)(
        const pmix_proc_t *proc, const pmix_info_t info[], size_t ninfo,
        pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Look published data up in the host's directory. */
typedef pmix_status_t (*pmix_server_lookup_fn_t)(
        const pmix_proc_t *proc, char **keys, const pmix_info_t info[],
        size_t ninfo, pmix_lookup_cbfunc_t cbfunc, void *cbdata);

/* Remove published data from the host's directory. */
typedef pmix_status_t (*pmix_server_unpublish_fn_t)(
        const pmix_proc_t *proc, char **keys, const pmix_info_t info[],
        size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Start a new job; cbfunc returns its namespace. */
typedef pmix_status_t (*pmix_server_spawn_fn_t)(
        const pmix_proc_t *proc, const pmix_info_t job_info[], size_t ninfo,
        const pmix_app_t apps[], size_t napps, pmix_spawn_cbfunc_t cbfunc,
        void *cbdata);

/* Local participants of a connect are ready; run it across nodes. */
typedef pmix_status_t (*pmix_server_connect_fn_t)(
        const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
        size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Local participants of a disconnect are ready; run it across nodes. */
typedef pmix_status_t (*pmix_server_disconnect_fn_t)(
        const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
        size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Clients want to hear about these event codes from the host. */
typedef pmix_status_t (*pmix_server_register_events_fn_t)(
        pmix_status_t *codes, size_t ncodes, const pmix_info_t info[],
        size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Clients no longer want these event codes. */
typedef pmix_status_t (*pmix_server_deregister_events_fn_t)(
        pmix_status_t *codes, size_t ncodes, pmix_op_cbfunc_t cbfunc,
        void *cbdata);

/* Deliver an event raised by a local process beyond this node. */
typedef pmix_status_t (*pmix_server_notify_event_fn_t)(
        pmix_status_t code, const pmix_proc_t *source, pmix_data_range_t range,
        pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cbfunc,
        void *cbdata);

/* Hands an accepted connection back to the library. */
typedef void (*pmix_connection_cbfunc_t)(int incoming_sd, void *cbdata);

/* Lets the host watch the listening socket and pass accepted
 * connections to cbfunc. */
typedef pmix_status_t (*pmix_server_listener_fn_t)(
        int listening_sd, pmix_connection_cbfunc_t cbfunc, void *cbdata);

/* Answer queries the library cannot answer locally. */
typedef pmix_status_t (*pmix_server_query_fn_t)(
        pmix_proc_t *proct, pmix_query_t *queries, size_t nqueries,
        pmix_info_cbfunc_t cbfunc, void *cbdata);

/* Tells the library the identity assigned to a connecting tool. */
typedef void (*pmix_tool_connection_cbfunc_t)(
        pmix_status_t status, pmix_proc_t *proc, void *cbdata);

/* A tool asks to connect; the host assigns it an identity. */
typedef void (*pmix_server_tool_connection_fn_t)(
        pmix_info_t *info, size_t ninfo, pmix_tool_connection_cbfunc_t cbfunc,
        void *cbdata);

/* Log data on behalf of a client. */
typedef void (*pmix_server_log_fn_t)(
        const pmix_proc_t *client, const pmix_info_t data[], size_t ndata,
        const pmix_info_t directives[], size_t ndirs, pmix_op_cbfunc_t cbfunc,
        void *cbdata);

/* Request, extend or release resources. */
typedef pmix_status_t (*pmix_server_alloc_fn_t)(
        const pmix_proc_t *client, pmix_alloc_directive_t directive,
        const pmix_info_t data[], size_t ndata, pmix_info_cbfunc_t cbfunc,
        void *cbdata);

/* Signal, kill, checkpoint, ... the targets. */
typedef pmix_status_t (*pmix_server_job_control_fn_t)(
        const pmix_proc_t *requestor, const pmix_proc_t targets[],
        size_t ntargets, const pmix_info_t directives[], size_t ndirs,
        pmix_info_cbfunc_t cbfunc, void *cbdata);

/* Start or stop monitoring a process. */
typedef pmix_status_t (*pmix_server_monitor_fn_t)(
        const pmix_proc_t *requestor, const pmix_info_t *monitor,
        pmix_status_t error, const pmix_info_t directives[], size_t ndirs,
        pmix_info_cbfunc_t cbfunc, void *cbdata);

/* Issue a credential for a client. */
typedef pmix_status_t (*pmix_server_get_cred_fn_t)(
        const pmix_proc_t *proc, const pmix_info_t directives[], size_t ndirs,
        pmix_credential_cbfunc_t cbfunc, void *cbdata);

/* Check a credential presented by a client. */
typedef pmix_status_t (*pmix_server_validate_cred_fn_t)(
        const pmix_proc_t *proc, const pmix_byte_object_t *cred,
        const pmix_info_t directives[], size_t ndirs,
        pmix_validation_cbfunc_t cbfunc, void *cbdata);

/* Start forwarding the output of the given processes to this server. */
typedef pmix_status_t (*pmix_server_iof_fn_t)(
        const pmix_proc_t procs[], size_t nprocs,
        const pmix_info_t directives[], size_t ndirs,
        pmix_iof_channel_t channels, pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Deliver stdin data to the target processes. */
typedef pmix_status_t (*pmix_server_stdin_fn_t)(
        const pmix_proc_t *source, const pmix_proc_t targets[], size_t ntargets,
        const pmix_info_t directives[], size_t ndirs,
        const pmix_byte_object_t *bo, pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Local members of a group operation are ready; run it across nodes. */
typedef pmix_status_t (*pmix_server_grp_fn_t)(
        pmix_group_operation_t op, char grp[], const pmix_proc_t procs[],
        size_t nprocs, const pmix_info_t directives[], size_t ndirs,
        pmix_info_cbfunc_t cbfunc, void *cbdata);

/* Fabric information request or update. */
typedef pmix_status_t (*pmix_server_fabric_fn_t)(
        const pmix_proc_t *requestor, pmix_fabric_operation_t op,
        const pmix_info_t directives[], size_t ndirs, pmix_info_cbfunc_t cbfunc,
        void *cbdata);

typedef struct pmix_server_module_4_0_0_t {
    /* since PMIx 1 */
    pmix_server_client_connected_fn_t client_connected;
    pmix_server_client_finalized_fn_t client_finalized;
    pmix_server_abort_fn_t abort;
    pmix_server_fencenb_fn_t fence_nb;
    pmix_server_dmodex_req_fn_t direct_modex;
    pmix_server_publish_fn_t publish;
    pmix_server_lookup_fn_t lookup;
    pmix_server_unpublish_fn_t unpublish;
    pmix_server_spawn_fn_t spawn;
    pmix_server_connect_fn_t connect;
    pmix_server_disconnect_fn_t disconnect;
    pmix_server_register_events_fn_t register_events;
    pmix_server_deregister_events_fn_t deregister_events;
    pmix_server_listener_fn_t listener;
    /* since PMIx 2 */
    pmix_server_notify_event_fn_t notify_event;
    pmix_server_query_fn_t query;
    pmix_server_tool_connection_fn_t tool_connected;
    pmix_server_log_fn_t log;
    pmix_server_alloc_fn_t allocate;
    pmix_server_job_control_fn_t job_control;
    pmix_server_monitor_fn_t monitor;
    /* since PMIx 3 */
    pmix_server_get_cred_fn_t get_credential;
    pmix_server_validate_cred_fn_t validate_credential;
    pmix_server_iof_fn_t iof_pull;
    pmix_server_stdin_fn_t push_stdin;
    /* since PMIx 4 */
    pmix_server_grp_fn_t group;
    pmix_server_fabric_fn_t fabric;
    pmix_server_client_connected2_fn_t client_connected2;
} pmix_server_module_t;

/* ------------------------------------------------------------------ */
/* Calls made by the host                                              */
/* ------------------------------------------------------------------ */

/* Result of PMIx_server_dmodex_request. */
typedef void (*pmix_dmodex_response_fn_t)(
        pmix_status_t status, char *data, size_t sz, void *cbdata);

/* Result of PMIx_server_setup_application. */
typedef void (*pmix_setup_application_cbfunc_t)(
        pmix_status_t status, pmix_info_t info[], size_t ninfo,
        void *provided_cbdata, pmix_op_cbfunc_t cbfunc, void *cbdata);
/* Start and stop the server.  The module is copied; info carries
   PMIX_SERVER_* settings.  Call from the host's main thread. */
PMIX_EXPORT pmix_status_t PMIx_server_init(pmix_server_module_t *module,
                                           pmix_info_t info[], size_t ninfo);
PMIX_EXPORT pmix_status_t PMIx_server_finalize(void);

/* Compress node and process-placement lists for PMIX_NODE_MAP and
   PMIX_PROC_MAP.  The result is malloc'ed and belongs to the caller. */
PMIX_EXPORT pmix_status_t PMIx_generate_regex(const char *input, char **regex);
PMIX_EXPORT pmix_status_t PMIx_generate_ppn(const char *input, char **ppn);

/* Describe jobs and the clients the host will start. */
PMIX_EXPORT pmix_status_t PMIx_server_register_nspace(const pmix_nspace_t nspace,
                                                      int nlocalprocs,
                                                      pmix_info_t info[],
                                                      size_t ninfo,
                                                      pmix_op_cbfunc_t cbfunc,
                                                      void *cbdata);
PMIX_EXPORT void PMIx_server_deregister_nspace(const pmix_nspace_t nspace,
                                               pmix_op_cbfunc_t cbfunc,
                                               void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_server_register_client(const pmix_proc_t *proc,
                                                      uid_t uid, gid_t gid,
                                                      void *server_object,
                                                      pmix_op_cbfunc_t cbfunc,
                                                      void *cbdata);
PMIX_EXPORT void PMIx_server_deregister_client(const pmix_proc_t *proc,
                                               pmix_op_cbfunc_t cbfunc,
                                               void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_server_setup_fork(const pmix_proc_t *proc,
                                                 char ***env);

/* Data a remote server asked for on behalf of one of its clients. */
PMIX_EXPORT pmix_status_t PMIx_server_dmodex_request(const pmix_proc_t *proc,
                                                     pmix_dmodex_response_fn_t cbfunc,
                                                     void *cbdata);

/* Application set-up on the launching node and on every node. */
PMIX_EXPORT pmix_status_t PMIx_server_setup_application(const pmix_nspace_t nspace,
                                                        pmix_info_t info[],
                                                        size_t ninfo,
                                                        pmix_setup_application_cbfunc_t cbfunc,
                                                        void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_server_setup_local_support(const pmix_nspace_t nspace,
                                                          pmix_info_t info[],
                                                          size_t ninfo,
                                                          pmix_op_cbfunc_t cbfunc,
                                                          void *cbdata);

/* Forwarded output arriving from elsewhere, for local subscribers. */
PMIX_EXPORT pmix_status_t PMIx_server_IOF_deliver(const pmix_proc_t *source,
                                                  pmix_iof_channel_t channel,
                                                  const pmix_byte_object_t *bo,
                                                  const pmix_info_t info[],
                                                  size_t ninfo,
                                                  pmix_op_cbfunc_t cbfunc,
                                                  void *cbdata);

/* Inventory, attributes, locality strings, process sets, resources. */
PMIX_EXPORT pmix_status_t PMIx_server_collect_inventory(pmix_info_t directives[],
                                                        size_t ndirs,
                                                        pmix_info_cbfunc_t cbfunc,
                                                        void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_server_deliver_inventory(pmix_info_t info[],
                                                        size_t ninfo,
                                                        pmix_info_t directives[],
                                                        size_t ndirs,
                                                        pmix_op_cbfunc_t cbfunc,
                                                        void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_Register_attributes(char *function,
                                                   char *attrs[]);
PMIX_EXPORT pmix_status_t PMIx_server_generate_locality_string(const pmix_cpuset_t *cpuset,
                                                               char **locality);
PMIX_EXPORT pmix_status_t PMIx_server_generate_cpuset_string(const pmix_cpuset_t *cpuset,
                                                             char **cpuset_string);
PMIX_EXPORT pmix_status_t PMIx_server_define_process_set(const pmix_proc_t *members,
                                                         size_t nmembers,
                                                         const char *pset_name);
PMIX_EXPORT pmix_status_t PMIx_server_delete_process_set(char *pset_name);
PMIX_EXPORT pmix_status_t PMIx_server_register_resources(pmix_info_t info[],
                                                         size_t ninfo,
                                                         pmix_op_cbfunc_t cbfunc,
                                                         void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_server_deregister_resources(pmix_info_t info[],
                                                           size_t ninfo,
                                                           pmix_op_cbfunc_t cbfunc,
                                                           void *cbdata);

#ifdef __cplusplus
}
#endif

#endif /* SLURMIX_PMIX_SERVER_H */
