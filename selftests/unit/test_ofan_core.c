// SPDX-License-Identifier: GPL-2.0
/*
 * test_ofan_core.c - userspace unit tests of Ofan's port choice
 * (include/ofan/ofan_core.h) and of its base permutation P
 * (include/ofan/ofan_perm.h): index bits, xor_w, the port orders pi of
 * eq. (18), the distinct cyclic orders P's shifts and the pointer ids
 * give, and the round-robin pointer walk of ofan_next_port() with holes,
 * without valid ports and across the wrap of its 64-bit counter; and the
 * fast-path prefix mask the agent precomputes (ofan_config_set_fast()).
 *
 * Expected values are worked out by hand (arithmetic in the comments) or
 * by the test's own code (eq. (18) written out again, cyclic orders
 * counted by sorting), never by calling the code under test.
 * Prints TAP; exits 0 when every test point passes, 1 otherwise.  Long
 * (about 1,000 lines) because most of it is hand-worked case tables.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <arpa/inet.h>

#include "tap.h"
#include "ofan/ofan_core.h"
#include "ofan/ofan_maps.h"
#include "ofan/ofan_perm.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define MAX_W		OFAN_MAX_W

static void expect_u64(const char *what, __u64 want, __u64 got)
{
	if (want != got)
		tap_fail("# %s: expected %llu (0x%llx), got %llu (0x%llx)\n",
		      what, want, want, got, got);
}

static void expect_int(const char *what, long long want, long long got)
{
	if (want != got)
		tap_fail("# %s: expected %lld, got %lld\n", what, want, got);
}


/* ------------------------------------------------------------------ */
/* The test's own arithmetic */

/* smallest b with 2^b >= w, from the leading zeros of w - 1 */
static unsigned int ref_bits(unsigned int w)
{
	return w <= 1 ? 0 : 32 - (unsigned int)__builtin_clz(w - 1);
}

/* eq. (18) written out: pi(i) = (xor_w(P[i], id mod 2^b) + id / 2^b) mod w */
static unsigned int ref_pi(const uint8_t *perm, unsigned int w, uint32_t id,
			   unsigned int i)
{
	__u64 two_b = 1ULL << ref_bits(w);
	__u64 id1 = id % two_b, id2 = id / two_b;
	__u64 v = perm[i], x = v ^ id1;

	if (x >= w)		/* xor_w keeps v when v ^ id1 leaves 0..w-1 */
		x = v;
	return (unsigned int)((x + id2) % w);
}

/* one sequence of w ports, rotated so that port 0 is first, padded 0xff */
struct seq {
	uint8_t p[MAX_W];
};

static void canon(const uint8_t *s, unsigned int w, struct seq *out)
{
	unsigned int z = 0, i;

	while (z < w && s[z] != 0)
		z++;
	if (z == w)
		z = 0;
	memset(out->p, 0xff, sizeof(out->p));
	for (i = 0; i < w; i++)
		out->p[i] = s[(z + i) % w];
}

static int seq_cmp(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct seq));
}

/* distinct cyclic orders among @n canonical sequences (sorted in place) */
static unsigned int count_distinct(struct seq *c, unsigned int n)
{
	unsigned int i, d = 0;

	qsort(c, n, sizeof(*c), seq_cmp);
	for (i = 0; i < n; i++)
		if (!i || memcmp(&c[i], &c[i - 1], sizeof(*c)))
			d++;
	return d;
}

/* distinct cyclic orders among the w additive shifts of @perm */
static unsigned int shift_orders(const uint8_t *perm, unsigned int w)
{
	struct seq c[MAX_W];
	uint8_t s[MAX_W];
	unsigned int k, i;

	for (k = 0; k < w; k++) {
		for (i = 0; i < w; i++)
			s[i] = (uint8_t)((perm[i] + k) % w);
		canon(s, w, &c[k]);
	}
	return count_distinct(c, w);
}

/* 1 when @s[0..w-1] holds each of 0..w-1 once */
static bool is_perm(const uint8_t *s, unsigned int w)
{
	bool seen[256] = { false };
	unsigned int i;

	for (i = 0; i < w; i++) {
		if (s[i] >= w || seen[s[i]])
			return false;
		seen[s[i]] = true;
	}
	return true;
}

/* the order of pointer @id: pi(0..w-1), with the test's eq. (18) */
static void order_of(const uint8_t *perm, unsigned int w, uint32_t id,
		     uint8_t *s)
{
	unsigned int i;

	for (i = 0; i < w; i++)
		s[i] = (uint8_t)ref_pi(perm, w, id, i);
}

static uint8_t shipped[MAX_W + 1][MAX_W];	/* shipped[w]: P for w */
static int shipped_k[MAX_W + 1];

static void load_shipped(void)
{
	unsigned int w;

	for (w = 1; w <= MAX_W; w++)
		shipped_k[w] = ofan_base_perm(w, shipped[w]);
}

/* ------------------------------------------------------------------ */
/* ofan_index_bits, ofan_xor_w */

static const struct {
	uint32_t w, bits;
} bits_cases[] = {
	{ 1, 0 },	/* 2^0 = 1 >= 1 */
	{ 2, 1 },	/* 2^1 = 2 */
	{ 3, 2 },	/* 2^1 = 2 < 3 <= 4 = 2^2 */
	{ 4, 2 },
	{ 5, 3 },	/* 4 < 5 <= 8 */
	{ 6, 3 },
	{ 8, 3 },
	{ 33, 6 },	/* 32 < 33 <= 64 */
	{ 64, 6 },
};

static void test_index_bits(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bits_cases); i++) {
		tap_point_start();
		expect_u64("ofan_index_bits", bits_cases[i].bits,
			   ofan_index_bits(bits_cases[i].w));
		tap_point_end("ofan_index_bits(%u) = %u", bits_cases[i].w,
			  bits_cases[i].bits);
	}
}

