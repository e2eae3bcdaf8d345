// SPDX-License-Identifier: GPL-2.0
/*
 * ofan.bpf.c - Ofan: destination-based rotation load balancing for the
 * northbound packets of a fat-tree edge or aggregation switch, as a tc-BPF
 * program on the ingress (clsact) of the switch's downlink ports.
 *
 * For each IPv4/IPv6 packet addressed to this port's MAC: destinations
 * below this switch, unknown destinations, expiring TTLs, packets above
 * the chosen uplink's MTU and anything malformed take the kernel's normal
 * path (TC_ACT_OK, counted), which answers with ICMP where one is due;
 * so do frames for other MACs, multicast and broadcast.  A northbound packet's destination key
 * (destination edge switch at an edge switch, destination pod at an
 * aggregation switch) comes from an LPM trie, or from address bits on the
 * fast path; its size class (data or ACK) from its length.  The mode then
 * picks an uplink among the ports valid for that key and up; a key with
 * none takes the kernel path, whose routes then decide (counted per key):
 *
 *	ofan	the (key, class) pointer through its own permutation
 *	pofan	the same with one pointer per pipe of ingress ports
 *	rr	one switch-wide pointer (Simple RR)
 *	rps	a uniform random valid uplink (random packet spraying)
 *	ecmp	the kernel's multipath route choice (FIB lookup)
 *	ar	adaptive routing as switches do it (Spectrum-X style): the
 *		uplink whose phantom backlog is in the lowest class (below 5,
 *		10 or 20% of the port buffer, or above), at random among ties
 *	jsq	join the shortest queue: the same on the backlog's bytes
 *
 * A program on a downlink's ingress cannot see an uplink's egress queue,
 * so ar and jsq keep a phantom backlog per uplink (ofan_ar_queues): the
 * bytes they sent to it, draining at the uplink's configured rate.
 *
 * The TTL or hop limit is decremented and the packet redirected to the
 * uplink's next hop with bpf_redirect_neigh().  Map layouts: ofan_maps.h;
 * the port choice: ofan_core.h.  The agent creates, pins and fills the maps;
 * a load publishes a whole configuration at once (ofan_active, ofan_maps.h).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "ofan/ofan_maps.h"
#include "phantom/phantom_queue.h"

#define ETH_P_IP	0x0800
#define ETH_P_IPV6	0x86DD
#define AF_INET		2
#define AF_INET6	10
#define TC_ACT_OK	0
#define PACKET_HOST	0		/* skb->pkt_type of a frame to our MAC */
#define IP_MF		0x2000		/* IPv4 more fragments */
#define IP_OFFSET	0x1fff		/* IPv4 fragment offset */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ofan_active);
} ofan_active SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, OFAN_NR_SETS);
	__type(key, __u32);
	__type(value, struct ofan_config);
} ofan_config SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, OFAN_NR_SETS * OFAN_MAX_W);
	__type(key, __u32);
	__type(value, struct ofan_port);
} ofan_ports SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, OFAN_NR_SETS * OFAN_MAX_KEYS);
	__type(key, __u32);
	__type(value, struct ofan_dest);
} ofan_dests SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, OFAN_MAX_PREFIXES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct ofan_lpm4_key);
	__type(value, struct ofan_dst_keys);
} ofan_dst4 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, OFAN_MAX_PREFIXES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct ofan_lpm6_key);
	__type(value, struct ofan_dst_keys);
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
	__type(value, struct ofan_pipe_sets);
} ofan_pipes SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, OFAN_MAX_W);
	__type(key, __u32);
	__type(value, struct ofan_ar_queue);
} ofan_ar_queues SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ofan_ar_scratch);
} ofan_ar_scratch SEC(".maps");

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

#define READ_ONCE(x)	(*(const volatile typeof(x) *)&(x))
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

/*
 * A packet that takes the kernel path (TC_ACT_OK) is counted in the
 * ofan_stats field of index OFAN_STAT(field).  Functions below return
 * OFAN_KERNEL_PATH(field) for it: a negative value, distinct from every
 * TC action, that ofan_ingress() counts at its one exit for such packets.
 */
#define OFAN_STAT(field) (offsetof(struct ofan_stats, field) / sizeof(__u64))
#define OFAN_KERNEL_PATH(field)	(-1 - (int)OFAN_STAT(field))

