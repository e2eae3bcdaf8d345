/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * dcqcn.h - the DCQCN reaction point (the sender's rate machine; Zhu et
 * al., SIGCOMM 2015, and the NIC implementations that follow it), written
 * once for the workload tools and their unit tests.  Integer arithmetic
 * only: rates in bits per second, alpha as a Q16 fraction, times in ns.
 *
 * A flow starts at line rate.  A CNP cuts it:
 *	Rt = Rc;  Rc = Rc * (1 - alpha / 2);  alpha = (1 - g) * alpha + g
 * and restarts the increase stages.  Without CNPs, every alpha interval
 *	alpha = (1 - g) * alpha
 * and each rate-increase event (the rate timer expiring, or the byte
 * counter filling) advances its stage counter T or BC, then
 *	max(T, BC) < F:		fast recovery	Rc = (Rt + Rc) / 2
 *	min(T, BC) > F:		hyper increase	Rt += (min(T, BC) - F) * R_HAI,
 *							Rc = (Rt + Rc) / 2
 *	otherwise:		additive	Rt += R_AI, Rc = (Rt + Rc) / 2
 * with Rt and Rc capped at line rate, and Rc at least the minimum rate.
 * Simultaneous timer events are processed alpha first.
 */
#ifndef _WORKLOAD_DCQCN_H
#define _WORKLOAD_DCQCN_H

#include <stdbool.h>
#include <linux/types.h>

#define DCQCN_ONE_Q16		65536U

struct dcqcn_params {
	__u64	line_rate_bps;		/* start and ceiling */
	__u64	min_rate_bps;		/* floor of a cut */
	__u64	rai_bps;		/* additive increase step */
	__u64	rhai_bps;		/* hyper increase step */
	__u32	g_q16;			/* alpha gain g, Q16 (256: 1/256) */
	__u32	f;			/* fast-recovery stages F */
	__u64	alpha_interval_ns;	/* K: alpha decay period */
	__u64	rate_interval_ns;	/* T: rate-increase timer */
	__u64	byte_counter_bytes;	/* B: rate-increase byte counter */
};

struct dcqcn {
	__u64	rc_bps;			/* current rate */
	__u64	rt_bps;			/* target rate */
	__u32	alpha_q16;
	__u32	t_stage;		/* timer events since the last cut */
	__u32	bc_stage;		/* byte-counter events since the cut */
	bool	reacting;		/* a CNP was seen: timers run */
	__u64	bytes;			/* sent since the last byte event */
	__u64	next_alpha_ns;
	__u64	next_rate_ns;
	__u64	cnps;			/* CNPs handled */
	__u64	increases;		/* rate-increase events */
};

/*
 * dcqcn_params_scaled - the defaults, from the DCQCN paper and NIC
 * practice at 40 Gbit/s (g = 1/256, K = 55 us, T = 300 us, B = 10 MB,
 * F = 5, R_AI = 40 Mbit/s, R_HAI = 400 Mbit/s, 40 Mbit/s floor), with the
 * rate steps and the byte counter scaled to @line_rate_bps so that they
 * stay the same fraction of the line; the timers are kept.
 */
