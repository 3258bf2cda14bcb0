/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pxc_host.h - what a PMIx host (the Slurm plugin) may use of the core
 * beyond the standard server API of pmix_server.h.
 *
 * A host starts, feeds and stops the server through pmix_server.h alone;
 * this header adds the internals a host of ours needs for its own work
 * (its log, its messages between nodes, its own sockets and thread) and
 * the server's few extensions for hosts. It only gathers headers: each
 * declaration stays in the header of the file that implements it. Internal
 * to the project, not installed: a host outside this tree uses
 * pmix_server.h and pmix_slurmix.h.
 */
#ifndef PXC_HOST_H
#define PXC_HOST_H

#include <pmix_server.h>

/* The core's log hook (pxc_log_set_hook) and log calls, the errno to
 * status mapping, info look-ups (pxc_info_find, pxc_info_flag), the
 * monotonic clock (pxc_now_ms) and the process role (pxc.h gathers
 * log.h and info.h). */
#include "pxc.h"
/* Data buffers and the portable pack/unpack codec (pxc_buf_*,
 * pxc_pack_*, pxc_unpack_*), for the host's own messages between nodes. */
#include "pack.h"
/* A progress thread of the host's own (pxc_progress_*) and bounded waits
 * for another thread's answer (pxc_sync_*). */
#include "progress.h"
/* Framed messages over a stream socket (pxc_conn_*, pxc_wire_hdr_*), for
 * the host's own connections. */
#include "frame.h"
/* The server's extensions for its host, each in the header of the file
 * that implements it: pxc_server_client_lost, pxc_server_client_pid,
 * pxc_server_client_last_pid and pxc_server_hold_nspace (nspace.h),
 * PXC_CONNECT_DATA with pxc_server_host_data (coll.h),
 * pxc_server_dmodex_request_tmo (dmodex.h), pxc_server_invalid_termination
 * and pxc_server_connect_event (connect.h), pxc_server_notify_sync
 * (evsync.h). Those headers also declare their files' request handlers
 * and helpers for the rest of server/, over the server's private types,
 * which stay opaque here. */
#include "server/nspace.h"
#include "server/coll.h"
#include "server/dmodex.h"
#include "server/connect.h"
#include "server/evsync.h"
/* PXC_SERVER_IOF_HISTORY, the IO forwarding's init info (iof.h). */
#include "server/iof.h"
/* The line formats of IO forwarding (sx_iof_format: tag, timestamp,
 * XML), for output the host writes itself (iof/format.h). */
#include "iof/format.h"
/* Tools: PXC_SERVER_RDV_DIR / PXC_SERVER_RDV_NAME, where the rendezvous
 * files go (rendezvous.h), and pxc_server_tool_adopt, a tool connection
 * the host accepted itself (peer.h). */
#include "server/rendezvous.h"
#include "server/peer.h"
/* pxc_server_notify (event.h), pxc_server_get_local (get.h) and
 * pxc_server_query (query.h), which the client API calls in a server
 * process; a host reaches them as PMIx_Notify_event, PMIx_Get and
 * PMIx_Query_info. */
#include "server/event.h"
#include "server/get.h"
#include "server/query.h"
/* PMI-1 / PMI-2 for the tasks: pxc_server_pmi_add, a task's PMI socket
 * (pmi.h), and pxc_pmi_preamble_write, which the task hook writes into
 * the task's end (pmi_wire.h). */
#include "server/pmi.h"
#include "server/pmi_wire.h"
/* PMI spawn's preput pairs in a spawned step's environment (pmi_spawn.h). */
#include "server/pmi_spawn.h"

#endif
