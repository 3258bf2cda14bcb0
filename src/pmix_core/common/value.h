/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * value.h - the internal helper of value.c (PMIx_Value_* and
 * PMIx_Data_copy, declared in the public headers) that info.c shares. The
 * per-type table the value API is written on is in types.h. Any thread,
 * on objects the caller owns.
 */
#ifndef PXC_VALUE_H
#define PXC_VALUE_H

#include <pmix_common.h>

/* Case-insensitive boolean parser shared by PMIx_Value_true/PMIx_Info_true. */
pmix_boolean_t pxc_value_true(const pmix_value_t *v);

#endif
