// SPDX-License-Identifier: GPL-2.0
/*
 * test_ofan_prog.c - fixture tests of the Ofan tc-BPF program through
 * BPF_PROG_TEST_RUN: each fixture is an input packet, the mode, and the
 * expected verdict, counter, uplink, pointer state and output header.
 * The expected uplinks are worked out by hand from eq. (18) with the
 * base permutation P = {2, 0, 3, 1} (w = 4, b = 2) that the test installs.
 * Prints TAP; exit 0 when every fixture passes.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "ofan.skel.h"
#include "tap.h"
#include "tool_util.h"

const char *tool_name = "test_ofan_prog";
#include "ofan/ofan_maps.h"
#include "workload/roce_frame.h"

#define W		4
#define NR_KEYS		8
#define ACK_MAX		100	/* frames up to 100 bytes are ACKs */

static const __u8 perm[W] = { 2, 0, 3, 1 };
static struct ofan_bpf *skel;

#define FRAME_MAX	2048
#define UPLINK_MTU	1500	/* of the veth interfaces of the uplinks */

/*
 * An Ethernet frame of @frame_len bytes carrying UDP to @dst.  Its
 * destination MAC is the loopback device's, all zeros: BPF_PROG_TEST_RUN
 * classifies the frame against it (eth_type_trans()), so it is PACKET_HOST.
 */
static size_t build_packet(__u8 *buf, const char *dst, int ttl,
			   size_t frame_len)
{
	struct ethhdr *eth = (struct ethhdr *)buf;
	struct udphdr *udp;

	memset(buf, 0, frame_len);
	memset(eth->h_source, 0x04, ETH_ALEN);
	if (strchr(dst, ':')) {
		struct ipv6hdr *ip6 = (struct ipv6hdr *)(eth + 1);

		eth->h_proto = htons(ETH_P_IPV6);
		ip6->version = 6;
		ip6->payload_len = htons(frame_len - sizeof(*eth) - sizeof(*ip6));
		ip6->nexthdr = IPPROTO_UDP;
		ip6->hop_limit = ttl;
		inet_pton(AF_INET6, "fd00:ff::1", &ip6->saddr);
		inet_pton(AF_INET6, dst, &ip6->daddr);
		udp = (struct udphdr *)(ip6 + 1);
	} else {
		struct iphdr *ip4 = (struct iphdr *)(eth + 1);

		eth->h_proto = htons(ETH_P_IP);
		ip4->version = 4;
		ip4->ihl = 5;
		ip4->tot_len = htons(frame_len - sizeof(*eth));
		ip4->ttl = ttl;
		ip4->protocol = IPPROTO_UDP;
		inet_pton(AF_INET, "10.255.0.1", &ip4->saddr);
		inet_pton(AF_INET, dst, &ip4->daddr);
		ip4->check = htons(roce_inet_csum(ip4, sizeof(*ip4)));
		udp = (struct udphdr *)(ip4 + 1);
	}
	udp->source = htons(4791);
	udp->dest = htons(4791);
	return frame_len;
}

static int map_fd(struct bpf_map *map)
{
	return bpf_map__fd(map);
}

/* ar's port buffer here: its 5, 10 and 20% (4750, 9500 and 19000 bytes)
 * fall between multiples of the AR_FRAME-byte frames the ar tests send
 */
#define AR_BUFFER	95000
#define AR_FRAME	1000

static void set_config(int mode, int fast)
{
	struct ofan_config cfg = {
		.layout_version = OFAN_LAYOUT_VERSION,
		.ar_buffer_bytes = AR_BUFFER,
		.mode = mode,
		.w = W,
		.nr_keys = NR_KEYS,
		.ack_max_bytes = ACK_MAX,
		.nr_pipes = 2,
		.up_ports = (1ULL << W) - 1,
		.nh4_ports = (1ULL << W) - 1,
		.nh6_ports = (1ULL << W) - 1,
	};
	__u32 zero = 0;

	memcpy(cfg.perm, perm, W);
	if (fast)
		ofan_config_set_fast(&cfg, inet_addr("10.0.0.0"), 16, 8, 0xff);
	bpf_map_update_elem(map_fd(skel->maps.ofan_config), &zero, &cfg, 0);
}

static void set_dest(__u32 key, __u64 valid, __u32 flags)
{
	struct ofan_dest d = { .valid_ports = valid, .flags = flags };

	ofan_dest_fill_orders(&d, perm, W, key, NR_KEYS);

	bpf_map_update_elem(map_fd(skel->maps.ofan_dests), &key, &d, 0);
}

static void add_prefix(const char *cidr, __u32 set0_key)
{
	/* set 0 in use: set 1 has none */
	struct ofan_dst_keys key = { .key = { set0_key, OFAN_SET_NONE } };
	char addr[64];
	int len;

	sscanf(cidr, "%63[^/]/%d", addr, &len);
	if (strchr(addr, ':')) {
		struct ofan_lpm6_key k = { .prefix_len = len };

		inet_pton(AF_INET6, addr, k.addr);
		bpf_map_update_elem(map_fd(skel->maps.ofan_dst6), &k, &key, 0);
	} else {
		struct ofan_lpm4_key k = { .prefix_len = len };

		inet_pton(AF_INET, addr, &k.addr);
		bpf_map_update_elem(map_fd(skel->maps.ofan_dst4), &k, &key, 0);
	}
}

static __u32 pointer_slot(__u32 pipe, __u32 key, __u32 cls)
{
	return (pipe * OFAN_MAX_KEYS + key) * OFAN_NR_CLASSES + cls;
}

static void set_pointer(__u32 slot, __u64 counter)
{
	struct ofan_pointer p = { .counter = counter };

	bpf_map_update_elem(map_fd(skel->maps.ofan_pointers), &slot, &p, 0);
}

static __u64 get_pointer(__u32 slot)
{
	struct ofan_pointer p = {};

	bpf_map_lookup_elem(map_fd(skel->maps.ofan_pointers), &slot, &p);
	return p.counter;
}

