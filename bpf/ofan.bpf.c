// SPDX-License-Identifier: GPL-2.0
/*
 * ofan.bpf.c - Ofan: destination-based rotation load balancing for the
 * northbound packets of a fat-tree edge or aggregation switch, as a tc-BPF
 * program on the ingress (clsact) of the switch's downlink ports.
 *
 * For each IPv4/IPv6 packet: destinations below this switch, unknown
 * destinations, expiring TTLs and anything malformed take the kernel's
 * normal path (TC_ACT_OK, counted).  A northbound packet's destination key
 * (destination edge switch at an edge switch, destination pod at an
 * aggregation switch) comes from an LPM trie, or from address bits on the
 * fast path; its size class (data or ACK) from its length.  The mode then
 * picks an uplink among the ports valid for that key and up:
 *
 *	ofan	the (key, class) pointer through its own permutation
 *	pofan	the same with one pointer per pipe of ingress ports
 *	rr	one switch-wide pointer (Simple RR)
 *	rps	a uniform random valid uplink (random packet spraying)
 *	ecmp	the kernel's multipath route choice (FIB lookup)
 *
 * The TTL or hop limit is decremented and the packet redirected to the
 * uplink's next hop with bpf_redirect_neigh().  Map layouts: ofan_maps.h;
 * the port choice: ofan_core.h.  The agent creates, pins and fills the maps.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "../include/ofan/ofan_maps.h"

#define ETH_P_IP	0x0800
#define ETH_P_IPV6	0x86DD
#define AF_INET		2
#define AF_INET6	10
#define TC_ACT_OK	0

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ofan_config);
} ofan_config SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, OFAN_MAX_W);
	__type(key, __u32);
	__type(value, struct ofan_port);
} ofan_ports SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, OFAN_MAX_KEYS);
	__type(key, __u32);
	__type(value, struct ofan_dest);
} ofan_dests SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, OFAN_MAX_PREFIXES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct ofan_lpm4_key);
	__type(value, __u32);
} ofan_dst4 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, OFAN_MAX_PREFIXES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct ofan_lpm6_key);
	__type(value, __u32);
} ofan_dst6 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, OFAN_MAX_PIPES * OFAN_MAX_KEYS * OFAN_NR_CLASSES);
	__type(key, __u32);
	__type(value, struct ofan_pointer);
} ofan_pointers SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ofan_pointer);
} ofan_rr SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OFAN_MAX_PIPE_PORTS);
	__type(key, __u32);
	__type(value, __u32);
} ofan_pipes SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, OFAN_MAX_W);
	__type(key, __u32);
	__type(value, struct ofan_port_stats);
} ofan_port_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, OFAN_MAX_KEYS);
	__type(key, __u32);
	__type(value, struct ofan_key_stats);
} ofan_key_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ofan_stats);
} ofan_stats SEC(".maps");

/* What the parser found in a packet's IP header. */
struct ofan_pkt {
	void		*l3;
	__u32		family;
	__u8		ttl;
	__u8		l4proto;
	__be32		daddr4;
	__u32		daddr6[4];
};

/* Count a packet that takes the kernel path, in ofan_stats field @off. */
static __always_inline int ofan_kernel_path(__u32 off)
{
	__u32 zero = 0;
	__u64 *st = bpf_map_lookup_elem(&ofan_stats, &zero);

	if (st && off < sizeof(struct ofan_stats) / sizeof(__u64))
		st[off]++;
	return TC_ACT_OK;
}

#define OFAN_STAT(field) (offsetof(struct ofan_stats, field) / sizeof(__u64))

static __always_inline int ofan_parse(struct __sk_buff *skb,
				      struct ofan_pkt *pkt)
{
	void *data_end = (void *)(long)skb->data_end;
	void *data = (void *)(long)skb->data;
	struct ethhdr *eth = data;

	if ((void *)(eth + 1) > data_end)
		return OFAN_STAT(malformed);
	if (eth->h_proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *ip4 = (void *)(eth + 1);

		if ((void *)(ip4 + 1) > data_end || ip4->version != 4 ||
		    ip4->ihl < 5 || bpf_ntohs(ip4->tot_len) < ip4->ihl * 4)
			return OFAN_STAT(malformed);
		pkt->family = AF_INET;
		pkt->ttl = ip4->ttl;
		pkt->l4proto = ip4->protocol;
		pkt->daddr4 = ip4->daddr;
	} else if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = (void *)(eth + 1);

		if ((void *)(ip6 + 1) > data_end || ip6->version != 6)
			return OFAN_STAT(malformed);
		pkt->family = AF_INET6;
		pkt->ttl = ip6->hop_limit;
		pkt->l4proto = ip6->nexthdr;
		__builtin_memcpy(pkt->daddr6, &ip6->daddr, 16);
	} else {
		return OFAN_STAT(not_ip);
	}
	pkt->l3 = eth + 1;
	return -1;
}

