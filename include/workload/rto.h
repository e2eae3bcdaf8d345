/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * rto.h - the retransmission timeout of a go-back-N sender (ringcoll's
 * queue pairs and the simulator's), adaptive as RFC 6298's: one round
 * trip timed at a time, on a packet that asks for an ACK and is not
 * resent before it (Karn), smoothed as SRTT += (R - SRTT) / 8 and
 * RTTVAR += (|SRTT - R| - RTTVAR) / 4; the timeout is SRTT + 4 RTTVAR,
 * never below the configured minimum, 1 s (RTO_INITIAL_NS) before the
 * first sample if the minimum is shorter, and doubles after each timeout
 * until a new sample, up to RTO_MAX_NS (or the minimum, if longer).
 *
 * The ceiling bounds how long a sender stays silent between resends:
 * a receiver that has everything must wait that long (with a margin) for
 * a resend before it may assume that its last ACK arrived (ringcoll's
 * time-wait), and a neighbour's liveness timeout (10 s) must see several
 * resends.  Karn's rule keeps a back-off until a packet sent once is
 * ACKed, which at the end of a message (everything left is a resend)
 * may never come: uncapped, 64 doublings of 20 ms silenced a sender for
 * 1.3 s, of the 1 s initial timeout for a minute.
 *
 * A fixed timeout shorter than the queueing delay fires while the
 * packets are still queued: the sender goes back and sends them again,
 * the queue grows, and every timeout is again spurious.  At the
 * testbed's rates a queue of a few 4 KB frames outlasts 20 ms (at
 * 10 Mbit/s, 3.3 ms a frame), so that a fixed 20 ms timeout resent most
 * packets of a congested run.  Times in ns.
 */
#ifndef _WORKLOAD_RTO_H
#define _WORKLOAD_RTO_H

#include <stdbool.h>
#include <linux/types.h>

#define RTO_MAX_BACKOFF		64
#define RTO_INITIAL_NS		1000000000ULL	/* RFC 6298's initial timeout */
#define RTO_MAX_NS		1000000000ULL	/* a backed-off timeout's ceiling */

struct rto_state {
	__u64	srtt_ns;		/* 0: no sample yet */
	__u64	rttvar_ns;
	__u32	backoff;		/* 1, doubled by each timeout */
	bool	timing;			/* a packet is being timed */
	__u64	timed_seq;		/* its sequence number */
	__u64	timed_sent_ns;
};

static inline void rto_init(struct rto_state *r)
{
	*r = (struct rto_state){ .backoff = 1 };
}

/* The longest timeout for a configured minimum of @min_ns. */
static inline __u64 rto_ceiling_ns(__u64 min_ns)
{
	return min_ns > RTO_MAX_NS ? min_ns : RTO_MAX_NS;
}

/* The timeout now, for a configured minimum of @min_ns. */
static inline __u64 rto_ns(const struct rto_state *r, __u64 min_ns)
{
	__u64 rto = r->srtt_ns ? r->srtt_ns + 4 * r->rttvar_ns : RTO_INITIAL_NS;
	__u64 ceiling = rto_ceiling_ns(min_ns);

	if (rto < min_ns)
		rto = min_ns;
	rto *= r->backoff ? r->backoff : 1;
	return rto < ceiling ? rto : ceiling;
}

/* A first transmission of @seq at @now, which asks for an ACK. */
static inline void rto_sent(struct rto_state *r, __u64 seq, __u64 now)
{
	if (r->timing)
		return;
	r->timing = true;
	r->timed_seq = seq;
	r->timed_sent_ns = now;
}

/* An ACK at @now covering every sequence number below @upto. */
static inline void rto_acked(struct rto_state *r, __u64 upto, __u64 now)
{
	__u64 rtt, err;

	if (!r->timing || upto <= r->timed_seq)
		return;
	r->timing = false;
	rtt = now - r->timed_sent_ns;
	if (!r->srtt_ns) {
		r->srtt_ns = rtt;
		r->rttvar_ns = rtt / 2;
	} else {
		err = r->srtt_ns > rtt ? r->srtt_ns - rtt : rtt - r->srtt_ns;
		r->rttvar_ns = r->rttvar_ns - r->rttvar_ns / 4 + err / 4;
		r->srtt_ns = r->srtt_ns - r->srtt_ns / 8 + rtt / 8;
	}
	r->backoff = 1;
}

/* A round trip measured whole: the ACK at @now of a packet sent once at
 * @sent_ns (per-packet ACKs time every packet; Karn's rule is the
 * caller's: a resent packet's ACK is no sample).
 */
static inline void rto_sample(struct rto_state *r, __u64 sent_ns, __u64 now)
{
	r->timing = true;
	r->timed_seq = 0;
	r->timed_sent_ns = sent_ns;
	rto_acked(r, 1, now);
}

/* The sender goes back (a NAK or a timeout): what is timed may be
 * resent, so its ACK would not tell the round trip (Karn).
 */
static inline void rto_went_back(struct rto_state *r)
{
	r->timing = false;
}

/* The timer fired: back off. */
static inline void rto_timed_out(struct rto_state *r)
{
	rto_went_back(r);
	if (r->backoff < RTO_MAX_BACKOFF)
		r->backoff *= 2;
}

#endif /* _WORKLOAD_RTO_H */
