// SPDX-License-Identifier: GPL-2.0
/*
 * ringcoll.c - one rank of ring collectives over emulated RoCEv2 (or UEC),
 * with DCQCN senders: the traffic of AI-training collectives, from one
 * process per host (network namespace).
 *
 * Each job is a ring of ranks given by their IPv4 addresses; this process
 * is the rank whose address is local.  A collective (ring AllReduce:
 * reduce-scatter then all-gather, 2(N-1) steps; AllGather or
 * ReduceScatter, N-1 steps) runs on C parallel 1D rings (channels), each
 * with its own queue pair to the next rank; with --grid RxC, a 2D
 * (hierarchical) AllReduce runs on the row and column rings through this
 * rank.  Step k+1 of a channel starts
 * when the previous rank's step-k data has fully arrived, as in a real
 * ring.  A channel sends its steps one after the other on its queue pair,
 * as NCCL does; with --step-qps S, step k goes on the channel's queue pair
 * k mod S, so that up to S steps of a rank send at once and share its NIC
 * (each step's transfer its own flow, as in the Symphony paper's
 * simulations, where a step that starts early competes with the step
 * still being sent).  With --step-flows each step's transfer also starts
 * as a new flow would: at the line rate with fresh DCQCN state, rather
 * than at the rate its queue pair's previous step was left at.
 *
 * A step's data is one RDMA WRITE message (FIRST/MIDDLE/LAST or ONLY) of
 * size/N/C bytes: UDP destination port 4791, the step in the UDP
 * source port (step base + global step), the job in the BTH reserved bits,
 * the channel's queue pair in DestQP, PSNs running on per queue pair,
 * ECT(0) in the IP header: what sch_symphony parses.
 *
 * Reliability is RoCE's go-back-N: the receiver accepts packets in PSN
 * order, ACKs each complete message and NAKs a gap; the sender rewinds on
 * a NAK or after a retransmission timeout.  Congestion control is DCQCN
 * (include/workload/dcqcn.h): the receiver sends a CNP for a CE-marked
 * packet, at most one per queue pair per --cnp-interval, and the sender
 * paces each queue pair at its DCQCN rate; --fixed-rate sends at --rate.
 *
 * The result (per job and iteration: start, end, per-step start and
 * arrival times of this rank; bytes, packets, retransmissions, CNPs, a
 * rate timeline) is JSON on stdout or in --out; tc-scripts/ringrun.sh
 * runs the ranks of a testbed and merges their files into CCTs and the
 * step overlap over time.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <ifaddrs.h>
#include <inttypes.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/socket.h>

#include "workload/dcqcn.h"
#include "workload/roce_frame.h"
#include "workload_util.h"

const char *tool_name = "ringcoll";

#define MAX_JOBS		8
#define MAX_CHANNELS		16
#define MAX_DIMS		2	/* 1D rings, or rows and columns */
#define MAX_DCQCN_OPTS		16
#define MAX_RANKS		64
#define MAX_STEPS		(2 * (MAX_RANKS - 1))
#define MAX_ITERATIONS		1000
#define MAX_RATE_SAMPLES	20000
#define PSN_MASK		0xffffffU
#define MAX_BURST_NS		200000	/* catch-up after a late wake-up */
#define ETH_OVERHEAD		18	/* Ethernet header and FCS */
#define ACK_EVERY		64	/* packets per cumulative ACK */
#define LINGER_RTOS		5	/* quiet RTOs before a done rank exits */
/* ACKs, NAKs, CNPs and hellos are ECN-capable too: a RED queue past its
 * maximum marks them (their receivers ignore CE) instead of dropping them,
 * which would stall go-back-N
 */
#define ROCE_ECN_CONTROL	ROCE_ECN_ECT0
#define HELLO_INTERVAL_NS	10000000ULL

enum exit_code { EXIT_OK, EXIT_FAIL, EXIT_USAGE };

enum collective { COLL_ALLREDUCE, COLL_ALLGATHER, COLL_REDUCESCATTER };
static const char *const coll_names[] = { "allreduce", "allgather",
					  "reducescatter" };

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
 * from the previous one (rx).  Sequence numbers are 64-bit here, their
 * low 24 bits the PSN on the wire.
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
	__u32		queued;			/* messages queued this iteration */
	__u32		acked;
	/* rx */
	__u64		expected_seq;
	__u64		recv_total;		/* messages complete, all iterations */
	__u64		last_cnp_ns;
	__u64		last_nak_ns;
	__u64		nak_seq;
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
	__u64		step_size[MAX_STEPS];	/* its bytes, all channels */
	__u32		dim_steps[MAX_DIMS][MAX_STEPS];	/* a ring's steps, in order */
	__u32		dim_count[MAX_DIMS];
	/* --dcqcn-* options, applied once the rate is known */
	struct { int which; const char *value; } dcqcn_opt[MAX_DCQCN_OPTS];
	__u32		nr_dcqcn_opts;
	__u64		size;			/* bytes per rank per collective */
	__u32		channels;
	__u32		step_qps;		/* queue pairs per channel */
	__u32		nr_qps;			/* channels * step_qps */
	__u32		iterations;
	__u32		mtu;			/* payload bytes per packet */
	__u64		rate_bps;
	bool		fixed_rate;
	bool		step_flows;		/* a step starts as a new flow */
	bool		uec;
	__u64		cnp_interval_ns;
	__u64		rto_ns;
	__u32		step_base;
	struct workload_common common;		/* start, timeout, local, out */
	__u64		launch_ns;
	__u64		done_ns;		/* every job completed */
	__u64		last_rx_ns;
	struct dcqcn_params cc;
	__u32		nr_jobs;
	struct job	jobs[MAX_JOBS];
	int		tx_fd, rx_fd, rx_uec_fd;
	__u16		ip_id;
	__u64		nic_next_ns;		/* the line rate, shared */
	__u32		rr_next;		/* round-robin over queue pairs */
	/* counters */
	__u64		packets_sent, bytes_sent, retransmits;
	__u64		packets_received, ce_received, cnps_sent, cnps_received;
	__u64		naks_sent, naks_received, acks_sent, dup_packets;
	__u64		flow_starts;		/* --step-flows: rates reset */
	__u32		nr_samples;
	struct rate_sample *samples;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: ringcoll [options] --job ID=ADDR,ADDR,... [--job ...]\n"
