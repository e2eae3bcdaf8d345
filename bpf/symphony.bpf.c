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
 * or are malformed see RED only.  Counters per port and CPU.
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
	__u64 q16 = port->cfg.ps_per_byte_q16;
	/* picoseconds, the sub-ps rest dropped; in two products, since
	 * len * q16 may pass 2^64 at the lowest rates
	 */
	__u64 tx_ps = (__u64)len * (q16 >> 16) +
		      (((__u64)len * (q16 & 0xffff)) >> 16);
	__u32 kmin = port->cfg.kmin_ns, kmax = port->cfg.kmax_ns;
	__u32 pmax = port->cfg.pmax_q32, limit = port->cfg.limit_ns;
	__u64 empty, backlog, tx_ns;

	bpf_spin_lock(&port->lock);
	empty = port->empty_ns;
	backlog = empty > now ? empty - now : 0;
	/* the sub-ns rest of the packets queued before carries over */
	if (backlog)
		tx_ps += port->empty_ps;
	tx_ns = tx_ps / 1000;
	if (backlog + tx_ns <= limit) {
		port->empty_ns = (backlog ? empty : now) + tx_ns;
		port->empty_ps = tx_ps - tx_ns * 1000;
		*joined_ns = tx_ns;
	} else {
		*overlimit = true;
	}
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
 * Algorithm 1 for @pkt under its job's lock, and the job's accounting:
 * @ce, the packet carries RED's mark (@red_mark) already.  Returns the
 * job's block when Symphony marks the packet (never unless @may_mark:
 * RED-only marking, or a backlog below qmin), for the caller to count
 * the mark once the packet carries it; *known: the job has a slot.
 */
static __always_inline struct symphony_job *
job_mark(const struct symphony_bpf_cfg *cfg, const struct symphony_pkt *pkt,
	 __u32 len, __u32 segs, __u64 now, bool may_mark, bool red_mark,
	 bool ce, __u32 coin, bool *outpacing, bool *known)
{
	struct symphony_bpf_job_lock *lk;
	struct symphony_job *job;
	__u32 id = pkt->job, slot = pkt->job & (SYMPHONY_BPF_JOB_LOCKS - 1);
	bool mark = false;
	__u32 prob;

	if (id >= cfg->nr_jobs)
		return NULL;
	job = bpf_map_lookup_elem(&symphony_jobs, &id);
	lk = bpf_map_lookup_elem(&symphony_job_locks, &slot);
	if (!job || !lk)
		return NULL;
	*known = true;
	bpf_spin_lock(&lk->lock);
	prob = symphony_job_update(job, pkt, &cfg->params, now, segs, outpacing);
	if (may_mark && prob)
		mark = symphony_coin(prob, coin);
	symphony_job_count(job, segs, len, *outpacing, ce, red_mark, false);
	bpf_spin_unlock(&lk->lock);
	return mark ? job : NULL;
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
		res = symphony_parse_generic(copy->bytes, avail, l3_len, ipv6,
					     &parse_cfg, pkt);
	*ect = ip_ecn(copy->bytes, ipv6) != 0;
	return res;
}

/* The program's body, for symphony_bench.bpf.c's harness too. */
static __always_inline int symphony_run(struct __sk_buff *skb)
{
	struct symphony_bpf_stats *stats;
	struct symphony_bpf_port *port;
	struct symphony_job *marked_job = NULL;
	enum symphony_parse_result res = SYMPHONY_PARSE_OTHER;
	struct symphony_pkt pkt = {};
	__u32 ifindex = skb->ifindex, len = skb->len;
	__u32 segs = skb->gso_segs ?: 1;
	__u32 l3_len, backlog, red_prob = 0, coin_sym = 0;
	bool ipv6, ect = false, red_mark, ce = false, sym_ce = false;
	bool outpacing = false, known = false, overlimit = false;
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

	backlog = phantom_enqueue(port, len, now, &red_prob, &overlimit,
				  &joined_ns);
	/* random numbers only where a coin decides */
	red_mark = red_prob &&
		   symphony_coin(red_prob, red_prob == SYMPHONY_PROB_ALWAYS ?
					   0 : bpf_get_prandom_u32());
	if (red_mark) {
		ce = ect && bpf_skb_ecn_set_ce(skb);
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
	if (res == SYMPHONY_PARSE_COLLECTIVE) {
		if (port->cfg.marking == SYMPHONY_MARKING_SYMPHONY)
			coin_sym = bpf_get_prandom_u32();
		marked_job = job_mark(&port->cfg, &pkt, len, segs, now,
				      port->cfg.marking == SYMPHONY_MARKING_SYMPHONY &&
				      backlog >= port->cfg.qmin_ns,
				      red_mark, ce, coin_sym, &outpacing, &known);
	}
	if (marked_job) {
		sym_ce = ce || (ect && bpf_skb_ecn_set_ce(skb));
		/* counted once the packet carries it, by an atomic add as
		 * every program adds to this counter, out of the job's lock
		 */
		if (sym_ce)
			__sync_fetch_and_add(&marked_job->symphony_marks, segs);
	}

	if (stats) {
		stats->packets += segs;
		stats->bytes += len;
		if (known)
			stats->collective_packets += segs;
		else
			stats->unclassified_packets += segs;
		if (res == SYMPHONY_PARSE_MALFORMED)
			stats->malformed_packets += segs;
		if (outpacing)
			stats->outpacing_packets += segs;
		if (overlimit)
			stats->phantom_overlimits += segs;
		if (backlog > stats->max_backlog_ns)
			stats->max_backlog_ns = backlog;
		if (ce && red_mark)
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
