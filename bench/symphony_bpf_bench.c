// SPDX-License-Identifier: GPL-2.0
/*
 * symphony_bpf_bench.c - per-packet cost of Symphony as tc-BPF
 * (bpf/symphony.bpf.c), next to an empty tc program, a minimal ECN
 * marker (the peer) and a minimal marker on a phantom queue (the peer
 * plus the clock), all through BPF_PROG_TEST_RUN with a large repeat
 * count on 1082-byte RoCEv2 frames (1024 bytes of payload), in one run,
 * cases interleaved run by run.  Symphony's cases: a packet of the job's
 * slowest step (Algorithm 1, no mark), one of a step ahead (marked CE
 * every time, k 100), and a UDP packet that is not collective (RED
 * only).  Every program runs in the same harness (bpf/symphony_bench.bpf.c)
 * that restores the ECN field after each repeat.  Writes JSON.
 *
 *	symphony_bpf_bench [--repeat N] [--runs N] [--out FILE]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf_bench.h"
#include "json_doc.h"
#include "symphony_bench.skel.h"
#include "symphony_bpf_cfg.h"
#include "symphony_param.h"
#include "tool_util.h"

const char *tool_name = "symphony_bpf_bench";
#include "workload/roce_frame.h"

#define PORT		1		/* lo: where a test run's skb is */
#define PAYLOAD		1024

/* A case's packet (bpf_bench_case.priv) */
struct frame {
	bool	roce;
	__u32	step, psn;
};

static size_t build(__u8 *out, const struct frame *f)
{
	static const __u8 macs[12] = { 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1 };
	__u8 *ip = out + ETH_HLEN;
	size_t l4 = f->roce ? SYMPHONY_BTH_LEN + PAYLOAD : PAYLOAD;

	memset(out, 0, ETH_HLEN + ROCE_IPV4_LEN + ROCE_UDP_LEN + l4);
	memcpy(out, macs, sizeof(macs));
	out[12] = ETH_P_IP >> 8;
	out[13] = ETH_P_IP & 0xff;
	roce_put_ipv4_udp(ip, 0x0100000a, 0x0200000a, f->roce ? f->step : 40000,
			  f->roce ? SYMPHONY_UDP_PORT_ROCEV2 : 5000,
			  ROCE_ECN_ECT0, 1, l4);
	if (f->roce)
		roce_put_bth(ip + ROCE_IPV4_LEN + ROCE_UDP_LEN,
			     SYMPHONY_OP_RC_WRITE_MIDDLE, 1, 17, f->psn, false);
	return ETH_HLEN + ROCE_IPV4_LEN + ROCE_UDP_LEN + l4;
}

/* Port lo at 400 Gbit/s (the phantom queue stays near empty), RED out of
 * reach, k 100 (a step ahead is always marked), one window for the run.
 */
static int configure(struct symphony_bench_bpf *skel)
{
	static const char *const kv[] = {
		"kmin", "4000000000", "kmax", "4000000000", "k", "100",
		"warmup", "0", "twin", "10s", NULL
	};
	struct symphony_bpf_port port = { .ifindex = PORT };
	const char *const *p;
	char err[256];
	__u32 key = PORT;

	symphony_bpf_cfg_defaults(&port.cfg);
	for (p = kv; *p; p += 2)
		if (symphony_bpf_cfg_set(&port.cfg, p[0], p[1], err, sizeof(err)))
			goto bad;
	if (symphony_bpf_cfg_derive(&port.cfg, 400000000000ULL, 1514,
				    SYMPHONY_JOBS_DEFAULT, err, sizeof(err)))
		goto bad;
	return bpf_map_update_elem(bpf_map__fd(skel->maps.symphony_ports), &key,
				   &port, 0);
bad:
	fprintf(stderr, "%s: %s\n", tool_name, err);
	return -1;
}

/* The ECN field of @f after one run of @prog, or -1. */
static int ecn_after(const struct bpf_program *prog, const struct frame *f)
{
	struct __sk_buff ctx = { .ifindex = PORT };
	__u8 pkt[ETH_HLEN + ROCE_IPV4_LEN + ROCE_UDP_LEN + SYMPHONY_BTH_LEN + PAYLOAD];
	__u8 out[sizeof(pkt) + 64];
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		    .data_in = pkt, .data_size_in = build(pkt, f),
		    .data_out = out, .data_size_out = sizeof(out),
		    .ctx_in = &ctx, .ctx_size_in = sizeof(ctx), .repeat = 1);

	if (bpf_prog_test_run_opts(bpf_program__fd(prog), &opts))
		return -1;
	return out[ETH_HLEN + 1] & 3;
}