"  Runs this host's rank of ring collectives over emulated RoCEv2 with\n"
"  DCQCN senders; the rank is the position of a local address in ADDR...\n"
"  --job ID=ADDRS        a job (ID 0..8191) and its ring, in order (2..64 IPv4)\n"
"  --collective NAME     allreduce (2(N-1) steps), allgather, reducescatter\n"
"                        (N-1 steps); default allreduce\n"
"  --size BYTES          data per rank per collective (k, m, g: 1024s;\n"
"                        default 1m); a step sends size/N/channels bytes\n"
"  --channels C          parallel 1D rings, one queue pair each (1..16, default 1)\n"
"  --step-qps S          queue pairs per channel: step k on queue pair k mod S,\n"
"                        so up to S steps send at once (1D rings; channels x S\n"
"                        at most 16; default 1: a channel's steps in turn)\n"
"  --step-flows          each step starts as a new flow: its first packet\n"
"                        resets its queue pair's DCQCN to the line rate\n"
"  --iterations I        collectives in a row (1..1000, default 1)\n"
"  --mtu BYTES           RDMA payload per packet (64..8192, default 1024)\n"
"  --rate RATE           line rate: DCQCN's start and ceiling, or the fixed\n"
"                        rate (kbit, mbit, gbit or bit/s; default 100mbit)\n"
"  --fixed-rate          no DCQCN: every queue pair sends at --rate\n"
"  DCQCN (defaults: the DCQCN paper and NIC practice at 40 Gbit/s, steps\n"
"  and byte counter scaled to --rate):\n"
"  --dcqcn-g N           alpha gain g = 1/N (default 256)\n"
"  --dcqcn-alpha-us US   alpha decay period K (default 55)\n"
"  --dcqcn-timer-us US   rate-increase timer T (default 300)\n"
"  --dcqcn-bytes BYTES   rate-increase byte counter B (default 2 ms of --rate)\n"
"  --dcqcn-f N           fast-recovery stages F (default 5)\n"
"  --dcqcn-rai RATE      additive increase (default --rate / 1000)\n"
"  --dcqcn-rhai RATE     hyper increase (default --rate / 100)\n"
"  --dcqcn-min-rate RATE floor of a cut (default --rate / 1000)\n"
"  --cnp-interval US     at most one CNP per queue pair per US microseconds (default 50)\n"
"  --rto MS              retransmission timeout, milliseconds (default 20)\n"
"  --proto rocev2|uec    data framing (default rocev2; UEC on UDP 4793)\n"
"  --step-base PORT      UDP source port of step 0 (default 49152)\n"
"  --start-at NS         start at this CLOCK_REALTIME time, ns (a common start)\n"
"  --timeout SEC         fail when a neighbour is silent this long (default 10)\n"
"  --local ADDR          this rank's address (default: the local one of the ring)\n"
"  --out FILE            JSON result (default stdout)\n"
"  --grid ROWSxCOLS      2D rings: the job's ranks are a grid (row-major);\n"
"                        AllReduce runs reduce-scatter along rows, AllReduce\n"
"                        along columns, all-gather along rows\n"
"  --help\n"
"Needs CAP_NET_RAW (a raw socket sets each packet's UDP source port and ECN)\n"
"and UDP port 4791 (4793) free in its network namespace.\n");
}

