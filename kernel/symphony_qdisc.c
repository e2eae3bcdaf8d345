// SPDX-License-Identifier: GPL-2.0
/*
 * symphony_qdisc.c - sch_symphony, step-aware ECN for ring collectives.
 *
 * Principles:
 * The steps of a ring collective (AllReduce, AllGather, ...) are coupled:
 * step k+1 of a rank starts when its predecessor's step k arrived, so the
 * collective runs at the pace of its slowest flow.  Flows of steps that
 * run ahead only take bandwidth from the lagging ones.  Symphony tracks,
 * per training job, the lowest step in flight (step_min) and that step's
 * progress (psn_rec, a windowed max of its PSNs), and ECN-marks packets of
 * outpacing steps with probability min(1, k * alpha * psn / psn_rec),
 * where alpha grows while outpacing traffic persists (more than tau of a
 * window's packets).  The senders' own congestion control (DCQCN) then
 * slows the outpacing flows and the lagging ones catch up.  Lagging
 * packets are never marked by Symphony.  The decision is OR-ed with
 * ordinary RED marking on the instantaneous backlog, taken at dequeue as a
 * switch's egress does.  (Jin et al., "Symphony", 2026; Algorithm 1.)
 *
 * Packets RED would mark but cannot (not ECN-capable, or an IP header
 * outside the linear head) are dropped at enqueue under "nonect drop", on
 * the backlog they join, as sch_red does: dequeue never drops, so the
 * parents' qlen and backlog are never left waiting for a report.
 *
 * A GSO packet is accounted segment by segment: each segment's own BTH (or
 * PDS/SES) header runs Algorithm 1, so a LAST in any segment advances
 * step_min.  Its segments share one IP header: it carries CE on all of them
 * when RED's toss or any segment's Symphony toss marks it.
 *
 * The queue is a FIFO bounded in packets and bytes, usable as root qdisc
 * and as the leaf of classful qdiscs (HTB, TBF).  Job state lives in a
 * table of the qdisc's own or in a BPF array map shared with the agent
 * and with other ports' qdiscs (symphony_jobs.c).  The windows of
 * Algorithm 1 roll every T_win on a clock that an hrtimer advances while
 * packets flow (symphony_tick.c), as a switch resets its window
 * registers periodically.
 *
 * Its parameters, their units, ranges and defaults are the table in
 * include/symphony/symphony_params.h, from which the netlink policy below
 * is generated; jobs_fd hands over a jobs map (-1: back to the own table).
 *
 * One file holds the qdisc's operations, as upstream's sch_*.c do (about
 * 950 lines); the job tables and the window clock are files of their own.
 */

#include <linux/module.h>
#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/skbuff.h>
#include <linux/prandom.h>
#include <linux/random.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <net/inet_ecn.h>
#include <net/netlink.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>

#include "symphony/symphony_core.h"
#include "symphony/symphony_params.h"
#include "symphony_compat.h"
#include "symphony_jobs.h"
#include "symphony_tick.h"

/* What the parser learnt of a dequeued packet. */
enum symphony_kind {
	SYMPHONY_KIND_OTHER,
	SYMPHONY_KIND_MALFORMED,
	SYMPHONY_KIND_COLLECTIVE,
};

struct symphony_config {
	u32	limit;			/* packets */
	u32	limit_bytes;		/* bytes, 0: none */
	u32	kmin;			/* bytes */
	u32	kmax;			/* bytes */
	u32	qmin;			/* bytes: Symphony marks from here */
	u32	pmax_ppm;
	u32	red_pmax_q32;		/* pmax_ppm as a Q32 fraction */
	u8	nonect;			/* enum symphony_nonect */
	u8	marking;		/* enum symphony_marking */
	u32	jobs_own;		/* slots of the own table */
	struct symphony_parse_cfg	parse;
	struct symphony_params		params;
};

struct symphony_sched_data {
	struct symphony_config	cfg;
	struct symphony_jobs	*jobs;
	struct symphony_tick	tick;		/* the T_win clock */
	struct rnd_state	rnd;

	struct tc_symphony_xstats stats;
};

/*
 * Counters the datapath bumps under the qdisc lock and dumps read without
 * it: single-copy stores, read with READ_ONCE() in symphony_dump_stats().
 */
#define symphony_stat_add(q, field, n)				\
	WRITE_ONCE((q)->stats.field, (q)->stats.field + (n))

static u32 symphony_segs(const struct sk_buff *skb)
{
	return skb_is_gso(skb) ? skb_shinfo(skb)->gso_segs : 1;
}

/* Backlog in bytes with @len more, saturated rather than wrapped. */
static u32 symphony_backlog_with(const struct Qdisc *sch, u32 len)
{
	return min_t(u64, (u64)sch->qstats.backlog + len, U32_MAX);
}

/*
 * Whether a parse of the first @avail bytes that found no collective
 * packet should read more: IPv6 extension headers may push the transport
 * headers further.
 */
static bool symphony_parse_wants_more(enum symphony_parse_result ret,
				      bool ipv6, u32 avail, u32 pkt_len,
				      const u8 *nh)
{
	return ret == SYMPHONY_PARSE_OTHER && ipv6 && avail < pkt_len &&
	       avail < SYMPHONY_PARSE_MAX_BYTES && symphony_ipv6_has_ext(nh);
}