/* The destination key of @pkt, or -1 when it has none. */
static __always_inline int ofan_dest_key(const struct ofan_config *cfg,
					 const struct ofan_pkt *pkt)
{
	__u32 *key;

	if (pkt->family == AF_INET) {
		struct ofan_lpm4_key lpm = { .prefix_len = 32,
					     .addr = pkt->daddr4 };

		if (cfg->fast_enabled && cfg->fast_prefix_len <= 32) {
			__u32 host = bpf_ntohl(pkt->daddr4);
			__u32 net_mask = cfg->fast_prefix_len ?
				~0U << (32 - cfg->fast_prefix_len) : 0;

			if ((host & net_mask) == bpf_ntohl(cfg->fast_net))
				return (host >> (cfg->fast_shift & 31)) &
				       cfg->fast_mask;
		}
		key = bpf_map_lookup_elem(&ofan_dst4, &lpm);
	} else {
		struct ofan_lpm6_key lpm = { .prefix_len = 128 };

		__builtin_memcpy(lpm.addr, pkt->daddr6, 16);
		key = bpf_map_lookup_elem(&ofan_dst6, &lpm);
	}
	return key ? (int)*key : -1;
}

/* rps: the r-th set bit of @valid for a uniform r, or -1. */
static __always_inline int ofan_random_port(__u64 valid)
{
	__u32 n = 0, r, i;

	for (i = 0; i < OFAN_MAX_W; i++)
		n += (valid >> i) & 1;
	if (!n)
		return -1;
	r = bpf_get_prandom_u32() % n;
	for (i = 0; i < OFAN_MAX_W; i++) {
		if (!((valid >> i) & 1))
			continue;
		if (!r)
			return i;
		r--;
	}
	return -1;
}

static __always_inline int ofan_pointer_port(const struct ofan_config *cfg,
					     __u32 slot, __u32 id, __u64 valid)
{
	struct ofan_pointer *ptr = bpf_map_lookup_elem(&ofan_pointers, &slot);

	if (!ptr)
		return -1;
	return ofan_next_port(&ptr->counter, cfg->perm, cfg->w, id, valid);
}

/* ecmp: the uplink the kernel's FIB (and its multipath hash) chooses. */
static __always_inline int ofan_fib_port(struct __sk_buff *skb,
					 const struct ofan_config *cfg,
					 const struct ofan_pkt *pkt)
{
	struct bpf_fib_lookup fib = {};
	struct ofan_port *port;
	__u32 i;
	int ret;

	fib.ifindex = skb->ingress_ifindex;
	fib.l4_protocol = pkt->l4proto;
	fib.tot_len = skb->len;
	if (pkt->family == AF_INET) {
		struct iphdr *ip4 = pkt->l3;

		fib.family = AF_INET;
		fib.tos = ip4->tos;
		fib.ipv4_src = ip4->saddr;
		fib.ipv4_dst = ip4->daddr;
	} else {
		struct ipv6hdr *ip6 = pkt->l3;

		fib.family = AF_INET6;
		__builtin_memcpy(fib.ipv6_src, &ip6->saddr, 16);
		__builtin_memcpy(fib.ipv6_dst, &ip6->daddr, 16);
	}
	if (pkt->l4proto == IPPROTO_UDP || pkt->l4proto == IPPROTO_TCP) {
		void *data_end = (void *)(long)skb->data_end;
		__u32 l4off = pkt->family == AF_INET ?
			(((struct iphdr *)pkt->l3)->ihl & 0xf) * 4 :
			sizeof(struct ipv6hdr);
		__be16 *ports = pkt->l3 + l4off;

		/* the ports feed the kernel's L4 multipath hash */
		if ((void *)(ports + 2) <= data_end) {
			fib.sport = ports[0];
			fib.dport = ports[1];
		}
	}
	ret = bpf_fib_lookup(skb, &fib, sizeof(fib), 0);
	if (ret != BPF_FIB_LKUP_RET_SUCCESS && ret != BPF_FIB_LKUP_RET_NO_NEIGH)
		return -1;
	for (i = 0; i < OFAN_MAX_W; i++) {
		__u32 p = i;

		if (i >= cfg->w)
			break;
		port = bpf_map_lookup_elem(&ofan_ports, &p);
		if (port && port->ifindex == fib.ifindex)
			return i;
	}
	return -1;
}

