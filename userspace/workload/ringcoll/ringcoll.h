/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ringcoll.h - one rank of ring collectives over emulated RoCEv2 (or UEC),
 * with DCQCN senders: the traffic of AI-training collectives, from one
 * process per host (network namespace).  What the parts of ringcoll
 * share: limits, the run's state (jobs, their queue pairs and messages,
 * the per-iteration records, counters) and the arithmetic of the step
 * plan.
 *
 * Each job is a ring of ranks given by their IPv4 addresses; this process
 * is the rank whose address is local.  A collective (ring AllReduce:
 * reduce-scatter then all-gather, 2(N-1) steps; AllGather or
 * ReduceScatter, N-1 steps) runs on C parallel 1D rings (channels), each
 * with its own queue pair to the next rank; with --grid RxC, a 2D
 * (hierarchical) AllReduce runs on the row and column rings through this
 * rank.  --flows picks how a channel's steps map to queue pairs and PSNs:
 * legacy (--step-qps, --step-flows as given, PSNs running on per queue
 * pair), astra (Astra-Sim's ns-3 frontend: a queue pair per step, each
 * message a new flow) or nccl (a queue pair per channel); astra and nccl
 * number each message's PSNs from 0.
 *
 * The result (per job and iteration: start, end, per-step start and
 * arrival times of this rank; bytes, packets, retransmissions, CNPs, a
 * rate timeline) is JSON on stdout or in --out; tc-scripts/ringrun.sh
 * runs the ranks of a testbed and merges their files into CCTs and the
 * step overlap over time.
 *
 * The parts, each using only those above it in this list:
 *   ringcoll.h     this header
 *   args.c         usage, options and --job, rank placement, the step plan
 *                  and its queue pairs (--flows), the --cc profile's
 *                  constants under the --dcqcn-* options
 *   transport.c    sockets; go-back-N with DCQCN pacing: transmit, ACK, NAK,
 *                  CNP, the receive path
 *   collective.c   steps, iterations, the scheduler loop and its pump
 *   report.c       the JSON result
 *   main.c         the order of it all
 */
#ifndef SYMOFAN_RINGCOLL_H
#define SYMOFAN_RINGCOLL_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

#include "workload/dcqcn.h"
#include "workload/roce_frame.h"
#include "workload/rto.h"
#include "../workload.h"

#define MAX_JOBS		8
#define MAX_CHANNELS		16
#define MAX_DIMS		2	/* 1D rings, or rows and columns */
#define MAX_DCQCN_OPTS		32
#define MAX_RANKS		64
#define MAX_STEPS		(2 * (MAX_RANKS - 1))
#define MAX_ITERATIONS		1000
#define MAX_RATE_SAMPLES	20000
#define PSN_MASK		0xffffffU
#define MAX_BURST_NS		200000	/* catch-up after a late wake-up */
#define ETH_OVERHEAD		18	/* Ethernet header and FCS */
#define ACK_EVERY		64	/* packets per cumulative ACK */
/* A done rank whose previous ranks sent no close notice (lost, or an
 * older ringcoll) exits after this many of the longest retransmission
 * timeouts without a packet: a sender still missing its last ACK would
 * have resent by then (TCP's TIME-WAIT, rto.h's ceiling)
 */
#define TIME_WAIT_RTOS		2
/* ACKs, NAKs, CNPs and hellos are ECN-capable too: a RED queue past its
 * maximum marks them (their receivers ignore CE) instead of dropping them,
 * which would stall go-back-N
 */
#define ROCE_ECN_CONTROL	ROCE_ECN_ECT0
#define HELLO_INTERVAL_NS	10000000ULL

enum exit_code { EXIT_OK, EXIT_FAIL, EXIT_USAGE };

enum collective { COLL_ALLREDUCE, COLL_ALLGATHER, COLL_REDUCESCATTER };
/* "allreduce", "allgather", "reducescatter" (args.c) */
extern const char *const coll_names[];

/* How steps map to queue pairs (--flows; args.c's flows_names[]) */
enum flows {
	FLOWS_LEGACY,		/* --step-qps and --step-flows as given */
	FLOWS_ASTRA,		/* a queue pair per step, each a new flow */
	FLOWS_NCCL,		/* a queue pair per channel, steps in turn */
	NR_FLOWS,
};
extern const char *const flows_names[];