/* Sum of a per-CPU u64 field over all CPUs. */
static __u64 percpu_sum(struct bpf_map *map, __u32 key, size_t value_size,
			size_t offset)
{
	int ncpus = libbpf_num_possible_cpus();
	size_t stride = (value_size + 7) & ~7UL;
	__u8 *values = calloc(ncpus, stride);
	__u64 sum = 0, v;
	int cpu;

	if (!values)
		return 0;
	if (!bpf_map_lookup_elem(bpf_map__fd(map), &key, values)) {
		for (cpu = 0; cpu < ncpus; cpu++) {
			memcpy(&v, values + cpu * stride + offset, sizeof(v));
			sum += v;
		}
	}
	free(values);
	return sum;
}

static __u64 stat(size_t offset)
{
	return percpu_sum(skel->maps.ofan_stats, 0, sizeof(struct ofan_stats),
			  offset);
}

static __u64 port_packets(__u32 port)
{
	return percpu_sum(skel->maps.ofan_port_stats, port,
			  sizeof(struct ofan_port_stats),
			  offsetof(struct ofan_port_stats, packets));
}

struct run {
	int retval;
	__u8 out[FRAME_MAX];
	__u32 out_len;
};

static int run_packet(const __u8 *pkt, size_t len, __u32 ingress_ifindex,
		      struct run *r)
{
	struct __sk_buff ctx = { .ingress_ifindex = ingress_ifindex };
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		    .data_in = pkt,
		    .data_size_in = len,
		    .data_out = r->out,
		    .data_size_out = sizeof(r->out),
		    .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx),
		    .repeat = 1);
	int err;

	err = bpf_prog_test_run_opts(bpf_program__fd(skel->progs.ofan_ingress),
				     &opts);
	r->retval = opts.retval;
	r->out_len = opts.data_size_out;
	return err;
}

/* Which uplink took the packet: the port whose counter moved. */
static int moved_port(const __u64 *before)
{
	int p, moved = -1;

	for (p = 0; p < W; p++) {
		if (port_packets(p) != before[p]) {
			if (moved >= 0)
				return -2;
			moved = p;
		}
	}
	return moved;
}

/* Ways to damage an IP header (BPF_PROG_TEST_RUN refuses packets too
 * short for their L3 header, so damage is done inside the header).
 */
enum corruption {
	INTACT,
	BAD_IHL,		/* IPv4 header length 12 bytes */
	BAD_TOT_LEN,		/* IPv4 total length below the header */
	BAD_VERSION,		/* IP version 5 */
	OTHER_HOST,		/* destination MAC of another host */
	MULTICAST,		/* multicast destination MAC */
	BROADCAST,		/* broadcast destination MAC */
};

struct fixture {
	const char	*name;
	int		mode;
	const char	*dst;
	int		ttl;
	size_t		frame_len;	/* 0: a 200-byte data frame */
	int		corrupt;	/* enum corruption */
	__u16		ethertype;	/* 0: IP */
	__u32		ingress_ifindex;
	int		fast;
	int		retval;
	size_t		stat;		/* struct ofan_stats field counting it, or NO_STAT */
	int		port;		/* expected uplink, -1 none */
	int		ttl_out;	/* expected TTL/hop limit out, -1 any */
	int		slot;		/* pointer slot to check, -1 none */
	__u64		counter;	/* its expected value afterwards */
};

#define ST(f) offsetof(struct ofan_stats, f)
#define NO_STAT ((size_t)-1)	/* forwarded: counted per port only */