/*
 * The slow path of symphony_classify(): parse @avail bytes from the
 * network header on, copied out of the fragments where the linear head
 * falls short, and more of them when IPv6 extension headers push the
 * transport headers further.  Apart from the fast path so that only this
 * path's stack holds a copy buffer (which CONFIG_INIT_STACK_ALL_ZERO would
 * clear for every packet).
 */
static noinline enum symphony_parse_result
symphony_parse_copy(const struct sk_buff *skb, int noff, u32 avail,
		    u32 pkt_len, bool ipv6, const struct symphony_parse_cfg *cfg,
		    struct symphony_pkt *pkt)
{
	u8 buf[SYMPHONY_PARSE_MAX_BYTES];
	enum symphony_parse_result ret;
	const u8 *nh;

	nh = skb_header_pointer(skb, noff, avail, buf);
	if (!nh)
		return SYMPHONY_PARSE_MALFORMED;
	ret = symphony_parse(nh, avail, pkt_len, ipv6, cfg, pkt);
	if (symphony_parse_wants_more(ret, ipv6, avail, pkt_len, nh)) {
		avail = min_t(u32, pkt_len, sizeof(buf));
		nh = skb_header_pointer(skb, noff, avail, buf);
		if (!nh)
			return SYMPHONY_PARSE_MALFORMED;
		ret = symphony_parse(nh, avail, pkt_len, ipv6, cfg, pkt);
	}
	return ret;
}

/*
 * Find job, step and PSN; fragments and non-IP packets are OTHER.  For
 * collective packets *@ipv6 tells the IP version.
 */
static enum symphony_kind symphony_classify(struct Qdisc *sch,
					    struct sk_buff *skb,
					    struct symphony_pkt *pkt,
					    bool *ipv6)
{
	const struct symphony_sched_data *q = qdisc_priv(sch);
	const struct symphony_parse_cfg *cfg = &q->cfg.parse;
	int noff = skb_network_offset(skb);
	enum symphony_parse_result ret;
	u32 pkt_len, avail, linear;
	const u8 *nh;

	switch (skb_protocol(skb, true)) {
	case htons(ETH_P_IP):
		*ipv6 = false;
		break;
	case htons(ETH_P_IPV6):
		*ipv6 = true;
		break;
	default:
		return SYMPHONY_KIND_OTHER;
	}
	if (noff < 0 || skb->len <= noff)
		return SYMPHONY_KIND_MALFORMED;

	/* Most packets are classified from their first bytes, in place in
	 * the linear head: IPv4 RoCEv2 by the parser's fast path, inline,
	 * the rest by the generic parser.  A head shorter than that often
	 * still holds all the headers (drivers and stacks that pull exactly
	 * them): parse it first, and copy only when it falls short.
	 */
	pkt_len = skb->len - noff;
	linear = skb_headlen(skb) > noff ? skb_headlen(skb) - noff : 0;
	nh = skb->data + noff;
	if (!*ipv6 &&
	    symphony_parse_rocev2_ipv4(nh, linear, pkt_len, cfg, pkt)) {
		ret = symphony_pkt_result(pkt);
		goto out;
	}

	avail = min_t(u32, pkt_len, SYMPHONY_PARSE_FIRST_BYTES);
	if (linear >= avail) {
		ret = symphony_parse_generic(nh, avail, pkt_len, *ipv6, cfg, pkt);
		if (!symphony_parse_wants_more(ret, *ipv6, avail, pkt_len, nh))
			goto out;
		avail = min_t(u32, pkt_len, SYMPHONY_PARSE_MAX_BYTES);
	} else if (linear) {
		ret = symphony_parse_generic(nh, linear, pkt_len, *ipv6, cfg,
					     pkt);
		if (ret != SYMPHONY_PARSE_OTHER)
			goto out;
	}
	ret = symphony_parse_copy(skb, noff, avail, pkt_len, *ipv6, cfg, pkt);
out:
	switch (ret) {
	case SYMPHONY_PARSE_COLLECTIVE:
		return SYMPHONY_KIND_COLLECTIVE;
	case SYMPHONY_PARSE_MALFORMED:
		return SYMPHONY_KIND_MALFORMED;
	default:
		return SYMPHONY_KIND_OTHER;
	}
}

static bool symphony_toss(struct symphony_sched_data *q, u32 prob_q32)
{
	if (!prob_q32)
		return false;
	if (prob_q32 == SYMPHONY_PROB_ALWAYS)
		return true;
	return symphony_coin(prob_q32, prandom_u32_state(&q->rnd));
}

/*
 * Algorithm 1 for one packet (or GSO segment) of @job and its accounting,
 * with the marks it will carry (@markable: ECN-capable with a writable IP
 * header; @red: RED marks it).  Returns whether Symphony marks it (never
 * when !@may_mark: the backlog is below qmin); *outpacing tells whether
 * its step ran ahead.  The caller serialises the job's updates.
 */
static __always_inline bool
symphony_job_account(struct symphony_sched_data *q, struct symphony_job *job,
		     const struct symphony_pkt *pkt, u64 now_ns, u32 segs,
		     u32 len, bool markable, bool red, bool may_mark,
		     bool *outpacing)
{
	bool mark;
	u32 prob;

	prob = symphony_job_update(job, pkt, &q->cfg.params, now_ns, segs,
				   outpacing);
	mark = may_mark && symphony_toss(q, prob);
	symphony_job_count(job, segs, len, *outpacing, markable, red, mark);
	return mark;
}

