/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmi_cmd.h - the PMI-1 and PMI-2 commands (pmi_cmd.c) that pmi.c's
 * connections hand each parsed request to. Progress thread only.
 */
#ifndef PXC_SERVER_PMI_CMD_H
#define PXC_SERVER_PMI_CMD_H

#include "pmi.h"
#include "pmi_wire.h"

/* Does what request m asks: replies, or sends one request to the server
 * whose callback replies. Never frees c. */
void pxc_pmi_dispatch(pxc_pmi_conn_t *c, const pxc_pmi_msg_t *m);
/* Server finalize: drops the node attributes. */
void pxc_pmi_attrs_clear(void);

#endif
