// SPDX-License-Identifier: GPL-2.0
/*
 * ofan_peers.bpf.c - reference tc programs that the Ofan benchmark
 * (bench/ofan_bpf_bench.c) measures next to ofan.bpf.c: an empty program,
 * and a minimal hash-based ECMP (parse, hash the 5-tuple, one array lookup
 * of the uplink, TTL decrement, bpf_redirect_neigh), the least work a
 * per-packet load balancer does.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "../include/ofan/ofan_maps.h"

#define ETH_P_IP	0x0800
#define TC_ACT_OK	0

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, OFAN_MAX_W);
	__type(key, __u32);
	__type(value, struct ofan_port);
} peer_ports SEC(".maps");

const volatile __u32 peer_w = 4;	/* uplinks, set before load */

SEC("tc")
int peer_empty(struct __sk_buff *skb)
{
	return TC_ACT_OK;
}

SEC("tc")
int peer_hash_ecmp(struct __sk_buff *skb)
{
	void *data_end = (void *)(long)skb->data_end;
	void *data = (void *)(long)skb->data;
	struct bpf_redir_neigh nh = {};
	struct ethhdr *eth = data;
	struct ofan_port *port;
	struct iphdr *ip4;
	__u32 hash, idx, check;
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
	nh.nh_family = port->nh_family;
	__builtin_memcpy(nh.ipv6_nh, port->nh_addr, 16);
	return bpf_redirect_neigh(port->ifindex, &nh, sizeof(nh), 0);
}

char LICENSE[] SEC("license") = "GPL";