/* The key of IPv4 destination @daddr in set @set: address bits or LPM;
 * -1 if none (OFAN_SET_NONE is -1 too).
 */
static __always_inline int ofan_dest_key4(const struct ofan_config *cfg,
					  __u32 set, __be32 daddr)
{
	struct ofan_lpm4_key lpm = { .prefix_len = 32, .addr = daddr };
	struct ofan_dst_keys *key;

	/* the agent precomputed the prefix mask (ofan_config_set_fast()) */
	if (likely(cfg->fast_enabled &&
		   (daddr & cfg->fast_net_mask) == cfg->fast_net))
		return (bpf_ntohl(daddr) >> (cfg->fast_shift & 31)) &
		       cfg->fast_mask;
	key = bpf_map_lookup_elem(&ofan_dst4, &lpm);
	return key ? (int)key->key[set & 1] : -1;
}

/* The key of IPv6 destination @daddr in set @set by LPM; -1 if none. */
static __always_inline int ofan_dest_key6(__u32 set,
					  const struct in6_addr *daddr)
{
	struct ofan_lpm6_key lpm = { .prefix_len = 128 };
	struct ofan_dst_keys *key;

	__builtin_memcpy(lpm.addr, daddr, 16);
	key = bpf_map_lookup_elem(&ofan_dst6, &lpm);
	return key ? (int)key->key[set & 1] : -1;
}

/* The number of set bits of @v (SWAR: no loop, no popcount insn in BPF) */
static __always_inline __u32 ofan_popcount64(__u64 v)
{
	v = v - ((v >> 1) & 0x5555555555555555ULL);
	v = (v & 0x3333333333333333ULL) + ((v >> 2) & 0x3333333333333333ULL);
	v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (v * 0x0101010101010101ULL) >> 56;
}

/* rps: the r-th set bit of @valid for a uniform r, or -1. */
static __always_inline int ofan_random_port(__u64 valid)
{
	__u32 n = ofan_popcount64(valid), r, i;

	if (!n)
		return -1;
	r = bpf_get_prandom_u32() % n;
#pragma clang loop unroll(disable)
	for (i = 0; i < OFAN_MAX_W; i++) {
		if (!((valid >> i) & 1))
			continue;
		if (!r)
			return i;
		r--;
	}
	return -1;
}

/* ofan, pofan: pointer @slot walks @order (its key and class) */
static __always_inline int ofan_pointer_port(const struct ofan_config *cfg,
					     __u32 slot, const __u8 *order,
					     __u64 valid)
{
	struct ofan_pointer *ptr = bpf_map_lookup_elem(&ofan_pointers, &slot);

	if (!ptr)
		return -1;
	return ofan_next_port(&ptr->counter, order, cfg->w, valid);
}

/*
 * ar, jsq: the valid uplink of least load at @now, at random among equal
 * ones (bpf_get_prandom_u32()), or -1.  The load of uplink p is its
 * phantom backlog in bytes, backlog_ns * bytes_per_ns_q32 >> 32, or for
 * ar that backlog's class of the port buffer (ofan_ar_class()).  The
 * backlogs are read without their locks: an 8-byte load is atomic, and a
 * value some nanoseconds old is what a switch's adaptive routing decides
 * on too (its occupancy samples lag).  A backlog is bounded by its port's
 * buffer_ns, which keeps the product below 2^63 even for a backlog
 * queued at an earlier load's rate.
 *
 * A global function: the verifier checks it once, for any arguments,
 * and its callers see an unknown result.  Inlined (twice, an address
 * family each), it was checked on every path that reaches it, and
 * ofan_pick_least()'s ties and result, constants on each path the
 * verifier walks, kept the paths after it apart: 2.5 times the
 * instructions of the rest of the program.  It takes no context, which
 * kernels without vmlinux BTF refuse in a global function; @cfg is
 * memory of its size, which may be NULL for the verifier.
 */