static const struct {
	uint32_t v, x, w, want;
} xor_cases[] = {
	{ 1, 2, 6, 3 },		/* 001 ^ 010 = 011 = 3 < 6 */
	{ 5, 2, 6, 5 },		/* 101 ^ 010 = 111 = 7 >= 6: keep 5 */
	{ 4, 6, 6, 2 },		/* 100 ^ 110 = 010 = 2 */
	{ 0, 7, 6, 0 },		/* 0 ^ 7 = 7 >= 6: keep 0 */
	{ 3, 3, 4, 0 },		/* 3 ^ 3 = 0 */
	{ 2, 1, 3, 2 },		/* 10 ^ 01 = 11 = 3 >= 3: keep 2 */
	{ 0, 0, 1, 0 },		/* w = 1: the only port */
	{ 63, 1, 64, 62 },	/* 111111 ^ 000001 = 111110 */
	{ 32, 33, 33, 1 },	/* 100000 ^ 100001 = 000001 */
	{ 1, 33, 33, 32 },	/* 000001 ^ 100001 = 100000 = 32 < 33 */
	{ 30, 33, 33, 30 },	/* 011110 ^ 100001 = 111111 = 63: keep 30 */
};

static void test_xor_w(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(xor_cases); i++) {
		tap_point_start();
		expect_u64("ofan_xor_w", xor_cases[i].want,
			   ofan_xor_w(xor_cases[i].v, xor_cases[i].x,
				      xor_cases[i].w));
		tap_point_end("ofan_xor_w(%u, %u, w = %u) = %u", xor_cases[i].v,
			  xor_cases[i].x, xor_cases[i].w, xor_cases[i].want);
	}
}

/* ------------------------------------------------------------------ */
/* ofan_pi, ofan_pointer_id: hand-computed */

static const uint8_t p4[4] = { 2, 0, 1, 3 };
static const uint8_t p6[6] = { 5, 2, 3, 4, 0, 1 };
static uint8_t ident[MAX_W];	/* 0, 1, ..., 63 */

static const struct {
	const char *name;
	const uint8_t *perm;	/* NULL: ident */
	uint32_t w, id;
	uint8_t want[6];	/* pi(0..5), or pi(idx[k]) */
	uint8_t idx[6];		/* with nr_idx: positions checked */
	unsigned int nr_idx;
} pi_cases[] = {
	/* w 6, b 3, id 0: id1 = 0, id2 = 0: pi = P */
	{ "w 6, id 0: pi = P", p6, 6, 0, { 5, 2, 3, 4, 0, 1 }, { 0 }, 0 },
	/* id 13 = 1 * 8 + 5: id1 = 5 (101), id2 = 1
	 * i 0: 5 ^ 5 = 0, + 1 = 1	i 1: 2 ^ 5 = 7 >= 6: 2, + 1 = 3
	 * i 2: 3 ^ 5 = 6 >= 6: 3, + 1 = 4	i 3: 4 ^ 5 = 1, + 1 = 2
	 * i 4: 0 ^ 5 = 5, + 1 = 6 mod 6 = 0	i 5: 1 ^ 5 = 4, + 1 = 5
	 */
	{ "w 6, id 13: xor 5, add 1", p6, 6, 13, { 1, 3, 4, 2, 0, 5 },
	  { 0 }, 0 },
	/* id 100 = 12 * 8 + 4: id1 = 4 (100), id2 = 12 = 0 mod 6
	 * i 0: 5 ^ 4 = 1	i 1: 2 ^ 4 = 6 >= 6: 2	i 2: 3 ^ 4 = 7: 3
	 * i 3: 4 ^ 4 = 0	i 4: 0 ^ 4 = 4		i 5: 1 ^ 4 = 5
	 */
	{ "w 6, id 100: xor 4, add 12 = 0 mod 6", p6, 6, 100,
	  { 1, 2, 3, 0, 4, 5 }, { 0 }, 0 },
	/* w 4, b 2, id 7 = 1 * 4 + 3: id1 = 3, id2 = 1
	 * i 0: 2 ^ 3 = 1, + 1 = 2	i 1: 0 ^ 3 = 3, + 1 = 4 mod 4 = 0
	 * i 2: 1 ^ 3 = 2, + 1 = 3	i 3: 3 ^ 3 = 0, + 1 = 1
	 */
	{ "w 4, id 7: xor 3, add 1", p4, 4, 7, { 2, 0, 3, 1 }, { 0 }, 0 },
	/* w 1, b 0: id1 = id & 0 = 0, id2 = 12345 mod 1 = 0 */
	{ "w 1, id 12345: the only port", NULL, 1, 12345, { 0 }, { 0 }, 1 },
	/* w 64, b 6, P identity, id 202 = 3 * 64 + 10: id1 = 10, id2 = 3;
	 * every i ^ 10 < 64 is kept.  i 0: 10 + 3 = 13
	 * i 10: 0 + 3 = 3		i 63: 63 ^ 10 = 53, + 3 = 56
	 * i 53: 53 ^ 10 = 63, + 3 = 66 mod 64 = 2	i 1: 11 + 3 = 14
	 */
	{ "w 64, P identity, id 202: xor 10, add 3", NULL, 64, 202,
	  { 13, 3, 56, 2, 14 }, { 0, 10, 63, 53, 1 }, 5 },
	/* w 33, b 6, P identity, id 2593 = 40 * 64 + 33: id1 = 33,
	 * id2 = 40 = 7 mod 33.  i 0: 0 ^ 33 = 33 >= 33: 0, + 7 = 7
	 * i 1: 1 ^ 33 = 32, + 7 = 39 mod 33 = 6
	 * i 32: 32 ^ 33 = 1, + 7 = 8	i 5: 5 ^ 33 = 37 >= 33: 5, + 7 = 12
	 * i 30: 30 ^ 33 = 63 >= 33: 30, + 7 = 37 mod 33 = 4
	 */
	{ "w 33, P identity, id 2593: xor 33 (partly kept), add 40 = 7 mod 33",
	  NULL, 33, 2593, { 7, 6, 8, 12, 4 }, { 0, 1, 32, 5, 30 }, 5 },
};

