/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rendezvous.c - the files through which tools find a server started with
 * PMIX_SERVER_TOOL_SUPPORT (names in proto.h):
 *   <tmpdir>/pmix.<host>.tool.<pid>, <tmpdir>/pmix.<host>.tool.<nspace>,
 *   and <system tmpdir>/pmix.<host>.tool with PMIX_SERVER_SYSTEM_SUPPORT;
 *   <host> is the machine's name (gethostname), which a tool on it uses.
 *   A host may put the first two elsewhere (PXC_SERVER_RDV_DIR) and name
 *   the second after another namespace (PXC_SERVER_RDV_NAME).
 * Each holds "unix:<socket path>\n", mode 0600, owned by the clients' uid.
 * Created with O_EXCL|O_NOFOLLOW: an existing file (another server's, or a
 * planted link) is left alone and that name is skipped. Removed by
 * finalize. Called by init and finalize in the host's thread, before the
 * listener starts / after the engine stopped.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "rendezvous.h"
#include "proto.h"

static int write_one(int slot, const char *dir, const char *suffix)
{
	char *path = NULL, host[256] = "";
	int fd, rc = -1;
	size_t len = strlen(pxc_srv.uri);

	/* the machine's name, which a tool on it looks for, even when the
	 * host named the node otherwise (PMIX_HOSTNAME) */
	if (gethostname(host, sizeof(host) - 1) < 0 || !host[0])
		snprintf(host, sizeof(host), "%s", pxc_srv.hostname);
	if (asprintf(&path, "%s/" PXC_RENDEZVOUS_PREFIX "%s.tool%s", dir, host, suffix) < 0)
		return -1;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 && errno == EEXIST && slot == 2) {
		/* the node's system server is another's (an earlier step) */
		pxc_debug("server: %s exists: not the system server", path);
		free(path);
		return 0;
	}
	if (fd < 0) {
		pxc_error("server: cannot create rendezvous file %s: %s", path, strerror(errno));
		free(path);
		return -1;
	}
	if (write(fd, pxc_srv.uri, len) == (ssize_t)len && write(fd, "\n", 1) == 1 &&
	    (pxc_srv.uid == geteuid() || fchown(fd, pxc_srv.uid, pxc_srv.gid) == 0))
		rc = 0;
	close(fd);
	if (rc < 0) {
		unlink(path);
		free(path);
		return -1;
	}
	pxc_srv.rdv[slot] = path;
	return 0;
}

int pxc_rdv_write(void)
{
	char suffix[PMIX_MAX_NSLEN + 16];
	int rc = 0;

	const char *dir = pxc_srv.rdvdir ? pxc_srv.rdvdir : pxc_srv.tmpdir;
	const char *name = pxc_srv.rdvname ? pxc_srv.rdvname : pxc_srv.me.nspace;

	snprintf(suffix, sizeof(suffix), ".%d", (int)getpid());
	rc |= write_one(0, dir, suffix);
	if (name[0] && !strchr(name, '/') && strlen(name) <= PMIX_MAX_NSLEN) {
		snprintf(suffix, sizeof(suffix), ".%s", name);
		rc |= write_one(1, dir, suffix);
	}
	if (pxc_srv.system_support)
		rc |= write_one(2, pxc_srv.sysdir, "");
	return rc ? -1 : 0;
}

void pxc_rdv_remove(void)
{
	for (int i = 0; i < 3; i++) {
		if (pxc_srv.rdv[i])
			unlink(pxc_srv.rdv[i]);
		free(pxc_srv.rdv[i]);
		pxc_srv.rdv[i] = NULL;
	}
}
