/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ofan_maps.h - value layouts of the Ofan maps, shared by the tc-BPF
 * program (bpf/ofan.bpf.c), the agent that creates, pins and fills them,
 * and the tests.  All maps are pinned under one bpffs folder by the agent
 * (default /sys/fs/bpf/ofan).
 */
#ifndef _OFAN_MAPS_H
#define _OFAN_MAPS_H

#ifndef __VMLINUX_H__	/* BPF programs take the types from vmlinux.h */
#include <linux/types.h>
#include <linux/bpf.h>		/* struct bpf_spin_lock */
#endif

#include "ofan_core.h"

/* Bumped whenever a layout below changes. */
#define OFAN_LAYOUT_VERSION	9

#define OFAN_MAX_KEYS		4096	/* destination keys (edge switches, pods) */
#define OFAN_MAX_PIPES		16	/* pOfan pipes */
#define OFAN_NR_CLASSES		2	/* size classes: data, ACK */
#define OFAN_MAX_PREFIXES	16384	/* LPM entries per address family */
#define OFAN_MAX_PIPE_PORTS	256	/* ingress interfaces mapped to pipes */

/*
 * A load publishes a whole configuration at once: ofan_config, ofan_ports
 * and ofan_dests hold OFAN_NR_SETS sets, the values of ofan_dst4,
 * ofan_dst6 and ofan_pipes one entry per set, and ofan_active names the
 * set in use.  A load writes the other set whole, then flips ofan_active with one
 * aligned 32-bit store; a packet reads ofan_active once and takes every
 * entry from that set, so it never mixes two loads (a w, its ports and the
 * port orders written for it).  The set a load leaves was in use until the
 * flip; the next load, milliseconds later at the least, rewrites it.  The
 * agent's other writers (symofan ofan port, the daemon) change single
 * fields of the active set in place.  A prefix or downlink the new set
 * drops keeps its entry, OFAN_SET_NONE in the new set, until the flip.
 */
#define OFAN_NR_SETS		2
#define OFAN_SET_NONE		0xffffffffU	/* no key, no pipe in that set */

/* ofan_active: array map with one entry (key 0). */
struct ofan_active {
	__u32	set;			/* 0 or 1: the set in use */
};

/* The keys of set @set's config, uplink @port and destination @key. */
static inline __u32 ofan_config_index(__u32 set)
{
	return set & 1;
}

static inline __u32 ofan_port_index(__u32 set, __u32 port)
{
	return (set & 1) * OFAN_MAX_W + (port & (OFAN_MAX_W - 1));
}

static inline __u32 ofan_dest_index(__u32 set, __u32 key)
{
	return (set & 1) * OFAN_MAX_KEYS + (key & (OFAN_MAX_KEYS - 1));
}

enum ofan_mode {
	OFAN_MODE_OFAN,		/* pointer per (key, class) */
	OFAN_MODE_POFAN,	/* pointer per (pipe, key, class) */
	OFAN_MODE_RR,		/* one switch-wide pointer (Simple RR) */
	OFAN_MODE_RPS,		/* uniform random valid uplink per packet */
	OFAN_MODE_ECMP,		/* the kernel's multipath hash (FIB lookup) */
	OFAN_MODE_AR,		/* adaptive routing: least phantom backlog
				 * class (ofan_ar_class()), random among ties
				 */
	OFAN_MODE_JSQ,		/* the same on the backlog's bytes, not
				 * quantized (join the shortest queue)
				 */
	__OFAN_MODE_MAX
};

enum ofan_class {
	OFAN_CLASS_DATA,
	OFAN_CLASS_ACK,
};

