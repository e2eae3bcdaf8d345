// SPDX-License-Identifier: GPL-2.0
/*
 * permsend.c - one host of a permutation (or all-to-all) collective at a
 * fixed fraction of the line rate, the Ofan paper's workload: every host
 * sends m RoCEv2 WRITE packets to its partner in a random derangement of
 * the hosts (the same for every host: seeded), or to every other host;
 * the receiver ACKs each packet.  No congestion control and no
 * retransmission: what a load balancer does to the packets shows as-is.
 *
 * With --reps the sender chooses each data packet's UDP source port, which
 * the switches' ECMP hashes, by REPS (include/workload/reps.h: recycled
 * entropies, retired on an ECN echo, frozen after a timeout), as the
 * simulator's hosts do; the receiver echoes a CE-marked packet in its
 * ACK's BTH BECN bit, and the report counts what REPS did ("reps").
 *
 * Reports, as JSON: the completion time (common start to this host's last
 * ACK), the Appendix-A lower bound for the link rate, packet size, hops
 * and load (include/workload/permutation_lb.h) and their ratio, packets
 * sent, ACKed, received, lost and reordered, and the one-way delay of the
 * received packets: CLOCK_REALTIME send timestamps ride in the payload
 * (the hosts of a netns testbed share one clock) and the kernel stamps
 * each arrival (SO_TIMESTAMPING), so that a receiver waiting for a CPU
 * adds nothing to the delay; that wait is reported apart.
 *
 * Pacing (include/workload/pacer.h): the main thread sends on a fixed
 * schedule through a non-blocking socket, at most --max-catchup packets
 * back to back when it wakes late; the schedule moves later only past
 * that, and every move, the worst lag and the longest burst are in the
 * report (a run's guard reads them).  Receiving and ACKing run in a
 * thread of their own with their own socket, so that a sender that waits
 * never delays an ACK.  tc-scripts/permrun.sh runs every host and merges
 * the results.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <linux/errqueue.h>
#include <linux/net_tstamp.h>

#include "workload/derangement.h"
#include "workload/pacer.h"
#include "workload/permutation_lb.h"
#include "workload/reps.h"
#include "workload.h"

const char *tool_name = "permsend";

#define MAX_HOSTS	1024
#define ETH_OVERHEAD	18		/* Ethernet header and FCS */
#define FRAME_OVERHEAD	(ETH_OVERHEAD + ROCE_IPV4_LEN + ROCE_UDP_LEN + \
			 SYMPHONY_BTH_LEN + ROCE_ICRC_LEN)
#define ACK_FRAME	(FRAME_OVERHEAD + ROCE_AETH_LEN)
#define SPORT_BASE	49152
#define MAX_DELAYS	(1 << 22)
#define HOST_HASH_BITS	11		/* 2048 slots for 1024 hosts */
#define HOST_HASH_SIZE	(1 << HOST_HASH_BITS)
#define BUSY_WAIT_NS	20000		/* after a refused send */
#define ACK_TRIES	1000		/* 20 us apart: 20 ms for one ACK */
/* BTH byte 4's BECN bit: the ACK of a CE-marked packet (the simulator's
 * unreliable transport sets the same; Symphony's job bits are the low 6)
 */
#define BTH_BECN	0x40

struct peer_rx {
	__u32	received;
	__u32	max_psn;
	__u32	reordered;
	bool	any;
};

