// SPDX-License-Identifier: GPL-2.0
/*
 * symphony_bench.bpf.c - the programs that the Symphony benchmark
 * (bench/symphony_bpf_bench.c) runs with BPF_PROG_TEST_RUN: Symphony
 * itself (the body of symphony.bpf.c, included here with its maps), an
 * empty program, and a minimal ECN marker (the IPv4 header by direct
 * access, CE on every ECN-capable packet with bpf_skb_ecn_set_ce()), the
 * least work a per-packet ECN marker does: the peer Symphony is measured
 * against.  A second peer is the least a marker on a phantom queue does:
 * the minimal marker plus the clock and a per-CPU virtual backlog (no
 * lock, no RED curve), which shows what the clock alone costs.
 *
 * A test run repeats a program on one packet buffer and never resets it,
 * so a packet marked once would stay CE and later repeats would not
 * mark.  Each program is therefore wrapped in the same harness, which
 * saves the IP header's DS field and checksum before the body and writes
 * them back after it, and costs every program alike.
 */
#include <linux/ip.h>

#include "symphony.bpf.c"

struct bench_saved {
	__u8	tos;
	__u16	check;
	bool	ok;
};

static __always_inline struct iphdr *bench_ip(struct __sk_buff *skb)
{
	void *data_end = (void *)(long)skb->data_end;
	struct iphdr *ip = (void *)(long)skb->data + ETH_HLEN;

	return (void *)(ip + 1) > data_end ? NULL : ip;
}

static __always_inline void bench_save(struct __sk_buff *skb,
				       struct bench_saved *saved)
{
	struct iphdr *ip = bench_ip(skb);

	if (!ip)
		return;
	saved->tos = ip->tos;
	saved->check = ip->check;
	saved->ok = true;
}

static __always_inline void bench_restore(struct __sk_buff *skb,
					  const struct bench_saved *saved)
{
	struct iphdr *ip = bench_ip(skb);

	if (ip && saved->ok) {
		ip->tos = saved->tos;
		ip->check = saved->check;
	}
}

static __always_inline int peer_ecn_run(struct __sk_buff *skb)
{
	struct iphdr *ip = bench_ip(skb);

	if (ip && skb->protocol == bpf_htons(ETH_P_IP) && (ip->tos & 3))
		bpf_skb_ecn_set_ce(skb);
	return TC_ACT_OK;
}

/* The phantom peer's queue: the time it is empty from, per CPU; its
 * drain rate in picoseconds per byte and its marking threshold in ns of
 * backlog, set before load (0: every ECN-capable packet is marked, as by
 * the minimal marker)
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} bench_phantom SEC(".maps");

const volatile __u32 bench_phantom_ps_per_byte = 20;	/* 400 Gbit/s */
const volatile __u64 bench_phantom_kmin_ns;

static __always_inline int peer_phantom_run(struct __sk_buff *skb)
{
	struct iphdr *ip = bench_ip(skb);
	__u64 now = bpf_ktime_get_ns(), backlog, *empty;
	__u32 zero = 0;

	empty = bpf_map_lookup_elem(&bench_phantom, &zero);
	if (!empty)
		return TC_ACT_OK;
	backlog = *empty > now ? *empty - now : 0;
	*empty = now + backlog +
		 (__u64)skb->len * bench_phantom_ps_per_byte / 1000;
	if (backlog >= bench_phantom_kmin_ns && ip &&
	    skb->protocol == bpf_htons(ETH_P_IP) && (ip->tos & 3))
		bpf_skb_ecn_set_ce(skb);
	return TC_ACT_OK;
}

SEC("tc")
int bench_empty(struct __sk_buff *skb)
{
	struct bench_saved saved = {};

	bench_save(skb, &saved);
	bench_restore(skb, &saved);
	return TC_ACT_OK;
}

/* @run in the harness: the ECN field as it was before, for the next repeat */
static __always_inline int bench_harness(struct __sk_buff *skb,
					 int (*run)(struct __sk_buff *skb))
{
	struct bench_saved saved = {};
	int ret;

	bench_save(skb, &saved);
	ret = run(skb);
	bench_restore(skb, &saved);
	return ret;
}

SEC("tc")
int bench_ecn_peer(struct __sk_buff *skb)
{
	return bench_harness(skb, peer_ecn_run);
}

SEC("tc")
int bench_phantom_peer(struct __sk_buff *skb)
{
	return bench_harness(skb, peer_phantom_run);
}

SEC("tc")
int bench_symphony(struct __sk_buff *skb)
{
	return bench_harness(skb, symphony_run);
}