static __always_inline void ofan_decrement_ttl(struct __sk_buff *skb,
					       const struct ofan_pkt *pkt)
{
	void *data_end = (void *)(long)skb->data_end;

	if (pkt->family == AF_INET) {
		struct iphdr *ip4 = pkt->l3;
		__u32 check;

		if ((void *)(ip4 + 1) > data_end)
			return;
		/* RFC 1624 incremental update, as ip_decrease_ttl() does */
		check = ip4->check;
		check += bpf_htons(0x0100);
		ip4->check = (__u16)(check + (check >= 0xFFFF));
		ip4->ttl--;
	} else {
		struct ipv6hdr *ip6 = pkt->l3;

		if ((void *)(ip6 + 1) > data_end)
			return;
		ip6->hop_limit--;
	}
}

SEC("tc")
int ofan_ingress(struct __sk_buff *skb)
{
	__u32 zero = 0, cls, slot, ifindex, pipe_nr = 0, *pipe;
	struct bpf_redir_neigh nh = {};
	struct ofan_port_stats *pst;
	struct ofan_key_stats *kst;
	struct ofan_config *cfg;
	struct ofan_dest *dest;
	struct ofan_port *port;
	struct ofan_pkt pkt;
	int key, uplink = -1, err;
	__u64 valid;

	cfg = bpf_map_lookup_elem(&ofan_config, &zero);
	if (!cfg || cfg->layout_version != OFAN_LAYOUT_VERSION || !cfg->w ||
	    cfg->w > OFAN_MAX_W || cfg->nr_keys > OFAN_MAX_KEYS)
		return ofan_kernel_path(OFAN_STAT(unconfigured));
	err = ofan_parse(skb, &pkt);
	if (err >= 0)
		return ofan_kernel_path(err);
	if (pkt.ttl <= 1)	/* the kernel sends ICMP time exceeded */
		return ofan_kernel_path(OFAN_STAT(ttl_expired));

	key = ofan_dest_key(cfg, &pkt);
	if (key >= 0 && key < OFAN_MAX_KEYS) {
		__u32 k = key;

		dest = bpf_map_lookup_elem(&ofan_dests, &k);
	} else {
		dest = NULL;
	}
	if (!dest || !(dest->flags & OFAN_DEST_F_VALID))
		return ofan_kernel_path(OFAN_STAT(unknown_dst));
	if (dest->flags & OFAN_DEST_F_LOCAL)
		return ofan_kernel_path(OFAN_STAT(local));

	cls = skb->len <= cfg->ack_max_bytes ? OFAN_CLASS_ACK : OFAN_CLASS_DATA;
	valid = dest->valid_ports & cfg->up_ports;
	if (cfg->w < OFAN_MAX_W)
		valid &= (1ULL << cfg->w) - 1;

	switch (cfg->mode) {
	case OFAN_MODE_POFAN:
		ifindex = skb->ingress_ifindex;
		pipe = bpf_map_lookup_elem(&ofan_pipes, &ifindex);
		if (pipe && *pipe < OFAN_MAX_PIPES)
			pipe_nr = *pipe;
		__attribute__((fallthrough));
	case OFAN_MODE_OFAN:
		slot = (pipe_nr * OFAN_MAX_KEYS + key) * OFAN_NR_CLASSES + cls;
		uplink = ofan_pointer_port(cfg, slot,
					   ofan_pointer_id(key, cfg->nr_keys, cls),
					   valid);
		break;
	case OFAN_MODE_RR: {
		struct ofan_pointer *rr = bpf_map_lookup_elem(&ofan_rr, &zero);

		if (rr)
			uplink = ofan_next_port(&rr->counter, cfg->perm, cfg->w,
						0, valid);
		break;
	}
	case OFAN_MODE_RPS:
		uplink = ofan_random_port(valid);
		break;
	case OFAN_MODE_ECMP:
		uplink = ofan_fib_port(skb, cfg, &pkt);
		if (uplink < 0)
			return ofan_kernel_path(OFAN_STAT(fib_miss));
		break;
	default:
		return ofan_kernel_path(OFAN_STAT(unconfigured));
	}
	if (uplink < 0 || uplink >= OFAN_MAX_W)
		return ofan_kernel_path(OFAN_STAT(no_valid_port));

	slot = uplink;
	port = bpf_map_lookup_elem(&ofan_ports, &slot);
	if (!port || !port->ifindex)
		return ofan_kernel_path(OFAN_STAT(no_valid_port));
	/* Forwarded packets are counted per uplink and per key only. */
	pst = bpf_map_lookup_elem(&ofan_port_stats, &slot);
	if (pst) {
		pst->packets++;
		pst->bytes += skb->len;
	}
	slot = key;
	kst = bpf_map_lookup_elem(&ofan_key_stats, &slot);
	if (kst && cls < OFAN_NR_CLASSES)
		kst->packets[cls]++;

	ofan_decrement_ttl(skb, &pkt);
	nh.nh_family = port->nh_family;
	__builtin_memcpy(nh.ipv6_nh, port->nh_addr, 16);
	return bpf_redirect_neigh(port->ifindex, &nh, sizeof(nh), 0);
}

char LICENSE[] SEC("license") = "GPL";
