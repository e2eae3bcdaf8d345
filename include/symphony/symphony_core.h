/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * symphony_core.h - Symphony's per-packet logic, written once and compiled
 * into the qdisc (kernel/sch_symphony.c), the userspace unit tests and the
 * parser fuzzer:
 *
 *  - symphony_parse() finds job, step, PSN and end of message in the
 *    network and transport headers of a RoCEv2 or UEC packet;
 *  - symphony_job_update() runs Algorithm 1 of the paper on a job's state
 *    block and returns the probability to ECN-mark the packet.
 *
 * Integer arithmetic only.  Probabilities are Q32 fractions: a packet is
 * marked when a uniform 32-bit random number is below the probability, or
 * always when it is SYMPHONY_PROB_ALWAYS.
 */
#ifndef _SYMPHONY_CORE_H
#define _SYMPHONY_CORE_H

#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/math64.h>
#define SYMPHONY_DIV_U64_U32(n, d)	div_u64((n), (d))
#define SYMPHONY_READ_ONCE(x)		READ_ONCE(x)
#else
#include <stdbool.h>
#include <stdint.h>
#define SYMPHONY_DIV_U64_U32(n, d)	((__u64)(n) / (__u32)(d))
#define SYMPHONY_READ_ONCE(x)		(*(const volatile __typeof__(x) *)&(x))
#endif
#include <linux/types.h>

#include "../uapi/linux/pkt_sched_symphony.h"
#include "symphony_map.h"
#include "symphony_wire.h"

#define SYMPHONY_PROB_ALWAYS	0xffffffffU

/* Bytes from the network header that the parser may look at: IPv6 with
 * extension headers, UDP, PDS and SES.
 */
#define SYMPHONY_PARSE_MAX_BYTES	160
/* What almost every packet needs: IPv4 with up to 16 bytes of options
 * (or IPv6 without extension headers), UDP, and a BTH or the PDS and SES
 * headers.  Larger IPv4 options leave a packet OTHER.
 */
#define SYMPHONY_PARSE_FIRST_BYTES	68

enum symphony_parse_result {
	SYMPHONY_PARSE_OTHER,		/* not collective traffic */
	SYMPHONY_PARSE_COLLECTIVE,	/* job, step and PSN found */
	SYMPHONY_PARSE_MALFORMED,	/* truncated or inconsistent headers */
};

struct symphony_parse_cfg {
	__u8	job_field;		/* enum symphony_field, RoCEv2 */
	__u8	step_field;		/* enum symphony_field, RoCEv2 */
};

struct symphony_pkt {
	__u32	job;
	__u32	step;
	__u32	psn;
	__u8	last;			/* ends a message (LAST, ONLY, EOM) */
	__u8	ecn;			/* IP ECN field: 0 not ECT, 3 CE */
	__u8	step_bits;		/* width of step, for wrap-around */
	__u8	psn_bits;		/* width of psn, for wrap-around */
};

struct symphony_params {
	__u32	k_ppm;
	__u32	tau_ppm;
	__u32	warmup_psn;
	__u32	sample_min_packets;
	__u32	alpha_max;
	__u64	twin_ns;
};

static inline __u32 symphony_get_be16(const __u8 *p)
{
	return ((__u32)p[0] << 8) | p[1];
}

static inline __u32 symphony_get_be24(const __u8 *p)
{
	return ((__u32)p[0] << 16) | ((__u32)p[1] << 8) | p[2];
}

static inline __u32 symphony_get_be32(const __u8 *p)
{
	return ((__u32)p[0] << 24) | symphony_get_be24(p + 1);
}

/* Serial-number comparison of @bits-wide numbers (RFC 1982): is a < b? */
static inline bool symphony_before(__u32 a, __u32 b, __u8 bits)
{
	__u32 shift = 32 - bits;

	return (__s32)((a - b) << shift) < 0;
}

static inline __u32 symphony_field_bits(__u8 field)
{
	switch (field) {
	case SYMPHONY_FIELD_UDP_SPORT:
		return 16;
	case SYMPHONY_FIELD_BTH_RSVD:
		return 13;
	default:
		return 24;
	}
}

static inline __u32 symphony_rocev2_field(__u8 field, const __u8 *udp,
					  const __u8 *bth)
{
	switch (field) {
	case SYMPHONY_FIELD_UDP_SPORT:
		return symphony_get_be16(udp);
	case SYMPHONY_FIELD_BTH_RSVD:
		return ((__u32)(bth[SYMPHONY_BTH_FECN_RSVD] &
				SYMPHONY_BTH_RSVD6_MASK) << 7) |
		       (bth[SYMPHONY_BTH_ACKREQ_RSVD] & SYMPHONY_BTH_RSVD7_MASK);
	default:
		return symphony_get_be24(bth + SYMPHONY_BTH_DESTQP);
	}
}