struct permsend {
	__u32		hosts[MAX_HOSTS];
	__u32		nr_hosts;
	__s16		host_slot[HOST_HASH_SIZE];	/* index by address */
	__u32		me;
	bool		all_to_all;
	__u64		seed;
	__u32		packets;		/* m, per destination */
	__u32		mtu;
	__u64		rate_bps;
	__u32		load_pct;
	__u32		hops;
	__u64		prop_ns;
	struct workload_common common;	/* start, timeout, local, out */
	/* what this host does */
	__u32		dests[MAX_HOSTS];	/* indexes */
	__u32		nr_dests;
	__u32		expect_from;		/* packets to receive in all */
	__u32		max_catchup;		/* packets */
	int		tx_fd, rx_fd, ack_fd;
	__u16		ip_id, ack_ip_id;
	__s64		mono_minus_real_ns;	/* kernel stamps to CLOCK_MONOTONIC */
	/* the sender's (main thread) */
	struct pacer	pacer;
	__u64		sent, start_ns;
	/* the receiver's (rx thread); the main thread reads the counters
	 * marked (atomic) while it runs, the rest after joining it
	 */
	__u64		acked, received;	/* atomic */
	__u64		last_ack_ns, last_rx_ns; /* atomic, CLOCK_MONOTONIC */
	__u64		reordered, unknown, ack_retries, acks_unsent;
	__u64		user_stamped;		/* arrivals without a kernel stamp */
	__u8		*ack_bits;		/* per (dest, psn) */
	struct peer_rx	*rx;			/* per source index */
	__u64		*delays;		/* one-way ns, received packets */
	__u64		*rx_waits;		/* kernel stamp to recvmsg, ns */
	__u64		nr_delays;
	__u64		ce_received;		/* data packets that arrived CE */
	/* REPS (--reps): a queue pair per destination; the sender takes
	 * entropies and the rx thread returns them, under reps_lock
	 */
	bool		reps_on;
	struct reps_params reps_p;
	struct reps	*reps;			/* per dest slot */
	struct reps_sent *reps_sent;		/* per (dest slot, psn) */
	__u64		*reps_nr;		/* per dest slot: packets given one */
	struct reps_counters reps_c;
	__u64		reps_rng;		/* splitmix64, from --seed and host */
	__u8		*reps_used;		/* a bit per source port */
	__u64		reps_distinct;
	pthread_mutex_t	reps_lock;
	int		rx_stop;		/* atomic: main tells rx to end */
	int		rx_error;
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
"Usage: permsend [options] --hosts ADDR,ADDR,...\n"
"  Runs this host's part of a permutation (or all-to-all) at a fixed load.\n"
"  --hosts ADDRS     every host of the collective (IPv4, 2..1024), the same\n"
"                    list on every host; this host is the local one\n"
"  --all-to-all      send to every other host (default: one partner in a\n"
"                    derangement drawn from --seed)\n"
"  --seed N          derangement seed (default 1)\n"
"  --packets M       data packets per destination (1..1000000, default 256)\n"
"  --mtu BYTES       payload per packet (64..8192, default 1024)\n"
"  --rate RATE       link rate (kbit, mbit, gbit or bit/s; default 100mbit)\n"
"  --load PCT        offered load, percent of the rate (1..100, default 100)\n"
"  --hops H          links on a path, for the lower bound (default 6: across\n"
"                    pods of a 3-tier fat tree)\n"
"  --prop-us US      one-way propagation, for the lower bound (default 0)\n"
"  --max-catchup N   packets a late sender may send back to back to catch up\n"
"                    with its schedule, which moves later (reported) past\n"
"                    that (0..1000, default 4)\n"
"  --reps            choose each data packet's UDP source port (49152..65535,\n"
"                    which ECMP switches hash) by REPS: recycle the ports whose\n"
"                    ACKs came back without an ECN echo, retire echoed ones,\n"
"                    freeze the cache after a timeout (default: one port)\n"
"  --reps-entropies N   --reps: ports the cache holds (1..1024, default 8)\n"
"  --reps-freeze-us US  --reps: how long a timeout freezes the cache\n"
"                    (0..10000000, 0: never; default 10000)\n"
"  --reps-timeout-min-us US  --reps: the timeout's floor (the timeout is the\n"
"                    smoothed round trip plus 4 deviations, RFC 6298;\n"
"                    1..10000000, default 2)\n"
"  --start-at NS     start at this CLOCK_REALTIME time, ns\n"
"  --timeout SEC     stop waiting for packets and ACKs after SEC (default 10)\n"
"  --local ADDR      this host's address (default: the local one of --hosts)\n"
"  --out FILE        JSON result (default stdout)\n"
"Needs CAP_NET_RAW and UDP port 4791 free in its network namespace.\n");
}

static int parse_hosts(struct permsend *ps, char *list)
{
	char *tok, *save = NULL;
	__u32 k;

	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		struct in_addr a;

		if (ps->nr_hosts == MAX_HOSTS)
			return bad("--hosts", tok, "at most 1024 hosts");
		if (inet_pton(AF_INET, tok, &a) != 1)
			return bad("--hosts", tok, "not an IPv4 address");
		for (k = 0; k < ps->nr_hosts; k++)
			if (ps->hosts[k] == a.s_addr)
				return bad("--hosts", tok, "address twice");
		ps->hosts[ps->nr_hosts++] = a.s_addr;
	}
	return ps->nr_hosts < 2 ? bad("--hosts", "", "needs 2 or more hosts") : 0;
}