static void test_pi_cases(void)
{
	unsigned int c, k, n, i;
	const uint8_t *perm;
	char what[64];

	for (c = 0; c < ARRAY_SIZE(pi_cases); c++) {
		tap_point_start();
		perm = pi_cases[c].perm ? pi_cases[c].perm : ident;
		n = pi_cases[c].nr_idx ? pi_cases[c].nr_idx : pi_cases[c].w;
		for (k = 0; k < n; k++) {
			i = pi_cases[c].nr_idx ? pi_cases[c].idx[k] : k;
			snprintf(what, sizeof(what), "pi(%u)", i);
			expect_u64(what, pi_cases[c].want[k],
				   ofan_pi(perm, pi_cases[c].w,
					   ref_bits(pi_cases[c].w),
					   pi_cases[c].id, i));
		}
		tap_point_end("ofan_pi: %s", pi_cases[c].name);
	}

	/* eq. (16): id = d + N_d * t */
	tap_point_start();
	expect_u64("key 5, 4096 keys, data", 5, ofan_pointer_id(5, 4096, 0));
	expect_u64("key 5, 4096 keys, ACK: 5 + 4096", 4101,
		   ofan_pointer_id(5, 4096, 1));
	expect_u64("key 0, 3 keys, ACK", 3, ofan_pointer_id(0, 3, 1));
	tap_point_end("ofan_pointer_id: d + N_d * t");
}

/* ------------------------------------------------------------------ */
/* the shipped P and the exception list */

static void test_base_perm_api(void)
{
	uint8_t buf[MAX_W + 1], again[MAX_W];
	unsigned int w, i;
	int k;

	/* out of range: rejected, buffer untouched */
	tap_point_start();
	memset(buf, 0xaa, sizeof(buf));
	expect_int("ofan_base_perm(0)", -1, ofan_base_perm(0, buf));
	expect_int("ofan_base_perm(65)", -1, ofan_base_perm(MAX_W + 1, buf));
	for (i = 0; i < sizeof(buf); i++)
		if (buf[i] != 0xaa) {
			tap_fail("# perm[%u] written: 0x%02x\n", i, buf[i]);
			break;
		}
	tap_point_end("ofan_base_perm: w = 0 and w = 65 rejected, perm untouched");

	tap_point_start();
	for (w = 1; w <= MAX_W; w++) {
		if (shipped_k[w] < 0)
			tap_fail("# w = %u: returned %d\n", w, shipped_k[w]);
		if (!is_perm(shipped[w], w))
			tap_fail("# w = %u: P is not a permutation of 0..%u\n",
			      w, w - 1);
		if (ofan_is_permutation(shipped[w], w) != 1)
			tap_fail("# w = %u: ofan_is_permutation(P) != 1\n", w);
	}
	tap_point_end("ofan_base_perm: P is a permutation for every w in 1..64");

	tap_point_start();
	for (w = 1; w <= MAX_W; w++) {
		k = ofan_base_perm(w, again);
		if (k != shipped_k[w] || memcmp(again, shipped[w], w))
			tap_fail("# w = %u: second call differs\n", w);
	}
	tap_point_end("ofan_base_perm: reproducible (a second call gives the same P)");

	/* The shipped values: every switch must compute these; a change of
	 * the seed scheme changes them (and must change this table).
	 */
	{
		static const uint8_t g1[1] = { 0 };
		static const uint8_t g2[2] = { 1, 0 };
		static const uint8_t g3[3] = { 2, 0, 1 };
		static const uint8_t g5[5] = { 1, 3, 2, 4, 0 };
		static const uint8_t g8[8] = { 0, 2, 4, 1, 3, 5, 7, 6 };
		static const struct {
			unsigned int w;
			const uint8_t *p;
			int k;
		} golden[] = {
			{ 1, g1, 0 }, { 2, g2, 0 }, { 3, g3, 0 },
			{ 4, p4, 1 },	/* candidate 0 lacks the property */
			{ 5, g5, 0 }, { 6, p6, 0 }, { 8, g8, 0 },
		};

		for (i = 0; i < ARRAY_SIZE(golden); i++) {
			tap_point_start();
			w = golden[i].w;
			expect_int("candidate index", golden[i].k, shipped_k[w]);
			if (memcmp(shipped[w], golden[i].p, w)) {
				char s[4 * MAX_W + 1];
				unsigned int j, len = 0;

				for (j = 0; j < w; j++)
					len += (unsigned int)snprintf(s + len,
						sizeof(s) - len, " %u",
						shipped[w][j]);
				tap_fail("# P for w = %u is%s\n", w, s);
			}
			tap_point_end("ofan_base_perm: shipped P for w = %u", w);
		}
	}

	/* the candidate 0 of w = 4 is rejected: check it really fails */
	tap_point_start();
	ofan_perm_shuffle(4, 0, buf);
	if (!is_perm(buf, 4))
		tap_fail("# candidate 0 of w = 4 is not a permutation\n");
	else if (shift_orders(buf, 4) == 4)
		tap_fail("# candidate 0 of w = 4 has the property: why skipped?\n");
	else
		tap_note("w = 4: candidate 0 = %u %u %u %u: its shifts give %u cyclic order(s)",
		      buf[0], buf[1], buf[2], buf[3], shift_orders(buf, 4));
	tap_point_end("ofan_base_perm: w = 4 skips candidate 0, which lacks the property");

	/* Fast enough to compute at start-up: well under a millisecond. */
	tap_point_start();
	{
		struct timespec a, b;
		const unsigned int reps = 1000;
		double us;

		clock_gettime(CLOCK_MONOTONIC, &a);
		for (i = 0; i < reps; i++)
			ofan_base_perm(MAX_W, again);
		clock_gettime(CLOCK_MONOTONIC, &b);
		us = ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) /
		     1e3 / reps;
		tap_note("ofan_base_perm(64): %.2f us per call", us);
		if (us >= 1000)
			tap_fail("# %.2f us per call is not below 1 ms\n", us);
	}
	tap_point_end("ofan_base_perm(64) takes less than 1 ms");
}