/* Does a RoCEv2 opcode carry data of a message, and does it end one?
 * RC (0x00-0x1f) and UC (0x20-0x3f) SEND and RDMA WRITE opcodes.
 */
static inline bool symphony_bth_is_data(__u8 opcode, bool *last)
{
	__u8 op = opcode & 0x1f;

	if ((opcode >> 5) > 1 || op > SYMPHONY_OP_RC_WRITE_ONLY + 1)
		return false;
	*last = op == 0x02 || op == 0x03 || op == 0x04 || op == 0x05 ||
		op == 0x08 || op == 0x09 || op == 0x0a || op == 0x0b;
	return true;
}

/* Does an IPv6 header (40 bytes at @nh) lead to extension headers? */
static inline bool symphony_ipv6_has_ext(const __u8 *nh)
{
	return nh[6] == 0 || nh[6] == 43 || nh[6] == 60;
}

/*
 * symphony_parse - classify a packet from its network header on.
 * @nh:		the packet's bytes from the network header
 * @avail:	how many bytes @nh holds
 * @pkt_len:	length of the packet from the network header, bytes
 * @ipv6:	the network header is IPv6 (else IPv4)
 *
 * A header that needs more than @pkt_len bytes is malformed; one that
 * needs more than @avail (but fits the packet) is not looked at: OTHER.
 * Fragments are OTHER.
 */
static inline enum symphony_parse_result
symphony_parse(const __u8 *nh, __u32 avail, __u32 pkt_len, bool ipv6,
	       const struct symphony_parse_cfg *cfg, struct symphony_pkt *pkt)
{
	__u32 off, udp_len, l4_len, dport;
	const __u8 *udp, *hdr;
	__u8 proto, ecn;
	bool last;

	if (avail > pkt_len)
		avail = pkt_len;

	if (!ipv6) {
		__u32 ihl, tot_len;

		if (pkt_len < 20)
			return SYMPHONY_PARSE_MALFORMED;
		if (avail < 20)
			return SYMPHONY_PARSE_OTHER;
		ihl = (nh[0] & 0x0f) * 4;
		tot_len = symphony_get_be16(nh + 2);
		if ((nh[0] >> 4) != 4 || ihl < 20 || tot_len < ihl ||
		    tot_len > pkt_len)
			return SYMPHONY_PARSE_MALFORMED;
		/* More-fragments flag or a fragment offset. */
		if (symphony_get_be16(nh + 6) & 0x3fff)
			return SYMPHONY_PARSE_OTHER;
		proto = nh[9];
		ecn = nh[1] & 3;
		off = ihl;
		l4_len = tot_len - ihl;
	} else {
		__u32 payload_len, hops;

		if (pkt_len < 40)
			return SYMPHONY_PARSE_MALFORMED;
		if (avail < 40)
			return SYMPHONY_PARSE_OTHER;
		payload_len = symphony_get_be16(nh + 4);
		if ((nh[0] >> 4) != 6 || 40 + payload_len > pkt_len)
			return SYMPHONY_PARSE_MALFORMED;
		proto = nh[6];
		ecn = (nh[1] >> 4) & 3;
		off = 40;
		/* Hop-by-hop, routing and destination options may precede
		 * UDP; a fragment header (44) or anything else ends the walk.
		 */
		for (hops = 0; hops < 4; hops++) {
			if (proto != 0 && proto != 43 && proto != 60)
				break;	/* as symphony_ipv6_has_ext() */
			if (off + 2 > 40 + payload_len)
				return SYMPHONY_PARSE_MALFORMED;
			if (off + 2 > avail)
				return SYMPHONY_PARSE_OTHER;
			proto = nh[off];
			off += ((__u32)nh[off + 1] + 1) * 8;
		}
		if (off > 40 + payload_len)
			return SYMPHONY_PARSE_MALFORMED;
		l4_len = 40 + payload_len - off;
	}

	if (proto != 17)	/* IPPROTO_UDP */
		return SYMPHONY_PARSE_OTHER;
	if (l4_len < 8)
		return SYMPHONY_PARSE_MALFORMED;
	if (off + 8 > avail)
		return SYMPHONY_PARSE_OTHER;
	udp = nh + off;
	udp_len = symphony_get_be16(udp + 4);
	if (udp_len < 8 || udp_len > l4_len)
		return SYMPHONY_PARSE_MALFORMED;
	dport = symphony_get_be16(udp + 2);
	hdr = udp + 8;
	off += 8;

	if (dport == SYMPHONY_UDP_PORT_ROCEV2) {
		if (udp_len < 8 + SYMPHONY_BTH_LEN)
			return SYMPHONY_PARSE_MALFORMED;
		if (off + SYMPHONY_BTH_LEN > avail)
			return SYMPHONY_PARSE_OTHER;
		if (!symphony_bth_is_data(hdr[SYMPHONY_BTH_OPCODE], &last))
			return SYMPHONY_PARSE_OTHER;
		pkt->ecn = ecn;
		pkt->job = symphony_rocev2_field(cfg->job_field, udp, hdr);
		pkt->step = symphony_rocev2_field(cfg->step_field, udp, hdr);
		pkt->step_bits = symphony_field_bits(cfg->step_field);
		pkt->psn = symphony_get_be24(hdr + SYMPHONY_BTH_PSN);
		pkt->psn_bits = SYMPHONY_BTH_PSN_BITS;
		pkt->last = last;
		return SYMPHONY_PARSE_COLLECTIVE;
	}

	if (dport == SYMPHONY_UDP_PORT_UEC) {
		const __u8 *ses = hdr + SYMPHONY_PDS_LEN;

		if (udp_len < 8 + SYMPHONY_PDS_LEN + SYMPHONY_SES_MIN_LEN)
			return SYMPHONY_PARSE_MALFORMED;
		if (off + SYMPHONY_PDS_LEN + SYMPHONY_SES_MIN_LEN > avail)
			return SYMPHONY_PARSE_OTHER;
		pkt->ecn = ecn;
		pkt->job = symphony_get_be24(ses + SYMPHONY_SES_JOBID);
		pkt->step = symphony_get_be16(hdr + SYMPHONY_PDS_SPDCID);
		pkt->step_bits = 16;
		pkt->psn = symphony_get_be32(hdr + SYMPHONY_PDS_PSN);
		pkt->psn_bits = SYMPHONY_UEC_PSN_BITS;
		pkt->last = !!(ses[SYMPHONY_SES_FLAGS] & SYMPHONY_SES_FLAG_EOM);
		return SYMPHONY_PARSE_COLLECTIVE;
	}

	return SYMPHONY_PARSE_OTHER;
}

