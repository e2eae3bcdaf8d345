/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * reps.h - REPS, Recycled Entropy Packet Spraying (Bonato et al., arXiv
 * 2407.21625, the Ofan paper's [8], UEC's host load balancing): a sender
 * chooses each data packet's entropy, the UDP source port that the
 * switches' ECMP hashes, from the entropies whose ACKs came back unmarked.
 * One queue pair's state, for permsend and the simulator's hosts alike;
 * the mechanism was learnt from the paper and from the public htsim that
 * ran the Ofan paper's figures, the code is this project's own.
 *
 * - Entropies are REPS_PORT_BASE .. REPS_PORT_BASE + REPS_PORTS - 1.
 * - A cache of @entropies (default 8, htsim's buffer) in a ring: an ACK
 *   without an ECN echo puts its packet's entropy at the head, over the
 *   oldest when the ring is full (recycling); an ACK with an echo puts
 *   nothing back (the entropy is retired).
 * - Each data packet takes the oldest entropy not yet taken back from the
 *   cache; with none there it explores a fresh one, uniform over the port
 *   range: reps_next() returns REPS_EXPLORE and the caller draws it (so
 *   that each side keeps its own random stream).
 * - Freezing: a data packet unACKed for longer than the timeout is a
 *   timeout: rto.h's estimate (smoothed round trip plus four deviations,
 *   RFC 6298) from every ACK's round trip, at least @timeout_min_ns
 *   (default 2 us, htsim's minimum RTO), 1 s before the first sample; the
 *   first one outside a freeze and outside the exploration after one
 *   freezes the cache for @freeze_ns (default 10 ms, htsim's; 0: never):
 *   while frozen, packets reuse the cached entropies in turn, taken or
 *   not, and explore only if the cache is empty; unmarked ACKs still
 *   refresh it.  The freeze ends at the first send or ACK past its
 *   deadline: the cache is emptied and the next REPS_EXPLORE_AFTER_FREEZE
 *   (16, htsim's) entropies are random, then recycling resumes.
 *   Where htsim checks an entropy's oldest unACKed send when that entropy
 *   comes up for reuse, this checks the queue pair's oldest unACKed packet
 *   at each send: a transport that never resends would never see a lost
 *   packet's entropy come up again.
 *
 * The caller keeps one struct reps_sent per sequence number sent (0, 1,
 * 2, ... in send order, each sent once) and passes them with their count.
 * Times in ns, any monotonic clock.  Compiles as C and C++.
 */
#ifndef _WORKLOAD_REPS_H
#define _WORKLOAD_REPS_H

#include <stdbool.h>
#include <linux/types.h>

#include "workload/rto.h"

#define REPS_PORT_BASE			49152
#define REPS_PORTS			16384
#define REPS_EXPLORE_AFTER_FREEZE	16
#define REPS_MAX_ENTROPIES		1024
#define REPS_DEFAULT_ENTROPIES		8
#define REPS_DEFAULT_FREEZE_NS		10000000ULL
#define REPS_DEFAULT_TIMEOUT_MIN_NS	2000ULL
/* reps_next(): draw a random entropy (no port is 0) */
#define REPS_EXPLORE			0

enum reps_sent_state {
	REPS_SENT_PENDING = 0,
	REPS_SENT_ACKED = 1,
	REPS_SENT_TIMED_OUT = 2,
};

struct reps_params {
	__u32	entropies;		/* the cache, 1..REPS_MAX_ENTROPIES */
	__u64	freeze_ns;		/* 0: timeouts never freeze */
	__u64	timeout_min_ns;		/* the timeout's floor */
};

/* Entropies drawn at random (not frozen), taken back from the cache
 * (recycled), ACKs with an ECN echo (their entropy retired), ACKs without
 * one (their entropy cached), entropies reused from the frozen cache,
 * drawn at random while frozen (the cache empty), packets unACKed past
 * the timeout, freezes, time frozen (ended freezes).
 */
struct reps_counters {
	__u64	explored, recycled, retired, cached;
	__u64	frozen_reused, frozen_explored, timeouts, freezes, frozen_ns;
};

/* One data packet: its entropy, send time and enum reps_sent_state. */
struct reps_sent {
	__u64	sent_ns;
	__u16	entropy;
	__u8	state;
};

struct reps {
	__u16	cache[REPS_MAX_ENTROPIES];	/* a ring of entropies */
	__u8	valid[REPS_MAX_ENTROPIES];	/* not yet taken back */
	__u32	n;			/* entries in use */
	__u32	head;			/* the next slot written */
	__u32	fresh;			/* valid entries: the newest, before head */
	__u32	filled;			/* slots ever written */
	__u32	frozen_next;		/* frozen: the next slot reused */
	__u32	explore;		/* random entropies still to draw */
	bool	frozen;
	__u64	frozen_since_ns, frozen_until_ns;
	__u64	oldest;			/* the first sequence neither ACKed nor timed out */
	struct rto_state rtt;		/* round trips, for the timeout */
};

static inline void reps_params_default(struct reps_params *p)
{
	p->entropies = REPS_DEFAULT_ENTROPIES;
	p->freeze_ns = REPS_DEFAULT_FREEZE_NS;
	p->timeout_min_ns = REPS_DEFAULT_TIMEOUT_MIN_NS;
}

static inline void reps_init(struct reps *r, const struct reps_params *p)
{
	__u32 i;

	for (i = 0; i < REPS_MAX_ENTROPIES; i++) {
		r->cache[i] = 0;
		r->valid[i] = 0;
	}
	r->n = p->entropies < 1 ? 1 : p->entropies > REPS_MAX_ENTROPIES ?
	       REPS_MAX_ENTROPIES : p->entropies;
	r->head = r->fresh = r->filled = r->frozen_next = r->explore = 0;
	r->frozen = false;
	r->frozen_since_ns = r->frozen_until_ns = 0;
	r->oldest = 0;
	rto_init(&r->rtt);
}

/* The entropy explored for @rand, a uniform random 32-bit number. */
static inline __u16 reps_port_of(__u32 rand)
{
	return (__u16)(REPS_PORT_BASE + rand % REPS_PORTS);
}

/* A freeze whose deadline has passed ends: the cache is emptied. */
static inline void reps_thaw(struct reps *r, __u64 now,
			     struct reps_counters *c)
{
	__u32 i;

	if (!r->frozen || now < r->frozen_until_ns)
		return;
	r->frozen = false;
	c->frozen_ns += now - r->frozen_since_ns;
	for (i = 0; i < r->n; i++)
		r->valid[i] = 0;
	r->head = r->fresh = r->filled = r->frozen_next = 0;
	r->explore = REPS_EXPLORE_AFTER_FREEZE;
}

/*
 * The entropy of the next data packet, sequence @nr_sent, sent at @now
 * (@sent: the @nr_sent sent before it), or REPS_EXPLORE: the caller
 * draws one at random.  The caller then records it in @sent[@nr_sent].
 */
static inline __u16 reps_next(struct reps *r, const struct reps_params *p,
			      struct reps_sent *sent, __u64 nr_sent, __u64 now,
			      struct reps_counters *c)
{
	__u32 slot;
	__u16 e;

	/* timeouts: the oldest packets neither ACKed nor timed out yet */
	while (r->oldest < nr_sent) {
		if (sent[r->oldest].state) {
			r->oldest++;
			continue;
		}
		if (now - sent[r->oldest].sent_ns <=
		    rto_ns(&r->rtt, p->timeout_min_ns))
			break;
		sent[r->oldest++].state = REPS_SENT_TIMED_OUT;
		c->timeouts++;
		if (p->freeze_ns && !r->frozen && !r->explore) {
			r->frozen = true;
			r->frozen_since_ns = now;
			r->frozen_until_ns = now + p->freeze_ns;
			r->frozen_next = 0;
			c->freezes++;
		}
	}
	reps_thaw(r, now, c);
	if (r->explore) {
		r->explore--;
		c->explored++;
		return REPS_EXPLORE;
	}
	if (r->frozen) {
		if (!r->filled) {
			c->frozen_explored++;
			return REPS_EXPLORE;
		}
		e = r->cache[r->frozen_next];
		r->frozen_next = (r->frozen_next + 1) % r->filled;
		c->frozen_reused++;
		return e;
	}
	if (!r->fresh) {
		c->explored++;
		return REPS_EXPLORE;
	}
	/* the oldest valid entry: the fresh ones are the newest, before head */
	slot = (r->head + r->n - r->fresh) % r->n;
	r->valid[slot] = 0;
	r->fresh--;
	c->recycled++;
	return r->cache[slot];
}

/* Record data packet @seq (the @seq-th sent) with entropy @e, at @now. */
static inline void reps_sent_at(struct reps_sent *sent, __u64 seq, __u16 e,
				__u64 now)
{
	sent[seq].sent_ns = now;
	sent[seq].entropy = e;
	sent[seq].state = REPS_SENT_PENDING;
}

/*
 * The ACK of data packet @seq (of @nr_sent sent) at @now, with an ECN
 * echo (@ecn_echo: the packet arrived CE-marked) or without.  A second
 * ACK of a packet, or one of a packet never sent, changes nothing; the
 * ACK of a packet already timed out still recycles its entropy.
 */
static inline void reps_on_ack(struct reps *r, struct reps_sent *sent,
			       __u64 nr_sent, __u64 seq, bool ecn_echo,
			       __u64 now, struct reps_counters *c)
{
	if (seq >= nr_sent || sent[seq].state == REPS_SENT_ACKED)
		return;
	sent[seq].state = REPS_SENT_ACKED;
	/* the round trip of this very packet (no resends: Karn's rule holds) */
	rto_sample(&r->rtt, sent[seq].sent_ns, now);
	reps_thaw(r, now, c);
	if (ecn_echo) {
		c->retired++;
		return;
	}
	c->cached++;
	if (!r->valid[r->head])
		r->fresh++;
	r->cache[r->head] = sent[seq].entropy;
	r->valid[r->head] = 1;
	r->head = (r->head + 1) % r->n;
	if (r->filled < r->n)
		r->filled++;
}

#endif /* _WORKLOAD_REPS_H */
