// SPDX-License-Identifier: GPL-2.0
/*
 * symphony.bpf.c - Symphony without the module: a tc-BPF program on the
 * clsact egress of a switch port, for kernels that cannot load
 * sch_symphony (lockdown, managed nodes, kernels without modules).
 *
 * Per packet, as the qdisc does at dequeue:
 *  - symphony_parse() (include/symphony/symphony_core.h, the module's own
 *    code) finds job, step, PSN and end of message in a RoCEv2 or UEC
 *    packet;
 *  - RED on the port's phantom queue (symphony_bpf.h): the backlog the
 *    port's rate has not drained yet, kmin/kmax/pmax as the qdisc's;
 *  - for a collective packet of a job the jobs map holds,
 *    symphony_job_update() (Algorithm 1) under the job's lock gives the
 *    probability to mark an outpacing packet;
 *  - either coin marks: bpf_skb_ecn_set_ce() on an ECN-capable packet;
 *    a non-ECT packet RED would mark is dropped or passed (nonect).
 * Lagging packets get no Symphony mark; packets that are not collective
 * or are malformed see RED only.  A UDP GSO packet runs Algorithm 1 for
 * each segment's own BTH (or PDS/SES), as the qdisc does, and carries
 * one mark for all its segments.  Counters per port and CPU.
 *
 * symofan creates and pins the maps, reuses the registry's jobs map,
 * writes each port's parameters and attaches the program ("symofan
 * symphony attach").
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "symphony/symphony_core.h"
#include "symphony/symphony_bpf.h"
#include "symphony/symphony_params.h"
#include "phantom/phantom_queue.h"
/* the registry's jobs map and job locks (symofan job init): symofan sets
 * the jobs map's max_entries to its slots and hands both in before load
 */
#include "symphony_jobs_map.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SYMPHONY_BPF_MAX_PORTS);
	__type(key, __u32);
	__type(value, struct symphony_bpf_port);
} symphony_ports SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SYMPHONY_BPF_MAX_PORTS);
	__type(key, __u32);
	__type(value, struct symphony_bpf_stats);
} symphony_port_stats SEC(".maps");

/* Which network namespace the ports' ifindexes are of (symofan only). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct symphony_bpf_meta);
} symphony_meta SEC(".maps");

/*
 * The copy of a packet's headers the parser reads, per CPU (too large for
 * the stack).  The parser reads at most SYMPHONY_PARSE_MAX_BYTES, never
 * past what was copied, but the verifier knows a header offset only
 * below 256 (SYMPHONY_HDR_OFF) and then sees the UDP, BTH or PDS/SES
 * header read past that: the buffer is long enough for those reads.
 * Bytes past the copy are an earlier packet's, and never looked at.
 */
struct header_copy {
	__u8	bytes[256 + 8 + SYMPHONY_PDS_LEN + SYMPHONY_SES_MIN_LEN];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct header_copy);
} header_copies SEC(".maps");

/*
 * Copy @len (2..SYMPHONY_PARSE_MAX_BYTES) bytes from the network header.
 * The length is bounded again where the helper takes it: a compiler's
 * 32-bit spill in between loses the bound for older verifiers (6.1), and
 * the asm keeps the compiler from folding the no-op away.
 */
static __always_inline int load_headers(struct __sk_buff *skb,
					struct header_copy *copy, __u32 len)
{
	__u64 n = len;

	asm volatile("" : "+r"(n));
	n = ((n - 1) & 0xff) + 1;	/* 1..256, within the copy */
	return bpf_skb_load_bytes(skb, ETH_HLEN, copy->bytes, n);
}

/* The IP header's ECN field, from the copy of the network header. */
static __always_inline __u8 ip_ecn(const __u8 *nh, bool ipv6)
{
	return ipv6 ? (nh[1] >> 4) & 3 : nh[1] & 3;
}

/* The phantom queue at @now: RED's probability for a packet arriving
 * now, then the packet joins the queue (if it fits).  Returns the
 * backlog it found, in ns of the port's rate; *@joined_ns: the time the
 * packet added to the queue (0: it did not fit).
 */
static __always_inline __u32
phantom_enqueue(struct symphony_bpf_port *port, __u32 len, __u64 now,
		__u32 *red_prob, bool *overlimit, __u64 *joined_ns)
{
	__u64 tx_ps = phantom_tx_ps(len, port->cfg.ps_per_byte_q16);
	__u32 kmin = port->cfg.kmin_ns, kmax = port->cfg.kmax_ns;
	__u32 pmax = port->cfg.pmax_q32, limit = port->cfg.limit_ns;
	__u64 backlog;

	bpf_spin_lock(&port->lock);
	if (!phantom_join(&port->empty_ns, &port->empty_ps, tx_ps, now, limit,
			  &backlog, joined_ns))
		*overlimit = true;
	bpf_spin_unlock(&port->lock);

	if (backlog > limit)
		backlog = limit;
	*red_prob = kmin <= kmax ?
		    symphony_red_prob_q32(kmin, kmax, pmax, (__u32)backlog) : 0;
	return (__u32)backlog;
}

