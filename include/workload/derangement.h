/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * derangement.h - the partners of a permutation collective: a uniform
 * random derangement of the hosts drawn from a seed (Fisher-Yates driven
 * by splitmix64, redrawn while a host would send to itself), the same on
 * every host of a run and in the simulator, so that a seed names the
 * same permutation on the testbed (permsend) and in ns-3 (sim/).
 */
#ifndef _WORKLOAD_DERANGEMENT_H
#define _WORKLOAD_DERANGEMENT_H

#include <stdbool.h>
#include <linux/types.h>

/* splitmix64: the same stream for every host of the run */
static inline __u64 derangement_next_random(__u64 *state)
{
	__u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* @perm[i]: host i's partner, for @n >= 2 hosts. */
static inline void derangement(__u32 *perm, __u32 n, __u64 seed)
{
	__u64 state = seed;
	bool fixed;
	__u32 i, j, t;

	do {
		for (i = 0; i < n; i++)
			perm[i] = i;
		for (i = n - 1; i > 0; i--) {
			j = derangement_next_random(&state) % (i + 1);
			t = perm[i];
			perm[i] = perm[j];
			perm[j] = t;
		}
		fixed = false;
		for (i = 0; i < n; i++)
			fixed |= perm[i] == i;
	} while (fixed);
}

#endif /* _WORKLOAD_DERANGEMENT_H */