__noinline int ofan_ar_port(const struct ofan_config *cfg, __u32 set,
			    __u64 valid, __u32 quantize, __u64 now)
{
	struct ofan_ar_scratch *scratch;
	struct ofan_ar_queue *q;
	struct ofan_port *port;
	__u64 empty, backlog, bytes;
	__u32 zero = 0, p, slot, qkey;

	scratch = bpf_map_lookup_elem(&ofan_ar_scratch, &zero);
	if (!cfg || !scratch)
		return -1;
#pragma clang loop unroll(disable)
	for (p = 0; p < OFAN_MAX_W; p++) {
		if (p >= cfg->w)
			break;
		if (!((valid >> p) & 1))
			continue;
		/* keys of their own: the loop's p stays in a register,
		 * where the verifier keeps its value
		 */
		slot = ofan_port_index(set, p);
		qkey = p;
		port = bpf_map_lookup_elem(&ofan_ports, &slot);
		q = bpf_map_lookup_elem(&ofan_ar_queues, &qkey);
		/* entries below OFAN_MAX_W: never NULL (and no valid bit
		 * cleared here, which the verifier would then tell apart)
		 */
		if (!port || !q)
			return -1;
		empty = READ_ONCE(q->empty_ns);
		backlog = empty > now ? empty - now : 0;
		if (backlog > port->buffer_ns)
			backlog = port->buffer_ns;
		bytes = backlog * port->bytes_per_ns_q32 >> 32;
		scratch->load[p] = quantize ?
			ofan_ar_class(bytes, cfg->ar_buffer_bytes) : bytes;
	}
	/* w read again: the loop's exit told the verifier the w it read,
	 * and a known w would have it walk ofan_pick_least() once per w
	 */
	return ofan_pick_least(scratch->load, READ_ONCE(cfg->w), valid,
			       bpf_get_prandom_u32());
}

/*
 * ar, jsq: uplink @uplink (@port of the set in use) sends @len bytes at
 * @now: its phantom backlog grows by their transmission time at the
 * port's rate, in picoseconds with the sub-ns rest carried to the next
 * packet, as Symphony's phantom queue does (symphony.bpf.c); a packet
 * that would pass the port's buffer finds it full, as a switch would,
 * and is counted instead (the real queue under the program decides its
 * fate).  Packets to one uplink come from every CPU at once: the update
 * is a read-modify-write of two fields (end of the backlog and its
 * sub-ns rest) under a condition (an empty backlog restarts at @now, a
 * full one refuses), which no single BPF atomic performs and a cmpxchg
 * loop on one word could not keep whole, hence the entry's spin lock.
 */
static __always_inline void ofan_ar_enqueue(const struct ofan_port *port,
					    __u32 uplink, __u32 len, __u64 now)
{
	__u64 tx_ps = phantom_tx_ps(len, port->ps_per_byte_q16);
	__u64 backlog, joined;
	struct ofan_ar_queue *q;

	q = bpf_map_lookup_elem(&ofan_ar_queues, &uplink);
	if (!q)
		return;
	bpf_spin_lock(&q->lock);
	if (!phantom_join(&q->empty_ns, &q->empty_ps, tx_ps, now,
			  port->buffer_ns, &backlog, &joined))
		q->overlimits++;
	bpf_spin_unlock(&q->lock);
}

/*
 * ecmp: the uplink the kernel's FIB (and its multipath hash) chooses, or
 * OFAN_KERNEL_PATH(why).  @l3_len is the packet's IP length, which the
 * lookup checks against the route's MTU.  Fragments hash without ports, as
 * the kernel's own multipath hash does, so that every fragment of a
 * datagram takes one path and no payload bytes are read as ports.
 */
