/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * symphony_core.h - Symphony's per-packet logic, written once and compiled
 * into the qdisc (kernel/symphony_qdisc.c), the userspace unit tests and
 * the parser fuzzer:
 *
 *  - symphony_parse() finds job, step, PSN and end of message in the
 *    network and transport headers of a RoCEv2 or UEC packet: IPv4 RoCEv2
 *    by a branch-free fast path (symphony_parse_rocev2_ipv4()), the rest
 *    by symphony_parse_generic();
 *  - symphony_job_update() runs Algorithm 1 of the paper on a job's state
 *    block and returns the probability to ECN-mark the packet;
 *    symphony_job_count() adds the packet to the job's counters.
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
#include <linux/version.h>
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif
#define SYMPHONY_DIV_U64_U32(n, d)	div_u64((n), (d))
#define SYMPHONY_READ_ONCE(x)		READ_ONCE(x)
#define SYMPHONY_LOAD_BE16(p)		get_unaligned_be16(p)
#define SYMPHONY_LOAD_BE32(p)		get_unaligned_be32(p)
#define SYMPHONY_OPAQUE(x)		(x)
#define SYMPHONY_HDR_OFF(off)		(off)
#elif defined(__bpf__)
/* tc-BPF (bpf/symphony.bpf.c): no libc; bytes from a stack copy of the
 * headers, read a byte at a time (the verifier wants aligned stack loads)
 */
#include <stdbool.h>
#define SYMPHONY_DIV_U64_U32(n, d)	((__u64)(n) / (__u32)(d))
#define SYMPHONY_READ_ONCE(x)		(*(const volatile __typeof__(x) *)&(x))
#define SYMPHONY_LOAD_BE16(p)		symphony_get_be16(p)
#define SYMPHONY_LOAD_BE32(p)		symphony_get_be32(p)
/* a value the compiler may not fold into a 128-bit overflow check,
 * which BPF has no instruction for
 */
#define SYMPHONY_OPAQUE(x)						\
	({ __u64 __v = (x); asm volatile("" : "+r"(__v)); __v; })
/* A header offset the parser has checked against the bytes it has
 * (fewer than SYMPHONY_PARSE_MAX_BYTES): the mask changes nothing but
 * tells the verifier the bound, which a check against a variable does not
 */
#define SYMPHONY_HDR_OFF(off)		((off) & 0xff)
#else
#include <endian.h>		/* with glibc, also __always_inline */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#define SYMPHONY_DIV_U64_U32(n, d)	((__u64)(n) / (__u32)(d))
#define SYMPHONY_READ_ONCE(x)		(*(const volatile __typeof__(x) *)&(x))

#define SYMPHONY_LOAD_BE16(p)		symphony_get_be16(p)
#define SYMPHONY_LOAD_BE32(p)		symphony_get_be32(p)
#define SYMPHONY_OPAQUE(x)		(x)
#define SYMPHONY_HDR_OFF(off)		(off)
#endif
#include <linux/types.h>

#include <linux/pkt_sched_symphony.h>
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

/*
 * Job id 0 is no job: RoCEv2 or UEC traffic whose job field is clear
 * (untagged queue pairs, Soft-RoCE, a NIC that sets no reserved bits).
 * It parses as OTHER, so every datapath gives it RED only, and the job
 * registry never holds it (symofan job ids start at 1).
 */
#define SYMPHONY_JOB_UNTAGGED		0

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

/* A parsed RoCEv2 or UEC packet: collective, or untagged (RED only). */
static inline enum symphony_parse_result
symphony_pkt_result(const struct symphony_pkt *pkt)
{
	return pkt->job == SYMPHONY_JOB_UNTAGGED ? SYMPHONY_PARSE_OTHER :
						   SYMPHONY_PARSE_COLLECTIVE;
}

struct symphony_params {
	__u32	k_ppm;
	__u32	tau_ppm;
	__u32	warmup_psn;
	__u32	sample_min_packets;
	__u32	alpha_max;
	__u64	twin_ns;
};

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

/*
 * The BTH as the parser loads it: three big-endian 32-bit words, so that
 * a packet's fields cost three loads rather than one per byte.
 */
struct symphony_bth_words {
	__u32	opcode_pkey;		/* bytes 0-3: opcode, flags, P_Key */
	__u32	fecn_destqp;		/* bytes 4-7: FECN, BECN, rsvd, DestQP */
	__u32	ackreq_psn;		/* bytes 8-11: AckReq, rsvd, PSN */
};

