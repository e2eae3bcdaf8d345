// SPDX-License-Identifier: GPL-2.0
/*
 * args.c - ringcoll's command line: usage, the options and their checks,
 * the --job rings, this host's rank in each and its neighbours, the step
 * plan of the collective and its queue pairs (--flows), and the --dcqcn-*
 * options over the --cc profile's constants at --rate.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <getopt.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ringcoll.h"

const char *const coll_names[] = { "allreduce", "allgather", "reducescatter" };
const char *const flows_names[] = { "legacy", "astra", "nccl" };

/* Options without a letter; OPT_DCQCN_G..OPT_CNP_INTERVAL wait for
 * apply_dcqcn_opts(), over the --cc profile's constants at --rate
 */
enum {
	OPT_DCQCN_G = 1001,
	OPT_DCQCN_ALPHA,
	OPT_DCQCN_TIMER,
	OPT_DCQCN_BYTES,
	OPT_DCQCN_F,
	OPT_DCQCN_RAI,
	OPT_DCQCN_RHAI,
	OPT_DCQCN_MIN_RATE,
	OPT_DCQCN_DECREASE,
	OPT_DCQCN_CLAMP,
	OPT_CNP_INTERVAL,
	OPT_STEP_FLOWS,
	OPT_LOSE_FINAL_ACKS,
	OPT_LOSE_CLOSES,
	OPT_CC,
	OPT_FLOWS,
};

void usage(FILE *f)
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
"  --flows MODEL         how steps map to queue pairs (default legacy):\n"
"                        legacy: --step-qps and --step-flows as given, the PSN\n"
"                        running on per queue pair; astra: Astra-Sim's, every\n"
"                        step on a queue pair of its own, a new flow at line\n"
"                        rate, a rank's open steps sharing its NIC (channels x\n"
"                        a ring's steps at most 16); nccl: one queue pair per\n"
"                        channel, steps in turn; astra and nccl number each\n"
"                        message's PSNs from 0\n"
"  --step-qps S          queue pairs per channel: step k on queue pair k mod S,\n"
"                        so up to S steps send at once (legacy flows, 1D rings;\n"
"                        channels x S at most 16; default 1: a channel's steps\n"
"                        in turn)\n"
"  --step-flows          each step starts as a new flow: its first packet\n"
"                        resets its queue pair's DCQCN to the line rate\n"
"                        (legacy flows)\n"
"  --iterations I        collectives in a row (1..1000, default 1)\n"
"  --mtu BYTES           RDMA payload per packet (64..8192, default 1024)\n"
"  --rate RATE           line rate: DCQCN's start and ceiling, or the fixed\n"
"                        rate (kbit, mbit, gbit or bit/s; default 100mbit)\n"
"  --fixed-rate          no DCQCN: every queue pair sends at --rate\n"
"  --cc PROFILE          DCQCN's constants: mlx5 (the driver's defaults; the\n"
"                        default), hpcc (HPCC's simulator) or legacy (the\n"
"                        project's before 2026-12); docs/workloads.md\n"
"  Each option below overrides one constant of the profile; the defaults\n"
"  shown are mlx5's (its steps, floor and byte counter are the NIC's at\n"
"  10 Gbit/s, scaled down to a slower --rate):\n"
"  --dcqcn-g N           alpha gain g = 1/N (default 5/1024, about 1/205)\n"
"  --dcqcn-alpha-us US   alpha decay period K (default 1)\n"
"  --dcqcn-timer-us US   rate-increase timer T (default 300)\n"
"  --dcqcn-bytes BYTES   rate-increase byte counter B, 0: none (default\n"
"                        32767 x 64 bytes)\n"
"  --dcqcn-f N           fast-recovery events F after a cut, 0..100 (default 1)\n"
"  --dcqcn-rai RATE      additive increase (default 5 Mbit/s)\n"
"  --dcqcn-rhai RATE     hyper increase (default 50 Mbit/s)\n"
"  --dcqcn-min-rate RATE floor of a cut (default 1 Mbit/s)\n"
"  --dcqcn-decrease-us US  at most one cut per US microseconds, 0: a cut per\n"
"                        CNP (0..10000000, default 4)\n"
"  --dcqcn-clamp always|timer|never  a cut sets the target rate to the\n"
"                        current rate: always, after a timer increase, never\n"
"                        (with a byte counter also after a byte-counter\n"
"                        increase; default timer)\n"
"  --cnp-interval US     at most one CNP per queue pair per US microseconds\n"
"                        (default 4)\n"
"  --rto MS              retransmission timeout's minimum, milliseconds (default\n"
"                        20; the timeout follows the round trip, 1 s before\n"
"                        the first is timed: include/workload/rto.h)\n"
"  --proto rocev2|uec    data framing (default rocev2; UEC on UDP 4793)\n"
"  --step-base PORT      UDP source port of step 0 (default 49152)\n"
"  --start-at NS         start at this CLOCK_REALTIME time, ns (a common start)\n"
"  --timeout SEC         fail when a neighbour is silent this long (default 10)\n"
"  --local ADDR          this rank's address (default: the local one of the ring)\n"
"  --out FILE            JSON result (default stdout)\n"
"  --lose-final-acks RANK:N  fault injection: the rank RANK of each job does\n"
"                        not send the first N ACKs (1..64) of each queue\n"
"                        pair's last message, as if they were lost\n"
"  --lose-closes         fault injection: send no close notice (the next\n"
"                        ranks wait out their time-wait)\n"
"  --grid ROWSxCOLS      2D rings: the job's ranks are a grid (row-major);\n"
"                        AllReduce runs reduce-scatter along rows, AllReduce\n"
"                        along columns, all-gather along rows\n"
"  --help\n"
"Needs CAP_NET_RAW (a raw socket sets each packet's UDP source port and ECN)\n"
"and UDP port 4791 (4793) free in its network namespace.\n");
}