/* ofan_config: array map, an entry per set (ofan_config_index()). */
struct ofan_config {
	__u32	layout_version;		/* OFAN_LAYOUT_VERSION */
	__u32	mode;			/* enum ofan_mode */
	__u32	w;			/* uplinks, 1..OFAN_MAX_W */
	__u32	nr_keys;		/* N_d: destination keys in use */
	__u32	ack_max_bytes;		/* packets up to this length: ACK class */
	__u32	nr_pipes;		/* pOfan pipes, 1..OFAN_MAX_PIPES */
	__u64	up_ports;		/* bit p: uplink p is up, its link and
					 * for the operator: the datapath's
					 * view
					 */
	/* bit p (p < w only: the datapath takes these as its w mask too):
	 * uplink p has an IPv4 / an IPv6 next hop
	 */
	__u64	nh4_ports;
	__u64	nh6_ports;
	/* Agent only, under the pin-folder lock (the datapath ignores
	 * them): "symofan ofan port P down" sets bit P of admin_down_ports,
	 * which every writer of up_ports leaves out; each load bumps
	 * generation, so that a running daemon notices the reload.
	 */
	__u64	admin_down_ports;
	__u64	generation;
	/* Fast path: key = (dst >> shift) & mask for destinations inside
	 * fast_net/fast_prefix_len (IPv4 only), instead of the LPM lookup;
	 * set by ofan_config_set_fast().
	 */
	__u32	fast_enabled;
	__u32	fast_net;		/* network byte order */
	__u32	fast_net_mask;		/* of fast_prefix_len, network order */
	__u32	fast_prefix_len;
	__u32	fast_shift;
	__u32	fast_mask;
	__u32	fast_local_key;		/* key of destinations below us */
	__u8	perm[OFAN_MAX_W];	/* base permutation P */
	/* ar: the port buffer whose 5, 10 and 20% are the classes'
	 * bounds, and the phantom backlog's capacity (ofan_port.buffer_ns)
	 */
	__u64	ar_buffer_bytes;
};

/*
 * Turn on the fast path of @cfg: destinations inside @net_be (network
 * byte order) / @prefix_len (0..32) get key (dst >> @shift) & @mask.
 */
static inline void ofan_config_set_fast(struct ofan_config *cfg, __u32 net_be,
					__u32 prefix_len, __u32 shift,
					__u32 mask)
{
	/* 64 bits wide, so that a 0 prefix shifts all 32 ones out */
	__u32 host_mask = ~0ULL << (32 - (prefix_len > 32 ? 32 : prefix_len));

	cfg->fast_enabled = 1;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	cfg->fast_net_mask = __builtin_bswap32(host_mask);
#else
	cfg->fast_net_mask = host_mask;
#endif
	cfg->fast_net = net_be & cfg->fast_net_mask;
	cfg->fast_prefix_len = prefix_len;
	cfg->fast_shift = shift;
	cfg->fast_mask = mask;
}

/*
 * ofan_ports: array map, per set uplinks 0..w-1 (ofan_port_index()).  An uplink has a next
 * hop per address family it carries, as a router's port may have both;
 * ofan_config.nh4_ports and nh6_ports say which uplinks have which, and a
 * packet only takes an uplink with a next hop of its own family.
 */
#define OFAN_PORT_F_NH4		0x1	/* nh4 is set */
#define OFAN_PORT_F_NH6		0x2	/* nh6 is set */

struct ofan_port {
	__u32	ifindex;
	__u32	flags;			/* OFAN_PORT_F_* */
	__u8	nh4[4];			/* IPv4 next hop, network byte order */
	__u8	nh6[16];		/* IPv6 next hop, network byte order */
	__u32	pad;
	/* ar, jsq: the rate the uplink sends at (its HTB or TBF rate), 0
	 * if not given (its phantom backlog then stays empty), and what the
	 * agent derives from it with ofan_port_set_rate(): the fixed-point
	 * forms the datapath computes with, so that it needs no division
	 */
	__u64	rate_bps;
	__u64	ps_per_byte_q16;	/* picoseconds per byte, Q16 */
	__u64	bytes_per_ns_q32;	/* bytes per nanosecond, Q32 */
	__u64	buffer_ns;		/* ar_buffer_bytes drains in this */
};