static __always_inline int ofan_fib_port(struct __sk_buff *skb,
					 const struct ofan_config *cfg,
					 __u32 set, __u32 family, void *l3,
					 __u32 l3_len)
{
	void *data_end = (void *)(long)skb->data_end;
	struct bpf_fib_lookup fib = {};
	struct ofan_port *port;
	bool has_ports = true;
	__u32 l4off, i;
	__be16 *ports;
	int ret;

	fib.ifindex = skb->ingress_ifindex;
	fib.tot_len = l3_len;
	if (family == AF_INET) {
		struct iphdr *ip4 = l3;

		fib.family = AF_INET;
		fib.l4_protocol = ip4->protocol;
		fib.tos = ip4->tos;
		fib.ipv4_src = ip4->saddr;
		fib.ipv4_dst = ip4->daddr;
		l4off = ip4->ihl * 4;
		has_ports = !(ip4->frag_off & bpf_htons(IP_MF | IP_OFFSET));
	} else {
		struct ipv6hdr *ip6 = l3;

		/* a fragment header (44) is not UDP or TCP: no ports */
		fib.family = AF_INET6;
		fib.l4_protocol = ip6->nexthdr;
		__builtin_memcpy(fib.ipv6_src, &ip6->saddr, 16);
		__builtin_memcpy(fib.ipv6_dst, &ip6->daddr, 16);
		l4off = sizeof(*ip6);
	}
	/* the ports feed the kernel's L4 multipath hash */
	ports = l3 + (l4off & 0x3c);
	if (has_ports &&
	    (fib.l4_protocol == IPPROTO_UDP || fib.l4_protocol == IPPROTO_TCP) &&
	    (void *)(ports + 2) <= data_end) {
		fib.sport = ports[0];
		fib.dport = ports[1];
	}
	ret = bpf_fib_lookup(skb, &fib, sizeof(fib), 0);
	if (ret == BPF_FIB_LKUP_RET_FRAG_NEEDED)
		return OFAN_KERNEL_PATH(too_big);
	if (ret != BPF_FIB_LKUP_RET_SUCCESS && ret != BPF_FIB_LKUP_RET_NO_NEIGH)
		return OFAN_KERNEL_PATH(fib_miss);
#pragma clang loop unroll(disable)
	for (i = 0; i < OFAN_MAX_W; i++) {
		__u32 p = ofan_port_index(set, i);

		if (i >= cfg->w)
			break;
		port = bpf_map_lookup_elem(&ofan_ports, &p);
		if (port && port->ifindex == fib.ifindex)
			return i;
	}
	return OFAN_KERNEL_PATH(fib_miss);
}

/*
 * Forward a northbound packet with destination key @key: pick its uplink
 * in the configured mode, count it, decrement its TTL or hop limit and
 * redirect it to the uplink's next hop.  @family is a constant at each
 * call site, so each address family gets its own straight-line copy;
 * @l3_len is the packet's IP length (header included).
 */