static const struct fixture fixtures[] = {
	/* key 1, data pointer from 0, id 1: xor_w(P[i], 1) = 3, 1, 2, 0 */
	{ "ofan ipv4 data 1/4 -> port 3", OFAN_MODE_OFAN, "10.0.1.7", 64, 0, 0, 0, 0, 0,
	  TC_ACT_REDIRECT, NO_STAT, 3, 63, 2, 1 },
	{ "ofan ipv4 data 2/4 -> port 1", OFAN_MODE_OFAN, "10.0.1.8", 64, 0, 0, 0, 0, 0,
	  TC_ACT_REDIRECT, NO_STAT, 1, 63, 2, 2 },
	{ "ofan ipv6 data 3/4 -> port 2 (same key)", OFAN_MODE_OFAN, "fd00:1::9", 64, 0, 0, 0, 0, 0,
	  TC_ACT_REDIRECT, NO_STAT, 2, 63, 2, 3 },
	{ "ofan ipv4 data 4/4 -> port 0", OFAN_MODE_OFAN, "10.0.1.7", 2, 0, 0, 0, 0, 0,
	  TC_ACT_REDIRECT, NO_STAT, 0, 1, 2, 4 },
	/* ACK class: id 1 + 8 = 9, id1 1, id2 2; pointer starts at 2:
	 * (xor_w(3, 1) + 2) % 4 = 0, then (xor_w(1, 1) + 2) % 4 = 2
	 */
	{ "ofan ack class 1/2 -> port 0", OFAN_MODE_OFAN, "10.0.1.7", 64, 64, 0, 0, 0, 0,
	  TC_ACT_REDIRECT, NO_STAT, 0, 63, 3, 3 },
	{ "ofan ack class 2/2 -> port 2", OFAN_MODE_OFAN, "fd00:1::9", 64, 90, 0, 0, 0, 0,
	  TC_ACT_REDIRECT, NO_STAT, 2, 63, 3, 4 },
	/* key 2, only port 2 valid, id 2: xor_w(P[i], 2) = 0, 2, 1, 3 */
	{ "one valid port: skips port 0, takes 2", OFAN_MODE_OFAN, "10.0.2.1", 64, 0, 0, 0, 0, 0,
	  TC_ACT_REDIRECT, NO_STAT, 2, 63, 4, 2 },
	{ "one valid port: skips 1, 3, 0, takes 2", OFAN_MODE_OFAN, "10.0.2.1", 64, 0, 0, 0, 0, 0,
	  TC_ACT_REDIRECT, NO_STAT, 2, 63, 4, 6 },
	{ "zero valid ports: kernel path, pointer untouched", OFAN_MODE_OFAN, "10.0.3.1", 64, 0, 0, 0, 0, 0,
	  TC_ACT_OK, ST(no_valid_port), -1, 64, 6, 0 },
	{ "zero valid ports in rr: kernel path", OFAN_MODE_RR, "10.0.3.1", 64, 0, 0, 0, 0, 0,
	  TC_ACT_OK, ST(no_valid_port), -1, 64, -1, 0 },
	/* key 1 is valid: only the MAC keeps these from being forwarded */
	{ "frame for another host's MAC: kernel path", OFAN_MODE_OFAN, "10.0.1.7", 64, 0, OTHER_HOST, 0, 0, 0,
	  TC_ACT_OK, ST(not_host), -1, 64, 2, 4 },
	{ "multicast MAC: kernel path", OFAN_MODE_OFAN, "10.0.1.7", 64, 0, MULTICAST, 0, 0, 0,
	  TC_ACT_OK, ST(not_host), -1, 64, 2, 4 },
	{ "broadcast MAC: kernel path", OFAN_MODE_OFAN, "fd00:1::9", 64, 0, BROADCAST, 0, 0, 0,
	  TC_ACT_OK, ST(not_host), -1, 64, 2, 4 },
	/* the uplinks' MTU is 1500: the pointer moves, the kernel path
	 * (ICMP frag-needed or packet-too-big) takes the packet
	 */
	{ "ipv4 packet of the uplink's MTU -> port 3", OFAN_MODE_OFAN, "10.0.1.7", 64, 14 + UPLINK_MTU, 0, 0, 0, 0,
	  TC_ACT_REDIRECT, NO_STAT, 3, 63, 2, 5 },
	{ "ipv4 packet one byte above the MTU: kernel path", OFAN_MODE_OFAN, "10.0.1.7", 64, 15 + UPLINK_MTU, 0, 0, 0, 0,
	  TC_ACT_OK, ST(too_big), -1, 64, 2, 6 },
	{ "ipv6 packet one byte above the MTU: kernel path", OFAN_MODE_OFAN, "fd00:1::9", 64, 15 + UPLINK_MTU, 0, 0, 0, 0,
	  TC_ACT_OK, ST(too_big), -1, 64, 2, 7 },
	{ "ipv6 packet of the MTU -> port 0", OFAN_MODE_OFAN, "fd00:1::9", 64, 14 + UPLINK_MTU, 0, 0, 0, 0,
	  TC_ACT_REDIRECT, NO_STAT, 0, 63, 2, 8 },
	{ "local destination: kernel path", OFAN_MODE_OFAN, "10.0.0.5", 64, 0, 0, 0, 0, 0,
	  TC_ACT_OK, ST(local), -1, 64, -1, 0 },
	{ "local ipv6 destination: kernel path", OFAN_MODE_OFAN, "fd00:0::5", 64, 0, 0, 0, 0, 0,
	  TC_ACT_OK, ST(local), -1, 64, -1, 0 },
	{ "unknown destination: kernel path", OFAN_MODE_OFAN, "10.9.9.9", 64, 0, 0, 0, 0, 0,
	  TC_ACT_OK, ST(unknown_dst), -1, 64, -1, 0 },
	{ "key without configuration: unknown", OFAN_MODE_OFAN, "10.0.5.1", 64, 0, 0, 0, 0, 0,
	  TC_ACT_OK, ST(unknown_dst), -1, 64, -1, 0 },
	{ "ttl 1: kernel path (ICMP time exceeded)", OFAN_MODE_OFAN, "10.0.1.7", 1, 0, 0, 0, 0, 0,
	  TC_ACT_OK, ST(ttl_expired), -1, 1, 2, 8 },
	{ "hop limit 1: kernel path", OFAN_MODE_OFAN, "fd00:1::9", 1, 0, 0, 0, 0, 0,
	  TC_ACT_OK, ST(ttl_expired), -1, 1, 2, 8 },
	{ "ipv4 header length 12: malformed", OFAN_MODE_OFAN, "10.0.1.7", 64, 0, BAD_IHL, 0, 0, 0,
	  TC_ACT_OK, ST(malformed), -1, -1, 2, 8 },
	{ "ipv4 total length below header: malformed", OFAN_MODE_OFAN, "10.0.1.7", 64, 0, BAD_TOT_LEN, 0, 0, 0,
	  TC_ACT_OK, ST(malformed), -1, -1, 2, 8 },
	{ "ipv4 version 5: malformed", OFAN_MODE_OFAN, "10.0.1.7", 64, 0, BAD_VERSION, 0, 0, 0,
	  TC_ACT_OK, ST(malformed), -1, -1, 2, 8 },
	{ "ipv6 version 5: malformed", OFAN_MODE_OFAN, "fd00:1::9", 64, 0, BAD_VERSION, 0, 0, 0,
	  TC_ACT_OK, ST(malformed), -1, -1, 2, 8 },
	{ "arp: not ip", OFAN_MODE_OFAN, "10.0.1.7", 64, 0, 0, ETH_P_ARP, 0, 0,
	  TC_ACT_OK, ST(not_ip), -1, -1, 2, 8 },
	/* fast path: key 6 has no prefix, only (dst >> 8) & 0xff finds it;
	 * id 6: id1 2, id2 1: (xor_w(P[0], 2) + 1) % 4 = 1
	 */
	{ "fast path key from address bits", OFAN_MODE_OFAN, "10.0.6.1", 64, 0, 0, 0, 0, 1,
	  TC_ACT_REDIRECT, NO_STAT, 1, 63, 12, 1 },
	{ "without the fast path the same address is unknown", OFAN_MODE_OFAN, "10.0.6.1", 64, 0, 0, 0, 0, 0,
	  TC_ACT_OK, ST(unknown_dst), -1, 64, 12, 1 },
	/* pofan: ingress ifindex 7 is pipe 1, its own pointer from 0 */
	{ "pofan pipe 1 pointer -> port 3", OFAN_MODE_POFAN, "10.0.1.7", 64, 0, 0, 0, 7, 0,
	  TC_ACT_REDIRECT, NO_STAT, 3, 63, (int)(OFAN_MAX_KEYS * 2 + 2), 1 },
	{ "pofan pipe 0 pointer continues at 8 -> port 3", OFAN_MODE_POFAN, "10.0.1.7", 64, 0, 0, 0, 9, 0,
	  TC_ACT_REDIRECT, NO_STAT, 3, 63, 2, 9 },
	/* rr: one pointer, id 0: P[i] = 2, 0, 3, 1 */
	{ "rr 1 -> port 2", OFAN_MODE_RR, "10.0.1.7", 64, 0, 0, 0, 0, 0,
	  TC_ACT_REDIRECT, NO_STAT, 2, 63, -1, 0 },
	{ "rr 2 (other key) -> port 0", OFAN_MODE_RR, "fd00:1::9", 64, 0, 0, 0, 0, 0,
	  TC_ACT_REDIRECT, NO_STAT, 0, 63, -1, 0 },
	{ "rr skips invalid ports of key 2 -> port 2", OFAN_MODE_RR, "10.0.2.1", 64, 0, 0, 0, 0, 0,
	  TC_ACT_REDIRECT, NO_STAT, 2, 63, -1, 0 },
	{ "rps with one valid port -> port 2", OFAN_MODE_RPS, "10.0.2.1", 64, 0, 0, 0, 0, 0,
	  TC_ACT_REDIRECT, NO_STAT, 2, 63, -1, 0 },
	{ "rps with zero valid ports: kernel path", OFAN_MODE_RPS, "10.0.3.1", 64, 0, 0, 0, 0, 0,
	  TC_ACT_OK, ST(no_valid_port), -1, 64, -1, 0 },
	{ "ecmp when the route is not via an uplink: kernel path", OFAN_MODE_ECMP, "10.0.1.7", 64, 0, 0, 0, 0, 0,
	  TC_ACT_OK, ST(fib_miss), -1, 64, -1, 0 },
};

