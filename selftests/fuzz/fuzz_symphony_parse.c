// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_symphony_parse.c - libFuzzer target for symphony_core.h: parses
 * arbitrary packets with symphony_parse() from buffers exactly as long as
 * the bytes it may read (so that ASan catches any read beyond them),
 * checks that its IPv4 RoCEv2 fast path agrees with the generic parser, runs
 * Algorithm 1 (symphony_job_update) on what it found, and checks the
 * arithmetic of symphony_mark_prob() and symphony_red_prob() against
 * 128-bit references.  Any broken invariant aborts.
 *
 * Input: a 20-byte header, then the packet from its network header:
 *	byte 0		bit 0 IPv6; bits 1-2 job field, bits 3-4 step field
 *			(enum symphony_field, modulo its size); bit 5 start
 *			from a preset job state
 *	byte 1		bytes available: 0 for min(packet, 160) as the qdisc
 *			reads, else min(packet, byte - 1)
 *	byte 2		GSO segments - 1
 *	byte 3		microseconds between the job updates
 *	bytes 4-7	k, ppm (big endian, modulo SYMPHONY_K_MAX + 1)
 *	bytes 8-11	preset step_min; also RED kmin or kmax
 *	bytes 12-15	preset psn_rec; also RED kmax or kmin
 *	bytes 16-19	preset alpha; also RED backlog
 * The seeds in corpus/ are written by the unit test's helpers
 * (test_symphony_core --write-seeds DIR).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symphony/symphony_core.h"
#include "symphony/symphony_params.h"

#define HDR_LEN		20
#define TWIN_NS		100000ULL

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: invariant broken: %s\n",	\
				__FILE__, __LINE__, #cond);		\
			abort();					\
		}							\
	} while (0)

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static uint32_t width_mask(unsigned int bits)
{
	return bits >= 32 ? 0xffffffffU : (1U << bits) - 1;
}

/* Field widths as pkt_sched_symphony.h documents them. */
static unsigned int field_width(uint8_t field)
{
	switch (field) {
	case SYMPHONY_FIELD_UDP_SPORT:
		return 16;
	case SYMPHONY_FIELD_BTH_RSVD:
		return 13;
	default:
		return 24;
	}
}

/*
 * Parse from a heap copy of exactly @avail bytes.  The fast path of
 * symphony_parse() must agree with symphony_parse_generic() on every input.
 */
static enum symphony_parse_result parse(const uint8_t *pkt, uint32_t avail,
					uint32_t pkt_len, bool ipv6,
					const struct symphony_parse_cfg *cfg,
					struct symphony_pkt *out)
{
	enum symphony_parse_result r, r_generic;
	struct symphony_pkt generic;
	uint8_t *copy = malloc(avail);

	if (avail) {
		if (!copy)
			abort();
		memcpy(copy, pkt, avail);
	}
	memset(out, 0, sizeof(*out));
	memset(&generic, 0, sizeof(generic));
	r = symphony_parse(copy, avail, pkt_len, ipv6, cfg, out);
	r_generic = symphony_parse_generic(copy, avail, pkt_len, ipv6, cfg,
					   &generic);
	CHECK(r == r_generic);
	if (r == SYMPHONY_PARSE_COLLECTIVE)
		CHECK(!memcmp(out, &generic, sizeof(generic)));
	free(copy);
	return r;
}

static void check_pkt(const struct symphony_pkt *p,
		      const struct symphony_parse_cfg *cfg)
{
	bool uec = p->psn_bits == SYMPHONY_UEC_PSN_BITS;

	CHECK(p->psn_bits == SYMPHONY_BTH_PSN_BITS || uec);
	CHECK(p->step_bits == (uec ? 16 : field_width(cfg->step_field)));
	CHECK(p->step <= width_mask(p->step_bits));
	CHECK(p->job <= width_mask(uec ? SYMPHONY_UEC_JOBID_BITS :
				   field_width(cfg->job_field)));
	CHECK(p->psn <= width_mask(p->psn_bits));
	CHECK(p->ecn <= 3);
	CHECK(p->last <= 1);
}

/* One update, with the invariants of Algorithm 1 around it. */
static void update(struct symphony_job *job, const struct symphony_pkt *pkt,
		   const struct symphony_params *params, uint64_t now,
		   uint32_t segs)
{
	uint32_t alpha_before = job->alpha ? job->alpha : 1;
	uint32_t psn_rec_before = job->psn_rec;
	uint32_t step_mask = width_mask(pkt->step_bits);
	bool outpacing;
	uint32_t prob;

	prob = symphony_job_update(job, pkt, params, now, segs, &outpacing);

	CHECK(job->flags & SYMPHONY_JOB_F_ACTIVE);
	CHECK(job->alpha >= 1);
	CHECK(job->alpha <= (alpha_before > params->alpha_max ?
			     alpha_before : params->alpha_max));
	CHECK(job->cnt_op <= job->cnt_total);
	CHECK(job->last_seen_ns == now);
	/* Lagging packets are never marked. */
	CHECK(!prob || outpacing);
	CHECK(!prob || job->psn_rec > params->warmup_psn);
	if (pkt->last) {
		CHECK(job->step_min == ((pkt->step + 1) & step_mask));
		CHECK(job->psn_rec == 0);
		CHECK(!prob);
	} else {
		CHECK(job->psn_rec == 0 || job->psn_rec == pkt->psn ||
		      job->psn_rec == psn_rec_before);
	}
}