static int parse_args(struct permsend *ps, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "hosts", required_argument, NULL, 'H' },
		{ "all-to-all", no_argument, NULL, 'a' },
		{ "seed", required_argument, NULL, 's' },
		{ "packets", required_argument, NULL, 'm' },
		{ "mtu", required_argument, NULL, 'M' },
		{ "rate", required_argument, NULL, 'r' },
		{ "load", required_argument, NULL, 'L' },
		{ "hops", required_argument, NULL, 'h' },
		{ "prop-us", required_argument, NULL, 'p' },
		{ "max-catchup", required_argument, NULL, 'C' },
		{ "reps", no_argument, NULL, 1001 },
		{ "reps-entropies", required_argument, NULL, 1002 },
		{ "reps-freeze-us", required_argument, NULL, 1003 },
		{ "reps-timeout-min-us", required_argument, NULL, 1004 },
		{ "start-at", required_argument, NULL, 'S' },
		{ "timeout", required_argument, NULL, 't' },
		{ "local", required_argument, NULL, 'l' },
		{ "out", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 1000 },
		{ }
	};

	bool reps_opt = false;
	__u32 v;
	int c;

	reps_params_default(&ps->reps_p);
	ps->seed = 1;
	ps->packets = 256;
	ps->mtu = 1024;
	ps->rate_bps = 100000000ULL;
	ps->load_pct = 100;
	ps->hops = 6;
	ps->max_catchup = 4;
	ps->common.timeout_ns = 10000000000ULL;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 1000:
			usage(stdout);
			exit(0);
		case 'H':
			if (parse_hosts(ps, optarg))
				return -1;
			break;
		case 'a':
			ps->all_to_all = true;
			break;
		case 's':
			if (parse_size(optarg, &ps->seed))
				return bad("--seed", optarg, "a number");
			break;
		case 'm':
			if (parse_u32_range("--packets", optarg, 1, 1000000, &ps->packets))
				return -1;
			break;
		case 'M':
			if (parse_u32_range("--mtu", optarg, 64, 8192, &ps->mtu))
				return -1;
			break;
		case 'r':
			if (parse_rate(optarg, &ps->rate_bps) ||
			    ps->rate_bps < 10000 || ps->rate_bps > 400000000000ULL)
				return bad("--rate", optarg, "10kbit..400gbit (kbit, mbit, gbit)");
			break;
		case 'L':
			if (parse_u32_range("--load", optarg, 1, 100, &ps->load_pct))
				return -1;
			break;
		case 'h':
			if (parse_u32_range("--hops", optarg, 1, 64, &ps->hops))
				return -1;
			break;
		case 'p':
			if (parse_u32_range("--prop-us", optarg, 0, 1000000, &v))
				return -1;
			ps->prop_ns = v * 1000ULL;
			break;
		case 'C':
			if (parse_u32_range("--max-catchup", optarg, 0, 1000,
					    &ps->max_catchup))
				return -1;
			break;
		case 1001:
			ps->reps_on = true;
			break;
		case 1002:
			if (parse_u32_range("--reps-entropies", optarg, 1,
					    REPS_MAX_ENTROPIES, &ps->reps_p.entropies))
				return -1;
			reps_opt = true;
			break;
		case 1003:
			if (parse_u32_range("--reps-freeze-us", optarg, 0, 10000000, &v))
				return -1;
			ps->reps_p.freeze_ns = v * 1000ULL;
			reps_opt = true;
			break;
		case 1004:
			if (parse_u32_range("--reps-timeout-min-us", optarg, 1, 10000000, &v))
				return -1;
			ps->reps_p.timeout_min_ns = v * 1000ULL;
			reps_opt = true;
			break;
		case 'S': case 't': case 'l': case 'o':
			if (common_opt(&ps->common, c, optarg) < 0)
				return -1;
			break;
		default:
			fprintf(stderr, "permsend: unknown option or missing value: '%s'\n",
				argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "permsend: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if (!ps->nr_hosts) {
		fprintf(stderr, "permsend: no --hosts\n");
		return -1;
	}
	if (reps_opt && !ps->reps_on) {
		fprintf(stderr, "permsend: --reps-entropies, --reps-freeze-us and --reps-timeout-min-us are for --reps\n");
		return -1;
	}
	if (!ps->common.start_at_mono_ns)
		ps->common.start_at_mono_ns = mono_ns();
	return 0;
}

/* Host indexes by address: open addressing, filled once by place(). */
static __u32 addr_hash(__u32 addr)
{
	return (addr * 0x9e3779b1U) >> (32 - HOST_HASH_BITS);
}

static void index_hosts(struct permsend *ps)
{
	__u32 i, h;

	memset(ps->host_slot, -1, sizeof(ps->host_slot));
	for (i = 0; i < ps->nr_hosts; i++) {
		for (h = addr_hash(ps->hosts[i]); ps->host_slot[h] >= 0;
		     h = (h + 1) & (HOST_HASH_SIZE - 1))
			;
		ps->host_slot[h] = i;
	}
}

/* The index of the host at @addr, or -1: per packet, so no scan. */
static __s32 host_index(const struct permsend *ps, __u32 addr)
{
	__u32 h;

	for (h = addr_hash(addr); ps->host_slot[h] >= 0;
	     h = (h + 1) & (HOST_HASH_SIZE - 1))
		if (ps->hosts[ps->host_slot[h]] == addr)
			return ps->host_slot[h];
	return -1;
}

/* The slot of destination @host in dests[] (in host order, without us). */
static __s32 dest_slot(const struct permsend *ps, __u32 host)
{
	if (!ps->all_to_all)
		return host == ps->dests[0] ? 0 : -1;
	if (host == ps->me)
		return -1;
	return host < ps->me ? host : host - 1;
}

/* This host's index, partners and expected arrivals. */
static int place(struct permsend *ps)
{
	static __u32 perm[MAX_HOSTS];
	__u32 i, found = 0;

	for (i = 0; i < ps->nr_hosts; i++) {
		if (ps->common.local ? ps->hosts[i] == ps->common.local :
		    addr_is_local(ps->hosts[i])) {
			ps->me = i;
			found++;
		}
	}
	if (found != 1) {
		fprintf(stderr, "permsend: %s of --hosts is this host's%s\n",
			found ? "more than one" : "none",
			found ? ": pick one with --local" : "");
		return -1;
	}
	ps->common.local = ps->hosts[ps->me];
	index_hosts(ps);
	if (ps->all_to_all) {
		for (i = 0; i < ps->nr_hosts; i++)
			if (i != ps->me)
				ps->dests[ps->nr_dests++] = i;
		ps->expect_from = (ps->nr_hosts - 1) * ps->packets;
	} else {
		derangement(perm, ps->nr_hosts, ps->seed);
		ps->dests[ps->nr_dests++] = perm[ps->me];
		ps->expect_from = ps->packets;
	}
	return 0;
}