static inline __u32 symphony_rocev2_field(__u8 field, __u32 udp_sport,
					  const struct symphony_bth_words *bth)
{
	switch (field) {
	case SYMPHONY_FIELD_UDP_SPORT:
		return udp_sport;
	case SYMPHONY_FIELD_BTH_RSVD:
		return (((bth->fecn_destqp >> 24) & SYMPHONY_BTH_RSVD6_MASK) << 7) |
		       ((bth->ackreq_psn >> 24) & SYMPHONY_BTH_RSVD7_MASK);
	default:
		return bth->fecn_destqp & 0xffffff;
	}
}

/* Does a RoCEv2 opcode carry data of a message, and does it end one?
 * RC (0x00-0x1f) and UC (0x20-0x3f) SEND and RDMA WRITE opcodes.
 */
/* Opcodes 0x00-0x0b of a transport: SEND and RDMA WRITE, FIRST to ONLY */
#define SYMPHONY_BTH_DATA_OPS		0x0fffU
/* ... and those that end a message: SEND LAST and ONLY, WRITE LAST and
 * ONLY, each with and without immediate data.
 */
#define SYMPHONY_BTH_LAST_OPS		0x0f3cU

static inline bool symphony_bth_is_data(__u8 opcode, bool *last)
{
	__u8 op = opcode & 0x1f;

	*last = (SYMPHONY_BTH_LAST_OPS >> op) & 1;
	return opcode < 0x40 && ((SYMPHONY_BTH_DATA_OPS >> op) & 1);
}

/* Does an IPv6 header (40 bytes at @nh) lead to extension headers? */
static inline bool symphony_ipv6_has_ext(const __u8 *nh)
{
	return nh[6] == 0 || nh[6] == 43 || nh[6] == 60;
}

/* Fills @pkt from the UDP source port and the BTH of a RoCEv2 packet. */
static __always_inline void
symphony_rocev2_fill(const struct symphony_parse_cfg *cfg, __u32 udp_sport,
		     const struct symphony_bth_words *bth, __u8 ecn, bool last,
		     struct symphony_pkt *pkt)
{
	pkt->ecn = ecn;
	pkt->job = symphony_rocev2_field(cfg->job_field, udp_sport, bth);
	pkt->step = symphony_rocev2_field(cfg->step_field, udp_sport, bth);
	pkt->step_bits = symphony_field_bits(cfg->step_field);
	pkt->psn = bth->ackreq_psn & 0xffffff;
	pkt->psn_bits = SYMPHONY_BTH_PSN_BITS;
	pkt->last = last;
}

/*
 * symphony_parse_rocev2_ipv4 - the common case of symphony_parse() in one
 * test: IPv4 without options, not a fragment, UDP to the RoCEv2 port with
 * consistent lengths, a data opcode.  Returns true, with @pkt filled as
 * symphony_parse() would, for such a packet (symphony_pkt_result() then
 * tells collective from untagged); false leaves @pkt alone and the packet
 * to symphony_parse_generic().  Its conditions are combined
 * without branches: on emulated CPUs every branch ends a translation
 * block, and this runs for every packet.
 */
static __always_inline bool
symphony_parse_rocev2_ipv4(const __u8 *nh, __u32 avail, __u32 pkt_len,
			   const struct symphony_parse_cfg *cfg,
			   struct symphony_pkt *pkt)
{
	__u32 ver_len, frag, ttl_proto, ports, udp_len, tot_len, op;
	struct symphony_bth_words bth;
	bool match;

	if (avail > pkt_len)
		avail = pkt_len;
	if (avail < 20 + 8 + SYMPHONY_BTH_LEN)
		return false;
	ver_len = SYMPHONY_LOAD_BE32(nh);		/* 0x45, DS, length */
	frag = SYMPHONY_LOAD_BE32(nh + 4);		/* id, flags, offset */
	ttl_proto = SYMPHONY_LOAD_BE32(nh + 8);	/* TTL, protocol, csum */
	ports = SYMPHONY_LOAD_BE32(nh + 20);
	udp_len = SYMPHONY_LOAD_BE16(nh + 24);
	bth.opcode_pkey = SYMPHONY_LOAD_BE32(nh + 28);
	tot_len = ver_len & 0xffff;
	op = (bth.opcode_pkey >> 24) & 0x1f;

	match = ((ver_len >> 24) == 0x45) &
		((frag & 0x3fff) == 0) &
		(((ttl_proto >> 16) & 0xff) == 17) &
		((ports & 0xffff) == SYMPHONY_UDP_PORT_ROCEV2) &
		(tot_len <= pkt_len) &
		(udp_len >= 8 + SYMPHONY_BTH_LEN) &
		(udp_len + 20 <= tot_len) &
		((bth.opcode_pkey >> 30) == 0) &
		((SYMPHONY_BTH_DATA_OPS >> op) & 1);
	if (!match)
		return false;