static int parse_job(struct ringcoll *rc, char *spec)
{
	struct job *j = &rc->jobs[rc->nr_jobs];
	char *eq = strchr(spec, '='), *tok, *save = NULL;
	__u32 id, k;

	if (rc->nr_jobs == MAX_JOBS)
		return bad("--job", spec, "at most 8 jobs");
	if (!eq)
		return bad("--job", spec, "wants ID=ADDR,ADDR,...");
	*eq = '\0';
	if (parse_u32_range("--job", spec, 0, (1U << ROCE_JOB_BITS) - 1, &id))
		return -1;
	for (k = 0; k < rc->nr_jobs; k++)
		if (rc->jobs[k].id == id)
			return bad("--job", spec, "job given twice");
	memset(j, 0, sizeof(*j));
	j->id = id;
	for (tok = strtok_r(eq + 1, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		struct in_addr a;

		if (j->nranks == MAX_RANKS)
			return bad("--job", tok, "at most 64 ranks");
		if (inet_pton(AF_INET, tok, &a) != 1)
			return bad("--job", tok, "not an IPv4 address");
		for (k = 0; k < j->nranks; k++)
			if (j->addr[k] == a.s_addr)
				return bad("--job", tok, "address twice in the ring");
		j->addr[j->nranks++] = a.s_addr;
	}
	if (j->nranks < 2)
		return bad("--job", eq + 1, "a ring needs 2 or more addresses");
	rc->nr_jobs++;
	return 0;
}

/*
 * The neighbours of each ring: 1D, the ring of every rank in order; on a
 * ROWS x COLS grid (ranks row-major), the row ring (dim 0) and the column
 * ring (dim 1) through this rank.
 */
static void set_neighbours(struct ringcoll *rc, struct job *j)
{
	__u32 n = j->nranks, r = j->rank, c, row, col, C = rc->grid_cols;

	for (c = 0; c < MAX_CHANNELS; c++) {
		struct channel *ch = &j->ch[0][c];

		if (rc->dims == 1) {
			ch->succ = j->addr[(r + 1) % n];
			ch->pred = j->addr[(r + n - 1) % n];
			continue;
		}
		row = r / C;
		col = r % C;
		ch->succ = j->addr[row * C + (col + 1) % C];
		ch->pred = j->addr[row * C + (col + C - 1) % C];
		ch = &j->ch[1][c];
		ch->succ = j->addr[((row + 1) % rc->grid_rows) * C + col];
		ch->pred = j->addr[((row + rc->grid_rows - 1) % rc->grid_rows) * C + col];
	}
}

/*
 * The steps of a collective: on one ring, 2(N-1) (AllReduce) or N-1 steps
 * of size/N; on a grid, hierarchical AllReduce: reduce-scatter along the
 * row (C-1 steps of size/C), AllReduce of that share along the column
 * (2(R-1) steps of size/C/R), all-gather along the row (C-1 of size/C).
 */
static void plan_steps(struct ringcoll *rc, __u32 nranks)
{
	__u32 k = 0, i, R = rc->grid_rows, C = rc->grid_cols;

#define ADD_STEPS(n, dim, bytes) \
	for (i = 0; i < (n); i++, k++) { \
		rc->step_dim[k] = (dim); \
		rc->step_size[k] = (bytes); \
	}
	if (rc->dims == 1) {
		ADD_STEPS(rc->coll == COLL_ALLREDUCE ? 2 * (nranks - 1) : nranks - 1,
			  0, rc->size / nranks);
	} else {
		ADD_STEPS(C - 1, 0, rc->size / C);
		ADD_STEPS(2 * (R - 1), 1, rc->size / C / R);
		ADD_STEPS(C - 1, 0, rc->size / C);
	}
#undef ADD_STEPS
	rc->steps = k;
	for (k = 0; k < rc->steps; k++) {
		__u32 d = rc->step_dim[k];

		rc->dim_steps[d][rc->dim_count[d]++] = k;
	}
}

/* Find this host's rank in each job. */
static int place_ranks(struct ringcoll *rc)
{
	char buf[INET_ADDRSTRLEN];
	__u32 n, k;

	for (n = 0; n < rc->nr_jobs; n++) {
		struct job *j = &rc->jobs[n];
		int rank = -1;

		for (k = 0; k < j->nranks; k++) {
			if (rc->common.local ? j->addr[k] == rc->common.local :
			    addr_is_local(j->addr[k])) {
				if (rank >= 0) {
					fprintf(stderr, "ringcoll: job %u: two of its addresses are local; pick one with --local\n",
						j->id);
					return -1;
				}
				rank = k;
			}
		}
		if (rank < 0) {
			inet_ntop(AF_INET, &rc->common.local, buf, sizeof(buf));
			fprintf(stderr, "ringcoll: job %u: %s of its addresses is this host's\n",
				j->id, rc->common.local ? buf : "none");
			return -1;
		}
		j->rank = rank;
		set_neighbours(rc, j);
	}
	return 0;
}

static int parse_args(struct ringcoll *rc, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "job", required_argument, NULL, 'j' },
		{ "collective", required_argument, NULL, 'c' },
		{ "size", required_argument, NULL, 's' },
		{ "channels", required_argument, NULL, 'C' },
		{ "step-qps", required_argument, NULL, 'Q' },
		{ "step-flows", no_argument, NULL, 1009 },
		{ "iterations", required_argument, NULL, 'i' },
		{ "mtu", required_argument, NULL, 'm' },
		{ "rate", required_argument, NULL, 'r' },
		{ "fixed-rate", no_argument, NULL, 'F' },
		{ "cnp-interval", required_argument, NULL, 'N' },
		{ "dcqcn-g", required_argument, NULL, 1001 },
		{ "dcqcn-alpha-us", required_argument, NULL, 1002 },
		{ "dcqcn-timer-us", required_argument, NULL, 1003 },
		{ "dcqcn-bytes", required_argument, NULL, 1004 },
		{ "dcqcn-f", required_argument, NULL, 1005 },
		{ "dcqcn-rai", required_argument, NULL, 1006 },
		{ "dcqcn-rhai", required_argument, NULL, 1007 },
		{ "dcqcn-min-rate", required_argument, NULL, 1008 },
		{ "rto", required_argument, NULL, 'R' },
		{ "proto", required_argument, NULL, 'p' },
		{ "step-base", required_argument, NULL, 'b' },
		{ "start-at", required_argument, NULL, 'S' },
		{ "timeout", required_argument, NULL, 't' },
		{ "local", required_argument, NULL, 'l' },
		{ "out", required_argument, NULL, 'o' },
		{ "grid", required_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	__u32 v, n;
	int c;

	rc->coll = COLL_ALLREDUCE;
	rc->size = 1 << 20;
	rc->channels = 1;
	rc->step_qps = 1;
	rc->iterations = 1;
	rc->mtu = 1024;
	rc->rate_bps = 100000000ULL;
	rc->cnp_interval_ns = 50000;
	rc->rto_ns = 20000000ULL;
	rc->common.timeout_ns = 10000000000ULL;
	rc->step_base = 49152;
	rc->dims = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			exit(EXIT_OK);
		case 'j':
			if (parse_job(rc, optarg))
				return -1;
			break;
		case 'c':
			for (n = 0; n < 3; n++)
				if (!strcmp(optarg, coll_names[n]))
					break;
			if (n == 3)
				return bad("--collective", optarg,
					   "allreduce, allgather or reducescatter");
			rc->coll = n;
			break;
		case 's':
			if (parse_size(optarg, &rc->size) || !rc->size ||
			    rc->size > (1ULL << 40))
				return bad("--size", optarg, "bytes 1..1t (k, m, g)");
			break;
		case 'C':
			if (parse_u32_range("--channels", optarg, 1, MAX_CHANNELS,
					    &rc->channels))
				return -1;
			break;
		case 'Q':
			if (parse_u32_range("--step-qps", optarg, 1, MAX_CHANNELS,
					    &rc->step_qps))
				return -1;
			break;
		case 1009:
			rc->step_flows = true;
			break;
		case 'i':
			if (parse_u32_range("--iterations", optarg, 1,
					    MAX_ITERATIONS, &rc->iterations))
				return -1;
			break;
		case 'm':
			if (parse_u32_range("--mtu", optarg, 64, 8192, &rc->mtu))
				return -1;
			break;
		case 'r':
			if (parse_rate(optarg, &rc->rate_bps) ||
			    rc->rate_bps < 10000 || rc->rate_bps > 400000000000ULL)
				return bad("--rate", optarg,
					   "10kbit..400gbit (kbit, mbit, gbit)");
			break;
		case 'F':
			rc->fixed_rate = true;
			break;
		case 'N':
			if (parse_u32_range("--cnp-interval", optarg, 0, 1000000, &v))
				return -1;
			rc->cnp_interval_ns = v * 1000ULL;
			break;
		case 'R':
			if (parse_u32_range("--rto", optarg, 1, 60000, &v))
				return -1;
			rc->rto_ns = v * 1000000ULL;
			break;
		case 'p':
			if (strcmp(optarg, "rocev2") && strcmp(optarg, "uec"))
				return bad("--proto", optarg, "rocev2 or uec");
			rc->uec = !strcmp(optarg, "uec");
			break;
		case 'b':
			if (parse_u32_range("--step-base", optarg, 1, 65535,
					    &rc->step_base))
				return -1;
			break;
		case 'S': case 't': case 'l': case 'o':
			if (common_opt(&rc->common, c, optarg) < 0)
				return -1;
			break;
		case 1001: case 1002: case 1003: case 1004:
		case 1005: case 1006: case 1007: case 1008:
			if (rc->nr_dcqcn_opts == MAX_DCQCN_OPTS)
				return bad("--dcqcn-*", optarg, "too many");
			rc->dcqcn_opt[rc->nr_dcqcn_opts].which = c;
			rc->dcqcn_opt[rc->nr_dcqcn_opts++].value = optarg;
			break;
		case 'g':
			if (sscanf(optarg, "%ux%u", &rc->grid_rows, &rc->grid_cols) != 2 ||
			    rc->grid_rows < 2 || rc->grid_cols < 2 ||
			    rc->grid_rows * rc->grid_cols > MAX_RANKS)
				return bad("--grid", optarg,
					   "ROWSxCOLS, each >= 2, at most 64 ranks");
			rc->dims = 2;
			break;
		default:
			fprintf(stderr, "ringcoll: unknown option or missing value: '%s'\n",
				argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "ringcoll: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (!rc->nr_jobs) {
		fprintf(stderr, "ringcoll: no --job\n");
		return -1;
	}
	if (rc->channels * rc->step_qps > MAX_CHANNELS) {
		fprintf(stderr, "ringcoll: --channels %u x --step-qps %u: more than %u queue pairs\n",
			rc->channels, rc->step_qps, MAX_CHANNELS);
		return -1;
	}
	if (rc->step_flows && rc->fixed_rate) {
		fprintf(stderr, "ringcoll: --step-flows resets DCQCN: not with --fixed-rate\n");
		return -1;
	}
	if (rc->step_qps > 1 && rc->dims > 1) {
		fprintf(stderr, "ringcoll: --step-qps %u: 1D rings only, not with --grid\n",
			rc->step_qps);
		return -1;
	}
	rc->nr_qps = rc->channels * rc->step_qps;
	return 0;
}

/* The --dcqcn-* options over the defaults scaled to --rate. */
static int apply_dcqcn_opts(struct ringcoll *rc)
{
	struct dcqcn_params *p = &rc->cc;
	__u32 i, v;
	__u64 r;

	for (i = 0; i < rc->nr_dcqcn_opts; i++) {
		const char *val = rc->dcqcn_opt[i].value;

		switch (rc->dcqcn_opt[i].which) {
		case 1001:	/* g as 1/N */
			if (parse_u32_range("--dcqcn-g", val, 1, 65536, &v))
				return -1;
			p->g_q16 = DCQCN_ONE_Q16 / v;
			break;
		case 1002:
			if (parse_u32_range("--dcqcn-alpha-us", val, 1, 1000000, &v))
				return -1;
			p->alpha_interval_ns = v * 1000ULL;
			break;
		case 1003:
			if (parse_u32_range("--dcqcn-timer-us", val, 1, 1000000, &v))
				return -1;
			p->rate_interval_ns = v * 1000ULL;
			break;
		case 1004:
			if (parse_size(val, &r) || !r)
				return bad("--dcqcn-bytes", val, "bytes > 0 (k, m, g)");
			p->byte_counter_bytes = r;
			break;
		case 1005:
			if (parse_u32_range("--dcqcn-f", val, 1, 100, &p->f))
				return -1;
			break;
		default:	/* rates */
			if (parse_rate(val, &r) || !r || r > rc->rate_bps)
				return bad(rc->dcqcn_opt[i].which == 1006 ? "--dcqcn-rai" :
					   rc->dcqcn_opt[i].which == 1007 ? "--dcqcn-rhai" :
					   "--dcqcn-min-rate", val,
					   "a rate up to --rate (kbit, mbit, gbit)");
			if (rc->dcqcn_opt[i].which == 1006)
				p->rai_bps = r;
			else if (rc->dcqcn_opt[i].which == 1007)
				p->rhai_bps = r;
			else
				p->min_rate_bps = r;
			break;
		}
	}
	return 0;
}

/* ---- sockets ---------------------------------------------------------- */

static int open_sockets(struct ringcoll *rc)
{
	static const char busy[] = " (another ringcoll in this network namespace?)";

	rc->tx_fd = open_raw_socket();
	if (rc->tx_fd < 0)
		return -1;
	rc->rx_fd = open_udp_rx(SYMPHONY_UDP_PORT_ROCEV2, busy);
	if (rc->rx_fd < 0)
		return -1;
	rc->rx_uec_fd = -1;
	if (rc->uec) {
		rc->rx_uec_fd = open_udp_rx(SYMPHONY_UDP_PORT_UEC, busy);
		if (rc->rx_uec_fd < 0)
			return -1;
	}
	return 0;
}

/* Send @len bytes of UDP payload, at @pkt + 28, to @daddr:@dport. */
static int send_udp(struct ringcoll *rc, __u32 daddr, __u16 sport, __u16 dport,
		    __u8 ecn, __u8 *pkt, size_t len)
{
	return send_raw_udp(rc->tx_fd, rc->common.local, daddr, sport, dport, ecn,
			    rc->ip_id++, pkt, len);
}

/* ---- the collective ----------------------------------------------------- */

static void sample_rate(struct ringcoll *rc, struct channel *ch, __u64 now)
{
	struct rate_sample *s;

	if (rc->nr_samples == MAX_RATE_SAMPLES)
		return;
	if (rc->nr_samples) {
		s = &rc->samples[rc->nr_samples - 1];
		if (s->job == ch->job->id && s->channel == ch->index &&
		    s->slot == ch->slot && s->rate_bps == ch->cc.rc_bps)
			return;
	}
	s = &rc->samples[rc->nr_samples++];
	*s = (struct rate_sample){ now, ch->job->id, ch->index, ch->slot,
				   ch->cc.rc_bps };
}

/* Bytes of step @k per channel; the first channels carry the remainder. */
static __u32 step_bytes(const struct ringcoll *rc, __u32 k, __u32 channel)
{
	__u64 size = rc->step_size[k];
	__u64 bytes = size / rc->channels + (channel < size % rc->channels);

	return bytes ? bytes : 1;
}

/* Queue step @k of channel @c, on the ring the step runs on. */
static void start_step(struct ringcoll *rc, struct job *j, __u32 c, __u32 k,
		       __u64 now)
{
	struct channel *ch = &j->ch[rc->step_dim[k]][c * rc->step_qps +
						      k % rc->step_qps];
	struct message *m = &ch->msg[ch->queued++];
	__u32 bytes = step_bytes(rc, k, c);

	m->step = k;
	m->bytes = bytes;
	m->count = (bytes + rc->mtu - 1) / rc->mtu;
	m->seq_start = ch->end_seq;
	m->start_ns = now;
	m->sent_ns = m->acked_ns = m->recv_ns = 0;
	ch->end_seq += m->count;
	j->rec[j->iter].step_start_ns[c][k] = now;
	if (ch->next_tx_ns < now)
		ch->next_tx_ns = now;
}

static void start_iteration(struct ringcoll *rc, struct job *j, __u64 now)
{
	__u32 c, d;

	j->iter_running = true;
	j->rec[j->iter].start_ns = now;
	j->last_progress_ns = now;
	for (c = 0; c < rc->channels; c++)
		j->next_step[c] = 0;
	for (c = 0; c < rc->nr_qps; c++)
		for (d = 0; d < rc->dims; d++)
			j->ch[d][c].queued = j->ch[d][c].acked = 0;
}

/* Whether step @k of channel @c arrived from the previous rank in this
 * iteration (the previous rank may be an iteration ahead: what it sends
 * then is recorded for the next).
 */
static bool arrived(const struct job *j, __u32 c, __u32 k)
{
	return j->rec[j->iter].step_recv_ns[c][k] != 0;
}

/* Messages per iteration on queue pair @slot of a channel in ring @dim:
 * the ring's steps at positions slot, slot + S, slot + 2S, ...
 */
static __u32 qp_messages(const struct ringcoll *rc, __u32 dim, __u32 slot)
{
	__u32 n = rc->dim_count[dim];

	return slot < n ? (n - slot + rc->step_qps - 1) / rc->step_qps : 0;
}

static bool iteration_done(const struct ringcoll *rc, const struct job *j)
{
	__u32 c, d, k;

	for (c = 0; c < rc->channels; c++) {
		if (j->next_step[c] < rc->steps)
			return false;
		for (k = 0; k < rc->steps; k++)
			if (!arrived(j, c, k))
				return false;
	}
	for (c = 0; c < rc->nr_qps; c++)
		for (d = 0; d < rc->dims; d++)
			if (j->ch[d][c].acked <
			    qp_messages(rc, d, j->ch[d][c].slot))
				return false;
	return true;
}

/* The message of @ch holding sequence number @seq, or NULL. */
static struct message *message_of(struct ringcoll *rc, struct channel *ch,
				  __u64 seq, __u32 *step)
{
	__u32 k;

	/* messages are acked in order: those before ch->acked hold no
	 * sequence number still to (re)send
	 */
	for (k = ch->acked; k < ch->queued; k++) {
		struct message *m = &ch->msg[k];

		if (seq >= m->seq_start && seq < m->seq_start + m->count) {
			*step = m->step;
			return m;
		}
	}
	(void)rc;
	return NULL;
}

static __u16 step_port(const struct ringcoll *rc, const struct job *j,
		       __u32 step)
{
	return (rc->step_base + (__u64)j->iter * rc->steps + step) & 0xffff;
}

/* Transmit the next packet of @ch; 1 when the qdisc was full. */
static int transmit(struct ringcoll *rc, struct channel *ch, __u64 now)
{
	__u8 pkt[ROCE_IPV4_LEN + ROCE_UDP_LEN + 32 + 8192];
	__u8 *l4 = pkt + ROCE_IPV4_LEN + ROCE_UDP_LEN;
	struct job *j = ch->job;
	struct message *m;
	__u32 step, i, payload, hdr;
	__u64 wire;
	int ret;

	m = message_of(rc, ch, ch->next_seq, &step);
	if (!m)
		return 0;
	i = ch->next_seq - m->seq_start;
	if (i == 0 && ch->next_seq == ch->high_seq) {
		/* --step-flows: a step's first transmission starts a flow */
		if (rc->step_flows) {
			dcqcn_init(&ch->cc, &rc->cc);
			rc->flow_starts++;
		}
		j->rec[j->iter].step_first_rate_bps[ch->index][step] =
			rc->fixed_rate ? rc->rate_bps : ch->cc.rc_bps;
	}
	payload = i + 1 < m->count ? rc->mtu : m->bytes - (m->count - 1) * rc->mtu;
	if (rc->uec) {
		hdr = roce_put_uec(l4, (__u32)ch->next_seq, step_port(rc, j, step),
				   j->id, ch->qpn, i == 0, i + 1 == m->count);
	} else {
		hdr = SYMPHONY_BTH_LEN;
		roce_put_bth(l4, roce_write_opcode(i, m->count), j->id, ch->qpn,
			     ch->next_seq & PSN_MASK, i + 1 == m->count ||
			     !((ch->next_seq + 1) % ACK_EVERY));
	}
	memset(l4 + hdr, 0xa5, payload);
	ret = send_udp(rc, ch->succ, step_port(rc, j, step),
		       rc->uec ? SYMPHONY_UDP_PORT_UEC : SYMPHONY_UDP_PORT_ROCEV2,
		       ROCE_ECN_ECT0, pkt, hdr + payload);
	if (ret)
		return ret;
	rc->packets_sent++;
	rc->bytes_sent += hdr + payload;
	if (ch->next_seq < ch->high_seq)
		rc->retransmits++;
	ch->next_seq++;
	if (ch->next_seq > ch->high_seq) {
		ch->high_seq = ch->next_seq;
		if (i + 1 == m->count)
			m->sent_ns = now;
	}
	/* the timeout runs from the latest packet, resent ones too: only a
	 * sender that has stopped sending waits for it
	 */
	ch->ack_deadline_ns = now + rc->rto_ns;
	if (!rc->fixed_rate) {
		dcqcn_on_sent(&ch->cc, &rc->cc, hdr + payload, now);
		sample_rate(rc, ch, now);
	}
	/* paced on the frame: Ethernet header and FCS, IP, UDP, headers,
	 * payload and ICRC, as the link and the shapers count it
	 */
	wire = ETH_OVERHEAD + ROCE_IPV4_LEN + ROCE_UDP_LEN + hdr + payload +
	       ROCE_ICRC_LEN;
	ch->next_tx_ns += dcqcn_gap_ns(&ch->cc, wire);
	/* a late wake-up may catch up a little, no more */
	if (ch->next_tx_ns + MAX_BURST_NS < now)
		ch->next_tx_ns = now - MAX_BURST_NS;
	rc->nic_next_ns += wire * 8 * 1000000000ULL / rc->rate_bps;
	if (rc->nic_next_ns + MAX_BURST_NS < now)
		rc->nic_next_ns = now - MAX_BURST_NS;
	return 0;
}

static struct job *job_by_id(struct ringcoll *rc, __u32 id)
{
	__u32 n;

	for (n = 0; n < rc->nr_jobs; n++)
		if (rc->jobs[n].id == id)
			return &rc->jobs[n];
	return NULL;
}

/* The 64-bit sequence number near @ref whose low 24 bits are @psn. */
static __u64 seq_of(__u64 ref, __u32 psn)
{
	__s32 d = (__s32)((psn - (__u32)ref) << 8) >> 8;

	return ref + d;
}

static void send_ack(struct ringcoll *rc, struct job *j, struct channel *ch,
		     __u64 seq, __u8 syndrome)
{
	__u8 pkt[ROCE_IPV4_LEN + ROCE_UDP_LEN + 32];
	size_t len;

	len = roce_put_ack(pkt + ROCE_IPV4_LEN + ROCE_UDP_LEN, j->id, ch->qpn,
			   seq & PSN_MASK, syndrome, ch->recv_total);
	if (!send_udp(rc, ch->pred, rc->step_base, SYMPHONY_UDP_PORT_ROCEV2,
		      ROCE_ECN_CONTROL, pkt, len)) {
		if (syndrome == ROCE_AETH_ACK)
			rc->acks_sent++;
		else
			rc->naks_sent++;
	}
}

static void send_cnp(struct ringcoll *rc, struct job *j, struct channel *ch)
{
	__u8 pkt[ROCE_IPV4_LEN + ROCE_UDP_LEN + 32];
	size_t len;

	len = roce_put_cnp(pkt + ROCE_IPV4_LEN + ROCE_UDP_LEN, j->id, ch->qpn);
	if (!send_udp(rc, ch->pred, rc->step_base, SYMPHONY_UDP_PORT_ROCEV2,
		      ROCE_ECN_CONTROL, pkt, len))
		rc->cnps_sent++;
}

/* Record that @ch's next message arrived complete: this queue pair's n-th
 * message of an iteration is the ring's step at position slot + n * step_qps
 * (the previous rank may be an iteration ahead).
 */
static void record_arrival(struct ringcoll *rc, struct job *j,
			   const struct channel *ch, __u64 now)
{
	__u32 per = qp_messages(rc, ch->dim, ch->slot), pos;
	__u64 it;

	if (!per)	/* a queue pair that carries no step */
		return;
	it = ch->recv_total / per;
	pos = ch->slot + ch->recv_total % per * rc->step_qps;
	if (it < rc->iterations)
		j->rec[it].step_recv_ns[ch->index][rc->dim_steps[ch->dim][pos]] = now;
}

/* A data packet of @j's channel @ch from the previous rank. */
static void on_data(struct ringcoll *rc, struct job *j, struct channel *ch,
		    __u32 psn, bool last, __u8 ecn, __u64 now)
{
	__u64 seq = seq_of(ch->expected_seq, psn);

	j->last_progress_ns = now;
	if (ecn == ROCE_ECN_CE) {
		rc->ce_received++;
		if (!ch->last_cnp_ns ||
		    now - ch->last_cnp_ns >= rc->cnp_interval_ns) {
			send_cnp(rc, j, ch);
			ch->last_cnp_ns = now;
		}
	}
	if (seq == ch->expected_seq) {
		ch->expected_seq++;
		if (!last) {
			/* a cumulative ACK now and then, as AckReq asks */
			if (!(ch->expected_seq % ACK_EVERY))
				send_ack(rc, j, ch, seq, ROCE_AETH_ACK);
			return;
		}
		record_arrival(rc, j, ch, now);
		ch->recv_total++;
		send_ack(rc, j, ch, seq, ROCE_AETH_ACK);
		return;
	}
	if (seq > ch->expected_seq) {
		/* a gap: one NAK per expected PSN and RTO/2 */
		if (ch->nak_seq != ch->expected_seq ||
		    now - ch->last_nak_ns > rc->rto_ns / 2) {
			send_ack(rc, j, ch, ch->expected_seq, ROCE_AETH_NAK_SEQ);
			ch->nak_seq = ch->expected_seq;
			ch->last_nak_ns = now;
		}
		return;
	}
	rc->dup_packets++;
	if (last)	/* its ACK may have been lost */
		send_ack(rc, j, ch, seq, ROCE_AETH_ACK);
}

static void on_ack(struct ringcoll *rc, struct job *j, struct channel *ch,
		   __u32 psn, __u8 syndrome, __u64 now)
{
	__u64 seq = seq_of(ch->acked_seq, psn), upto;
	bool nak = syndrome == ROCE_AETH_NAK_SEQ;
	__u32 k;

	j->last_progress_ns = now;
	/* an ACK covers its PSN, a NAK everything before its PSN */
	upto = nak ? seq : seq + 1;
	if (nak)
		rc->naks_received++;
	if (upto > ch->acked_seq && upto <= ch->high_seq) {
		ch->acked_seq = upto;
		for (k = 0; k < ch->queued; k++) {
			struct message *m = &ch->msg[k];

			if (!m->acked_ns &&
			    m->seq_start + m->count <= ch->acked_seq) {
				m->acked_ns = now;
				ch->acked++;
			}
		}
		if (ch->next_seq < ch->acked_seq)
			ch->next_seq = ch->acked_seq;
		ch->ack_deadline_ns = ch->acked_seq < ch->high_seq ?
				      now + rc->rto_ns : 0;
	}
	if (nak && seq >= ch->acked_seq && seq < ch->next_seq)
		ch->next_seq = seq;		/* go back N */
}

/* The channel of @j that queue pair @qpn names, or NULL. */
static struct channel *channel_of(struct ringcoll *rc, struct job *j, __u32 qpn)
{
	__u32 d, c;

	if (!qpn)
		return NULL;
	d = (qpn - 1) / MAX_CHANNELS;
	c = (qpn - 1) % MAX_CHANNELS;
	return d < rc->dims && c < rc->nr_qps ? &j->ch[d][c] : NULL;
}

/* Read every datagram waiting on @fd. */
static void receive(struct ringcoll *rc, int fd, bool uec_port)
{
	__u8 buf[9000];
	char control[CMSG_SPACE(sizeof(int))];
	struct sockaddr_in from;
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr msg = {
		.msg_name = &from, .msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = control,
	};

	for (;;) {
		struct cmsghdr *cm;
		struct channel *ch;
		struct job *j;
		__u8 ecn = 0, op;
		__u32 qpn, psn, job;
		__u64 now;
		ssize_t n;

		msg.msg_namelen = sizeof(from);
		msg.msg_controllen = sizeof(control);
		n = recvmsg(fd, &msg, 0);
		if (n < 0)
			return;
		now = mono_ns();
		rc->last_rx_ns = now;
		for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm))
			if (cm->cmsg_level == IPPROTO_IP && cm->cmsg_type == IP_TOS)
				ecn = *(__u8 *)CMSG_DATA(cm) & 3;
		rc->packets_received++;
		if (uec_port) {
			const __u8 *ses = buf + SYMPHONY_PDS_LEN;

			if (n < SYMPHONY_PDS_LEN + SYMPHONY_SES_MIN_LEN)
				continue;
			job = symphony_get_be24(ses + SYMPHONY_SES_JOBID);
			qpn = symphony_get_be16(ses + 2);
			j = job_by_id(rc, job);
			ch = j ? channel_of(rc, j, qpn) : NULL;
			if (!ch || from.sin_addr.s_addr != ch->pred)
				continue;
			on_data(rc, j, ch, symphony_get_be32(buf + SYMPHONY_PDS_PSN) & PSN_MASK,
				ses[SYMPHONY_SES_FLAGS] & SYMPHONY_SES_FLAG_EOM,
				ecn, now);
			continue;
		}
		if (n < SYMPHONY_BTH_LEN)
			continue;
		op = buf[SYMPHONY_BTH_OPCODE];
		job = roce_bth_job(buf);
		qpn = symphony_get_be24(buf + SYMPHONY_BTH_DESTQP);
		psn = symphony_get_be24(buf + SYMPHONY_BTH_PSN);
		j = job_by_id(rc, job);
		ch = j ? channel_of(rc, j, qpn) : NULL;
		if (!ch)
			continue;
		if (op == SYMPHONY_OP_CNP) {
			if (from.sin_addr.s_addr != ch->succ)
				continue;
			rc->cnps_received++;
			if (!rc->fixed_rate) {
				dcqcn_on_cnp(&ch->cc, &rc->cc, now);
				sample_rate(rc, ch, now);
			}
		} else if (op == SYMPHONY_OP_RC_ACK && n >= SYMPHONY_BTH_LEN + ROCE_AETH_LEN) {
			if (from.sin_addr.s_addr != ch->succ)
				continue;
			j->succ_ready[ch->dim] = true;
			on_ack(rc, j, ch, psn, buf[SYMPHONY_BTH_LEN], now);
		} else if (op == SYMPHONY_OP_RC_SEND_ONLY) {
			/* hello: answer with an ACK of nothing */
			if (from.sin_addr.s_addr == ch->pred)
				send_ack(rc, j, ch, ch->expected_seq - 1,
					 ROCE_AETH_ACK);
		} else if (op >= SYMPHONY_OP_RC_WRITE_FIRST &&
			   op <= SYMPHONY_OP_RC_WRITE_ONLY) {
			if (from.sin_addr.s_addr != ch->pred)
				continue;
			on_data(rc, j, ch, psn, op == SYMPHONY_OP_RC_WRITE_LAST ||
				op == SYMPHONY_OP_RC_WRITE_ONLY, ecn, now);
		}
	}
}