/*
 * The headers of segment @seg of a UDP GSO packet, as the parser would see
 * the segment on the wire: the packet's network and UDP headers (whose
 * lengths the first segment's parse accepted) followed by the start of
 * the segment's payload, copied into @buf.  Returns the bytes in @buf, or
 * 0 when the segment cannot be read.
 */
static u32 symphony_gso_segment_headers(const struct sk_buff *skb, int noff,
					u32 seg, u8 *buf)
{
	u32 hdr_len, pay_off, pay_len, seg_size = skb_shinfo(skb)->gso_size;

	if (skb_transport_offset(skb) <= noff)
		return 0;
	hdr_len = skb_transport_offset(skb) + sizeof(struct udphdr) - noff;
	if (hdr_len >= SYMPHONY_PARSE_MAX_BYTES ||
	    skb_copy_bits(skb, noff, buf, hdr_len))
		return 0;
	pay_off = noff + hdr_len + seg * seg_size;
	if (pay_off >= skb->len)
		return 0;
	pay_len = min3(seg_size, skb->len - pay_off,
		       SYMPHONY_PARSE_MAX_BYTES - hdr_len);
	if (skb_copy_bits(skb, pay_off, buf + hdr_len, pay_len))
		return 0;
	return hdr_len + pay_len;
}

/* A packet's (or segment's) job had no slot: it stays unclassified. */
#define SYMPHONY_NO_JOB		-1

/*
 * Algorithm 1 for @pkt, @segs segments of @len bytes, under the job's lock
 * where other qdiscs share the jobs map.  Returns whether Symphony marks
 * it, or SYMPHONY_NO_JOB; *outpacing tells whether its step ran ahead.
 */
static int symphony_job_step(struct symphony_sched_data *q,
			     const struct symphony_pkt *pkt, u64 now_ns,
			     u32 segs, u32 len, bool markable, bool red,
			     bool may_mark, bool *outpacing)
{
	struct symphony_job *job = symphony_jobs_slot(q->jobs, pkt->job);
	spinlock_t *lock;
	bool mark;

	if (!job)
		return SYMPHONY_NO_JOB;
	if (!symphony_jobs_shared(q->jobs))
		/* our own table: only our dequeue, under the qdisc lock */
		return symphony_job_account(q, job, pkt, now_ns, segs, len,
					    markable, red, may_mark, outpacing);

	/* a jobs map: other qdiscs, on other CPUs, update it too */
	lock = symphony_job_lock(job);
	spin_lock(lock);
	mark = symphony_job_account(q, job, pkt, now_ns, segs, len, markable,
				    red, may_mark, outpacing);
	spin_unlock(lock);
	return mark;
}

/*
 * A UDP GSO packet, segment by segment: each segment's own BTH (or PDS/SES)
 * header runs Algorithm 1, so that a LAST in a later segment is seen.
 * @pkt is the first segment's.  Apart from the common path so that only
 * GSO packets pay for the copy buffer on the stack.
 */
static noinline bool
symphony_step_decision_gso(struct symphony_sched_data *q, struct sk_buff *skb,
			   const struct symphony_pkt *pkt, bool ipv6,
			   u64 now_ns, bool markable, bool red, bool may_mark)
{
	u32 segs = skb_shinfo(skb)->gso_segs, len = qdisc_pkt_len(skb) / segs;
	int noff = skb_network_offset(skb), ret;
	u32 seg, outpacing_segs = 0, unknown_segs = 0;
	struct symphony_pkt seg_pkt = *pkt;
	u8 buf[SYMPHONY_PARSE_MAX_BYTES];
	bool outpacing, mark = false;

	for (seg = 0; seg < segs; seg++) {
		if (seg) {
			u32 avail = symphony_gso_segment_headers(skb, noff,
								 seg, buf);

			if (!avail ||
			    symphony_parse(buf, avail, skb->len - noff, ipv6,
					   &q->cfg.parse, &seg_pkt) !=
			    SYMPHONY_PARSE_COLLECTIVE) {
				unknown_segs++;
				continue;
			}
		}
		ret = symphony_job_step(q, &seg_pkt, now_ns, 1, len, markable,
					red, may_mark, &outpacing);
		if (ret == SYMPHONY_NO_JOB) {
			unknown_segs++;
			continue;
		}
		mark |= ret;
		outpacing_segs += outpacing;
	}

	symphony_stat_add(q, collective_packets, segs - unknown_segs);
	if (unknown_segs)
		symphony_stat_add(q, unclassified_packets, unknown_segs);
	if (outpacing_segs)
		symphony_stat_add(q, outpacing_packets, outpacing_segs);
	return mark;
}

/*
 * Run Algorithm 1 for a dequeued collective packet and account it to its
 * job.  Returns whether Symphony marks it.  @backlog: bytes, as RED sees
 * it; below qmin the job's state advances but nothing is marked.
 */