/* Undo phantom_enqueue() for a packet that is dropped after all: the
 * real queue never sees it.
 */
static __always_inline void phantom_unqueue(struct symphony_bpf_port *port,
					    __u64 joined_ns, __u64 now)
{
	bpf_spin_lock(&port->lock);
	if (port->empty_ns > now + joined_ns)
		port->empty_ns -= joined_ns;
	else if (port->empty_ns > now)
		port->empty_ns = now;
	bpf_spin_unlock(&port->lock);
}

/*
 * Algorithm 1 for @pkt under its job's lock, and the job's accounting
 * with the marks the packet leaves with (@markable: ECN-capable, its IP
 * header where CE can be set; @red_mark: RED marks it), as the qdisc
 * counts them.  Returns whether Symphony marks the packet (never unless
 * @may_mark: RED-only marking, or a backlog below qmin); *known: the job
 * has a slot.
 */
static __always_inline bool
job_mark(const struct symphony_bpf_cfg *cfg, const struct symphony_pkt *pkt,
	 __u32 len, __u32 segs, __u64 now, bool may_mark, bool red_mark,
	 bool markable, __u32 coin, bool *outpacing, bool *known)
{
	struct symphony_bpf_job_lock *lk;
	struct symphony_job *job;
	__u32 id = pkt->job, slot = pkt->job & (SYMPHONY_BPF_JOB_LOCKS - 1);
	bool mark = false;
	__u32 prob;

	if (id >= cfg->nr_jobs)
		return false;
	job = bpf_map_lookup_elem(&symphony_jobs, &id);
	lk = bpf_map_lookup_elem(&symphony_job_locks, &slot);
	if (!job || !lk)
		return false;
	*known = true;
	bpf_spin_lock(&lk->lock);
	prob = symphony_job_update(job, pkt, &cfg->params, now, segs, outpacing);
	if (may_mark && prob)
		mark = symphony_coin(prob, coin);
	symphony_job_count(job, segs, len, *outpacing, markable, red_mark, mark);
	bpf_spin_unlock(&lk->lock);
	return mark;
}

/* symphony_parse_generic()'s arguments past the bytes */
struct parse_args {
	struct symphony_parse_cfg cfg;
	__u32	avail;
	__u32	l3_len;
	bool	ipv6;
};

/*
 * symphony_parse_generic() on a header copy: its one call site, so that
 * the parser is compiled once (BPF calls take five arguments; it has six)
 * for the packet's own headers and for a GSO packet's later segments.
 */
static __noinline enum symphony_parse_result
parse_copy(const struct header_copy *copy, const struct parse_args *args,
	   struct symphony_pkt *pkt)
{
	return symphony_parse_generic(copy->bytes, args->avail, args->l3_len,
				      args->ipv6, &args->cfg, pkt);
}

/* The IPv4 RoCEv2 fast path's headers: IPv4 without options, UDP, BTH */
#define FAST_PATH_BYTES		(20 + 8 + SYMPHONY_BTH_LEN)

/*
 * Classify the packet.  The fast path reads an IPv4 RoCEv2 packet's
 * headers where they are, when the linear head holds them (any packet
 * from a NIC or a socket does); the rest is copied first for the
 * generic parser.  *ect: the IP header's ECN field is not Not-ECT.
 */
