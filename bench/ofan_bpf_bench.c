// SPDX-License-Identifier: GPL-2.0
/*
 * ofan_bpf_bench.c - per-packet cost of the Ofan tc-BPF program in each
 * mode, next to an empty tc program and a minimal hash-ECMP program, all
 * through BPF_PROG_TEST_RUN with a large repeat count on the same 200-byte
 * IPv4 UDP packet, in one run.  Each program runs inside the same harness
 * (bpf/ofan_bench.bpf.c) that restores the TTL and checksum after every
 * repeat, so every repeat takes the forwarding path; each case's verdict
 * is checked.  Runs in a private network namespace whose route sends the
 * destination through uplink 0, so that ecmp mode does a real FIB lookup.
 * ar and jsq run with each uplink at 10 Gbit/s: their phantom backlogs
 * fill and drain as the repeats arrive, and every repeat reads the clock,
 * the four backlogs and takes one uplink's lock.  Writes JSON.
 *
 *	ofan_bpf_bench [--repeat N] [--runs N] [--out FILE]
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf_bench.h"
#include "json_doc.h"
#include "ofan_bench.skel.h"
#include "tool_util.h"

const char *tool_name = "ofan_bpf_bench";
#include "ofan/ofan_maps.h"
#include "workload/roce_frame.h"

#define W		4

static const __u8 perm[W] = { 2, 0, 3, 1 };

/* A case's Ofan mode and path (bpf_bench_case.priv) */
struct ofan_variant {
	int		ofan_mode;	/* -1: a peer program */
	int		fast;
};

static size_t build_packet(__u8 *buf, size_t len)
{
	struct ethhdr *eth = (struct ethhdr *)buf;
	struct iphdr *ip4 = (struct iphdr *)(eth + 1);
	struct udphdr *udp = (struct udphdr *)(ip4 + 1);

	memset(buf, 0, len);
	eth->h_proto = htons(ETH_P_IP);
	ip4->version = 4;
	ip4->ihl = 5;
	ip4->tot_len = htons(len - sizeof(*eth));
	ip4->ttl = 64;
	ip4->protocol = IPPROTO_UDP;
	inet_pton(AF_INET, "10.255.0.1", &ip4->saddr);
	inet_pton(AF_INET, "10.0.1.7", &ip4->daddr);
	ip4->check = htons(roce_inet_csum(ip4, sizeof(*ip4)));
	udp->source = htons(49152);
	udp->dest = htons(4791);
	udp->len = htons(len - sizeof(*eth) - sizeof(*ip4));
	return len;
}

static int setup_netns(void)
{
	if (unshare(CLONE_NEWNET))
		return -1;
	return system("ip link set lo up && "
		      "ip link add obench0 type veth peer name obench1 && "
		      "ip link set obench0 up && ip link set obench1 up && "
		      /* uplinks 1..3: the program checks their MTU */
		      "for i in 1 2 3; do ip link add obench-up$i type veth "
		      "peer name obench-pe$i && ip link set obench-up$i up; done && "
		      "ip addr add 192.0.2.1/24 dev obench0 && "
		      "ip route add 10.0.0.0/16 via 192.0.2.2 dev obench0 && "
		      "sysctl -qw net.ipv4.conf.all.forwarding=1");
}

/* ar and jsq: each uplink's rate, so that the phantom backlogs of the
 * four fill and drain as the repeats arrive (200 bytes every ~0.1 us)
 */
#define AR_RATE_BPS	10000000000ULL

/* Uplink @p of map @fd: obench0 or obench-upP, next hop 192.0.2.2. */
static void set_uplink(int fd, __u32 p)
{
	struct ofan_port port = { .flags = OFAN_PORT_F_NH4 };
	char name[IF_NAMESIZE];

	snprintf(name, sizeof(name), "obench-up%u", p);
	port.ifindex = if_nametoindex(p ? name : "obench0");
	inet_pton(AF_INET, "192.0.2.2", port.nh4);
	ofan_port_set_rate(&port, AR_RATE_BPS, OFAN_AR_BUFFER_DEFAULT);
	bpf_map_update_elem(fd, &p, &port, 0);
}

static void configure_ofan(struct ofan_bench_bpf *skel, int mode, int fast)
{
	struct ofan_config cfg = {
		.layout_version = OFAN_LAYOUT_VERSION,
		.mode = mode,
		.w = W,
		.nr_keys = 8,
		.ack_max_bytes = 100,
		.nr_pipes = 1,
		.up_ports = (1ULL << W) - 1,
		.nh4_ports = (1ULL << W) - 1,
		.ar_buffer_bytes = OFAN_AR_BUFFER_DEFAULT,
	};
	struct ofan_dest dest = { .valid_ports = 0xf, .flags = OFAN_DEST_F_VALID };
	struct ofan_lpm4_key lpm = { .prefix_len = 24 };
	__u32 zero = 0, key = 1, p;
	struct ofan_dst_keys keys = { .key = { 1, OFAN_SET_NONE } };	/* set 0 */

	memcpy(cfg.perm, perm, W);
	ofan_dest_fill_orders(&dest, perm, W, key, cfg.nr_keys);
	if (fast)
		ofan_config_set_fast(&cfg, inet_addr("10.0.0.0"), 16, 8, 0xff);
	bpf_map_update_elem(bpf_map__fd(skel->maps.ofan_config), &zero, &cfg, 0);
	bpf_map_update_elem(bpf_map__fd(skel->maps.ofan_dests), &key, &dest, 0);
	inet_pton(AF_INET, "10.0.1.0", &lpm.addr);
	bpf_map_update_elem(bpf_map__fd(skel->maps.ofan_dst4), &lpm, &keys, 0);
	for (p = 0; p < W; p++)
		set_uplink(bpf_map__fd(skel->maps.ofan_ports), p);
}