static bool symphony_step_decision(struct symphony_sched_data *q,
				   struct sk_buff *skb,
				   const struct symphony_pkt *pkt, bool ipv6,
				   u32 backlog, bool markable, bool red)
{
	u32 segs = symphony_segs(skb);
	bool outpacing, may_mark = backlog >= q->cfg.qmin;
	u64 now_ns;
	int ret;

	/* The start of the current T_win period (symphony_tick.h): one load
	 * rather than a clock read.  Qdiscs sharing a jobs map publish the
	 * same multiples of T_win; one a little behind another is no roll.
	 */
	now_ns = symphony_tick_now(&q->tick);
	if (segs > 1 && (skb_shinfo(skb)->gso_type & SKB_GSO_UDP_L4))
		return symphony_step_decision_gso(q, skb, pkt, ipv6, now_ns,
						  markable, red, may_mark);

	ret = symphony_job_step(q, pkt, now_ns, segs, qdisc_pkt_len(skb),
				markable, red, may_mark, &outpacing);
	if (ret == SYMPHONY_NO_JOB) {
		symphony_stat_add(q, unclassified_packets, segs);
		return false;
	}
	symphony_stat_add(q, collective_packets, segs);
	if (outpacing)
		symphony_stat_add(q, outpacing_packets, segs);
	return ret;
}

/* Whether the IP header lies in the linear head, where CE can be set. */
static bool symphony_ip_header_linear(const struct sk_buff *skb, bool ipv6)
{
	return skb_network_header(skb) + (ipv6 ? sizeof(struct ipv6hdr) :
					  sizeof(struct iphdr)) <=
	       skb_tail_pointer(skb);
}

/*
 * The ECN field of a packet whose IP header can be rewritten in place, as
 * INET_ECN_set_ce() needs; not ECT for non-IP packets and for IP headers
 * outside the linear head, which cannot be marked.
 */
static u8 symphony_skb_ecn(struct sk_buff *skb)
{
	switch (skb_protocol(skb, true)) {
	case htons(ETH_P_IP):
		if (symphony_ip_header_linear(skb, false))
			return ipv4_get_dsfield(ip_hdr(skb)) & INET_ECN_MASK;
		break;
	case htons(ETH_P_IPV6):
		if (symphony_ip_header_linear(skb, true))
			return ipv6_get_dsfield(ipv6_hdr(skb)) & INET_ECN_MASK;
		break;
	}
	return INET_ECN_NOT_ECT;
}

static int symphony_enqueue(struct sk_buff *skb, struct Qdisc *sch,
			    struct sk_buff **to_free)
{
	struct symphony_sched_data *q = qdisc_priv(sch);
	u32 backlog = symphony_backlog_with(sch, qdisc_pkt_len(skb));
	u32 prob;

	if (unlikely(sch->q.qlen >= q->cfg.limit ||
		     (q->cfg.limit_bytes && backlog > q->cfg.limit_bytes))) {
		symphony_stat_add(q, limit_drops, 1);
		return symphony_qdisc_drop(skb, sch, to_free, false);
	}

	/* RED's verdict on a packet it could not mark, taken on the backlog
	 * the packet joins: dropped here rather than at dequeue, as sch_red
	 * does, so that no parent ever holds a count of ours that we have
	 * not reported.  Markable packets are marked at dequeue.
	 */
	prob = symphony_red_prob_q32(q->cfg.kmin, q->cfg.kmax,
				     q->cfg.red_pmax_q32, backlog);
	if (prob && q->cfg.nonect == SYMPHONY_NONECT_DROP &&
	    symphony_skb_ecn(skb) == INET_ECN_NOT_ECT && symphony_toss(q, prob)) {
		symphony_stat_add(q, red_drops, 1);
		return symphony_qdisc_drop(skb, sch, to_free, true);
	}

	qdisc_enqueue_tail(skb, sch);
	if (sch->q.qlen > q->stats.max_backlog_packets)
		WRITE_ONCE(q->stats.max_backlog_packets, sch->q.qlen);
	if (sch->qstats.backlog > q->stats.max_backlog_bytes)
		WRITE_ONCE(q->stats.max_backlog_bytes, sch->qstats.backlog);
	return NET_XMIT_SUCCESS;
}

/*
 * Mark and account dequeued @skb: RED on the backlog it leaves behind,
 * Symphony (Algorithm 1) for collective traffic.  Marks are counted when
 * they are applied: a packet that cannot carry CE (not ECN-capable, or
 * its IP header outside the linear head) passes unmarked, and under
 * "nonect drop" RED dropped it at enqueue already.  Apart from
 * symphony_dequeue() so that the call that finds the queue empty, one per
 * burst, does not set up this function's frame.
 */
static noinline void symphony_dequeue_mark(struct Qdisc *sch,
					   struct sk_buff *skb)
{
	struct symphony_sched_data *q = qdisc_priv(sch);
	u32 segs = symphony_segs(skb);
	/* The backlog the packet leaves behind it, plus itself. */
	u32 backlog = symphony_backlog_with(sch, qdisc_pkt_len(skb));
	int markable = -1;	/* not looked at yet */
	struct symphony_pkt pkt;
	bool red, sym = false;
	bool ipv6;

	red = symphony_toss(q, symphony_red_prob_q32(q->cfg.kmin, q->cfg.kmax,
						     q->cfg.red_pmax_q32,
						     backlog));