static __always_inline enum symphony_parse_result
parse_packet(struct __sk_buff *skb, const struct symphony_bpf_cfg *cfg,
	     __u32 l3_len, bool ipv6, struct symphony_pkt *pkt, bool *ect)
{
	struct symphony_parse_cfg parse_cfg = {
		.job_field	= cfg->job_field,
		.step_field	= cfg->step_field,
	};
	void *data_end = (void *)(long)skb->data_end;
	const __u8 *nh = (void *)(long)skb->data + ETH_HLEN;
	enum symphony_parse_result res;
	struct header_copy *copy;
	__u32 avail, zero = 0;
	bool in_place;

	in_place = !ipv6 && (void *)(nh + FAST_PATH_BYTES) <= data_end;
	if (in_place && symphony_parse_rocev2_ipv4(nh, FAST_PATH_BYTES, l3_len,
						   &parse_cfg, pkt)) {
		*ect = pkt->ecn != 0;
		return symphony_pkt_result(pkt);
	}
	copy = bpf_map_lookup_elem(&header_copies, &zero);
	avail = l3_len < SYMPHONY_PARSE_MAX_BYTES ? l3_len :
		SYMPHONY_PARSE_MAX_BYTES;
	if (!copy || avail < 2 || load_headers(skb, copy, avail))
		return SYMPHONY_PARSE_OTHER;
	/* symphony_parse() on the copy; the fast path once only */
	if (!in_place && !ipv6 &&
	    symphony_parse_rocev2_ipv4(copy->bytes, avail, l3_len, &parse_cfg, pkt))
		res = symphony_pkt_result(pkt);
	else
		res = parse_copy(copy, &(struct parse_args) {
					.cfg = parse_cfg, .avail = avail,
					.l3_len = l3_len, .ipv6 = ipv6 }, pkt);
	*ect = ip_ecn(copy->bytes, ipv6) != 0;
	return res;
}

/*
 * A UDP GSO packet's segments after the first, as the qdisc reads them
 * (symphony_step_decision_gso()): each segment's own BTH (or PDS/SES)
 * runs Algorithm 1, so that a LAST in a later segment is seen.  The
 * segments share the packet's IP header, so one CE (RED's, or any
 * segment's Symphony toss) marks them all.
 *
 * The program reads the segments' first bytes into a per-CPU gso_walk
 * (gso_read_segments()), then a global function walks them
 * (gso_walk_segments()): the verifier checks a global function once, for
 * any arguments, where a static one is checked again for each state of
 * its caller; and a global function that took the packet would need
 * vmlinux BTF to know it for the context, which kernels built without
 * BTF lack.
 */
#define GSO_MAX_SEGS		128	/* UDP_MAX_SEGMENTS since 6.x */
#define GSO_HDR_MAX		128	/* network and UDP headers, bytes */
#define GSO_SEGMENT_BYTES	64	/* a BTH, or the PDS and SES headers */

struct gso_walk {
	struct symphony_bpf_cfg cfg;	/* the port's */
	__u64	now;
	__u32	l3_len;		/* the whole packet from the network header */
	__u32	hdr_len;	/* its network and UDP headers, bytes */
	__u32	seg_size;	/* payload bytes of a segment (gso_size) */
	__u32	seg_len;	/* a segment's share of the packet, bytes */
	__u32	nr_segs;	/* segments after the first read into seg[] */
	__u32	outpacing;	/* of those, the segments whose step ran ahead */
	__u32	unknown;	/* ... and those of no job, or not collective */
	bool	ipv6, may_mark, red_mark, markable;
	bool	mark;		/* a segment's Symphony toss marks the packet */
	/* the bytes, in words so that they copy a word at a time */
	__u64	hdr[GSO_HDR_MAX / 8];
	__u64	seg[GSO_MAX_SEGS][GSO_SEGMENT_BYTES / 8];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct gso_walk);
} gso_walks SEC(".maps");

/*
 * Where the payload of segment @i + 1 starts (*@pay_off, from the
 * network header) and how much of it is read: 0 past the packet's end.
 */
static __always_inline __u32 gso_payload(const struct gso_walk *w, __u32 i,
					 __u32 *pay_off)
{
	__u32 off = w->hdr_len + (i + 1) * w->seg_size, n;

	*pay_off = off;
	if (off >= w->l3_len)
		return 0;
	n = w->l3_len - off;
	if (n > w->seg_size)
		n = w->seg_size;
	return n < GSO_SEGMENT_BYTES ? n : GSO_SEGMENT_BYTES;
}

struct gso_read {
	struct __sk_buff	*skb;
	struct gso_walk		*w;
};

/* bpf_loop()'s callback: the first bytes of segment @i + 1 into seg[i] */
static long gso_read_segment(__u32 i, void *data)
{
	struct gso_read *rd = data;
	struct gso_walk *w = rd->w;
	__u32 pay_off;
	__u64 n = gso_payload(w, i, &pay_off);

	if (!n || i >= GSO_MAX_SEGS)
		return 1;
	asm volatile("" : "+r"(n));
	n = ((n - 1) & (GSO_SEGMENT_BYTES - 1)) + 1;
	if (bpf_skb_load_bytes(rd->skb, ETH_HLEN + pay_off,
			       w->seg[i & (GSO_MAX_SEGS - 1)], n))
		return 1;
	w->nr_segs = i + 1;
	return 0;
}

/*
 * Read the network and UDP headers (@hdr_len bytes) of the GSO packet
 * @skb and the first bytes of its segments after the first into @w;
 * w->nr_segs tells how many segments were read.
 */
