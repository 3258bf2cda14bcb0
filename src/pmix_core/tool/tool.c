/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tool.c - the PMIx tool API: PMIx_tool_init/finalize, connection
 * management (disconnect, attach, set_server, get_servers, is_connected).
 *
 * A tool shares the client's connection engine and state (conn.h, client.h); it
 * differs in how it finds its server and in its identity, which the
 * server assigns in the HELLO reply unless the tool names one
 * (PMIX_TOOL_NSPACE / PMIX_TOOL_RANK).
 *
 * Finding the server, in order (proto.h describes the rendezvous files,
 * each holding one line "unix:<socket path>"):
 *   PMIX_SERVER_URI            the address itself;
 *   PMIX_SERVER_PIDINFO        <tmpdir>/pmix.<host>.tool.<pid>;
 *   PMIX_SERVER_NSPACE         <tmpdir>/pmix.<host>.tool.<nspace>;
 *   PMIX_CONNECT_TO_SYSTEM     <system tmpdir>/pmix.<host>.tool;
 *   PMIX_CONNECT_SYSTEM_FIRST  the system file, then as if nothing given;
 *   nothing                    SLURMIX_PMIX_SERVER_URI from the
 *                              environment, else every pmix.<host>.tool.*
 *                              file in tmpdir, first one that answers.
 * A file that is not a regular file of the tool's user or root (for root:
 * of anyone), or that others may write, is ignored.
 * tmpdir is PMIX_SERVER_TMPDIR, else $TMPDIR, else /tmp; the system
 * tmpdir is PMIX_SYSTEM_TMPDIR, else /tmp. PMIX_TOOL_DO_NOT_CONNECT runs
 * the tool without a server.
 */
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pmix_tool.h>

#include "client/client.h"
#include "client/conn.h"

struct where {
	const pmix_info_t *info;
	size_t ninfo;
	pmix_proc_t claim;
	bool have_claim;
};

static const char *str_attr(const struct where *w, const char *key)
{
	const pmix_info_t *i = pxc_info_find(w->info, w->ninfo, key);

	return i && i->value.type == PMIX_STRING ? i->value.data.string : NULL;
}

static const char *tmpdir(const struct where *w)
{
	const char *d = str_attr(w, PMIX_SERVER_TMPDIR);

	if (!d)
		d = getenv("TMPDIR");
	return d && *d ? d : "/tmp";
}

/* Reads the URI line of a rendezvous file; malloc'ed, or NULL. The file
 * must be a regular file of ours or root's (root's tool: anyone's) that
 * nobody else may write: another user could plant one in /tmp naming a
 * server of theirs. */
static char *read_rendezvous(const char *path)
{
	char line[4096];
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat sb;
	FILE *f;
	char *nl;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode) ||
	    (geteuid() != 0 && sb.st_uid != geteuid() && sb.st_uid != 0) ||
	    (sb.st_mode & (S_IWGRP | S_IWOTH))) {
		pxc_debug("tool: rendezvous file %s is not ours: ignored", path);
		close(fd);
		return NULL;
	}
	if (!(f = fdopen(fd, "r"))) {
		close(fd);
		return NULL;
	}
	if (!fgets(line, sizeof(line), f)) {
		fclose(f);
		return NULL;
	}
	fclose(f);
	if ((nl = strchr(line, '\n')))
		*nl = '\0';
	return strncmp(line, "unix:", 5) == 0 ? strdup(line) : NULL;
}

static pmix_status_t try_uri(const struct where *w, const char *uri)
{
	if (!uri)
		return PMIX_ERR_UNREACH;
	return pxc_client_connect(uri, PXC_PEER_TOOL, w->have_claim ? &w->claim : NULL, w->info,
				  w->ninfo);
}

static pmix_status_t try_file(const struct where *w, const char *dir, const char *suffix)
{
	char path[4096];
	char *uri;
	pmix_status_t st;

	snprintf(path, sizeof(path), "%s/pmix.%s.tool%s%s", dir, pxc_cl.hostname, suffix ? "." : "",
		 suffix ? suffix : "");
	if (!(uri = read_rendezvous(path))) {
		pxc_debug("tool: no usable rendezvous file %s", path);
		return PMIX_ERR_UNREACH;
	}
	st = try_uri(w, uri);
	free(uri);
	return st;
}

static pmix_status_t try_system(const struct where *w)
{
	const char *d = str_attr(w, PMIX_SYSTEM_TMPDIR);

	return try_file(w, d && *d ? d : "/tmp", NULL);
}

