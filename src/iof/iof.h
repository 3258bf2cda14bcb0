/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * iof/iof.h - the IO forwarding engine: what the processes of a node wrote
 * on each channel, kept and handed to the subscriptions that asked for it
 * (PMIx_IOF_pull and the host's iof_pull), each with its own bounds,
 * buffering and format. Slurm-free and PMIx-wire-free: a server feeds it
 * bytes and gives it sinks.
 *
 * Streams. One per (process, channel), made by its first bytes. Each keeps
 * a history of at most `history` bytes (sx_iof_create): the first half of
 * it is the stream's first bytes, kept for good, the second half a ring
 * of its latest ones; what falls between is counted. So a late
 * subscriber can get the beginning (PMIX_IOF_DROP_NEWEST) or the end
 * (PMIX_IOF_DROP_OLDEST) of a long stream, and a second subscriber gets
 * the same history as the first: nothing consumes it.
 *
 * Subscriptions (sx_iof_subscribe): a set of processes (a wildcard rank
 * for a whole namespace) and of channels, options (sx_iof_opts_t, from the
 * pull's directives with sx_iof_opts_parse) and a sink. At subscription,
 * each existing stream it covers gives its history: with
 * PMIX_IOF_CACHE_SIZE c, the first c bytes of the stream (DROP_NEWEST) or
 * the last c (DROP_OLDEST, the default), as far as the history holds
 * them; without, all the history holds. Then every new byte. What could
 * not be given is reported as dropped on the next chunk.
 *
 * Delivery. Each (subscription, stream) has a queue bounded by the cache
 * size (or the engine's queue bound): when its sink is slow (the sink
 * returned false: hold on until sx_iof_resume), new bytes wait there, and
 * past the bound the newest are dropped (DROP_NEWEST) or the oldest
 * (DROP_OLDEST), counted, and the count goes with the next chunk. A slow
 * sink never slows the input. Chunks are exactly PMIX_IOF_BUFFERING_SIZE
 * bytes of the source when asked (the last may be shorter), or, with
 * PMIX_IOF_BUFFERING_TIME, whatever waited when its first byte has waited
 * that long (sx_iof_tick), or else whatever came; then formatted
 * (format.h) for that subscription. The end of a stream (sx_iof_close)
 * reaches each of its subscriptions after its last byte, as a chunk with
 * `complete` set; sx_iof_unsubscribe flushes everything first.
 *
 * Single-threaded: every call from the owner's thread; sinks run inside
 * the calls, and must not call back into the engine for the same
 * subscription except sx_iof_resume later.
 */
#ifndef SX_IOF_IOF_H
#define SX_IOF_IOF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pmix_common.h>

#include "iof/format.h"

typedef struct sx_iof sx_iof_t;

/* A subscription's options (from the directives of a pull). */
typedef struct {
	size_t cache_size;    /* PMIX_IOF_CACHE_SIZE, bytes per stream; 0: none given */
	bool drop_newest;     /* PMIX_IOF_DROP_NEWEST (default: drop the oldest) */
	size_t buf_size;      /* PMIX_IOF_BUFFERING_SIZE, bytes; 0: none */
	uint32_t buf_time_ms; /* PMIX_IOF_BUFFERING_TIME (seconds there); 0: none */
	sx_iof_fmt_t fmt;     /* PMIX_IOF_TAG_OUTPUT, _TIMESTAMP_OUTPUT, _XML_OUTPUT */
} sx_iof_opts_t;

/* The options of directives info[0..ninfo) (the others are left to the
 * caller). PMIX_SUCCESS, or PMIX_ERR_BAD_PARAM naming a directive whose
 * value has the wrong type, or both DROP_OLDEST and DROP_NEWEST, in *bad
 * (a borrowed key; may be NULL). */
pmix_status_t sx_iof_opts_parse(const pmix_info_t *info, size_t ninfo, sx_iof_opts_t *o,
				const char **bad);

/* What a sink gets. */
typedef struct {
	const pmix_proc_t *src;
	pmix_iof_channel_t channel;
	const char *data; /* formatted bytes (may be 0 of them) */
	size_t n;
	bool complete;    /* the stream ended: nothing more of it */
	uint64_t dropped; /* bytes of this stream lost to this subscription since its last chunk */
} sx_iof_chunk_t;

/* Returns true to get more now, false to be left alone until
 * sx_iof_resume (the chunk is taken either way). */
typedef bool (*sx_iof_sink_f)(void *arg, uint32_t id, const sx_iof_chunk_t *c);

/* An engine: history bytes per stream (at least 2), queue bound per
 * (subscription, stream) when the subscription gave no cache size. NULL
 * when out of memory. */
sx_iof_t *sx_iof_create(size_t history, size_t queue);
/* Frees everything; sinks are not called. */
void sx_iof_destroy(sx_iof_t *e);

/* n bytes src wrote on channel ch (one channel bit) at now_ms (a monotonic
 * clock). PMIX_SUCCESS, PMIX_ERR_BAD_PARAM (no such channel, or the stream
 * ended), PMIX_ERR_NOMEM. */
pmix_status_t sx_iof_input(sx_iof_t *e, const pmix_proc_t *src, pmix_iof_channel_t ch,
			   const void *bytes, size_t n, int64_t now_ms);
/* n bytes of src's stream on ch that are lost (a relay's history had a
 * gap): counted as the stream's, reported as dropped to its
 * subscriptions; the stream's first bytes are complete from here on.
 * PMIX_SUCCESS, PMIX_ERR_BAD_PARAM (no such channel, or the stream
 * ended), PMIX_ERR_NOMEM. */
pmix_status_t sx_iof_skip(sx_iof_t *e, const pmix_proc_t *src, pmix_iof_channel_t ch, uint64_t n);
/* End of src's stream on ch (made if it had no bytes). PMIX_SUCCESS,
 * PMIX_ERR_BAD_PARAM, PMIX_ERR_NOMEM. */
pmix_status_t sx_iof_close(sx_iof_t *e, const pmix_proc_t *src, pmix_iof_channel_t ch,
			   int64_t now_ms);

/* A subscription to the channels chans of procs[0..nprocs); its history
 * goes to sink before this returns, or, held, at its first sx_iof_resume
 * (so that its owner can announce its id first). *id: its id (never 0).
 * PMIX_SUCCESS, PMIX_ERR_BAD_PARAM (no procs, no channel),
 * PMIX_ERR_NOMEM. */
pmix_status_t sx_iof_subscribe(sx_iof_t *e, const pmix_proc_t *procs, size_t nprocs,
			       pmix_iof_channel_t chans, const sx_iof_opts_t *o, bool held,
			       sx_iof_sink_f sink, void *arg, int64_t now_ms, uint32_t *id);
/* Flushes what id has waiting (buffered, queued, an unterminated line),
 * then forgets it: its sink is not called again. PMIX_SUCCESS, or
 * PMIX_ERR_BAD_PARAM for an unknown id. */
pmix_status_t sx_iof_unsubscribe(sx_iof_t *e, uint32_t id, int64_t now_ms);
/* Forgets id without delivering anything more (its owner is gone). */
void sx_iof_cancel(sx_iof_t *e, uint32_t id);
/* id's sink takes more again. */
void sx_iof_resume(sx_iof_t *e, uint32_t id, int64_t now_ms);
/* Delivers what PMIX_IOF_BUFFERING_TIME let wait long enough; returns the
 * milliseconds until the next such deadline, or -1 when none. */
int64_t sx_iof_tick(sx_iof_t *e, int64_t now_ms);

/* Bytes the engine holds (histories and queues), for bounds and tests. */
size_t sx_iof_bytes(const sx_iof_t *e);

#endif