/* Ask the next rank of ring @d whether it listens (a SEND ONLY on the
 * ring's first queue pair).
 */
static void hello(struct ringcoll *rc, struct job *j, __u32 d, __u64 now)
{
	__u8 pkt[ROCE_IPV4_LEN + ROCE_UDP_LEN + 32];
	struct channel *ch = &j->ch[d][0];

	roce_put_bth(pkt + ROCE_IPV4_LEN + ROCE_UDP_LEN, SYMPHONY_OP_RC_SEND_ONLY,
		     j->id, ch->qpn, 0, true);
	send_udp(rc, ch->succ, rc->step_base, SYMPHONY_UDP_PORT_ROCEV2,
		 ROCE_ECN_CONTROL, pkt, SYMPHONY_BTH_LEN);
	j->last_hello_ns[d] = now;
}

/* Advance job @j at @now; returns the time it next needs attention. */
static __u64 run_job(struct ringcoll *rc, struct job *j, __u64 now)
{
	__u64 wake = now + 1000000;	/* at least every ms */
	bool ready = true;
	__u32 c, d, k;

	if (j->done)
		return UINT64_MAX;
	for (d = 0; d < rc->dims; d++) {
		if (j->succ_ready[d])
			continue;
		ready = false;
		if (now - j->last_hello_ns[d] >= HELLO_INTERVAL_NS ||
		    !j->last_hello_ns[d])
			hello(rc, j, d, now);
		if (j->last_hello_ns[d] + HELLO_INTERVAL_NS < wake)
			wake = j->last_hello_ns[d] + HELLO_INTERVAL_NS;
	}
	if (!ready)
		return wake;
	if (!j->iter_running) {
		if (now < rc->common.start_at_mono_ns)
			return rc->common.start_at_mono_ns;
		start_iteration(rc, j, now);
	}
	for (c = 0; c < rc->channels; c++) {
		/* the ring: step k+1 once step k arrived from the previous rank */
		while ((k = j->next_step[c]) < rc->steps &&
		       (k == 0 || arrived(j, c, k - 1))) {
			start_step(rc, j, c, k, now);
			j->next_step[c]++;
		}
	}
	for (d = 0; d < rc->dims; d++)
	for (c = 0; c < rc->nr_qps; c++) {
		struct channel *ch = &j->ch[d][c];

		if (ch->ack_deadline_ns && now >= ch->ack_deadline_ns) {
			ch->next_seq = ch->acked_seq;	/* timeout: go back */
			ch->ack_deadline_ns = now + rc->rto_ns;
		}
		if (!rc->fixed_rate)
			dcqcn_advance(&ch->cc, &rc->cc, now);
		/* transmissions are pump()'s: it knows the NIC's pace */
		if (ch->ack_deadline_ns && ch->ack_deadline_ns < wake)
			wake = ch->ack_deadline_ns;
	}
	if (iteration_done(rc, j)) {
		j->rec[j->iter].end_ns = now;
		j->iter_running = false;
		if (++j->iter == rc->iterations) {
			j->done = true;
			return UINT64_MAX;
		}
		return now;
	}
	return wake;
}