/* The lowest and highest uplink rates (bit/s), and the largest port
 * buffer (bytes): the fixed-point forms above then keep 4 significant
 * digits at the least, and backlog_ns * bytes_per_ns_q32 (at most
 * buffer_bytes * 2^32) stays below 2^63.
 */
#define OFAN_AR_RATE_MIN	10000ULL		/* 10kbit */
#define OFAN_AR_RATE_MAX	1600000000000ULL	/* 1600gbit */
#define OFAN_AR_BUFFER_MIN	1000ULL
#define OFAN_AR_BUFFER_MAX	(1ULL << 30)		/* 1 GiB */
#define OFAN_AR_BUFFER_DEFAULT	800000ULL	/* the Ofan paper's 800 KB */

/*
 * Fill @port's rate fields for @rate_bps (0: none) and a port buffer of
 * @buffer_bytes; both within the bounds above (the agent checks them).
 * ps_per_byte_q16 = 8e12 * 2^16 / rate (655,360 at 800 Gbit/s: a byte
 * drains in 10 ps), bytes_per_ns_q32 = rate * 2^32 / 8e9 (4.3e11 at
 * 800 Gbit/s: 100 bytes a ns).
 */
static inline void ofan_port_set_rate(struct ofan_port *port, __u64 rate_bps,
				      __u64 buffer_bytes)
{
	port->rate_bps = rate_bps;
	if (!rate_bps) {
		port->ps_per_byte_q16 = 0;
		port->bytes_per_ns_q32 = 0;
		port->buffer_ns = 0;
		return;
	}
	port->ps_per_byte_q16 = (8000000000000ULL << 16) / rate_bps;
	/* rate * 2^32 / 8e9 = rate * 2^23 / 15625000 (8e9 = 2^9 * 15625000),
	 * rate * 2^23 below 2^64 up to OFAN_AR_RATE_MAX
	 */
	port->bytes_per_ns_q32 = (rate_bps << 23) / 15625000;
	/* buffer * ps_per_byte / 1000, in two products: the one of the
	 * whole Q16 number passes 2^64 at low rates
	 */
	port->buffer_ns = (buffer_bytes * (port->ps_per_byte_q16 >> 16) +
			   ((buffer_bytes * (port->ps_per_byte_q16 & 0xffff)) >>
			    16)) / 1000;
}

/*
 * ofan_ar_queues: array map, an entry per uplink (0..OFAN_MAX_W - 1, of
 * whichever set is in use): the phantom backlog of ar and jsq.  A tc
 * program on a downlink's ingress cannot see the uplink's egress queue,
 * so each uplink keeps a virtual one, as Symphony's tc-BPF program does
 * (symphony_bpf.h): the bytes ar and jsq send to it, draining at its
 * rate_bps, held as the time it would be empty.  Runtime state, not
 * configuration: one copy, not one per set; a load empties the entries
 * of uplinks whose interface or rate it changes.
 */
struct ofan_ar_queue {
	struct bpf_spin_lock	lock;	/* guards the fields below */
	__u32	empty_ps;		/* and empty_ps picoseconds (0..999)
					 * after empty_ns: the sub-ns rest of
					 * the packets' transmission times
					 */
	__u64	empty_ns;		/* empty from then on, CLOCK_MONOTONIC */
	__u64	overlimits;		/* packets that found the phantom
					 * backlog full (ar_buffer_bytes): a
					 * switch would have dropped them; they
					 * are sent, not counted in it
					 */
};

/* ofan_ar_scratch: per-CPU array, one entry: ofan_pick_least()'s loads,
 * too large for the 512-byte BPF stack.  A program runs on one CPU to
 * its end; on PREEMPT_RT another task's run may preempt it there and
 * write the loads meanwhile, which costs that packet the best choice,
 * never a valid one (ofan_pick_least() takes the valid mask apart).
 */
struct ofan_ar_scratch {
	__u64	load[OFAN_MAX_W];
};

/* ofan_dests: array map, per set the destination keys (ofan_dest_index()). */
#define OFAN_DEST_F_LOCAL	0x1	/* below this switch: kernel forwards */
#define OFAN_DEST_F_VALID	0x2	/* entry configured */

