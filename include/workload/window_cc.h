/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * window_cc.h - window-based congestion control for sprayed traffic,
 * written once for the simulator's permutation hosts and its unit tests:
 * the per-packet-ACK senders the Ofan paper runs its comparisons under
 * (its section 6 and Fig. 12).  Each ACK acknowledges one data packet,
 * echoes that packet's CE mark and carries nothing else; the sender times
 * the packet's round trip itself.  Integer arithmetic only: windows in
 * bytes, fractions as Q16, times in ns.
 *
 * DCTCP (RFC 8257; Alizadeh et al., SIGCOMM 2010)
 *	Per window of data (the window's bytes ACKed since the last update)
 *	F = marked bytes / ACKed bytes, alpha = (1 - g) alpha + g F.  An
 *	ACK with an echo cuts cwnd = cwnd (1 - alpha / 2), at most once a
 *	round trip; an ACK without one adds MTU x bytes / cwnd (one MTU a
 *	round trip).  alpha starts at 1 (RFC 8257 section 3.3).
 *
 * NSCC (the Ultra Ethernet Consortium's Network Signal-based Congestion
 * Control, UEC 1.0 specification, section 3.6.13), from ECN and the
 * queueing delay, delay = round trip - base round trip, sorted into four
 * cases per ACK:
 *	no echo, delay < target	proportional increase: cwnd grows by
 *				pi x MTU x (target - delay) / target x
 *				bytes / cwnd (the further below the target,
 *				the faster)
 *	no echo, delay >= target  fair increase: cwnd grows by fi x MTU x
 *				bytes / cwnd (the queue is on another path
 *				or the reverse one: hold the share)
 *	echo, delay >= target	multiplicative decrease, at most once a base
 *				round trip: cwnd = cwnd (1 - gamma (delay -
 *				target) / delay), at least cwnd / 2
 *	echo, delay < target	no change (a queue is starting somewhere)
 *	and quick adapt: once a base round trip, when what was ACKed in it
 *	is below cwnd / 8 while the delay exceeds qa_delay (the window is far
 *	above what the path carries: a deep incast), cwnd drops to it.
 *
 * MSwift (multipath Swift: Kumar et al., SIGCOMM 2020, with a window per
 * subflow): from delay alone, against a target that grows as the window
 * shrinks (flow scaling) and with the hops (hop scaling):
 *	target = base_target + hops x hop_ns + fs, fs = clamp(fs_a / sqrt(cwnd)
 *		 - fs_b, 0, fs_range) with cwnd in packets
 *	delay < target		cwnd += ai x MTU x bytes / cwnd (cwnd >= 1
 *				MTU), cwnd += ai x bytes (below one MTU)
 *	delay >= target		at most once a round trip: cwnd = cwnd x
 *				max(1 - beta (delay - target) / delay, 1 -
 *				max_mdf)
 *	a loss			at most once a round trip: cwnd = cwnd (1 -
 *				max_mdf)
 *	Below one MTU the sender paces a packet every srtt x MTU / cwnd.
 *
 * Every algorithm keeps cwnd within [min_cwnd, max_cwnd] and cuts
 * cwnd / 2 on a loss (DCTCP and NSCC as their fast recovery does), at
 * most once a round trip.
 */
#ifndef _WORKLOAD_WINDOW_CC_H
#define _WORKLOAD_WINDOW_CC_H

#include <stdbool.h>
#include <string.h>
#include <linux/types.h>

#define WCC_ONE_Q16		65536U

enum wcc_algo {
	WCC_NONE,		/* no window: the permutation's open-loop pace */
	WCC_DCTCP,
	WCC_NSCC,
	WCC_MSWIFT,
	WCC_NR_ALGOS,
};

static const char *const wcc_algo_names[WCC_NR_ALGOS] = {
	[WCC_NONE]	= "none",
	[WCC_DCTCP]	= "dctcp",
	[WCC_NSCC]	= "nscc",
	[WCC_MSWIFT]	= "mswift",
};

struct wcc_params {
	enum wcc_algo	algo;
	__u32	mtu_bytes;		/* a packet's bytes in the window */
	__u64	base_rtt_ns;		/* the unloaded round trip */
	__u64	init_cwnd_bytes;
	__u64	min_cwnd_bytes;
	__u64	max_cwnd_bytes;
	/* DCTCP */
	__u32	dctcp_g_q16;		/* alpha's gain */
	/* NSCC */
	__u64	nscc_target_ns;		/* the queueing-delay target */
	__u32	nscc_pi_q16;		/* proportional increase, MTUs a round trip */
	__u32	nscc_fi_q16;		/* fair increase, MTUs a round trip */
	__u32	nscc_gamma_q16;		/* multiplicative decrease's gain */
	__u64	nscc_qa_delay_ns;	/* quick adapt above this delay (0: off) */
	/* MSwift */
	__u64	swift_base_target_ns;
	__u32	swift_hops;		/* hops of the path, for hop scaling */
	__u64	swift_hop_ns;
	__u64	swift_fs_range_ns;	/* flow scaling's most */
	__u32	swift_fs_min_cwnd_q16;	/* flow scaling's range of windows, */
	__u32	swift_fs_max_cwnd_q16;	/* packets as Q16 */
	__u32	swift_ai_q16;		/* additive increase, MTUs a round trip */
	__u32	swift_beta_q16;		/* multiplicative decrease's gain */
	__u32	swift_max_mdf_q16;	/* the largest cut */
	__u32	swift_subflows;		/* windows a sender keeps */
};

struct wcc {
	__u64	cwnd_bytes;
	__u64	srtt_ns;		/* smoothed round trip, 0: no sample */
	__u64	last_cut_ns;		/* the last decrease, 0: none */
	bool	cut_once;		/* a decrease has happened */
	/* DCTCP's window of observation */
	__u32	alpha_q16;
	__u64	win_acked_bytes;
	__u64	win_marked_bytes;
	/* NSCC's quick adapt: what was ACKed since it last looked */
	__u64	qa_start_ns;
	__u64	qa_acked_bytes;
	/* counters */
	__u64	decreases;
	__u64	increases;
	__u64	losses;
	__u64	quick_adapts;
};

/* The algorithm named @name, or -1. */
static inline int wcc_algo_by_name(const char *name)
{
	int a;

	for (a = 0; a < WCC_NR_ALGOS; a++)
		if (!strcmp(name, wcc_algo_names[a]))
			return a;
	return -1;
}

/* Integer square root of @x (floor). */
static inline __u64 wcc_isqrt(__u64 x)
{
	__u64 r = 0, bit = 1ULL << 62;

	while (bit > x)
		bit >>= 2;
	while (bit) {
		if (x >= r + bit) {
			x -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return r;
}

/*
 * Defaults for @algo on a path of @base_rtt_ns round trip and a
 * bandwidth-delay product of @bdp_bytes: the window starts at the BDP
 * (the line-rate start of datacenter transports), may reach 1.5 BDPs,
 * and goes no lower than an MTU (MSwift: a hundredth of one, paced).
 * The constants are the published ones: DCTCP's g = 1/16 (RFC 8257);
 * NSCC's target at the base round trip's fraction the UEC specification
 * suggests for a fabric of this size (base RTT / 2 here), gamma 0.8;
 * Swift's beta 0.8, max_mdf 0.5, ai 1, flow scaling over 0.1..100
 * packets.  Callers may change any of them after this.
 */
static inline void wcc_params_default(struct wcc_params *p, enum wcc_algo algo,
				      __u32 mtu_bytes, __u64 base_rtt_ns,
				      __u64 bdp_bytes)
{
	memset(p, 0, sizeof(*p));
	p->algo = algo;
	p->mtu_bytes = mtu_bytes;
	p->base_rtt_ns = base_rtt_ns;
	p->init_cwnd_bytes = bdp_bytes > mtu_bytes ? bdp_bytes : mtu_bytes;
	p->max_cwnd_bytes = p->init_cwnd_bytes + p->init_cwnd_bytes / 2;
	p->min_cwnd_bytes = algo == WCC_MSWIFT ? mtu_bytes / 100 : mtu_bytes;
	if (!p->min_cwnd_bytes)
		p->min_cwnd_bytes = 1;
	p->dctcp_g_q16 = WCC_ONE_Q16 / 16;
	p->nscc_target_ns = base_rtt_ns / 2;
	p->nscc_pi_q16 = WCC_ONE_Q16;
	p->nscc_fi_q16 = WCC_ONE_Q16 / 4;
	p->nscc_gamma_q16 = WCC_ONE_Q16 * 8 / 10;
	p->nscc_qa_delay_ns = 4 * p->nscc_target_ns;
	p->swift_base_target_ns = base_rtt_ns / 2;
	p->swift_hops = 0;
	p->swift_hop_ns = 0;
	p->swift_fs_range_ns = 4 * base_rtt_ns;
	p->swift_fs_min_cwnd_q16 = WCC_ONE_Q16 / 10;
	p->swift_fs_max_cwnd_q16 = 100 * WCC_ONE_Q16;
	p->swift_ai_q16 = WCC_ONE_Q16;
	p->swift_beta_q16 = WCC_ONE_Q16 * 8 / 10;
	p->swift_max_mdf_q16 = WCC_ONE_Q16 / 2;
	p->swift_subflows = 1;
}

static inline void wcc_init(struct wcc *c, const struct wcc_params *p)
{
	memset(c, 0, sizeof(*c));
	c->cwnd_bytes = p->init_cwnd_bytes;
	c->alpha_q16 = WCC_ONE_Q16;
}

static inline void wcc_clamp(struct wcc *c, const struct wcc_params *p)
{
	if (c->cwnd_bytes < p->min_cwnd_bytes)
		c->cwnd_bytes = p->min_cwnd_bytes;
	if (c->cwnd_bytes > p->max_cwnd_bytes)
		c->cwnd_bytes = p->max_cwnd_bytes;
}

/* The round trip decreases are spaced by: the smoothed one, or the base. */
static inline __u64 wcc_rtt_ns(const struct wcc *c, const struct wcc_params *p)
{
	return c->srtt_ns ? c->srtt_ns : p->base_rtt_ns;
}

/* May the window be cut at @now (at most once per @gap_ns)? */
static inline bool wcc_may_cut(const struct wcc *c, __u64 gap_ns, __u64 now)
{
	return !c->cut_once || now - c->last_cut_ns >= gap_ns;
}

static inline void wcc_cut(struct wcc *c, const struct wcc_params *p,
			   __u32 keep_q16, __u64 now)
{
	c->cwnd_bytes = c->cwnd_bytes * keep_q16 / WCC_ONE_Q16;
	c->last_cut_ns = now;
	c->cut_once = true;
	c->decreases++;
	wcc_clamp(c, p);
}

/* cwnd += @q16 MTUs x @bytes / cwnd: @q16 MTUs a round trip of ACKs */
static inline void wcc_grow(struct wcc *c, const struct wcc_params *p,
			    __u64 q16, __u32 bytes)
{
	__u64 add = q16 * p->mtu_bytes / WCC_ONE_Q16 * bytes / c->cwnd_bytes;

	c->cwnd_bytes += add ? add : (q16 ? 1 : 0);
	c->increases++;
	wcc_clamp(c, p);
}

/* MSwift's target delay for the window now (Swift's flow scaling). */
static inline __u64 wcc_swift_target_ns(const struct wcc *c,
					const struct wcc_params *p)
{
	/* fs = a / sqrt(w) - b over w in [fs_min, fs_max] packets:
	 * fs(fs_min) = range, fs(fs_max) = 0; sqrt of Q16 packets
	 * as Q8, so a / sqrt(w) is range x (1/sqrt(w) - 1/sqrt(max)) /
	 * (1/sqrt(min) - 1/sqrt(max))
	 */
	__u64 w_q16 = c->cwnd_bytes * WCC_ONE_Q16 / p->mtu_bytes;
	__u64 s_w, s_min, s_max, inv_w, inv_min, inv_max, fs;

	if (w_q16 < p->swift_fs_min_cwnd_q16)
		w_q16 = p->swift_fs_min_cwnd_q16;
	if (w_q16 > p->swift_fs_max_cwnd_q16)
		w_q16 = p->swift_fs_max_cwnd_q16;
	s_w = wcc_isqrt(w_q16) ? : 1;
	s_min = wcc_isqrt(p->swift_fs_min_cwnd_q16) ? : 1;
	s_max = wcc_isqrt(p->swift_fs_max_cwnd_q16) ? : 1;
	/* 1/sqrt as Q24 of the Q8 roots */
	inv_w = (1ULL << 32) / s_w;
	inv_min = (1ULL << 32) / s_min;
	inv_max = (1ULL << 32) / s_max;
	fs = inv_min > inv_max ?
	     p->swift_fs_range_ns * (inv_w - inv_max) / (inv_min - inv_max) : 0;
	return p->swift_base_target_ns + (__u64)p->swift_hops * p->swift_hop_ns + fs;
}

/*
 * An ACK at @now of @bytes whose packet came back with a CE echo @ecn
 * after @rtt_ns (0: no sample, the packet was resent).
 */
static inline void wcc_on_ack(struct wcc *c, const struct wcc_params *p,
			      __u32 bytes, bool ecn, __u64 rtt_ns, __u64 now)
{
	__u64 delay = 0, target, keep, gap;

	if (rtt_ns) {
		c->srtt_ns = c->srtt_ns ? c->srtt_ns - c->srtt_ns / 8 + rtt_ns / 8 :
			     rtt_ns;
		delay = rtt_ns > p->base_rtt_ns ? rtt_ns - p->base_rtt_ns : 0;
	}
	switch (p->algo) {
	case WCC_DCTCP:
		c->win_acked_bytes += bytes;
		if (ecn)
			c->win_marked_bytes += bytes;
		if (c->win_acked_bytes >= c->cwnd_bytes) {
			__u64 f = c->win_marked_bytes * WCC_ONE_Q16 /
				  c->win_acked_bytes;

			c->alpha_q16 = (__u32)(c->alpha_q16 -
				((__u64)c->alpha_q16 * p->dctcp_g_q16 >> 16) +
				(f * p->dctcp_g_q16 >> 16));
			c->win_acked_bytes = 0;
			c->win_marked_bytes = 0;
		}
		if (ecn) {
			if (wcc_may_cut(c, wcc_rtt_ns(c, p), now))
				wcc_cut(c, p, WCC_ONE_Q16 - c->alpha_q16 / 2, now);
		} else {
			wcc_grow(c, p, WCC_ONE_Q16, bytes);
		}
		break;
	case WCC_NSCC:
		target = p->nscc_target_ns;
		if (!c->qa_start_ns)
			c->qa_start_ns = now;
		c->qa_acked_bytes += bytes;
		if (p->nscc_qa_delay_ns && now - c->qa_start_ns >= p->base_rtt_ns) {
			if (delay > p->nscc_qa_delay_ns &&
			    c->qa_acked_bytes < c->cwnd_bytes / 8 &&
			    wcc_may_cut(c, p->base_rtt_ns, now)) {
				c->cwnd_bytes = c->qa_acked_bytes;
				c->last_cut_ns = now;
				c->cut_once = true;
				c->quick_adapts++;
				wcc_clamp(c, p);
				c->qa_start_ns = now;
				c->qa_acked_bytes = 0;
				break;	/* the window is set: nothing more */
			}
			c->qa_start_ns = now;
			c->qa_acked_bytes = 0;
		}
		if (!rtt_ns)
			break;
		if (!ecn && delay < target) {
			wcc_grow(c, p, (__u64)p->nscc_pi_q16 * (target - delay) / target,
				 bytes);
		} else if (!ecn) {
			wcc_grow(c, p, p->nscc_fi_q16, bytes);
		} else if (delay >= target && delay &&
			   wcc_may_cut(c, p->base_rtt_ns, now)) {
			keep = WCC_ONE_Q16 - (__u64)p->nscc_gamma_q16 *
			       (delay - target) / delay;
			wcc_cut(c, p, keep < WCC_ONE_Q16 / 2 ? WCC_ONE_Q16 / 2 :
				(__u32)keep, now);
		}
		break;
	case WCC_MSWIFT:
		if (!rtt_ns)
			break;
		target = wcc_swift_target_ns(c, p);
		if (delay < target) {
			if (c->cwnd_bytes >= p->mtu_bytes) {
				wcc_grow(c, p, p->swift_ai_q16, bytes);
			} else {
				c->cwnd_bytes += (__u64)p->swift_ai_q16 * bytes /
						 WCC_ONE_Q16;
				c->increases++;
				wcc_clamp(c, p);
			}
		} else {
			gap = wcc_rtt_ns(c, p);
			if (!wcc_may_cut(c, gap, now) || !delay)
				break;
			keep = WCC_ONE_Q16 - (__u64)p->swift_beta_q16 *
			       (delay - target) / delay;
			if (keep < WCC_ONE_Q16 - p->swift_max_mdf_q16)
				keep = WCC_ONE_Q16 - p->swift_max_mdf_q16;
			wcc_cut(c, p, (__u32)keep, now);
		}
		break;
	default:
		break;
	}
}

/* A packet declared lost at @now (duplicate ACKs past it, or its timeout). */
static inline void wcc_on_loss(struct wcc *c, const struct wcc_params *p,
			       __u64 now)
{
	__u32 keep = p->algo == WCC_MSWIFT ?
		     WCC_ONE_Q16 - p->swift_max_mdf_q16 : WCC_ONE_Q16 / 2;

	c->losses++;
	if (p->algo == WCC_NONE || !wcc_may_cut(c, wcc_rtt_ns(c, p), now))
		return;
	wcc_cut(c, p, keep, now);
}

/* MSwift below one MTU: the gap between packets, ns (0: no pacing). */
static inline __u64 wcc_pace_ns(const struct wcc *c, const struct wcc_params *p)
{
	if (c->cwnd_bytes >= p->mtu_bytes)
		return 0;
	return wcc_rtt_ns(c, p) * p->mtu_bytes / c->cwnd_bytes;
}

#endif /* _WORKLOAD_WINDOW_CC_H */