/* --lose-final-acks RANK:N */
static int parse_lose_final_acks(struct ringcoll *rc, char *arg)
{
	char *colon = strchr(arg, ':');

	if (!colon)
		return bad("--lose-final-acks", arg, "wants RANK:N");
	*colon = '\0';
	if (parse_u32_range("--lose-final-acks rank", arg, 0, MAX_RANKS - 1,
			    &rc->lose_acks_rank) ||
	    parse_u32_range("--lose-final-acks count", colon + 1, 1, 64,
			    &rc->lose_final_acks))
		return -1;
	return 0;
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
void plan_steps(struct ringcoll *rc, __u32 nranks)
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

		rc->step_pos[k] = rc->dim_count[d];
		rc->dim_steps[d][rc->dim_count[d]++] = k;
	}
}

/*
 * --flows astra: every step of a ring on a queue pair of its own, as
 * --step-qps S with S the steps of the longest ring (a grid's row and
 * column rings each use their first queue pairs); 0, or -1 after a
 * message when they would be more than MAX_CHANNELS.
 */
int plan_flows(struct ringcoll *rc)
{
	__u32 s = rc->dim_count[0];

	if (rc->flows != FLOWS_ASTRA)
		return 0;
	if (rc->dims == 2 && rc->dim_count[1] > s)
		s = rc->dim_count[1];
	if (rc->channels * s > MAX_CHANNELS) {
		fprintf(stderr, "ringcoll: --flows astra: --channels %u x %u steps: more than %u queue pairs\n",
			rc->channels, s, MAX_CHANNELS);
		return -1;
	}
	rc->step_qps = s;
	rc->nr_qps = rc->channels * s;
	return 0;
}

/* Find this host's rank in each job. */
int place_ranks(struct ringcoll *rc)
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

