/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * pkt_sched_symphony.h - netlink uAPI of the symphony qdisc, shared by the
 * kernel module (kernel/symphony_qdisc.c) and the tc plugin
 * (userspace/q_symphony.c).
 *
 * Units are part of every name: packets, bytes, ppm (parts per million,
 * 1000000 = 1.0), us (microseconds).
 */
#ifndef _UAPI_LINUX_PKT_SCHED_SYMPHONY_H
#define _UAPI_LINUX_PKT_SCHED_SYMPHONY_H

#include <linux/types.h>

/* Attributes nested in TCA_OPTIONS (NLA_F_NESTED). */
#ifndef TCA_SYMPHONY_MAX
enum {
	TCA_SYMPHONY_UNSPEC,
	TCA_SYMPHONY_LIMIT,		/* u32: queue limit, packets */
	TCA_SYMPHONY_LIMIT_BYTES,	/* u32: queue limit, bytes (0: none) */
	TCA_SYMPHONY_KMIN,		/* u32: RED marking starts, bytes */
	TCA_SYMPHONY_KMAX,		/* u32: RED marks every packet, bytes */
	TCA_SYMPHONY_PMAX,		/* u32: RED probability at kmax, ppm */
	TCA_SYMPHONY_NONECT,		/* u8: enum symphony_nonect */
	TCA_SYMPHONY_MARKING,		/* u8: enum symphony_marking */
	TCA_SYMPHONY_K,			/* u32: throttling gain k, ppm */
	TCA_SYMPHONY_TAU,		/* u32: tolerance tau, ppm */
	TCA_SYMPHONY_TWIN,		/* u32: window T_win, us */
	TCA_SYMPHONY_WARMUP,		/* u32: N_warmup, PSN units */
	TCA_SYMPHONY_SAMPLES,		/* u32: N_sample, packets per window */
	TCA_SYMPHONY_ALPHA_MAX,		/* u32: cap of alpha */
	TCA_SYMPHONY_JOB_FIELD,		/* u8: enum symphony_field (RoCEv2) */
	TCA_SYMPHONY_STEP_FIELD,	/* u8: enum symphony_field (RoCEv2) */
	TCA_SYMPHONY_JOBS,		/* u32: job slots of the own table */
	TCA_SYMPHONY_JOBS_FD,		/* s32: fd of a jobs map, -1 detaches */
	TCA_SYMPHONY_JOBS_MAP_ID,	/* u32: id of the jobs map (dump) */
	TCA_SYMPHONY_QMIN,		/* u32: backlog from which Symphony
					 * marks, bytes (0: any backlog)
					 */
	__TCA_SYMPHONY_MAX
};

#define TCA_SYMPHONY_MAX (__TCA_SYMPHONY_MAX - 1)
#endif

/* What RED does with a packet it would mark that is not ECN-capable. */
enum symphony_nonect {
	SYMPHONY_NONECT_DROP,		/* drop it, as RED with ECN does */
	SYMPHONY_NONECT_PASS,		/* send it unmarked */
	__SYMPHONY_NONECT_MAX
};

enum symphony_marking {
	SYMPHONY_MARKING_RED,		/* RED only: the baseline */
	SYMPHONY_MARKING_SYMPHONY,	/* Symphony OR RED */
	__SYMPHONY_MARKING_MAX
};

/* Header fields that may carry a RoCEv2 packet's job or step. */
enum symphony_field {
	SYMPHONY_FIELD_UDP_SPORT,	/* UDP source port, 16 bits */
	SYMPHONY_FIELD_BTH_RSVD,	/* BTH reserved bits, 13 bits: byte 4
					 * bits 5-0 then byte 8 bits 6-0
					 */
	SYMPHONY_FIELD_BTH_DESTQP,	/* BTH DestQP, 24 bits */
	__SYMPHONY_FIELD_MAX
};

/* Fractions travel as parts per million: 1000000 is 1.0.  Each attribute's
 * range and default are in include/symphony/symphony_params.h.
 */
#define SYMPHONY_PPM			1000000

/* Returned in TCA_STATS_APP (tc -s qdisc show).  Packet counts count GSO
 * segments.
 */
struct tc_symphony_xstats {
	__u64	packets;		/* packets dequeued */
	__u64	bytes;			/* bytes dequeued */
	__u64	red_marks;		/* CE set by RED (possibly also Symphony) */
	__u64	symphony_marks;		/* CE set by Symphony (possibly also RED) */
	__u64	outpacing_packets;	/* collective packets of a step > step_min */
	__u64	collective_packets;	/* packets with a job and a step */
	__u64	unclassified_packets;	/* not collective, malformed or unknown job */
	__u64	malformed_packets;	/* of those: truncated or inconsistent headers */
	__u32	limit_drops;		/* packets dropped at a full queue */
	__u32	red_drops;		/* non-ECT packets RED would have marked */
	__u32	max_backlog_packets;	/* high-water mark of the queue */
	__u32	max_backlog_bytes;	/* high-water mark of the queue */
};

#endif /* _UAPI_LINUX_PKT_SCHED_SYMPHONY_H */