	/* Classified here, as a switch's egress pipeline would, rather than
	 * at enqueue: the packet's headers are read once, and what the
	 * parser learnt need not be kept with the packet meanwhile.
	 */
	if (q->cfg.marking == SYMPHONY_MARKING_SYMPHONY) {
		switch (symphony_classify(sch, skb, &pkt, &ipv6)) {
		case SYMPHONY_KIND_COLLECTIVE:
			markable = pkt.ecn != INET_ECN_NOT_ECT &&
				   symphony_ip_header_linear(skb, ipv6);
			sym = symphony_step_decision(q, skb, &pkt, ipv6,
						     backlog, markable, red);
			break;
		case SYMPHONY_KIND_MALFORMED:
			symphony_stat_add(q, malformed_packets, segs);
			fallthrough;
		case SYMPHONY_KIND_OTHER:
			symphony_stat_add(q, unclassified_packets, segs);
			break;
		}
	}

	if (markable < 0 && red)
		markable = symphony_skb_ecn(skb) != INET_ECN_NOT_ECT;
	if ((red || sym) && markable > 0 && INET_ECN_set_ce(skb)) {
		if (red)
			symphony_stat_add(q, red_marks, segs);
		if (sym)
			symphony_stat_add(q, symphony_marks, segs);
	}

	/* Basic stats count only what leaves; they are also the xstats'
	 * packets and bytes.
	 */
	qdisc_bstats_update(sch, skb);
}

static struct sk_buff *symphony_dequeue(struct Qdisc *sch)
{
	struct sk_buff *skb;

	skb = __qdisc_dequeue_head(&sch->q);
	if (!skb)
		return NULL;
	qdisc_qstats_backlog_dec(sch, skb);
	symphony_dequeue_mark(sch, skb);
	return skb;
}

/* netlink */

/*
 * The policy is generated from the parameter table (symphony_params.h):
 * each u32 attribute's range (too wide for a policy's s16 bounds, so in a
 * netlink_range_validation, one per attribute), each enum's largest value.
 */