/*
 * Transmit what is due: the queue pairs share the NIC's line rate, served
 * round-robin one packet at a time, each within its own DCQCN rate.
 * Returns when the NIC or a queue pair next allows a packet, or 0 after a
 * send error.
 */
static __u64 pump(struct ringcoll *rc, __u64 now)
{
	__u32 per_job = rc->dims * rc->nr_qps, nr = rc->nr_jobs * per_job, n, i;
	__u64 wake = UINT64_MAX;
	bool sent = true;
	int ret;

	while (sent && rc->nic_next_ns <= now) {
		sent = false;
		for (n = 0; n < nr; n++) {
			struct channel *ch;
			struct job *j;

			i = (rc->rr_next + n) % nr;
			j = &rc->jobs[i / per_job];
			ch = &j->ch[i % per_job / rc->nr_qps][i % rc->nr_qps];
			if (j->done || !j->iter_running ||
			    ch->next_seq >= ch->end_seq || ch->next_tx_ns > now)
				continue;
			ret = transmit(rc, ch, now);
			if (ret < 0)
				return 0;
			if (ret > 0) {		/* qdisc full: back off a little */
				rc->nic_next_ns = now + 20000;
				return rc->nic_next_ns;
			}
			rc->rr_next = i + 1;
			sent = true;
			break;
		}
	}
	for (n = 0; n < nr; n++) {
		struct job *j = &rc->jobs[n / per_job];
		struct channel *ch = &j->ch[n % per_job / rc->nr_qps][n % rc->nr_qps];
		__u64 t;

		if (j->done || !j->iter_running || ch->next_seq >= ch->end_seq)
			continue;
		t = ch->next_tx_ns > rc->nic_next_ns ? ch->next_tx_ns :
						      rc->nic_next_ns;
		if (t < wake)
			wake = t;
	}
	return wake;
}