static double measure(const struct bpf_bench_case *c, int repeat)
{
	struct __sk_buff ctx = { .ifindex = PORT };
	__u8 pkt[ETH_HLEN + ROCE_IPV4_LEN + ROCE_UDP_LEN + SYMPHONY_BTH_LEN + PAYLOAD];
	size_t len = build(pkt, c->priv);

	return bpf_bench_time(tool_name, c->prog, pkt, len, &ctx, repeat,
			      c->verdict);
}

int main(int argc, char **argv)
{
	static const struct frame lagging = { .roce = true, .step = 5, .psn = 100 };
	static const struct frame ahead = { .roce = true, .step = 6, .psn = 50 };
	static const struct frame udp = { .roce = false };
	struct bpf_bench_case cases[] = {
		{ .name = "empty", .verdict = TC_ACT_OK, .priv = &udp },
		{ .name = "ecn_marker_peer", .verdict = TC_ACT_OK, .priv = &ahead },
		{ .name = "phantom_marker", .verdict = TC_ACT_OK, .priv = &ahead },
		{ .name = "symphony_lagging", .verdict = TC_ACT_OK, .priv = &lagging },
		{ .name = "symphony_marked", .verdict = TC_ACT_OK, .priv = &ahead },
		{ .name = "symphony_other", .verdict = TC_ACT_OK, .priv = &udp },
	};
	const char *out_path = "results/5-symphony-bpf/symphony_bpf.json";
	int nr = ARRAY_SIZE(cases), repeat = 2000000, runs = 5, i, r, err, ret;
	struct symphony_bench_bpf *skel;
	FILE *f;

	ret = bpf_bench_options(tool_name, argc, argv, &repeat, &runs, &out_path);
	if (ret >= 0)
		return ret;
	libbpf_set_print(libbpf_quiet);
	skel = symphony_bench_bpf__open_and_load();
	if (!skel) {
		fprintf(stderr, "%s: cannot load the programs (root?): %s\n",
			tool_name, strerror(errno));
		return 1;
	}
	if (configure(skel))
		return 1;
	cases[0].prog = skel->progs.bench_empty;
	cases[1].prog = skel->progs.bench_ecn_peer;
	cases[2].prog = skel->progs.bench_phantom_peer;
	for (i = 3; i < nr; i++)
		cases[i].prog = skel->progs.bench_symphony;
	/* step 5 becomes the job's slowest: step 6 is ahead of it, marked */
	if (ecn_after(skel->progs.symphony_egress, &lagging) != ROCE_ECN_ECT0 ||
	    ecn_after(skel->progs.symphony_egress, &ahead) != ROCE_ECN_CE ||
	    ecn_after(skel->progs.symphony_egress, &udp) != ROCE_ECN_ECT0) {
		fprintf(stderr, "%s: the cases do not mark as they should\n",
			tool_name);
		return 1;
	}

	/* Interleave the cases run by run, so drift hits them alike. */
	for (r = 0; r < runs; r++)
		for (i = 0; i < nr; i++) {
			cases[i].ns[r] = measure(&cases[i], repeat);
			if (cases[i].ns[r] < 0)
				return 1;
		}
	bpf_bench_medians(cases, nr, runs);
	bpf_bench_print(cases, nr, 1);
	f = fopen(out_path, "w");
	if (!f) {
		fprintf(stderr, "%s: cannot write %s: %s\n", tool_name, out_path,
			strerror(errno));
		return 1;
	}
	err = jdoc_print(f, bpf_bench_doc("symphony_bpf",
					  "BPF_PROG_TEST_RUN, 1082-byte RoCEv2 frames (a UDP one for symphony_other), ECN field restored after each repeat",
					  cases, nr, 1, repeat, runs),
			 JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED);
	fclose(f);
	symphony_bench_bpf__destroy(skel);
	if (err)
		return 1;
	printf("%s: wrote %s\n", tool_name, out_path);
	return 0;
}