static __always_inline void gso_read_segments(struct __sk_buff *skb,
					      struct gso_walk *w, __u32 hdr_len)
{
	struct gso_read rd = { .skb = skb, .w = w };
	__u64 h = hdr_len;

	w->nr_segs = 0;
	asm volatile("" : "+r"(h));
	h &= GSO_HDR_MAX - 1;
	if (h < 8 || bpf_skb_load_bytes(skb, ETH_HLEN, w->hdr, h))
		return;
	bpf_loop(skb->gso_segs - 1, gso_read_segment, &rd, 0);
}

/* bpf_loop()'s callback: Algorithm 1 for segment @i + 1 of @data's walk */
static long gso_segment(__u32 i, void *data)
{
	struct gso_walk *w = *(struct gso_walk **)data;
	struct parse_args args = {
		.cfg = { .job_field	= w->cfg.job_field,
			 .step_field	= w->cfg.step_field },
		.l3_len = w->l3_len, .ipv6 = w->ipv6,
	};
	struct symphony_pkt pkt = {};
	struct header_copy *copy;
	__u32 zero = 0, pay_off, pay_len, hdr_len, coin = 0;
	bool outpacing = false, known = false;

	copy = bpf_map_lookup_elem(&header_copies, &zero);
	pay_len = gso_payload(w, i, &pay_off);
	if (!copy || !pay_len || i >= GSO_MAX_SEGS) {
		w->unknown++;
		return 0;
	}
	/* the segment's headers as the wire will carry them */
	hdr_len = w->hdr_len & (GSO_HDR_MAX - 1);
	__builtin_memcpy(copy->bytes, w->hdr, GSO_HDR_MAX);
	__builtin_memcpy(copy->bytes + hdr_len, w->seg[i & (GSO_MAX_SEGS - 1)],
			 GSO_SEGMENT_BYTES);
	args.avail = hdr_len + pay_len;
	if (parse_copy(copy, &args, &pkt) != SYMPHONY_PARSE_COLLECTIVE) {
		w->unknown++;
		return 0;
	}
	if (w->may_mark)
		coin = bpf_get_prandom_u32();
	w->mark |= job_mark(&w->cfg, &pkt, w->seg_len, 1, w->now, w->may_mark,
			    w->red_mark, w->markable, coin, &outpacing, &known);
	if (!known)
		w->unknown++;
	w->outpacing += outpacing;
	return 0;
}

/*
 * Algorithm 1 for the segments gso_read_segments() read into @w, with its
 * parameters there; the result in @w too (mark, outpacing, unknown).
 */
__noinline int gso_walk_segments(struct gso_walk *w)
{
	if (!w)
		return 0;
	w->mark = false;
	w->outpacing = 0;
	w->unknown = 0;
	bpf_loop(w->nr_segs, gso_segment, &w, 0);
	return 0;
}

/*
 * The length of a UDP GSO packet's network and UDP headers, from the
 * network header: IPv4 with its options, or IPv6 straight to UDP (GSO
 * with extension headers is left to the first segment's header); 0 if
 * not one the walk reads.
 */
static __always_inline __u32 gso_headers_len(struct __sk_buff *skb, bool ipv6)
{
	__u8 b[10];

	if (bpf_skb_load_bytes(skb, ETH_HLEN, b, sizeof(b)))
		return 0;
	if (ipv6)
		return b[6] == 17 ? 40 + 8 : 0;
	return b[9] == 17 ? (b[0] & 0xf) * 4 + 8 : 0;
}

/*
 * Whether bpf_skb_ecn_set_ce() can rewrite the packet's IP header: in the
 * linear head, as INET_ECN_set_ce() wants it (and ECN-capable, @ect).
 */
static __always_inline bool ip_markable(struct __sk_buff *skb, bool ipv6,
					bool ect)
{
	void *nh = (void *)(long)skb->data + ETH_HLEN;

	return ect && nh + (ipv6 ? 40 : 20) <= (void *)(long)skb->data_end;
}

