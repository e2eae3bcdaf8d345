// SPDX-License-Identifier: GPL-2.0
/*
 * net/sched/sch_symphony	Symphony: step-aware ECN for ring collectives.
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
 * The queue is a FIFO bounded in packets and bytes, usable as root qdisc
 * and as the leaf of classful qdiscs (HTB, TBF).  Job state lives in a
 * table of the qdisc's own or in a BPF array map shared with the agent
 * and with other ports' qdiscs (symphony_jobs.c).  The windows of
 * Algorithm 1 roll every T_win on a clock that an hrtimer advances while
 * packets flow (symphony_tick.c), as a switch resets its window
 * registers periodically.
 *
 * Parameters settable by the user (units in the names):
 *	limit, limit_bytes	queue bounds, tail drop beyond
 *	kmin, kmax, pmax	RED: bytes, bytes, ppm
 *	nonect			drop or pass non-ECT packets RED would mark
 *	marking			red (baseline) or symphony (Symphony OR RED)
 *	k, tau			gain and tolerance, ppm
 *	qmin			backlog, bytes, below which Symphony does not
 *				mark (0, the default: at any backlog, as the
 *				paper; a deviation for ports without a queue)
 *	twin			window T_win, us
 *	warmup, samples		N_warmup (PSN units), N_sample (packets)
 *	alpha_max		cap of alpha
 *	job_field, step_field	RoCEv2 header fields carrying job and step
 *	jobs			slots of the own job table
 *	jobs_fd			fd of a jobs map (-1: back to the own table)
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

#include "../include/symphony/symphony_core.h"
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

	/* drops in dequeue not yet reported to the ancestors */
	u32			pending_drops;
	u32			pending_drop_bytes;

	struct tc_symphony_xstats stats;
};

static u32 symphony_segs(const struct sk_buff *skb)
{
	return skb_is_gso(skb) ? skb_shinfo(skb)->gso_segs : 1;
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
	    symphony_parse_rocev2_ipv4(nh, linear, pkt_len, cfg, pkt))
		return SYMPHONY_KIND_COLLECTIVE;

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

static int symphony_enqueue(struct sk_buff *skb, struct Qdisc *sch,
			    struct sk_buff **to_free)
{
	struct symphony_sched_data *q = qdisc_priv(sch);
	u32 len = qdisc_pkt_len(skb);

	if (unlikely(sch->q.qlen >= q->cfg.limit ||
		     (q->cfg.limit_bytes &&
		      sch->qstats.backlog + len > q->cfg.limit_bytes))) {
		q->stats.limit_drops++;
		return qdisc_drop(skb, sch, to_free);
	}

