/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * print.h - the renderer behind PMIx_Value_string, PMIx_Info_string and the
 * other PMIx_*_string calls (print.c): the core's own uses of it. Strings
 * are malloc'ed and belong to the caller. Any thread, on objects the
 * caller owns.
 */
#ifndef PXC_COMMON_PRINT_H
#define PXC_COMMON_PRINT_H

#include <pmix_common.h>

/* Appends a human-readable rendering of one element to a malloc'ed string
 * (*out may be NULL). Returns 0 or -1 (ENOMEM). */
int pxc_elem_print(char **out, const void *elem, pmix_data_type_t type);
/* Appends printf-formatted text to *out (reallocating). 0 or -1. */
int pxc_sappend(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
