/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * phantom_queue.h - a port's queue as a tc program sees it, where the
 * qdisc below is out of reach: the bytes sent to the port, draining at
 * its rate.  Symphony's tc-BPF RED (bpf/symphony.bpf.c) and Ofan's ar and
 * jsq modes (bpf/ofan.bpf.c) keep one per port, each under its own lock.
 *
 * The queue is the time it empties, empty_ns (CLOCK_MONOTONIC ns), plus
 * the sub-ns rest of its packets' transmission times, empty_ps (0..999
 * ps), so that the rounding of each packet's time does not add up: at
 * 400 Gbit/s a 64-byte frame takes 1.28 ns.  The rate is a Q16 count of
 * picoseconds per byte.
 */
#ifndef _PHANTOM_QUEUE_H
#define _PHANTOM_QUEUE_H

#ifndef __VMLINUX_H__	/* BPF programs take the types from vmlinux.h */
#include <linux/types.h>
#include <stdbool.h>
#endif
#ifndef __always_inline	/* bpf_helpers.h's, or the compiler's own */
#define __always_inline	inline __attribute__((__always_inline__))
#endif

/* @len bytes' transmission time at @ps_per_byte_q16, in picoseconds (the
 * sub-ps rest dropped); in two products, since len * q16 may pass 2^64
 * at the lowest rates
 */
static __always_inline __u64 phantom_tx_ps(__u32 len, __u64 ps_per_byte_q16)
{
	return (__u64)len * (ps_per_byte_q16 >> 16) +
	       (((__u64)len * (ps_per_byte_q16 & 0xffff)) >> 16);
}

/*
 * phantom_join - a packet of @tx_ps picoseconds joins the queue that
 * empties at *@empty_ns + *@empty_ps, at @now, if the backlog it finds
 * plus its own time stay within @limit_ns; under the caller's lock (so
 * always inlined: a BPF program may call no function holding one).
 * *@backlog_ns: the backlog it found.  Returns the time it added, ns,
 * in *@joined_ns, and whether it fitted (if not, the queue is left
 * alone).
 */
static __always_inline bool phantom_join(__u64 *empty_ns, __u32 *empty_ps,
				__u64 tx_ps, __u64 now, __u64 limit_ns,
				__u64 *backlog_ns, __u64 *joined_ns)
{
	__u64 empty = *empty_ns, backlog, tx_ns;

	backlog = empty > now ? empty - now : 0;
	*backlog_ns = backlog;
	/* the sub-ns rest of the packets queued before carries over */
	if (backlog)
		tx_ps += *empty_ps;
	tx_ns = tx_ps / 1000;
	if (backlog + tx_ns > limit_ns)
		return false;
	*empty_ns = (backlog ? empty : now) + tx_ns;
	*empty_ps = tx_ps - tx_ns * 1000;
	*joined_ns = tx_ns;
	return true;
}

#endif /* _PHANTOM_QUEUE_H */
