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
 * Created with O_EXCL|O_NOFOLLOW: an existing file whose server answers
 * (another server's) is left alone and that name is skipped; one whose
 * server does not (a killed server's) is replaced, once. Removed by
 * finalize. Called by init and finalize in the host's thread, before the
 * listener starts / after the engine stopped.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "internal.h"
#include "rendezvous.h"
#include "proto.h"

/* 1 when the server a rendezvous file names still answers. */
static int answers(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char line[sizeof(sa.sun_path) + 8];
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), s, ok = 0;
	ssize_t n = fd >= 0 ? read(fd, line, sizeof(line) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 5)
		return 0;
	line[n] = '\0';
	line[strcspn(line, "\n")] = '\0';
	if (strncmp(line, "unix:", 5) || strlen(line + 5) >= sizeof(sa.sun_path))
		return 0;
	strcpy(sa.sun_path, line + 5);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ok = s >= 0 && connect(s, (struct sockaddr *)&sa, sizeof(sa)) == 0;
	if (s >= 0)
		close(s);
	return ok;
}

int pxc_rdv_create(const char *path, const char *uri, uid_t uid, gid_t gid)
{
	size_t len = strlen(uri);
	int fd = -1, rc = -1;

	for (int tries = 0; tries < 2 && fd < 0; tries++) {
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			break;
		if (tries || answers(path)) {
			errno = EEXIST; /* a live server's: leave it */
			return -1;
		}
		if (unlink(path) < 0) /* a dead server's (killed): ours now */
			break;
		pxc_debug("server: removed the stale rendezvous file %s", path);
	}
	if (fd < 0)
		return -1;
	if (write(fd, uri, len) == (ssize_t)len && write(fd, "\n", 1) == 1 &&
	    (uid == geteuid() || fchown(fd, uid, gid) == 0))
		rc = 0;
	close(fd);
	if (rc < 0)
		unlink(path);
	return rc;
}

static int write_one(int slot, const char *dir, const char *suffix)
{
	char *path = NULL, host[256] = "";

	/* the machine's name, which a tool on it looks for, even when the
	 * host named the node otherwise (PMIX_HOSTNAME) */
	if (gethostname(host, sizeof(host) - 1) < 0 || !host[0])
		snprintf(host, sizeof(host), "%s", pxc_srv.hostname);
	if (asprintf(&path, "%s/" PXC_RENDEZVOUS_PREFIX "%s.tool%s", dir, host, suffix) < 0)
		return -1;
	if (pxc_rdv_create(path, pxc_srv.uri, pxc_srv.uid, pxc_srv.gid) < 0) {
		int e = errno;

		if (e == EEXIST && slot == 2) /* the node's system server: an earlier step */
			pxc_debug("server: %s is another server's: not the system server", path);
		else
			pxc_error("server: cannot create rendezvous file %s: %s", path,
				  strerror(e));
		free(path);
		return e == EEXIST && slot == 2 ? 0 : -1;
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

int pxc_server_rdv_publish(void)
{
	if (!pxc_srv.uri || !pxc_srv.tool_support || !pxc_srv.rdv_defer)
		return 0;
	pxc_srv.rdv_defer = false; /* once */
	if (pxc_rdv_write() < 0) {
		pxc_error("server: could not write the tool rendezvous files");
		return -1;
	}
	return 0;
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
