/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * pacer.h - a fixed-rate send schedule that says when it could not be
 * kept: packet i is due at start + i * gap (+ the schedule's slip).  A
 * sender woken late sends what is due back to back, but never more than
 * max_catchup packets behind its schedule: past that, the schedule moves
 * later (a slip), and the move is counted, never silent.  A send refused
 * by a full socket or queue leaves the schedule alone.  What a run's
 * guard needs comes out as figures: the worst lag behind the ideal
 * schedule (slips included), the longest back-to-back burst, the slips
 * and the refused sends.
 *
 * Pure arithmetic on CLOCK_MONOTONIC nanoseconds: the caller reads the
 * clock and sleeps.  Shared by permsend and its unit tests.
 */
#ifndef _WORKLOAD_PACER_H
#define _WORKLOAD_PACER_H

#include <linux/types.h>

struct pacer {
	__u64	start_ns;	/* packet 0's ideal send time */
	__u64	gap_ns;		/* between two packets' ideal send times */
	__u32	max_catchup;	/* packets a late sender may be behind */
	/* what happened */
	__u64	slip_ns;	/* total move of the schedule */
	__u64	slips;		/* moves */
	__u64	worst_lag_ns;	/* a send's time after its ideal time, max */
	__u64	worst_lag_seq;	/* the packet that had it */
	__u64	busy;		/* sends refused (socket or queue full) */
	__u32	burst;		/* packets sent since the sender last slept */
	__u32	max_burst;
};

static inline void pacer_init(struct pacer *p, __u64 start_ns, __u64 gap_ns,
			      __u32 max_catchup)
{
	*p = (struct pacer){
		.start_ns = start_ns,
		.gap_ns = gap_ns,
		.max_catchup = max_catchup,
	};
}

/* The ideal send time of packet @seq: the schedule without slips. */
static inline __u64 pacer_ideal(const struct pacer *p, __u64 seq)
{
	return p->start_ns + seq * p->gap_ns;
}

/* The send time of packet @seq in the schedule in force. */
static inline __u64 pacer_due(const struct pacer *p, __u64 seq)
{
	return pacer_ideal(p, seq) + p->slip_ns;
}

/*
 * pacer_ready - may packet @seq go at @now_ns?  0 if so, else the time
 * to sleep until (the sender then calls pacer_slept()).  When the sender
 * is more than max_catchup packets late, the schedule slips so that it
 * is exactly that many behind: at most max_catchup + 1 packets then go
 * back to back.
 */
static inline __u64 pacer_ready(struct pacer *p, __u64 seq, __u64 now_ns)
{
	__u64 due = pacer_due(p, seq);
	__u64 allowed = (__u64)p->max_catchup * p->gap_ns;

	if (now_ns < due)
		return due;
	if (now_ns - due > allowed) {
		p->slip_ns += now_ns - due - allowed;
		p->slips++;
	}
	return 0;
}

/* Packet @seq went out at @now_ns. */
static inline void pacer_sent(struct pacer *p, __u64 seq, __u64 now_ns)
{
	__u64 ideal = pacer_ideal(p, seq);

	if (now_ns > ideal && now_ns - ideal > p->worst_lag_ns) {
		p->worst_lag_ns = now_ns - ideal;
		p->worst_lag_seq = seq;
	}
	if (++p->burst > p->max_burst)
		p->max_burst = p->burst;
}

/* The send was refused: the packet stays due, the schedule unchanged. */
static inline void pacer_refused(struct pacer *p)
{
	p->busy++;
}

/* The sender slept (nothing was due): a burst ends. */
static inline void pacer_slept(struct pacer *p)
{
	p->burst = 0;
}

#endif /* _WORKLOAD_PACER_H */