static __always_inline int ofan_forward(struct __sk_buff *skb,
					const struct ofan_config *cfg,
					__u32 set, int key, __u32 family,
					void *l3, __u32 l3_len)
{
	__u32 zero = 0, cls, slot, dest_key, ifindex, pipe_nr = 0;
	struct ofan_pipe_sets *pipe;
	struct bpf_redir_neigh nh = {};
	struct ofan_port_stats *pst;
	struct ofan_key_stats *kst;
	struct ofan_dest *dest;
	struct ofan_port *port;
	__u32 mtu_len = 0, mode = READ_ONCE(cfg->mode);
	int uplink = -1, ret;
	__u64 valid, family_ports, now = 0;
	bool phantom = false;

	if (unlikely(key < 0 || key >= OFAN_MAX_KEYS))
		return OFAN_KERNEL_PATH(unknown_dst);
	dest_key = key;
	slot = ofan_dest_index(set, dest_key);
	dest = bpf_map_lookup_elem(&ofan_dests, &slot);
	if (unlikely(!dest || !(dest->flags & OFAN_DEST_F_VALID)))
		return OFAN_KERNEL_PATH(unknown_dst);
	if (unlikely(dest->flags & OFAN_DEST_F_LOCAL))
		return OFAN_KERNEL_PATH(local);

	cls = skb->len <= cfg->ack_max_bytes ? OFAN_CLASS_ACK : OFAN_CLASS_DATA;
	/* Uplinks valid for the key, up, and with a next hop of the packet's
	 * family (the family masks hold uplinks below w only); checked
	 * before any pointer moves, so that a key left without one costs no
	 * atomics.
	 */
	family_ports = family == AF_INET ? cfg->nh4_ports : cfg->nh6_ports;
	valid = dest->valid_ports & cfg->up_ports & family_ports;
	kst = bpf_map_lookup_elem(&ofan_key_stats, &dest_key);
	if (unlikely(!valid && mode != OFAN_MODE_ECMP))
		goto no_valid_port;

	switch (mode) {
	case OFAN_MODE_POFAN:
		ifindex = skb->ingress_ifindex;
		pipe = bpf_map_lookup_elem(&ofan_pipes, &ifindex);
		if (pipe && pipe->pipe[set & 1] < OFAN_MAX_PIPES)
			pipe_nr = pipe->pipe[set & 1];
		__attribute__((fallthrough));
	case OFAN_MODE_OFAN:
		slot = (pipe_nr * OFAN_MAX_KEYS + key) * OFAN_NR_CLASSES + cls;
		uplink = ofan_pointer_port(cfg, slot, dest->order[cls], valid);
		break;
	case OFAN_MODE_RR: {
		struct ofan_pointer *rr = bpf_map_lookup_elem(&ofan_rr, &zero);

		/* pointer id 0: its order pi(i) = xor_w(P[i], 0) + 0 is P */
		if (rr)
			uplink = ofan_next_port(&rr->counter, cfg->perm, cfg->w,
						valid);
		break;
	}
	case OFAN_MODE_RPS:
		uplink = ofan_random_port(valid);
		break;
	case OFAN_MODE_ECMP:
		uplink = ofan_fib_port(skb, cfg, set, family, l3, l3_len);
		if (uplink < 0)
			return uplink;
		/* the route's uplink without a next hop of this family */
		if (!((family_ports >> (uplink & (OFAN_MAX_W - 1))) & 1))
			uplink = -1;
		break;
	case OFAN_MODE_AR:
	case OFAN_MODE_JSQ:
		now = bpf_ktime_get_ns();
		uplink = ofan_ar_port(cfg, set, valid, mode == OFAN_MODE_AR,
				      now);
		phantom = true;
		break;
	default:
		return OFAN_KERNEL_PATH(unconfigured);
	}
	if (unlikely(uplink < 0 || uplink >= OFAN_MAX_W))
		goto no_valid_port;

	slot = ofan_port_index(set, uplink);
	port = bpf_map_lookup_elem(&ofan_ports, &slot);
	if (unlikely(!port || !port->ifindex))
		return OFAN_KERNEL_PATH(uplink_missing);
	/* Above the uplink's MTU (each GSO segment for a GSO packet): the
	 * kernel path fragments or answers with ICMP, where a redirect would
	 * drop it.  The helper compares the frame (skb->len: mtu_len 0, as
	 * BPF_MTU_CHK_SEGS requires) with the MTU plus the uplink's link
	 * header, both Ethernet here.  An error: the interface is gone.
	 */
	ret = bpf_check_mtu(skb, port->ifindex, &mtu_len, 0, BPF_MTU_CHK_SEGS);
	if (unlikely(ret))
		return ret < 0 ? OFAN_KERNEL_PATH(uplink_missing) :
				 OFAN_KERNEL_PATH(too_big);
	/* sent: ar and jsq count its bytes in the uplink's backlog (a flag,
	 * not the mode again: the verifier knows the mode on each path from
	 * the switch, and a test of it here would have it check what
	 * follows once per mode)
	 */
	if (phantom)
		ofan_ar_enqueue(port, uplink, skb->len, now);
	/* Forwarded packets are counted per uplink and per key only. */
	slot = uplink;
	pst = bpf_map_lookup_elem(&ofan_port_stats, &slot);
	if (pst) {
		pst->packets++;
		pst->bytes += skb->len;
	}
	if (kst && cls < OFAN_NR_CLASSES)
		kst->packets[cls]++;

	/* @l3 was bounds-checked by the caller (the verifier knows it) */
	if (family == AF_INET) {
		struct iphdr *ip4 = l3;
		__u32 check;

		/* RFC 1624 incremental update, as ip_decrease_ttl() does */
		check = ip4->check;
		check += bpf_htons(0x0100);
		ip4->check = (__u16)(check + (check >= 0xFFFF));
		ip4->ttl--;
	} else {
		struct ipv6hdr *ip6 = l3;

		ip6->hop_limit--;
	}
	/* the uplink's next hop of the packet's family: in the valid set
	 * only if it has one (ecmp: the FIB's route has one)
	 */
	nh.nh_family = family;
	if (family == AF_INET)
		__builtin_memcpy(&nh.ipv4_nh, port->nh4, 4);
	else
		__builtin_memcpy(nh.ipv6_nh, port->nh6, 16);
	return bpf_redirect_neigh(port->ifindex, &nh, sizeof(nh), 0);

no_valid_port:
	if (kst)
		kst->no_valid_port++;
	return OFAN_KERNEL_PATH(no_valid_port);
}

