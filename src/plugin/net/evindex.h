/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net/evindex.h - the registration index of a step: which of its step
 * daemons have a client registered for which event codes, so that a
 * client's event goes only to the nodes that can deliver it
 * (net/event.c), and what the others were not sent, for their later
 * registrants. Progress thread.
 */
#ifndef PLUG_NET_EVINDEX_H
#define PLUG_NET_EVINDEX_H

#include <stdbool.h>
#include <pmix_server.h>
#include "net/transport.h"

/* The host's register_events: a client of this node registered for
 * codes (ncodes 0: every code). New codes for this node go over the tree
 * of all nodes before this returns PMIX_OPERATION_SUCCEEDED (the
 * registration's reply, and so any fence the client enters next, comes
 * after them). */
pmix_status_t plug_evindex_register_events(pmix_status_t *codes, size_t ncodes,
					   const pmix_info_t info[], size_t ninfo,
					   pmix_op_cbfunc_t cbfunc, void *cbdata);

/* True when node (of this step, not this one) has a client registered
 * for code, as far as this node knows. */
bool plug_evindex_wants(uint32_t node, pmix_status_t code);

/* msg (an EVENT_FWD payload of code) was not sent to nodes[0..n) (of this
 * step) for want of a handler there: kept, within the event cache's
 * bounds, and sent to each of them (EVENT_FWD, tag 0) when it registers
 * code. */
void plug_evindex_hold(pmix_status_t code, const pmix_data_buffer_t *msg, const uint32_t *nodes,
		       size_t n);

/* Takes EVREG messages (before the network starts); hold_bytes and
 * hold_age (seconds) bound what plug_evindex_hold keeps. 0/-1. */
int plug_evindex_net_register(plug_net_t *n, uint32_t hold_bytes, uint32_t hold_age);

#endif