/* ---- output ------------------------------------------------------------- */

static void print_json(struct ringcoll *rc, FILE *f)
{
	char addr[INET_ADDRSTRLEN];
	__u32 n, it, c, k, s;

	inet_ntop(AF_INET, &rc->common.local, addr, sizeof(addr));
	fprintf(f, "{\"tool\":\"ringcoll\",\"address\":\"%s\",\"collective\":\"%s\","
		"\"proto\":\"%s\",\"size_bytes\":%llu,\"channels\":%u,\"step_qps\":%u,"
		"\"step_flows\":%s,"
		"\"iterations\":%u,\"steps\":%u,\"mtu_bytes\":%u,"
		"\"rate_bps\":%llu,\"congestion_control\":\"%s\",",
		addr, coll_names[rc->coll], rc->uec ? "uec" : "rocev2",
		(unsigned long long)rc->size, rc->channels, rc->step_qps,
		rc->step_flows ? "true" : "false", rc->iterations,
		rc->steps, rc->mtu, (unsigned long long)rc->rate_bps,
		rc->fixed_rate ? "fixed" : "dcqcn");
	fprintf(f, "\"dcqcn\":{\"g_q16\":%u,\"alpha_interval_ns\":%llu,"
		"\"rate_interval_ns\":%llu,\"byte_counter_bytes\":%llu,\"f\":%u,"
		"\"rai_bps\":%llu,\"rhai_bps\":%llu,\"min_rate_bps\":%llu},",
		rc->cc.g_q16, (unsigned long long)rc->cc.alpha_interval_ns,
		(unsigned long long)rc->cc.rate_interval_ns,
		(unsigned long long)rc->cc.byte_counter_bytes, rc->cc.f,
		(unsigned long long)rc->cc.rai_bps,
		(unsigned long long)rc->cc.rhai_bps,
		(unsigned long long)rc->cc.min_rate_bps);
	fprintf(f, "\"counters\":{\"packets_sent\":%llu,\"bytes_sent\":%llu,"
		"\"retransmitted_packets\":%llu,\"packets_received\":%llu,"
		"\"ce_received\":%llu,\"cnps_sent\":%llu,\"cnps_received\":%llu,"
		"\"acks_sent\":%llu,\"naks_sent\":%llu,\"naks_received\":%llu,"
		"\"duplicate_packets\":%llu,\"flow_starts\":%llu},",
		(unsigned long long)rc->packets_sent,
		(unsigned long long)rc->bytes_sent,
		(unsigned long long)rc->retransmits,
		(unsigned long long)rc->packets_received,
		(unsigned long long)rc->ce_received,
		(unsigned long long)rc->cnps_sent,
		(unsigned long long)rc->cnps_received,
		(unsigned long long)rc->acks_sent,
		(unsigned long long)rc->naks_sent,
		(unsigned long long)rc->naks_received,
		(unsigned long long)rc->dup_packets,
		(unsigned long long)rc->flow_starts);
	fprintf(f, "\"jobs\":[");
	for (n = 0; n < rc->nr_jobs; n++) {
		struct job *j = &rc->jobs[n];

		fprintf(f, "%s{\"job\":%u,\"ranks\":%u,\"rank\":%u,\"step_bytes\":%u,\"grid\":\"%ux%u\",\"iterations\":[",
			n ? "," : "", j->id, j->nranks, j->rank,
			step_bytes(rc, 0, 0), rc->dims == 2 ? rc->grid_rows : 1,
			rc->dims == 2 ? rc->grid_cols : j->nranks);
		for (it = 0; it < rc->iterations; it++) {
			struct iteration_record *r = &j->rec[it];

			fprintf(f, "%s{\"start_ns\":%llu,\"end_ns\":%llu,\"steps\":[",
				it ? "," : "", (unsigned long long)r->start_ns,
				(unsigned long long)r->end_ns);
			for (k = 0, s = 0; k < rc->steps; k++)
				for (c = 0; c < rc->channels; c++, s++)
					fprintf(f, "%s{\"step\":%u,\"ring\":\"%s\",\"channel\":%u,\"start_ns\":%llu,\"end_ns\":%llu,\"first_rate_bps\":%llu}",
						s ? "," : "", k,
						rc->dims == 1 ? "ring" :
						rc->step_dim[k] ? "column" : "row", c,
						(unsigned long long)r->step_start_ns[c][k],
						(unsigned long long)r->step_recv_ns[c][k],
						(unsigned long long)r->step_first_rate_bps[c][k]);
			fprintf(f, "]}");
		}
		fprintf(f, "]}");
	}
	fprintf(f, "],\"rate_samples\":[");
	for (n = 0; n < rc->nr_samples; n++)
		fprintf(f, "%s[%llu,%u,%u,%llu,%u]", n ? "," : "",
			(unsigned long long)rc->samples[n].t_ns,
			rc->samples[n].job, rc->samples[n].channel,
			(unsigned long long)rc->samples[n].rate_bps,
			rc->samples[n].slot);
	fprintf(f, "],\"rate_sample_fields\":[\"t_ns\",\"job\",\"channel\",\"rate_bps\",\"queue_pair\"]}\n");
}

