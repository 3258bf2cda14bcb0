/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmix.h - the PMIx client interface of slurmix's libpmix.so.2.
 *
 * A task started by a PMIx server (a slurmstepd running slurmix, or
 * slurmix-run) calls PMIx_Init to connect to it, exchanges data with the
 * other processes of its job, and can spawn and connect to other jobs.
 * The functions follow the PMIx Standard 4.x/5.x; names, arguments and
 * types match OpenPMIx 4.2 so that existing binaries work unchanged.
 *
 * Conventions:
 *  - Functions return PMIX_SUCCESS or an error status.  Functions that
 *    are not implemented yet return PMIX_ERR_NOT_SUPPORTED.
 *  - A _nb function returns at once; PMIX_SUCCESS means the callback will
 *    run later, on the library's progress thread.  Any other return means
 *    it will not run.  Operations that complete immediately may return
 *    PMIX_OPERATION_SUCCEEDED without calling the callback.
 *  - Arrays passed in stay the caller's; results returned through
 *    pointers (pmix_value_t **, pmix_info_t **, ...) become the caller's
 *    and are released with the matching _FREE macro or helper.
 *  - Blocking calls may be made from any thread except from inside a
 *    PMIx callback, where they fail instead of deadlocking.
 */
#ifndef SLURMIX_PMIX_H
#define SLURMIX_PMIX_H

#include <pmix_common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Start-up and shutdown.  PMIx_Init may be called more than once; each
   call must be matched by PMIx_Finalize.  The blocking calls below must
   not be made from inside a PMIx callback. */
PMIX_EXPORT pmix_status_t PMIx_Init(pmix_proc_t *proc, pmix_info_t info[],
                                    size_t ninfo);
PMIX_EXPORT pmix_status_t PMIx_Finalize(const pmix_info_t info[], size_t ninfo);
PMIX_EXPORT int PMIx_Initialized(void);
PMIX_EXPORT pmix_status_t PMIx_Abort(int status, const char msg[],
                                     pmix_proc_t procs[], size_t nprocs);

/* Key-value exchange: PMIx_Put stores, PMIx_Commit sends what was put
   to the local server, PMIx_Fence is a barrier that may also collect the
   committed data of all participants, PMIx_Get reads. */
PMIX_EXPORT pmix_status_t PMIx_Put(pmix_scope_t scope, const char key[],
                                   pmix_value_t *val);
PMIX_EXPORT pmix_status_t PMIx_Commit(void);
PMIX_EXPORT pmix_status_t PMIx_Fence(const pmix_proc_t procs[], size_t nprocs,
                                     const pmix_info_t info[], size_t ninfo);
