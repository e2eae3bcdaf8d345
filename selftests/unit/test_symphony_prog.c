// SPDX-License-Identifier: GPL-2.0
/*
 * test_symphony_prog.c - fixture tests of Symphony as a tc-BPF program
 * (bpf/symphony.bpf.c) through BPF_PROG_TEST_RUN: the module's unit cases
 * replayed through the program (outpacing packets marked, lagging ones
 * never, step wrap-around, two jobs apart, unknown jobs, malformed and
 * non-collective packets untouched, RED-only marking, alpha growing over
 * windows), then RED on the phantom queue (marks as the virtual backlog
 * passes kmin and kmax, non-ECT drops, the queue draining, its capacity).
 * The port is the loopback device (ifindex 1), where a test run's packet
 * is.  Prints TAP; exit 0 when every fixture passes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "symphony.skel.h"
#include "tap.h"
#include "tool_util.h"

const char *tool_name = "test_symphony_prog";
#include "symphony_bpf_cfg.h"
#include "symphony/symphony_map.h"
#include "workload/roce_frame.h"

#define PORT		1		/* lo: where a test run's skb is */
#define STATS_SLOT	7		/* its counters' slot: neither 0 nor PORT */
#define NR_JOBS		64
#define FRAME_MAX	1600
#define K_ALWAYS	"100"		/* k * psn / psn_rec >= 1: always */

static struct symphony_bpf *skel;

/* An Ethernet frame of @ip_len bytes of IPv4 at @ip, in @out. */
static size_t ether(__u8 *out, const __u8 *ip, size_t ip_len)
{
	static const __u8 macs[12] = { 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1 };

	memcpy(out, macs, sizeof(macs));
	out[12] = ETH_P_IP >> 8;
	out[13] = ETH_P_IP & 0xff;
	memcpy(out + ETH_HLEN, ip, ip_len);
	return ETH_HLEN + ip_len;
}

/*
 * A RoCEv2 RDMA WRITE packet of @job's @step (UDP source port, the
 * default step field) with @psn; @last ends the message.  64 bytes of
 * payload, or @payload.
 */
static size_t roce(__u8 *out, __u32 job, __u32 step, __u32 psn, bool last,
		   __u8 ecn, size_t payload)
{
	__u8 ip[FRAME_MAX];
	size_t l4 = SYMPHONY_BTH_LEN + payload;

	memset(ip, 0, sizeof(ip));
	roce_put_ipv4_udp(ip, 0x0100000a, 0x0200000a, step,
			  SYMPHONY_UDP_PORT_ROCEV2, ecn, 1, l4);
	roce_put_bth(ip + ROCE_IPV4_LEN + ROCE_UDP_LEN,
		     last ? SYMPHONY_OP_RC_WRITE_LAST : SYMPHONY_OP_RC_WRITE_MIDDLE,
		     job, 17, psn, false);
	return ether(out, ip, ROCE_IPV4_LEN + ROCE_UDP_LEN + l4);
}

/* A UDP datagram to port 5000 (no collective) of @payload bytes. */
static size_t udp(__u8 *out, __u8 ecn, size_t payload)
{
	__u8 ip[FRAME_MAX];

	memset(ip, 0, sizeof(ip));
	roce_put_ipv4_udp(ip, 0x0100000a, 0x0200000a, 40000, 5000, ecn, 1,
			  payload);
	return ether(out, ip, ROCE_IPV4_LEN + ROCE_UDP_LEN + payload);
}

struct run {
	int	verdict;
	__u8	ecn;		/* of the packet that left */
};

/* Run the program on @frame, a GSO packet of @gso_segs segments of
 * @gso_size payload bytes if @gso_segs > 1.
 */