struct ofan_dest {
	__u64	valid_ports;		/* bit p: uplink p leads there */
	__u32	flags;			/* OFAN_DEST_F_* */
	__u32	level;			/* 0: edge switch key, 1: pod key */
	/* order[t][i]: the uplink at position i < w of the pointers of this
	 * key and size class t: pi(i) of eq. (18) for id = key + N_d * t,
	 * written by the agent (ofan_pointer_order()); every pipe's pointer
	 * of (key, t) walks the same order.
	 */
	__u8	order[OFAN_NR_CLASSES][OFAN_MAX_W];
};

/* Fill @dest->order for destination @key of @nr_keys, base permutation
 * @perm of @w uplinks: the orders of its data and ACK pointers.
 */
static inline void ofan_dest_fill_orders(struct ofan_dest *dest,
					 const __u8 *perm, __u32 w, __u32 key,
					 __u32 nr_keys)
{
	__u32 cls;

	for (cls = 0; cls < OFAN_NR_CLASSES; cls++)
		ofan_pointer_order(dest->order[cls], perm, w,
				   ofan_pointer_id(key, nr_keys, cls));
}

/*
 * ofan_dst4 / ofan_dst6: LPM tries, prefix -> the destination key of each
 * set (OFAN_SET_NONE: none in that set, the kernel path).
 */
struct ofan_dst_keys {
	__u32	key[OFAN_NR_SETS];
};

struct ofan_lpm4_key {
	__u32	prefix_len;
	__u32	addr;			/* network byte order */
};

struct ofan_lpm6_key {
	__u32	prefix_len;
	__u8	addr[16];
};

/* ofan_pointers: array map indexed by
 *	((pipe * OFAN_MAX_KEYS) + key) * OFAN_NR_CLASSES + class;
 * pipe 0 serves ofan mode.  ofan_rr: one entry, the Simple RR pointer.
 */
struct ofan_pointer {
	__u64	counter;		/* value mod w is the position */
};

/*
 * ofan_pipes: hash map, ingress ifindex (__u32) -> the pOfan pipe of each
 * set (OFAN_SET_NONE, or absent: pipe 0).
 */
struct ofan_pipe_sets {
	__u32	pipe[OFAN_NR_SETS];
};

/* ofan_port_stats: per-CPU array indexed by uplink. */
struct ofan_port_stats {
	__u64	packets;
	__u64	bytes;
};

/* ofan_key_stats: per-CPU array indexed by key: packets forwarded per
 * class, and packets of the key that no uplink could take (none of its
 * ports valid and up): those take the kernel path, counted here and in
 * ofan_stats.no_valid_port.
 */
struct ofan_key_stats {
	__u64	packets[OFAN_NR_CLASSES];
	__u64	no_valid_port;
};

/* ofan_stats: per-CPU array with one entry: why packets took the kernel
 * path.  Forwarded packets are counted in ofan_port_stats and
 * ofan_key_stats only, to keep the forwarding path short.
 */
struct ofan_stats {
	__u64	local;			/* destination below: kernel path */
	__u64	unknown_dst;		/* no key for the destination */
	__u64	no_valid_port;		/* key without a valid uplink that is up */
	__u64	ttl_expired;		/* TTL/hop limit <= 1: kernel path */
	__u64	malformed;		/* truncated or bad IP header */
	__u64	not_ip;			/* neither IPv4 nor IPv6 */
	__u64	fib_miss;		/* ecmp: no route, kernel path */
	__u64	unconfigured;		/* no or bad configuration */
	__u64	not_host;		/* frame not for this host's MAC: other
					 * host, multicast or broadcast
					 */
	__u64	too_big;		/* above the chosen uplink's MTU: the
					 * kernel sends ICMP frag-needed or
					 * packet-too-big
					 */
	__u64	uplink_missing;		/* the chosen uplink's interface is gone */
};

#endif /* _OFAN_MAPS_H */