	qdisc_enqueue_tail(skb, sch);
	q->stats.max_backlog_packets = max(q->stats.max_backlog_packets,
					   sch->q.qlen);
	q->stats.max_backlog_bytes = max(q->stats.max_backlog_bytes,
					 sch->qstats.backlog);
	return NET_XMIT_SUCCESS;
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
 * Algorithm 1 for one packet of @job and its accounting, with the marks
 * it will carry if ECN-capable (@red: RED marks it).  Returns whether
 * Symphony marks it (never when !@may_mark: the backlog is below qmin);
 * *outpacing tells whether its step ran ahead.  The caller serialises
 * the job's updates.
 */
static __always_inline bool
symphony_job_account(struct symphony_sched_data *q, struct symphony_job *job,
		     const struct symphony_pkt *pkt, u64 now_ns, u32 segs,
		     u32 len, bool red, bool may_mark, bool *outpacing)
{
	bool mark, ect = pkt->ecn != INET_ECN_NOT_ECT;
	u32 prob;

	prob = symphony_job_update(job, pkt, &q->cfg.params, now_ns, segs,
				   outpacing);
	mark = may_mark && symphony_toss(q, prob);
	job->packets += segs;
	job->bytes += len;
	if (*outpacing)
		job->outpacing_packets += segs;
	if (ect && red)
		job->red_marks += segs;
	if (ect && mark)
		job->symphony_marks += segs;
	return mark;
}

/*
 * Run Algorithm 1 for a dequeued collective packet and account it to its
 * job.  Returns whether Symphony marks it.  @backlog: bytes, as RED sees
 * it; below qmin the job's state advances but nothing is marked.
 */
static bool symphony_step_decision(struct symphony_sched_data *q,
				   const struct symphony_pkt *pkt, u32 segs,
				   u32 len, u32 backlog, bool red)
{
	bool outpacing, mark, may_mark = backlog >= q->cfg.qmin;
	struct symphony_job *job;
	spinlock_t *lock;
	u64 now_ns;

	job = symphony_jobs_slot(q->jobs, pkt->job);
	if (!job) {
		q->stats.unclassified_packets += segs;
		return false;
	}

	/* The start of the current T_win period (symphony_tick.h): one load
	 * rather than a clock read.  Qdiscs sharing a jobs map publish the
	 * same multiples of T_win; one a little behind another is no roll.
	 */
	now_ns = symphony_tick_now(&q->tick);
	if (symphony_jobs_shared(q->jobs)) {
		/* a jobs map: other qdiscs, on other CPUs, update it too */
		lock = symphony_job_lock(job);
		spin_lock(lock);
		mark = symphony_job_account(q, job, pkt, now_ns, segs, len, red,
					    may_mark, &outpacing);
		spin_unlock(lock);
	} else {
		/* our own table: only our dequeue, under the qdisc lock */
		mark = symphony_job_account(q, job, pkt, now_ns, segs, len, red,
					    may_mark, &outpacing);
	}

	q->stats.collective_packets += segs;
	if (outpacing)
		q->stats.outpacing_packets += segs;
	return mark;
}

/* The ECN field of a dequeued packet (not ECT for non-IP packets). */
static u8 symphony_skb_ecn(struct sk_buff *skb)
{
	const u8 *nh = skb_network_header(skb);

	switch (skb_protocol(skb, true)) {
	case htons(ETH_P_IP):
		if (nh + sizeof(struct iphdr) <= skb_tail_pointer(skb))
			return ipv4_get_dsfield(ip_hdr(skb)) & INET_ECN_MASK;
		break;
	case htons(ETH_P_IPV6):
		if (nh + sizeof(struct ipv6hdr) <= skb_tail_pointer(skb))
			return ipv6_get_dsfield(ipv6_hdr(skb)) & INET_ECN_MASK;
		break;
	}
	return INET_ECN_NOT_ECT;
}

/*
 * INET_ECN_set_ce() for a packet whose IP version the parser found: the
 * same checks, without looking at the protocol again.
 */
static void symphony_set_ce(struct sk_buff *skb, bool ipv6)
{
	const u8 *nh = skb_network_header(skb);

	if (!ipv6) {
		if (nh + sizeof(struct iphdr) <= skb_tail_pointer(skb))
			IP_ECN_set_ce(ip_hdr(skb));
	} else if (nh + sizeof(struct ipv6hdr) <= skb_tail_pointer(skb)) {
		IP6_ECN_set_ce(skb, ipv6_hdr(skb));
	}
}

/*
 * Mark and account dequeued @skb: RED on the backlog it leaves behind,
 * Symphony (Algorithm 1) for collective traffic.  Returns false when RED
 * dropped it instead (a non-ECT packet under "nonect drop").  Apart from
 * symphony_dequeue() so that the call that finds the queue empty, one per
 * burst, does not set up this function's frame.
 */
static noinline bool symphony_dequeue_mark(struct Qdisc *sch,
					   struct sk_buff *skb)
{
	struct symphony_sched_data *q = qdisc_priv(sch);
	u32 len = qdisc_pkt_len(skb), segs = symphony_segs(skb);
	/* The backlog the packet leaves behind it, plus itself. */
	u32 backlog = sch->qstats.backlog + len;
	struct symphony_pkt pkt;
	bool red, sym = false, ipv6;
	int ecn = -1;		/* not read yet */

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
			sym = symphony_step_decision(q, &pkt, segs, len,
						     backlog, red);
			ecn = pkt.ecn;
			break;
		case SYMPHONY_KIND_MALFORMED:
			q->stats.malformed_packets += segs;
			fallthrough;
		case SYMPHONY_KIND_OTHER:
			q->stats.unclassified_packets += segs;
			break;
		}
	}

	if (red || sym) {
		bool parsed = ecn >= 0;

		if (!parsed)
			ecn = symphony_skb_ecn(skb);
		if (ecn != INET_ECN_NOT_ECT) {
			if (parsed)
				symphony_set_ce(skb, ipv6);
			else
				INET_ECN_set_ce(skb);
			q->stats.red_marks += red ? segs : 0;
			q->stats.symphony_marks += sym ? segs : 0;
		} else if (red && q->cfg.nonect == SYMPHONY_NONECT_DROP) {
			/* Symphony never drops: only RED's verdict counts. */
			q->stats.red_drops++;
			q->pending_drops++;
			q->pending_drop_bytes += len;
			qdisc_qstats_drop(sch);
			kfree_skb(skb);
			return false;
		}
	}

	/* Basic stats count only what leaves; they are also the xstats'
	 * packets and bytes.
	 */
	qdisc_bstats_update(sch, skb);
	return true;
}