#define SYMPHONY_RANGE(id, kw, json, kind, unit, lo, hi, dflt, flags,	\
		       names, help)					\
	[TCA_SYMPHONY_##id] = { .min = (lo), .max = (hi) },
static struct netlink_range_validation symphony_ranges[TCA_SYMPHONY_MAX + 1] = {
	SYMPHONY_PARAMS(SYMPHONY_RANGE)
};

#define SYMPHONY_POLICY_RANGE(id, max)					\
	NLA_POLICY_FULL_RANGE(NLA_U32, &symphony_ranges[TCA_SYMPHONY_##id])
#define SYMPHONY_POLICY_PACKETS		SYMPHONY_POLICY_RANGE
#define SYMPHONY_POLICY_COUNT		SYMPHONY_POLICY_RANGE
#define SYMPHONY_POLICY_BYTES		SYMPHONY_POLICY_RANGE
#define SYMPHONY_POLICY_PPM		SYMPHONY_POLICY_RANGE
#define SYMPHONY_POLICY_US		SYMPHONY_POLICY_RANGE
#define SYMPHONY_POLICY_ENUM(id, max)	NLA_POLICY_MAX(NLA_U8, max)
#define SYMPHONY_POLICY(id, kw, json, kind, unit, min, max, dflt, flags,	\
			names, help)					\
	[TCA_SYMPHONY_##id] = SYMPHONY_POLICY_##kind(id, max),

/* Every attribute's type and valid range: a policy dump shows them. */
static const struct nla_policy symphony_policy[TCA_SYMPHONY_MAX + 1] = {
	SYMPHONY_PARAMS(SYMPHONY_POLICY)
	[TCA_SYMPHONY_JOBS_FD]		= { .type = NLA_S32 },
	[TCA_SYMPHONY_JOBS_MAP_ID]	= {
		.type = NLA_REJECT,
		.reject_message = "sch_symphony: jobs_map_id is read-only: pass jobs_fd",
	},
};

/*
 * What the user reads when the policy refuses an attribute's value: the
 * parameter's name, its range and unit, in tc's words.
 */
#define SYMPHONY_RANGE_MSG(id, kw, json, kind, unit, min, max, dflt,	\
			   flags, names, help)				\
	[TCA_SYMPHONY_##id] = "sch_symphony: "				\
		SYMPHONY_RANGE_TEXT(id, kw, json, kind, unit, min, max,	\
				    dflt, flags, names, help),
static const char *const symphony_range_msgs[TCA_SYMPHONY_MAX + 1] = {
	SYMPHONY_PARAMS(SYMPHONY_RANGE_MSG)
};

/*
 * Parse @opt with the policy.  A value out of its range is refused by the
 * policy, whose message names no parameter: say which one, and its value.
 */
static int symphony_parse_opt(struct nlattr **tb, struct nlattr *opt,
			      struct netlink_ext_ack *extack)
{
	const struct nlattr *bad;
	int err, type;

	err = nla_parse_nested(tb, TCA_SYMPHONY_MAX, opt, symphony_policy,
			       extack);
	if (err != -ERANGE || !extack || !extack->bad_attr)
		return err;
	bad = extack->bad_attr;
	type = nla_type(bad);
	if (type > TCA_SYMPHONY_MAX || !symphony_range_msgs[type])
		return err;
	symphony_reject_value(extack, bad, symphony_range_msgs[type],
			      symphony_policy[type].type == NLA_U8 ?
			      nla_get_u8(bad) : nla_get_u32(bad));
	/* The ack still reports the attribute's policy, with its range. */
	extack->policy = &symphony_policy[type];
	return err;
}

/* Fill @cfg from the attributes, whose ranges the policy checked. */
static int symphony_config_parse(struct nlattr **tb, struct symphony_config *cfg,
				 struct netlink_ext_ack *extack)
{
	if (tb[TCA_SYMPHONY_LIMIT])
		cfg->limit = nla_get_u32(tb[TCA_SYMPHONY_LIMIT]);
	if (tb[TCA_SYMPHONY_LIMIT_BYTES])
		cfg->limit_bytes = nla_get_u32(tb[TCA_SYMPHONY_LIMIT_BYTES]);
	if (tb[TCA_SYMPHONY_KMIN])
		cfg->kmin = nla_get_u32(tb[TCA_SYMPHONY_KMIN]);
	if (tb[TCA_SYMPHONY_KMAX])
		cfg->kmax = nla_get_u32(tb[TCA_SYMPHONY_KMAX]);
	if (tb[TCA_SYMPHONY_QMIN])
		cfg->qmin = nla_get_u32(tb[TCA_SYMPHONY_QMIN]);
	if (tb[TCA_SYMPHONY_PMAX])
		cfg->pmax_ppm = nla_get_u32(tb[TCA_SYMPHONY_PMAX]);
	if (tb[TCA_SYMPHONY_NONECT])
		cfg->nonect = nla_get_u8(tb[TCA_SYMPHONY_NONECT]);
	if (tb[TCA_SYMPHONY_MARKING])
		cfg->marking = nla_get_u8(tb[TCA_SYMPHONY_MARKING]);
	if (tb[TCA_SYMPHONY_K])
		cfg->params.k_ppm = nla_get_u32(tb[TCA_SYMPHONY_K]);
	if (tb[TCA_SYMPHONY_TAU])
		cfg->params.tau_ppm = nla_get_u32(tb[TCA_SYMPHONY_TAU]);
	if (tb[TCA_SYMPHONY_TWIN])
		cfg->params.twin_ns = (u64)nla_get_u32(tb[TCA_SYMPHONY_TWIN]) *
				      NSEC_PER_USEC;
	if (tb[TCA_SYMPHONY_WARMUP])
		cfg->params.warmup_psn = nla_get_u32(tb[TCA_SYMPHONY_WARMUP]);
	if (tb[TCA_SYMPHONY_SAMPLES])
		cfg->params.sample_min_packets =
			nla_get_u32(tb[TCA_SYMPHONY_SAMPLES]);
	if (tb[TCA_SYMPHONY_ALPHA_MAX])
		cfg->params.alpha_max = nla_get_u32(tb[TCA_SYMPHONY_ALPHA_MAX]);
	if (tb[TCA_SYMPHONY_JOB_FIELD])
		cfg->parse.job_field = nla_get_u8(tb[TCA_SYMPHONY_JOB_FIELD]);
	if (tb[TCA_SYMPHONY_STEP_FIELD])
		cfg->parse.step_field = nla_get_u8(tb[TCA_SYMPHONY_STEP_FIELD]);
	if (tb[TCA_SYMPHONY_JOBS])
		cfg->jobs_own = nla_get_u32(tb[TCA_SYMPHONY_JOBS]);

	if (cfg->kmin > cfg->kmax) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_SYMPHONY_KMIN] ?:
				    tb[TCA_SYMPHONY_KMAX],
				    "sch_symphony: kmin must not exceed kmax");
		return -EINVAL;
	}
	cfg->red_pmax_q32 = symphony_red_pmax_q32(cfg->pmax_ppm);
	return 0;
}

/*
 * The job table a change asks for: a map (jobs_fd >= 0), the own table
 * again (jobs_fd -1) or resized (jobs), or NULL when the current one stays.
 */
static struct symphony_jobs *
symphony_jobs_for_change(const struct symphony_jobs *cur, struct nlattr **tb,
			 const struct symphony_config *cfg,
			 struct netlink_ext_ack *extack)
{
	struct nlattr *fd_attr = tb[TCA_SYMPHONY_JOBS_FD];
	int fd = fd_attr ? nla_get_s32(fd_attr) : -1;

	if (fd_attr && fd < -1) {
		symphony_reject_value(extack, fd_attr,
				      "sch_symphony: jobs_fd must be a file descriptor or -1",
				      fd);
		return ERR_PTR(-EINVAL);
	}
	if (fd >= 0) {
		if (tb[TCA_SYMPHONY_JOBS]) {
			NL_SET_ERR_MSG_ATTR(extack, tb[TCA_SYMPHONY_JOBS],
					    "sch_symphony: jobs sizes the own table: not with a jobs map");
			return ERR_PTR(-EINVAL);
		}
		return symphony_jobs_create_map(fd, fd_attr, extack);
	}
	if (cur && cur->map && !fd_attr) {
		if (tb[TCA_SYMPHONY_JOBS]) {
			NL_SET_ERR_MSG_ATTR(extack, tb[TCA_SYMPHONY_JOBS],
					    "sch_symphony: a jobs map is in use: detach it (jobs_map none) to size the own table");
			return ERR_PTR(-EINVAL);
		}
		return NULL;
	}
	if (cur && cur->own && cur->nr == cfg->jobs_own)
		return NULL;
	return symphony_jobs_create_own(cfg->jobs_own, extack);
}