static pmix_status_t scan_dir(const struct where *w)
{
	const char *dir = tmpdir(w);
	char prefix[512];
	struct dirent *de;
	pmix_status_t st = PMIX_ERR_UNREACH;
	DIR *d;

	snprintf(prefix, sizeof(prefix), "pmix.%s.tool.", pxc_cl.hostname);
	if (!(d = opendir(dir)))
		return PMIX_ERR_UNREACH;
	while (st != PMIX_SUCCESS && (de = readdir(d)))
		if (strncmp(de->d_name, prefix, strlen(prefix)) == 0)
			st = try_file(w, dir, de->d_name + strlen(prefix));
	closedir(d);
	return st;
}

static pmix_status_t find_and_connect(const struct where *w)
{
	const pmix_info_t *i;
	char pid[32];

	if (str_attr(w, PMIX_SERVER_URI))
		return try_uri(w, str_attr(w, PMIX_SERVER_URI));
	if ((i = pxc_info_find(w->info, w->ninfo, PMIX_SERVER_PIDINFO))) {
		snprintf(pid, sizeof(pid), "%ld",
			 i->value.type == PMIX_PID ? (long)i->value.data.pid :
						     (long)i->value.data.integer);
		return try_file(w, tmpdir(w), pid);
	}
	if (str_attr(w, PMIX_SERVER_NSPACE))
		return try_file(w, tmpdir(w), str_attr(w, PMIX_SERVER_NSPACE));
	if (pxc_info_flag(w->info, w->ninfo, PMIX_CONNECT_TO_SYSTEM))
		return try_system(w);
	if (pxc_info_flag(w->info, w->ninfo, PMIX_CONNECT_SYSTEM_FIRST) &&
	    try_system(w) == PMIX_SUCCESS)
		return PMIX_SUCCESS;
	if (getenv(PXC_ENV_URI) && try_uri(w, getenv(PXC_ENV_URI)) == PMIX_SUCCESS)
		return PMIX_SUCCESS;
	return scan_dir(w);
}

static void where_init(struct where *w, const pmix_info_t *info, size_t ninfo)
{
	const char *ns;
	const pmix_info_t *r;

	memset(w, 0, sizeof(*w));
	w->info = info;
	w->ninfo = ninfo;
	if ((ns = str_attr(w, PMIX_TOOL_NSPACE))) {
		r = pxc_info_find(info, ninfo, PMIX_TOOL_RANK);
		pxc_proc_load(&w->claim, ns,
			      r && r->value.type == PMIX_UINT32 ? r->value.data.uint32 : 0);
		w->have_claim = true;
	}
}

static void run_alone(const struct where *w)
{
	if (w->have_claim)
		pxc_cl.me = w->claim;
	else {
		snprintf(pxc_cl.me.nspace, sizeof(pxc_cl.me.nspace), "tool.%.200s.%ld",
			 pxc_cl.hostname, (long)getpid());
		pxc_cl.me.rank = 0;
	}
	memset(&pxc_cl.server, 0, sizeof(pxc_cl.server));
	pxc_cl.server.rank = PMIX_RANK_UNDEF;
	atomic_store(&pxc_cl.state, PXC_CONN_ALONE);
}

static pmix_status_t tool_start(const pmix_info_t *info, size_t ninfo)
{
	struct where w;
	pmix_status_t st;

	if ((!info && ninfo) || pxc_role == PXC_ROLE_SERVER || pxc_role == PXC_ROLE_CLIENT)
		return (!info && ninfo) ? PMIX_ERR_BAD_PARAM : PMIX_ERR_NOT_SUPPORTED;
	if ((st = pxc_client_setup()) != PMIX_SUCCESS)
		return st;
	where_init(&w, info, ninfo);
	if (pxc_info_flag(info, ninfo, PMIX_TOOL_DO_NOT_CONNECT)) {
		run_alone(&w);
		return PMIX_SUCCESS;
	}
	if ((st = find_and_connect(&w)) != PMIX_SUCCESS) {
		pxc_client_teardown();
		return st == PMIX_ERR_UNREACH ? PMIX_ERR_UNREACH : st;
	}
	return PMIX_SUCCESS;
}