/* One RDMA WRITE message: a step's data on a channel. */
struct message {
	__u32	step;			/* the collective's step */
	__u64	seq_start;		/* sequence number of its first packet */
	__u32	count;			/* packets */
	__u32	bytes;
	__u64	start_ns;		/* the step started (queued) */
	__u64	sent_ns;		/* its last packet first left */
	__u64	acked_ns;
	__u64	recv_ns;		/* the previous rank's step arrived */
};

/* A queue pair of a job's channel: this rank's to the next rank (tx) and
 * from the previous one (rx).  Sequence numbers are 64-bit here, running
 * on over the queue pair's messages; the PSN on the wire is their low 24
 * bits, or with --flows astra and nccl the packet's index in its message.
 */
struct channel {
	struct job	*job;
	__u32		index;			/* the channel */
	__u32		slot;			/* its queue pair, 0..step_qps-1 */
	__u32		dim;			/* 0: the (row) ring, 1: column */
	__u32		qpn;			/* DestQP on the wire */
	__u32		succ, pred;		/* addresses in this ring */
	/* tx */
	struct dcqcn	cc;
	__u64		next_seq;		/* next to transmit */
	__u64		end_seq;		/* after the last queued packet */
	__u64		acked_seq;		/* every packet below is acked */
	__u64		high_seq;		/* highest transmitted + 1 */
	__u64		next_tx_ns;
	__u64		ack_deadline_ns;	/* retransmission timeout */
	struct rto_state rto;			/* its length (rto.h) */
	__u32		queued;			/* messages queued this iteration */
	__u32		acked;
	/* rx */
	__u64		expected_seq;
	__u64		recv_total;		/* messages complete, all iterations */
	__u64		last_cnp_ns;
	__u64		last_nak_ns;
	__u64		nak_seq;
	__u32		final_acks_lost;	/* --lose-final-acks so far */
	bool		pred_closed;		/* its sender sent ROCE_OP_CLOSE */
	/* the plan's: packets per iteration, and the sequence number of
	 * each message of an iteration within it (per-message PSNs)
	 */
	__u64		iter_packets;
	__u64		msg_first[MAX_STEPS];
	/* the current iteration's messages, in order */
	struct message	msg[MAX_STEPS];
};

struct iteration_record {
	__u64	start_ns, end_ns;
	__u64	step_start_ns[MAX_CHANNELS][MAX_STEPS];
	__u64	step_recv_ns[MAX_CHANNELS][MAX_STEPS];
	/* the rate its first packet first left at, bit/s */
	__u64	step_first_rate_bps[MAX_CHANNELS][MAX_STEPS];
};

struct job {
	__u32		id;
	__u32		nranks;
	__u32		rank;
	__u32		addr[MAX_RANKS];	/* network byte order */
	__u32		iter;			/* current iteration */
	bool		iter_running;
	bool		done;
	bool		succ_ready[MAX_DIMS];	/* the next ranks answered hello */
	__u64		last_hello_ns[MAX_DIMS];
	__u64		last_progress_ns;
	__u32		next_step[MAX_CHANNELS];	/* to start, per channel */
	/* queue pair s of channel c: ch[dim][c * step_qps + s] */
	struct channel	ch[MAX_DIMS][MAX_CHANNELS];
	struct iteration_record *rec;		/* [iterations] */
};

struct rate_sample {
	__u64	t_ns;
	__u32	job, channel, slot;
	__u64	rate_bps;
};