/*
 * symphony_mark_prob - eq. (1) and (4): min(1, k * alpha * psn / psn_rec)
 * as a Q32 fraction.  @psn_rec must be non-zero.
 */
static inline __u32 symphony_mark_prob(__u32 k_ppm, __u32 alpha, __u32 psn,
				       __u32 psn_rec)
{
	__u64 ratio_q16 = SYMPHONY_DIV_U64_U32((__u64)psn << 16, psn_rec);
	__u64 gain_ppm = (__u64)k_ppm * alpha;	/* < 2^44 */
	__u64 prob_ppm_q16;

	if (gain_ppm && ratio_q16 > ~0ULL / gain_ppm)
		return SYMPHONY_PROB_ALWAYS;
	prob_ppm_q16 = gain_ppm * ratio_q16;
	if (prob_ppm_q16 >= (__u64)SYMPHONY_PPM << 16)
		return SYMPHONY_PROB_ALWAYS;
	/* < 2^36, so shifting by 16 more stays within 64 bits */
	return (__u32)SYMPHONY_DIV_U64_U32(prob_ppm_q16 << 16, SYMPHONY_PPM);
}

/* RED's maximum probability @pmax_ppm as a Q32 fraction, at most 1. */
static inline __u32 symphony_red_pmax_q32(__u32 pmax_ppm)
{
	__u64 pmax_q32 = SYMPHONY_DIV_U64_U32((__u64)pmax_ppm << 32,
					      SYMPHONY_PPM);

	return pmax_q32 > SYMPHONY_PROB_ALWAYS ? SYMPHONY_PROB_ALWAYS :
						 (__u32)pmax_q32;
}

/*
 * symphony_red_prob_q32 - RED on the instantaneous backlog, as DCQCN
 * switches mark: 0 up to @kmin bytes, then rising linearly from 0 towards
 * @pmax_q32 (from symphony_red_pmax_q32()) as the backlog nears @kmax
 * bytes, and 1 (every packet) from @kmax on.  Requires kmin <= kmax.
 * Q32 fraction.
 */