pmix_status_t PMIx_tool_init(pmix_proc_t *proc, pmix_info_t info[], size_t ninfo)
{
	pmix_status_t st = PMIX_SUCCESS;

	if (pxc_progress_in_thread(pxc_progress_global()))
		return PMIX_ERR_WOULD_BLOCK;
	pthread_mutex_lock(&pxc_cl.lock);
	if (pxc_cl.refs > 0 && !pxc_cl.is_tool)
		st = PMIX_ERR_NOT_SUPPORTED;
	else if (pxc_cl.refs == 0 && (st = tool_start(info, ninfo)) == PMIX_SUCCESS) {
		pxc_cl.is_tool = true;
		pxc_role = PXC_ROLE_TOOL;
	}
	if (st == PMIX_SUCCESS) {
		pxc_cl.refs++;
		if (proc)
			*proc = pxc_cl.me;
	}
	pthread_mutex_unlock(&pxc_cl.lock);
	return st;
}

pmix_status_t PMIx_tool_finalize(void)
{
	if (!pxc_cl.is_tool)
		return PMIX_ERR_INIT;
	return pxc_client_finalize_common(NULL, 0);
}

bool PMIx_tool_is_connected(void)
{
	return pxc_cl.is_tool && atomic_load(&pxc_cl.state) == PXC_CONN_UP;
}

static bool is_my_server(const pmix_proc_t *server)
{
	return !server || (server->rank == pxc_cl.server.rank &&
			   strncmp(server->nspace, pxc_cl.server.nspace, PMIX_MAX_NSLEN) == 0);
}

pmix_status_t PMIx_tool_disconnect(const pmix_proc_t *server)
{
	if (!pxc_cl.is_tool)
		return PMIX_ERR_INIT;
	if (atomic_load(&pxc_cl.state) != PXC_CONN_UP || !is_my_server(server))
		return PMIX_ERR_NOT_FOUND;
	pxc_client_disconnect();
	return PMIX_SUCCESS;
}

pmix_status_t PMIx_tool_get_servers(pmix_proc_t *servers[], size_t *nservers)
{
	if (!servers || !nservers)
		return PMIX_ERR_BAD_PARAM;
	*servers = NULL;
	*nservers = 0;
	if (!pxc_cl.is_tool)
		return PMIX_ERR_INIT;
	if (atomic_load(&pxc_cl.state) != PXC_CONN_UP)
		return PMIX_SUCCESS;
	if (!(*servers = malloc(sizeof(**servers))))
		return PMIX_ERR_NOMEM;
	**servers = pxc_cl.server;
	*nservers = 1;
	return PMIX_SUCCESS;
}

pmix_status_t PMIx_tool_set_server(const pmix_proc_t *server, pmix_info_t info[], size_t ninfo)
{
	(void)info, (void)ninfo;
	if (!pxc_cl.is_tool)
		return PMIX_ERR_INIT;
	if (!server)
		return PMIX_ERR_BAD_PARAM;
	return atomic_load(&pxc_cl.state) == PXC_CONN_UP && is_my_server(server) ?
		       PMIX_SUCCESS :
		       PMIX_ERR_NOT_SUPPORTED;
}

pmix_status_t PMIx_tool_attach_to_server(pmix_proc_t *myproc, pmix_proc_t *server,
					 pmix_info_t info[], size_t ninfo)
{
	struct where w;
	pmix_status_t st;

	if (!pxc_cl.is_tool)
		return PMIX_ERR_INIT;
	if (pxc_progress_in_thread(pxc_cl.pg))
		return PMIX_ERR_WOULD_BLOCK;
	pthread_mutex_lock(&pxc_cl.lock);
	if (atomic_load(&pxc_cl.state) == PXC_CONN_UP)
		pxc_client_disconnect();
	where_init(&w, info, ninfo);
	if (!w.have_claim) {
		w.claim = pxc_cl.me;
		w.have_claim = true;
	}
	st = find_and_connect(&w);
	if (st == PMIX_SUCCESS && myproc)
		*myproc = pxc_cl.me;
	if (st == PMIX_SUCCESS && server)
		*server = pxc_cl.server;
	pthread_mutex_unlock(&pxc_cl.lock);
	return st;
}

pmix_status_t PMIx_tool_connect_to_server(pmix_proc_t *proc, pmix_info_t info[], size_t ninfo)
{
	return PMIx_tool_attach_to_server(proc, NULL, info, ninfo);
}

pmix_status_t PMIx_tool_set_server_module(pmix_server_module_t *module)
{
	(void)module;
	return PMIX_ERR_NOT_SUPPORTED;
}