PMIX_EXPORT pmix_status_t PMIx_Fence_nb(const pmix_proc_t procs[],
                                        size_t nprocs, const pmix_info_t info[],
                                        size_t ninfo, pmix_op_cbfunc_t cbfunc,
                                        void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_Get(const pmix_proc_t *proc, const char key[],
                                   const pmix_info_t info[], size_t ninfo,
                                   pmix_value_t **val);
PMIX_EXPORT pmix_status_t PMIx_Get_nb(const pmix_proc_t *proc, const char key[],
                                      const pmix_info_t info[], size_t ninfo,
                                      pmix_value_cbfunc_t cbfunc, void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_Store_internal(const pmix_proc_t *proc,
                                              const char key[],
                                              pmix_value_t *val);

/* Publish / lookup of data between jobs. */
PMIX_EXPORT pmix_status_t PMIx_Publish(const pmix_info_t info[], size_t ninfo);
PMIX_EXPORT pmix_status_t PMIx_Publish_nb(const pmix_info_t info[],
                                          size_t ninfo, pmix_op_cbfunc_t cbfunc,
                                          void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_Lookup(pmix_pdata_t data[], size_t ndata,
                                      const pmix_info_t info[], size_t ninfo);
PMIX_EXPORT pmix_status_t PMIx_Lookup_nb(char **keys, const pmix_info_t info[],
                                         size_t ninfo,
                                         pmix_lookup_cbfunc_t cbfunc,
                                         void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_Unpublish(char **keys, const pmix_info_t info[],
                                         size_t ninfo);
PMIX_EXPORT pmix_status_t PMIx_Unpublish_nb(char **keys,
                                            const pmix_info_t info[],
                                            size_t ninfo,
                                            pmix_op_cbfunc_t cbfunc,
                                            void *cbdata);

/* Starting new jobs and connecting jobs to each other. */
PMIX_EXPORT pmix_status_t PMIx_Spawn(const pmix_info_t job_info[], size_t ninfo,
                                     const pmix_app_t apps[], size_t napps,
                                     pmix_nspace_t nspace);
PMIX_EXPORT pmix_status_t PMIx_Spawn_nb(const pmix_info_t job_info[],
                                        size_t ninfo, const pmix_app_t apps[],
                                        size_t napps,
                                        pmix_spawn_cbfunc_t cbfunc,
                                        void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_Connect(const pmix_proc_t procs[], size_t nprocs,
                                       const pmix_info_t info[], size_t ninfo);
PMIX_EXPORT pmix_status_t PMIx_Connect_nb(const pmix_proc_t procs[],
                                          size_t nprocs,
                                          const pmix_info_t info[],
                                          size_t ninfo, pmix_op_cbfunc_t cbfunc,
                                          void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_Disconnect(const pmix_proc_t procs[],
                                          size_t nprocs,
                                          const pmix_info_t info[],
                                          size_t ninfo);
PMIX_EXPORT pmix_status_t PMIx_Disconnect_nb(const pmix_proc_t ranges[],
                                             size_t nprocs,
                                             const pmix_info_t info[],
                                             size_t ninfo,
                                             pmix_op_cbfunc_t cbfunc,
                                             void *cbdata);

/* Where processes run. */
PMIX_EXPORT pmix_status_t PMIx_Resolve_peers(const char *nodename,
                                             const pmix_nspace_t nspace,
                                             pmix_proc_t **procs,
                                             size_t *nprocs);
PMIX_EXPORT pmix_status_t PMIx_Resolve_nodes(const pmix_nspace_t nspace,
                                             char **nodelist);

/* Queries, logging, allocations, job control and monitoring. */
PMIX_EXPORT pmix_status_t PMIx_Query_info(pmix_query_t queries[],
                                          size_t nqueries,
                                          pmix_info_t **results,
                                          size_t *nresults);
PMIX_EXPORT pmix_status_t PMIx_Query_info_nb(pmix_query_t queries[],
                                             size_t nqueries,
                                             pmix_info_cbfunc_t cbfunc,
                                             void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_Log(const pmix_info_t data[], size_t ndata,
                                   const pmix_info_t directives[],
                                   size_t ndirs);
PMIX_EXPORT pmix_status_t PMIx_Log_nb(const pmix_info_t data[], size_t ndata,
                                      const pmix_info_t directives[],
                                      size_t ndirs, pmix_op_cbfunc_t cbfunc,
                                      void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_Allocation_request(pmix_alloc_directive_t directive,
                                                  pmix_info_t *info,
                                                  size_t ninfo,
                                                  pmix_info_t **results,
                                                  size_t *nresults);
PMIX_EXPORT pmix_status_t PMIx_Allocation_request_nb(pmix_alloc_directive_t directive,
                                                     pmix_info_t *info,
                                                     size_t ninfo,
                                                     pmix_info_cbfunc_t cbfunc,
                                                     void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_Job_control(const pmix_proc_t targets[],
                                           size_t ntargets,
                                           const pmix_info_t directives[],
                                           size_t ndirs, pmix_info_t **results,
                                           size_t *nresults);
PMIX_EXPORT pmix_status_t PMIx_Job_control_nb(const pmix_proc_t targets[],
                                              size_t ntargets,
                                              const pmix_info_t directives[],
                                              size_t ndirs,
                                              pmix_info_cbfunc_t cbfunc,
                                              void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_Process_monitor(const pmix_info_t *monitor,
                                               pmix_status_t error,
                                               const pmix_info_t directives[],
                                               size_t ndirs,
                                               pmix_info_t **results,
                                               size_t *nresults);
PMIX_EXPORT pmix_status_t PMIx_Process_monitor_nb(const pmix_info_t *monitor,
                                                  pmix_status_t error,
                                                  const pmix_info_t directives[],
                                                  size_t ndirs,
                                                  pmix_info_cbfunc_t cbfunc,
                                                  void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_Session_control(uint32_t sessionID,
                                               const pmix_info_t directives[],
                                               size_t ndirs,
                                               pmix_info_cbfunc_t cbfunc,
                                               void *cbdata);

/* Credentials. */
PMIX_EXPORT pmix_status_t PMIx_Get_credential(const pmix_info_t info[],
                                              size_t ninfo,
                                              pmix_byte_object_t *credential);
PMIX_EXPORT pmix_status_t PMIx_Get_credential_nb(const pmix_info_t info[],
                                                 size_t ninfo,
                                                 pmix_credential_cbfunc_t cbfunc,
                                                 void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_Validate_credential(const pmix_byte_object_t *cred,
                                                   const pmix_info_t info[],
                                                   size_t ninfo,
                                                   pmix_info_t **results,
                                                   size_t *nresults);
PMIX_EXPORT pmix_status_t PMIx_Validate_credential_nb(const pmix_byte_object_t *cred,
                                                      const pmix_info_t info[],
                                                      size_t ninfo,
                                                      pmix_validation_cbfunc_t cbfunc,
                                                      void *cbdata);

/* Process groups. */
PMIX_EXPORT pmix_status_t PMIx_Group_construct(const char grp[],
                                               const pmix_proc_t procs[],
                                               size_t nprocs,
                                               const pmix_info_t directives[],
                                               size_t ndirs,
                                               pmix_info_t **results,
                                               size_t *nresults);
PMIX_EXPORT pmix_status_t PMIx_Group_construct_nb(const char grp[],
                                                  const pmix_proc_t procs[],
                                                  size_t nprocs,
                                                  const pmix_info_t info[],
                                                  size_t ninfo,
                                                  pmix_info_cbfunc_t cbfunc,
                                                  void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_Group_invite(const char grp[],
                                            const pmix_proc_t procs[],
                                            size_t nprocs,
                                            const pmix_info_t info[],
                                            size_t ninfo, pmix_info_t **results,
                                            size_t *nresult);
PMIX_EXPORT pmix_status_t PMIx_Group_invite_nb(const char grp[],
                                               const pmix_proc_t procs[],
                                               size_t nprocs,
                                               const pmix_info_t info[],
                                               size_t ninfo,
                                               pmix_info_cbfunc_t cbfunc,
                                               void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_Group_join(const char grp[],
                                          const pmix_proc_t *leader,
                                          pmix_group_opt_t opt,
                                          const pmix_info_t info[],
                                          size_t ninfo, pmix_info_t **results,
                                          size_t *nresult);
PMIX_EXPORT pmix_status_t PMIx_Group_join_nb(const char grp[],
                                             const pmix_proc_t *leader,
                                             pmix_group_opt_t opt,
                                             const pmix_info_t info[],
                                             size_t ninfo,
                                             pmix_info_cbfunc_t cbfunc,
                                             void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_Group_leave(const char grp[],
                                           const pmix_info_t info[],
                                           size_t ninfo);
PMIX_EXPORT pmix_status_t PMIx_Group_leave_nb(const char grp[],
                                              const pmix_info_t info[],
                                              size_t ninfo,
                                              pmix_op_cbfunc_t cbfunc,
                                              void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_Group_destruct(const char grp[],
                                              const pmix_info_t info[],
                                              size_t ninfo);
PMIX_EXPORT pmix_status_t PMIx_Group_destruct_nb(const char grp[],
                                                 const pmix_info_t info[],
                                                 size_t ninfo,
                                                 pmix_op_cbfunc_t cbfunc,
                                                 void *cbdata);

/* Events.  Handlers run on the library's progress thread. */
PMIX_EXPORT pmix_status_t PMIx_Register_event_handler(pmix_status_t codes[],
                                                      size_t ncodes,
                                                      pmix_info_t info[],
                                                      size_t ninfo,
                                                      pmix_notification_fn_t evhdlr,
                                                      pmix_hdlr_reg_cbfunc_t cbfunc,
                                                      void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_Deregister_event_handler(size_t evhdlr_ref,
                                                        pmix_op_cbfunc_t cbfunc,
                                                        void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_Notify_event(pmix_status_t status,
                                            const pmix_proc_t *source,
                                            pmix_data_range_t range,
                                            const pmix_info_t info[],
                                            size_t ninfo,
                                            pmix_op_cbfunc_t cbfunc,
                                            void *cbdata);

/* IO forwarding: subscribe to output, push input. */
PMIX_EXPORT pmix_status_t PMIx_IOF_pull(const pmix_proc_t procs[],
                                        size_t nprocs,
                                        const pmix_info_t directives[],
                                        size_t ndirs,
                                        pmix_iof_channel_t channel,
                                        pmix_iof_cbfunc_t cbfunc,
                                        pmix_hdlr_reg_cbfunc_t regcbfunc,
                                        void *regcbdata);
PMIX_EXPORT pmix_status_t PMIx_IOF_deregister(size_t iofhdlr,
                                              const pmix_info_t directives[],
                                              size_t ndirs,
                                              pmix_op_cbfunc_t cbfunc,
                                              void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_IOF_push(const pmix_proc_t targets[],
                                        size_t ntargets, pmix_byte_object_t *bo,
                                        const pmix_info_t directives[],
                                        size_t ndirs, pmix_op_cbfunc_t cbfunc,
                                        void *cbdata);

/* Fabrics. */
PMIX_EXPORT pmix_status_t PMIx_Fabric_register(pmix_fabric_t *fabric,
                                               const pmix_info_t directives[],
                                               size_t ndirs);
PMIX_EXPORT pmix_status_t PMIx_Fabric_register_nb(pmix_fabric_t *fabric,
                                                  const pmix_info_t directives[],
                                                  size_t ndirs,
                                                  pmix_op_cbfunc_t cbfunc,
                                                  void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_Fabric_update(pmix_fabric_t *fabric);
PMIX_EXPORT pmix_status_t PMIx_Fabric_update_nb(pmix_fabric_t *fabric,
                                                pmix_op_cbfunc_t cbfunc,
                                                void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_Fabric_deregister(pmix_fabric_t *fabric);
PMIX_EXPORT pmix_status_t PMIx_Fabric_deregister_nb(pmix_fabric_t *fabric,
                                                    pmix_op_cbfunc_t cbfunc,
                                                    void *cbdata);

/* Topology, cpu sets and device distances. */
PMIX_EXPORT pmix_status_t PMIx_Compute_distances(pmix_topology_t *topo,
                                                 pmix_cpuset_t *cpuset,
                                                 pmix_info_t info[],
                                                 size_t ninfo,
                                                 pmix_device_distance_t *distances[],
                                                 size_t *ndist);
PMIX_EXPORT pmix_status_t PMIx_Compute_distances_nb(pmix_topology_t *topo,
                                                    pmix_cpuset_t *cpuset,
                                                    pmix_info_t info[],
                                                    size_t ninfo,
                                                    pmix_device_dist_cbfunc_t cbfunc,
                                                    void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_Load_topology(pmix_topology_t *topo);
PMIX_EXPORT pmix_status_t PMIx_Parse_cpuset_string(const char *cpuset_string,
                                                   pmix_cpuset_t *cpuset);
PMIX_EXPORT pmix_status_t PMIx_Get_cpuset(pmix_cpuset_t *cpuset,
                                          pmix_bind_envelope_t ref);
PMIX_EXPORT pmix_status_t PMIx_Get_relative_locality(const char *locality1,
                                                     const char *locality2,
                                                     pmix_locality_t *locality);

/* Drive the library's event loop when it runs without its own thread. */
PMIX_EXPORT void PMIx_Progress(void);

/* Printable names.  The const char* results are static; the char*
   results are malloc'ed and belong to the caller. */
PMIX_EXPORT const char *PMIx_Error_string(pmix_status_t status);
PMIX_EXPORT pmix_status_t PMIx_Error_code(const char *errname);
PMIX_EXPORT const char *PMIx_Proc_state_string(pmix_proc_state_t state);
PMIX_EXPORT const char *PMIx_Scope_string(pmix_scope_t scope);
PMIX_EXPORT const char *PMIx_Persistence_string(pmix_persistence_t persist);
PMIX_EXPORT const char *PMIx_Data_range_string(pmix_data_range_t range);
PMIX_EXPORT char *PMIx_Info_directives_string(pmix_info_directives_t directives);
PMIX_EXPORT const char *PMIx_Data_type_string(pmix_data_type_t type);
PMIX_EXPORT const char *PMIx_Alloc_directive_string(pmix_alloc_directive_t directive);
PMIX_EXPORT const char *PMIx_IOF_channel_string(pmix_iof_channel_t channel);
PMIX_EXPORT const char *PMIx_Job_state_string(pmix_job_state_t state);
PMIX_EXPORT const char *PMIx_Get_attribute_string(const char *attribute);
PMIX_EXPORT const char *PMIx_Get_attribute_name(const char *attrstring);
PMIX_EXPORT const char *PMIx_Link_state_string(pmix_link_state_t state);
PMIX_EXPORT const char *PMIx_Device_type_string(pmix_device_type_t type);
PMIX_EXPORT const char *PMIx_Value_comparison_string(pmix_value_cmp_t cmp);
PMIX_EXPORT char *PMIx_Info_string(const pmix_info_t *info);
PMIX_EXPORT char *PMIx_Value_string(const pmix_value_t *value);
PMIX_EXPORT char *PMIx_App_string(const pmix_app_t *app);
PMIX_EXPORT char *PMIx_Proc_string(const pmix_proc_t *proc);
PMIX_EXPORT const char *PMIx_Get_version(void);

/* Portable packing of typed data into buffers. */
PMIX_EXPORT pmix_status_t PMIx_Data_pack(const pmix_proc_t *target,
                                         pmix_data_buffer_t *buffer, void *src,
                                         int32_t num_vals,
                                         pmix_data_type_t type);
PMIX_EXPORT pmix_status_t PMIx_Data_unpack(const pmix_proc_t *source,
                                           pmix_data_buffer_t *buffer,
                                           void *dest, int32_t *max_num_values,
                                           pmix_data_type_t type);
PMIX_EXPORT pmix_status_t PMIx_Data_copy(void **dest, void *src,
                                         pmix_data_type_t type);
PMIX_EXPORT pmix_status_t PMIx_Data_print(char **output, char *prefix,
                                          void *src, pmix_data_type_t type);
PMIX_EXPORT pmix_status_t PMIx_Data_copy_payload(pmix_data_buffer_t *dest,
                                                 pmix_data_buffer_t *src);
PMIX_EXPORT pmix_status_t PMIx_Data_unload(pmix_data_buffer_t *buffer,
                                           pmix_byte_object_t *payload);
PMIX_EXPORT pmix_status_t PMIx_Data_load(pmix_data_buffer_t *buffer,
                                         pmix_byte_object_t *payload);
PMIX_EXPORT pmix_status_t PMIx_Data_embed(pmix_data_buffer_t *buffer,
                                          const pmix_byte_object_t *payload);
PMIX_EXPORT bool PMIx_Data_compress(const uint8_t *inbytes, size_t size,
                                    uint8_t **outbytes, size_t *nbytes);
PMIX_EXPORT bool PMIx_Data_decompress(const uint8_t *inbytes, size_t size,
                                      uint8_t **outbytes, size_t *nbytes);

/* Sends one heartbeat to the server's process monitor. */
#define PMIx_Heartbeat()                                                \
    do {                                                                \
        pmix_info_t pxc_hb_info_;                                       \
        PMIx_Info_construct(&pxc_hb_info_);                             \
        PMIx_Info_load(&pxc_hb_info_, PMIX_SEND_HEARTBEAT, NULL,        \
                       PMIX_POINTER);                                   \
        PMIx_Process_monitor_nb(&pxc_hb_info_, PMIX_SUCCESS, NULL, 0,   \
                                NULL, NULL);                            \
        PMIx_Info_destruct(&pxc_hb_info_);                              \
    } while (0)

#ifdef __cplusplus
}
#endif

#endif /* SLURMIX_PMIX_H */
