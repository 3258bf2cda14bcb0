/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmi_wire.h - the PMI-1 and PMI-2 wire formats (pmi_wire.c): splitting a
 * byte stream into requests, parsing a request into its command and
 * key=value pairs, and writing replies. No server state, no IO, no PMIx:
 * unit-tested and fuzzed alone.
 *
 * The three request shapes (the formats MPICH's simple PMI clients speak):
 *   PMI-1        one line "cmd=NAME k=v k=v ...\n", words separated by
 *                spaces (a value holds no space);
 *   PMI-1 mcmd   lines "mcmd=NAME\n" "k=v\n" ... ending with "endcmd\n"
 *                (the spawn request; a value may hold spaces);
 *   PMI-2        a 6-character decimal length (space or zero padded, either
 *                side) and
 *                that many bytes "cmd=NAME;k=v;k=v;...", ";;" standing for
 *                a ';' inside a value.
 * A connection starts in PMI-1 (the first request is "cmd=init
 * pmi_version=N"); the server switches the reader to PMI-2 after a
 * version-2 init.
 *
 * Everything read is hostile: a line, a message or a value beyond the
 * limits below, a malformed length, a word without '=', too many pairs,
 * a NUL byte, are errors with a short reason, never a crash or an
 * unbounded allocation. Not thread-safe per object; any thread.
 */
#ifndef PXC_SERVER_PMI_WIRE_H
#define PXC_SERVER_PMI_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Longest PMI-1 line (the newline included). MPICH's own client reads at
 * most 1024 bytes per line; we take more so that a value of
 * PXC_PMI_VALLEN_MAX always fits. */
#define PXC_PMI_MAX_LINE 4096
/* Longest whole request: a PMI-2 message body or a PMI-1 mcmd block. */
#define PXC_PMI_MAX_MSG (64 * 1024)
/* Most bytes fed to a reader at once. */
#define PXC_PMI_READ_CHUNK 4096
/* Most key=value pairs in one request. */
#define PXC_PMI_MAX_PAIRS 1024
/* The limits we announce (get_maxes) and enforce. */
#define PXC_PMI_KVSNAME_MAX 256
#define PXC_PMI_KEYLEN_MAX 256
#define PXC_PMI_VALLEN_MAX 1024

/* The first bytes a task's end of the connection carries, written by the
 * host's task hook before exec (pxc_pmi_preamble_write): they tell the
 * server the task's pid, which the socketpair's credentials cannot. */
#define PXC_PMI_PREAMBLE_MAGIC 0x53585049u /* "SXPI" */
#define PXC_PMI_PREAMBLE_LEN 8

typedef enum { PXC_PMI_V1 = 1, PXC_PMI_V2 = 2 } pxc_pmi_version_t;
typedef enum { PXC_PMI_SHAPE_V1, PXC_PMI_SHAPE_MCMD, PXC_PMI_SHAPE_V2 } pxc_pmi_shape_t;

typedef struct {
	const char *key;
	const char *val; /* "" when the word had "k=" only */
} pxc_pmi_pair_t;

/* One parsed request. Strings point into buf, which the message owns. */
typedef struct {
	pxc_pmi_shape_t shape;
	const char *cmd;
	pxc_pmi_pair_t *pairs;
	size_t npairs;
	char *buf;
} pxc_pmi_msg_t;

/* Parses one request body of the given shape (len bytes; for PMI-1 without
 * its newline; for PMI-2 without the length; for mcmd the whole block).
 * 0, or -1 with a reason (a static string) in *why. m must be cleared with
 * pxc_pmi_msg_clear either way. */
int pxc_pmi_parse(pxc_pmi_shape_t shape, const char *body, size_t len, pxc_pmi_msg_t *m,
		  const char **why);
void pxc_pmi_msg_clear(pxc_pmi_msg_t *m);
/* The value of the first pair named key, or NULL. */
const char *pxc_pmi_get(const pxc_pmi_msg_t *m, const char *key);
/* The n-th (0-based) value named key, or NULL: PMI-2 spawn repeats its
 * per-command keys, one group after each "subcmd". */
const char *pxc_pmi_get_nth(const pxc_pmi_msg_t *m, const char *key, size_t n);
/* A strict decimal integer in [min, max]: 0, or -1 for NULL, empty,
 * trailing junk or out of range. */
int pxc_pmi_int(const char *s, long min, long max, long *out);

/* Splits a byte stream into requests. */
typedef struct {
	char *buf;
	size_t len, cap;
	pxc_pmi_version_t version; /* how the next request is framed */
	bool skipping;             /* discarding the rest of an over-long line */
} pxc_pmi_reader_t;

void pxc_pmi_reader_init(pxc_pmi_reader_t *r);
void pxc_pmi_reader_clear(pxc_pmi_reader_t *r);
/* Appends n <= PXC_PMI_READ_CHUNK bytes read from the connection; the
 * caller then takes every complete request with pxc_pmi_reader_next
 * before it feeds more. 0, or -1/ENOMEM. The reader never holds more than
 * about PXC_PMI_MAX_MSG + PXC_PMI_READ_CHUNK bytes (pxc_pmi_reader_next
 * fails a request that would need more). */
int pxc_pmi_reader_feed(pxc_pmi_reader_t *r, const char *data, size_t n);
/* The next complete request:
 *   1  *shape, *body (malloc()ed, NUL-terminated, the caller frees) and
 *      *len are set;
 *   0  more bytes are needed;
 *  -1  a broken request, *why says why. *fatal tells whether the stream
 *      can go on: an over-long PMI-1 line is skipped up to its newline
 *      (not fatal), a bad PMI-2 length or an over-long message is fatal
 *      (the framing is lost). */
int pxc_pmi_reader_next(pxc_pmi_reader_t *r, pxc_pmi_shape_t *shape, char **body, size_t *len,
			const char **why, bool *fatal);

/* A reply under construction. */
typedef struct {
	char *buf;
	size_t len, cap;
	pxc_pmi_version_t version;
	bool failed; /* out of memory: the reply is dropped */
} pxc_pmi_out_t;

/* Starts a reply "cmd=NAME" in the given version. */
void pxc_pmi_out_begin(pxc_pmi_out_t *o, pxc_pmi_version_t v, const char *cmd);
/* Adds a pair. PMI-1: a space in the value becomes '_' (the PMI-1 word
 * syntax cannot carry it) and a newline ends nothing (it becomes ' '
 * replaced too); PMI-2: ';' is doubled. */
void pxc_pmi_out_add(pxc_pmi_out_t *o, const char *key, const char *val);
void pxc_pmi_out_addi(pxc_pmi_out_t *o, const char *key, long val);
/* Ends the reply (PMI-1: the newline; PMI-2: the length). 0 with o->buf /
 * o->len the bytes to send, or -1 (out of memory, or a PMI-2 body beyond
 * 999999 bytes). */
int pxc_pmi_out_end(pxc_pmi_out_t *o);
void pxc_pmi_out_clear(pxc_pmi_out_t *o);

/* Writes the preamble for pid into fd (the task's end), retrying on EINTR.
 * Async-signal-safe (only write()): for a forked child. 0 or -1. */
int pxc_pmi_preamble_write(int fd, pid_t pid);
/* Decodes 8 preamble bytes: the pid, or -1 when they are not a preamble. */
pid_t pxc_pmi_preamble_pid(const unsigned char in[PXC_PMI_PREAMBLE_LEN]);

#endif