static struct run send_gso_frame(const __u8 *frame, size_t len,
				 __u32 gso_segs, __u32 gso_size)
{
	__u8 out[FRAME_MAX + 64];
	struct __sk_buff ctx = { .ifindex = PORT, .gso_segs = gso_segs,
				 .gso_size = gso_size };
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		    .data_in = frame, .data_size_in = len,
		    .data_out = out, .data_size_out = sizeof(out),
		    .ctx_in = &ctx, .ctx_size_in = sizeof(ctx),
		    .repeat = 1);
	struct run r = { .verdict = -1 };

	if (bpf_prog_test_run_opts(bpf_program__fd(skel->progs.symphony_egress),
				   &opts))
		return r;
	r.verdict = opts.retval;
	r.ecn = opts.data_size_out > ETH_HLEN + 1 ? out[ETH_HLEN + 1] & 3 : 0xff;
	return r;
}

static struct run send_frame(const __u8 *frame, size_t len)
{
	return send_gso_frame(frame, len, 0, 0);
}

/*
 * A UDP GSO packet of @segs RoCEv2 WRITE segments of @job's @step, PSNs
 * from @psn, ECT(0), 64 bytes of payload each; the last segment ends the
 * message when @last.
 */
static struct run send_roce_gso(__u32 job, __u32 step, __u32 psn, __u32 segs,
				bool last)
{
	const size_t seg_size = SYMPHONY_BTH_LEN + 64;
	__u8 ip[FRAME_MAX], frame[FRAME_MAX];
	__u8 *seg = ip + ROCE_IPV4_LEN + ROCE_UDP_LEN;
	__u32 i;

	memset(ip, 0, sizeof(ip));
	roce_put_ipv4_udp(ip, 0x0100000a, 0x0200000a, step,
			  SYMPHONY_UDP_PORT_ROCEV2, ROCE_ECN_ECT0, 1,
			  segs * seg_size);
	for (i = 0; i < segs; i++, seg += seg_size)
		roce_put_bth(seg, last && i == segs - 1 ?
				  SYMPHONY_OP_RC_WRITE_LAST :
				  SYMPHONY_OP_RC_WRITE_MIDDLE,
			     job, 17, psn + i, false);
	return send_gso_frame(frame, ether(frame, ip, seg - ip), segs, seg_size);
}

static struct run send_roce(__u32 job, __u32 step, __u32 psn, bool last, __u8 ecn)
{
	__u8 frame[FRAME_MAX];

	return send_frame(frame, roce(frame, job, step, psn, last, ecn, 64));
}