/*
 * Exhaustive search over all w! permutations, w = 1..8: how many have w
 * distinct cyclic orders among their w shifts, and does
 * ofan_perm_shifts_distinct() say so for each of them.  Expected counts:
 * w = 1: the single permutation (one shift, one order); w = 2: none,
 * there is (2 - 1)! = 1 cyclic order of 2 ports; w = 3: none, there are
 * (3 - 1)! = 2 cyclic orders of 3 ports; w = 4: of the 3! = 6 cyclic
 * orders, (0 1 2 3) and (0 3 2 1) map onto themselves under + 1 and the
 * 4 others form one orbit of the shifts, each met by 4 of the 24
 * permutations (its 4 rotations): 16.  w = 5..8: the counts the search of
 * include/ofan/ofan_perm.h found (its header comment).
 */
static uint8_t ex_perm[8];
static unsigned int ex_w, ex_good, ex_max, ex_mismatch;

static void ex_visit(unsigned int k, unsigned int used)
{
	unsigned int v, n;

	if (k == ex_w) {
		n = shift_orders(ex_perm, ex_w);
		if (n == ex_w)
			ex_good++;
		if (n > ex_max)
			ex_max = n;
		if (ofan_perm_shifts_distinct(ex_perm, ex_w) != (n == ex_w))
			ex_mismatch++;
		return;
	}
	for (v = 0; v < ex_w; v++) {
		if ((used >> v) & 1)
			continue;
		ex_perm[k] = (uint8_t)v;
		ex_visit(k + 1, used | 1U << v);
	}
}

static void test_exhaustive(void)
{
	static const unsigned int want_good[9] = {
		0, 1, 0, 0, 16, 100, 648, 4998, 39936
	};
	static const unsigned int fact[9] = {
		1, 1, 2, 6, 24, 120, 720, 5040, 40320
	};
	unsigned int w;

	for (w = 1; w <= 8; w++) {
		tap_point_start();
		ex_w = w;
		ex_good = ex_max = ex_mismatch = 0;
		ex_visit(0, 0);
		expect_u64("permutations with w distinct shift orders",
			   want_good[w], ex_good);
		expect_u64("ofan_perm_shifts_distinct disagreements", 0,
			   ex_mismatch);
		expect_u64("ofan_perm_shifts_achievable", ex_good > 0,
			   ofan_perm_shifts_achievable(w));
		if (w == 2 || w == 3)
			expect_u64("most cyclic orders of the shifts of any P",
				   1, ex_max);
		tap_note("w = %u: %u of %u permutations have %u distinct shift orders%s",
		      w, ex_good, fact[w], w,
		      ex_good ? "" : " (exception: every P gives 1)");
		tap_point_end("exhaustive w = %u: property %s", w,
			  ex_good ? "achievable" : "impossible");
	}
}

static void test_shipped_property(void)
{
	unsigned int w, n;

	/* The exception list, exactly: w = 2 and w = 3 (proved impossible
	 * above); w = 1 and 4..8 achievable (above), 9..64 achievable
	 * because the shipped P has the property (next point).
	 */
	tap_point_start();
	for (w = 0; w <= MAX_W + 1; w++) {
		bool want = w == 1 || (w >= 4 && w <= MAX_W);

		if (ofan_perm_shifts_achievable(w) != want)
			tap_fail("# ofan_perm_shifts_achievable(%u) = %d\n", w,
			      ofan_perm_shifts_achievable(w));
	}
	tap_point_end("exception list: achievable for w = 1 and 4..64, not for w = 2, 3");

	tap_point_start();
	for (w = 1; w <= MAX_W; w++) {
		if (w == 2 || w == 3)
			continue;
		n = shift_orders(shipped[w], w);
		if (n != w)
			tap_fail("# w = %u: %u distinct cyclic orders\n", w, n);
		if (ofan_perm_shifts_distinct(shipped[w], w) != 1)
			tap_fail("# w = %u: ofan_perm_shifts_distinct(P) != 1\n",
			      w);
	}
	tap_point_end("shipped P: its w shifts are w distinct cyclic orders for w = 1, 4..64");

	tap_point_start();
	for (w = 2; w <= 3; w++) {
		expect_u64("distinct cyclic orders of the shifts", 1,
			   shift_orders(shipped[w], w));
		expect_u64("ofan_perm_shifts_distinct", 0,
			   ofan_perm_shifts_distinct(shipped[w], w));
	}
	tap_point_end("shipped P: w = 2, 3 (exceptions): the shifts give one cyclic order");

	/* ofan_perm_shifts_distinct refuses what is not a permutation */
	tap_point_start();
	{
		static const uint8_t dup[4] = { 0, 1, 1, 3 };
		static const uint8_t big[4] = { 0, 1, 2, 4 };

		expect_u64("duplicate", 0, ofan_perm_shifts_distinct(dup, 4));
		expect_u64("value >= w", 0, ofan_perm_shifts_distinct(big, 4));
		expect_u64("ofan_is_permutation(duplicate)", 0,
			   ofan_is_permutation(dup, 4));
		expect_u64("ofan_is_permutation(value >= w)", 0,
			   ofan_is_permutation(big, 4));
		expect_u64("ofan_is_permutation(w 65)", 0,
			   ofan_is_permutation(ident, MAX_W + 1));
		expect_u64("ofan_is_permutation(identity 64)", 1,
			   ofan_is_permutation(ident, MAX_W));
		expect_u64("w = 0", 0, ofan_perm_shifts_distinct(p4, 0));
	}
	tap_point_end("ofan_is_permutation, ofan_perm_shifts_distinct: non-permutations");
}

/* ------------------------------------------------------------------ */
/* the orders pi of all pointers */

#define NR_IDS	4096	/* every id < 2^12 */