static int output_ttl(const struct run *r)
{
	const struct ethhdr *eth = (const void *)r->out;

	if (r->out_len < sizeof(*eth) + 40)
		return -1;
	if (eth->h_proto == htons(ETH_P_IPV6))
		return ((const struct ipv6hdr *)(eth + 1))->hop_limit;
	return ((const struct iphdr *)(eth + 1))->ttl;
}

static int output_checksum_ok(const struct run *r)
{
	const struct ethhdr *eth = (const void *)r->out;

	if (eth->h_proto != htons(ETH_P_IP))
		return 1;
	return roce_inet_csum(eth + 1, sizeof(struct iphdr)) == 0;
}

static void corrupt(__u8 *pkt, enum corruption how)
{
	struct iphdr *ip4 = (struct iphdr *)(pkt + sizeof(struct ethhdr));

	switch (how) {
	case BAD_IHL:
		ip4->ihl = 3;
		break;
	case BAD_TOT_LEN:
		ip4->tot_len = htons(12);
		break;
	case BAD_VERSION:
		/* the version nibble leads both IPv4 and IPv6 headers */
		pkt[sizeof(struct ethhdr)] = (5 << 4) | (pkt[sizeof(struct ethhdr)] & 0xf);
		break;
	case OTHER_HOST:
		memset(pkt, 0x02, ETH_ALEN);
		break;
	case MULTICAST:
		memcpy(pkt, "\x01\x00\x5e\x00\x00\x01", ETH_ALEN);
		break;
	case BROADCAST:
		memset(pkt, 0xff, ETH_ALEN);
		break;
	default:
		break;
	}
}

static void run_fixture(const struct fixture *f)
{
	__u64 before[W], stat_before;
	static struct run r;
	__u8 pkt[FRAME_MAX];
	size_t len;
	int p, ok;

	memset(&r, 0, sizeof(r));
	set_config(f->mode, f->fast);
	len = build_packet(pkt, f->dst, f->ttl, f->frame_len ? f->frame_len : 200);
	if (f->ethertype)
		((struct ethhdr *)pkt)->h_proto = htons(f->ethertype);
	corrupt(pkt, f->corrupt);
	for (p = 0; p < W; p++)
		before[p] = port_packets(p);
	stat_before = f->stat == NO_STAT ? 0 : stat(f->stat);

	if (run_packet(pkt, len, f->ingress_ifindex, &r)) {
		tap_check(false, "%s (test run failed: %s)", f->name,
			  strerror(errno));
		return;
	}
	ok = r.retval == f->retval &&
	     (f->stat == NO_STAT || stat(f->stat) == stat_before + 1) &&
	     moved_port(before) == f->port &&
	     (f->ttl_out < 0 || output_ttl(&r) == f->ttl_out) &&
	     (f->retval != TC_ACT_REDIRECT || output_checksum_ok(&r)) &&
	     (f->slot < 0 || get_pointer(f->slot) == f->counter);
	tap_point_start();
	if (!ok) {
		tap_fail("# %s: verdict %d (want %d), counter +%llu (want +1), "
		       "port %d (want %d), ttl %d (want %d), checksum %s",
		       f->name, r.retval, f->retval,
		       (unsigned long long)(f->stat == NO_STAT ? 1 :
					    stat(f->stat) - stat_before),
		       moved_port(before), f->port, output_ttl(&r), f->ttl_out,
		       output_checksum_ok(&r) ? "ok" : "bad");
		if (f->slot >= 0)
			tap_fail(", pointer %llu (want %llu)",
				 (unsigned long long)get_pointer(f->slot),
				 (unsigned long long)f->counter);
		tap_fail("\n");
	}
	tap_point_end("%s", f->name);
}

