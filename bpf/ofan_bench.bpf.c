// SPDX-License-Identifier: GPL-2.0
/*
 * ofan_bench.bpf.c - the programs that the Ofan benchmark
 * (bench/ofan_bpf_bench.c) runs with BPF_PROG_TEST_RUN: Ofan itself (the
 * body of ofan.bpf.c, included here with its maps), an empty program, and
 * a minimal hash-based ECMP (parse, hash the 5-tuple, one array lookup of
 * the uplink, its MTU check, TTL decrement, bpf_redirect_neigh), the least
 * work a per-packet load balancer that forwards correctly does: the peer
 * Ofan is measured against.
 *
 * A test run repeats a program on one packet buffer and never resets it,
 * so a forwarding program would age the packet's TTL to 1 within 63
 * repeats and spend the rest of the run on its TTL-expired path.  Each
 * benchmarked program is therefore wrapped in the same harness, which
 * saves the TTL and checksum before the body and writes them back after
 * it: every repeat takes the forwarding path, and the harness costs all
 * of them alike (the empty program included).
 */
#include "ofan.bpf.c"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, OFAN_MAX_W);
	__type(key, __u32);
	__type(value, struct ofan_port);
} peer_ports SEC(".maps");

const volatile __u32 peer_w = 4;	/* uplinks, set before load */

static __always_inline int peer_hash_ecmp_run(struct __sk_buff *skb)
{
	void *data_end = (void *)(long)skb->data_end;
	void *data = (void *)(long)skb->data;
	struct bpf_redir_neigh nh = {};
	struct ethhdr *eth = data;
	struct ofan_port *port;
	struct iphdr *ip4;
	__u32 hash, idx, check, mtu_len = 0;
	__be16 *l4;

	ip4 = (void *)(eth + 1);
	if ((void *)(ip4 + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IP) ||
	    ip4->ihl != 5 || ip4->ttl <= 1)
		return TC_ACT_OK;
	l4 = (void *)(ip4 + 1);
	if ((void *)(l4 + 2) > data_end)
		return TC_ACT_OK;

	/* a cheap multiplicative hash of the 5-tuple */
	hash = ip4->saddr * 0x9e3779b1U;
	hash ^= ip4->daddr * 0x85ebca6bU;
	hash ^= ((__u32)l4[0] << 16 | l4[1]) * 0xc2b2ae35U;
	hash ^= ip4->protocol;
	idx = (hash ^ (hash >> 16)) % (peer_w ? peer_w : 1);
	port = bpf_map_lookup_elem(&peer_ports, &idx);
	if (!port)
		return TC_ACT_OK;

	check = ip4->check;
	check += bpf_htons(0x0100);
	ip4->check = (__u16)(check + (check >= 0xFFFF));
	ip4->ttl--;
	if (bpf_check_mtu(skb, port->ifindex, &mtu_len, 0, BPF_MTU_CHK_SEGS))
		return TC_ACT_OK;
	nh.nh_family = AF_INET;
	__builtin_memcpy(&nh.ipv4_nh, port->nh4, 4);
	return bpf_redirect_neigh(port->ifindex, &nh, sizeof(nh), 0);
}

/* IPv4 TTL and header checksum: what a forwarding body changes */
struct bench_saved {
	__u8	ttl;
	__u16	check;
};

static __always_inline void bench_save(struct __sk_buff *skb,
				       struct bench_saved *saved)
{
	void *data_end = (void *)(long)skb->data_end;
	struct iphdr *ip4 = (void *)(long)skb->data + sizeof(struct ethhdr);

	if ((void *)(ip4 + 1) <= data_end) {
		saved->ttl = ip4->ttl;
		saved->check = ip4->check;
	}
}

static __always_inline void bench_restore(struct __sk_buff *skb,
					  const struct bench_saved *saved)
{
	void *data_end = (void *)(long)skb->data_end;
	struct iphdr *ip4 = (void *)(long)skb->data + sizeof(struct ethhdr);

	if ((void *)(ip4 + 1) <= data_end) {
		ip4->ttl = saved->ttl;
		ip4->check = saved->check;
	}
}

SEC("tc")
int bench_empty(struct __sk_buff *skb)
{
	struct bench_saved saved = {};

	bench_save(skb, &saved);
	bench_restore(skb, &saved);
	return TC_ACT_OK;
}

SEC("tc")
int bench_hash_ecmp(struct __sk_buff *skb)
{
	struct bench_saved saved = {};
	int ret;

	bench_save(skb, &saved);
	ret = peer_hash_ecmp_run(skb);
	bench_restore(skb, &saved);
	return ret;
}

SEC("tc")
int bench_ofan(struct __sk_buff *skb)
{
	struct bench_saved saved = {};
	int ret;

	bench_save(skb, &saved);
	ret = ofan_run(skb);
	bench_restore(skb, &saved);
	return ret;
}