static void test_pi_all(void)
{
	unsigned int w, i, b;
	uint32_t id;
	uint8_t s[MAX_W];

	tap_point_start();
	for (w = 1; w <= MAX_W; w++) {
		b = ofan_index_bits(w);
		for (id = 0; id < NR_IDS; id++) {
			for (i = 0; i < w; i++)
				s[i] = (uint8_t)ofan_pi(shipped[w], w, b, id, i);
			if (!is_perm(s, w))
				tap_fail("# w = %u, id %u: pi is not a permutation\n",
				      w, id);
		}
	}
	tap_point_end("pi is a permutation of 0..w-1 for every w in 1..64 and id < 4096");

	tap_point_start();
	for (w = 1; w <= MAX_W; w++) {
		b = ofan_index_bits(w);
		for (id = 0; id < NR_IDS; id++)
			for (i = 0; i < w; i++)
				if (ofan_pi(shipped[w], w, b, id, i) !=
				    ref_pi(shipped[w], w, id, i))
					tap_fail("# w = %u, id %u, i %u: %u, eq. (18) gives %u\n",
					      w, id, i,
					      ofan_pi(shipped[w], w, b, id, i),
					      ref_pi(shipped[w], w, id, i));
	}
	tap_point_end("ofan_pi agrees with eq. (18) for every w in 1..64 and id < 4096");
}

/*
 * Cyclic orders of the 2^b * w pointers id = 0..2^b * w - 1 (every id1 with
 * every id2 mod w).  For w = 6 the paper reports 30 ("versus 6 with
 * additions alone").  For w = 2^b, xor with w/2 flips the top bit, which is
 * adding w/2 mod w, so ids (id1, id2) and (id1 ^ w/2, id2 + w/2) give the
 * same order and at most w^2 / 2 orders exist; w = 4 gives 4 (every P with
 * the property does: its xor variants stay in its single orbit of shifts).
 */
static unsigned int id_orders(const uint8_t *perm, unsigned int w)
{
	unsigned int n = (1U << ref_bits(w)) * w, id;
	struct seq *c = calloc(n, sizeof(*c));
	uint8_t s[MAX_W], *flat = malloc((size_t)n * w);
	unsigned int d;

	if (!c || !flat) {
		free(c);
		free(flat);
		tap_fail("# out of memory\n");
		return 0;
	}
	for (id = 0; id < n; id++) {
		order_of(perm, w, id, s);
		canon(s, w, &c[id]);
		memcpy(flat + (size_t)id * w, s, w);
	}
	d = count_distinct(c, n);
	/* the header's pairwise helper must agree with sorting */
	expect_u64("ofan_count_cyclic_orders", d,
		   ofan_count_cyclic_orders(flat, n, w));
	free(c);
	free(flat);
	return d;
}

static void test_id_orders(void)
{
	static const struct {
		unsigned int w, min, exact;	/* exact 0: at least min */
	} cases[] = {
		{ 4, 4, 4 },
		{ 6, 30, 0 },
		{ 8, 32, 32 },		/* w^2 / 2 */
		{ 16, 128, 128 },
		{ 32, 512, 512 },
	};
	unsigned int c, w, d, x, k, b;
	uint8_t s1[MAX_W], s2[MAX_W];

	for (c = 0; c < ARRAY_SIZE(cases); c++) {
		tap_point_start();
		w = cases[c].w;
		d = id_orders(shipped[w], w);
		if (cases[c].exact)
			expect_u64("distinct cyclic orders", cases[c].exact, d);
		else if (d < cases[c].min)
			tap_fail("# %u distinct cyclic orders, fewer than %u\n",
			      d, cases[c].min);
		tap_note("w = %u: ids 0..%u give %u distinct cyclic orders (%u with additions alone)",
		      w, (1U << ref_bits(w)) * w - 1, d, w);
		tap_point_end("w = %u: ids 0..2^b*w-1 give %s%u distinct cyclic orders",
			  w, cases[c].exact ? "" : "at least ",
			  cases[c].exact ? cases[c].exact : cases[c].min);
	}

	/* the w^2 / 2 bound of powers of two, pointer by pointer */
	tap_point_start();
	for (w = 2; w <= MAX_W; w *= 2) {
		b = ref_bits(w);
		for (x = 0; x < w / 2; x++)
			for (k = 0; k < w; k++) {
				order_of(shipped[w], w, x + (k << b), s1);
				order_of(shipped[w], w,
					 (x + w / 2) + (((k + w / 2) % w) << b),
					 s2);
				if (memcmp(s1, s2, w))
					tap_fail("# w = %u: ids (%u, %u) and (%u, %u) differ\n",
					      w, x, k, x + w / 2,
					      (k + w / 2) % w);
			}
	}
	tap_point_end("w = 2^b: ids (id1, id2) and (id1 ^ w/2, id2 + w/2) share one order");
}

/* ------------------------------------------------------------------ */
/* ofan_next_port, through ofan_pointer_order as the agent fills it */

static int next_port(__u64 *counter, const __u8 *perm, unsigned int w,
		     uint32_t id, __u64 valid)
{
	__u8 order[OFAN_MAX_W];

	memset(order, 0xff, sizeof(order));
	ofan_pointer_order(order, perm, w, id);
	return ofan_next_port(counter, order, w, valid);
}

static const unsigned int walk_w[] = { 1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 33, 63,
				       64 };
static const uint32_t walk_id[] = { 0, 1, 7, 13, 100, 4095 };
static const __u64 walk_start[] = {
	0, 1, 5, 63, 12345, (1ULL << 40) + 3, 0x7fffffffffffffffULL
};

static __u64 all_ports(unsigned int w)
{
	return w == 64 ? ~0ULL : (1ULL << w) - 1;
}

/* w calls with every port valid, from counter @c0: one step each, pi(c) */
static void walk_all_valid(unsigned int w, uint32_t id, __u64 c0)
{
	__u64 counter = c0, before, seen = 0;
	unsigned int n, pos, want;
	int ret;

	for (n = 0; n < w; n++) {
		before = counter;
		ret = next_port(&counter, shipped[w], w, id, all_ports(w));
		if (counter != before + 1)
			tap_fail("# w %u id %u: counter %llu -> %llu\n", w, id,
			      before, counter);
		pos = (unsigned int)(before % w);
		want = ref_pi(shipped[w], w, id, pos);
		if (ret != (int)want)
			tap_fail("# w %u id %u counter %llu: port %d, pi(%u) = %u\n",
			      w, id, before, ret, pos, want);
		else
			seen |= 1ULL << ret;
	}
	if (seen != all_ports(w))
		tap_fail("# w %u id %u start %llu: ports 0x%llx in %u calls\n", w,
		      id, c0, seen, w);
}

