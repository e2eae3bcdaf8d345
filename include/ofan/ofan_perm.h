/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ofan_perm.h - the global base permutation P of Ofan's port orders
 * (ofan_core.h, Ofan paper Appendix F.2), computed by the userspace agent
 * into struct ofan_config.perm, and helpers on cyclic orders for the tests.
 * Header-only; needs nothing beyond <linux/types.h>, and is not used by BPF.
 *
 * Property.  The paper draws P "once offline" so that "its w cyclic shifts
 * define w distinct orders".  Here: the w additive shifts of P,
 *
 *	S_c = ((P[0] + c) mod w, ..., (P[w-1] + c) mod w),   c = 0..w-1,
 *
 * are w distinct cyclic orders (a cyclic order is a sequence up to
 * rotation).  S_c and S_c' are the same cyclic order exactly when S_(c-c')
 * is a rotation of P, so it suffices that no S_c with c != 0 is a rotation
 * of P.  S_c is the order ofan_pi() gives a pointer with id1 = 0 and
 * id2 = c mod w, so the property makes those w pointers follow w different
 * orders.  All 2^b * w combinations of id1 and id2 mod w give more: with the
 * shipped P, 30 cyclic orders for w = 6 (the paper's figure), and w^2 / 2
 * for w = 8, 16, 32, 64 (for w = 2^b, xor with w/2 is adding w/2 mod w,
 * so the combinations coincide in pairs), 4 for w = 4.
 *
 * Exceptions.  The property holds for w = 1 (one shift, one order) and for
 * every w in 4..OFAN_MAX_W, and cannot hold for w = 2 and w = 3: there are
 * only (w - 1)! cyclic orders of w ports, 1 for w = 2 and 2 for w = 3, fewer
 * than the w shifts (every permutation of 2 or 3 ports is in fact a rotation
 * of each of its shifts: they all give a single cyclic order).  For w >= 4 an
 * exhaustive search over all w! permutations finds the property for 16 of
 * 24 (w = 4), 100/120, 648/720, 4998/5040, 39936/40320, 362556/362880,
 * 3624800/3628800 and 39916690/39916800 (w = 11), and for every w of
 * 4..OFAN_MAX_W the search below finds one within its first two candidates
 * (selftests/unit/test_ofan_core.c repeats the exhaustive search for
 * w <= 8 and checks the shipped P of every w).
 *
 * Seed scheme.  Candidate k (k = 0, 1, ...) for w is a Fisher-Yates shuffle
 * of 0..w-1 (i from w-1 down to 1 swaps i with j = (r >> 32) mod (i + 1))
 * driven by xorshift64* (shifts 12, 25, 27; multiplier 0x2545f4914f6cdd1d)
 * whose state is seeded with the first splitmix64 output from the state
 * OFAN_PERM_SEED + (w << 32) + k (ofan_perm_mix(); OFAN_PERM_SEED should it
 * be 0).  The shipped P is the first candidate with the property; for
 * w = 2 and w = 3 it is candidate 0.  Fixed constants make P reproducible:
 * all switches of a fabric compute the same P.
 */
#ifndef _OFAN_PERM_H
#define _OFAN_PERM_H

#include <linux/types.h>

#include "ofan_core.h"

#define OFAN_PERM_SEED		0x4f66616e50657231ULL	/* "OfanPer1" */
#define OFAN_PERM_MAX_TRIES	1024	/* candidates tried per w */

/* splitmix64 finaliser: spreads neighbouring seeds over the state space */
static inline __u64 ofan_perm_mix(__u64 x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* xorshift64*: one 64-bit output; *state must not be 0 */
static inline __u64 ofan_perm_rand(__u64 *state)
{
	__u64 x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/* candidate @k for @w (1..OFAN_MAX_W) of the seed scheme above */
static inline void ofan_perm_shuffle(__u32 w, __u32 k, __u8 *perm)
{
	__u64 state = ofan_perm_mix(OFAN_PERM_SEED + ((__u64)w << 32) + k);
	__u32 i, j;
	__u8 t;

	if (!state)
		state = OFAN_PERM_SEED;
	for (i = 0; i < w; i++)
		perm[i] = (__u8)i;
	for (i = w - 1; i > 0 && i < w; i--) {
		j = (__u32)(ofan_perm_rand(&state) >> 32) % (i + 1);
		t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
}

/* 1 when @perm[0..w-1] holds each of 0..w-1 once (w <= OFAN_MAX_W) */
static inline int ofan_is_permutation(const __u8 *perm, __u32 w)
{
	__u64 seen = 0;
	__u32 i;

	if (w > OFAN_MAX_W)
		return 0;
	for (i = 0; i < w; i++) {
		if (perm[i] >= w || ((seen >> perm[i]) & 1))
			return 0;
		seen |= 1ULL << perm[i];
	}
	return 1;
}

/* 1 when some permutation of w ports has the property: w = 1 or w >= 4 */
static inline int ofan_perm_shifts_achievable(__u32 w)
{
	return w == 1 || (w >= 4 && w <= OFAN_MAX_W);
}

/*
 * ofan_perm_shifts_distinct - 1 when the w additive shifts of permutation
 * @perm are w distinct cyclic orders, 0 otherwise (or if @perm is not a
 * permutation).  S_c is the rotation of P by r exactly when
 * P[(i + r) mod w] = P[i] + c for all i, and then r is where P[0] + c sits;
 * O(w^2).
 */
static inline int ofan_perm_shifts_distinct(const __u8 *perm, __u32 w)
{
	__u8 pos[OFAN_MAX_W];
	__u32 c, i, r;

	if (!w || !ofan_is_permutation(perm, w))
		return 0;
	for (i = 0; i < w; i++)
		pos[perm[i]] = (__u8)i;
	for (c = 1; c < w; c++) {
		r = pos[(perm[0] + c) % w];
		for (i = 0; i < w; i++)
			if (perm[(i + r) % w] != (perm[i] + c) % w)
				break;
		if (i == w)
			return 0;	/* S_c is P rotated by r */
	}
	return 1;
}

/*
 * ofan_base_perm - fill @perm[0..w-1] with the shipped P for @w.  Returns
 * the index k of the candidate used (0 for w = 2, 3), or -1 when w is 0 or
 * above OFAN_MAX_W (@perm untouched) or, which does not happen for any w of
 * 1..OFAN_MAX_W, no candidate of the first OFAN_PERM_MAX_TRIES has the
 * property (@perm then holds candidate 0).
 */
static inline int ofan_base_perm(__u32 w, __u8 *perm)
{
	__u32 k;

	if (!w || w > OFAN_MAX_W)
		return -1;
	if (!ofan_perm_shifts_achievable(w)) {
		ofan_perm_shuffle(w, 0, perm);
		return 0;
	}
	for (k = 0; k < OFAN_PERM_MAX_TRIES; k++) {
		ofan_perm_shuffle(w, k, perm);
		if (ofan_perm_shifts_distinct(perm, w))
			return (int)k;
	}
	ofan_perm_shuffle(w, 0, perm);
	return -1;
}

/* the position of port 0 in @seq (0 if absent) */
static inline __u32 ofan_cyclic_start(const __u8 *seq, __u32 w)
{
	__u32 i;

	for (i = 0; i < w; i++)
		if (!seq[i])
			return i;
	return 0;
}

/* @out = @seq rotated so that port 0 comes first: its cyclic order's name */
static inline void ofan_cyclic_canon(const __u8 *seq, __u32 w, __u8 *out)
{
	__u32 z = ofan_cyclic_start(seq, w), i;

	for (i = 0; i < w; i++)
		out[i] = seq[(z + i) % w];
}

/* 1 when sequences @a and @b of permutations of 0..w-1 are the same
 * cyclic order (one is a rotation of the other)
 */
static inline int ofan_cyclic_equal(const __u8 *a, const __u8 *b, __u32 w)
{
	__u32 za = ofan_cyclic_start(a, w), zb = ofan_cyclic_start(b, w), i;

	for (i = 0; i < w; i++)
		if (a[(za + i) % w] != b[(zb + i) % w])
			return 0;
	return 1;
}

/*
 * ofan_count_cyclic_orders - the number of distinct cyclic orders among
 * @n permutations of 0..w-1 stored one after the other in @seqs (sequence j
 * at @seqs + j * w).  Pairwise, O(n^2 w) at worst: meant for tests.
 */
static inline __u32 ofan_count_cyclic_orders(const __u8 *seqs, __u32 n,
					     __u32 w)
{
	__u32 count = 0, i, j;

	for (j = 0; j < n; j++) {
		for (i = 0; i < j; i++)
			if (ofan_cyclic_equal(seqs + (__u64)i * w,
					      seqs + (__u64)j * w, w))
				break;
		if (i == j)
			count++;
	}
	return count;
}

#endif /* _OFAN_PERM_H */