/* The REPS source port of packet @psn to destination slot @d, sent at
 * @now: chosen at its first try, the same when a refused send tries again.
 */
static __u16 reps_port(struct permsend *ps, __u32 d, __u32 psn, __u64 now)
{
	struct reps_sent *sent = ps->reps_sent + (__u64)d * ps->packets;
	__u16 e;

	pthread_mutex_lock(&ps->reps_lock);
	if (ps->reps_nr[d] > psn) {
		e = sent[psn].entropy;
		sent[psn].sent_ns = now;
		pthread_mutex_unlock(&ps->reps_lock);
		return e;
	}
	e = reps_next(&ps->reps[d], &ps->reps_p, sent, ps->reps_nr[d], now,
		      &ps->reps_c);
	if (e == REPS_EXPLORE)
		e = reps_port_of(derangement_next_random(&ps->reps_rng) >> 32);
	reps_sent_at(sent, ps->reps_nr[d]++, e, now);
	pthread_mutex_unlock(&ps->reps_lock);
	if (!(ps->reps_used[e / 8] & (1 << (e % 8)))) {
		ps->reps_used[e / 8] |= 1 << (e % 8);
		ps->reps_distinct++;
	}
	return e;
}

/* The ACK of packet @psn to destination slot @d, at @now, echoing CE
 * (@ecn_echo) or not: its entropy recycled or retired.
 */
static void reps_ack(struct permsend *ps, __u32 d, __u32 psn, bool ecn_echo,
		     __u64 now)
{
	struct reps_sent *sent = ps->reps_sent + (__u64)d * ps->packets;

	pthread_mutex_lock(&ps->reps_lock);
	/* the kernel's arrival stamp, never before the send (the clocks) */
	if (psn < ps->reps_nr[d] && now < sent[psn].sent_ns)
		now = sent[psn].sent_ns;
	reps_on_ack(&ps->reps[d], sent, ps->reps_nr[d], psn, ecn_echo, now,
		    &ps->reps_c);
	pthread_mutex_unlock(&ps->reps_lock);
}

/* Data packet @seq (round-robin over the destinations), stamped with
 * its CLOCK_REALTIME send time, at @now (CLOCK_MONOTONIC): 1 if the
 * socket or queue was full, -1 on error.
 */
static int send_data(struct permsend *ps, __u64 seq, __u64 now)
{
	__u8 pkt[ROCE_IPV4_LEN + ROCE_UDP_LEN + SYMPHONY_BTH_LEN + 8192];
	__u8 *bth = pkt + ROCE_IPV4_LEN + ROCE_UDP_LEN;
	__u32 d = seq % ps->nr_dests, psn = seq / ps->nr_dests;
	__u16 sport = SPORT_BASE + ps->me;
	int r;

	roce_put_bth(bth, roce_write_opcode(psn, ps->packets), 0, ps->me + 1,
		     psn, true);
	memset(bth + SYMPHONY_BTH_LEN, 0xa5, ps->mtu);
	symphony_put_be64(bth + SYMPHONY_BTH_LEN, real_ns());
	if (ps->reps_on)
		sport = reps_port(ps, d, psn, now);
	r = send_raw_udp(ps->tx_fd, ps->common.local, ps->hosts[ps->dests[d]],
			 sport, SYMPHONY_UDP_PORT_ROCEV2,
			 ROCE_ECN_ECT0, ps->ip_id, pkt, SYMPHONY_BTH_LEN + ps->mtu);
	if (!r)
		ps->ip_id++;
	return r;
}

/* ACK @psn from @src, with BECN if the packet arrived CE-marked (@ce):
 * retried while the socket or queue is full (the sender of the data
 * waits for it), on a socket the data never use.
 */
static int send_ack(struct permsend *ps, __u32 to, __s32 src, __u32 psn,
		    bool ce)
{
	__u8 ack[ROCE_IPV4_LEN + ROCE_UDP_LEN + 32];
	__u8 *bth = ack + ROCE_IPV4_LEN + ROCE_UDP_LEN;
	int tries, r;

	roce_put_ack(bth, 0, src + 1, psn, ROCE_AETH_ACK, psn);
	if (ce)
		bth[SYMPHONY_BTH_FECN_RSVD] |= BTH_BECN;
	for (tries = 0; tries < ACK_TRIES; tries++) {
		r = send_raw_udp(ps->ack_fd, ps->common.local, to,
				 SPORT_BASE + ps->me, SYMPHONY_UDP_PORT_ROCEV2,
				 ROCE_ECN_NOT_ECT, ps->ack_ip_id,
				 ack, SYMPHONY_BTH_LEN + ROCE_AETH_LEN);
		if (r <= 0)
			break;
		ps->ack_retries++;
		sleep_until(mono_ns() + BUSY_WAIT_NS);
	}
	if (r > 0)
		ps->acks_unsent++;
	else if (!r)
		ps->ack_ip_id++;
	return r < 0 ? -1 : 0;
}

