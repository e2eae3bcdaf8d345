// SPDX-License-Identifier: GPL-2.0
/*
 * ecnstat.bpf.c - tc-BPF (clsact) counter of the ECN codepoints and of the
 * RoCEv2/UEC packets that cross an interface.  It never changes a packet
 * and always lets it pass; the testbeds attach it at receivers to see how
 * many packets a qdisc marked CE and how many CNPs came back.
 */
/* uapi headers rather than vmlinux.h: no CO-RE relocation, so the
 * program loads on kernels without BTF (the VM tier's debug kernel).
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/pkt_cls.h>
#include <linux/udp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "ecnstat/ecnstat_map.h"
#include "symphony/symphony_wire.h"

#define INET_ECN_MASK	3

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ecnstat_counters);
} ecnstat_counters SEC(".maps");

/* The BTH opcode of a RoCEv2 packet at @udp, or -1 if it is truncated. */
static __always_inline int bth_opcode(struct udphdr *udp, void *data_end)
{
	__u8 *bth = (__u8 *)(udp + 1);

	if ((void *)(bth + 1) > data_end)
		return -1;
	return *bth;
}

static __always_inline void count_udp(struct ecnstat_counters *c,
				      struct udphdr *udp, void *data_end,
				      __u32 segs)
{
	if ((void *)(udp + 1) > data_end)
		return;

	switch (bpf_ntohs(udp->dest)) {
	case SYMPHONY_UDP_PORT_ROCEV2:
		c->rocev2 += segs;
		if (bth_opcode(udp, data_end) == SYMPHONY_OP_CNP)
			c->rocev2_cnp += segs;
		break;
	case SYMPHONY_UDP_PORT_UEC:
		c->uec += segs;
		break;
	}
}

SEC("tc")
int ecnstat(struct __sk_buff *skb)
{
	void *data_end = (void *)(long)skb->data_end;
	void *data = (void *)(long)skb->data;
	struct ethhdr *eth = data;
	struct ecnstat_counters *c;
	__u32 key = 0, segs;
	__u8 ecn, proto;
	void *l4;

	c = bpf_map_lookup_elem(&ecnstat_counters, &key);
	if (!c)
		return TC_ACT_OK;

	if ((void *)(eth + 1) > data_end)
		goto other;

	if (eth->h_proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *ip4 = (void *)(eth + 1);

		if ((void *)(ip4 + 1) > data_end || ip4->ihl < 5)
			goto other;
		ecn = ip4->tos & INET_ECN_MASK;
		proto = ip4->protocol;
		/* Only first fragments carry the UDP header. */
		if (ip4->frag_off & bpf_htons(0x1fff))
			proto = 0;
		l4 = (void *)ip4 + ip4->ihl * 4;
	} else if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = (void *)(eth + 1);

		if ((void *)(ip6 + 1) > data_end)
			goto other;
		ecn = (bpf_ntohl(*(__be32 *)ip6) >> 20) & INET_ECN_MASK;
		proto = ip6->nexthdr;
		l4 = ip6 + 1;
	} else {
		goto other;
	}

	/* A GSO packet counts as the segments it will become. */
	segs = skb->gso_segs ?: 1;
	c->packets += segs;
	c->bytes += skb->len;
	switch (ecn) {
	case 0:
		c->not_ect += segs;
		break;
	case 1:
		c->ect1 += segs;
		break;
	case 2:
		c->ect0 += segs;
		break;
	default:
		c->ce += segs;
		break;
	}
	if (proto == IPPROTO_UDP)
		count_udp(c, l4, data_end, segs);
	return TC_ACT_OK;

other:
	c->other++;
	return TC_ACT_OK;
}

char LICENSE[] SEC("license") = "GPL";