/* Parse, classify and forward: a TC action, or OFAN_KERNEL_PATH(why). */
static __always_inline int ofan_handle(struct __sk_buff *skb)
{
	void *data_end = (void *)(long)skb->data_end;
	void *data = (void *)(long)skb->data;
	struct ethhdr *eth = data;
	struct ofan_active *active;
	struct ofan_config *cfg;
	__u32 zero = 0, set;

	/* one read of the set in use: every entry below comes from it */
	active = bpf_map_lookup_elem(&ofan_active, &zero);
	if (unlikely(!active))
		return OFAN_KERNEL_PATH(unconfigured);
	set = ofan_config_index(READ_ONCE(active->set));
	cfg = bpf_map_lookup_elem(&ofan_config, &set);
	/* w - 1 < OFAN_MAX_W: w in 1..OFAN_MAX_W, in one compare */
	if (unlikely(!cfg || cfg->layout_version != OFAN_LAYOUT_VERSION ||
		     cfg->w - 1 >= OFAN_MAX_W))
		return OFAN_KERNEL_PATH(unconfigured);
	/* frames for other MACs, multicast and broadcast: not ours to route */
	if (unlikely(skb->pkt_type != PACKET_HOST))
		return OFAN_KERNEL_PATH(not_host);
	if (unlikely((void *)(eth + 1) > data_end))
		return OFAN_KERNEL_PATH(malformed);

	if (likely(eth->h_proto == bpf_htons(ETH_P_IP))) {
		struct iphdr *ip4 = (void *)(eth + 1);
		__u8 version_ihl;

		if (unlikely((void *)(ip4 + 1) > data_end))
			return OFAN_KERNEL_PATH(malformed);
		/* version 4 and ihl >= 5 in one compare of their byte */
		version_ihl = *(__u8 *)ip4;
		if (unlikely((__u8)(version_ihl - 0x45) > 0x0a ||
			     bpf_ntohs(ip4->tot_len) < (version_ihl & 0x0f) * 4))
			return OFAN_KERNEL_PATH(malformed);
		/* the kernel sends ICMP time exceeded */
		if (unlikely(ip4->ttl <= 1))
			return OFAN_KERNEL_PATH(ttl_expired);
		return ofan_forward(skb, cfg, set,
				    ofan_dest_key4(cfg, set, ip4->daddr), AF_INET,
				    ip4, bpf_ntohs(ip4->tot_len));
	}
	if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = (void *)(eth + 1);

		if ((void *)(ip6 + 1) > data_end || ip6->version != 6)
			return OFAN_KERNEL_PATH(malformed);
		if (ip6->hop_limit <= 1)
			return OFAN_KERNEL_PATH(ttl_expired);
		return ofan_forward(skb, cfg, set, ofan_dest_key6(set, &ip6->daddr),
				    AF_INET6, ip6,
				    sizeof(*ip6) + bpf_ntohs(ip6->payload_len));
	}
	return OFAN_KERNEL_PATH(not_ip);
}

/* The program's body: also wrapped by the benchmark (ofan_bench.bpf.c). */
static __always_inline int ofan_run(struct __sk_buff *skb)
{
	int ret = ofan_handle(skb);
	__u32 zero = 0, stat;
	__u64 *st;

	if (likely(ret >= 0))
		return ret;
	/* one exit counts every packet left to the kernel's forwarding */
	stat = -1 - ret;
	/* bound the index itself, not ret: clang would fold the compare
	 * into one on ret that the verifier cannot carry over to stat
	 */
	asm volatile("" : "+r"(stat));
	st = bpf_map_lookup_elem(&ofan_stats, &zero);
	if (st && stat < sizeof(struct ofan_stats) / sizeof(__u64))
		st[stat]++;
	return TC_ACT_OK;
}

SEC("tc")
int ofan_ingress(struct __sk_buff *skb)
{
	return ofan_run(skb);
}

char LICENSE[] SEC("license") = "GPL";