/*
 * Take the head of the queue out of it, accounted: a packet a parent has
 * peeked (qdisc_peek_dequeued()) or the driver requeued waits in
 * sch->gso_skb, counted in qlen and backlog but not in the list.
 */
static struct sk_buff *symphony_dequeue_head(struct Qdisc *sch)
{
	struct sk_buff *skb = __skb_dequeue(&sch->gso_skb);

	if (skb) {
		/* qlen is read locklessly (qdisc_is_empty()): 7.x's
		 * qdisc_qlen_dec(), spelled out for older kernels
		 */
		WRITE_ONCE(sch->q.qlen, sch->q.qlen - 1);
	} else {
		skb = __qdisc_dequeue_head(&sch->q);
		if (!skb)
			return NULL;
	}
	qdisc_qstats_backlog_dec(sch, skb);
	return skb;
}

static int symphony_change(struct Qdisc *sch, struct nlattr *opt,
			   struct netlink_ext_ack *extack)
{
	struct symphony_sched_data *q = qdisc_priv(sch);
	struct nlattr *tb[TCA_SYMPHONY_MAX + 1] = {};
	struct symphony_jobs *jobs, *old_jobs = NULL;
	unsigned int dropped_packets = 0, dropped_bytes = 0;
	struct symphony_config cfg = q->cfg;
	bool twin_changed;
	int err;

	if (opt) {
		err = symphony_parse_opt(tb, opt, extack);
		if (err < 0)
			return err;
	}
	err = symphony_config_parse(tb, &cfg, extack);
	if (err)
		return err;

	/* Everything that can fail is done: nothing has changed so far. */
	jobs = symphony_jobs_for_change(q->jobs, tb, &cfg, extack);
	if (IS_ERR(jobs))
		return PTR_ERR(jobs);

	twin_changed = cfg.params.twin_ns != q->cfg.params.twin_ns;

	sch_tree_lock(sch);

	q->cfg = cfg;
	if (jobs) {
		old_jobs = q->jobs;
		q->jobs = jobs;
	}

	/* A lower limit takes effect at once: trim the queue's head, which
	 * may be a packet a parent has peeked (or the driver requeued).
	 */
	while (sch->q.qlen > q->cfg.limit ||
	       (q->cfg.limit_bytes && sch->qstats.backlog > q->cfg.limit_bytes)) {
		struct sk_buff *skb = symphony_dequeue_head(sch);

		if (WARN_ON_ONCE(!skb))
			break;
		dropped_packets++;
		dropped_bytes += qdisc_pkt_len(skb);
		symphony_stat_add(q, limit_drops, 1);
		rtnl_qdisc_drop(skb, sch);
	}
	qdisc_tree_reduce_backlog(sch, dropped_packets, dropped_bytes);

	sch_tree_unlock(sch);

	/* A new T_win applies from now, not from the old period's end. */
	if (twin_changed)
		symphony_tick_restart(&q->tick, cfg.params.twin_ns);

	/* The datapath runs under the lock we held: nobody uses it now. */
	symphony_jobs_destroy(old_jobs);
	return 0;
}

static int symphony_init(struct Qdisc *sch, struct nlattr *opt,
			 struct netlink_ext_ack *extack)
{
	struct symphony_sched_data *q = qdisc_priv(sch);

	q->cfg = (struct symphony_config) {
		.limit		= SYMPHONY_LIMIT_DEFAULT,
		.limit_bytes	= SYMPHONY_LIMIT_BYTES_DEFAULT,
		.kmin		= SYMPHONY_KMIN_DEFAULT,
		.kmax		= SYMPHONY_KMAX_DEFAULT,
		.qmin		= SYMPHONY_QMIN_DEFAULT,
		.pmax_ppm	= SYMPHONY_PMAX_DEFAULT,
		.nonect		= SYMPHONY_NONECT_DEFAULT,
		.marking	= SYMPHONY_MARKING_DEFAULT,
		.jobs_own	= SYMPHONY_JOBS_DEFAULT,
		.parse = {
			.job_field	= SYMPHONY_JOB_FIELD_DEFAULT,
			.step_field	= SYMPHONY_STEP_FIELD_DEFAULT,
		},
		.params = {
			.k_ppm		= SYMPHONY_K_DEFAULT,
			.tau_ppm	= SYMPHONY_TAU_DEFAULT,
			.warmup_psn	= SYMPHONY_WARMUP_DEFAULT,
			.sample_min_packets = SYMPHONY_SAMPLES_DEFAULT,
			.alpha_max	= SYMPHONY_ALPHA_MAX_DEFAULT,
			.twin_ns	= SYMPHONY_TWIN_DEFAULT *
					  NSEC_PER_USEC,
		},
	};
	prandom_seed_state(&q->rnd, get_random_u64());
	symphony_tick_init(&q->tick, q->cfg.params.twin_ns);
	return symphony_change(sch, opt, extack);
}

static void symphony_destroy(struct Qdisc *sch)
{
	struct symphony_sched_data *q = qdisc_priv(sch);

	symphony_tick_cancel(&q->tick);
	symphony_jobs_destroy(q->jobs);
	q->jobs = NULL;
}