int parse_args(struct ringcoll *rc, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "job", required_argument, NULL, 'j' },
		{ "collective", required_argument, NULL, 'c' },
		{ "size", required_argument, NULL, 's' },
		{ "channels", required_argument, NULL, 'C' },
		{ "step-qps", required_argument, NULL, 'Q' },
		{ "step-flows", no_argument, NULL, OPT_STEP_FLOWS },
		{ "flows", required_argument, NULL, OPT_FLOWS },
		{ "iterations", required_argument, NULL, 'i' },
		{ "mtu", required_argument, NULL, 'm' },
		{ "rate", required_argument, NULL, 'r' },
		{ "fixed-rate", no_argument, NULL, 'F' },
		{ "cc", required_argument, NULL, OPT_CC },
		{ "cnp-interval", required_argument, NULL, OPT_CNP_INTERVAL },
		{ "dcqcn-g", required_argument, NULL, OPT_DCQCN_G },
		{ "dcqcn-alpha-us", required_argument, NULL, OPT_DCQCN_ALPHA },
		{ "dcqcn-timer-us", required_argument, NULL, OPT_DCQCN_TIMER },
		{ "dcqcn-bytes", required_argument, NULL, OPT_DCQCN_BYTES },
		{ "dcqcn-f", required_argument, NULL, OPT_DCQCN_F },
		{ "dcqcn-rai", required_argument, NULL, OPT_DCQCN_RAI },
		{ "dcqcn-rhai", required_argument, NULL, OPT_DCQCN_RHAI },
		{ "dcqcn-min-rate", required_argument, NULL, OPT_DCQCN_MIN_RATE },
		{ "dcqcn-decrease-us", required_argument, NULL, OPT_DCQCN_DECREASE },
		{ "dcqcn-clamp", required_argument, NULL, OPT_DCQCN_CLAMP },
		{ "rto", required_argument, NULL, 'R' },
		{ "proto", required_argument, NULL, 'p' },
		{ "step-base", required_argument, NULL, 'b' },
		{ "start-at", required_argument, NULL, 'S' },
		{ "timeout", required_argument, NULL, 't' },
		{ "local", required_argument, NULL, 'l' },
		{ "out", required_argument, NULL, 'o' },
		{ "grid", required_argument, NULL, 'g' },
		{ "lose-final-acks", required_argument, NULL, OPT_LOSE_FINAL_ACKS },
		{ "lose-closes", no_argument, NULL, OPT_LOSE_CLOSES },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	__u32 v, n;
	int c, i;

	rc->coll = COLL_ALLREDUCE;
	rc->size = 1 << 20;
	rc->channels = 1;
	rc->step_qps = 1;
	rc->iterations = 1;
	rc->mtu = 1024;
	rc->rate_bps = 100000000ULL;
	rc->flows = FLOWS_LEGACY;
	rc->cc_profile = DCQCN_PROFILE_MLX5;
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
			rc->step_qps_set = true;
			break;
		case OPT_STEP_FLOWS:
			rc->step_flows = true;
			break;
		case OPT_FLOWS:
			for (n = 0; n < NR_FLOWS; n++)
				if (!strcmp(optarg, flows_names[n]))
					break;
			if (n == NR_FLOWS)
				return bad("--flows", optarg, "legacy, astra or nccl");
			rc->flows = n;
			break;
		case OPT_CC:
			i = dcqcn_profile_by_name(optarg);
			if (i < 0)
				return bad("--cc", optarg, "mlx5, hpcc or legacy");
			rc->cc_profile = i;
			break;
		case OPT_LOSE_FINAL_ACKS:
			if (parse_lose_final_acks(rc, optarg))
				return -1;
			break;
		case OPT_LOSE_CLOSES:
			rc->lose_closes = true;
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
		case OPT_DCQCN_G ... OPT_CNP_INTERVAL:
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
	if (rc->flows != FLOWS_LEGACY && (rc->step_qps_set || rc->step_flows)) {
		fprintf(stderr, "ringcoll: --flows %s: --step-qps and --step-flows are for legacy flows (astra: a queue pair per step, a new flow each; nccl: one queue pair per channel)\n",
			flows_names[rc->flows]);
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
	/* astra: a new flow per step; its queue pairs wait for the plan
	 * (plan_flows())
	 */
	rc->step_flows |= rc->flows == FLOWS_ASTRA && !rc->fixed_rate;
	rc->psn_per_message = rc->flows != FLOWS_LEGACY;
	rc->nr_qps = rc->channels * rc->step_qps;
	return 0;
}