static struct sk_buff *symphony_dequeue(struct Qdisc *sch)
{
	struct symphony_sched_data *q = qdisc_priv(sch);
	struct sk_buff *skb;

	do {
		skb = __qdisc_dequeue_head(&sch->q);
		if (!skb)
			break;
		qdisc_qstats_backlog_dec(sch, skb);
	} while (!symphony_dequeue_mark(sch, skb));

	/* The ancestors must not see our qlen reach 0 before they learn of
	 * the drops (HTB would stumble); report them while we hold packets.
	 */
	if (unlikely(q->pending_drops) && sch->q.qlen) {
		qdisc_tree_reduce_backlog(sch, q->pending_drops,
					  q->pending_drop_bytes);
		q->pending_drops = 0;
		q->pending_drop_bytes = 0;
	}
	return skb;
}

/* netlink */

static const struct nla_policy symphony_policy[TCA_SYMPHONY_MAX + 1] = {
	[TCA_SYMPHONY_LIMIT]		= { .type = NLA_U32 },
	[TCA_SYMPHONY_LIMIT_BYTES]	= { .type = NLA_U32 },
	[TCA_SYMPHONY_KMIN]		= { .type = NLA_U32 },
	[TCA_SYMPHONY_KMAX]		= { .type = NLA_U32 },
	[TCA_SYMPHONY_PMAX]		= { .type = NLA_U32 },
	[TCA_SYMPHONY_NONECT]		= { .type = NLA_U8 },
	[TCA_SYMPHONY_MARKING]		= { .type = NLA_U8 },
	[TCA_SYMPHONY_K]		= { .type = NLA_U32 },
	[TCA_SYMPHONY_TAU]		= { .type = NLA_U32 },
	[TCA_SYMPHONY_TWIN]		= { .type = NLA_U32 },
	[TCA_SYMPHONY_WARMUP]		= { .type = NLA_U32 },
	[TCA_SYMPHONY_SAMPLES]		= { .type = NLA_U32 },
	[TCA_SYMPHONY_ALPHA_MAX]	= { .type = NLA_U32 },
	[TCA_SYMPHONY_JOB_FIELD]	= { .type = NLA_U8 },
	[TCA_SYMPHONY_STEP_FIELD]	= { .type = NLA_U8 },
	[TCA_SYMPHONY_JOBS]		= { .type = NLA_U32 },
	[TCA_SYMPHONY_JOBS_FD]		= { .type = NLA_S32 },
	[TCA_SYMPHONY_QMIN]		= { .type = NLA_U32 },
	[TCA_SYMPHONY_JOBS_MAP_ID]	= {
		.type = NLA_REJECT,
		.reject_message = "sch_symphony: jobs_map_id is read-only: pass jobs_fd",
	},
};

