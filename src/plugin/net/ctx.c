/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net/ctx.c - the one step context of the network's features
 * (net/ctx.h).
 */
#include "net/ctx.h"

plug_net_ctx_t plug_net_ctx;
