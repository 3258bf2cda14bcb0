/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * iof_gen.c - output of known bytes, for the IO forwarding cases of
 * tests/cluster/run_iof_tests.sh (docs/iof.md, "Capture in the step
 * daemon"). Needs no PMIx.
 *
 *   iof_gen OUT ERR [SEED]  writes OUT bytes on stdout and ERR on stderr,
 *                           every byte value, in writes of changing size,
 *                           the last line without its newline; SEED is
 *                           SLURM_PROCID when not given, so that
 *                           "iof_gen OUT ERR R" on the test's host
 *                           writes what rank R wrote;
 *   iof_gen lines N [SEED]  writes N text lines on stdout ("rank R line I "
 *                           and up to 60 letters), in writes that cut
 *                           lines anywhere;
 *   iof_gen mix N           N times "out I" on stdout, then "err I" on
 *                           stderr, each line a write of its own;
 *   iof_gen tty             prints "tty 0=A 1=B 2=C" (isatty of each).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iof_gen.h"

static int emit(int fd, unsigned long long n, unsigned seed)
{
	return iof_make(n, fd, seed, iof_to_fd, &fd);
}

int main(int argc, char **argv)
{
	const char *rank = getenv("SLURM_PROCID");
	unsigned seed;

	if (argc == 2 && !strcmp(argv[1], "tty")) {
		printf("tty 0=%d 1=%d 2=%d\n", isatty(0), isatty(1), isatty(2));
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "lines")) {
		unsigned long n = strtoul(argv[2], NULL, 10), s;
		size_t cap = n * 940 + 1, len = 0, off = 0;
		char *b = malloc(cap);

		seed = (unsigned)strtoul(argc > 3 ? argv[3] : rank ? rank : "0", NULL, 10);
		for (unsigned long i = 0; b && i < n; i++) {
			len += (size_t)snprintf(b + len, cap - len, "rank %u line %lu ", seed, i);
			for (unsigned long k = 0; k < i * 37 % 60; k++)
				b[len++] = (char)('a' + k % 26);
			b[len++] = '\n';
		}
		s = seed;
		while (b && off < len) {
			size_t k = 1 + (s = s * 1103515245u + 12345u) % 3000;

			if (k > len - off)
				k = len - off;
			if (iof_to_fd(&(int){ 1 }, b + off, k) < 0)
				return 1;
			off += k;
		}
		if (!b)
			return 1;
		free(b);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "mix")) {
		for (unsigned long i = 0, n = strtoul(argv[2], NULL, 10); i < n; i++)
			if (dprintf(1, "out %lu\n", i) < 0 || dprintf(2, "err %lu\n", i) < 0)
				return 1;
		return 0;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: iof_gen OUT ERR [SEED] | iof_gen tty\n");
		return 2;
	}
	seed = (unsigned)strtoul(argc > 3 ? argv[3] : rank ? rank : "0", NULL, 10);
	if (emit(1, strtoull(argv[1], NULL, 10), seed) < 0 ||
	    emit(2, strtoull(argv[2], NULL, 10), seed) < 0) {
		perror("iof_gen: write");
		return 1;
	}
	return 0;
}
