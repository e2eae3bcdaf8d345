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
 * each segment's own BTH (or PDS/SES), as the qdisc does, and carries one
 * mark for all its segments.  Counters per port and CPU.
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
/* the registry's jobs map (symofan job init): symofan sets max_entries
 * to its slots and hands it in before load
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

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SYMPHONY_BPF_JOB_LOCKS);
	__type(key, __u32);
	__type(value, struct symphony_bpf_job_lock);
} symphony_job_locks SEC(".maps");

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
 * backlog it found, in ns of the port's rate.
 */
static __always_inline __u32
phantom_enqueue(struct symphony_bpf_port *port, __u32 len, __u64 now,
		__u32 *red_prob, bool *overlimit)
{
	__u64 tx_ns = (__u64)len * port->cfg.ps_per_byte / 1000;
	__u32 kmin = port->cfg.kmin_ns, kmax = port->cfg.kmax_ns;
	__u32 pmax = port->cfg.pmax_q32, limit = port->cfg.limit_ns;
	__u64 empty, backlog;

	bpf_spin_lock(&port->lock);
	empty = port->empty_ns;
	backlog = empty > now ? empty - now : 0;
	if (backlog + tx_ns <= limit)
		port->empty_ns = (backlog ? empty : now) + tx_ns;
	else
		*overlimit = true;
	bpf_spin_unlock(&port->lock);

	if (backlog > limit)
		backlog = limit;
	*red_prob = kmin <= kmax ?
		    symphony_red_prob_q32(kmin, kmax, pmax, (__u32)backlog) : 0;
	return (__u32)backlog;
}

/* Algorithm 1 for @pkt under its job's lock, and the job's accounting
 * with the marks the packet will carry (@red_mark, if @ect).  Returns
 * whether Symphony marks it (never unless @may_mark: RED-only marking, or
 * a backlog below qmin); *known: the job has a slot.
 */
static __always_inline bool
job_mark(const struct symphony_bpf_cfg *cfg, const struct symphony_pkt *pkt,
	 __u32 len, __u32 segs, __u64 now, bool may_mark, bool red_mark,
	 bool ect, __u32 coin, bool *outpacing, bool *known)
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
	symphony_job_count(job, segs, len, *outpacing, ect, red_mark, mark);
	bpf_spin_unlock(&lk->lock);
	return mark;
}

/* symphony_parse_generic()'s arguments past the bytes and the result */
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
		return SYMPHONY_PARSE_COLLECTIVE;
	}
	copy = bpf_map_lookup_elem(&header_copies, &zero);
	avail = l3_len < SYMPHONY_PARSE_MAX_BYTES ? l3_len :
		SYMPHONY_PARSE_MAX_BYTES;
	if (!copy || avail < 2 || load_headers(skb, copy, avail))
		return SYMPHONY_PARSE_OTHER;
	/* symphony_parse() on the copy; the fast path once only */
	if (!in_place && !ipv6 &&
	    symphony_parse_rocev2_ipv4(copy->bytes, avail, l3_len, &parse_cfg, pkt))
		res = SYMPHONY_PARSE_COLLECTIVE;
	else
		res = parse_copy(copy, &(struct parse_args) {
					.cfg = parse_cfg, .avail = avail,
					.l3_len = l3_len, .ipv6 = ipv6 }, pkt);
	*ect = ip_ecn(copy->bytes, ipv6) != 0;
	return res;
}

/*
 * The segments after the first of a UDP GSO packet, as bpf_loop() walks
 * them: each segment's own BTH (or PDS/SES) runs Algorithm 1, so that a
 * LAST in a later segment is seen, as the qdisc does
 * (symphony_step_decision_gso()).  The segments share the packet's IP
 * header, so one mark (any segment's, or RED's) marks them all.
 */
struct gso_walk {
	struct __sk_buff	*skb;
	const struct symphony_bpf_cfg *cfg;
	__u64	now;
	__u32	l3_len;		/* the whole packet from the network header */
	__u32	hdr_len;	/* its network and UDP headers, bytes */
	__u32	seg_size;	/* payload bytes of a segment (gso_size) */
	__u32	seg_len;	/* a segment's share of the packet, bytes */
	__u32	outpacing;	/* segments whose step ran ahead */
	__u32	unknown;	/* segments of no job, or not collective */
	bool	ipv6, may_mark, red_mark, ect, mark;
};

/* A segment's payload is read this far: a BTH, or the PDS and SES headers */
#define GSO_SEGMENT_BYTES	64

/*
 * Copy the packet's network and UDP headers (@hdr_len, under 128 bytes)
 * and @pay_len (1..GSO_SEGMENT_BYTES) bytes from @pay_off, the start of
 * a segment's payload, behind them: the segment's headers as the wire
 * will carry them.  Bounded again at each helper, as load_headers() is.
 */
