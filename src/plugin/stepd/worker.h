/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stepd/worker.h - one thread of the step daemon for calls that may wait
 * (MUNGE's socket, a write to a file on a slow file system), so that the
 * server's progress thread never does: work runs there in order, and each
 * piece's done() is posted back to the progress thread.
 *
 * At the step's end (plug_worker_stop, before PMIx_server_finalize) the
 * thread gets 2 s for a piece under way; the pieces still queued get
 * done() with cancelled set; a thread still stuck after that is left to
 * slurmstepd's exit, and what it finishes then is dropped (drop(), no
 * done(): nobody is there to answer); the plugin is linked
 * -z nodelete, so Slurm's dlclose leaves its code mapped for it. After
 * the stop, submit refuses.
 *
 * Threads: submit in the progress thread; stop from fini's thread.
 */
#ifndef PLUG_STEPD_WORKER_H
#define PLUG_STEPD_WORKER_H

#include <stdbool.h>

typedef struct plug_work plug_work_t;
struct plug_work {
	plug_work_t *next;
	void (*run)(plug_work_t *w);  /* the worker thread */
	void (*done)(plug_work_t *w); /* the progress thread; frees w */
	void (*drop)(plug_work_t *w); /* any thread: frees w unanswered */
	bool cancelled;               /* done() after the stop, run() not called */
};

/* Queues w (the thread starts with the first). 0, or -1 (stopped, 1024
 * pieces waiting already, or no thread: w stays the caller's). */
int plug_worker_submit(plug_work_t *w);
void plug_worker_stop(void);

#endif
