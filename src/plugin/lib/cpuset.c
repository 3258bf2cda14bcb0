/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/cpuset.c - a task's CPUs from Slurm's cpu_bind list (see
 * lib/cpuset.h). The list comes from slurmd (trusted) but is parsed as
 * if it were not: a malformed entry gives the fallback, never a crash.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cpuset.h"

#define MAX_CPU_ID 65535u /* hwloc bitmaps grow to whatever is set */

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static int parse_mask(const char *s, size_t len, hwloc_bitmap_t out)
{
	unsigned bit = 0;

	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		len -= 2;
	}
	if (len == 0 || len > MAX_CPU_ID / 4)
		return -1;
	for (size_t i = len; i-- > 0; bit += 4) {
		int d = hex_digit(s[i]);

		if (d < 0)
			return -1;
		for (int b = 0; b < 4; b++)
			if (d & (1 << b))
				hwloc_bitmap_set(out, bit + (unsigned)b);
	}
	return 0;
}

static int parse_id(const char *s, size_t len, hwloc_bitmap_t out)
{
	char buf[16], *end;
	unsigned long id;

	if (len == 0 || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	id = strtoul(buf, &end, 0);
	if (errno || *end || !isdigit((unsigned char)buf[0]) || id > MAX_CPU_ID)
		return -1;
	hwloc_bitmap_set(out, (unsigned)id);
	return 0;
}

int plug_cpuset_entry(const char *entry, size_t len, int is_map, hwloc_bitmap_t out)
{
	int rc;

	hwloc_bitmap_zero(out);
	rc = is_map ? parse_id(entry, len, out) : parse_mask(entry, len, out);
	if (rc < 0 || hwloc_bitmap_iszero(out)) {
		hwloc_bitmap_zero(out);
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/* The n-th entry of a comma-separated list, cycling; NULL when empty. */
static const char *nth_entry(const char *list, uint32_t n, size_t *len)
{
	uint32_t count = 1;
	const char *p;

	if (!list || !*list)
		return NULL;
	for (p = list; *p; p++)
		count += *p == ',';
	n %= count;
	for (p = list; n > 0; p++)
		if (*p == ',')
			n--;
	*len = strcspn(p, ",");
	return p;
}

hwloc_bitmap_t plug_cpuset_of_task(uint32_t bind_type, const char *bind, uint32_t ltask,
				   hwloc_const_bitmap_t avail, hwloc_const_bitmap_t fallback)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	int is_map = (bind_type & PLUG_BIND_MAP) != 0;
	const char *e = NULL;
	size_t len = 0;

	if (!set)
		return NULL;
	if (bind_type & (PLUG_BIND_MAP | PLUG_BIND_MASK))
		e = nth_entry(bind, ltask, &len);
	if (e && plug_cpuset_entry(e, len, is_map, set) == 0 && avail)
		hwloc_bitmap_and(set, set, avail);
	if (hwloc_bitmap_iszero(set) && hwloc_bitmap_copy(set, fallback) < 0) {
		hwloc_bitmap_free(set);
		return NULL;
	}
	return set;
}