static inline void dcqcn_params_scaled(struct dcqcn_params *p,
				       __u64 line_rate_bps)
{
	p->line_rate_bps = line_rate_bps;
	p->rai_bps = line_rate_bps / 1000;
	p->rhai_bps = line_rate_bps / 100;
	p->min_rate_bps = line_rate_bps / 1000 ?: 1;
	p->g_q16 = 256;
	p->f = 5;
	p->alpha_interval_ns = 55000;
	p->rate_interval_ns = 300000;
	/* 10 MB at 40 Gbit/s: 2 ms of line rate */
	p->byte_counter_bytes = line_rate_bps / 8 / 500 ?: 1;
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

static inline void dcqcn_increase(struct dcqcn *s, const struct dcqcn_params *p)
{
	__u32 lo = s->t_stage < s->bc_stage ? s->t_stage : s->bc_stage;
	__u32 hi = s->t_stage < s->bc_stage ? s->bc_stage : s->t_stage;

	s->increases++;
	if (lo > p->f)				/* hyper increase */
		s->rt_bps += (__u64)(lo - p->f) * p->rhai_bps;
	else if (hi >= p->f)			/* additive increase */
		s->rt_bps += p->rai_bps;
	/* else fast recovery: Rt stays */
	s->rt_bps = dcqcn_min_u64(s->rt_bps, p->line_rate_bps);
	/* rounded up, so that Rc reaches the line rate */
	s->rc_bps = dcqcn_min_u64((s->rt_bps + s->rc_bps + 1) / 2,
				  p->line_rate_bps);
}

/* Run the timers up to @now_ns. */
static inline void dcqcn_advance(struct dcqcn *s, const struct dcqcn_params *p,
				 __u64 now_ns)
{
	while (s->reacting) {
		if (s->next_alpha_ns <= now_ns &&
		    s->next_alpha_ns <= s->next_rate_ns) {
			s->alpha_q16 -= (__u32)(((__u64)s->alpha_q16 * p->g_q16) >> 16);
			s->next_alpha_ns += p->alpha_interval_ns;
		} else if (s->next_rate_ns <= now_ns) {
			s->t_stage++;
			dcqcn_increase(s, p);
			s->next_rate_ns += p->rate_interval_ns;
		} else {
			break;
		}
		/* back at line rate with nothing to recover: rest */
		if (s->rc_bps >= p->line_rate_bps &&
		    s->rt_bps >= p->line_rate_bps)
			s->reacting = false;
	}
}

/* A CNP for this flow at @now_ns. */
static inline void dcqcn_on_cnp(struct dcqcn *s, const struct dcqcn_params *p,
				__u64 now_ns)
{
	__u64 cut;

	dcqcn_advance(s, p, now_ns);
	s->cnps++;
	s->rt_bps = s->rc_bps;
	cut = (s->rc_bps * s->alpha_q16) >> 17;		/* Rc * alpha / 2 */
	s->rc_bps -= cut;
	if (s->rc_bps < p->min_rate_bps)
		s->rc_bps = p->min_rate_bps;
	s->alpha_q16 = s->alpha_q16 -
		       (__u32)(((__u64)s->alpha_q16 * p->g_q16) >> 16) +
		       p->g_q16;
	if (s->alpha_q16 > DCQCN_ONE_Q16)
		s->alpha_q16 = DCQCN_ONE_Q16;
	s->t_stage = 0;
	s->bc_stage = 0;
	s->bytes = 0;
	s->reacting = true;
	s->next_alpha_ns = now_ns + p->alpha_interval_ns;
	s->next_rate_ns = now_ns + p->rate_interval_ns;
}

/* @bytes sent at @now_ns: the byte counter's increase events. */
static inline void dcqcn_on_sent(struct dcqcn *s, const struct dcqcn_params *p,
				 __u64 bytes, __u64 now_ns)
{
	dcqcn_advance(s, p, now_ns);
	if (!s->reacting)
		return;
	s->bytes += bytes;
	while (s->reacting && s->bytes >= p->byte_counter_bytes) {
		s->bytes -= p->byte_counter_bytes;
		s->bc_stage++;
		dcqcn_increase(s, p);
		if (s->rc_bps >= p->line_rate_bps &&
		    s->rt_bps >= p->line_rate_bps)
			s->reacting = false;
	}
}

/* Nanoseconds a packet of @bytes takes at the current rate. */
static inline __u64 dcqcn_gap_ns(const struct dcqcn *s, __u64 bytes)
{
	return s->rc_bps ? bytes * 8 * 1000000000ULL / s->rc_bps : 0;
}

#endif /* _WORKLOAD_DCQCN_H */