/* The program's body, for symphony_bench.bpf.c's harness too. */
static __always_inline int symphony_run(struct __sk_buff *skb)
{
	struct symphony_bpf_stats *stats;
	struct symphony_bpf_port *port;
	struct gso_walk *walk = NULL;
	enum symphony_parse_result res = SYMPHONY_PARSE_OTHER;
	struct symphony_pkt pkt = {};
	__u32 ifindex = skb->ifindex, len = skb->len;
	__u32 segs = skb->gso_segs ?: 1;
	__u32 l3_len, backlog, red_prob = 0, coin_sym = 0, hdr_len = 0, zero = 0;
	__u32 outpacing_segs = 0, unknown_segs = segs;
	bool ipv6, ect = false, markable, red_mark, ce = false, sym_mark = false;
	bool outpacing = false, known = false, overlimit = false, may_mark;
	bool sym_ce = false;
	__u64 now, joined_ns = 0;

	port = bpf_map_lookup_elem(&symphony_ports, &ifindex);
	if (!port)
		return TC_ACT_OK;
	stats = bpf_map_lookup_elem(&symphony_port_stats, &port->stats_slot);
	now = bpf_ktime_get_ns();

	ipv6 = skb->protocol == bpf_htons(ETH_P_IPV6);
	l3_len = len > ETH_HLEN ? len - ETH_HLEN : 0;
	if (ipv6 || skb->protocol == bpf_htons(ETH_P_IP))
		res = parse_packet(skb, &port->cfg, l3_len, ipv6, &pkt, &ect);
	markable = ip_markable(skb, ipv6, ect);

	backlog = phantom_enqueue(port, len, now, &red_prob, &overlimit,
				  &joined_ns);
	/* random numbers only where a coin decides */
	red_mark = red_prob &&
		   symphony_coin(red_prob, red_prob == SYMPHONY_PROB_ALWAYS ?
					   0 : bpf_get_prandom_u32());
	if (red_mark) {
		ce = markable && bpf_skb_ecn_set_ce(skb);
		if (!ce && port->cfg.nonect == SYMPHONY_NONECT_DROP) {
			/* dropped as the qdisc drops: no packet sent, no job
			 * state, no room in the queue
			 */
			phantom_unqueue(port, joined_ns, now);
			if (stats)
				stats->red_drops += segs;
			return TC_ACT_SHOT;
		}
	}
	may_mark = port->cfg.marking == SYMPHONY_MARKING_SYMPHONY &&
		   backlog >= port->cfg.qmin_ns;
	if (res == SYMPHONY_PARSE_COLLECTIVE && segs > 1 && skb->gso_size)
		hdr_len = gso_headers_len(skb, ipv6);
	if (hdr_len)
		walk = bpf_map_lookup_elem(&gso_walks, &zero);
	if (res == SYMPHONY_PARSE_COLLECTIVE) {
		if (port->cfg.marking == SYMPHONY_MARKING_SYMPHONY)
			coin_sym = bpf_get_prandom_u32();
		/* a UDP GSO packet: its first segment here, the others
		 * by gso_walk_segments()
		 */
		sym_mark = job_mark(&port->cfg, &pkt, walk ? len / segs : len,
				    walk ? 1 : segs, now, may_mark, red_mark,
				    markable, coin_sym, &outpacing, &known);
		if (walk) {
			outpacing_segs = outpacing;
			unknown_segs = !known;
		} else if (known) {
			outpacing_segs = outpacing ? segs : 0;
			unknown_segs = 0;
		}
	}
	if (walk) {
		walk->cfg = port->cfg;
		walk->now = now;
		walk->l3_len = l3_len;
		walk->hdr_len = hdr_len;
		walk->seg_size = skb->gso_size;
		walk->seg_len = len / segs;
		walk->ipv6 = ipv6;
		walk->may_mark = may_mark;
		walk->red_mark = red_mark;
		walk->markable = markable;
		gso_read_segments(skb, walk, hdr_len);
		gso_walk_segments(walk);
		sym_mark |= walk->mark;
		outpacing_segs += walk->outpacing;
		/* segments past what was read stay unclassified */
		unknown_segs += walk->unknown + (segs - 1 - walk->nr_segs);
	}
	/* a mark counts once the packet carries it, as the job counted it */
	if (sym_mark && markable)
		sym_ce = ce || bpf_skb_ecn_set_ce(skb);

	if (stats) {
		stats->packets += segs;
		stats->bytes += len;
		stats->collective_packets += segs - unknown_segs;
		stats->unclassified_packets += unknown_segs;
		if (res == SYMPHONY_PARSE_MALFORMED)
			stats->malformed_packets += segs;
		stats->outpacing_packets += outpacing_segs;
		if (overlimit)
			stats->phantom_overlimits += segs;
		if (backlog > stats->max_backlog_ns)
			stats->max_backlog_ns = backlog;
		if (ce)
			stats->red_marks += segs;
		if (sym_ce)
			stats->symphony_marks += segs;
	}
	return TC_ACT_OK;
}

SEC("tc")
int symphony_egress(struct __sk_buff *skb)
{
	return symphony_run(skb);
}

char LICENSE[] SEC("license") = "GPL";