static void test_next_all_valid(void)
{
	unsigned int a, b, s;

	tap_point_start();
	for (a = 0; a < ARRAY_SIZE(walk_w); a++)
		for (b = 0; b < ARRAY_SIZE(walk_id); b++)
			for (s = 0; s < ARRAY_SIZE(walk_start); s++)
				walk_all_valid(walk_w[a], walk_id[b],
					       walk_start[s]);
	tap_point_end("ofan_next_port, all ports valid: w calls from any counter visit each port once");
}

/*
 * With holes: log the counter value each returned port came from (the
 * counter after the call, minus one) and check, round by round (rounds
 * are the w counter values c0 + r * w .. c0 + r * w + w - 1), that each
 * valid port came exactly once and no invalid one.  The positions skipped
 * by a call are those that map to invalid ports.
 */
static void walk_holes(unsigned int w, uint32_t id, __u64 valid,
		       __u64 c0, unsigned int rounds)
{
	unsigned int nr_valid = (unsigned int)__builtin_popcountll(valid & all_ports(w));
	unsigned int calls = nr_valid * rounds, n, r, pos;
	__u64 counter = c0, before, from, per_round[8] = { 0 }, c;
	int ret;

	for (n = 0; n < calls; n++) {
		before = counter;
		ret = next_port(&counter, shipped[w], w, id, valid);
		if (ret < 0 || (unsigned int)ret >= w || !((valid >> ret) & 1)) {
			tap_fail("# w %u id %u valid 0x%llx: call %u returned %d\n",
			      w, id, valid, n, ret);
			return;
		}
		if (counter - before < 1 || counter - before > w) {
			tap_fail("# w %u: counter advanced by %llu\n", w,
			      counter - before);
			return;
		}
		/* every skipped position maps to an invalid port ... */
		for (c = before; c != counter - 1; c++) {
			pos = (unsigned int)(c % w);
			if ((valid >> ref_pi(shipped[w], w, id, pos)) & 1)
				tap_fail("# w %u id %u: position %u (port %u) skipped but valid\n",
				      w, id, pos, ref_pi(shipped[w], w, id, pos));
		}
		/* ... and the last examined one is the returned port */
		from = counter - 1;
		pos = (unsigned int)(from % w);
		if ((unsigned int)ret != ref_pi(shipped[w], w, id, pos))
			tap_fail("# w %u id %u: port %d from position %u, pi = %u\n",
			      w, id, ret, pos, ref_pi(shipped[w], w, id, pos));
		r = (unsigned int)((from - c0) / w);
		if (r >= rounds || ((per_round[r] >> ret) & 1))
			tap_fail("# w %u id %u valid 0x%llx: port %d twice in round %u\n",
			      w, id, valid, ret, r);
		else
			per_round[r] |= 1ULL << ret;
	}
	for (r = 0; r < rounds; r++)
		if (per_round[r] != (valid & all_ports(w)))
			tap_fail("# w %u id %u valid 0x%llx: round %u got 0x%llx\n",
			      w, id, valid, r, per_round[r]);
	/* the counter stopped inside the last round */
	if (counter - c0 > (__u64)rounds * w ||
	    counter - c0 <= (__u64)(rounds - 1) * w)
		tap_fail("# w %u id %u: counter advanced %llu in %u rounds\n",
		      w, id, counter - c0, rounds);
}

static void test_next_holes(void)
{
	static const struct {
		unsigned int w;
		__u64 valid;
	} cases[] = {
		{ 4, 0x5 },			/* ports 0, 2 */
		{ 4, 0xe },			/* 1, 2, 3 */
		{ 6, 0x21 },			/* 0, 5 */
		{ 6, 0x16 },			/* 1, 2, 4 */
		{ 6, 0xc0 | 0x3 },		/* 0, 1; bits 6, 7 past w */
		{ 8, 0xaa },
		{ 12, 0x924 },
		{ 33, 0x1fffffffeULL },		/* all but port 0 */
		{ 33, 0x100000001ULL },		/* 0, 32 */
		{ 64, 0x8000000000000001ULL },	/* 0, 63 */
		{ 64, 0xf0f0f0f0f0f0f0f0ULL },
	};
	unsigned int c, b, s;

	tap_point_start();
	for (c = 0; c < ARRAY_SIZE(cases); c++)
		for (b = 0; b < ARRAY_SIZE(walk_id); b++)
			for (s = 0; s < ARRAY_SIZE(walk_start); s++)
				walk_holes(cases[c].w, walk_id[b],
					   cases[c].valid, walk_start[s], 5);
	tap_point_end("ofan_next_port, holes: each round gives each valid port once, no invalid one");

}

/*
 * One valid port p: every call returns it; the first call walks up to p's
 * position (1..w counter values), each later one a whole round (w).
 */
static void walk_single(unsigned int w, unsigned int p)
{
	__u64 counter = 77, before;
	unsigned int n;
	int ret;

	for (n = 0; n < 5; n++) {
		before = counter;
		ret = next_port(&counter, shipped[w], w, 13, 1ULL << p);
		if (ret != (int)p)
			tap_fail("# w %u port %u: call %u returned %d\n", w, p, n,
			      ret);
		if (n ? counter - before != w :
		    counter - before < 1 || counter - before > w)
			tap_fail("# w %u port %u: call %u advanced the counter by %llu\n",
			      w, p, n, counter - before);
	}
}