int main(int argc, char **argv)
{
	struct ringcoll *rc = calloc(1, sizeof(*rc));
	struct pollfd pfd[2];
	__u32 n, c, d, nfds;
	FILE *out = stdout;
	int ret = EXIT_FAIL;

	if (!rc)
		return EXIT_FAIL;
	if (parse_args(rc, argc, argv)) {
		usage(stderr);
		return EXIT_USAGE;
	}
	for (n = 1; n < rc->nr_jobs; n++)
		if (rc->jobs[n].nranks != rc->jobs[0].nranks) {
			fprintf(stderr, "ringcoll: every job needs the same number of ranks\n");
			return EXIT_USAGE;
		}
	if (rc->dims == 2 && (rc->coll != COLL_ALLREDUCE ||
			      rc->grid_rows * rc->grid_cols != rc->jobs[0].nranks)) {
		fprintf(stderr, "ringcoll: --grid %ux%u: wants allreduce and a ring of %u addresses\n",
			rc->grid_rows, rc->grid_cols, rc->grid_rows * rc->grid_cols);
		return EXIT_USAGE;
	}
	plan_steps(rc, rc->jobs[0].nranks);
	if (place_ranks(rc))
		return EXIT_USAGE;
	if (!rc->common.local)
		rc->common.local = rc->jobs[0].addr[rc->jobs[0].rank];
	dcqcn_params_scaled(&rc->cc, rc->rate_bps);
	if (apply_dcqcn_opts(rc))
		return EXIT_USAGE;
	rc->samples = calloc(MAX_RATE_SAMPLES, sizeof(*rc->samples));
	if (!rc->samples)
		return EXIT_FAIL;
	for (n = 0; n < rc->nr_jobs; n++) {
		struct job *j = &rc->jobs[n];

		j->rec = calloc(rc->iterations, sizeof(*j->rec));
		if (!j->rec) {
			fprintf(stderr, "ringcoll: out of memory\n");
			return EXIT_FAIL;
		}
		for (c = 0; c < rc->nr_qps; c++) {
			for (d = 0; d < MAX_DIMS; d++) {
				struct channel *ch = &j->ch[d][c];

				ch->job = j;
				ch->index = c / rc->step_qps;
				ch->slot = c % rc->step_qps;
				ch->dim = d;
				ch->qpn = d * MAX_CHANNELS + c + 1;
				dcqcn_init(&ch->cc, &rc->cc);
			}
		}
	}
	if (rc->common.out_path) {
		out = fopen(rc->common.out_path, "w");
		if (!out) {
			fprintf(stderr, "ringcoll: cannot write %s: %s\n",
				rc->common.out_path, strerror(errno));
			return EXIT_FAIL;
		}
	}
	if (open_sockets(rc))
		return EXIT_FAIL;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	rc->launch_ns = mono_ns();
	prctl(PR_SET_TIMERSLACK, 1000UL);	/* pacing wants us, not 50 us */
	pfd[0] = (struct pollfd){ .fd = rc->rx_fd, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = rc->rx_uec_fd, .events = POLLIN };
	nfds = rc->uec ? 2 : 1;

	while (!stop) {
		__u64 now = mono_ns(), wake = UINT64_MAX, w;
		bool all_done = true;

		for (n = 0; n < rc->nr_jobs; n++) {
			struct job *j = &rc->jobs[n];

			w = run_job(rc, j, now);
			if (!w)
				goto out;
			if (w < wake)
				wake = w;
			if (!j->done)
				all_done = false;
			if (!j->done && j->iter_running &&
			    now - j->last_progress_ns > rc->common.timeout_ns) {
				char a[INET_ADDRSTRLEN], b[INET_ADDRSTRLEN];

				inet_ntop(AF_INET, &j->ch[0][0].pred, a, sizeof(a));
				inet_ntop(AF_INET, &j->ch[0][0].succ, b, sizeof(b));
				fprintf(stderr, "ringcoll: job %u rank %u: no packet from %s or %s for %llu s: a neighbour died or is unreachable\n",
					j->id, j->rank, a, b,
					(unsigned long long)(rc->common.timeout_ns / 1000000000ULL));
				goto out;
			}
			if (!(j->succ_ready[0] && (rc->dims < 2 || j->succ_ready[1])) &&
			    now - rc->launch_ns > rc->common.timeout_ns) {
				char b[INET_ADDRSTRLEN];

				inet_ntop(AF_INET, &j->ch[j->succ_ready[0] ? 1 : 0][0].succ,
					  b, sizeof(b));
				fprintf(stderr, "ringcoll: job %u rank %u: the next rank %s does not answer: is ringcoll running there?\n",
					j->id, j->rank, b);
				goto out;
			}
		}
		if (all_done) {
			/* Linger until the previous ranks fall quiet: they may
			 * still resend what we ACKed if our ACK was lost.
			 */
			if (!rc->done_ns)
				rc->done_ns = now;
			if (now - (rc->last_rx_ns > rc->done_ns ? rc->last_rx_ns :
				   rc->done_ns) >= LINGER_RTOS * rc->rto_ns) {
				ret = EXIT_OK;
				break;
			}
			wake = now + rc->rto_ns;
		}
		w = all_done ? UINT64_MAX : pump(rc, now);
		if (!w)
			goto out;
		if (w < wake)
			wake = w;
		if (wait_until(pfd, nfds, wake) > 0) {
			receive(rc, rc->rx_fd, false);
			if (rc->uec)
				receive(rc, rc->rx_uec_fd, true);
		}
	}
	if (stop)
		fprintf(stderr, "ringcoll: interrupted\n");
out:
	print_json(rc, out);
	if (out != stdout)
		fclose(out);
	return ret;
}