static int symphony_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct symphony_sched_data *q = qdisc_priv(sch);
	const struct symphony_config *cfg = &q->cfg;
	struct nlattr *opts;

	opts = nla_nest_start(skb, TCA_OPTIONS);
	if (!opts)
		goto nla_put_failure;

	if (nla_put_u32(skb, TCA_SYMPHONY_LIMIT, cfg->limit) ||
	    nla_put_u32(skb, TCA_SYMPHONY_LIMIT_BYTES, cfg->limit_bytes) ||
	    nla_put_u32(skb, TCA_SYMPHONY_KMIN, cfg->kmin) ||
	    nla_put_u32(skb, TCA_SYMPHONY_KMAX, cfg->kmax) ||
	    nla_put_u32(skb, TCA_SYMPHONY_QMIN, cfg->qmin) ||
	    nla_put_u32(skb, TCA_SYMPHONY_PMAX, cfg->pmax_ppm) ||
	    nla_put_u8(skb, TCA_SYMPHONY_NONECT, cfg->nonect) ||
	    nla_put_u8(skb, TCA_SYMPHONY_MARKING, cfg->marking) ||
	    nla_put_u32(skb, TCA_SYMPHONY_K, cfg->params.k_ppm) ||
	    nla_put_u32(skb, TCA_SYMPHONY_TAU, cfg->params.tau_ppm) ||
	    nla_put_u32(skb, TCA_SYMPHONY_TWIN,
			div_u64(cfg->params.twin_ns, NSEC_PER_USEC)) ||
	    nla_put_u32(skb, TCA_SYMPHONY_WARMUP, cfg->params.warmup_psn) ||
	    nla_put_u32(skb, TCA_SYMPHONY_SAMPLES,
			cfg->params.sample_min_packets) ||
	    nla_put_u32(skb, TCA_SYMPHONY_ALPHA_MAX, cfg->params.alpha_max) ||
	    nla_put_u8(skb, TCA_SYMPHONY_JOB_FIELD, cfg->parse.job_field) ||
	    nla_put_u8(skb, TCA_SYMPHONY_STEP_FIELD, cfg->parse.step_field) ||
	    nla_put_u32(skb, TCA_SYMPHONY_JOBS, q->jobs->nr))
		goto nla_put_failure;
	if (q->jobs->map &&
	    nla_put_u32(skb, TCA_SYMPHONY_JOBS_MAP_ID, q->jobs->map->id))
		goto nla_put_failure;

	return nla_nest_end(skb, opts);

nla_put_failure:
	nla_nest_cancel(skb, opts);
	return -EMSGSIZE;
}

static int symphony_dump_stats(struct Qdisc *sch, struct gnet_dump *d)
{
	struct symphony_sched_data *q = qdisc_priv(sch);
	const struct tc_symphony_xstats *qs = &q->stats;
	struct tc_symphony_xstats st = {
		.red_marks		= READ_ONCE(qs->red_marks),
		.symphony_marks		= READ_ONCE(qs->symphony_marks),
		.outpacing_packets	= READ_ONCE(qs->outpacing_packets),
		.collective_packets	= READ_ONCE(qs->collective_packets),
		.unclassified_packets	= READ_ONCE(qs->unclassified_packets),
		.malformed_packets	= READ_ONCE(qs->malformed_packets),
		.limit_drops		= READ_ONCE(qs->limit_drops),
		.red_drops		= READ_ONCE(qs->red_drops),
		.max_backlog_packets	= READ_ONCE(qs->max_backlog_packets),
		.max_backlog_bytes	= READ_ONCE(qs->max_backlog_bytes),
	};
	unsigned int start;

	/* Packets and bytes dequeued are the basic stats' own. */
	do {
		start = u64_stats_fetch_begin(&sch->bstats.syncp);
		st.packets = u64_stats_read(&sch->bstats.packets);
		st.bytes = u64_stats_read(&sch->bstats.bytes);
	} while (u64_stats_fetch_retry(&sch->bstats.syncp, start));
	return gnet_stats_copy_app(d, &st, sizeof(st));
}

static void symphony_reset(struct Qdisc *sch)
{
	qdisc_reset_queue(sch);
}

static struct Qdisc_ops symphony_qdisc_ops __read_mostly = {
	.id		= "symphony",
	.priv_size	= sizeof(struct symphony_sched_data),
	.enqueue	= symphony_enqueue,
	.dequeue	= symphony_dequeue,
	.peek		= qdisc_peek_dequeued,	/* dequeue may drop */
	.init		= symphony_init,
	.reset		= symphony_reset,
	.destroy	= symphony_destroy,
	.change		= symphony_change,
	.dump		= symphony_dump,
	.dump_stats	= symphony_dump_stats,
	.owner		= THIS_MODULE,
};

static int __init symphony_module_init(void)
{
	symphony_jobs_init_locks();
	return register_qdisc(&symphony_qdisc_ops);
}

static void __exit symphony_module_exit(void)
{
	unregister_qdisc(&symphony_qdisc_ops);
}

module_init(symphony_module_init);
module_exit(symphony_module_exit);
MODULE_AUTHOR("symphony-ofan developers");
MODULE_DESCRIPTION("Symphony: step-aware ECN marking for ring collectives");
MODULE_LICENSE("GPL");
SYMPHONY_IMPORT_BPF_INTERNAL;
