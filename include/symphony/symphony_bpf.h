/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * symphony_bpf.h - map layouts of Symphony as a tc-BPF program
 * (bpf/symphony.bpf.c), for kernels that cannot load sch_symphony: per
 * switch port its parameters and phantom queue, and its counters.  The
 * program reads them, symofan ("symofan symphony ...") writes and prints
 * them, bpftool shows them field by field.
 *
 * Job state is the registry's jobs map (symphony_map.h), shared by the
 * ports of a switch as the module's qdiscs share it.  That map is
 * mmapable for the agent, which a value holding a bpf_spin_lock cannot
 * be, so the program serialises a job's updates on lock
 * (job & (SYMPHONY_BPF_JOB_LOCKS - 1)) of the registry's map of locks
 * ("job_locks", pinned beside the jobs map by symofan job init and
 * reused by every load): the module too hashes its job locks.  The two
 * datapaths' locks differ, so a registry serves the qdiscs of a switch or
 * its programs, not both (symphony_jobs_meta.owner).
 *
 * The phantom queue: egress BPF runs before the qdisc and cannot see its
 * backlog, so each port keeps a virtual one that grows by each packet's
 * length and drains at the port's rate (the HTB or TBF rate under the
 * program), held as the time it would be empty.  RED's thresholds are
 * kept in nanoseconds of that rate, so that the per-packet path needs no
 * division by the rate.
 */
#ifndef _SYMPHONY_BPF_H
#define _SYMPHONY_BPF_H

#include <linux/types.h>
#include <linux/bpf.h>

#include "symphony_core.h"	/* struct symphony_params */

#define SYMPHONY_BPF_MAX_PORTS		1024
#define SYMPHONY_BPF_JOB_LOCKS		1024	/* a power of two */

/* A port's parameters: symofan fills the first block from the qdisc's
 * parameter table (symphony_params.h: same keywords, units, ranges,
 * defaults) and derives the second from it and the rate.
 */
struct symphony_bpf_cfg {
	__u64	rate_bps;		/* the phantom queue's drain rate */
	__u32	limit_packets;		/* its capacity in frames of the MTU */
	__u32	limit_bytes;		/* or in bytes, if not 0 */
	__u32	kmin_bytes;
	__u32	kmax_bytes;
	__u32	pmax_ppm;
	__u32	qmin_bytes;
	__u32	k_ppm;
	__u32	tau_ppm;
	__u32	twin_us;
	__u32	warmup_psn;
	__u32	sample_min_packets;
	__u32	alpha_max;
	__u32	nr_jobs;		/* slots of the jobs map */
	__u8	nonect;			/* enum symphony_nonect */
	__u8	marking;		/* enum symphony_marking */
	__u8	job_field;		/* enum symphony_field */
	__u8	step_field;		/* enum symphony_field */

	/* derived: picoseconds per byte at rate_bps as a Q16 fixed-point
	 * number (8e12 * 2^16 / rate_bps: 1,310,720 at 400 Gbit/s, so that a
	 * 64-byte frame drains in 1.28 ns, not 1), the byte thresholds as
	 * nanoseconds of it, RED's pmax as a Q32 fraction, Algorithm 1's
	 * parameters as symphony_job_update() takes them
	 */
	__u64	ps_per_byte_q16;
	__u32	limit_ns;
	__u32	kmin_ns;
	__u32	kmax_ns;
	__u32	qmin_ns;
	__u32	pmax_q32;
	__u32	frame_bytes;		/* the port's MTU with its Ethernet header */
	struct symphony_params params;
};

/* Map "symphony_ports", keyed by ifindex (__u32): a hash, since an
 * ifindex may be any number (container hosts count far up).
 */
struct symphony_bpf_port {
	struct bpf_spin_lock	lock;		/* guards empty_ns */
	__u32			ifindex;
	__u32			stats_slot;	/* its counters' index in
						 * "symphony_port_stats"
						 */
	__u32			empty_ps;	/* and empty_ps picoseconds
						 * (0..999) after empty_ns: the
						 * sub-ns rest of the packets'
						 * transmission times
						 */
	__u64			empty_ns;	/* the phantom queue is empty from
						 * then on, CLOCK_MONOTONIC ns
						 */
	struct symphony_bpf_cfg	cfg;
};

/* Map "symphony_port_stats", a per-CPU array indexed by the port's
 * stats_slot (0..SYMPHONY_BPF_MAX_PORTS - 1, one per port of the pinned
 * program; an array's lookup the verifier inlines, where a second hash
 * lookup by ifindex cost a tenth of the program): the qdisc's xstats
 * (struct tc_symphony_xstats) where they apply.  Packet counts count GSO
 * segments; a packet the program drops (TC_ACT_SHOT) counts in red_drops
 * only, as a qdisc's drops are not among the packets it sent, and a mark
 * counts only once the packet carries it.
 */
struct symphony_bpf_stats {
	__u64	packets;
	__u64	bytes;
	__u64	red_marks;		/* CE set by RED (possibly also Symphony) */
	__u64	symphony_marks;		/* CE set by Symphony (possibly also RED) */
	__u64	outpacing_packets;
	__u64	collective_packets;
	__u64	unclassified_packets;	/* not collective, malformed or unknown job */
	__u64	malformed_packets;
	__u64	red_drops;		/* non-ECT packets RED would have marked */
	__u64	phantom_overlimits;	/* packets beyond the phantom queue's
					 * capacity (the real queue drops those)
					 */
	__u64	max_backlog_ns;		/* phantom queue high-water mark */
};

/*
 * Map "symphony_meta", one entry, the program's own: the network
 * namespace (device and inode of /proc/self/ns/net) whose devices the
 * ports map's ifindexes name, recorded at the first attach: an ifindex
 * means another device in another namespace, so symofan serves the
 * ports of that namespace only.  The program does not read it.
 */
struct symphony_bpf_meta {
	__u64	netns_dev;
	__u64	netns_ino;
};

/* One of "symphony_job_locks". */
struct symphony_bpf_job_lock {
	struct bpf_spin_lock	lock;
};

#endif /* _SYMPHONY_BPF_H */