/* The checks that need every --job: equal rings, and a grid that fits. */
int check_jobs(const struct ringcoll *rc)
{
	__u32 n;

	for (n = 1; n < rc->nr_jobs; n++)
		if (rc->jobs[n].nranks != rc->jobs[0].nranks) {
			fprintf(stderr, "ringcoll: every job needs the same number of ranks\n");
			return -1;
		}
	if (rc->dims == 2 && (rc->coll != COLL_ALLREDUCE ||
			      rc->grid_rows * rc->grid_cols != rc->jobs[0].nranks)) {
		fprintf(stderr, "ringcoll: --grid %ux%u: wants allreduce and a ring of %u addresses\n",
			rc->grid_rows, rc->grid_cols, rc->grid_rows * rc->grid_cols);
		return -1;
	}
	return 0;
}

/* --dcqcn-clamp: the target rate on a cut */
static int parse_clamp(struct dcqcn_params *p, const char *val)
{
	if (!strcmp(val, "always")) {
		p->clamp_tgt_rate = true;
		p->clamp_tgt_rate_ati = false;
	} else if (!strcmp(val, "timer")) {
		p->clamp_tgt_rate = false;
		p->clamp_tgt_rate_ati = true;
	} else if (!strcmp(val, "never")) {
		p->clamp_tgt_rate = false;
		p->clamp_tgt_rate_ati = false;
	} else {
		return bad("--dcqcn-clamp", val, "always, timer or never");
	}
	return 0;
}

/* The --dcqcn-* options and --cnp-interval over the --cc profile's
 * constants at --rate, in the order given.
 */
int apply_dcqcn_opts(struct ringcoll *rc)
{
	struct dcqcn_params *p = &rc->cc;
	__u32 i, v;
	__u64 r;

	for (i = 0; i < rc->nr_dcqcn_opts; i++) {
		const char *val = rc->dcqcn_opt[i].value;

		switch (rc->dcqcn_opt[i].which) {
		case OPT_DCQCN_G:	/* g as 1/N */
			if (parse_u32_range("--dcqcn-g", val, 1, 65536, &v))
				return -1;
			p->g_q16 = DCQCN_ONE_Q16 / v;
			break;
		case OPT_DCQCN_ALPHA:
			if (parse_u32_range("--dcqcn-alpha-us", val, 1, 1000000, &v))
				return -1;
			p->alpha_interval_ns = v * 1000ULL;
			break;
		case OPT_DCQCN_TIMER:
			if (parse_u32_range("--dcqcn-timer-us", val, 1, 1000000, &v))
				return -1;
			p->rate_interval_ns = v * 1000ULL;
			break;
		case OPT_DCQCN_BYTES:	/* 0: no byte counter */
			if (parse_size(val, &r))
				return bad("--dcqcn-bytes", val, "bytes, 0: none (k, m, g)");
			p->byte_counter_bytes = r;
			break;
		case OPT_DCQCN_F:
			if (parse_u32_range("--dcqcn-f", val, 0, 100, &p->f))
				return -1;
			break;
		case OPT_DCQCN_DECREASE:
			if (parse_u32_range("--dcqcn-decrease-us", val, 0, 10000000, &v))
				return -1;
			p->decrease_interval_ns = v * 1000ULL;
			break;
		case OPT_DCQCN_CLAMP:
			if (parse_clamp(p, val))
				return -1;
			break;
		case OPT_CNP_INTERVAL:
			if (parse_u32_range("--cnp-interval", val, 0, 1000000, &v))
				return -1;
			p->cnp_interval_ns = v * 1000ULL;
			break;
		default:	/* rates */
			if (parse_rate(val, &r) || !r || r > rc->rate_bps)
				return bad(rc->dcqcn_opt[i].which == OPT_DCQCN_RAI ? "--dcqcn-rai" :
					   rc->dcqcn_opt[i].which == OPT_DCQCN_RHAI ? "--dcqcn-rhai" :
					   "--dcqcn-min-rate", val,
					   "a rate up to --rate (kbit, mbit, gbit)");
			if (rc->dcqcn_opt[i].which == OPT_DCQCN_RAI)
				p->rai_bps = r;
			else if (rc->dcqcn_opt[i].which == OPT_DCQCN_RHAI)
				p->rhai_bps = r;
			else
				p->min_rate_bps = r;
			break;
		}
	}
	return 0;
}