	bth.fecn_destqp = SYMPHONY_LOAD_BE32(nh + 32);
	bth.ackreq_psn = SYMPHONY_LOAD_BE32(nh + 36);
	symphony_rocev2_fill(cfg, ports >> 16, &bth, (ver_len >> 16) & 3,
			     (SYMPHONY_BTH_LAST_OPS >> op) & 1, pkt);
	return true;
}

/*
 * symphony_parse_generic - classify a packet from its network header on.
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
symphony_parse_generic(const __u8 *nh, __u32 avail, __u32 pkt_len, bool ipv6,
		       const struct symphony_parse_cfg *cfg,
		       struct symphony_pkt *pkt)
{
	__u32 off, l4_len, udp_ports, udp_len, dport, word0, word1;
	const __u8 *udp, *hdr;
	__u8 proto, ecn;
	bool last;

	if (avail > pkt_len)
		avail = pkt_len;

	/* Headers are read a 32-bit word at a time: one load for several
	 * fields, which matters where loads are dear (emulated CPUs).
	 */
	if (!ipv6) {
		__u32 ihl, tot_len;

		if (pkt_len < 20)
			return SYMPHONY_PARSE_MALFORMED;
		if (avail < 20)
			return SYMPHONY_PARSE_OTHER;
		word0 = SYMPHONY_LOAD_BE32(nh);	/* version, IHL, DS, length */
		word1 = SYMPHONY_LOAD_BE32(nh + 4);	/* id, flags, offset */
		ihl = ((word0 >> 24) & 0x0f) * 4;
		tot_len = word0 & 0xffff;
		if ((word0 >> 28) != 4 || ihl < 20 || tot_len < ihl ||
		    tot_len > pkt_len)
			return SYMPHONY_PARSE_MALFORMED;
		/* More-fragments flag or a fragment offset. */
		if (word1 & 0x3fff)
			return SYMPHONY_PARSE_OTHER;
		proto = nh[9];
		ecn = (word0 >> 16) & 3;
		off = ihl;
		l4_len = tot_len - ihl;
	} else {
		__u32 payload_len, hops;

		if (pkt_len < 40)
			return SYMPHONY_PARSE_MALFORMED;
		if (avail < 40)
			return SYMPHONY_PARSE_OTHER;
		word0 = SYMPHONY_LOAD_BE32(nh);	/* version, class, flow */
		word1 = SYMPHONY_LOAD_BE32(nh + 4);	/* length, next, hops */
		payload_len = word1 >> 16;
		if ((word0 >> 28) != 6 || 40 + payload_len > pkt_len)
			return SYMPHONY_PARSE_MALFORMED;
		proto = (word1 >> 8) & 0xff;
		ecn = (word0 >> 20) & 3;
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
			off = SYMPHONY_HDR_OFF(off);
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
	off = SYMPHONY_HDR_OFF(off);
	udp = nh + off;
	udp_ports = SYMPHONY_LOAD_BE32(udp);
	udp_len = SYMPHONY_LOAD_BE16(udp + 4);
	if (udp_len < 8 || udp_len > l4_len)
		return SYMPHONY_PARSE_MALFORMED;
	dport = udp_ports & 0xffff;
	hdr = udp + 8;
	off += 8;

	if (dport == SYMPHONY_UDP_PORT_ROCEV2) {
		struct symphony_bth_words bth;

		if (udp_len < 8 + SYMPHONY_BTH_LEN)
			return SYMPHONY_PARSE_MALFORMED;
		if (off + SYMPHONY_BTH_LEN > avail)
			return SYMPHONY_PARSE_OTHER;
		bth.opcode_pkey = SYMPHONY_LOAD_BE32(hdr);
		if (!symphony_bth_is_data(bth.opcode_pkey >> 24, &last))
			return SYMPHONY_PARSE_OTHER;
		bth.fecn_destqp = SYMPHONY_LOAD_BE32(hdr + 4);
		bth.ackreq_psn = SYMPHONY_LOAD_BE32(hdr + 8);
		symphony_rocev2_fill(cfg, udp_ports >> 16, &bth, ecn, last, pkt);
		return symphony_pkt_result(pkt);
	}

	if (dport == SYMPHONY_UDP_PORT_UEC) {
		const __u8 *ses = hdr + SYMPHONY_PDS_LEN;

		if (udp_len < 8 + SYMPHONY_PDS_LEN + SYMPHONY_SES_MIN_LEN)
			return SYMPHONY_PARSE_MALFORMED;
		if (off + SYMPHONY_PDS_LEN + SYMPHONY_SES_MIN_LEN > avail)
			return SYMPHONY_PARSE_OTHER;
		pkt->ecn = ecn;
		/* SES bytes 4-7: RI generation, then the 24-bit JobID */
		pkt->job = SYMPHONY_LOAD_BE32(ses + SYMPHONY_SES_JOBID - 1) &
			   0xffffff;
		pkt->step = SYMPHONY_LOAD_BE16(hdr + SYMPHONY_PDS_SPDCID);
		pkt->step_bits = 16;
		pkt->psn = SYMPHONY_LOAD_BE32(hdr + SYMPHONY_PDS_PSN);
		pkt->psn_bits = SYMPHONY_UEC_PSN_BITS;
		pkt->last = !!(ses[SYMPHONY_SES_FLAGS] & SYMPHONY_SES_FLAG_EOM);
		return symphony_pkt_result(pkt);
	}

	return SYMPHONY_PARSE_OTHER;
}