/* The kernel's receive stamp (CLOCK_REALTIME) of the datagram in @msg,
 * and its IP TOS byte (IP_RECVTOS; 0 without one) in @tos.
 */
static bool rx_stamp(struct msghdr *msg, __u64 *real, __u8 *tos)
{
	bool stamped = false;
	struct cmsghdr *c;

	*tos = 0;
	for (c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
		struct scm_timestamping tss;

		if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TOS) {
			*tos = *(__u8 *)CMSG_DATA(c);
			continue;
		}
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPING)
			continue;
		memcpy(&tss, CMSG_DATA(c), sizeof(tss));
		if (!tss.ts[0].tv_sec && !tss.ts[0].tv_nsec)
			continue;
		*real = (__u64)tss.ts[0].tv_sec * 1000000000ULL + tss.ts[0].tv_nsec;
		stamped = true;
	}
	return stamped;
}

/* Every datagram waiting on the receive socket (the rx thread's). */
static int receive(struct permsend *ps)
{
	__u8 buf[9000];
	char control[256];
	struct sockaddr_in from;
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr msg = { .msg_name = &from, .msg_iov = &iov, .msg_iovlen = 1 };

	for (;;) {
		__u64 user_real, stamp_real, now, bit;
		__s32 src, d;
		ssize_t n;
		__u32 psn;
		__u8 op, tos;
		bool ce;

		msg.msg_namelen = sizeof(from);
		msg.msg_control = control;
		msg.msg_controllen = sizeof(control);
		n = recvmsg(ps->rx_fd, &msg, 0);
		if (n < 0)
			return 0;
		user_real = real_ns();
		if (!rx_stamp(&msg, &stamp_real, &tos)) {
			stamp_real = user_real;
			ps->user_stamped++;
		}
		now = stamp_real + ps->mono_minus_real_ns;
		if (n < SYMPHONY_BTH_LEN)
			continue;
		src = host_index(ps, from.sin_addr.s_addr);
		op = buf[SYMPHONY_BTH_OPCODE];
		psn = symphony_get_be24(buf + SYMPHONY_BTH_PSN);
		if (src < 0 || psn >= ps->packets) {
			ps->unknown++;
			continue;
		}
		if (op == SYMPHONY_OP_RC_ACK) {
			d = dest_slot(ps, src);
			if (d < 0)
				continue;
			bit = (__u64)d * ps->packets + psn;
			if (!(ps->ack_bits[bit / 8] & (1 << (bit % 8)))) {
				ps->ack_bits[bit / 8] |= 1 << (bit % 8);
				__atomic_store_n(&ps->last_ack_ns, now, __ATOMIC_RELAXED);
				__atomic_store_n(&ps->acked, ps->acked + 1,
						 __ATOMIC_RELEASE);
			}
			if (ps->reps_on)
				reps_ack(ps, d, psn,
					 buf[SYMPHONY_BTH_FECN_RSVD] & BTH_BECN, now);
			continue;
		}
		if (op < SYMPHONY_OP_RC_WRITE_FIRST || op > SYMPHONY_OP_RC_WRITE_ONLY ||
		    n < SYMPHONY_BTH_LEN + 8)
			continue;
		ps->rx[src].received++;
		if (ps->rx[src].any && psn < ps->rx[src].max_psn) {
			ps->rx[src].reordered++;
			ps->reordered++;
		}
		if (!ps->rx[src].any || psn > ps->rx[src].max_psn)
			ps->rx[src].max_psn = psn;
		ps->rx[src].any = true;
		if (ps->nr_delays < MAX_DELAYS) {
			ps->delays[ps->nr_delays] = stamp_real -
				symphony_get_be64(buf + SYMPHONY_BTH_LEN);
			ps->rx_waits[ps->nr_delays++] = user_real - stamp_real;
		}
		ce = (tos & 3) == ROCE_ECN_CE;
		ps->ce_received += ce;
		if (send_ack(ps, from.sin_addr.s_addr, src, psn, ce))
			return -1;
		__atomic_store_n(&ps->last_rx_ns, now, __ATOMIC_RELAXED);
		__atomic_store_n(&ps->received, ps->received + 1, __ATOMIC_RELEASE);
	}
}