/* Valid ranges of the numeric attributes, with the message that names
 * the parameter when a value falls outside.
 */
struct symphony_range {
	u32		min;
	u32		max;
	const char	*msg;
};

#define SYMPHONY_RANGE(attr, lo, hi, text)				\
	[attr] = { .min = (lo), .max = (hi),				\
		   .msg = "sch_symphony: " text }

static const struct symphony_range symphony_ranges[TCA_SYMPHONY_MAX + 1] = {
	SYMPHONY_RANGE(TCA_SYMPHONY_LIMIT, SYMPHONY_LIMIT_MIN_PACKETS,
		       SYMPHONY_LIMIT_MAX_PACKETS,
		       "limit must be 1..1000000 packets"),
	SYMPHONY_RANGE(TCA_SYMPHONY_PMAX, 0, SYMPHONY_PPM,
		       "pmax must be 0..1000000 ppm (0..1)"),
	SYMPHONY_RANGE(TCA_SYMPHONY_NONECT, 0, __SYMPHONY_NONECT_MAX - 1,
		       "nonect must be drop (0) or pass (1)"),
	SYMPHONY_RANGE(TCA_SYMPHONY_MARKING, 0, __SYMPHONY_MARKING_MAX - 1,
		       "marking must be red (0) or symphony (1)"),
	SYMPHONY_RANGE(TCA_SYMPHONY_K, 0, SYMPHONY_K_MAX_PPM,
		       "k must be 0..100000000 ppm (0..100)"),
	SYMPHONY_RANGE(TCA_SYMPHONY_TAU, 0, SYMPHONY_PPM,
		       "tau must be 0..1000000 ppm (0..1)"),
	SYMPHONY_RANGE(TCA_SYMPHONY_TWIN, SYMPHONY_TWIN_MIN_US,
		       SYMPHONY_TWIN_MAX_US,
		       "twin must be 1..10000000 us"),
	SYMPHONY_RANGE(TCA_SYMPHONY_WARMUP, 0, 1U << 24,
		       "warmup must be 0..16777216 PSN units"),
	SYMPHONY_RANGE(TCA_SYMPHONY_SAMPLES, 0, U32_MAX - 1,
		       "samples must be below 4294967295 packets"),
	SYMPHONY_RANGE(TCA_SYMPHONY_ALPHA_MAX, 1, SYMPHONY_ALPHA_MAX_LIMIT,
		       "alpha_max must be 1..65536"),
	SYMPHONY_RANGE(TCA_SYMPHONY_JOB_FIELD, 0, __SYMPHONY_FIELD_MAX - 1,
		       "job_field must be udp_sport (0), bth_rsvd (1) or bth_destqp (2)"),
	SYMPHONY_RANGE(TCA_SYMPHONY_STEP_FIELD, 0, __SYMPHONY_FIELD_MAX - 1,
		       "step_field must be udp_sport (0), bth_rsvd (1) or bth_destqp (2)"),
	SYMPHONY_RANGE(TCA_SYMPHONY_JOBS, SYMPHONY_JOBS_MIN, SYMPHONY_JOBS_MAX,
		       "jobs must be 1..16777216 slots"),
};

static u32 symphony_nla_value(const struct nlattr *nla, int type)
{
	if (symphony_policy[type].type == NLA_U8)
		return nla_get_u8(nla);
	return nla_get_u32(nla);
}

/* Check every attribute's range, then fill @cfg from the attributes. */
static int symphony_config_parse(struct nlattr **tb, struct symphony_config *cfg,
				 struct netlink_ext_ack *extack)
{
	int type;

