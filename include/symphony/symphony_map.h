/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * symphony_map.h - value layout of the Symphony jobs map, a BPF array map
 * indexed by job id (key: __u32).  The qdisc reads and writes it on the
 * datapath, the agent creates it with this struct's BTF, and bpftool shows
 * its fields.  Without a map, the qdisc keeps the same structs itself.
 */
#ifndef _SYMPHONY_MAP_H
#define _SYMPHONY_MAP_H

#include <linux/types.h>

/* Bumped whenever struct symphony_job or the registry's maps change:
 * 2 added the reset handshake (reset_gen, applied_gen), the registry's
 * job_locks map and its owning datapath (symphony_jobs_meta.owner).
 */
#define SYMPHONY_JOB_LAYOUT_VERSION	2

/* symphony_job.flags */
#define SYMPHONY_JOB_F_ACTIVE	0x1	/* state holds a step: a packet was seen */

struct symphony_job {
	/* Per-job state block of Algorithm 1 */
	__u32	step_min;		/* lowest step in flight */
	__u32	psn_rec;		/* max PSN of step_min in this window */
	__u32	alpha;			/* aggressiveness, >= 1 */
	__u32	cnt_total;		/* packets in this window */
	__u32	cnt_op;			/* outpacing packets in this window */
	__u32	flags;			/* SYMPHONY_JOB_F_* */
	__u64	window_start_ns;	/* start of the window, CLOCK_MONOTONIC ns */
	__u64	last_seen_ns;		/* last packet of the job, CLOCK_MONOTONIC
					 * ns rounded down to a multiple of T_win
					 */

	/* Parameters of this job; 0 takes the qdisc's value */
	__u32	k_ppm;			/* gain k, ppm */
	__u32	tau_ppm;		/* tolerance tau, ppm */
	__u32	warmup_psn;		/* N_warmup, PSN units */
	__u32	sample_min_packets;	/* N_sample, packets per window */

	/*
	 * The reset handshake.  Only the datapath writes the state block and
	 * the counters, under the job's lock; the agent asks for a fresh
	 * block (job add, job del) by bumping reset_gen with one store, and
	 * the datapath, finding reset_gen != applied_gen on the job's next
	 * packet, clears state and counters (not the parameters above) and
	 * copies reset_gen to applied_gen, under the same lock.  Until then
	 * readers take the block for a cleared one.
	 */
	__u32	reset_gen;		/* written by the agent only */
	__u32	applied_gen;		/* written by the datapath only */

	/* Counters (packets count GSO segments) */
	__u64	packets;
	__u64	bytes;
	__u64	outpacing_packets;
	__u64	symphony_marks;
	__u64	red_marks;
	__u64	windows;		/* windows that updated alpha */
};

/*
 * The agent's job registry (symofan job ...), next to the jobs map in its
 * pin folder: a hash map "job_registry" from job id (__u32) to this entry
 * for every job handed out, and a one-entry array "job_meta" that says
 * which layout the folder's maps have.  The qdisc reads neither.
 */
#define SYMPHONY_JOB_NAME_LEN		32
#define SYMPHONY_JOBS_META_MAGIC	0x53594d4a	/* "SYMJ" */

struct symphony_job_entry {
	char	name[SYMPHONY_JOB_NAME_LEN];	/* NUL-terminated, may be "" */
	__u64	created_ns;		/* CLOCK_REALTIME ns at "job add" */
	__u64	idle_since_ns;		/* CLOCK_MONOTONIC ns: last time the
					 * agent saw the job's packets move
					 */
	__u64	packets_seen;		/* the job's packets at idle_since_ns */
	/* the parameters given at "job add"/"job set" (0: the qdisc's) */
	__u32	k_ppm;
	__u32	tau_ppm;
	__u32	warmup_psn;
	__u32	sample_min_packets;
};

/* symphony_jobs_meta.owner: which datapath updates the registry's jobs */
enum symphony_jobs_owner {
	SYMPHONY_JOBS_OWNER_NONE,	/* none yet */
	SYMPHONY_JOBS_OWNER_QDISC,	/* sch_symphony qdiscs (jobs_map) */
	SYMPHONY_JOBS_OWNER_BPF,	/* the tc-BPF program (symofan symphony) */
};

/*
 * The two datapaths serialise a job's updates on different locks (the
 * module's own, the program's "job_locks" map of the registry), so one
 * registry serves one of them: the first to use it records itself in
 * owner, and the other is refused while it holds the registry.
 */
struct symphony_jobs_meta {
	__u32	magic;			/* SYMPHONY_JOBS_META_MAGIC */
	__u32	layout_version;		/* SYMPHONY_JOB_LAYOUT_VERSION */
	__u32	nr_jobs;		/* slots of the jobs map */
	__u32	owner;			/* enum symphony_jobs_owner */
};

#endif /* _SYMPHONY_MAP_H */