/* rps spreads packets uniformly over the valid ports. */
static void test_rps_spread(void)
{
	__u64 before[W], n[W];
	static struct run r;
	__u8 pkt[FRAME_MAX];
	int i, p, ok = 1;

	set_config(OFAN_MODE_RPS, 0);
	build_packet(pkt, "10.0.1.7", 64, 200);
	for (p = 0; p < W; p++)
		before[p] = port_packets(p);
	for (i = 0; i < 400; i++)
		run_packet(pkt, 200, 0, &r);
	for (p = 0; p < W; p++) {
		n[p] = port_packets(p) - before[p];
		ok &= n[p] >= 50 && n[p] <= 150;
	}
	tap_note("rps over 400 packets: %llu %llu %llu %llu",
	       (unsigned long long)n[0], (unsigned long long)n[1],
	       (unsigned long long)n[2], (unsigned long long)n[3]);
	tap_check(ok, "rps: 400 packets spread over 4 ports, 50..150 each");
}

/* A down uplink is skipped by every mode's pointer. */
static void test_port_down(void)
{
	struct ofan_config cfg;
	__u64 before[W];
	static struct run r;
	__u8 pkt[FRAME_MAX];
	__u32 zero = 0;
	int i, p, ok;

	set_config(OFAN_MODE_OFAN, 0);
	bpf_map_lookup_elem(map_fd(skel->maps.ofan_config), &zero, &cfg);
	cfg.up_ports &= ~(1ULL << 1);
	bpf_map_update_elem(map_fd(skel->maps.ofan_config), &zero, &cfg, 0);
	build_packet(pkt, "10.0.1.7", 64, 200);
	for (p = 0; p < W; p++)
		before[p] = port_packets(p);
	for (i = 0; i < 30; i++)
		run_packet(pkt, 200, 0, &r);
	ok = port_packets(1) == before[1];
	for (p = 0; p < W; p++)
		if (p != 1)
			ok &= port_packets(p) - before[p] == 10;
	tap_check(ok, "a down uplink is skipped; the others get 10 of 30 each");
}

/* Uplink @idx is interface @ifname, next hops @nh4 and @nh6 (or NULL). */
static void set_uplink(__u32 idx, const char *ifname, const char *nh4,
		       const char *nh6)
{
	struct ofan_port port = {};

	port.ifindex = if_nametoindex(ifname);
	if (nh4 && inet_pton(AF_INET, nh4, port.nh4) == 1)
		port.flags |= OFAN_PORT_F_NH4;
	if (nh6 && inet_pton(AF_INET6, nh6, port.nh6) == 1)
		port.flags |= OFAN_PORT_F_NH6;
	bpf_map_update_elem(map_fd(skel->maps.ofan_ports), &idx, &port, 0);
}

/* The uplinks that @n frames from @pkt took, @vary changing the 16-bit
 * word at @offset in each: a bit per uplink.
 */
static __u64 uplinks_taken(__u8 *pkt, size_t len, __u32 ingress, int n,
			   size_t offset)
{
	static struct run r;
	__u64 before[W], taken = 0;
	int i, p;

	for (i = 0; i < n; i++) {
		pkt[offset] = i >> 8;
		pkt[offset + 1] = i;
		for (p = 0; p < W; p++)
			before[p] = port_packets(p);
		if (run_packet(pkt, len, ingress, &r) ||
		    r.retval != TC_ACT_REDIRECT)
			return 0;
		p = moved_port(before);
		if (p >= 0)
			taken |= 1ULL << p;
	}
	return taken;
}

/*
 * An uplink with an IPv4 next hop only never takes an IPv6 packet (the
 * redirect would drop it): the others share them; a key whose uplinks
 * have none takes the kernel path, counted as no_valid_port.
 */
static void test_family_nexthops(void)
{
	static struct run r;
	__u64 before[W], nh6_ports = (1ULL << W) - 1 - (1ULL << 3);
	__u8 pkt[FRAME_MAX];
	struct ofan_config cfg;
	__u32 zero = 0;
	size_t len;
	int i, p, ok;

	set_config(OFAN_MODE_OFAN, 0);
	set_uplink(3, "ofanup3", "192.0.0.4", NULL);
	bpf_map_lookup_elem(map_fd(skel->maps.ofan_config), &zero, &cfg);
	cfg.nh6_ports = nh6_ports;
	bpf_map_update_elem(map_fd(skel->maps.ofan_config), &zero, &cfg, 0);

	len = build_packet(pkt, "fd00:1::9", 64, 200);
	for (p = 0; p < W; p++)
		before[p] = port_packets(p);
	for (i = 0; i < 30; i++)
		run_packet(pkt, len, 0, &r);
	ok = port_packets(3) == before[3];
	for (p = 0; p < 3; p++)
		ok &= port_packets(p) - before[p] == 10;
	tap_check(ok, "ipv6: an uplink with an IPv4 next hop only is skipped; "
		  "the others get 10 of 30 each");

	len = build_packet(pkt, "10.0.1.7", 64, 200);
	for (p = 0; p < W; p++)
		before[p] = port_packets(p);
	for (i = 0; i < 40; i++)
		run_packet(pkt, len, 0, &r);
	ok = 1;
	for (p = 0; p < W; p++)
		ok &= port_packets(p) - before[p] == 10;
	tap_check(ok, "ipv4 still takes all four uplinks, 10 of 40 each");

	/* key 2's one valid uplink is port 2: without its IPv6 next hop */
	cfg.nh6_ports = nh6_ports & ~(1ULL << 2);
	bpf_map_update_elem(map_fd(skel->maps.ofan_config), &zero, &cfg, 0);
	len = build_packet(pkt, "fd00:2::1", 64, 200);
	run_packet(pkt, len, 0, &r);
	tap_check(r.retval == TC_ACT_OK,
		  "ipv6 to a key whose uplinks have no IPv6 next hop: kernel "
		  "path (verdict %d)", r.retval);
	set_uplink(3, "ofanup3", "192.0.0.4", "fe80::4");
}

