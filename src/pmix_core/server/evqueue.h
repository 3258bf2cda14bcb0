/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * evqueue.h - the bounds of the server's event traffic (evqueue.c;
 * docs/events.md, "capacity"). Progress thread.
 */
#ifndef PXC_SRV_EVQUEUE_H
#define PXC_SRV_EVQUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pxc_peer pxc_peer_t;

/* The bound in bytes (0: none): of the client notifications the host has
 * not finished, and of what each client's connection may have queued. */
void pxc_evq_config(size_t max_bytes);
/* A client's notification of bytes: run(item) now when it fits and none
 * waits, else it waits (FIFO) and p's connection is paused until it runs;
 * drop(item) frees it when the server stops first. */
void pxc_evq_submit(pxc_peer_t *p, size_t bytes, void (*run)(void *item), void *item,
		    void (*drop)(void *item));
/* A notification of bytes took its turn (taken), or it was answered
 * (done: the waiting ones that now fit run). */
void pxc_evq_taken(size_t bytes);
void pxc_evq_done(size_t bytes);
/* Calls fn(arg) once each peer of ids[0..n) has at most the bound queued
 * for sending (or is gone), and after every fn of the earlier calls (so
 * the notifications keep their order): at once when nothing waits. */
void pxc_evq_when_drained(const uint64_t *ids, size_t n, void (*fn)(void *arg), void *arg);
/* Whether p's connection holds more than the bound queued for sending
 * (pxc_evq_when_drained then waits for it). */
bool pxc_evq_full(const pxc_peer_t *p);
/* How many notifications wait for their turn, and how many deliveries
 * wait for their recipients' room (for the tests). */
size_t pxc_evq_waiting(void);
size_t pxc_evq_draining(void);
/* Teardown: what waits is dropped, the drain waits are answered. */
void pxc_evq_clear(void);

#endif
