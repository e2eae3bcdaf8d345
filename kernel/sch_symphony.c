// SPDX-License-Identifier: GPL-2.0
/*
 * net/sched/sch_symphony.c	Symphony: step-aware ECN for ring collectives.
 *
 * Symphony keeps the steps of ring collectives (AllReduce, AllGather, ...)
 * aligned: a switch tracks, per training job, the slowest step still in
 * flight and ECN-marks packets of steps that run ahead of it, so that the
 * senders' own congestion control slows the outpacing flows down and lets
 * the lagging ones catch up.
 *
 * This is the queueing core: a tail-drop FIFO bounded in packets, usable
 * as the root qdisc of a device or as the leaf of a classful qdisc.
 *
 * Parameters settable by the user:
 *	limit	queue limit, packets (tail drop beyond it)
 */

#include <linux/module.h>
#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/skbuff.h>
#include <net/netlink.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>
#include <uapi/linux/pkt_sched_symphony.h>

struct symphony_sched_data {
	u32	limit;			/* packets */

	/* statistics, updated under the qdisc lock */
	u32	limit_drops;
	u32	max_backlog_packets;
	u32	max_backlog_bytes;
};

static struct netlink_range_validation symphony_limit_range = {
	.min = SYMPHONY_LIMIT_MIN_PACKETS,
	.max = SYMPHONY_LIMIT_MAX_PACKETS,
};

static const struct nla_policy symphony_policy[TCA_SYMPHONY_MAX + 1] = {
	[TCA_SYMPHONY_LIMIT] = NLA_POLICY_FULL_RANGE(NLA_U32,
						     &symphony_limit_range),
};

static int symphony_enqueue(struct sk_buff *skb, struct Qdisc *sch,
			    struct sk_buff **to_free)
{
	struct symphony_sched_data *q = qdisc_priv(sch);

	if (unlikely(sch->q.qlen >= READ_ONCE(q->limit))) {
		q->limit_drops++;
		return qdisc_drop(skb, sch, to_free);
	}

	qdisc_enqueue_tail(skb, sch);
	q->max_backlog_packets = max(q->max_backlog_packets, sch->q.qlen);
	q->max_backlog_bytes = max(q->max_backlog_bytes,
				   sch->qstats.backlog);
	return NET_XMIT_SUCCESS;
}

static struct sk_buff *symphony_dequeue(struct Qdisc *sch)
{
	return qdisc_dequeue_head(sch);
}

static int symphony_change(struct Qdisc *sch, struct nlattr *opt,
			   struct netlink_ext_ack *extack)
{
	struct symphony_sched_data *q = qdisc_priv(sch);
	struct nlattr *tb[TCA_SYMPHONY_MAX + 1];
	unsigned int dropped_packets = 0, dropped_bytes = 0;
	int err;

	if (!opt)
		return 0;

	err = nla_parse_nested(tb, TCA_SYMPHONY_MAX, opt, symphony_policy,
			       extack);
	if (err < 0)
		return err;

	sch_tree_lock(sch);

	if (tb[TCA_SYMPHONY_LIMIT])
		WRITE_ONCE(q->limit, nla_get_u32(tb[TCA_SYMPHONY_LIMIT]));

	/* A lower limit takes effect at once: trim the queue's head. */
	while (sch->q.qlen > q->limit) {
		struct sk_buff *skb = qdisc_dequeue_head(sch);

		dropped_packets++;
		dropped_bytes += qdisc_pkt_len(skb);
		rtnl_qdisc_drop(skb, sch);
	}
	qdisc_tree_reduce_backlog(sch, dropped_packets, dropped_bytes);

	sch_tree_unlock(sch);
	return 0;
}

static int symphony_init(struct Qdisc *sch, struct nlattr *opt,
			 struct netlink_ext_ack *extack)
{
	struct symphony_sched_data *q = qdisc_priv(sch);

	q->limit = SYMPHONY_LIMIT_DEFAULT_PACKETS;
	return symphony_change(sch, opt, extack);
}

static int symphony_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct symphony_sched_data *q = qdisc_priv(sch);
	struct nlattr *opts;

	opts = nla_nest_start(skb, TCA_OPTIONS);
	if (!opts)
		goto nla_put_failure;

	if (nla_put_u32(skb, TCA_SYMPHONY_LIMIT, READ_ONCE(q->limit)))
		goto nla_put_failure;

	return nla_nest_end(skb, opts);

nla_put_failure:
	nla_nest_cancel(skb, opts);
	return -EMSGSIZE;
}

static int symphony_dump_stats(struct Qdisc *sch, struct gnet_dump *d)
{
	struct symphony_sched_data *q = qdisc_priv(sch);
	struct tc_symphony_xstats st = {
		.limit_drops		= q->limit_drops,
		.max_backlog_packets	= q->max_backlog_packets,
		.max_backlog_bytes	= q->max_backlog_bytes,
	};

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
	.peek		= qdisc_peek_head,
	.init		= symphony_init,
	.reset		= symphony_reset,
	.change		= symphony_change,
	.dump		= symphony_dump,
	.dump_stats	= symphony_dump_stats,
	.owner		= THIS_MODULE,
};

static int __init symphony_module_init(void)
{
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