/*
 * ecmp follows the kernel's route: a multipath route over two veth
 * uplinks (3 and 2) with the L4 multipath hash.  The FIB lookup checks
 * the IP length against the route's MTU, and fragments hash without
 * ports, as the kernel hashes them.
 */
static void test_ecmp_route(void)
{
	static struct run r;
	__u8 pkt[FRAME_MAX];
	__u32 ingress;
	__u64 taken;
	size_t len;

	if (system("ip link add ofant0 type veth peer name ofant1 && "
		   "ip link add ofant2 type veth peer name ofant3 && "
		   "for d in ofant0 ofant1 ofant2 ofant3; do ip link set $d up; done && "
		   "ip addr add 192.0.2.1/24 dev ofant0 && "
		   "ip addr add 198.51.100.1/24 dev ofant2 && "
		   "ip route add 10.0.0.0/16 nexthop via 192.0.2.2 dev ofant0 "
		   "nexthop via 198.51.100.2 dev ofant2 && "
		   "sysctl -qw net.ipv4.conf.all.forwarding=1 && "
		   "sysctl -qw net.ipv4.fib_multipath_hash_policy=1")) {
		tap_skip("ecmp follows the kernel route: cannot build the routes");
		return;
	}
	set_uplink(3, "ofant0", "192.0.2.2", NULL);
	set_uplink(2, "ofant2", "198.51.100.2", NULL);
	ingress = if_nametoindex("ofant1");
	set_config(OFAN_MODE_ECMP, 0);

	len = build_packet(pkt, "10.0.1.7", 64, 200);
	taken = uplinks_taken(pkt, len, ingress, 32,
			      sizeof(struct ethhdr) + sizeof(struct iphdr));
	tap_check(taken == ((1ULL << 3) | (1ULL << 2)),
		  "ecmp: 32 UDP source ports take both uplinks of the route "
		  "(taken 0x%llx)", (unsigned long long)taken);

	/* non-first fragments: bytes where ports would be are payload */
	((struct iphdr *)(pkt + sizeof(struct ethhdr)))->frag_off = htons(185);
	taken = uplinks_taken(pkt, len, ingress, 32,
			      sizeof(struct ethhdr) + sizeof(struct iphdr));
	tap_check(taken == (1ULL << 3) || taken == (1ULL << 2),
		  "ecmp: 32 non-first fragments with different payloads take "
		  "one uplink (taken 0x%llx)", (unsigned long long)taken);

	len = build_packet(pkt, "10.0.1.7", 64, 14 + UPLINK_MTU);
	run_packet(pkt, len, ingress, &r);
	tap_check(r.retval == TC_ACT_REDIRECT,
		  "ecmp: a packet of the route's MTU is forwarded (verdict %d)",
		  r.retval);
	len = build_packet(pkt, "10.0.1.7", 64, 15 + UPLINK_MTU);
	run_packet(pkt, len, ingress, &r);
	tap_check(r.retval == TC_ACT_OK,
		  "ecmp: one byte above it takes the kernel path (verdict %d)",
		  r.retval);
}

/* ---- ar and jsq: the phantom backlog --------------------------------- */

#define SLOW	10000ULL	/* bit/s: an AR_FRAME frame drains in 0.8 s */
#define FAST	100000000ULL	/* bit/s: 90,000 bytes drain in 7.2 ms */

/* Uplink @idx of set 0 drains at @rate_bps (ofan_port_set_rate()). */
static void set_rate(__u32 idx, __u64 rate_bps)
{
	struct ofan_port port = {};

	bpf_map_lookup_elem(map_fd(skel->maps.ofan_ports), &idx, &port);
	ofan_port_set_rate(&port, rate_bps, AR_BUFFER);
	bpf_map_update_elem(map_fd(skel->maps.ofan_ports), &idx, &port, 0);
}

