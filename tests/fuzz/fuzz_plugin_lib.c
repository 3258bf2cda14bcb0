/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_plugin_lib.c - the plugin's Slurm-free decoders (src/plugin/lib)
 * on hostile input; the first byte picks one:
 *   0 the process map's text form (lib/map.c; the launch environment),
 *     which must encode back to a map that decodes the same;
 *   1 the endpoint table (lib/endpoints.c; from the boot exchange);
 *   2 a PMIx_Spawn request (infos and apps off a client's wire) planned
 *     into a child srun's command line (lib/spawn_plan.c);
 *   3 an allocation request's infos (lib/alloc_req.c);
 *   4 srun's command line (lib/srun_io.c; /proc/PID/cmdline);
 *   5 the strict number, boolean and namespace parsers (lib/util.c).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <pmix.h>

#include "fuzz_infos.h"
#include "lib/alloc_req.h"
#include "lib/endpoints.h"
#include "lib/map.h"
#include "lib/spawn_plan.h"
#include "lib/srun_io.h"
#include "lib/util.h"

/* data as a NUL-terminated string (malloc()ed). */
static char *text(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s) {
		memcpy(s, data, size);
		s[size] = '\0';
	}
	return s;
}

static void map(const uint8_t *data, size_t size)
{
	char *s = text(data, size), *again;
	plug_map_t *m = s ? plug_map_decode(s) : NULL;
	uint16_t *tasks;
	uint32_t **tids;

	if (!m) {
		free(s);
		return;
	}
	tasks = calloc(m->nnodes ? m->nnodes : 1, sizeof(*tasks));
	tids = calloc(m->nnodes ? m->nnodes : 1, sizeof(*tids));
	for (uint32_t i = 0; tasks && tids && i < m->nnodes; i++) {
		if (m->count[i] > UINT16_MAX) { /* (Slurm's layout counts in 16 bits) */
			free(tasks);
			tasks = NULL;
			break;
		}
		tasks[i] = (uint16_t)m->count[i];
		tids[i] = (uint32_t *)&m->ranks[m->first[i]];
	}
	if (tasks && tids && (again = plug_map_encode(m->nnodes, tasks, tids))) {
		plug_map_t *m2 = plug_map_decode(again);

		if (!m2 || m2->nnodes != m->nnodes || m2->ntasks != m->ntasks ||
		    memcmp(m2->node_of, m->node_of, m->ntasks * sizeof(*m->node_of)))
			abort(); /* a map we encoded must decode to itself */
		plug_map_free(m2);
		free(again);
	}
	free(tasks);
	free(tids);
	plug_map_free(m);
	free(s);
}

static int take_entry(void *arg, uint32_t node, const char *addr, uint16_t port)
{
	(void)arg, (void)node;
	return strlen(addr) && port ? 0 : -1;
}

static void endpoints(const uint8_t *data, size_t size)
{
	pmix_data_buffer_t in;

	if (size < 1)
		return;
	pxc_buf_init(&in);
	if (pxc_buf_load_copy(&in, data + 1, size - 1) == 0)
		plug_endpoints_unpack(&in, data[0] % 64 + 1, take_entry, NULL);
	pxc_buf_clear(&in);
}

static void spawn(const uint8_t *data, size_t size)
{
	static const pmix_data_type_t types[] = { PMIX_INFO, PMIX_APP };
	char *alloc[] = { "vn1", "vn2", "vn3", NULL }, *env[] = { "PATH=/usr/bin", NULL };
	plug_spawn_ctx_t ctx = {
		.srun = "srun", .job = 42, .alloc = alloc, .mpfile = "mp.conf", .env = env
	};
	plug_spawn_plan_t plan;
	void *arr[2];
	size_t n[2];

	if (size < 1)
		return;
	ctx.out = data[0] & 1 ? "out.%j.%t" : NULL;
	ctx.label = data[0] & 2;
	fuzz_arrays(data + 1, size - 1, types, arr, n, 2);
	memset(&plan, 0, sizeof(plan));
	if (plug_spawn_plan(&ctx, arr[0], n[0], arr[1], n[1], &plan) == PMIX_SUCCESS)
		plug_spawn_plan_free(&plan);
	fuzz_arrays_free(arr, n, types, 2);
}

static void alloc(const uint8_t *data, size_t size)
{
	static const pmix_data_type_t types[] = { PMIX_INFO };
	plug_alloc_req_t r;
	char err[256];
	void *arr[1];
	size_t n[1];

	if (size < 1)
		return;
	fuzz_arrays(data + 1, size - 1, types, arr, n, 1);
	memset(&r, 0, sizeof(r));
	plug_alloc_parse((pmix_alloc_directive_t)data[0], arr[0], n[0], &r, err, sizeof(err));
	fuzz_arrays_free(arr, n, types, 1);
}

static void srun_io(const uint8_t *data, size_t size)
{
	char *env[] = { "SLURM_JOB_ID=42", "SLURMD_NODENAME=vn1", NULL };
	plug_srun_io_t io;

	memset(&io, 0, sizeof(io));
	if (plug_srun_io_cmdline((const char *)data, size, env, &io) == 0)
		plug_srun_io_free(&io);
}

static void util(const uint8_t *data, size_t size)
{
	char *s = text(data, size), out[256];
	uint32_t v, job, step;
	bool b;

	if (!s)
		return;
	plug_parse_u32(s, 0, UINT32_MAX, &v);
	plug_parse_bool(s, &b);
	plug_nspace_parse(s, &job, &step);
	plug_nspace_same_job(s, "slurmix.42.0");
	plug_path_expand(s, "vn1", "host1", out, sizeof(out));
	free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	switch (data[0] % 6) {
	case 0: map(data + 1, size - 1); break;
	case 1: endpoints(data + 1, size - 1); break;
	case 2: spawn(data + 1, size - 1); break;
	case 3: alloc(data + 1, size - 1); break;
	case 4: srun_io(data + 1, size - 1); break;
	default: util(data + 1, size - 1); break;
	}
	return 0;
}