	for (type = 1; type <= TCA_SYMPHONY_MAX; type++) {
		const struct symphony_range *range = &symphony_ranges[type];
		u32 value;

		if (!tb[type] || !range->msg)
			continue;
		value = symphony_nla_value(tb[type], type);
		if (value < range->min || value > range->max) {
			symphony_reject_value(extack, tb[type], range->msg,
					      value);
			return -EINVAL;
		}
	}

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

static int symphony_change(struct Qdisc *sch, struct nlattr *opt,
			   struct netlink_ext_ack *extack)
{
	struct symphony_sched_data *q = qdisc_priv(sch);
	struct nlattr *tb[TCA_SYMPHONY_MAX + 1] = {};
	struct symphony_jobs *jobs, *old_jobs = NULL;
	unsigned int dropped_packets = 0, dropped_bytes = 0;
	struct symphony_config cfg = q->cfg;
	int err;

	if (opt) {
		err = nla_parse_nested(tb, TCA_SYMPHONY_MAX, opt,
				       symphony_policy, extack);
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

	sch_tree_lock(sch);

	q->cfg = cfg;
	symphony_tick_set_period(&q->tick, cfg.params.twin_ns);
	if (jobs) {
		old_jobs = q->jobs;
		q->jobs = jobs;
	}

	/* A lower limit takes effect at once: trim the queue's head. */
	while (sch->q.qlen > q->cfg.limit ||
	       (q->cfg.limit_bytes && sch->qstats.backlog > q->cfg.limit_bytes)) {
		struct sk_buff *skb = __qdisc_dequeue_head(&sch->q);

		qdisc_qstats_backlog_dec(sch, skb);
		dropped_packets++;
		dropped_bytes += qdisc_pkt_len(skb);
		q->stats.limit_drops++;
		rtnl_qdisc_drop(skb, sch);
	}
	qdisc_tree_reduce_backlog(sch, dropped_packets, dropped_bytes);

	sch_tree_unlock(sch);

	/* The datapath runs under the lock we held: nobody uses it now. */
	symphony_jobs_destroy(old_jobs);
	return 0;
}

static int symphony_init(struct Qdisc *sch, struct nlattr *opt,
			 struct netlink_ext_ack *extack)
{
	struct symphony_sched_data *q = qdisc_priv(sch);

	q->cfg = (struct symphony_config) {
		.limit		= SYMPHONY_LIMIT_DEFAULT_PACKETS,
		.kmin		= SYMPHONY_KMIN_DEFAULT_BYTES,
		.kmax		= SYMPHONY_KMAX_DEFAULT_BYTES,
		.pmax_ppm	= SYMPHONY_PMAX_DEFAULT_PPM,
		.nonect		= SYMPHONY_NONECT_DROP,
		.marking	= SYMPHONY_MARKING_SYMPHONY,
		.jobs_own	= SYMPHONY_JOBS_DEFAULT,
		.parse = {
			.job_field	= SYMPHONY_FIELD_BTH_RSVD,
			.step_field	= SYMPHONY_FIELD_UDP_SPORT,
		},
		.params = {
			.k_ppm		= SYMPHONY_K_DEFAULT_PPM,
			.tau_ppm	= SYMPHONY_TAU_DEFAULT_PPM,
			.warmup_psn	= SYMPHONY_WARMUP_DEFAULT,
			.sample_min_packets = SYMPHONY_SAMPLES_DEFAULT,
			.alpha_max	= SYMPHONY_ALPHA_MAX_DEFAULT,
			.twin_ns	= SYMPHONY_TWIN_DEFAULT_US *
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
	struct tc_symphony_xstats st = q->stats;
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
	struct symphony_sched_data *q = qdisc_priv(sch);

	qdisc_reset_queue(sch);
	q->pending_drops = 0;
	q->pending_drop_bytes = 0;
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