static void test_next_single(void)
{
	static const unsigned int ws[] = { 1, 5, 6, 64 };
	unsigned int a, p;

	tap_point_start();
	for (a = 0; a < ARRAY_SIZE(ws); a++)
		for (p = 0; p < ws[a]; p += (ws[a] > 8 ? 21 : 1))
			walk_single(ws[a], p);
	tap_point_end("ofan_next_port, a single valid port: every call returns it");
}

/* No valid port: -1, after advancing the counter by exactly w. */
static void test_next_none(void)
{
	static const unsigned int ws[] = { 1, 2, 6, 33, 64 };
	unsigned int a, w;
	__u64 counter;

	tap_point_start();
	for (a = 0; a < ARRAY_SIZE(ws); a++) {
		w = ws[a];
		counter = 1000;
		expect_int("valid 0", -1,
			   next_port(&counter, shipped[w], w, 7, 0));
		expect_u64("counter after valid 0", 1000 + w, counter);
		if (w == 64)
			continue;
		/* only bits past w, from 3 short of the wrap: w - 3 after */
		counter = 0 - 3ULL;
		expect_int("valid past w", -1,
			   next_port(&counter, shipped[w], w, 7,
					  ~all_ports(w)));
		expect_u64("counter after valid past w", (__u64)w - 3,
			   counter);
	}
	tap_point_end("ofan_next_port, no valid port: -1 after advancing the counter by exactly w");
}

/*
 * The 64-bit counter wraps after 2^64 packets.  When w divides 2^64 (w a
 * power of two) the wrap is seamless: position (2^64 - 1) mod w = w - 1 is
 * followed by 0 mod w = 0.  Otherwise 2^64 mod w = m != 0: the counter
 * values 2^64 - m .. 2^64 - 1 are positions 0..m-1, then 0 restarts at
 * position 0, so one round is cut short after m positions and the ports of
 * positions m..w-1 miss one packet: at most one short round every 2^64
 * packets of a pointer, harmless.
 */
static void test_next_wrap(void)
{
	/* 2^64 mod 6 = 4: 2^64 = 0 mod 2 and (2^2)^32 = 1^32 = 1 mod 3 */
	static const uint8_t pos6[] = {
		0, 1, 2, 3, 4, 5,	/* 2^64 - 10 .. 2^64 - 5 */
		0, 1, 2, 3,		/* 2^64 - 4 .. 2^64 - 1: short round */
		0, 1, 2, 3, 4, 5,	/* 0 .. 5 */
	};
	static const unsigned int ws[] = { 2, 4, 8, 64 };
	uint8_t got[3 * MAX_W];
	unsigned int a, n, w;
	__u64 counter, seen;
	int ret;

	tap_point_start();
	for (a = 0; a < ARRAY_SIZE(ws); a++) {
		w = ws[a];
		/* start 3 short of the wrap; every window of w calls, the
		 * ones straddling the wrap included, visits every port once
		 */
		counter = 0 - 3ULL;
		for (n = 0; n < 3 * w; n++) {
			ret = next_port(&counter, shipped[w], w, 100,
					     all_ports(w));
			got[n] = (uint8_t)ret;
			if (ret != (int)ref_pi(shipped[w], w, 100,
						(unsigned int)((0 - 3ULL + n) % w)))
				tap_fail("# w %u call %u: port %d\n", w, n, ret);
		}
		expect_u64("counter after the wrap", 3 * w - 3, counter);
		for (n = 0; n + w <= 3 * w; n++) {
			unsigned int j;

			seen = 0;
			for (j = n; j < n + w; j++)
				seen |= 1ULL << got[j];
			if (seen != all_ports(w))
				tap_fail("# w %u: calls %u..%u miss a port\n", w,
				      n, n + w - 1);
		}
	}
	tap_point_end("counter wrap, w a power of two: seamless, any w calls visit each port once");

	tap_point_start();
	expect_u64("2^64 mod 6", 4, (0 - 1ULL) % 6 + 1);
	counter = 0 - 10ULL;
	for (n = 0; n < ARRAY_SIZE(pos6); n++) {
		ret = next_port(&counter, shipped[6], 6, 13, all_ports(6));
		if (ret != (int)ref_pi(shipped[6], 6, 13, pos6[n]))
			tap_fail("# call %u: port %d, position %u is port %u\n",
			      n, ret, pos6[n], ref_pi(shipped[6], 6, 13, pos6[n]));
	}
	expect_u64("counter after the wrap", 6, counter);
	/* with holes across the wrap: still only valid ports */
	counter = 0 - 10ULL;
	for (n = 0; n < 16; n++) {
		ret = next_port(&counter, shipped[6], 6, 13, 0x12);
		if (ret != 1 && ret != 4)
			tap_fail("# holes, call %u: port %d\n", n, ret);
	}
	tap_point_end("counter wrap, w = 6 (2^64 mod 6 = 4): one short round of positions 0..3, then normal rounds");
}

/* the prefix mask in network byte order, the network masked with it */
static const struct {
	const char	*net;
	__u32		prefix_len;
	const char	*mask;		/* dotted quad */
	const char	*masked_net;
} fast_cases[] = {
	{ "10.0.0.0", 0, "0.0.0.0", "0.0.0.0" },
	{ "10.0.0.0", 8, "255.0.0.0", "10.0.0.0" },
	{ "10.1.255.7", 16, "255.255.0.0", "10.1.0.0" },
	{ "10.1.255.7", 23, "255.255.254.0", "10.1.254.0" },
	{ "10.1.255.7", 31, "255.255.255.254", "10.1.255.6" },
	{ "10.1.255.7", 32, "255.255.255.255", "10.1.255.7" },
};

static void test_config_set_fast(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fast_cases); i++) {
		struct ofan_config cfg = { 0 };

		tap_point_start();
		ofan_config_set_fast(&cfg, inet_addr(fast_cases[i].net),
				     fast_cases[i].prefix_len, 8, 0xff);
		expect_u64("fast_enabled", 1, cfg.fast_enabled);
		expect_u64("fast_net_mask", inet_addr(fast_cases[i].mask),
			   cfg.fast_net_mask);
		expect_u64("fast_net", inet_addr(fast_cases[i].masked_net),
			   cfg.fast_net);
		expect_u64("fast_prefix_len", fast_cases[i].prefix_len,
			   cfg.fast_prefix_len);
		tap_point_end("ofan_config_set_fast(%s/%u): mask %s, net %s",
			  fast_cases[i].net, fast_cases[i].prefix_len,
			  fast_cases[i].mask, fast_cases[i].masked_net);
	}
}