/* The case's time: Ofan's test packets arrive on the testbed's other
 * port, as on a switch's downlink.
 */
static double measure(struct bpf_program *prog, const __u8 *pkt, size_t len,
		      int repeat, int verdict)
{
	struct __sk_buff ctx = {
		.ingress_ifindex = if_nametoindex("obench1"),
	};

	return bpf_bench_time(tool_name, prog, pkt, len, &ctx, repeat, verdict);
}

int main(int argc, char **argv)
{
	const char *out_path = "results/3-cost/ofan_bpf.json";
	int repeat = 2000000, runs = 5, i, r, ret;
	struct bpf_bench_case cases[] = {
#define CASE(n, m, f, v)						\
	{ .name = n, .verdict = v,					\
	  .priv = &(const struct ofan_variant){ .ofan_mode = m, .fast = f } }
		CASE("empty", -1, 0, TC_ACT_OK),
		CASE("hash_ecmp_peer", -1, 0, TC_ACT_REDIRECT),
		CASE("ofan_lpm", OFAN_MODE_OFAN, 0, TC_ACT_REDIRECT),
		CASE("ofan_fast", OFAN_MODE_OFAN, 1, TC_ACT_REDIRECT),
		CASE("pofan_fast", OFAN_MODE_POFAN, 1, TC_ACT_REDIRECT),
		CASE("rr_fast", OFAN_MODE_RR, 1, TC_ACT_REDIRECT),
		CASE("rps_fast", OFAN_MODE_RPS, 1, TC_ACT_REDIRECT),
		CASE("ecmp_fib", OFAN_MODE_ECMP, 1, TC_ACT_REDIRECT),
		CASE("ar_fast", OFAN_MODE_AR, 1, TC_ACT_REDIRECT),
		CASE("jsq_fast", OFAN_MODE_JSQ, 1, TC_ACT_REDIRECT),
#undef CASE
	};
	int nr = sizeof(cases) / sizeof(cases[0]), err;
	struct ofan_bench_bpf *skel;
	__u8 pkt[200];
	FILE *f;

	ret = bpf_bench_options(tool_name, argc, argv, &repeat, &runs, &out_path);
	if (ret >= 0)
		return ret;
	libbpf_set_print(libbpf_quiet);
	f = fopen(out_path, "w");
	if (!f) {
		fprintf(stderr, "ofan_bpf_bench: cannot write %s: %s\n", out_path,
			strerror(errno));
		return 1;
	}
	if (setup_netns()) {
		fprintf(stderr, "ofan_bpf_bench: cannot set up a network namespace (root?)\n");
		return 1;
	}
	skel = ofan_bench_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, "ofan_bpf_bench: cannot load the programs: %s\n",
			strerror(errno));
		return 1;
	}
	/* the peer forwards over the same interfaces, MTU check included */
	for (r = 0; r < W; r++)
		set_uplink(bpf_map__fd(skel->maps.peer_ports), r);
	cases[0].prog = skel->progs.bench_empty;
	cases[1].prog = skel->progs.bench_hash_ecmp;
	for (i = 2; i < nr; i++)
		cases[i].prog = skel->progs.bench_ofan;
	build_packet(pkt, sizeof(pkt));

	/* Interleave the cases run by run, so drift hits them alike. */
	for (r = 0; r < runs; r++) {
		for (i = 0; i < nr; i++) {
			const struct ofan_variant *v = cases[i].priv;

			if (v->ofan_mode >= 0)
				configure_ofan(skel, v->ofan_mode, v->fast);
			cases[i].ns[r] = measure(cases[i].prog, pkt, sizeof(pkt),
						 repeat, cases[i].verdict);
			if (cases[i].ns[r] < 0) {
				fprintf(stderr, "ofan_bpf_bench: case %s failed\n",
					cases[i].name);
				return 1;
			}
		}
	}
	bpf_bench_medians(cases, nr, runs);
	bpf_bench_print(cases, nr, 1);
	err = jdoc_print(f, bpf_bench_doc("ofan_bpf",
					 "BPF_PROG_TEST_RUN, 200-byte IPv4 UDP packet, TTL and checksum restored after each repeat",
					 cases, nr, 1, repeat, runs),
			 JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED);
	fclose(f);
	ofan_bench_bpf__destroy(skel);
	if (err)
		return 1;
	printf("ofan_bpf_bench: wrote %s\n", out_path);
	return 0;
}
