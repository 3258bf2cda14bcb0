/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * attrs.h - the host level of PMIX_QUERY_ATTRIBUTE_SUPPORT: the attributes
 * the step daemon's server-module functions (and what they hand to srun)
 * honour, registered with PMIx_Register_attributes (attrs.c).
 */
#ifndef PLUG_STEPD_ATTRS_H
#define PLUG_STEPD_ATTRS_H

/* Registers every module function's attributes with the PMIx server
 * (after PMIx_server_init, in the job manager thread): 0, or -1 after
 * logging which registration failed (the step runs on; the host level
 * then lacks it). */
int plug_attrs_register(void);

#endif