static __always_inline int load_segment(struct __sk_buff *skb,
					struct header_copy *copy,
					__u32 hdr_len, __u32 pay_off,
					__u32 pay_len)
{
	__u64 h = hdr_len, n = pay_len;

	asm volatile("" : "+r"(h), "+r"(n));
	h &= 0x7f;
	n = ((n - 1) & (GSO_SEGMENT_BYTES - 1)) + 1;
	if (h < 8 || bpf_skb_load_bytes(skb, ETH_HLEN, copy->bytes, h))
		return -1;
	return bpf_skb_load_bytes(skb, ETH_HLEN + pay_off, copy->bytes + h, n);
}

static long gso_segment(__u32 i, void *data)
{
	struct gso_walk *w = data;
	struct parse_args args = {
		.cfg = { .job_field	= w->cfg->job_field,
			 .step_field	= w->cfg->step_field },
		.l3_len = w->l3_len, .ipv6 = w->ipv6,
	};
	struct symphony_pkt pkt = {};
	struct header_copy *copy;
	__u32 zero = 0, pay_off, pay_len, coin = 0;
	bool outpacing = false, known = false;

	copy = bpf_map_lookup_elem(&header_copies, &zero);
	if (!copy)
		return 1;
	pay_off = w->hdr_len + (i + 1) * w->seg_size;
	if (pay_off >= w->l3_len) {
		w->unknown++;
		return 0;
	}
	pay_len = w->l3_len - pay_off;
	if (pay_len > w->seg_size)
		pay_len = w->seg_size;
	if (pay_len > GSO_SEGMENT_BYTES)
		pay_len = GSO_SEGMENT_BYTES;
	args.avail = w->hdr_len + pay_len;
	if (load_segment(w->skb, copy, w->hdr_len, pay_off, pay_len) ||
	    parse_copy(copy, &args, &pkt) != SYMPHONY_PARSE_COLLECTIVE) {
		w->unknown++;
		return 0;
	}
	if (w->may_mark)
		coin = bpf_get_prandom_u32();
	w->mark |= job_mark(w->cfg, &pkt, w->seg_len, 1, w->now, w->may_mark,
			    w->red_mark, w->ect, coin, &outpacing, &known);
	if (!known)
		w->unknown++;
	w->outpacing += outpacing;
	return 0;
}

/* gso_walk_segments()'s flags and result */
#define GSO_IPV6		(1U << 0)
#define GSO_MAY_MARK		(1U << 1)
#define GSO_RED_MARK		(1U << 2)
#define GSO_ECT			(1U << 3)
#define GSO_MARKED		(1U << 31)	/* a segment's Symphony toss */
#define GSO_COUNT_BITS		15		/* then outpacing, unknown */
#define GSO_COUNT_MASK		((1U << GSO_COUNT_BITS) - 1)

/*
 * Algorithm 1 for segments 1.. of the UDP GSO packet @skb (the caller ran
 * it for segment 0), whose network and UDP headers take @hdr_len bytes.
 * A global function, so that the verifier walks it (and the parser and
 * Algorithm 1 in its loop) once, not once for each path that reaches it.
 * Returns GSO_MARKED if any segment is to be marked, the segments whose
 * step ran ahead in the low GSO_COUNT_BITS and those of no job above them.
 */
__noinline int gso_walk_segments(struct __sk_buff *skb, __u64 now,
				 __u32 flags, __u32 hdr_len)
{
	__u32 ifindex = skb->ifindex, segs = skb->gso_segs;
	struct symphony_bpf_port *port;
	struct gso_walk walk = {};

	port = bpf_map_lookup_elem(&symphony_ports, &ifindex);
	if (!port || segs < 2)
		return 0;
	walk.skb = skb;
	walk.cfg = &port->cfg;
	walk.now = now;
	walk.l3_len = skb->len > ETH_HLEN ? skb->len - ETH_HLEN : 0;
	walk.hdr_len = hdr_len;
	walk.seg_size = skb->gso_size;
	walk.seg_len = skb->len / segs;
	walk.ipv6 = flags & GSO_IPV6;
	walk.may_mark = flags & GSO_MAY_MARK;
	walk.red_mark = flags & GSO_RED_MARK;
	walk.ect = flags & GSO_ECT;
	if (!walk.seg_size)
		return 0;
	bpf_loop(segs - 1, gso_segment, &walk, 0);
	return (walk.mark ? GSO_MARKED : 0) |
	       (walk.outpacing & GSO_COUNT_MASK) |
	       ((walk.unknown & GSO_COUNT_MASK) << GSO_COUNT_BITS);
}