static inline __u32 symphony_red_prob_q32(__u32 kmin, __u32 kmax,
					  __u32 pmax_q32, __u32 backlog)
{
	if (backlog <= kmin)
		return 0;
	if (backlog >= kmax)
		return SYMPHONY_PROB_ALWAYS;
	/* (backlog - kmin) < 2^32 and pmax_q32 < 2^32: no overflow */
	return (__u32)SYMPHONY_DIV_U64_U32((__u64)pmax_q32 * (backlog - kmin),
					   kmax - kmin);
}

/* symphony_red_prob_q32() with the maximum probability in ppm. */
static inline __u32 symphony_red_prob(__u32 kmin, __u32 kmax, __u32 pmax_ppm,
				      __u32 backlog)
{
	return symphony_red_prob_q32(kmin, kmax,
				     symphony_red_pmax_q32(pmax_ppm), backlog);
}

static inline bool symphony_coin(__u32 prob_q32, __u32 random)
{
	return prob_q32 == SYMPHONY_PROB_ALWAYS || random < prob_q32;
}

/* A job's parameter, or the qdisc's where the job sets none. */
#define SYMPHONY_JOB_PARAM(job, params, field) \
	(SYMPHONY_READ_ONCE((job)->field) ?: (params)->field)

/* End of a T_win window: eq. (2), (3) and (5) with the sample guard, then
 * a fresh window with psn_rec reset (the time-windowed max of 3.4.2).
 */
static inline void symphony_window_roll(struct symphony_job *job,
					const struct symphony_params *params,
					__u64 now_ns)
{
	__u32 samples = SYMPHONY_JOB_PARAM(job, params, sample_min_packets);
	__u32 tau_ppm = SYMPHONY_JOB_PARAM(job, params, tau_ppm);

	if (job->cnt_total > samples) {
		if ((__u64)job->cnt_op * SYMPHONY_PPM >=
		    (__u64)tau_ppm * job->cnt_total) {
			if (job->alpha < params->alpha_max)
				job->alpha++;
		} else if (job->alpha > 1) {
			job->alpha--;
		}
		job->windows++;
	}
	job->cnt_total = 0;
	job->cnt_op = 0;
	job->psn_rec = 0;
	job->window_start_ns = now_ns;
}

/*
 * symphony_job_update - Algorithm 1 for one packet of @segs segments.
 * Returns the probability to mark it (0 for lagging packets and during
 * warm-up); *outpacing tells whether its step was ahead of step_min.
 * The caller serialises updates of one job.
 */
static inline __u32 symphony_job_update(struct symphony_job *job,
					const struct symphony_pkt *pkt,
					const struct symphony_params *params,
					__u64 now_ns, __u32 segs,
					bool *outpacing)
{
	__u8 sb = pkt->step_bits, pb = pkt->psn_bits;
	__u32 psn_rec, warmup;

	if (!(job->flags & SYMPHONY_JOB_F_ACTIVE)) {
		job->flags |= SYMPHONY_JOB_F_ACTIVE;
		job->step_min = pkt->step;
		job->psn_rec = 0;
		job->alpha = 1;
		job->cnt_total = 0;
		job->cnt_op = 0;
		job->window_start_ns = now_ns;
	}
	if (job->alpha < 1)
		job->alpha = 1;
	/* Signed: the clocks of two CPUs sharing a job may differ a little,
	 * and a timestamp slightly behind the window start is no roll.
	 */
	if ((__s64)(now_ns - job->window_start_ns) >= (__s64)params->twin_ns)
		symphony_window_roll(job, params, now_ns);
	job->last_seen_ns = now_ns;

	/* UpdateTrafficStats(step) */
	*outpacing = symphony_before(job->step_min, pkt->step, sb);
	job->cnt_total += segs;
	if (*outpacing)
		job->cnt_op += segs;

	if (pkt->last) {
		job->step_min = (pkt->step + 1) & (~0U >> (32 - sb));
		job->psn_rec = 0;
	} else if (symphony_before(pkt->step, job->step_min, sb)) {
		job->step_min = pkt->step;
		job->psn_rec = pkt->psn;
	} else if (pkt->step == job->step_min &&
		   (!job->psn_rec || symphony_before(job->psn_rec, pkt->psn, pb))) {
		/* psn_rec 0 is an empty window max: any PSN replaces it. */
		job->psn_rec = pkt->psn;
	}

	psn_rec = job->psn_rec;
	warmup = SYMPHONY_JOB_PARAM(job, params, warmup_psn);
	if (!symphony_before(job->step_min, pkt->step, sb) || psn_rec <= warmup)
		return 0;
	return symphony_mark_prob(SYMPHONY_JOB_PARAM(job, params, k_ppm),
				  job->alpha, pkt->psn, psn_rec);
}

#endif /* _SYMPHONY_CORE_H */
