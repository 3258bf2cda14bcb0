/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/srun_io.h - where an srun sends its step's output: its --output and
 * --error patterns and --label, read from its own command line and the
 * environment variables srun takes them from (SLURM_STDOUTMODE,
 * SLURM_STDERRMODE, SLURM_LABELIO), so that a spawned step's srun can
 * put its output where the parent srun puts its own (docs/iof.md,
 * "Spawned steps' output"). Slurm keeps them in no variable a plugin can
 * read. Slurm-free; unit-tested in tests/unit/test_plugin_spawn.c.
 */
#ifndef PLUG_LIB_SRUN_IO_H
#define PLUG_LIB_SRUN_IO_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
	char *out; /* --output pattern, or NULL (srun's own stdout) */
	char *err; /* --error pattern, or NULL (with the output) */
	bool label;
} plug_srun_io_t;

/* Reads argv (argv[0] is srun; parsing stops at the first word that is
 * no option, as srun's does: the program) and env. An option's value is
 * the next word for srun's options that take one, and the rest of the
 * word after '=' or after a short option's letter. 0, or -1 with errno
 * ENOMEM (io left empty). */
int plug_srun_io_parse(char *const *argv, char *const *env, plug_srun_io_t *io);
/* The same from a NUL-separated command line (/proc/PID/cmdline) of n
 * bytes. */
int plug_srun_io_cmdline(const char *cmdline, size_t n, char *const *env, plug_srun_io_t *io);
void plug_srun_io_free(plug_srun_io_t *io);

#endif
