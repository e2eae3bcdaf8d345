/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * pkt_sched_symphony.h - netlink uAPI of the symphony qdisc, shared by the
 * kernel module (kernel/sch_symphony.c) and the tc plugin
 * (userspace/q_symphony.c).
 */
#ifndef _UAPI_LINUX_PKT_SCHED_SYMPHONY_H
#define _UAPI_LINUX_PKT_SCHED_SYMPHONY_H

#include <linux/types.h>

/* Attributes nested in TCA_OPTIONS. */
#ifndef TCA_SYMPHONY_MAX
enum {
	TCA_SYMPHONY_UNSPEC,
	TCA_SYMPHONY_LIMIT,		/* u32: queue limit, packets */
	__TCA_SYMPHONY_MAX
};

#define TCA_SYMPHONY_MAX (__TCA_SYMPHONY_MAX - 1)
#endif

/* Bounds and defaults of the attributes above. */
#define SYMPHONY_LIMIT_MIN_PACKETS	1
#define SYMPHONY_LIMIT_MAX_PACKETS	1000000
#define SYMPHONY_LIMIT_DEFAULT_PACKETS	1000

/* Returned in TCA_STATS_APP (tc -s qdisc show). */
struct tc_symphony_xstats {
	__u32	limit_drops;		/* packets dropped at a full queue */
	__u32	max_backlog_packets;	/* high-water mark of the queue */
	__u32	max_backlog_bytes;	/* high-water mark of the queue */
};

#endif /* _UAPI_LINUX_PKT_SCHED_SYMPHONY_H */
