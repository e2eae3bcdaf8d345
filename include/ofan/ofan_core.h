/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ofan_core.h - Ofan's per-packet port choice, written once and compiled
 * into the tc-BPF program (bpf/ofan.bpf.c) and the userspace unit tests.
 *
 * Each pointer walks 0..w-1 round-robin; its i-th value maps to an uplink
 * through the pointer's own permutation (Ofan paper, Appendix F.2):
 *
 *	pi(i) = (xor_w(P[i], id1) + id2) mod w,   id = d + N_d * t,
 *	id1 = id mod 2^b, id2 = id / 2^b, b = ceil(log2 w),
 *	xor_w(v, x) = v ^ x if v ^ x < w, else v,
 *
 * with P one global base permutation, d the destination key and t the
 * size class (0 data, 1 ACK).  The agent writes each pointer's order
 * pi(0..w-1) once (ofan_pointer_order()) next to its destination's valid
 * ports, so that a packet costs one table load instead of eq. (18).  Ports
 * not valid for the destination are skipped by advancing the pointer
 * further, so each valid port still gets exactly one packet per round.  A
 * pointer is a free-running 64-bit counter advanced with an atomic
 * fetch-and-add, because packets of one destination arrive on several CPUs
 * at once; its value mod w is i.
 */
#ifndef _OFAN_CORE_H
#define _OFAN_CORE_H

#ifndef __VMLINUX_H__	/* BPF programs take the types from vmlinux.h */
#include <linux/types.h>
#endif

#define OFAN_MAX_W		64	/* uplinks: bits of a valid-port mask */

/* ceil(log2 w): the bits of a port index */
static inline __u32 ofan_index_bits(__u32 w)
{
	if (w <= 1)
		return 0;
	if (w <= 2)
		return 1;
	if (w <= 4)
		return 2;
	if (w <= 8)
		return 3;
	if (w <= 16)
		return 4;
	if (w <= 32)
		return 5;
	return 6;
}

/* @v mod @w, without a division when w is a power of two (fat trees
 * usually have w = k/2 uplinks with k a power of two).
 */
static inline __u32 ofan_mod_w(__u64 v, __u32 w)
{
	if (!(w & (w - 1)))
		return (__u32)v & (w - 1);
	return (__u32)(v % w);
}

static inline __u32 ofan_xor_w(__u32 v, __u32 x, __u32 w)
{
	__u32 u = v ^ x;

	return u < w ? u : v;
}

/* eq. (18): the port at position @i (< w) of pointer @id's order */
static inline __u32 ofan_pi(const __u8 *perm, __u32 w, __u32 bits, __u32 id,
			    __u32 i)
{
	__u32 id1 = id & ((1U << bits) - 1);
	__u32 id2 = ofan_mod_w(id >> bits, w);
	__u32 port = ofan_xor_w(perm[i & (OFAN_MAX_W - 1)], id1, w) + id2;

	return port >= w ? port - w : port;
}

/* eq. (16): the pointer identifier of destination @key, size class @cls */
static inline __u32 ofan_pointer_id(__u32 key, __u32 nr_keys, __u32 cls)
{
	return key + nr_keys * cls;
}

/* pointer @id's order: @order[i] = pi(i) for every position i < w */
static inline void ofan_pointer_order(__u8 *order, const __u8 *perm, __u32 w,
				      __u32 id)
{
	__u32 bits = ofan_index_bits(w), i;

	for (i = 0; i < w && i < OFAN_MAX_W; i++)
		order[i] = ofan_pi(perm, w, bits, id, i);
}

/*
 * ofan_next_port - advance pointer @counter, whose order is @order (see
 * ofan_pointer_order()), until it yields a port set in @valid; returns
 * that port, or -1 when no port of the order is valid (the pointer then
 * moved a whole round: w steps).
 */
static inline int ofan_next_port(__u64 *counter, const __u8 *order, __u32 w,
				 __u64 valid)
{
	__u32 n, port;
	__u64 c;

	/* Almost always one iteration: a BPF loop (bounded for the verifier),
	 * not 64 unrolled copies of the body.
	 */
#ifdef __bpf__
#pragma clang loop unroll(disable)
#endif
	for (n = 0; n < OFAN_MAX_W; n++) {
		if (n >= w)
			break;
		c = __sync_fetch_and_add(counter, 1);
		port = order[ofan_mod_w(c, w) & (OFAN_MAX_W - 1)] &
		       (OFAN_MAX_W - 1);
		if ((valid >> port) & 1)
			return port;
	}
	return -1;
}

/*
 * The baselines the Ofan paper measures against (its Table 1), for the
 * simulator and the tc-BPF program alike.
 *
 * JSQ (join the shortest queue): each switch sends a northbound packet to
 * the valid uplink with the fewest bytes queued, at random among equal
 * ones.  AR (adaptive routing as Spectrum-X does it): the same on queue
 * occupancy quantized to a few classes, the lowest class wins, at random
 * among equal ones; the paper's quanta are 5, 10 and 20% of the port
 * buffer.
 */
#define OFAN_AR_QUANTUM0_PCT	5	/* class 0 below, of the buffer */
#define OFAN_AR_QUANTUM1_PCT	10
#define OFAN_AR_QUANTUM2_PCT	20
#define OFAN_AR_CLASSES		4

/*
 * ofan_ar_class - AR's class of a port with @backlog_bytes queued of a
 * @buffer_bytes port buffer: 0 below 5% of the buffer, 1 below 10%, 2
 * below 20%, 3 from 20% on.
 */
static inline __u32 ofan_ar_class(__u64 backlog_bytes, __u64 buffer_bytes)
{
	__u64 pct100 = backlog_bytes * 100;

	if (pct100 < buffer_bytes * OFAN_AR_QUANTUM0_PCT)
		return 0;
	if (pct100 < buffer_bytes * OFAN_AR_QUANTUM1_PCT)
		return 1;
	if (pct100 < buffer_bytes * OFAN_AR_QUANTUM2_PCT)
		return 2;
	return OFAN_AR_CLASSES - 1;
}

/*
 * ofan_pick_least - the uplink set in @valid (below @w) whose @load is
 * the lowest, the (@rnd mod n)-th of the n that share it in port order:
 * uniform among ties for a uniform @rnd.  -1 when no uplink is valid.
 */
static inline int ofan_pick_least(const __u64 *load, __u32 w, __u64 valid,
				  __u32 rnd)
{
	__u64 least = ~0ULL;
	__u32 p, ties = 0, pick;

	/* Written for the BPF verifier too, which walks the loops with the
	 * values it knows: no valid uplink is told by the mask, not by
	 * ties == 0 after the first loop (ties is a constant on each path
	 * there, and a branch decided on it would make the verifier walk
	 * each count apart), and the second loop is bounded by the mask
	 * alone (the first loop's exit tells it w, and a second bound by w
	 * would have it walk the second loop once per w).  A valid uplink
	 * below w holds the least load: ties >= 1, and the second loop
	 * returns at the latest at the last valid uplink.
	 */
	if (w < OFAN_MAX_W)
		valid &= (1ULL << w) - 1;
	if (!valid)
		return -1;
	for (p = 0; p < w && p < OFAN_MAX_W; p++) {
		if (!((valid >> p) & 1))
			continue;
		if (load[p] < least) {
			least = load[p];
			ties = 1;
		} else if (load[p] == least) {
			ties++;
		}
	}
	pick = rnd % ties;
	for (p = 0; p < OFAN_MAX_W; p++)
		if (((valid >> p) & 1) && load[p] == least && !pick--)
			return p;
	return -1;
}

#endif /* _OFAN_CORE_H */
