/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * dcqcn.h - the DCQCN reaction point (the sender's rate machine; Zhu et
 * al., SIGCOMM 2015, and the NIC implementations that follow it), written
 * once for the workload tools, the simulator and their unit tests.
 * Integer arithmetic only: rates in bits per second, alpha as a Q16
 * fraction, times in ns.
 *
 * A flow starts at line rate.  A CNP cuts it, at once or, with a
 * decrease interval, at most once per interval (a CNP inside it cuts at
 * its end):
 *	Rt = Rc (see below);  Rc = Rc * (1 - alpha / 2);
 * and restarts the increase stages.  Each CNP also raises alpha,
 *	alpha = (1 - g) * alpha + g
 * and alpha decays every alpha interval, alpha = (1 - g) * alpha.
 * Whether a cut sets the target rate Rt to the current rate is the
 * NIC's clamp rule (mlx5's rp_clamp_tgt_rate and rp_clamp_tgt_rate_ati,
 * HPCC's CLAMP_TARGET_RATE): always, only when a timer increase came
 * since the last cut, or never.
 *
 * Each rate-increase event (the rate timer expiring, or the byte counter
 * filling) advances its stage counter T or BC (counting this event), then
 *	max(T, BC) <= F:	fast recovery	Rc = (Rt + Rc) / 2
 *	min(T, BC) >  F + 1:	hyper increase	Rt += R_HAI (or, as the DCQCN
 *						paper, (min(T, BC) - F - 1) x
 *						R_HAI), Rc = (Rt + Rc) / 2
 *	otherwise:		additive	Rt += R_AI, Rc = (Rt + Rc) / 2
 * so F is the number of fast-recovery events after a cut (HPCC's
 * FAST_RECOVERY_TIMES, mlx5's rp_threshold).  Without a byte counter
 * (B = 0) the timer's stage T alone decides.  Rt and Rc are capped at
 * line rate, Rc kept at least the minimum rate.  Simultaneous timer
 * events are processed alpha first, then the rate timer, then a deferred
 * cut (HPCC's order).
 *
 * The profiles (dcqcn_params_profile(); sources in docs/workloads.md):
 *	legacy	the project's constants until 2026-12 (the DCQCN paper's at
 *		40 Gbit/s, rate steps scaled to the line rate), clamping on
 *		every cut, a cut on every CNP; kept so that older results
 *		reproduce
 *	mlx5	the mlx5 driver's documented DCQCN defaults
 *	hpcc	HPCC's ns-3 example configuration of its Mellanox DCQCN
 */
#ifndef _WORKLOAD_DCQCN_H
#define _WORKLOAD_DCQCN_H

#include <stdbool.h>
#include <string.h>
#include <linux/types.h>

#define DCQCN_ONE_Q16		65536U

enum dcqcn_profile {
	DCQCN_PROFILE_LEGACY,
	DCQCN_PROFILE_MLX5,
	DCQCN_PROFILE_HPCC,
	DCQCN_NR_PROFILES,
};

struct dcqcn_params {
	__u64	line_rate_bps;		/* start and ceiling */
	__u64	min_rate_bps;		/* floor of a cut */
	__u64	rai_bps;		/* additive increase step */
	__u64	rhai_bps;		/* hyper increase step */
	__u32	g_q16;			/* alpha gain g, Q16 (256: 1/256) */
	__u32	f;			/* fast-recovery events F after a cut */
	__u64	alpha_interval_ns;	/* K: alpha decay period */
	__u64	rate_interval_ns;	/* T: rate-increase timer */
	__u64	byte_counter_bytes;	/* B: rate-increase byte counter, 0: none */
	__u64	decrease_interval_ns;	/* D: cuts on a grid of D, 0: per CNP */
	/* the notification point's: at most one CNP per queue pair per
	 * interval (the tools' --cnp-interval default)
	 */
	__u64	cnp_interval_ns;
	bool	clamp_tgt_rate;		/* every cut sets Rt = Rc */
	bool	clamp_tgt_rate_ati;	/* a cut after a timer increase sets Rt = Rc */
	bool	hai_grows;		/* hyper step (min(T, BC) - F - 1) x R_HAI */
	bool	alpha_decays_at_rest;	/* alpha's timer runs on at line rate */
};

struct dcqcn {
	__u64	rc_bps;			/* current rate */
	__u64	rt_bps;			/* target rate */
	__u32	alpha_q16;
	__u32	t_stage;		/* timer events since the last cut */
	__u32	bc_stage;		/* byte-counter events since the cut */
	bool	reacting;		/* a CNP was seen: timers run */
	bool	cut_pending;		/* a CNP waits for the decrease check */
	bool	alpha_cnp;		/* a CNP since the last alpha tick */
	__u64	bytes;			/* sent since the last byte event */
	__u64	next_alpha_ns;
	__u64	next_rate_ns;
	__u64	next_cut_ns;		/* the decrease check of a pending cut */
	__u64	cut_grid_ns;		/* the first check; the others D apart */
	__u64	cnps;			/* CNPs handled */
	__u64	cuts;			/* rate decreases */
	__u64	increases;		/* rate-increase events */
};

static inline const char *dcqcn_profile_name(enum dcqcn_profile profile)
{
	switch (profile) {
	case DCQCN_PROFILE_LEGACY:
		return "legacy";
	case DCQCN_PROFILE_MLX5:
		return "mlx5";
	case DCQCN_PROFILE_HPCC:
		return "hpcc";
	default:
		return "?";
	}
}

/* The profile called @name, or -1. */
static inline int dcqcn_profile_by_name(const char *name)
{
	int i;

	for (i = 0; i < DCQCN_NR_PROFILES; i++)
		if (!strcmp(name, dcqcn_profile_name((enum dcqcn_profile)i)))
			return i;
	return -1;
}

/* @v x @num / @den, at least 1 */
static inline __u64 dcqcn_scale(__u64 v, __u64 num, __u64 den)
{
	__u64 r = (__u64)((__uint128_t)v * num / den);

	return r ?: 1;
}

/*
 * What the NIC profiles share, mlx5's timers and rules as HPCC's
 * Mellanox model copies them: alpha every 1 us and g 1/256, a cut check
 * every 4 us, the rate timer 300 us, one fast-recovery event, the target
 * rate clamped after a timer increase, a CNP per 4 us, alpha's timer
 * running on at line rate.
 */
static inline void dcqcn_params_nic(struct dcqcn_params *p)
{
	p->g_q16 = 256;
	p->f = 1;
	p->alpha_interval_ns = 1000;
	p->rate_interval_ns = 300000;
	p->decrease_interval_ns = 4000;
	p->cnp_interval_ns = 4000;
	p->clamp_tgt_rate_ati = true;
	p->alpha_decays_at_rest = true;
}

/*
 * dcqcn_params_profile - @profile's constants for a NIC of @line_rate_bps.
 * Timers are the profile's own at every rate; rate steps, the floor and
 * the byte counter are given at the profile's reference rate and scaled
 * to the line rate where the profile says so, so that the slow links of
 * the testbeds (a few Mbit/s) keep the same fractions of the line.
 */
static inline void dcqcn_params_profile(struct dcqcn_params *p,
					enum dcqcn_profile profile,
					__u64 line_rate_bps)
{
	__u64 ref;

	*p = (struct dcqcn_params){ .line_rate_bps = line_rate_bps };
	switch (profile) {
	case DCQCN_PROFILE_MLX5:
		/*
		 * The ConnectX-4/5 firmware defaults (mlxconfig and
		 * drivers/infiniband/hw/mlx5/cong.c's cc_params; NVIDIA's
		 * "DCQCN parameters"): rp_time_reset 300 us, rp_byte_reset
		 * 32767 (in 64-byte units, as Isekai reads it), rp_threshold
		 * 1, rp_ai_rate 5 and rp_hai_rate 50 Mbit/s, rp_min_rate
		 * 1 Mbit/s, rp_dce_tcp_g 1019 (alpha keeps 1019/1024 a
		 * tick: g = 5/1024), rp_dce_tcp_rtt 1 us (alpha's tick),
		 * rp_rate_reduce_monitor_period 4 us, rp_clamp_tgt_rate 0,
		 * rp_clamp_tgt_rate_ati 1, rp_initial_alpha_value 1023 (1),
		 * rp_rate_to_set_on_first_cnp 0 (no change),
		 * np_min_time_between_cnps 4 us.  The NIC's steps are
		 * absolute; below 10 Gbit/s (no mlx5 link is slower) they
		 * are scaled as if the link were 10 Gbit/s.
		 */
		ref = line_rate_bps < 10000000000ULL ? 10000000000ULL : line_rate_bps;
		p->rai_bps = dcqcn_scale(5000000, line_rate_bps, ref);
		p->rhai_bps = dcqcn_scale(50000000, line_rate_bps, ref);
		p->min_rate_bps = dcqcn_scale(1000000, line_rate_bps, ref);
		p->byte_counter_bytes = dcqcn_scale(32767 * 64, line_rate_bps, ref);
		dcqcn_params_nic(p);
		p->g_q16 = 5 * DCQCN_ONE_Q16 / 1024;
		break;
	case DCQCN_PROFILE_HPCC:
		/*
		 * HPCC's simulation/run.py DCQCN settings for its Mellanox
		 * model (rdma-hw.cc): ALPHA_RESUME_INTERVAL 1 us,
		 * RATE_DECREASE_INTERVAL 4 us, RP_TIMER 300 us, EWMA_GAIN
		 * 1/256, FAST_RECOVERY_TIMES 1, CLAMP_TARGET_RATE 0, no byte
		 * counter, RATE_AI 5 and RATE_HAI 50 Mbit/s x bw / 25 Gbit/s,
		 * MIN_RATE 1 Gbit/s (scaled below 10 Gbit/s, as mlx5's); its
		 * receiver flags a CNP in every ACK of a marked packet, here
		 * at most one CNP per 4 us (the cut checks' period).
		 */
		p->rai_bps = dcqcn_scale(5000000, line_rate_bps, 25000000000ULL);
		p->rhai_bps = dcqcn_scale(50000000, line_rate_bps, 25000000000ULL);
		ref = line_rate_bps < 10000000000ULL ? 10000000000ULL : line_rate_bps;
		p->min_rate_bps = dcqcn_scale(1000000000, line_rate_bps, ref);
		dcqcn_params_nic(p);	/* and no byte counter */
		break;
	case DCQCN_PROFILE_LEGACY:
	default:
		/*
		 * The DCQCN paper's and NIC practice at 40 Gbit/s (g = 1/256,
		 * K = 55 us, T = 300 us, B = 10 MB, R_AI = 40 Mbit/s,
		 * R_HAI = 400 Mbit/s, 40 Mbit/s floor), the rate steps and
		 * the byte counter scaled to the line rate; F = 4 here is the
		 * "F = 5" of the paper's stage rule (max(T, BC) < 5); the
		 * target rate clamped on every cut; a cut on every CNP.
		 */
		p->rai_bps = line_rate_bps / 1000;
		p->rhai_bps = line_rate_bps / 100;
		p->min_rate_bps = line_rate_bps / 1000 ?: 1;
		p->g_q16 = 256;
		p->f = 4;
		p->alpha_interval_ns = 55000;
		p->rate_interval_ns = 300000;
		/* 10 MB at 40 Gbit/s: 2 ms of line rate */
		p->byte_counter_bytes = line_rate_bps / 8 / 500 ?: 1;
		p->cnp_interval_ns = 50000;
		p->clamp_tgt_rate = true;
		p->hai_grows = true;
		break;
	}
}

static inline void dcqcn_init(struct dcqcn *s, const struct dcqcn_params *p)
{
	*s = (struct dcqcn){
		.rc_bps = p->line_rate_bps,
		.rt_bps = p->line_rate_bps,
		.alpha_q16 = DCQCN_ONE_Q16,
	};
}

static inline __u64 dcqcn_min_u64(__u64 a, __u64 b)
{
	return a < b ? a : b;
}

/*
 * @alpha_q16 after @n decays by (1 - g): stepwise in Q16 (legacy, whose
 * results must not move: each step rounds down, and alpha stops where a
 * step rounds to nothing), or by one Q32 power, which keeps the many 1 us
 * ticks of the NIC profiles from losing a rounding step each.
 */
static inline __u32 dcqcn_alpha_decay(__u32 alpha_q16, __u32 g_q16, __u64 n,
				      bool stepwise)
{
	__u64 base = (__u64)(DCQCN_ONE_Q16 - g_q16) << 16, factor = 1ULL << 32;

	if (stepwise) {
		__u32 d;

		while (n-- && (d = (__u32)(((__u64)alpha_q16 * g_q16) >> 16)))
			alpha_q16 -= d;
		return alpha_q16;
	}
	for (; n && factor; n >>= 1) {
		if (n & 1)
			factor = (factor * base) >> 32;
		base = (base * base) >> 32;
	}
	return (__u32)(((__u64)alpha_q16 * factor) >> 32);
}

/* alpha = (1 - g) * alpha + g, at most 1 */
static inline __u32 dcqcn_alpha_raise(__u32 alpha_q16, __u32 g_q16)
{
	alpha_q16 = alpha_q16 - (__u32)(((__u64)alpha_q16 * g_q16) >> 16) + g_q16;
	return alpha_q16 > DCQCN_ONE_Q16 ? DCQCN_ONE_Q16 : alpha_q16;
}

static inline void dcqcn_increase(struct dcqcn *s, const struct dcqcn_params *p)
{
	__u32 lo = s->t_stage, hi = s->t_stage;

	if (p->byte_counter_bytes) {
		lo = s->t_stage < s->bc_stage ? s->t_stage : s->bc_stage;
		hi = s->t_stage < s->bc_stage ? s->bc_stage : s->t_stage;
	}
	s->increases++;
	if (lo > p->f + 1)			/* hyper increase */
		s->rt_bps += p->hai_grows ? (__u64)(lo - p->f - 1) * p->rhai_bps :
					    p->rhai_bps;
	else if (hi > p->f)			/* additive increase */
		s->rt_bps += p->rai_bps;
	/* else fast recovery: Rt stays */
	s->rt_bps = dcqcn_min_u64(s->rt_bps, p->line_rate_bps);
	/* rounded up, so that Rc reaches the line rate */
	s->rc_bps = dcqcn_min_u64((s->rt_bps + s->rc_bps + 1) / 2,
				  p->line_rate_bps);
}

/*
 * The rate decrease, at @at_ns.  The target rate follows the current
 * rate when the profile clamps always, after any byte-counter increase
 * since the last cut, and with rp_clamp_tgt_rate_ati after a timer
 * increase too (the mlx5 rule, as NVIDIA describes the two bits).
 */
static inline void dcqcn_cut(struct dcqcn *s, const struct dcqcn_params *p,
			     __u64 at_ns)
{
	__u64 cut;

	if (p->clamp_tgt_rate || s->bc_stage ||
	    (p->clamp_tgt_rate_ati && s->t_stage))
		s->rt_bps = s->rc_bps;
	cut = (s->rc_bps * s->alpha_q16) >> 17;		/* Rc * alpha / 2 */
	s->rc_bps -= cut;
	if (s->rc_bps < p->min_rate_bps)
		s->rc_bps = p->min_rate_bps;
	s->cuts++;
	s->cut_pending = false;
	s->t_stage = 0;
	s->bc_stage = 0;
	s->bytes = 0;
	s->next_rate_ns = at_ns + p->rate_interval_ns;
}

static inline bool dcqcn_at_rest(const struct dcqcn *s,
				 const struct dcqcn_params *p)
{
	return !s->cut_pending && s->rc_bps >= p->line_rate_bps &&
	       s->rt_bps >= p->line_rate_bps;
}

/*
 * Run the timers up to @now_ns.  Events at one instant: alpha's first,
 * then the rate timer, then a pending cut (a cut waits for its decrease
 * interval's check, which HPCC schedules after both).
 */
static inline void dcqcn_advance(struct dcqcn *s, const struct dcqcn_params *p,
				 __u64 now_ns)
{
	while (s->reacting) {
		__u64 next = s->next_rate_ns;

		if (s->cut_pending && s->next_cut_ns < next)
			next = s->next_cut_ns;
		if (s->next_alpha_ns <= now_ns && s->next_alpha_ns <= next) {
			/* every alpha tick up to the next other event */
			__u64 until = next < now_ns ? next : now_ns;
			__u64 n = (until - s->next_alpha_ns) /
				  p->alpha_interval_ns + 1;

			s->next_alpha_ns += n * p->alpha_interval_ns;
			if (s->alpha_cnp) {
				s->alpha_q16 = dcqcn_alpha_raise(s->alpha_q16,
								 p->g_q16);
				s->alpha_cnp = false;
				n--;
			}
			s->alpha_q16 = dcqcn_alpha_decay(s->alpha_q16, p->g_q16, n,
							 !p->decrease_interval_ns);
			continue;
		}
		if (s->next_rate_ns <= now_ns && s->next_rate_ns <= next) {
			s->t_stage++;
			dcqcn_increase(s, p);
			s->next_rate_ns += p->rate_interval_ns;
		} else if (s->cut_pending && s->next_cut_ns <= now_ns) {
			dcqcn_cut(s, p, s->next_cut_ns);
		} else {
			break;
		}
		/* back at line rate with nothing to recover: rest */
		if (dcqcn_at_rest(s, p))
			s->reacting = false;
	}
}

/*
 * A flow that rested at line rate, up to @upto_ns: alpha's timer ran on,
 * its ticks decaying alpha where the profile says so.
 */
static inline void dcqcn_rest_alpha(struct dcqcn *s,
				    const struct dcqcn_params *p, __u64 upto_ns)
{
	__u64 n;

	if (upto_ns < s->next_alpha_ns)
		return;
	n = (upto_ns - s->next_alpha_ns) / p->alpha_interval_ns + 1;
	if (p->alpha_decays_at_rest)
		s->alpha_q16 = dcqcn_alpha_decay(s->alpha_q16, p->g_q16, n,
						 !p->decrease_interval_ns);
	s->next_alpha_ns += n * p->alpha_interval_ns;
}

/*
 * A CNP for this flow at @now_ns.  Without a decrease interval (legacy)
 * it cuts at once and raises alpha at once.  With one (mlx5, HPCC), as
 * the NICs' rate_reduce_monitor_period and HPCC's CheckRateDecreaseMlx
 * run it: the CNP is noted, and the next check of a fixed grid of
 * decrease intervals (the first one interval after the flow's first CNP)
 * cuts; the next alpha tick raises alpha; the first CNP sets alpha to 1
 * (rp_initial_alpha_value) and counts for nothing else.  A CNP comes
 * before the timers of its instant.
 */
static inline void dcqcn_on_cnp(struct dcqcn *s, const struct dcqcn_params *p,
				__u64 now_ns)
{
	__u64 d = p->decrease_interval_ns;

	if (!d) {
		dcqcn_advance(s, p, now_ns);
		if (!s->reacting && s->cnps)
			dcqcn_rest_alpha(s, p, now_ns);
		s->cnps++;
		dcqcn_cut(s, p, now_ns);
		s->alpha_q16 = dcqcn_alpha_raise(s->alpha_q16, p->g_q16);
		s->reacting = true;
		s->next_alpha_ns = now_ns + p->alpha_interval_ns;
		return;
	}
	if (now_ns)
		dcqcn_advance(s, p, now_ns - 1);
	if (!s->cnps++) {
		s->alpha_q16 = DCQCN_ONE_Q16;
		s->next_alpha_ns = now_ns + p->alpha_interval_ns;
		s->cut_grid_ns = now_ns + d;
		s->next_cut_ns = s->cut_grid_ns;
		/* the rate timer starts with the first cut */
		s->next_rate_ns = ~0ULL;
	} else {
		if (!s->reacting) {
			/* the alpha ticks of the rest, before this instant */
			dcqcn_rest_alpha(s, p, now_ns - 1);
			/* its rate timer ran on too: a stage, no change */
			s->t_stage = 1;
			s->next_rate_ns = now_ns + p->rate_interval_ns;
		}
		s->alpha_cnp = true;
		if (!s->cut_pending)
			s->next_cut_ns = now_ns <= s->cut_grid_ns ? s->cut_grid_ns :
					 s->cut_grid_ns +
					 (now_ns - s->cut_grid_ns + d - 1) / d * d;
	}
	s->cut_pending = true;
	s->reacting = true;
}

/* @bytes sent at @now_ns: the byte counter's increase events. */
static inline void dcqcn_on_sent(struct dcqcn *s, const struct dcqcn_params *p,
				 __u64 bytes, __u64 now_ns)
{
	dcqcn_advance(s, p, now_ns);
	if (!s->reacting || !p->byte_counter_bytes)
		return;
	s->bytes += bytes;
	while (s->reacting && s->bytes >= p->byte_counter_bytes) {
		s->bytes -= p->byte_counter_bytes;
		s->bc_stage++;
		dcqcn_increase(s, p);
		if (dcqcn_at_rest(s, p))
			s->reacting = false;
	}
}

/* Nanoseconds a packet of @bytes takes at the current rate. */
static inline __u64 dcqcn_gap_ns(const struct dcqcn *s, __u64 bytes)
{
	return s->rc_bps ? bytes * 8 * 1000000000ULL / s->rc_bps : 0;
}

#endif /* _WORKLOAD_DCQCN_H */