static void *rx_main(void *arg)
{
	struct permsend *ps = arg;
	struct pollfd pfd = { .fd = ps->rx_fd, .events = POLLIN };

	while (!__atomic_load_n(&ps->rx_stop, __ATOMIC_ACQUIRE)) {
		if (poll(&pfd, 1, 10) > 0 && receive(ps)) {
			__atomic_store_n(&ps->rx_error, 1, __ATOMIC_RELAXED);
			break;
		}
	}
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/* min, median, p99 and max of the sorted @v[0..n-1], ns */
static struct json_object *spread_json(const __u64 *v, __u64 n)
{
	struct json_object *o = json_object_new_object();
	int err;

	err = jdoc_add_u64(o, "min", v[0]);
	err |= jdoc_add_u64(o, "median", v[n / 2]);
	err |= jdoc_add_u64(o, "p99", v[n * 99 / 100]);
	err |= jdoc_add_u64(o, "max", v[n - 1]);
	return jdoc_finish(o, err);
}

static struct json_object *pacing_json(const struct permsend *ps)
{
	const struct pacer *p = &ps->pacer;
	struct json_object *o = json_object_new_object();
	int err;

	err = jdoc_add_u64(o, "gap_ns", p->gap_ns);
	err |= jdoc_add_u64(o, "max_catchup_packets", p->max_catchup);
	err |= jdoc_add_u64(o, "worst_lag_ns", p->worst_lag_ns);
	err |= jdoc_add_u64(o, "worst_lag_packet", p->worst_lag_seq);
	err |= jdoc_add_u64(o, "max_burst_packets", p->max_burst);
	err |= jdoc_add_u64(o, "schedule_slip_ns", p->slip_ns);
	err |= jdoc_add_u64(o, "schedule_slips", p->slips);
	err |= jdoc_add_u64(o, "refused_sends", p->busy);
	err |= jdoc_add_u64(o, "ack_retries", ps->ack_retries);
	err |= jdoc_add_u64(o, "acks_unsent", ps->acks_unsent);
	return jdoc_finish(o, err);
}

/* What REPS did, the simulator's names ("reps" of a perm run's host) */
static struct json_object *reps_json(const struct permsend *ps)
{
	const struct reps_counters *c = &ps->reps_c;
	struct json_object *o = json_object_new_object();
	int err;

	err = jdoc_add_u64(o, "explored", c->explored);
	err |= jdoc_add_u64(o, "recycled", c->recycled);
	err |= jdoc_add_u64(o, "retired", c->retired);
	err |= jdoc_add_u64(o, "cached", c->cached);
	err |= jdoc_add_u64(o, "frozen_episodes", c->freezes);
	err |= jdoc_add_u64(o, "frozen_reused", c->frozen_reused);
	err |= jdoc_add_u64(o, "frozen_explored", c->frozen_explored);
	err |= jdoc_add_u64(o, "frozen_ns", c->frozen_ns);
	err |= jdoc_add_u64(o, "timeouts", c->timeouts);
	err |= jdoc_add_u64(o, "distinct_entropies", ps->reps_distinct);
	err |= jdoc_add_u64(o, "ce_received", ps->ce_received);
	return jdoc_finish(o, err);
}

/* REPS's parameters, the simulator's names (its run's "reps") */
static struct json_object *reps_params_json(const struct permsend *ps)
{
	struct json_object *o = json_object_new_object(), *ports;
	int err;

	err = jdoc_add_u64(o, "entropies", ps->reps_p.entropies);
	err |= jdoc_add_u64(o, "freeze_us", ps->reps_p.freeze_ns / 1000);
	err |= jdoc_add_u64(o, "explore_after_freeze", REPS_EXPLORE_AFTER_FREEZE);
	ports = json_object_new_array_ext(2);
	err |= jdoc_add(o, "ports", ports);
	if (!err) {
		err |= jdoc_append(ports, json_object_new_uint64(REPS_PORT_BASE));
		err |= jdoc_append(ports, json_object_new_uint64(REPS_PORT_BASE +
								 REPS_PORTS - 1));
	}
	err |= jdoc_add_u64(o, "timeout_min_ns", ps->reps_p.timeout_min_ns);
	return jdoc_finish(o, err);
}

static int print_report(struct permsend *ps, FILE *f)
{
	struct permutation_lb_params lb = {
		.m = ps->packets * ps->nr_dests,
		.hops = ps->hops,
		.t_data_ns = (double)(FRAME_OVERHEAD + ps->mtu) * 8e9 / ps->rate_bps,
		.t_ack_ns = (double)ACK_FRAME * 8e9 / ps->rate_bps,
		.t_gap_ns = 0,
		.t_prop_ns = ps->prop_ns,
		.load = ps->load_pct / 100.0,
	};
	struct json_object *doc = json_object_new_object(), *dests;
	char addr[INET_ADDRSTRLEN];
	__u64 cct = ps->last_ack_ns > ps->start_ns ? ps->last_ack_ns - ps->start_ns : 0;
	double bound = permutation_lb_ns(&lb);
	__u32 d;
	int err;

	qsort(ps->delays, ps->nr_delays, sizeof(*ps->delays), cmp_u64);
	qsort(ps->rx_waits, ps->nr_delays, sizeof(*ps->rx_waits), cmp_u64);
	inet_ntop(AF_INET, &ps->common.local, addr, sizeof(addr));
	err = jdoc_add_str(doc, "tool", "permsend");
	err |= jdoc_add_str(doc, "address", addr);
	err |= jdoc_add_u64(doc, "index", ps->me);
	err |= jdoc_add_str(doc, "pattern",
			      ps->all_to_all ? "all-to-all" : "permutation");
	err |= jdoc_add_u64(doc, "seed", ps->seed);
	err |= jdoc_add_u64(doc, "hosts", ps->nr_hosts);
	dests = json_object_new_array_ext(ps->nr_dests);
	err |= jdoc_add(doc, "dests", dests);
	for (d = 0; d < ps->nr_dests && !err; d++)
		err |= jdoc_append(dests, json_object_new_uint64(ps->dests[d]));
	err |= jdoc_add_u64(doc, "packets_per_dest", ps->packets);
	err |= jdoc_add_u64(doc, "mtu_bytes", ps->mtu);
	err |= jdoc_add_u64(doc, "rate_bps", ps->rate_bps);
	err |= jdoc_add_u64(doc, "load_pct", ps->load_pct);
	err |= jdoc_add_u64(doc, "hops", ps->hops);
	err |= jdoc_add_u64(doc, "prop_ns", ps->prop_ns);
	err |= jdoc_add_u64(doc, "start_ns", ps->start_ns);
	err |= jdoc_add_u64(doc, "last_ack_ns", ps->last_ack_ns);
	err |= jdoc_add_u64(doc, "cct_ns", cct);
	/* the bound in whole ns, the ratio to 4 decimals */
	err |= jdoc_add(doc, "lower_bound_ns", jdoc_fixed(bound, 0));
	err |= jdoc_add(doc, "cct_over_bound",
			  jdoc_fixed(bound > 0 ? cct / bound : 0, 4));
	err |= jdoc_add_u64(doc, "sent", ps->sent);
	err |= jdoc_add_u64(doc, "acked", ps->acked);
	err |= jdoc_add_u64(doc, "received", ps->received);
	err |= jdoc_add_u64(doc, "expected", ps->expect_from);
	err |= jdoc_add_u64(doc, "lost", ps->received < ps->expect_from ?
					   ps->expect_from - ps->received : 0);
	err |= jdoc_add_u64(doc, "reordered", ps->reordered);
	err |= jdoc_add_u64(doc, "stray", ps->unknown);
	err |= jdoc_add_u64(doc, "ce_received", ps->ce_received);
	if (ps->reps_on) {
		err |= jdoc_add(doc, "reps_params", reps_params_json(ps));
		err |= jdoc_add(doc, "reps", reps_json(ps));
	}
	err |= jdoc_add(doc, "pacing", pacing_json(ps));
	/* one-way: payload stamp to the kernel's receive stamp; the
	 * receiver's wait: that stamp to recvmsg() returning
	 */
	err |= jdoc_add_str(doc, "delay_clock", ps->user_stamped ?
			    "recvmsg" : "kernel");
	err |= jdoc_add_u64(doc, "arrivals_without_kernel_stamp", ps->user_stamped);
	if (ps->nr_delays) {
		err |= jdoc_add(doc, "one_way_delay_ns",
				spread_json(ps->delays, ps->nr_delays));
		err |= jdoc_add(doc, "receive_wait_ns",
				spread_json(ps->rx_waits, ps->nr_delays));
	} else {
		err |= jdoc_add_null(doc, "one_way_delay_ns");
		err |= jdoc_add_null(doc, "receive_wait_ns");
	}
	return jdoc_print(f, jdoc_finish(doc, err), JSON_C_TO_STRING_PLAIN);
}

static int open_sockets(struct permsend *ps)
{
	int flags = SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;

	ps->tx_fd = open_raw_socket();
	ps->ack_fd = open_raw_socket();
	if (ps->tx_fd < 0 || ps->ack_fd < 0)
		return -1;
	ps->rx_fd = open_udp_rx(SYMPHONY_UDP_PORT_ROCEV2,
				" (another permsend or ringcoll in this network namespace?)");
	if (ps->rx_fd < 0)
		return -1;
	/* without kernel stamps the delays fall back to recvmsg() times,
	 * and the report says so (delay_clock)
	 */
	if (setsockopt(ps->rx_fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof(flags)))
		fprintf(stderr, "permsend: no kernel receive timestamps (%s): delays include the receiver's wait\n",
			strerror(errno));
	return 0;
}

/* The schedule: every packet at its time, late ones at most
 * max_catchup behind; a refused send waits and tries again.
 */
static int send_all(struct permsend *ps, __u64 total)
{
	__u64 now, wake;
	int r;

	while (ps->sent < total && !stop &&
	       !__atomic_load_n(&ps->rx_error, __ATOMIC_RELAXED)) {
		now = mono_ns();
		wake = pacer_ready(&ps->pacer, ps->sent, now);
		if (wake) {
			sleep_until(wake);
			pacer_slept(&ps->pacer);
			continue;
		}
		r = send_data(ps, ps->sent, now);
		if (r < 0)
			return -1;
		if (r > 0) {
			pacer_refused(&ps->pacer);
			sleep_until(now + BUSY_WAIT_NS);
			pacer_slept(&ps->pacer);
			continue;
		}
		pacer_sent(&ps->pacer, ps->sent, now);
		ps->sent++;
	}
	return 0;
}

/* Every ACK back and every packet in, or silence for the timeout. */
static int wait_done(struct permsend *ps, __u64 total)
{
	__u64 now, last_rx, last_ack, done_ns = 0;

	while (!stop && !__atomic_load_n(&ps->rx_error, __ATOMIC_RELAXED)) {
		now = mono_ns();
		if (__atomic_load_n(&ps->acked, __ATOMIC_ACQUIRE) == total &&
		    __atomic_load_n(&ps->received, __ATOMIC_ACQUIRE) >= ps->expect_from) {
			if (!done_ns)
				done_ns = now;
			/* a moment for our last ACKs to reach their senders */
			if (now - done_ns > 50000000ULL)
				return 0;
		}
		last_rx = __atomic_load_n(&ps->last_rx_ns, __ATOMIC_RELAXED);
		last_ack = __atomic_load_n(&ps->last_ack_ns, __ATOMIC_RELAXED);
		if (last_ack > last_rx)
			last_rx = last_ack;
		if (last_rx < ps->start_ns)
			last_rx = ps->start_ns;
		if (now > last_rx && now - last_rx > ps->common.timeout_ns) {
			fprintf(stderr, "permsend: %llu of %llu ACKs and %llu of %u packets after %llu s of silence: lost in the network or a host is not running\n",
				(unsigned long long)__atomic_load_n(&ps->acked, __ATOMIC_ACQUIRE),
				(unsigned long long)total,
				(unsigned long long)__atomic_load_n(&ps->received, __ATOMIC_ACQUIRE),
				ps->expect_from,
				(unsigned long long)(ps->common.timeout_ns / 1000000000ULL));
			return 1;
		}
		sleep_until(now + 1000000);
	}
	return 1;
}

/* --reps: a queue pair per destination, its packets' entropies */
static int reps_alloc(struct permsend *ps)
{
	__u32 d;

	if (!ps->reps_on)
		return 0;
	ps->reps = calloc(ps->nr_dests, sizeof(*ps->reps));
	ps->reps_sent = calloc((__u64)ps->nr_dests * ps->packets,
			       sizeof(*ps->reps_sent));
	ps->reps_nr = calloc(ps->nr_dests, sizeof(*ps->reps_nr));
	ps->reps_used = calloc(65536 / 8, 1);
	if (!ps->reps || !ps->reps_sent || !ps->reps_nr || !ps->reps_used)
		return -1;
	for (d = 0; d < ps->nr_dests; d++)
		reps_init(&ps->reps[d], &ps->reps_p);
	/* the seed's permutation and this host: another stream per host */
	ps->reps_rng = ps->seed ^ ((__u64)(ps->me + 1) << 40);
	return pthread_mutex_init(&ps->reps_lock, NULL) ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct permsend *ps = calloc(1, sizeof(*ps));
	__u64 total, gap_ns;
	pthread_t rx_thread;
	FILE *out = stdout;
	int ret = 1, err;

	if (!ps)
		return 1;
	if (parse_args(ps, argc, argv)) {
		usage(stderr);
		return 2;
	}
	if (place(ps))
		return 2;
	total = (__u64)ps->packets * ps->nr_dests;
	ps->ack_bits = calloc(total / 8 + 1, 1);
	ps->rx = calloc(ps->nr_hosts, sizeof(*ps->rx));
	ps->delays = calloc(MAX_DELAYS, sizeof(*ps->delays));
	ps->rx_waits = calloc(MAX_DELAYS, sizeof(*ps->rx_waits));
	if (!ps->ack_bits || !ps->rx || !ps->delays || !ps->rx_waits ||
	    reps_alloc(ps)) {
		fprintf(stderr, "permsend: out of memory\n");
		return 1;
	}
	if (ps->common.out_path) {
		out = fopen(ps->common.out_path, "w");
		if (!out) {
			fprintf(stderr, "permsend: cannot write %s: %s\n",
				ps->common.out_path, strerror(errno));
			return 1;
		}
	}
	if (open_sockets(ps))
		return 1;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	prctl(PR_SET_TIMERSLACK, 1000UL);
	ps->mono_minus_real_ns = (__s64)(mono_ns() - real_ns());

	/* paced at load% of the rate, on the frame's bytes */
	gap_ns = (__u64)(FRAME_OVERHEAD + ps->mtu) * 8 * 1000000000ULL * 100 /
		 ((__u64)ps->rate_bps * ps->load_pct);
	ps->start_ns = ps->common.start_at_mono_ns;
	pacer_init(&ps->pacer, ps->start_ns, gap_ns, ps->max_catchup);
	err = pthread_create(&rx_thread, NULL, rx_main, ps);
	if (err) {
		fprintf(stderr, "permsend: cannot start the receiver: %s\n",
			strerror(err));
		return 1;
	}
	if (!send_all(ps, total))
		ret = wait_done(ps, total);
	__atomic_store_n(&ps->rx_stop, 1, __ATOMIC_RELEASE);
	pthread_join(rx_thread, NULL);
	if (ps->rx_error)
		ret = 1;
	if (stop)
		fprintf(stderr, "permsend: interrupted\n");
	if (print_report(ps, out))
		ret = 1;
	if (out != stdout)
		fclose(out);
	return ret;
}