/* The port's parameters: the qdisc's defaults, then keyword/value pairs. */
static int set_port(__u64 rate_bps, const char *const *kv)
{
	struct symphony_bpf_port port = { .ifindex = PORT,
					  .stats_slot = STATS_SLOT };
	char err[256];
	__u32 key = PORT;

	symphony_bpf_cfg_defaults(&port.cfg);
	for (; kv && kv[0]; kv += 2)
		if (symphony_bpf_cfg_set(&port.cfg, kv[0], kv[1], err, sizeof(err))) {
			fprintf(stderr, "%s\n", err);
			return -1;
		}
	if (symphony_bpf_cfg_derive(&port.cfg, rate_bps, 1514, NR_JOBS, err,
				    sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	return bpf_map_update_elem(bpf_map__fd(skel->maps.symphony_ports), &key,
				   &port, 0);
}

/* The phantom queue's end, CLOCK_MONOTONIC ns; or set it (@set). */
static __u64 port_empty(bool set, __u64 empty_ns)
{
	struct symphony_bpf_port port = {};
	__u32 key = PORT;
	int fd = bpf_map__fd(skel->maps.symphony_ports);

	bpf_map_lookup_elem(fd, &key, &port);
	if (set) {
		port.empty_ns = empty_ns;
		port.empty_ps = 0;
		bpf_map_update_elem(fd, &key, &port, 0);
	}
	return port.empty_ns;
}

static __u64 port_empty_ns(void)
{
	return port_empty(false, 0);
}

static __u32 port_limit_ns(void)
{
	struct symphony_bpf_port port = {};
	__u32 key = PORT;

	bpf_map_lookup_elem(bpf_map__fd(skel->maps.symphony_ports), &key, &port);
	return port.cfg.limit_ns;
}

static struct symphony_job job_state(__u32 id)
{
	struct symphony_job job = {};

	bpf_map_lookup_elem(bpf_map__fd(skel->maps.symphony_jobs), &id, &job);
	return job;
}

/* A counter over the CPUs: the sum, or the largest (@max: high-water marks) */
static __u64 stat_over_cpus(size_t offset, bool max)
{
	int ncpus = libbpf_num_possible_cpus();
	struct symphony_bpf_stats *v = calloc(ncpus, sizeof(*v));
	__u32 key = STATS_SLOT;
	__u64 sum = 0, x;
	int cpu;

	if (!v)
		return 0;
	if (!bpf_map_lookup_elem(bpf_map__fd(skel->maps.symphony_port_stats),
				 &key, v))
		for (cpu = 0; cpu < ncpus; cpu++) {
			memcpy(&x, (__u8 *)&v[cpu] + offset, sizeof(x));
			if (!max)
				sum += x;
			else if (x > sum)
				sum = x;
		}
	free(v);
	return sum;
}

#define STAT(field)							\
	stat_over_cpus(offsetof(struct symphony_bpf_stats, field),	\
		       offsetof(struct symphony_bpf_stats, field) ==	\
		       offsetof(struct symphony_bpf_stats, max_backlog_ns))

static void reset_stats(void)
{
	int ncpus = libbpf_num_possible_cpus();
	struct symphony_bpf_stats *v = calloc(ncpus, sizeof(*v));
	__u32 key = STATS_SLOT;

	if (v)
		bpf_map_update_elem(bpf_map__fd(skel->maps.symphony_port_stats),
				    &key, v, 0);
	free(v);
}

/* RED far away: only Symphony marks; T_win 10 s, so that no window
 * ends (and psn_rec starts anew) between the packets of a case, however
 * slow the machine (TCG)
 */
static const char *const symphony_only[] = {
	"kmin", "4000000000", "kmax", "4000000000", "k", K_ALWAYS,
	"warmup", "0", "twin", "10s", NULL
};

static void test_symphony(void)
{
	__u8 frame[FRAME_MAX];
	struct symphony_job j;
	struct run r;
	int i, marked;

	tap_check(!set_port(10000000000ULL, symphony_only),
		  "a port with the qdisc's defaults, k 100, RED out of reach");
	reset_stats();

	r = send_frame(frame, udp(frame, ROCE_ECN_ECT0, 64));
	tap_check(r.verdict == TC_ACT_OK && r.ecn == ROCE_ECN_ECT0 &&
		  STAT(unclassified_packets) == 1 && STAT(packets) == 1,
		  "a UDP packet that is not collective passes unmarked");

	i = roce(frame, 1, 5, 1, false, ROCE_ECN_ECT0, 64);
	frame[ETH_HLEN + ROCE_IPV4_LEN + 4] = 0x0f;	/* UDP length > IP's */
	r = send_frame(frame, i);
	tap_check(r.verdict == TC_ACT_OK && r.ecn == ROCE_ECN_ECT0 &&
		  STAT(malformed_packets) == 1,
		  "a RoCEv2 packet with a UDP length past the IP packet passes, malformed");

	for (i = 1; i <= 3; i++)
		r = send_roce(1, 5, i, false, ROCE_ECN_ECT0);
	j = job_state(1);
	tap_check(r.ecn == ROCE_ECN_ECT0 && j.step_min == 5 && j.psn_rec == 3 &&
		  j.packets == 3 && !j.outpacing_packets,
		  "job 1 step 5: step_min 5, psn_rec 3, nothing marked");

	r = send_roce(1, 6, 2, false, ROCE_ECN_ECT0);
	j = job_state(1);
	tap_check(r.verdict == TC_ACT_OK && r.ecn == ROCE_ECN_CE &&
		  j.outpacing_packets == 1 && j.symphony_marks == 1 &&
		  STAT(symphony_marks) == 1 && STAT(outpacing_packets) == 1,
		  "an outpacing packet (step 6) is marked CE at probability 1");

	marked = 0;
	for (i = 4; i < 204; i++)
		marked += send_roce(1, 5, i, false, ROCE_ECN_ECT0).ecn == ROCE_ECN_CE;
	tap_check(!marked && job_state(1).symphony_marks == 1,
		  "200 packets of the lagging step 5 are never marked");

	r = send_roce(1, 4, 1, false, ROCE_ECN_ECT0);
	tap_check(r.ecn == ROCE_ECN_ECT0 && job_state(1).step_min == 4,
		  "a packet of an older step 4 lowers step_min and is not marked");

	r = send_roce(1, 6, 3, false, ROCE_ECN_NOT_ECT);
	j = job_state(1);
	tap_check(r.verdict == TC_ACT_OK && r.ecn == ROCE_ECN_NOT_ECT,
		  "an outpacing packet that is not ECN-capable passes (Symphony never drops)");
	tap_check(j.outpacing_packets == 2 && j.symphony_marks == 1 &&
		  STAT(outpacing_packets) == 2 && STAT(symphony_marks) == 1,
		  "... its toss, which CE could not carry, is counted as no mark (job %llu, port %llu)",
		  (unsigned long long)j.symphony_marks,
		  (unsigned long long)STAT(symphony_marks));

	for (i = 1; i <= 3; i++)
		send_roce(2, 65535, i, false, ROCE_ECN_ECT0);
	r = send_roce(2, 0, 1, false, ROCE_ECN_ECT0);
	tap_check(r.ecn == ROCE_ECN_CE && job_state(2).step_min == 65535,
		  "step 0 after step 65535 is ahead (16-bit wrap-around): marked");

	for (i = 1; i <= 3; i++)
		send_roce(3, 10, i, false, ROCE_ECN_ECT0);
	r = send_roce(4, 3, 1, false, ROCE_ECN_ECT0);
	tap_check(r.ecn == ROCE_ECN_ECT0 && job_state(4).step_min == 3 &&
		  job_state(3).step_min == 10,
		  "job 4's first packet (step 3) is its own step_min, not behind job 3's 10");
	tap_check(send_roce(3, 11, 2, false, ROCE_ECN_ECT0).ecn == ROCE_ECN_CE &&
		  send_roce(4, 3, 2, false, ROCE_ECN_ECT0).ecn == ROCE_ECN_ECT0,
		  "... job 3's step 11 is marked, job 4's step 3 is not");

	r = send_roce(100, 9, 1, false, ROCE_ECN_ECT0);
	tap_check(r.ecn == ROCE_ECN_ECT0 && STAT(unclassified_packets) == 3,
		  "a job past the map's slots passes unmarked, unclassified");

	r = send_roce(1, 4, 300, true, ROCE_ECN_ECT0);
	tap_check(job_state(1).step_min == 5 && job_state(1).psn_rec == 0,
		  "the last packet of step 4 moves step_min to 5");
}

/*
 * Untagged RoCEv2 (job 0: the job field, BTH reserved bits by default,
 * is clear), as Soft-RoCE sends it: two unrelated queue pairs, told
 * apart only by their source ports (the default step field), must not
 * make one look ahead of the other.  RED only, no job state.
 */
static void test_untagged(void)
{
	unsigned long long unclassified;
	int i, marked = 0;

	set_port(10000000000ULL, symphony_only);
	reset_stats();
	for (i = 0; i < 3; i++)
		send_roce(0, 1000, 100 + i, false, ROCE_ECN_ECT0);
	for (i = 0; i < 20; i++)
		marked += send_roce(0, 2000, 8000000 + i, false,
				    ROCE_ECN_ECT0).ecn == ROCE_ECN_CE;
	unclassified = STAT(unclassified_packets);
	tap_check(!marked && !STAT(symphony_marks) && unclassified == 23 &&
		  !job_state(0).packets,
		  "untagged RoCEv2 (job 0), two queue pairs: none of 20 marked, 23 unclassified, no job 0 state");
}

/*
 * UDP GSO: each segment's own BTH runs Algorithm 1, as the qdisc does.
 * Three 4-segment messages of steps 5, 6 and 7 in order, each ending
 * LAST in its last segment, move step_min to 8 and nothing runs ahead
 * (reading the first segment only leaves step_min at 5 and marks steps 6
 * and 7).  Then an outpacing GSO packet: CE once, each segment's mark
 * counted in its job, the packet's segments in the port's counters.
 */
static void test_gso(void)
{
	unsigned long long marks, outpacing;
	struct symphony_job j;
	struct run r;
	int ce = 0;
	__u32 step;

	set_port(10000000000ULL, symphony_only);
	reset_stats();
	for (step = 5; step <= 7; step++)
		ce += send_roce_gso(11, step, 1, 4, true).ecn == ROCE_ECN_CE;
	j = job_state(11);
	tap_check(j.step_min == 8 && j.packets == 12 && !j.outpacing_packets &&
		  !j.symphony_marks && !ce && STAT(collective_packets) == 12,
		  "GSO messages of steps 5, 6, 7 with LAST in their last segment: step_min %u, %llu outpacing, %d marked",
		  (unsigned int)j.step_min,
		  (unsigned long long)j.outpacing_packets, ce);

	for (step = 1; step <= 3; step++)
		send_roce(12, 1, step, false, ROCE_ECN_ECT0);
	marks = STAT(symphony_marks);
	outpacing = STAT(outpacing_packets);
	r = send_roce_gso(12, 2, 1, 4, false);
	j = job_state(12);
	tap_check(r.ecn == ROCE_ECN_CE && j.outpacing_packets == 4 &&
		  j.symphony_marks == 4 && j.packets == 7 &&
		  STAT(symphony_marks) - marks == 4 &&
		  STAT(outpacing_packets) - outpacing == 4,
		  "an outpacing GSO packet of 4 segments leaves CE, 4 marks and 4 outpacing counted (job %llu/%llu, port %llu/%llu)",
		  (unsigned long long)j.symphony_marks,
		  (unsigned long long)j.outpacing_packets,
		  STAT(symphony_marks) - marks,
		  STAT(outpacing_packets) - outpacing);
}

static void test_red_only_marking(void)
{
	static const char *const red_only[] = {
		"kmin", "4000000000", "kmax", "4000000000", "k", K_ALWAYS,
		"warmup", "0", "twin", "10s", "marking", "red", NULL
	};
	struct symphony_job j;
	int i;

	set_port(10000000000ULL, red_only);
	for (i = 1; i <= 3; i++)
		send_roce(5, 1, i, false, ROCE_ECN_ECT0);
	tap_check(send_roce(5, 2, 1, false, ROCE_ECN_ECT0).ecn == ROCE_ECN_ECT0,
		  "marking red: an outpacing packet is not marked");
	j = job_state(5);
	tap_check(j.packets == 4 && j.outpacing_packets == 1 && !j.symphony_marks,
		  "... but the job's state and counters advance");
}

/*
 * alpha over windows: T_win 20 ms, and a pair of packets (one of
 * step_min, which sets the window's psn_rec, one ahead) every 25 ms, so
 * that each pair has a window of its own even on a slow machine; half the
 * packets outpace (tau 0.25), so alpha grows by one a window, and k 0.02
 * marks with probability 0.02 alpha.
 */
static void test_alpha(void)
{
	static const char *const growing[] = {
		"kmin", "4000000000", "kmax", "4000000000", "k", "0.02",
		"warmup", "0", "twin", "20ms", "samples", "0", NULL
	};
	int i, early = 0, late = 0;
	__u32 alpha_early;

	set_port(10000000000ULL, growing);
	for (i = 1; i <= 100; i++) {
		bool ce;

		send_roce(6, 1, i, false, ROCE_ECN_ECT0);
		ce = send_roce(6, 2, i, false, ROCE_ECN_ECT0).ecn == ROCE_ECN_CE;
		if (i <= 20)
			early += ce;
		if (i > 80)
			late += ce;
		if (i == 20)
			alpha_early = job_state(6).alpha;
		usleep(25000);
	}
	tap_note("alpha %u after 20 pairs, %u after 100; marked %d of the first 20, %d of the last 20",
		 alpha_early, job_state(6).alpha, early, late);
	tap_check(job_state(6).alpha >= 60 && alpha_early < job_state(6).alpha,
		  "alpha grows window by window while half the packets outpace");
	tap_check(early < 20 && late == 20,
		  "marks follow: some of the first 20 outpacing packets, all of the last 20");
}

/* RED on the phantom queue of a 1 Mbit/s port: a 1000-byte frame adds
 * 8 ms of backlog, far more than the test's packets are apart, even on a
 * debug kernel under TCG.
 */
static void test_phantom_red(void)
{
	static const char *const red[] = {
		"kmin", "2000", "kmax", "4000", "pmax", "1", "marking", "red",
		NULL
	};
	static const char *const pass[] = {
		"kmin", "2000", "kmax", "4000", "pmax", "1", "marking", "red",
		"nonect", "pass", NULL
	};
	static const char *const small[] = {
		"kmin", "2000", "kmax", "4000", "pmax", "1", "limit_bytes",
		"8000", NULL
	};
	__u8 frame[FRAME_MAX];
	size_t len = udp(frame, ROCE_ECN_ECT0, 1000 - ETH_HLEN - 28);
	int i, first_marked = -1, marked_tail = 0;
	__u64 packets, bytes, empty_ns;
	struct run r;

	set_port(1000000ULL, red);
	reset_stats();
	for (i = 0; i < 20; i++) {
		r = send_frame(frame, len);
		if (r.ecn == ROCE_ECN_CE && first_marked < 0)
			first_marked = i;
		if (i >= 10)
			marked_tail += r.ecn == ROCE_ECN_CE;
	}
	tap_note("first marked frame %d; %llu RED marks; high-water %llu ns",
		 first_marked, (unsigned long long)STAT(red_marks),
		 (unsigned long long)STAT(max_backlog_ns));
	tap_check(first_marked >= 2 && marked_tail == 10 &&
		  STAT(max_backlog_ns) >= 12 * 8000000ULL,
		  "a burst of 1000-byte frames: unmarked below kmin, every one past kmax");

	len = udp(frame, ROCE_ECN_NOT_ECT, 1000 - ETH_HLEN - 28);
	packets = STAT(packets);
	bytes = STAT(bytes);
	empty_ns = port_empty_ns();
	r = send_frame(frame, len);
	tap_check(r.verdict == TC_ACT_SHOT && STAT(red_drops) == 1,
		  "a non-ECT frame RED would mark is dropped (nonect drop)");
	tap_check(STAT(packets) == packets && STAT(bytes) == bytes &&
		  port_empty_ns() == empty_ns,
		  "... not counted as sent, and not in the phantom queue");
	r = send_frame(frame, roce(frame, 9, 1, 100, false, ROCE_ECN_NOT_ECT, 900));
	tap_check(r.verdict == TC_ACT_SHOT && job_state(9).packets == 0 &&
		  !(job_state(9).flags & SYMPHONY_JOB_F_ACTIVE),
		  "a dropped collective packet leaves its job's state and counters alone");
	set_port(1000000ULL, pass);
	r = send_frame(frame, len);
	tap_check(r.verdict == TC_ACT_OK && r.ecn == ROCE_ECN_NOT_ECT,
		  "... and passes unmarked with nonect pass");

	usleep(300000);		/* 21 frames drain in 168 ms */
	len = udp(frame, ROCE_ECN_ECT0, 1000 - ETH_HLEN - 28);
	tap_check(send_frame(frame, len).ecn == ROCE_ECN_ECT0,
		  "after 300 ms the phantom queue has drained: unmarked");

	usleep(300000);
	set_port(1000000ULL, small);
	reset_stats();
	for (i = 0; i < 40; i++)		/* 320 ms of frames */
		send_frame(frame, len);
	tap_note("overlimits %llu, high-water %llu ns of a %u ns phantom queue",
		 (unsigned long long)STAT(phantom_overlimits),
		 (unsigned long long)STAT(max_backlog_ns), port_limit_ns());
	tap_check(STAT(phantom_overlimits) >= 10 &&
		  STAT(max_backlog_ns) <= 8000ULL * 8000 &&
		  STAT(max_backlog_ns) >= 7000ULL * 8000,
		  "a phantom queue of 8000 bytes fills to 8 frames; 40 frames at once go over");
}

/*
 * The phantom queue's drain time keeps sub-nanosecond precision: 10
 * frames of 64 bytes at 400 Gbit/s add 12 ns (12.8; an integer
 * ps_per_byte and a truncated per-packet time gave 10), 10 of 1500 bytes
 * at 381 Gbit/s 314 ns (314.96; 20 ps per byte: 300).  The queue is kept
 * 70 ms long (its limit is 80 ms), so that it does not drain between the
 * test runs, in an emulated debug kernel (about 1 ms a run) too.
 */
static void test_phantom_precision(void)
{
	static const char *const big[] = {
		"kmin", "4000000000", "kmax", "4000000000", "limit_bytes",
		"4000000000", NULL
	};
	static const struct {
		__u64	rate_bps;
		size_t	frame;
		int	count;
		__u64	want_ns;
	} cases[] = {
		{ 400000000000ULL, 64, 10, 12 },
		{ 381000000000ULL, 1500, 10, 314 },
	};
	__u8 frame[FRAME_MAX];
	size_t i;
	int n;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		size_t len = udp(frame, ROCE_ECN_ECT0,
				 cases[i].frame - ETH_HLEN - 28);
		struct timespec ts;
		__u64 start, added;

		set_port(cases[i].rate_bps, big);
		clock_gettime(CLOCK_MONOTONIC, &ts);
		start = ts.tv_sec * 1000000000ULL + ts.tv_nsec + 70000000ULL;
		port_empty(true, start);
		for (n = 0; n < cases[i].count; n++)
			send_frame(frame, len);
		added = port_empty_ns() - start;
		tap_note("%d frames of %zu bytes at %llu bit/s: %llu ns", cases[i].count,
			 cases[i].frame, (unsigned long long)cases[i].rate_bps,
			 (unsigned long long)added);
		tap_check(added == cases[i].want_ns,
			  "%d frames of %zu bytes at %llu Gbit/s fill the phantom queue by %llu ns",
			  cases[i].count, cases[i].frame,
			  (unsigned long long)(cases[i].rate_bps / 1000000000ULL),
			  (unsigned long long)cases[i].want_ns);
	}
}

int main(void)
{
	int err;

	libbpf_set_print(NULL);
	skel = symphony_bpf__open();
	if (!skel)
		tap_skip_all("cannot open the BPF object");
	bpf_map__set_max_entries(skel->maps.symphony_jobs, NR_JOBS);
	err = symphony_bpf__load(skel);
	if (err) {
		if (err == -EPERM || geteuid())
			tap_skip_all("loading BPF needs root");
		fprintf(stderr, "load: %s\n", strerror(-err));
		return 1;
	}
	test_symphony();
	test_untagged();
	test_gso();
	test_red_only_marking();
	test_alpha();
	test_phantom_red();
	test_phantom_precision();
	symphony_bpf__destroy(skel);
	return tap_finish();
}