/* ------------------------------------------------------------------ */
/* The agent starts the data pointer of a key at counter c and its ACK
 * pointer at c + floor(w/2): half a rotation apart in position.
 */
static void test_ack_offset(void)
{
	static const __u64 starts[] = {
		0, 1, 2, 3, 4, 1001, 0x123456789abcdefULL, 0 - 2ULL, 0 - 1ULL
	};
	unsigned int s, n, w;
	__u64 data, ack;

	tap_point_start();
	for (s = 0; s < ARRAY_SIZE(starts); s++) {
		data = starts[s];
		ack = data + 4 / 2;
		/* 4 divides 2^64: the wrap of c + 2 keeps positions apart */
		for (n = 0; n < 9; n++) {
			if ((ack % 4 + 4 - data % 4) % 4 != 2)
				tap_fail("# start %llu, call %u: data position %u, ACK position %u\n",
				      starts[s], n, (unsigned int)(data % 4),
				      (unsigned int)(ack % 4));
			next_port(&data, shipped[4], 4, 5, 0xf);
			next_port(&ack, shipped[4], 4, 5 + 4096, 0xf);
		}
	}
	tap_point_end("ACK pointer at c + floor(w/2): w = 4, positions 2 apart, also after the calls");

	tap_point_start();
	for (w = 1; w <= MAX_W; w++)
		for (s = 0; s < 6; s++) {
			data = starts[s];
			ack = data + w / 2;
			if ((ack % w + w - data % w) % w != w / 2)
				tap_fail("# w %u start %llu: positions %u, %u\n",
				      w, data, (unsigned int)(data % w),
				      (unsigned int)(ack % w));
		}
	tap_point_end("ACK pointer at c + floor(w/2): positions floor(w/2) apart for every w (counters far from 2^64)");
}

/* AR's classes at the paper's quanta (5, 10, 20% of the port buffer),
 * an 800 KB buffer as in its settings: 40,000, 80,000 and 160,000 bytes.
 */
static void test_ar_class(void)
{
	static const struct {
		__u64 backlog, buffer;
		__u32 cls;
	} cases[] = {
		{ 0, 800000, 0 },	{ 39999, 800000, 0 },
		{ 40000, 800000, 1 },	{ 79999, 800000, 1 },
		{ 80000, 800000, 2 },	{ 159999, 800000, 2 },
		{ 160000, 800000, 3 },	{ 800000, 800000, 3 },
		{ 5000000, 800000, 3 },
		/* 1500 B of a 10,000 B buffer: 15%, class 2 */
		{ 1500, 10000, 2 },	{ 499, 10000, 0 },
	};
	unsigned int i;
	char what[96];

	tap_point_start();
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		snprintf(what, sizeof(what), "class of %llu B of %llu B",
			 (unsigned long long)cases[i].backlog,
			 (unsigned long long)cases[i].buffer);
		expect_int(what, cases[i].cls,
			   ofan_ar_class(cases[i].backlog, cases[i].buffer));
	}
	tap_point_end("ofan_ar_class: 0 below 5%% of the buffer, 1 below 10%%, 2 below 20%%, 3 beyond");
}

/* The least loaded valid uplink, ties broken by the random number. */
static void test_pick_least(void)
{
	const __u64 load[6] = { 3, 1, 1, 5, 0, 1 };
	unsigned int hits[6] = { 0 }, r;

	tap_point_start();
	/* port 4 (load 0) is not valid: ports 1, 2 and 5 tie at 1 */
	expect_int("rnd 0", 1, ofan_pick_least(load, 6, 0x2f, 0));
	expect_int("rnd 1", 2, ofan_pick_least(load, 6, 0x2f, 1));
	expect_int("rnd 2", 5, ofan_pick_least(load, 6, 0x2f, 2));
	expect_int("rnd 3", 1, ofan_pick_least(load, 6, 0x2f, 3));
	/* valid, port 4 wins alone whatever the number */
	expect_int("port 4 valid", 4, ofan_pick_least(load, 6, 0x3f, 12345));
	/* only ports 0 and 3 valid: 0 has the lower load */
	expect_int("ports 0, 3", 0, ofan_pick_least(load, 6, 0x09, 7));
	/* a port at or past w is never picked */
	expect_int("w 4, only port 4 valid", -1, ofan_pick_least(load, 4, 0x10, 0));
	expect_int("none valid", -1, ofan_pick_least(load, 6, 0, 0));
	for (r = 0; r < 3000; r++)
		hits[ofan_pick_least(load, 6, 0x2f, r * 2654435761U)]++;
	expect_int("port 0 never", 0, hits[0]);
	expect_int("port 3 never", 0, hits[3]);
	if (hits[1] < 900 || hits[2] < 900 || hits[5] < 900)
		tap_fail("# ties not uniform: %u %u %u of 3000\n", hits[1],
			 hits[2], hits[5]);
	tap_point_end("ofan_pick_least: the least loaded valid uplink, uniform among ties (%u/%u/%u of 3000)",
		      hits[1], hits[2], hits[5]);
}

int main(void)
{
	unsigned int i;

	for (i = 0; i < MAX_W; i++)
		ident[i] = (uint8_t)i;
	load_shipped();

	test_index_bits();
	test_xor_w();
	test_pi_cases();
	test_base_perm_api();
	test_exhaustive();
	test_shipped_property();
	test_pi_all();
	test_id_orders();
	test_next_all_valid();
	test_next_holes();
	test_next_single();
	test_next_none();
	test_next_wrap();
	test_ack_offset();
	test_config_set_fast();
	test_ar_class();
	test_pick_least();
	return tap_finish();
}