static __u64 now_ns(void)
{
	struct timespec ts;

	/* bpf_ktime_get_ns() reads CLOCK_MONOTONIC */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Uplink @idx's phantom backlog: @bytes now, at its rate in ofan_ports. */
static void set_backlog(__u32 idx, __u64 bytes)
{
	struct ofan_ar_queue q = {};
	struct ofan_port port = {};
	__u64 ps;

	bpf_map_lookup_elem(map_fd(skel->maps.ofan_ports), &idx, &port);
	ps = bytes * port.ps_per_byte_q16 >> 16;
	if (bytes)
		q.empty_ns = now_ns() + ps / 1000;
	bpf_map_update_elem(map_fd(skel->maps.ofan_ar_queues), &idx, &q,
			    BPF_F_LOCK);
}

static struct ofan_ar_queue get_queue(__u32 idx)
{
	struct ofan_ar_queue q = {};

	bpf_map_lookup_elem(map_fd(skel->maps.ofan_ar_queues), &idx, &q);
	return q;
}

/* One AR_FRAME-byte frame to @dst: the uplink it took, or -1. */
static int send_one(const char *dst)
{
	static struct run r;
	__u8 pkt[FRAME_MAX];
	__u64 before[W];
	size_t len;
	int p;

	len = build_packet(pkt, dst, 64, AR_FRAME);
	for (p = 0; p < W; p++)
		before[p] = port_packets(p);
	if (run_packet(pkt, len, 0, &r) || r.retval != TC_ACT_REDIRECT)
		return -1;
	return moved_port(before);
}

/*
 * A fixture of one decision: uplink p starts each of @runs runs with
 * backlog[p] bytes at rate[p] (0: SLOW), up_ports @up; a frame to @dst
 * must take each uplink of @want at least once and no other.
 */
struct ar_fixture {
	const char	*name;
	int		mode;
	const char	*dst;
	__u64		backlog[W];
	__u64		up;
	int		runs;
	__u64		want;
};

static const struct ar_fixture ar_fixtures[] = {
	/* classes: [0, 4750) 0, [4750, 9500) 1, [9500, 19000) 2, beyond 3 */
	{ "ar: a backlog above 5% of the buffer loses to one below",
	  OFAN_MODE_AR, "10.0.1.7", { 5000, 4000, 5000, 5000 }, 0xf, 20, 0x2 },
	{ "ar: above 10% loses to below",
	  OFAN_MODE_AR, "10.0.1.7", { 10000, 12000, 9000, 15000 }, 0xf, 20, 0x4 },
	{ "ar: above 20% loses to below",
	  OFAN_MODE_AR, "10.0.1.7", { 20000, 18000, 30000, 25000 }, 0xf, 20, 0x2 },
	{ "ar: one class, ties across all four however their bytes differ",
	  OFAN_MODE_AR, "10.0.1.7", { 4400, 0, 3000, 4700 }, 0xf, 60, 0xf },
	{ "ar: ties in class 2 broken across ports 0 and 2",
	  OFAN_MODE_AR, "10.0.1.7", { 15000, 30000, 10000, 30000 }, 0xf, 40, 0x5 },
	{ "ar: a down uplink is never chosen, even empty",
	  OFAN_MODE_AR, "10.0.1.7", { 9000, 9000, 9000, 0 }, 0x7, 40, 0x7 },
	{ "ar: an uplink the key does not lead over is never chosen",
	  OFAN_MODE_AR, "10.0.2.1", { 0, 0, 30000, 0 }, 0xf, 20, 0x4 },
	{ "ar ipv6: above 5% loses to below",
	  OFAN_MODE_AR, "fd00:1::9", { 5000, 5000, 5000, 0 }, 0xf, 20, 0x8 },
	{ "jsq: the fewest bytes win inside a class",
	  OFAN_MODE_JSQ, "10.0.1.7", { 4400, 0, 3000, 4700 }, 0xf, 20, 0x2 },
	{ "jsq: equal backlogs tie",
	  OFAN_MODE_JSQ, "10.0.1.7", { 0, 5000, 0, 4000 }, 0xf, 40, 0x5 },
	{ "jsq: a down uplink is never chosen, even empty",
	  OFAN_MODE_JSQ, "10.0.1.7", { 0, 100, 200, 300 }, 0xe, 20, 0x2 },
};

static void set_up_ports(__u64 up)
{
	struct ofan_config cfg;
	__u32 zero = 0;

	bpf_map_lookup_elem(map_fd(skel->maps.ofan_config), &zero, &cfg);
	cfg.up_ports = up;
	bpf_map_update_elem(map_fd(skel->maps.ofan_config), &zero, &cfg, 0);
}

static void run_ar_fixture(const struct ar_fixture *f)
{
	__u64 taken = 0;
	int i, p, port, fails = 0;

	set_config(f->mode, 0);
	set_up_ports(f->up);
	for (p = 0; p < W; p++)
		set_rate(p, SLOW);
	for (i = 0; i < f->runs; i++) {
		for (p = 0; p < W; p++)
			set_backlog(p, f->backlog[p]);
		port = send_one(f->dst);
		if (port < 0)
			fails++;
		else
			taken |= 1ULL << port;
	}
	tap_check(!fails && taken == f->want,
		  "%s (uplinks taken 0x%llx, want 0x%llx; %d not forwarded)",
		  f->name, (unsigned long long)taken,
		  (unsigned long long)f->want, fails);
}

/*
 * A burst into empty backlogs spreads by class: a uplink takes frames
 * while it is in the lowest class, so 20 frames of 1,000 bytes leave 5
 * on each of the four (4,000 bytes is class 0, 5,000 class 1), and 20
 * more 5 more each (class 1 ends at 9,500); the phantom holds them.
 */
static void test_ar_burst(int mode)
{
	__u64 before[W], n[W];
	const char *name = mode == OFAN_MODE_AR ? "ar" : "jsq";
	int i, p, ok = 1, ok_half = 1, ok_queue = 1;

	set_config(mode, 0);
	for (p = 0; p < W; p++) {
		set_rate(p, SLOW);
		set_backlog(p, 0);
		before[p] = port_packets(p);
	}
	for (i = 0; i < 40; i++) {
		send_one("10.0.1.7");
		if (i != 19)
			continue;
		for (p = 0; p < W; p++)
			ok_half &= port_packets(p) - before[p] == 5;
	}
	for (p = 0; p < W; p++) {
		struct ofan_ar_queue q = get_queue(p);
		/* 10 frames at 0.8 s each, less the little drained since */
		__u64 end = q.empty_ns > now_ns() ? q.empty_ns - now_ns() : 0;

		n[p] = port_packets(p) - before[p];
		ok &= n[p] == 10;
		ok_queue &= end > 7900000000ULL && end <= 8000000000ULL;
	}
	tap_note("%s burst of 40: %llu %llu %llu %llu", name,
		 (unsigned long long)n[0], (unsigned long long)n[1],
		 (unsigned long long)n[2], (unsigned long long)n[3]);
	tap_check(ok_half && ok, "%s: a burst of 40 into empty backlogs: 5 on "
		  "each uplink after 20, 10 after 40", name);
	tap_check(ok_queue, "%s: each phantom backlog holds its 10 frames "
		  "(8 s at 10 kbit/s)", name);
}

/*
 * The phantom drains at the uplink's rate: 90,000 bytes (class 3 for
 * 5.7 ms) at 100 Mbit/s lose to 4,000 (class 0) at 10 kbit/s at once,
 * and are gone 10 ms later, when that uplink is in class 0 again and
 * ties.
 */
static void test_ar_drain(void)
{
	__u64 before = 0, after = 0;
	int i, p, port;

	set_config(OFAN_MODE_AR, 0);
	set_rate(0, FAST);
	for (p = 1; p < W; p++)
		set_rate(p, SLOW);
	for (i = 0; i < 40; i++) {
		set_backlog(0, 90000);
		for (p = 1; p < W; p++)
			set_backlog(p, 4000);
		port = send_one("10.0.1.7");
		before |= port >= 0 ? 1ULL << port : 0;
	}
	for (i = 0; i < 40; i++) {
		set_backlog(0, 90000);
		for (p = 1; p < W; p++)
			set_backlog(p, 4000);
		usleep(10000);
		port = send_one("10.0.1.7");
		after |= port >= 0 ? 1ULL << port : 0;
	}
	tap_check(before == 0xe, "ar: 90,000 bytes at 100 Mbit/s lose to "
		  "4,000 at 10 kbit/s (taken 0x%llx)",
		  (unsigned long long)before);
	tap_check(after == 0xf, "ar: 10 ms later they have drained: class 0, "
		  "a tie with the others (taken 0x%llx)",
		  (unsigned long long)after);
	set_rate(0, SLOW);
}

/* A frame that would pass the port buffer is sent but not queued. */
static void test_ar_overlimit(void)
{
	struct ofan_ar_queue q0, q1;
	int port;

	set_config(OFAN_MODE_AR, 0);
	set_rate(2, SLOW);
	set_backlog(2, AR_BUFFER - AR_FRAME / 2);
	q0 = get_queue(2);
	port = send_one("10.0.2.1");	/* key 2: uplink 2 only */
	q1 = get_queue(2);
	tap_check(port == 2 && q1.overlimits == q0.overlimits + 1 &&
		  q1.empty_ns == q0.empty_ns,
		  "ar: a frame beyond the buffer is sent, counted as overlimit, "
		  "not queued (port %d, overlimits +%llu)", port,
		  (unsigned long long)(q1.overlimits - q0.overlimits));
	set_backlog(2, AR_FRAME);
	q0 = get_queue(2);
	port = send_one("10.0.2.1");
	q1 = get_queue(2);
	tap_check(port == 2 && q1.overlimits == q0.overlimits &&
		  q1.empty_ns == q0.empty_ns + AR_FRAME * 800000ULL,
		  "ar: below it the frame's 0.8 s join the backlog (+%lld ns)",
		  (long long)(q1.empty_ns - q0.empty_ns));
}

/* Uplinks 0..W-1: veth interfaces of MTU UPLINK_MTU in this netns. */
static int make_uplinks(void)
{
	char cmd[200], name[IF_NAMESIZE], nh4[16], nh6[16];
	__u32 p;

	for (p = 0; p < W; p++) {
		snprintf(name, sizeof(name), "ofanup%u", p);
		snprintf(cmd, sizeof(cmd),
			 "ip link add %s mtu %d type veth peer name %sp && "
			 "ip link set %s up", name, UPLINK_MTU, name, name);
		if (system(cmd))
			return -1;
		snprintf(nh4, sizeof(nh4), "192.0.0.%u", p + 1);
		snprintf(nh6, sizeof(nh6), "fe80::%u", p + 1);
		set_uplink(p, name, nh4, nh6);
	}
	return 0;
}

int main(void)
{
	struct ofan_pipe_sets pipes1 = { .pipe = { 1, OFAN_SET_NONE } };
	__u32 ifindex7 = 7;
	size_t i;

	libbpf_set_print(libbpf_quiet);
	skel = ofan_bpf__open_and_load();
	if (!skel) {
		printf("TAP version 13\n1..0 # SKIP cannot load ofan.bpf.o: %s\n",
		       strerror(errno));
		return errno == EPERM ? 4 : 1;
	}
	if (unshare(CLONE_NEWNET) || system("ip link set lo up") ||
	    make_uplinks()) {
		printf("TAP version 13\n1..0 # SKIP cannot build a netns with "
		       "uplink interfaces\n");
		return 4;
	}
	set_dest(0, 0, OFAN_DEST_F_VALID | OFAN_DEST_F_LOCAL);
	set_dest(1, 0xf, OFAN_DEST_F_VALID);
	set_dest(2, 1 << 2, OFAN_DEST_F_VALID);
	set_dest(3, 0, OFAN_DEST_F_VALID);
	set_dest(6, 0xf, OFAN_DEST_F_VALID);
	add_prefix("10.0.0.0/24", 0);
	add_prefix("fd00:0::/64", 0);
	add_prefix("10.0.1.0/24", 1);
	add_prefix("fd00:1::/64", 1);
	add_prefix("10.0.2.0/24", 2);
	add_prefix("fd00:2::/64", 2);
	add_prefix("10.0.3.0/24", 3);
	add_prefix("10.0.5.0/24", 5);
	set_pointer(pointer_slot(0, 1, OFAN_CLASS_DATA), 0);
	set_pointer(pointer_slot(0, 1, OFAN_CLASS_ACK), W / 2);
	bpf_map_update_elem(map_fd(skel->maps.ofan_pipes), &ifindex7, &pipes1, 0);

	for (i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++)
		run_fixture(&fixtures[i]);
	tap_check(percpu_sum(skel->maps.ofan_key_stats, 3,
			     sizeof(struct ofan_key_stats),
			     offsetof(struct ofan_key_stats, no_valid_port)) == 3,
		  "key 3 counts its 3 packets that had no valid port");
	test_rps_spread();
	test_port_down();
	test_family_nexthops();
	test_ecmp_route();
	for (i = 0; i < sizeof(ar_fixtures) / sizeof(ar_fixtures[0]); i++)
		run_ar_fixture(&ar_fixtures[i]);
	test_ar_burst(OFAN_MODE_AR);
	test_ar_burst(OFAN_MODE_JSQ);
	test_ar_drain();
	test_ar_overlimit();

	ofan_bpf__destroy(skel);
	return tap_finish();
}