/*
 * The length of a UDP GSO packet's network and UDP headers, from the
 * network header: IPv4 with its options, or IPv6 straight to UDP (GSO
 * with extension headers is left to the first segment's header); 0 if
 * not one the walk reads.
 */
static __always_inline __u32 gso_headers_len(struct __sk_buff *skb, bool ipv6)
{
	__u8 b[8];

	if (bpf_skb_load_bytes(skb, ETH_HLEN, b, sizeof(b)))
		return 0;
	if (ipv6)
		return b[6] == 17 ? 40 + 8 : 0;
	return (b[0] & 0xf) * 4 + 8;
}

/* The program's body, for symphony_bench.bpf.c's harness too. */
static __always_inline int symphony_run(struct __sk_buff *skb)
{
	struct symphony_bpf_stats *stats;
	struct symphony_bpf_port *port;
	enum symphony_parse_result res = SYMPHONY_PARSE_OTHER;
	struct symphony_pkt pkt = {};
	__u32 ifindex = skb->ifindex, len = skb->len;
	__u32 segs = skb->gso_segs ?: 1;
	__u32 l3_len, backlog, red_prob = 0, coin_sym = 0, hdr_len = 0;
	__u32 outpacing_segs = 0, unknown_segs;
	bool ipv6, ect = false, red_mark, sym_mark = false, may_mark;
	bool outpacing = false, known = false, overlimit = false;
	__u64 now;

	port = bpf_map_lookup_elem(&symphony_ports, &ifindex);
	if (!port)
		return TC_ACT_OK;
	stats = bpf_map_lookup_elem(&symphony_port_stats, &port->stats_slot);
	now = bpf_ktime_get_ns();

	ipv6 = skb->protocol == bpf_htons(ETH_P_IPV6);
	l3_len = len > ETH_HLEN ? len - ETH_HLEN : 0;
	if (ipv6 || skb->protocol == bpf_htons(ETH_P_IP))
		res = parse_packet(skb, &port->cfg, l3_len, ipv6, &pkt, &ect);

	backlog = phantom_enqueue(port, len, now, &red_prob, &overlimit);
	/* random numbers only where a coin decides */
	red_mark = red_prob &&
		   symphony_coin(red_prob, red_prob == SYMPHONY_PROB_ALWAYS ?
					   0 : bpf_get_prandom_u32());
	if (res == SYMPHONY_PARSE_COLLECTIVE &&
	    port->cfg.marking == SYMPHONY_MARKING_SYMPHONY)
		coin_sym = bpf_get_prandom_u32();
	may_mark = port->cfg.marking == SYMPHONY_MARKING_SYMPHONY &&
		   backlog >= port->cfg.qmin_ns;
	if (res == SYMPHONY_PARSE_COLLECTIVE && segs > 1 && skb->gso_size)
		hdr_len = gso_headers_len(skb, ipv6);
	if (hdr_len) {
		/* a UDP GSO packet: the first segment, then the others */
		int rest;

		sym_mark = job_mark(&port->cfg, &pkt, len / segs, 1, now,
				    may_mark, red_mark, ect, coin_sym,
				    &outpacing, &known);
		rest = gso_walk_segments(skb, now,
					 (ipv6 ? GSO_IPV6 : 0) |
					 (may_mark ? GSO_MAY_MARK : 0) |
					 (red_mark ? GSO_RED_MARK : 0) |
					 (ect ? GSO_ECT : 0), hdr_len);
		sym_mark |= !!(rest & GSO_MARKED);
		outpacing_segs = outpacing + (rest & GSO_COUNT_MASK);
		unknown_segs = !known + ((rest >> GSO_COUNT_BITS) & GSO_COUNT_MASK);
	} else if (res == SYMPHONY_PARSE_COLLECTIVE) {
		sym_mark = job_mark(&port->cfg, &pkt, len, segs, now, may_mark,
				    red_mark, ect, coin_sym, &outpacing, &known);
		outpacing_segs = outpacing ? segs : 0;
		unknown_segs = known ? 0 : segs;
	} else {
		unknown_segs = segs;
	}

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
	}
	if (!red_mark && !sym_mark)
		return TC_ACT_OK;
	if (ect && bpf_skb_ecn_set_ce(skb)) {
		if (stats && red_mark)
			stats->red_marks += segs;
		if (stats && sym_mark)
			stats->symphony_marks += segs;
		return TC_ACT_OK;
	}
	if (red_mark && port->cfg.nonect == SYMPHONY_NONECT_DROP) {
		if (stats)
			stats->red_drops += segs;
		return TC_ACT_SHOT;
	}
	return TC_ACT_OK;
}

SEC("tc")
int symphony_egress(struct __sk_buff *skb)
{
	return symphony_run(skb);
}

char LICENSE[] SEC("license") = "GPL";