/*
 * symphony_mark_prob truncates psn / psn_rec to Q16 and the product to
 * Q32: never above the exact value, below it by at most gain * 2^16 / 10^6
 * + 1; saturated only when the exact value reaches 1.
 */
static void check_mark_prob(uint32_t k, uint32_t alpha, uint32_t psn,
			    uint32_t psn_rec)
{
	uint32_t got = symphony_mark_prob(k, alpha, psn, psn_rec);
	unsigned __int128 gain = (unsigned __int128)k * alpha;
	unsigned __int128 exact = (gain * psn << 32) /
				  ((unsigned __int128)psn_rec * SYMPHONY_PPM);
	unsigned __int128 slack = ((gain << 16) / SYMPHONY_PPM) + 1;

	if (got == SYMPHONY_PROB_ALWAYS) {
		CHECK(exact >= SYMPHONY_PROB_ALWAYS);
	} else {
		CHECK(got <= exact);
		CHECK(exact - got <= slack);
	}
}

static void check_red_prob(uint32_t kmin, uint32_t kmax, uint32_t pmax_ppm,
			   uint32_t backlog)
{
	uint32_t got = symphony_red_prob(kmin, kmax, pmax_ppm, backlog);
	uint64_t pmax_q32 = ((uint64_t)pmax_ppm << 32) / SYMPHONY_PPM;

	if (pmax_q32 > SYMPHONY_PROB_ALWAYS)
		pmax_q32 = SYMPHONY_PROB_ALWAYS;
	if (backlog <= kmin)
		CHECK(got == 0);
	else if (backlog >= kmax)
		CHECK(got == SYMPHONY_PROB_ALWAYS);
	else
		CHECK(got <= pmax_q32 &&
		      got == (unsigned __int128)pmax_q32 * (backlog - kmin) /
			     (kmax - kmin));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct symphony_params params = {
		.tau_ppm = SYMPHONY_TAU_DEFAULT,
		.warmup_psn = SYMPHONY_WARMUP_DEFAULT,
		.sample_min_packets = 2,
		.alpha_max = 8,
		.twin_ns = TWIN_NS,
	};
	struct symphony_pkt full, part, next;
	struct symphony_parse_cfg cfg;
	enum symphony_parse_result r_full, r_part;
	struct symphony_job job;
	uint32_t pkt_len, avail, segs, a, b;
	const uint8_t *pkt;
	uint64_t now;
	bool ipv6;

	if (size < HDR_LEN || size - HDR_LEN > 65535)
		return 0;
	pkt = data + HDR_LEN;
	pkt_len = size - HDR_LEN;
	ipv6 = data[0] & 1;
	cfg.job_field = ((data[0] >> 1) & 3) % __SYMPHONY_FIELD_MAX;
	cfg.step_field = ((data[0] >> 3) & 3) % __SYMPHONY_FIELD_MAX;
	if (data[1])
		avail = data[1] - 1U < pkt_len ? data[1] - 1U : pkt_len;
	else
		avail = pkt_len < SYMPHONY_PARSE_MAX_BYTES ?
			pkt_len : SYMPHONY_PARSE_MAX_BYTES;
	segs = data[2] + 1U;
	params.k_ppm = be32(data + 4) % (SYMPHONY_K_MAX + 1);

	/* The arithmetic, on the header's numbers. */
	a = be32(data + 8);
	b = be32(data + 12);
	check_mark_prob(params.k_ppm, be32(data + 16), a, b ? b : 1);
	check_red_prob(a < b ? a : b, a < b ? b : a,
		       params.k_ppm % (SYMPHONY_PPM + 1), be32(data + 16));

	/* Fewer bytes available give the same answer, or OTHER. */
	r_full = parse(pkt, pkt_len, pkt_len, ipv6, &cfg, &full);
	r_part = parse(pkt, avail, pkt_len, ipv6, &cfg, &part);
	CHECK(r_full <= SYMPHONY_PARSE_MALFORMED);
	CHECK(r_part == r_full || r_part == SYMPHONY_PARSE_OTHER);
	if (r_full != SYMPHONY_PARSE_COLLECTIVE)
		return 0;
	check_pkt(&full, &cfg);
	CHECK(pkt_len >= (ipv6 ? 40U : 20U) + 8 + SYMPHONY_BTH_LEN);
	if (r_part == SYMPHONY_PARSE_COLLECTIVE)
		CHECK(!memcmp(&part, &full, sizeof(full)));

	/* Algorithm 1: the packet, one of the next step, the packet again
	 * a window later.
	 */
	memset(&job, 0, sizeof(job));
	if (data[0] & 0x20) {
		job.flags = SYMPHONY_JOB_F_ACTIVE;
		job.step_min = be32(data + 8);
		job.psn_rec = be32(data + 12);
		job.alpha = be32(data + 16);
	}
	now = 1000;
	update(&job, &full, &params, now, segs);
	next = full;
	next.step = (full.step + 1) & width_mask(full.step_bits);
	next.last = 0;
	now += data[3] * 1000ULL;
	update(&job, &next, &params, now, segs);
	update(&job, &full, &params, now + TWIN_NS, 1);
	return 0;
}
