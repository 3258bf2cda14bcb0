/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * iof_gen.h - the known output of the IO forwarding cases
 * (tests/cluster/iof_gen.c, pmix_iofpull.c): n bytes for channel fd of
 * rank `seed`, every byte value, handed to out() in pieces of changing
 * size, the last line without its newline. The same arguments always
 * give the same bytes in the same pieces.
 */
#ifndef IOF_GEN_H
#define IOF_GEN_H

#include <errno.h>
#include <stddef.h>
#include <unistd.h>

static unsigned iof_next(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 16;
}

static int iof_make(unsigned long long n, int fd, unsigned seed,
		    int (*out)(void *arg, const char *p, size_t len), void *arg)
{
	static char buf[1 << 17];
	unsigned s = seed * 7919u + (unsigned)fd;

	while (n) {
		size_t len = 1 + iof_next(&s) % sizeof(buf);

		if (len > n)
			len = (size_t)n;
		for (size_t i = 0; i < len; i++)
			buf[i] = (char)iof_next(&s);
		if (len == n)
			buf[len - 1] = 'x'; /* a partial last line */
		if (out(arg, buf, len) < 0)
			return -1;
		n -= len;
	}
	return 0;
}

/* iof_make's out() for a descriptor (*(int *)arg): writes all of it. */
static int iof_to_fd(void *arg, const char *p, size_t len)
{
	int fd = *(int *)arg;

	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

#endif
