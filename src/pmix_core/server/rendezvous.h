/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rendezvous.h - the files through which tools find a server (rendezvous.c).
 * Called by init and finalize in the host's thread, before the listener
 * starts / after the engine stopped.
 */
#ifndef PXC_SERVER_RENDEZVOUS_H
#define PXC_SERVER_RENDEZVOUS_H

#include <sys/types.h>

/* Server init, host extensions (strings): the directory of the tool
 * rendezvous files (default: the server's tmpdir) and the suffix of the
 * one named after a namespace (default: the server's own nspace). */
#define PXC_SERVER_RDV_DIR "slurmix.srv.rdv.dir"
#define PXC_SERVER_RDV_NAME "slurmix.srv.rdv.name"
/* Server init (bool): do not write the files at init; the host calls
 * pxc_server_rdv_publish once it is ready to serve tools. */
#define PXC_SERVER_RDV_DEFER "slurmix.srv.rdv.defer"

/* Creates the rendezvous file path holding uri ("unix:<socket>"), mode
 * 0600, given to uid/gid: O_EXCL|O_NOFOLLOW; a file there whose server
 * does not answer (a killed server's) is replaced; one that answers is
 * left, -1 with errno EEXIST. 0, or -1 with errno. Any thread (also for
 * a host's own files: srun's, pxc_host.h). */
int pxc_rdv_create(const char *path, const char *uri, uid_t uid, gid_t gid);
/* Writes the rendezvous files the server's settings ask for (an existing
 * file is left alone). 0, or -1 when one could not be written (the others
 * still are). */
int pxc_rdv_write(void);
/* For a host that deferred them (PXC_SERVER_RDV_DEFER): writes the
 * rendezvous files now, once. The host's thread, between init and
 * finalize. 0, or -1 (logged). */
int pxc_server_rdv_publish(void);
/* Removes the files pxc_rdv_write wrote. */
void pxc_rdv_remove(void);

#endif
