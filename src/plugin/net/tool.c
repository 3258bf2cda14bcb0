/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net/tool.c - the step daemon's half of a tool attached through srun
 * (net/tool.h): a fresh connection whose first message is TOOL_ATTACH
  * (key checked by the transport) is handed to the PMIx server as a tool
 * peer (pxc_server_tool_adopt) and answered with one byte; the server then
 * speaks the PMIx wire over it as over its own Unix socket. The server
 * lets such a connection be a tool only, never a client. Only this
 * step's srun can send it (the key), and only for the job's user or root.
 * Progress thread.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "pxc_host.h"
#include "lib/proto.h"
#include "net/tool.h"
#include "slurm_adapter.h"

static struct {
	plug_net_t *net;
	uid_t uid;
} tool;

static void attach(void *arg, int fd, pmix_data_buffer_t *in)
{
	uint32_t step = 0, uid = 0, gid = 0;
	uint32_t pid = 0;
	const char one = 1;

	(void)arg;
	if (pxc_unpack_u32(in, &step) != PMIX_SUCCESS || pxc_unpack_u32(in, &uid) != PMIX_SUCCESS ||
	    pxc_unpack_u32(in, &gid) != PMIX_SUCCESS || pxc_unpack_u32(in, &pid) != PMIX_SUCCESS) {
		plug_error("tool: a malformed attach request: dropped");
		close(fd);
		return;
	}
	if (step != plug_net_step(tool.net) || (uid != 0 && uid != (uint32_t)tool.uid)) {
		plug_error("tool: attach of pid %d uid %u for step %u refused", (int)pid,
			   (unsigned)uid, (unsigned)step);
		close(fd);
		return;
	}
	if (pxc_server_tool_adopt(fd, (uid_t)uid, (gid_t)gid, (pid_t)pid) < 0) {
		plug_error("tool: the server takes no tool now: attach of pid %d dropped",
			   (int)pid);
		return; /* closed: srun tells the tool */
	}
	/* the server's now, and it sends nothing before the tool's HELLO; a
	 * fresh socket's send buffer is empty: this cannot block */
	if (write(fd, &one, 1) != 1)
		plug_error("tool: cannot answer an attach: %m"); /* srun times out */
	plug_flag("tool: pid %d uid %u attached through srun", (int)pid, (unsigned)uid);
}

int plug_tool_net_register(plug_net_t *n, uid_t uid)
{
	plug_net_user_t u = { .name = "tool",
			      .handover_cmd = PLUG_NET_TOOL_ATTACH,
			      .handover = attach };

	tool.net = n;
	tool.uid = uid;
	return plug_net_register(n, &u);
}