struct ringcoll {
	enum collective	coll;
	__u32		steps;			/* per collective */
	__u32		dims;			/* 1, or 2 with --grid */
	__u32		grid_rows, grid_cols;
	__u8		step_dim[MAX_STEPS];	/* the ring each step runs on */
	__u8		step_pos[MAX_STEPS];	/* its place among that ring's */
	__u64		step_size[MAX_STEPS];	/* its bytes, all channels */
	__u32		dim_steps[MAX_DIMS][MAX_STEPS];	/* a ring's steps, in order */
	__u32		dim_count[MAX_DIMS];
	/* --dcqcn-* options, applied once the rate is known */
	struct { int which; const char *value; } dcqcn_opt[MAX_DCQCN_OPTS];
	__u32		nr_dcqcn_opts;
	__u64		size;			/* bytes per rank per collective */
	__u32		channels;
	enum flows	flows;
	bool		psn_per_message;	/* astra, nccl: PSN from 0 per message */
	bool		step_qps_set;		/* --step-qps given */
	__u32		step_qps;		/* queue pairs per channel */
	__u32		nr_qps;			/* channels * step_qps */
	__u32		iterations;
	__u32		mtu;			/* payload bytes per packet */
	__u64		rate_bps;
	bool		fixed_rate;
	bool		step_flows;		/* a step starts as a new flow */
	__u32		lose_final_acks;	/* fault injection (args.c): */
	__u32		lose_acks_rank;		/* by this rank */
	bool		lose_closes;		/* no close notice sent */
	bool		uec;
	__u64		rto_ns;			/* the timeout's minimum */
	__u32		step_base;
	struct workload_common common;		/* start, timeout, local, out */
	__u64		launch_ns;
	__u64		done_ns;		/* every job completed */
	__u64		last_rx_ns;
	enum dcqcn_profile cc_profile;		/* --cc */
	struct dcqcn_params cc;			/* its constants, --dcqcn-* applied */
	__u32		nr_jobs;
	struct job	jobs[MAX_JOBS];
	int		tx_fd, ctl_fd, rx_fd, rx_uec_fd; /* ctl: ACK, NAK, CNP */
	__u16		ip_id;
	__u64		nic_next_ns;		/* the line rate, shared */
	/* pacing, for the run's guard: how late the pump ran after the
	 * time it asked to transmit at (its lag), the time lost past
	 * MAX_BURST_NS of catch-up (slips: the pace moves later), the
	 * longest back-to-back run of data packets, refused sends
	 */
	__u64		pump_due_ns;		/* 0: nothing was due */
	__u64		worst_lag_ns, slip_ns, slips;
	__u32		burst, max_burst;
	__u64		refused_sends, control_unsent;
	__u32		rr_next;		/* round-robin over queue pairs */
	/* counters */
	__u64		packets_sent, bytes_sent, retransmits;
	__u64		packets_received, ce_received, cnps_sent, cnps_received;
	__u64		naks_sent, naks_received, acks_sent, dup_packets;
	__u64		flow_starts;		/* --step-flows, astra: rates reset */
	__u64		rto_timeouts;		/* retransmission timeouts */
	__u64		closes_sent, closes_received;
	__u32		nr_samples;
	struct rate_sample *samples;
};

/* Bytes of step @k per channel; the first channels carry the remainder. */
static inline __u32 step_bytes(const struct ringcoll *rc, __u32 k, __u32 channel)
{
	__u64 size = rc->step_size[k];
	__u64 bytes = size / rc->channels + (channel < size % rc->channels);

	return bytes ? bytes : 1;
}

/* Packets of step @k's message on @channel. */
static inline __u32 step_packets(const struct ringcoll *rc, __u32 k, __u32 channel)
{
	return (step_bytes(rc, k, channel) + rc->mtu - 1) / rc->mtu;
}

/* Messages per iteration on queue pair @slot of a channel in ring @dim:
 * the ring's steps at positions slot, slot + S, slot + 2S, ...
 */
static inline __u32 qp_messages(const struct ringcoll *rc, __u32 dim, __u32 slot)
{
	__u32 n = rc->dim_count[dim];

	return slot < n ? (n - slot + rc->step_qps - 1) / rc->step_qps : 0;
}

/* args.c: the command line; each returns 0, or -1 after a message */
void usage(FILE *f);
int parse_args(struct ringcoll *rc, int argc, char **argv);
int check_jobs(const struct ringcoll *rc);
void plan_steps(struct ringcoll *rc, __u32 nranks);
int plan_flows(struct ringcoll *rc);
int place_ranks(struct ringcoll *rc);
int apply_dcqcn_opts(struct ringcoll *rc);

/* transport.c: packets on the wire */
int open_sockets(struct ringcoll *rc);
int transmit(struct ringcoll *rc, struct channel *ch, __u64 now);
void receive(struct ringcoll *rc, int fd, bool uec_port);
void hello(struct ringcoll *rc, struct job *j, __u32 d, __u64 now);
void send_close(struct ringcoll *rc, struct job *j, struct channel *ch);

/* collective.c: the run */
int init_jobs(struct ringcoll *rc);
enum exit_code run_collectives(struct ringcoll *rc);

/* report.c: the result; 0, or -1 after a message */
int print_report(const struct ringcoll *rc, FILE *f);

#endif /* SYMOFAN_RINGCOLL_H */