/*
 * symphony_parse - classify a packet from its network header on: the
 * fast path for IPv4 RoCEv2, else symphony_parse_generic().  Same
 * arguments and result as symphony_parse_generic().
 */
static inline enum symphony_parse_result
symphony_parse(const __u8 *nh, __u32 avail, __u32 pkt_len, bool ipv6,
	       const struct symphony_parse_cfg *cfg, struct symphony_pkt *pkt)
{
	if (!ipv6 && symphony_parse_rocev2_ipv4(nh, avail, pkt_len, cfg, pkt))
		return symphony_pkt_result(pkt);
	return symphony_parse_generic(nh, avail, pkt_len, ipv6, cfg, pkt);
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

	if (gain_ppm && ratio_q16 > SYMPHONY_OPAQUE(~0ULL / gain_ppm))
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
 * The reset handshake (symphony_map.h): a reset the agent asked for by
 * bumping reset_gen, applied by the datapath under the job's lock before
 * anything else reads the block.  State and counters go; the parameters,
 * which only the agent writes, stay.
 */
static __always_inline void symphony_job_apply_reset(struct symphony_job *job)
{
	__u32 gen = SYMPHONY_READ_ONCE(job->reset_gen);

	if (gen == job->applied_gen)
		return;
	job->step_min = 0;
	job->psn_rec = 0;
	job->alpha = 0;
	job->cnt_total = 0;
	job->cnt_op = 0;
	job->flags = 0;
	job->window_start_ns = 0;
	job->last_seen_ns = 0;
	job->packets = 0;
	job->bytes = 0;
	job->outpacing_packets = 0;
	job->symphony_marks = 0;
	job->red_marks = 0;
	job->windows = 0;
	job->applied_gen = gen;
}

/*
 * symphony_job_update - Algorithm 1 for one packet of @segs segments.
 * Returns the probability to mark it (0 for lagging packets and during
 * warm-up); *outpacing tells whether its step was ahead of step_min.
 * The caller serialises updates of one job; a reset the agent asked for
 * is applied first.
 */
static __always_inline __u32
symphony_job_update(struct symphony_job *job, const struct symphony_pkt *pkt,
		    const struct symphony_params *params, __u64 now_ns,
		    __u32 segs, bool *outpacing)
{
	__u8 sb = pkt->step_bits, pb = pkt->psn_bits;
	__u32 psn_rec, warmup;

	symphony_job_apply_reset(job);
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

	/* Read once: the value checked here against warm-up must be the
	 * divisor of symphony_mark_prob().
	 */
	psn_rec = SYMPHONY_READ_ONCE(job->psn_rec);
	warmup = SYMPHONY_JOB_PARAM(job, params, warmup_psn);
	if (!symphony_before(job->step_min, pkt->step, sb) || psn_rec <= warmup)
		return 0;
	return symphony_mark_prob(SYMPHONY_JOB_PARAM(job, params, k_ppm),
				  job->alpha, pkt->psn, psn_rec);
}

/*
 * symphony_job_count - a job's counters for one packet of @segs segments
 * and @len bytes that symphony_job_update() saw, with the marks it leaves
 * with: @red_mark and @symphony_mark count only when it can carry them
 * (@markable: ECN-capable with a writable IP header).  Under the same
 * serialisation as symphony_job_update().
 */
static __always_inline void
symphony_job_count(struct symphony_job *job, __u32 segs, __u32 len,
		   bool outpacing, bool markable, bool red_mark,
		   bool symphony_mark)
{
	job->packets += segs;
	job->bytes += len;
	if (outpacing)
		job->outpacing_packets += segs;
	if (markable && red_mark)
		job->red_marks += segs;
	if (markable && symphony_mark)
		job->symphony_marks += segs;
}

#endif /* _SYMPHONY_CORE_H */
