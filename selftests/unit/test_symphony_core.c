// SPDX-License-Identifier: GPL-2.0
/*
 * test_symphony_core.c - userspace unit tests of symphony_core.h, the
 * algorithm core shared by the qdisc: the marking probabilities, the
 * serial-number comparison, the parser on byte-exact crafted IPv4/IPv6
 * RoCEv2 and UEC packets, and Algorithm 1 replayed on packet sequences.
 *
 * Every expected value is worked out by hand in the tables (Q32 results:
 * see the formula above each table), never by calling the code under test.
 * Prints TAP; exits 0 when every test point passes, 1 otherwise.  Long
 * (about 1,300 lines) because most of it is those tables, one per function.
 *
 * Usage: test_symphony_core [--write-seeds DIR]
 *	--write-seeds DIR	also write the seed corpus of the parser fuzzer
 *				(selftests/fuzz/) into DIR
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symphony/symphony_core.h"
#include "tap.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define ALWAYS		SYMPHONY_PROB_ALWAYS

static void expect_u64(const char *what, uint64_t want, uint64_t got)
{
	if (want == got)
		return;
	tap_fail("# %s: expected %" PRIu64 " (0x%" PRIx64 "), got %" PRIu64
	      " (0x%" PRIx64 ")\n", what, want, want, got, got);
}

/* ------------------------------------------------------------------ */
/* symphony_mark_prob */

/*
 * ratio_q16 = psn * 2^16 / psn_rec, truncated; gain = k_ppm * alpha;
 * result = gain * ratio_q16 * 2^16 / 10^6, truncated; ALWAYS from 1.0 on
 * (gain * ratio_q16 >= 10^6 * 2^16).  2^32 = 4294967296.
 */
static const struct {
	const char *name;
	uint32_t k_ppm, alpha, psn, psn_rec;
	uint32_t want;
} mark_cases[] = {
	/* 10000 * 65536 * 65536 / 10^6 = 42949672.96 */
	{ "k 0.01, alpha 1, psn == psn_rec: 0.01", 10000, 1, 100, 100, 42949672 },
	{ "k 0, psn == psn_rec: 0", 0, 1, 100, 100, 0 },
	{ "k 0, alpha 65536, psn 2^32-1, psn_rec 1: 0",
	  0, 65536, 0xffffffff, 1, 0 },
	/* ratio 131072: 85899345.92 */
	{ "psn / psn_rec 2: 0.02", 10000, 1, 200, 100, 85899345 },
	/* ratio 32768: 21474836.48 */
	{ "psn / psn_rec 1/2: 0.005", 10000, 1, 50, 100, 21474836 },
	/* ratio 65536 / 3 = 21845; 21845 * 10000 * 65536 / 10^6 = 14316339.2
	 * (the exact 0.01 / 3 would be 14316557.65: ratio truncated in Q16)
	 */
	{ "psn / psn_rec 1/3 (ratio truncated to Q16)", 10000, 1, 1, 3, 14316339 },
	/* ratio 65536 / 65536 = 1: 10000 * 65536 / 10^6 = 655.36 */
	{ "psn / psn_rec 2^-16: smallest ratio", 10000, 1, 1, 65536, 655 },
	/* ratio 65536 / 65537 = 0 */
	{ "psn / psn_rec below 2^-16: 0", 10000, 1, 1, 65537, 0 },
	{ "psn 0: 0", 10000, 7, 0, 100, 0 },
	/* ratio (2^32 - 1) * 2^16 / 2^31 = 131071.99..: 131071;
	 * 131071 * 10000 * 65536 / 10^6 = 85898690.56
	 */
	{ "32-bit PSNs: psn 2^32-1, psn_rec 2^31", 10000, 1, 0xffffffff,
	  0x80000000, 85898690 },
	/* gain 100000: 6553600000 * 65536 / 10^6 = 429496729.6 */
	{ "alpha 10: 0.1", 10000, 10, 7, 7, 429496729 },
	/* gain 990000: 0.99 * 2^32 = 4252017623.04 */
	{ "alpha 99: 0.99, just below saturation", 10000, 99, 9, 9, 4252017623U },
	/* gain 10^6: exactly 1.0 */
	{ "alpha 100: exactly 1.0 saturates", 10000, 100, 9, 9, ALWAYS },
	{ "alpha 101: above 1.0 saturates", 10000, 101, 9, 9, ALWAYS },
	/* gain 65536 ppm: 65536 * 65536 * 65536 / 10^6 = 281474976.71 */
	{ "large alpha 65536, k 1 ppm", 1, 65536, 5, 5, 281474976 },
	/* gain 10^8 * 65536, ratio ~2^48: the product overflows 64 bits */
	{ "k 100, alpha 65536, psn 2^32-1, psn_rec 1: overflow saturates",
	  100000000, 65536, 0xffffffff, 1, ALWAYS },
	{ "alpha 2^32-1 saturates", 10000, 0xffffffff, 1, 1, ALWAYS },
};

static void test_mark_prob(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(mark_cases); i++) {
		tap_point_start();
		expect_u64("probability",
			   mark_cases[i].want,
			   symphony_mark_prob(mark_cases[i].k_ppm,
					      mark_cases[i].alpha,
					      mark_cases[i].psn,
					      mark_cases[i].psn_rec));
		tap_point_end("mark_prob: %s", mark_cases[i].name);
	}
}

/* ------------------------------------------------------------------ */
/* symphony_red_prob */

/*
 * pmax_q32 = pmax_ppm * 2^32 / 10^6 truncated, at most 2^32 - 1;
 * result = pmax_q32 * (backlog - kmin) / (kmax - kmin), truncated.
 * pmax 0.2: 858993459.2 -> 858993459.
 */
static const struct {
	const char *name;
	uint32_t kmin, kmax, pmax_ppm, backlog;
	uint32_t want;
} red_cases[] = {
	{ "empty queue: 0", 50000, 100000, 200000, 0, 0 },
	{ "below kmin: 0", 50000, 100000, 200000, 49999, 0 },
	{ "at kmin: 0", 50000, 100000, 200000, 50000, 0 },
	/* 858993459 / 50000 = 17179.87 */
	{ "kmin + 1 byte", 50000, 100000, 200000, 50001, 17179 },
	/* 858993459 / 2 = 429496729.5 */
	{ "midpoint: pmax / 2", 50000, 100000, 200000, 75000, 429496729 },
	/* 858993459 * 49999 / 50000 = 858976279.13 */
	{ "kmax - 1 byte", 50000, 100000, 200000, 99999, 858976279 },
	{ "at kmax: always", 50000, 100000, 200000, 100000, ALWAYS },
	{ "above kmax: always", 50000, 100000, 200000, 4000000000U, ALWAYS },
	/* pmax 1.0: 2^32 capped to 2^32 - 1; (2^32 - 1) / 2 = 2147483647.5 */
	{ "pmax 1.0, midpoint", 50000, 100000, 1000000, 75000, 2147483647 },
	{ "pmax 0, midpoint: 0", 50000, 100000, 0, 75000, 0 },
	{ "kmin == kmax, below: 0", 1000, 1000, 200000, 999, 0 },
	{ "kmin == kmax, at: 0", 1000, 1000, 200000, 1000, 0 },
	{ "kmin == kmax, above: always", 1000, 1000, 200000, 1001, ALWAYS },
	{ "kmin == kmax == 0, empty: 0", 0, 0, 200000, 0, 0 },
	{ "kmin == kmax == 0, 1 byte: always", 0, 0, 200000, 1, ALWAYS },
	/* (2^32 - 1) * 2^31 / (2^32 - 1) = 2^31, no 64-bit overflow */
	{ "full 32-bit range, pmax 1.0, half way", 0, 0xffffffff, 1000000,
	  0x80000000, 0x80000000 },
};

static void test_red_prob(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(red_cases); i++) {
		tap_point_start();
		expect_u64("probability", red_cases[i].want,
			   symphony_red_prob(red_cases[i].kmin,
					     red_cases[i].kmax,
					     red_cases[i].pmax_ppm,
					     red_cases[i].backlog));
		tap_point_end("red_prob: %s", red_cases[i].name);
	}
}

/* ------------------------------------------------------------------ */
/* symphony_before, symphony_coin */

static const struct {
	uint32_t a, b;
	uint8_t bits;
	bool want;
} before_cases[] = {
	{ 5, 5, 16, false },
	{ 0, 1, 13, true },
	{ 1, 0, 13, false },
	{ 8191, 0, 13, true },		/* 0 follows 8191 */
	{ 0, 8191, 13, false },
	{ 0, 4095, 13, true },		/* 4095 ahead: still after */
	{ 0, 4097, 13, false },		/* 4097 ahead is 4095 behind */
	{ 4097, 0, 13, true },
	{ 65535, 0, 16, true },
	{ 0, 65535, 16, false },
	{ 65535, 65535, 16, false },
	{ 0, 32767, 16, true },
	{ 0, 32769, 16, false },
	{ 0x10005, 6, 16, true },	/* bits above the width are ignored */
	{ 0xffffff, 0, 24, true },
	{ 0, 0xffffff, 24, false },
	{ 0xfffffe, 1, 24, true },
	{ 2, 0xfffffe, 24, false },
	{ 0xffffffff, 0, 32, true },
	{ 0, 0xffffffff, 32, false },
	{ 0x7fffffff, 0x80000000, 32, true },
	{ 0x80000000, 0x7fffffff, 32, false },
	{ 0, 0x7fffffff, 32, true },
	{ 0, 0x80000001, 32, false },
};

static void test_before(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(before_cases); i++) {
		tap_point_start();
		expect_u64("before", before_cases[i].want,
			   symphony_before(before_cases[i].a, before_cases[i].b,
					   before_cases[i].bits));
		tap_point_end("before: %#x < %#x in %u bits is %s",
			  before_cases[i].a, before_cases[i].b,
			  before_cases[i].bits,
			  before_cases[i].want ? "true" : "false");
	}

	tap_point_start();
	expect_u64("prob 0, random 0", false, symphony_coin(0, 0));
	expect_u64("prob 1, random 0", true, symphony_coin(1, 0));
	expect_u64("prob 1, random 1", false, symphony_coin(1, 1));
	expect_u64("prob 2^32-2, random 2^32-1", false,
		   symphony_coin(0xfffffffe, 0xffffffff));
	expect_u64("always, random 2^32-1", true,
		   symphony_coin(ALWAYS, 0xffffffff));
	tap_point_end("coin: marks when random < prob, always at 2^32-1");
}

/* ------------------------------------------------------------------ */
/* Packets */

struct pspec {
	bool		v6;
	uint8_t		tos;		/* TOS / traffic class: DSCP << 2 | ECN */
	uint16_t	frag;		/* IPv4 flags and fragment offset */
	uint8_t		v4_opt_words;	/* IPv4 options: 4-byte words of NOPs */
	uint8_t		l4;		/* IPv4 protocol, IPv6 last next header */
	const uint8_t	*ext;		/* IPv6 extension headers, chained */
	uint8_t		ext_len;
	uint8_t		ext_first;	/* next header of the fixed IPv6 header */
	uint32_t	flow;		/* IPv6 flow label */
	uint16_t	sport, dport;
	bool		uec;		/* PDS + SES after UDP, else BTH */
	uint8_t		opcode, b4, b8;	/* BTH byte 0, 4, 8 */
	uint32_t	destqp, psn;	/* BTH DestQP; BTH or PDS PSN */
	uint16_t	spdcid, dpdcid;
	uint8_t		ses_flags;	/* SES byte 1 */
	uint32_t	jobid;
	uint16_t	payload;	/* bytes after BTH or SES (data, ICRC) */
};

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void put24(uint8_t *p, uint32_t v)
{
	p[0] = v >> 16;
	p[1] = v >> 8;
	p[2] = v;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	put24(p + 1, v);
}

/*
 * Lay out a packet from its network header: IPv4 (10.0.0.1 > 10.0.0.2,
 * id 1, TTL 64, checksum 0: the parser does not check it) or IPv6
 * (fd00::1 > fd00::2, hop limit 64), UDP with checksum 0, then a BTH (byte
 * 1 zero, P_Key 0xffff) or a PDS header (byte 0 0x13) and SES header
 * (opcode 0x02, message id 7, RI generation 0), then zero payload.
 */
static size_t build(uint8_t *p, const struct pspec *s)
{
	size_t body = s->uec ? SYMPHONY_PDS_LEN + SYMPHONY_SES_MIN_LEN :
			       SYMPHONY_BTH_LEN;
	size_t ip = s->v6 ? 40 + s->ext_len : 20 + 4 * s->v4_opt_words;
	size_t udp_len = 8 + body + s->payload;
	size_t len = ip + udp_len;
	uint8_t *u, *b;

	memset(p, 0, len);
	if (!s->v6) {
		p[0] = 0x40 | (5 + s->v4_opt_words);
		p[1] = s->tos;
		put16(p + 2, len);
		put16(p + 4, 1);
		put16(p + 6, s->frag);
		p[8] = 64;
		p[9] = s->l4;
		p[12] = 10, p[15] = 1;
		p[16] = 10, p[19] = 2;
		memset(p + 20, 0x01, 4 * s->v4_opt_words);
	} else {
		p[0] = 0x60 | s->tos >> 4;
		p[1] = (s->tos & 0x0f) << 4 | ((s->flow >> 16) & 0x0f);
		put16(p + 2, s->flow & 0xffff);
		put16(p + 4, len - 40);
		p[6] = s->ext_len ? s->ext_first : s->l4;
		p[7] = 64;
		p[8] = 0xfd, p[23] = 1;
		p[24] = 0xfd, p[39] = 2;
		if (s->ext_len)
			memcpy(p + 40, s->ext, s->ext_len);
	}
	u = p + ip;
	put16(u, s->sport);
	put16(u + 2, s->dport);
	put16(u + 4, udp_len);
	b = u + 8;
	if (!s->uec) {
		b[0] = s->opcode;
		put16(b + 2, 0xffff);
		b[4] = s->b4;
		put24(b + 5, s->destqp);
		b[8] = s->b8;
		put24(b + 9, s->psn);
	} else {
		b[0] = 0x13;
		put32(b + 4, s->psn);
		put16(b + 8, s->spdcid);
		put16(b + 10, s->dpdcid);
		b[12] = 0x02;
		b[13] = s->ses_flags;
		put16(b + 14, 7);
		put24(b + 17, s->jobid);
	}
	return len;
}

/*
 * The base packets.  RoCEv2: DSCP 46 and ECT(0), UDP 0x1234 > 4791, RC
 * RDMA WRITE FIRST; BTH byte 4 0x87 (FECN and reserved 7), byte 8 0xe8
 * (AckReq and reserved 0x68): reserved bits (7 << 7) | 0x68 = 1000; DestQP
 * 0xabcdef, PSN 0x123456, 20 bytes of payload and ICRC.  UEC: ECT(1),
 * UDP 0x9abc > 4793, PSN 0x89abcdef, SPDCID 0x0102, DPDCID 0x0304, SES
 * byte 1 0x4b (version 1, rel, eom, som), JobID 0xfedcba, 16 bytes.
 */
#define ROCE(is_v6)	.v6 = is_v6, .tos = 0xb8 | 2, .l4 = 17,		\
			.sport = 0x1234, .dport = 4791,			\
			.opcode = SYMPHONY_OP_RC_WRITE_FIRST, .b4 = 0x87,	\
			.b8 = 0xe8, .destqp = 0xabcdef, .psn = 0x123456,	\
			.payload = 20
#define UEC(is_v6)	.v6 = is_v6, .tos = 0xb8 | 1, .l4 = 17,		\
			.sport = 0x9abc, .dport = 4793, .uec = true,		\
			.psn = 0x89abcdef, .spdcid = 0x0102,			\
			.dpdcid = 0x0304, .ses_flags = 0x4b,			\
			.jobid = 0xfedcba, .payload = 16

/* Tables name a base packet, then the fields that differ from it: these
 * designated initializers override the base's on purpose.
 */
#pragma GCC diagnostic ignored "-Woverride-init"

/* What the RoCEv2 base packet parses into with the default fields. */
#define WANT_ROCE	.job = 1000, .step = 0x1234, .psn = 0x123456,	\
			.ecn = 2, .step_bits = 16, .psn_bits = 24
#define WANT_UEC	.job = 0xfedcba, .step = 0x0102, .psn = 0x89abcdef,	\
			.last = 1, .ecn = 1, .step_bits = 16, .psn_bits = 32

/* IPv4 RoCEv2 base packet, written out byte by byte. */
static const uint8_t lit_roce4[60] = {
	0x45, 0xba, 0x00, 0x3c, 0x00, 0x01, 0x00, 0x00,	/* IPv4, 60 bytes */
	0x40, 0x11, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x01,	/* TTL, UDP, src */
	0x0a, 0x00, 0x00, 0x02,				/* dst */
	0x12, 0x34, 0x12, 0xb7, 0x00, 0x28, 0x00, 0x00,	/* UDP > 4791, 40 */
	0x06, 0x00, 0xff, 0xff, 0x87, 0xab, 0xcd, 0xef,	/* BTH */
	0xe8, 0x12, 0x34, 0x56,
	/* 20 bytes of payload and ICRC, zero */
};

/* IPv6 UEC base packet with ECN 3 and flow label 0x12345. */
static const uint8_t lit_uec6[84] = {
	0x6b, 0xb1, 0x23, 0x45, 0x00, 0x2c, 0x11, 0x40,	/* TC 0xbb, 44 bytes */
	0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01,
	0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02,
	0x9a, 0xbc, 0x12, 0xb9, 0x00, 0x2c, 0x00, 0x00,	/* UDP > 4793, 44 */
	0x13, 0x00, 0x00, 0x00, 0x89, 0xab, 0xcd, 0xef,	/* PDS, PSN */
	0x01, 0x02, 0x03, 0x04,				/* SPDCID, DPDCID */
	0x02, 0x4b, 0x00, 0x07, 0x00, 0xfe, 0xdc, 0xba,	/* SES, JobID */
	/* 16 bytes of payload, zero */
};

/* IPv6 extension headers; the last next header of each chain is UDP. */
static const uint8_t ext_hbh[] = {		/* hop-by-hop, PadN */
	17, 0, 1, 4, 0, 0, 0, 0,
};
static const uint8_t ext_three[] = {
	43, 0, 1, 4, 0, 0, 0, 0,		/* hop-by-hop > routing */
	60, 1, 0, 0, 0, 0, 0, 0,		/* routing, 16 bytes > dest */
	0, 0, 0, 0, 0, 0, 0, 0,
	17, 0, 1, 4, 0, 0, 0, 0,		/* destination options > UDP */
};
static const uint8_t ext_four[] = {		/* hop-by-hop, 3 dest opts */
	60, 0, 1, 4, 0, 0, 0, 0,
	60, 0, 1, 4, 0, 0, 0, 0,
	60, 0, 1, 4, 0, 0, 0, 0,
	17, 0, 1, 4, 0, 0, 0, 0,
};
static const uint8_t ext_five[] = {		/* one more than walked */
	60, 0, 1, 4, 0, 0, 0, 0,
	60, 0, 1, 4, 0, 0, 0, 0,
	60, 0, 1, 4, 0, 0, 0, 0,
	60, 0, 1, 4, 0, 0, 0, 0,
	17, 0, 1, 4, 0, 0, 0, 0,
};
static const uint8_t ext_frag[] = {		/* fragment, offset 0, M */
	17, 0, 0x00, 0x01, 0x12, 0x34, 0x56, 0x78,
};
static const uint8_t ext_long[] = {		/* claims 88 bytes */
	17, 10, 1, 4, 0, 0, 0, 0,
};

#define EXT(e, first)	.ext = e, .ext_len = sizeof(e), .ext_first = first

static const struct symphony_parse_cfg cfg_default = {
	.job_field = SYMPHONY_FIELD_BTH_RSVD,
	.step_field = SYMPHONY_FIELD_UDP_SPORT,
};

struct patch {
	uint8_t off, val;
};

struct parse_case {
	const char		*name;
	struct pspec		spec;
	const struct symphony_parse_cfg *cfg;	/* NULL: cfg_default */
	int			len_adj;	/* pkt_len = built length + this */
	int			avail;		/* 0: pkt_len */
	struct patch		patch[4];	/* bytes changed after build */
	unsigned int		npatch;
	enum symphony_parse_result want;
	struct symphony_pkt	pkt;		/* when COLLECTIVE */
};

static const struct symphony_parse_cfg cfg_qp_rsvd = {
	.job_field = SYMPHONY_FIELD_BTH_DESTQP,
	.step_field = SYMPHONY_FIELD_BTH_RSVD,
};
static const struct symphony_parse_cfg cfg_sport_qp = {
	.job_field = SYMPHONY_FIELD_UDP_SPORT,
	.step_field = SYMPHONY_FIELD_BTH_DESTQP,
};

#define COLL	SYMPHONY_PARSE_COLLECTIVE
#define OTHER	SYMPHONY_PARSE_OTHER
#define BAD	SYMPHONY_PARSE_MALFORMED

/*
 * Offsets for patches: IPv4 total length 2-3, UDP length 24-25 (IPv4) or
 * 44-45 (IPv6), IPv6 payload length 4-5.  The RoCEv2 base packet is 60
 * bytes over IPv4 and 80 over IPv6; BTH ends at 40 and 60.  The UEC one
 * is 64 and 84 bytes; SES ends at 48 and 68.
 */
static const struct parse_case parse_cases[] = {
	/* RoCEv2 opcodes */
	{ "v4 RoCEv2 RC WRITE FIRST", { ROCE(false) },
	  .want = COLL, .pkt = { WANT_ROCE } },
	{ "v4 RoCEv2 RC WRITE MIDDLE", { ROCE(false), .opcode = 0x07 },
	  .want = COLL, .pkt = { WANT_ROCE } },
	{ "v4 RoCEv2 RC WRITE LAST: last", { ROCE(false), .opcode = 0x08 },
	  .want = COLL, .pkt = { WANT_ROCE, .last = 1 } },
	{ "v4 RoCEv2 RC WRITE LAST with immediate: last",
	  { ROCE(false), .opcode = 0x09 },
	  .want = COLL, .pkt = { WANT_ROCE, .last = 1 } },
	{ "v4 RoCEv2 RC WRITE ONLY: last", { ROCE(false), .opcode = 0x0a },
	  .want = COLL, .pkt = { WANT_ROCE, .last = 1 } },
	{ "v4 RoCEv2 RC SEND MIDDLE", { ROCE(false), .opcode = 0x01 },
	  .want = COLL, .pkt = { WANT_ROCE } },
	{ "v4 RoCEv2 RC SEND LAST: last", { ROCE(false), .opcode = 0x02 },
	  .want = COLL, .pkt = { WANT_ROCE, .last = 1 } },
	{ "v4 RoCEv2 RC SEND ONLY: last", { ROCE(false), .opcode = 0x04 },
	  .want = COLL, .pkt = { WANT_ROCE, .last = 1 } },
	{ "v4 RoCEv2 UC WRITE LAST: last", { ROCE(false), .opcode = 0x28 },
	  .want = COLL, .pkt = { WANT_ROCE, .last = 1 } },
	{ "v4 RoCEv2 UC WRITE FIRST", { ROCE(false), .opcode = 0x26 },
	  .want = COLL, .pkt = { WANT_ROCE } },
	{ "v4 RoCEv2 RDMA READ request: other", { ROCE(false), .opcode = 0x0c },
	  .want = OTHER },
	{ "v4 RoCEv2 CNP 0x81: other", { ROCE(false), .opcode = 0x81 },
	  .want = OTHER },
	{ "v4 RoCEv2 ACK 0x11: other", { ROCE(false), .opcode = 0x11 },
	  .want = OTHER },
	{ "v4 RoCEv2 RD SEND FIRST 0x40: other", { ROCE(false), .opcode = 0x40 },
	  .want = OTHER },
	{ "v6 RoCEv2 WRITE MIDDLE, ECT(1)",
	  { ROCE(true), .opcode = 0x07, .tos = 0xb8 | 1, .flow = 0xfffff },
	  .want = COLL, .pkt = { WANT_ROCE, .ecn = 1 } },
	{ "v6 RoCEv2 SEND LAST, CE: last",
	  { ROCE(true), .opcode = 0x02, .tos = 0xb8 | 3 },
	  .want = COLL, .pkt = { WANT_ROCE, .last = 1, .ecn = 3 } },

	/* ECN field */
	{ "v4 ECN not-ECT under DSCP 46", { ROCE(false), .tos = 0xb8 },
	  .want = COLL, .pkt = { WANT_ROCE, .ecn = 0 } },
	{ "v4 ECN CE", { ROCE(false), .tos = 0x03 },
	  .want = COLL, .pkt = { WANT_ROCE, .ecn = 3 } },
	{ "v4 ECN ECT(1) under DSCP 63", { ROCE(false), .tos = 0xfd },
	  .want = COLL, .pkt = { WANT_ROCE, .ecn = 1 } },
	{ "v6 ECN not-ECT, traffic class 0xfc, flow label 0xfffff",
	  { ROCE(true), .tos = 0xfc, .flow = 0xfffff },
	  .want = COLL, .pkt = { WANT_ROCE, .ecn = 0 } },
	{ "v6 ECN ECT(0), traffic class 0x02", { ROCE(true), .tos = 0x02 },
	  .want = COLL, .pkt = { WANT_ROCE, .ecn = 2 } },

	/* Field choices */
	{ "job DestQP (24 bits), step BTH reserved (13 bits)", { ROCE(false) },
	  .cfg = &cfg_qp_rsvd, .want = COLL,
	  .pkt = { WANT_ROCE, .job = 0xabcdef, .step = 1000, .step_bits = 13 } },
	{ "job UDP source port, step DestQP (24 bits)", { ROCE(false) },
	  .cfg = &cfg_sport_qp, .want = COLL,
	  .pkt = { WANT_ROCE, .job = 0x1234, .step = 0xabcdef,
		   .step_bits = 24 } },
	{ "BTH reserved bits all set, FECN/BECN/AckReq clear: 8191",
	  { ROCE(false), .b4 = 0x3f, .b8 = 0x7f },
	  .want = COLL, .pkt = { WANT_ROCE, .job = 8191 } },
	{ "BTH reserved bits clear, FECN/BECN/AckReq set: job 0, untagged: other",
	  { ROCE(false), .b4 = 0xc0, .b8 = 0x80 },
	  .want = OTHER },
	{ "v6 job DestQP 0: untagged, other", { ROCE(true), .destqp = 0 },
	  .cfg = &cfg_qp_rsvd, .want = OTHER },
	{ "BTH PSN 0xffffff, source port 0xffff",
	  { ROCE(false), .psn = 0xffffff, .sport = 0xffff },
	  .want = COLL,
	  .pkt = { WANT_ROCE, .psn = 0xffffff, .step = 0xffff } },

	/* UEC */
	{ "v4 UEC, EOM: last", { UEC(false) }, .want = COLL,
	  .pkt = { WANT_UEC } },
	{ "v6 UEC, no EOM", { UEC(true), .ses_flags = 0x4d }, .want = COLL,
	  .pkt = { WANT_UEC, .last = 0 } },
	{ "v6 UEC, only EOM", { UEC(true), .ses_flags = 0x02 }, .want = COLL,
	  .pkt = { WANT_UEC } },
	{ "v4 UEC ignores the RoCEv2 field choice", { UEC(false) },
	  .cfg = &cfg_qp_rsvd, .want = COLL, .pkt = { WANT_UEC } },
	{ "v4 UEC, JobID 0: untagged, other", { UEC(false), .jobid = 0 },
	  .want = OTHER },
	{ "v4 UEC, 32-bit PSN 0xffffffff, SPDCID 0xffff, JobID 0xffffff",
	  { UEC(false), .psn = 0xffffffff, .spdcid = 0xffff,
	    .jobid = 0xffffff },
	  .want = COLL, .pkt = { WANT_UEC, .psn = 0xffffffff, .step = 0xffff,
				 .job = 0xffffff } },

	/* IPv4 */
	{ "v4 Don't Fragment: parsed", { ROCE(false), .frag = 0x4000 },
	  .want = COLL, .pkt = { WANT_ROCE } },
	{ "v4 More Fragments: other", { ROCE(false), .frag = 0x2000 },
	  .want = OTHER },
	{ "v4 fragment offset 8 bytes: other", { ROCE(false), .frag = 0x0001 },
	  .want = OTHER },
	{ "v4 last fragment, offset 8191 words: other",
	  { ROCE(false), .frag = 0x1fff }, .want = OTHER },
	{ "v4 with 8 bytes of options", { ROCE(false), .v4_opt_words = 2 },
	  .want = COLL, .pkt = { WANT_ROCE } },
	{ "v4 Ethernet padding after the datagram", { ROCE(false) },
	  .len_adj = 6, .want = COLL, .pkt = { WANT_ROCE } },
	{ "v4 TCP: other", { ROCE(false), .l4 = 6 }, .want = OTHER },
	{ "v4 protocol 145 (UDP's 17 with the top bit set): other",
	  { ROCE(false), .l4 = 145 }, .want = OTHER },
	{ "v4 UDP to port 5047 (4791 with bit 8 set): other",
	  { ROCE(false), .dport = 4791 | 0x0100 }, .want = OTHER },
	{ "v4 UDP to port 4790: other", { ROCE(false), .dport = 4790 },
	  .want = OTHER },

	/* IPv6 extension headers */
	{ "v6 hop-by-hop then UDP: parsed", { ROCE(true), EXT(ext_hbh, 0) },
	  .want = COLL, .pkt = { WANT_ROCE } },
	{ "v6 hop-by-hop, routing, destination options: parsed",
	  { UEC(true), EXT(ext_three, 0) }, .want = COLL, .pkt = { WANT_UEC } },
	{ "v6 four option headers: parsed", { ROCE(true), EXT(ext_four, 0) },
	  .want = COLL, .pkt = { WANT_ROCE } },
	{ "v6 five option headers, more than walked: other",
	  { ROCE(true), EXT(ext_five, 0) }, .want = OTHER },
	{ "v6 fragment header: other", { ROCE(true), EXT(ext_frag, 44) },
	  .want = OTHER },
	{ "v6 option header longer than the payload: malformed",
	  { ROCE(true), EXT(ext_long, 0) }, .want = BAD },
	{ "v6 option header cut by the payload length: malformed",
	  { ROCE(true), EXT(ext_hbh, 0) },
	  .patch = { { 4, 0 }, { 5, 1 } }, .npatch = 2, .want = BAD },
	{ "v6 ICMPv6: other", { ROCE(true), .l4 = 58 }, .want = OTHER },
	{ "v6 no next header: other", { ROCE(true), .l4 = 59 }, .want = OTHER },

	/* Truncated and inconsistent */
	{ "v4 19 bytes: malformed", { ROCE(false) }, .len_adj = -41,
	  .want = BAD },
	{ "v6 39 bytes: malformed", { ROCE(true) }, .len_adj = -41,
	  .want = BAD },
	{ "v4 total length beyond the packet: malformed", { ROCE(false) },
	  .len_adj = -1, .want = BAD },
	{ "v4 total length 61 in 60 bytes: malformed", { ROCE(false) },
	  .patch = { { 3, 61 } }, .npatch = 1, .want = BAD },
	{ "v4 total length below the header: malformed", { ROCE(false) },
	  .patch = { { 3, 19 } }, .npatch = 1, .want = BAD },
	{ "v4 total length leaves 7 bytes for UDP: malformed", { ROCE(false) },
	  .patch = { { 3, 27 } }, .npatch = 1, .want = BAD },
	{ "v4 header length 16 bytes: malformed", { ROCE(false) },
	  .patch = { { 0, 0x44 } }, .npatch = 1, .want = BAD },
	{ "v4 packet with IP version 6: malformed", { ROCE(false) },
	  .patch = { { 0, 0x65 } }, .npatch = 1, .want = BAD },
	{ "v6 packet with IP version 4: malformed", { ROCE(true) },
	  .patch = { { 0, 0x4b } }, .npatch = 1, .want = BAD },
	{ "v6 payload length beyond the packet: malformed", { ROCE(true) },
	  .len_adj = -1, .want = BAD },
	{ "v4 UDP length 19, too short for a BTH: malformed", { ROCE(false) },
	  .patch = { { 25, 19 } }, .npatch = 1, .want = BAD },
	{ "v4 UDP length 20, just a BTH: parsed", { ROCE(false) },
	  .patch = { { 25, 20 } }, .npatch = 1, .want = COLL,
	  .pkt = { WANT_ROCE } },
	{ "v4 UDP length 7: malformed", { ROCE(false) },
	  .patch = { { 25, 7 } }, .npatch = 1, .want = BAD },
	{ "v4 UDP length beyond the IP datagram: malformed", { ROCE(false) },
	  .patch = { { 25, 41 } }, .npatch = 1, .want = BAD },
	{ "v6 UDP length 19, too short for a BTH: malformed", { ROCE(true) },
	  .patch = { { 45, 19 } }, .npatch = 1, .want = BAD },
	{ "v4 UEC UDP length 27, too short for PDS + SES: malformed",
	  { UEC(false) }, .patch = { { 25, 27 } }, .npatch = 1, .want = BAD },
	{ "v4 UEC UDP length 28, just PDS + SES: parsed", { UEC(false) },
	  .patch = { { 25, 28 } }, .npatch = 1, .want = COLL,
	  .pkt = { WANT_UEC } },
	{ "v4 truncated, bytes available beyond pkt_len: malformed",
	  { ROCE(false) }, .len_adj = -1, .avail = 200, .want = BAD },

	/* Fewer bytes available than needed, packet long enough */
	{ "v4 19 bytes available: other", { ROCE(false) }, .avail = 19,
	  .want = OTHER },
	{ "v4 27 bytes available, UDP header cut: other", { ROCE(false) },
	  .avail = 27, .want = OTHER },
	{ "v4 39 bytes available, BTH cut: other", { ROCE(false) },
	  .avail = 39, .want = OTHER },
	{ "v4 40 bytes available, BTH complete: parsed", { ROCE(false) },
	  .avail = 40, .want = COLL, .pkt = { WANT_ROCE } },
	{ "v6 39 bytes available: other", { ROCE(true) }, .avail = 39,
	  .want = OTHER },
	{ "v6 59 bytes available, BTH cut: other", { ROCE(true) },
	  .avail = 59, .want = OTHER },
	{ "v6 60 bytes available, BTH complete: parsed", { ROCE(true) },
	  .avail = 60, .want = COLL, .pkt = { WANT_ROCE } },
	{ "v6 41 bytes available, option header cut: other",
	  { ROCE(true), EXT(ext_hbh, 0) }, .avail = 41, .want = OTHER },
	{ "v4 UEC 47 bytes available, SES cut: other", { UEC(false) },
	  .avail = 47, .want = OTHER },
	{ "v4 UEC 48 bytes available, SES complete: parsed", { UEC(false) },
	  .avail = 48, .want = COLL, .pkt = { WANT_UEC } },
	{ "v4 19 bytes available of a malformed header: other",
	  { ROCE(false) }, .avail = 19, .patch = { { 0, 0x65 } }, .npatch = 1,
	  .want = OTHER },
};

static const char *const result_names[] = {
	[SYMPHONY_PARSE_OTHER] = "OTHER",
	[SYMPHONY_PARSE_COLLECTIVE] = "COLLECTIVE",
	[SYMPHONY_PARSE_MALFORMED] = "MALFORMED",
};

static void expect_pkt(const struct symphony_pkt *want,
		       const struct symphony_pkt *got)
{
	expect_u64("job", want->job, got->job);
	expect_u64("step", want->step, got->step);
	expect_u64("psn", want->psn, got->psn);
	expect_u64("last", want->last, got->last);
	expect_u64("ecn", want->ecn, got->ecn);
	expect_u64("step_bits", want->step_bits, got->step_bits);
	expect_u64("psn_bits", want->psn_bits, got->psn_bits);
}

static void run_parse_case(const struct parse_case *c)
{
	uint8_t buf[256];
	struct symphony_pkt pkt, generic;
	enum symphony_parse_result r, r_generic;
	uint32_t pkt_len, avail;
	unsigned int i;

	memset(buf, 0, sizeof(buf));
	pkt_len = build(buf, &c->spec) + c->len_adj;
	for (i = 0; i < c->npatch; i++)
		buf[c->patch[i].off] = c->patch[i].val;
	avail = c->avail ? (uint32_t)c->avail : pkt_len;
	memset(&pkt, 0xa5, sizeof(pkt));

	r = symphony_parse(buf, avail, pkt_len, c->spec.v6,
			   c->cfg ? c->cfg : &cfg_default, &pkt);
	/* The IPv4 RoCEv2 fast path must agree with the generic parser. */
	memset(&generic, 0xa5, sizeof(generic));
	r_generic = symphony_parse_generic(buf, avail, pkt_len, c->spec.v6,
					   c->cfg ? c->cfg : &cfg_default,
					   &generic);
	expect_u64("result of symphony_parse_generic()", r, r_generic);
	if (r == SYMPHONY_PARSE_COLLECTIVE)
		expect_pkt(&generic, &pkt);
	if (r != c->want) {
		tap_fail("# result: expected %s, got %s (%u bytes, %u available)\n",
		      result_names[c->want],
		      r <= SYMPHONY_PARSE_MALFORMED ? result_names[r] : "?",
		      pkt_len, avail);
	} else if (r == SYMPHONY_PARSE_COLLECTIVE) {
		expect_pkt(&c->pkt, &pkt);
	}
}

static void test_parse(void)
{
	static const struct pspec roce4 = { ROCE(false) };
	static const struct pspec uec6 = { UEC(true), .tos = 0xbb,
					   .flow = 0x12345 };
	const struct symphony_pkt want_uec6 = { WANT_UEC, .ecn = 3 };
	const struct symphony_pkt want_roce4 = { WANT_ROCE };
	struct symphony_pkt pkt;
	uint8_t buf[256];
	unsigned int i;
	size_t len;

	/* The builder against packets written out by hand. */
	tap_point_start();
	len = build(buf, &roce4);
	expect_u64("length", sizeof(lit_roce4), len);
	expect_u64("bytes differ", 0,
		   len == sizeof(lit_roce4) ? !!memcmp(buf, lit_roce4, len) : 1);
	memset(&pkt, 0, sizeof(pkt));
	expect_u64("result", COLL,
		   symphony_parse(lit_roce4, sizeof(lit_roce4),
				  sizeof(lit_roce4), false, &cfg_default, &pkt));
	expect_pkt(&want_roce4, &pkt);
	tap_point_end("parse: hand-written IPv4 RoCEv2 WRITE FIRST");

	tap_point_start();
	len = build(buf, &uec6);
	expect_u64("length", sizeof(lit_uec6), len);
	expect_u64("bytes differ", 0,
		   len == sizeof(lit_uec6) ? !!memcmp(buf, lit_uec6, len) : 1);
	memset(&pkt, 0, sizeof(pkt));
	expect_u64("result", COLL,
		   symphony_parse(lit_uec6, sizeof(lit_uec6), sizeof(lit_uec6),
				  true, &cfg_default, &pkt));
	expect_pkt(&want_uec6, &pkt);
	tap_point_end("parse: hand-written IPv6 UEC, CE");

	for (i = 0; i < ARRAY_SIZE(parse_cases); i++) {
		tap_point_start();
		run_parse_case(&parse_cases[i]);
		tap_point_end("parse: %s", parse_cases[i].name);
	}
}

/* ------------------------------------------------------------------ */
/* symphony_job_update */

struct upd_row {
	uint8_t		j;		/* which of the scenario's jobs */
	uint32_t	step, psn;
	uint8_t		last;
	uint64_t	now;
	uint32_t	segs;
	/* expected return values and state of job j after the update */
	uint32_t	prob;
	uint8_t		op;		/* *outpacing */
	uint32_t	step_min, psn_rec, alpha, total, cnt_op;
	uint64_t	windows, wstart;
	const char	*what;
};

struct upd_scenario {
	const char			*name;
	struct symphony_params		params;
	uint8_t				step_bits, psn_bits;
	struct symphony_job		init[2];	/* before the first row */
	const struct upd_row		*rows;
	unsigned int			nrows;
};

/*
 * Parameters of most scenarios: k 0.01, tau 0.25, N_warmup 16,
 * N_sample 4, alpha_max 3, T_win 100 us.
 */
#define P_STD	{ .k_ppm = 10000, .tau_ppm = 250000, .warmup_psn = 16,	\
		  .sample_min_packets = 4, .alpha_max = 3, .twin_ns = 100000 }

/*
 * Rows: job, step, psn, last, now_ns, segs, then the expected probability,
 * outpacing, step_min, psn_rec, alpha, cnt_total, cnt_op, windows,
 * window_start_ns.  Probabilities: mark_prob's formula (see mark_cases):
 * floor(floor(psn * 2^16 / psn_rec) * k * alpha * 2^16 / 10^6).
 */
static const struct upd_row rows_basic[] = {
	{ 0, 5, 10, 0, 1000, 1,  0, 0,  5, 10, 1, 1, 0, 0, 1000,
	  "first packet initialises step_min and psn_rec" },
	{ 0, 5, 20, 0, 2000, 1,  0, 0,  5, 20, 1, 2, 0, 0, 1000,
	  "lagging packet raises psn_rec, not marked" },
	/* 5 * 65536 / 20 = 16384; 16384 * 10000 * 65536 / 10^6 = 10737418.24 */
	{ 0, 6, 5, 0, 3000, 1,  10737418, 1,  5, 20, 1, 3, 1, 0, 1000,
	  "outpacing packet: k * psn / psn_rec = 0.0025" },
	{ 0, 5, 15, 0, 4000, 1,  0, 0,  5, 20, 1, 4, 1, 0, 1000,
	  "reordered older PSN leaves psn_rec" },
	{ 0, 5, 20, 0, 5000, 1,  0, 0,  5, 20, 1, 5, 1, 0, 1000,
	  "duplicate PSN leaves psn_rec" },
	/* 40 * 65536 / 20 = 131072: 85899345.92 */
	{ 0, 6, 40, 0, 6000, 1,  85899345, 1,  5, 20, 1, 6, 2, 0, 1000,
	  "outpacing packet ahead of psn_rec: 0.02" },
	{ 0, 5, 21, 1, 7000, 1,  0, 0,  6, 0, 1, 7, 2, 0, 1000,
	  "LAST: step_min = step + 1, psn_rec = 0" },
	{ 0, 6, 41, 0, 8000, 1,  0, 0,  6, 41, 1, 8, 2, 0, 1000,
	  "next step is now step_min: lagging" },
	/* 3 * 65536 / 41 = 4795.3; 4795 * 10000 * 65536 / 10^6 = 3142451.2 */
	{ 0, 7, 3, 0, 9000, 1,  3142451, 1,  6, 41, 1, 9, 3, 0, 1000,
	  "step after it is outpacing" },
};

static const struct upd_row rows_warmup[] = {
	{ 0, 0, 16, 0, 0, 1,  0, 0,  0, 16, 1, 1, 0, 0, 0, "first packet" },
	{ 0, 1, 100, 0, 10, 1,  0, 1,  0, 16, 1, 2, 1, 0, 0,
	  "outpacing, psn_rec 16 <= N_warmup: not marked" },
	{ 0, 0, 17, 0, 20, 1,  0, 0,  0, 17, 1, 3, 1, 0, 0,
	  "psn_rec 17 passes the warm-up" },
	/* 100 * 65536 / 17 = 385505.9; 385505 * 10000 * 65536 / 10^6 =
	 * 252644556.8
	 */
	{ 0, 1, 100, 0, 30, 1,  252644556, 1,  0, 17, 1, 4, 2, 0, 0,
	  "outpacing after the warm-up: marked" },
	/* 65536 / 17 = 3855.1; 3855 * 10000 * 65536 / 10^6 = 2526412.8 */
	{ 0, 2, 1, 0, 40, 1,  2526412, 1,  0, 17, 1, 5, 3, 0, 0,
	  "two steps ahead, psn 1" },
	/* 0xffffff / 17 * 0.01 > 1 */
	{ 0, 1, 0xffffff, 0, 50, 1,  ALWAYS, 1,  0, 17, 1, 6, 4, 0, 0,
	  "far ahead: probability saturates" },
};

static const struct upd_row rows_late[] = {
	{ 0, 10, 100, 0, 0, 1,  0, 0,  10, 100, 1, 1, 0, 0, 0, "first packet" },
	{ 0, 10, 200, 1, 1, 1,  0, 0,  11, 0, 1, 2, 0, 0, 0,
	  "one flow's LAST advances step_min optimistically" },
	{ 0, 11, 50, 0, 2, 1,  0, 0,  11, 50, 1, 3, 0, 0, 0,
	  "next step's packet is lagging" },
	{ 0, 10, 150, 0, 3, 1,  0, 0,  10, 150, 1, 4, 0, 0, 0,
	  "late packet of the older step corrects step_min and psn_rec" },
	/* 60 * 65536 / 150 = 26214.4; 26214 * 10000 * 65536 / 10^6 =
	 * 17179607.04
	 */
	{ 0, 11, 60, 0, 4, 1,  17179607, 1,  10, 150, 1, 5, 1, 0, 0,
	  "step 11 is outpacing again" },
	{ 0, 12, 5, 1, 5, 1,  0, 1,  13, 0, 1, 6, 2, 0, 0,
	  "LAST of an outpacing step: step_min = 13" },
	{ 0, 10, 151, 0, 6, 1,  0, 0,  10, 151, 1, 7, 2, 0, 0,
	  "step 10 corrects step_min again" },
	/* 6 * 65536 / 151 = 2604.1; 2604 * 10000 * 65536 / 10^6 = 1706557.44 */
	{ 0, 12, 6, 0, 7, 1,  1706557, 1,  10, 151, 1, 8, 3, 0, 0,
	  "step 12 is outpacing" },
};

static const struct upd_row rows_lost_last[] = {
	{ 0, 3, 30, 0, 0, 1,  0, 0,  3, 30, 1, 1, 0, 0, 0, "first packet" },
	{ 0, 3, 31, 0, 1, 1,  0, 0,  3, 31, 1, 2, 0, 0, 0,
	  "step 3 progresses; its LAST (psn 32) is lost" },
	/* 65536 / 31 = 2114.1; 2114 * 10000 * 65536 / 10^6 = 1385431.04 */
	{ 0, 4, 1, 0, 2, 1,  1385431, 1,  3, 31, 1, 3, 1, 0, 0,
	  "step 4 is outpacing against the stale step_min" },
	/* 2 * 65536 / 31 = 4228.1; 4228 * 10000 * 65536 / 10^6 = 2770862.08 */
	{ 0, 4, 2, 0, 3, 1,  2770862, 1,  3, 31, 1, 4, 2, 0, 0,
	  "and throttled while it lasts" },
	{ 0, 4, 3, 1, 4, 1,  0, 1,  5, 0, 1, 5, 3, 0, 0,
	  "step 4's LAST resynchronises: step_min 5" },
	{ 0, 5, 1, 0, 5, 1,  0, 0,  5, 1, 1, 6, 3, 0, 0,
	  "step 5 is lagging" },
};

/* Window rolls: alpha follows cnt_op >= tau * cnt_total once
 * cnt_total > N_sample (4); each roll resets psn_rec and the counters.
 */
static const struct upd_row rows_window[] = {
	{ 0, 0, 100, 0, 0, 1,  0, 0,  0, 100, 1, 1, 0, 0, 0, "first packet" },
	/* 50 * 65536 / 100 = 32768: 21474836.48 */
	{ 0, 1, 50, 0, 10, 1,  21474836, 1,  0, 100, 1, 2, 1, 0, 0,
	  "outpacing" },
	{ 0, 0, 101, 0, 20, 1,  0, 0,  0, 101, 1, 3, 1, 0, 0, "lagging" },
	{ 0, 0, 102, 0, 30, 1,  0, 0,  0, 102, 1, 4, 1, 0, 0, "lagging" },
	{ 0, 0, 103, 0, 40, 1,  0, 0,  0, 103, 1, 5, 1, 0, 0, "lagging" },
	{ 0, 1, 60, 0, 100000, 1,  0, 1,  0, 0, 1, 1, 1, 1, 100000,
	  "roll, 1 of 5 outpacing < tau: alpha stays 1; psn_rec reset" },
	{ 0, 0, 110, 0, 100010, 1,  0, 0,  0, 110, 1, 2, 1, 1, 100000,
	  "lagging sets psn_rec" },
	/* 61 * 65536 / 110 = 36342.7: 36342 * 10000 * 65536 / 10^6 =
	 * 23817093.12
	 */
	{ 0, 1, 61, 0, 100020, 1,  23817093, 1,  0, 110, 1, 3, 2, 1, 100000,
	  "outpacing" },
	/* 62 * 65536 / 110 = 36938.5: 24207687.68 */
	{ 0, 1, 62, 0, 100030, 1,  24207687, 1,  0, 110, 1, 4, 3, 1, 100000,
	  "outpacing" },
	/* 63 * 65536 / 110 = 37534.3: 24598282.24 */
	{ 0, 1, 63, 0, 100040, 1,  24598282, 1,  0, 110, 1, 5, 4, 1, 100000,
	  "outpacing" },
	{ 0, 1, 64, 0, 200040, 1,  0, 1,  0, 0, 2, 1, 1, 2, 200040,
	  "roll, 4 of 5 outpacing: alpha 2" },
	{ 0, 0, 120, 0, 200050, 1,  0, 0,  0, 120, 2, 2, 1, 2, 200040,
	  "lagging" },
	/* 65 * 65536 / 120 = 35498.7: 35498 * 20000 * 65536 / 10^6 =
	 * 46527938.56
	 */
	{ 0, 1, 65, 0, 200060, 1,  46527938, 1,  0, 120, 2, 3, 2, 2, 200040,
	  "outpacing with alpha 2" },
	{ 0, 0, 121, 0, 200070, 1,  0, 0,  0, 121, 2, 4, 2, 2, 200040,
	  "lagging" },
	{ 0, 1, 66, 0, 300040, 1,  0, 1,  0, 0, 2, 1, 1, 2, 300040,
	  "roll exactly T_win later, 4 packets, not > N_sample: alpha kept" },
	{ 0, 0, 130, 0, 300050, 1,  0, 0,  0, 130, 2, 2, 1, 2, 300040,
	  "lagging" },
	/* 67 * 65536 / 130 = 33776.2: 33776 * 20000 * 65536 / 10^6 =
	 * 44270878.72
	 */
	{ 0, 1, 67, 0, 300060, 1,  44270878, 1,  0, 130, 2, 3, 2, 2, 300040,
	  "outpacing" },
	/* 68 * 65536 / 130 = 34280.4: 44931481.6 */
	{ 0, 1, 68, 0, 300070, 1,  44931481, 1,  0, 130, 2, 4, 3, 2, 300040,
	  "outpacing" },
	/* 69 * 65536 / 130 = 34784.5: 45592084.48 */
	{ 0, 1, 69, 0, 300080, 1,  45592084, 1,  0, 130, 2, 5, 4, 2, 300040,
	  "outpacing" },
	/* 70 * 65536 / 130 = 35288.6: 35288 * 20000 * 65536 / 10^6 =
	 * 46252687.36
	 */
	{ 0, 1, 70, 0, 400039, 1,  46252687, 1,  0, 130, 2, 6, 5, 2, 300040,
	  "1 ns before the end of the window: no roll" },
	{ 0, 1, 70, 0, 400040, 1,  0, 1,  0, 0, 3, 1, 1, 3, 400040,
	  "roll, 5 of 6 outpacing: alpha 3" },
	{ 0, 0, 140, 0, 400050, 1,  0, 0,  0, 140, 3, 2, 1, 3, 400040,
	  "lagging" },
	/* 71 * 65536 / 140 = 33236.1: 33236 * 30000 * 65536 / 10^6 =
	 * 65344634.88
	 */
	{ 0, 1, 71, 0, 400060, 1,  65344634, 1,  0, 140, 3, 3, 2, 3, 400040,
	  "outpacing with alpha 3" },
	{ 0, 0, 141, 0, 400070, 1,  0, 0,  0, 141, 3, 4, 2, 3, 400040,
	  "lagging" },
	{ 0, 0, 142, 0, 400080, 1,  0, 0,  0, 142, 3, 5, 2, 3, 400040,
	  "lagging" },
	{ 0, 0, 150, 0, 500040, 1,  0, 0,  0, 150, 3, 1, 0, 4, 500040,
	  "roll, 2 of 5 outpacing: alpha capped at alpha_max 3" },
	{ 0, 0, 151, 0, 500050, 1,  0, 0,  0, 151, 3, 2, 0, 4, 500040,
	  "lagging" },
	{ 0, 0, 152, 0, 500060, 1,  0, 0,  0, 152, 3, 3, 0, 4, 500040,
	  "lagging" },
	{ 0, 0, 153, 0, 500070, 1,  0, 0,  0, 153, 3, 4, 0, 4, 500040,
	  "lagging" },
	{ 0, 0, 154, 0, 500080, 1,  0, 0,  0, 154, 3, 5, 0, 4, 500040,
	  "lagging" },
	{ 0, 0, 155, 0, 600040, 1,  0, 0,  0, 155, 2, 1, 0, 5, 600040,
	  "roll, 0 of 5 outpacing: alpha 2" },
};

/* tau boundary: T_win 1 us; cnt_op * 10^6 == tau * cnt_total counts. */
static const struct upd_row rows_tau[] = {
	{ 0, 0, 100, 0, 0, 1,  0, 0,  0, 100, 1, 1, 0, 0, 0, "first packet" },
	/* 10 * 65536 / 100 = 6553.6: 6553 * 10000 * 65536 / 10^6 =
	 * 4294574.08
	 */
	{ 0, 1, 10, 0, 1, 1,  4294574, 1,  0, 100, 1, 2, 1, 0, 0, "outpacing" },
	/* 11 * 65536 / 100 = 7208.96: 4723834.88 */
	{ 0, 1, 11, 0, 2, 1,  4723834, 1,  0, 100, 1, 3, 2, 0, 0, "outpacing" },
	{ 0, 0, 101, 0, 3, 1,  0, 0,  0, 101, 1, 4, 2, 0, 0, "lagging" },
	{ 0, 0, 102, 0, 4, 1,  0, 0,  0, 102, 1, 5, 2, 0, 0, "lagging" },
	{ 0, 0, 103, 0, 5, 1,  0, 0,  0, 103, 1, 6, 2, 0, 0, "lagging" },
	{ 0, 0, 104, 0, 6, 1,  0, 0,  0, 104, 1, 7, 2, 0, 0, "lagging" },
	{ 0, 0, 105, 0, 7, 1,  0, 0,  0, 105, 1, 8, 2, 0, 0, "lagging" },
	{ 0, 0, 106, 0, 1000, 1,  0, 0,  0, 106, 2, 1, 0, 1, 1000,
	  "roll, 2 of 8 outpacing == tau: alpha 2" },
	/* 12 * 65536 / 106 = 7419.2: 7419 * 20000 * 65536 / 10^6 =
	 * 9724231.68
	 */
	{ 0, 1, 12, 0, 1001, 1,  9724231, 1,  0, 106, 2, 2, 1, 1, 1000,
	  "outpacing" },
	{ 0, 0, 107, 0, 1002, 1,  0, 0,  0, 107, 2, 3, 1, 1, 1000, "lagging" },
	{ 0, 0, 108, 0, 1003, 1,  0, 0,  0, 108, 2, 4, 1, 1, 1000, "lagging" },
	{ 0, 0, 109, 0, 1004, 1,  0, 0,  0, 109, 2, 5, 1, 1, 1000, "lagging" },
	{ 0, 0, 110, 0, 2000, 1,  0, 0,  0, 110, 1, 1, 0, 2, 2000,
	  "roll, 1 of 5 outpacing < tau: alpha 1" },
};

/* 16-bit steps (UDP source port) wrap around. */
static const struct upd_row rows_step_wrap16[] = {
	{ 0, 65534, 100, 0, 0, 1,  0, 0,  65534, 100, 1, 1, 0, 0, 0,
	  "first packet, step 65534" },
	/* 5 * 65536 / 100 = 3276.8: 3276 * 10000 * 65536 / 10^6 = 2146959.36 */
	{ 0, 65535, 5, 0, 1, 1,  2146959, 1,  65534, 100, 1, 2, 1, 0, 0,
	  "step 65535 is outpacing" },
	{ 0, 0, 5, 0, 2, 1,  2146959, 1,  65534, 100, 1, 3, 2, 0, 0,
	  "step 0 is outpacing across the wrap" },
	{ 0, 65534, 101, 1, 3, 1,  0, 0,  65535, 0, 1, 4, 2, 0, 0,
	  "LAST of 65534: step_min 65535" },
	{ 0, 65535, 20, 0, 4, 1,  0, 0,  65535, 20, 1, 5, 2, 0, 0,
	  "step 65535 is lagging" },
	{ 0, 65535, 21, 1, 5, 1,  0, 0,  0, 0, 1, 6, 2, 0, 0,
	  "LAST of 65535: step_min wraps to 0" },
	{ 0, 0, 30, 0, 6, 1,  0, 0,  0, 30, 1, 7, 2, 0, 0,
	  "step 0 is then not outpacing" },
	/* psn == psn_rec: 42949672.96 */
	{ 0, 1, 30, 0, 7, 1,  42949672, 1,  0, 30, 1, 8, 3, 0, 0,
	  "step 1 is outpacing" },
	{ 0, 65535, 22, 0, 8, 1,  0, 0,  65535, 22, 1, 9, 3, 0, 0,
	  "late step 65535 corrects step_min back across the wrap" },
	/* 40 * 65536 / 22 = 119156.4: 119156 * 10000 * 65536 / 10^6 =
	 * 78090076.16
	 */
	{ 0, 0, 40, 0, 9, 1,  78090076, 1,  65535, 22, 1, 10, 4, 0, 0,
	  "step 0 is outpacing again" },
};

/* 13-bit steps (BTH reserved bits). */
static const struct upd_row rows_step_wrap13[] = {
	{ 0, 8191, 17, 0, 0, 1,  0, 0,  8191, 17, 1, 1, 0, 0, 0,
	  "first packet, step 8191" },
	/* 65536 / 17 = 3855.1: 2526412.8 */
	{ 0, 0, 1, 0, 1, 1,  2526412, 1,  8191, 17, 1, 2, 1, 0, 0,
	  "step 0 is outpacing across the wrap" },
	{ 0, 8191, 18, 1, 2, 1,  0, 0,  0, 0, 1, 3, 1, 0, 0,
	  "LAST of 8191: step_min wraps to 0" },
	{ 0, 0, 2, 0, 3, 1,  0, 0,  0, 2, 1, 4, 1, 0, 0, "step 0 is lagging" },
	{ 0, 4095, 50, 0, 4, 1,  0, 1,  0, 2, 1, 5, 2, 0, 0,
	  "step 4095 is outpacing (psn_rec 2 within warm-up)" },
	{ 0, 4097, 50, 0, 5, 1,  0, 0,  4097, 50, 1, 6, 2, 0, 0,
	  "step 4097 is 4095 behind: an older step" },
};

/* psn_rec keeps the serial-number maximum of 24-bit PSNs. */
static const struct upd_row rows_psn_wrap24[] = {
	{ 0, 2, 0xfffffd, 0, 0, 1,  0, 0,  2, 0xfffffd, 1, 1, 0, 0, 0,
	  "first packet, psn 0xfffffd" },
	{ 0, 2, 0xffffff, 0, 1, 1,  0, 0,  2, 0xffffff, 1, 2, 0, 0, 0,
	  "psn 0xffffff" },
	{ 0, 2, 2, 0, 2, 1,  0, 0,  2, 2, 1, 3, 0, 0, 0,
	  "psn 2 after the wrap is the maximum" },
	{ 0, 2, 0xfffffe, 0, 3, 1,  0, 0,  2, 2, 1, 4, 0, 0, 0,
	  "reordered psn 0xfffffe before the wrap leaves psn_rec" },
	{ 0, 3, 100, 0, 4, 1,  0, 1,  2, 2, 1, 5, 1, 0, 0,
	  "outpacing, psn_rec 2 within warm-up" },
	{ 0, 2, 17, 0, 5, 1,  0, 0,  2, 17, 1, 6, 1, 0, 0, "psn 17" },
	/* 100 * 65536 / 17: 252644556.8 */
	{ 0, 3, 100, 0, 6, 1,  252644556, 1,  2, 17, 1, 7, 2, 0, 0,
	  "outpacing, marked" },
	{ 0, 2, 17, 0, 7, 1,  0, 0,  2, 17, 1, 8, 2, 0, 0,
	  "duplicate psn 17" },
};

/* UEC: 32-bit PSNs. */
static const struct upd_row rows_psn_wrap32[] = {
	{ 0, 7, 0xfffffff0, 0, 0, 1,  0, 0,  7, 0xfffffff0, 1, 1, 0, 0, 0,
	  "first packet, psn 0xfffffff0" },
	{ 0, 7, 0x10, 0, 1, 1,  0, 0,  7, 0x10, 1, 2, 0, 0, 0,
	  "psn 16 after the wrap is the maximum" },
	{ 0, 8, 1000, 0, 2, 1,  0, 1,  7, 0x10, 1, 3, 1, 0, 0,
	  "outpacing, psn_rec 16 within warm-up" },
	{ 0, 7, 0xfffffff8, 0, 3, 1,  0, 0,  7, 0x10, 1, 4, 1, 0, 0,
	  "reordered psn before the wrap leaves psn_rec" },
	{ 0, 7, 0x11, 0, 4, 1,  0, 0,  7, 0x11, 1, 5, 1, 0, 0, "psn 17" },
	/* 2^31 * 2^16 / 17 * 0.01 > 1 */
	{ 0, 8, 0x80000000, 0, 5, 1,  ALWAYS, 1,  7, 0x11, 1, 6, 2, 0, 0,
	  "outpacing far ahead: saturates" },
};

/* The job's own k 0.02, tau 0.5, N_warmup 100 and N_sample 2 win. */
static const struct upd_row rows_override[] = {
	{ 0, 0, 50, 0, 0, 1,  0, 0,  0, 50, 1, 1, 0, 0, 0, "first packet" },
	{ 0, 1, 50, 0, 1, 1,  0, 1,  0, 50, 1, 2, 1, 0, 0,
	  "psn_rec 50 <= the job's N_warmup 100: not marked" },
	{ 0, 0, 200, 0, 2, 1,  0, 0,  0, 200, 1, 3, 1, 0, 0, "lagging" },
	/* 100 * 65536 / 200 = 32768: 32768 * 20000 * 65536 / 10^6 =
	 * 42949672.96
	 */
	{ 0, 1, 100, 0, 3, 1,  42949672, 1,  0, 200, 1, 4, 2, 0, 0,
	  "the job's k 0.02" },
	{ 0, 0, 10, 0, 100000, 1,  0, 0,  0, 10, 2, 1, 0, 1, 100000,
	  "roll: 4 > the job's N_sample 2, 2 of 4 >= its tau 0.5: alpha 2" },
	{ 0, 1, 10, 0, 100001, 1,  0, 1,  0, 10, 2, 2, 1, 1, 100000,
	  "outpacing within the job's warm-up" },
	{ 0, 0, 11, 0, 100002, 1,  0, 0,  0, 11, 2, 3, 1, 1, 100000,
	  "lagging" },
	{ 0, 0, 12, 0, 200000, 1,  0, 0,  0, 12, 1, 1, 0, 2, 200000,
	  "roll: 1 of 3 < the job's tau 0.5: alpha 1" },
};

static const struct upd_row rows_two_jobs[] = {
	{ 0, 5, 100, 0, 0, 1,  0, 0,  5, 100, 1, 1, 0, 0, 0,
	  "job A: first packet" },
	{ 1, 9, 30, 0, 1, 1,  0, 0,  9, 30, 1, 1, 0, 0, 1,
	  "job B: first packet" },
	/* 50 / 100: 21474836.48 */
	{ 0, 6, 50, 0, 2, 1,  21474836, 1,  5, 100, 1, 2, 1, 0, 0,
	  "job A: outpacing" },
	{ 1, 9, 40, 1, 3, 1,  0, 0,  10, 0, 1, 2, 0, 0, 1, "job B: LAST" },
	{ 0, 5, 101, 0, 4, 1,  0, 0,  5, 101, 1, 3, 1, 0, 0,
	  "job A: step_min unmoved by B's LAST" },
	{ 1, 10, 1, 0, 5, 1,  0, 0,  10, 1, 1, 3, 0, 0, 1,
	  "job B: lagging" },
	{ 0, 6, 101, 0, 6, 1,  42949672, 1,  5, 101, 1, 4, 2, 0, 0,
	  "job A: outpacing, psn_rec its own" },
};

static const struct upd_row rows_gso[] = {
	{ 0, 0, 100, 0, 0, 4,  0, 0,  0, 100, 1, 4, 0, 0, 0,
	  "lagging GSO packet of 4 segments" },
	{ 0, 1, 100, 0, 1, 3,  42949672, 1,  0, 100, 1, 7, 3, 0, 0,
	  "outpacing GSO packet of 3 segments" },
	{ 0, 0, 1, 0, 100000, 1,  0, 0,  0, 1, 2, 1, 0, 1, 100000,
	  "roll: 7 segments > N_sample 4 in 2 packets, 3 of 7 >= tau" },
};

/* A slot whose ACTIVE flag is clear is initialised whatever it holds. */
static const struct upd_row rows_init[] = {
	{ 0, 5, 10, 0, 1000, 1,  0, 0,  5, 10, 1, 1, 0, 0, 1000,
	  "stale slot: reinitialised" },
	{ 0, 6, 30, 0, 1001, 1,  0, 1,  5, 10, 1, 2, 1, 0, 1000,
	  "outpacing within warm-up" },
};

static const struct upd_row rows_first_last[] = {
	{ 0, 9, 3, 1, 0, 1,  0, 0,  10, 0, 1, 1, 0, 0, 0,
	  "first packet is a LAST: step_min = step + 1" },
	{ 0, 9, 4, 0, 1, 1,  0, 0,  9, 4, 1, 2, 0, 0, 0,
	  "then its step is older: step_min corrected" },
};

/* An active slot with alpha 0 (written through the map) counts as 1. */
static const struct upd_row rows_alpha0[] = {
	{ 0, 6, 100, 0, 10, 1,  42949672, 1,  5, 100, 1, 1, 1, 0, 0,
	  "alpha 0 is taken as 1" },
};

/* P_STD with T_win 1 us */
#define P_TAU	{ .k_ppm = 10000, .tau_ppm = 250000, .warmup_psn = 16,	\
		  .sample_min_packets = 4, .alpha_max = 3, .twin_ns = 1000 }

#define SCENARIO(n, p, sb, pb, r, ...)					\
	{ .name = n, .params = p, .step_bits = sb, .psn_bits = pb,	\
	  .rows = r, .nrows = ARRAY_SIZE(r), __VA_ARGS__ }

/* Jobs shared by qdiscs on several CPUs see timestamps from several
 * clocks: one slightly behind the window start must not end the window.
 */
static const struct upd_row rows_clock_skew[] = {
	{ 0, 0, 100, 0, 1000, 1,  0, 0,  0, 100, 1, 1, 0, 0, 1000,
	  "first packet at 1000 ns" },
	{ 0, 0, 101, 0, 900, 1,  0, 0,  0, 101, 1, 2, 0, 0, 1000,
	  "from a CPU 100 ns behind: same window" },
	{ 0, 0, 102, 0, 100999, 1,  0, 0,  0, 102, 1, 3, 0, 0, 1000,
	  "1 ns before twin: same window" },
	{ 0, 0, 103, 0, 101000, 1,  0, 0,  0, 103, 1, 1, 0, 0, 101000,
	  "twin after the start: new window, 3 samples kept alpha" },
};

static const struct upd_scenario scenarios[] = {
	SCENARIO("basic", P_STD, 16, 24, rows_basic),
	SCENARIO("warm-up", P_STD, 16, 24, rows_warmup),
	SCENARIO("late packets", P_STD, 16, 24, rows_late),
	SCENARIO("lost LAST", P_STD, 16, 24, rows_lost_last),
	SCENARIO("windows", P_STD, 16, 24, rows_window),
	SCENARIO("tau boundary", P_TAU, 16, 24, rows_tau),
	SCENARIO("16-bit step wrap", P_STD, 16, 24, rows_step_wrap16),
	SCENARIO("13-bit step wrap", P_STD, 13, 24, rows_step_wrap13),
	SCENARIO("24-bit PSN wrap", P_STD, 16, 24, rows_psn_wrap24),
	SCENARIO("32-bit PSN wrap", P_STD, 16, 32, rows_psn_wrap32),
	SCENARIO("per-job parameters", P_STD, 16, 24, rows_override,
		 .init = { { .k_ppm = 20000, .tau_ppm = 500000,
			     .warmup_psn = 100, .sample_min_packets = 2 } }),
	SCENARIO("two jobs", P_STD, 16, 24, rows_two_jobs),
	SCENARIO("GSO", P_STD, 16, 24, rows_gso),
	SCENARIO("stale slot", P_STD, 16, 24, rows_init,
		 .init = { { .step_min = 77, .psn_rec = 9999, .alpha = 0,
			     .cnt_total = 50, .cnt_op = 40,
			     .window_start_ns = 12345, .windows = 9 } }),
	SCENARIO("first packet LAST", P_STD, 16, 24, rows_first_last),
	SCENARIO("clock skew", P_STD, 16, 24, rows_clock_skew),
	SCENARIO("alpha 0", P_STD, 16, 24, rows_alpha0,
		 .init = { { .flags = SYMPHONY_JOB_F_ACTIVE, .step_min = 5,
			     .psn_rec = 100, .alpha = 0 } }),
};

/* Fields symphony_job_update() leaves alone: parameters and counters. */
static void expect_untouched(const struct symphony_job *want,
			     const struct symphony_job *got)
{
	expect_u64("k_ppm", want->k_ppm, got->k_ppm);
	expect_u64("tau_ppm", want->tau_ppm, got->tau_ppm);
	expect_u64("warmup_psn", want->warmup_psn, got->warmup_psn);
	expect_u64("sample_min_packets", want->sample_min_packets,
		   got->sample_min_packets);
	expect_u64("packets", want->packets, got->packets);
	expect_u64("bytes", want->bytes, got->bytes);
	expect_u64("outpacing_packets", want->outpacing_packets,
		   got->outpacing_packets);
	expect_u64("symphony_marks", want->symphony_marks, got->symphony_marks);
	expect_u64("red_marks", want->red_marks, got->red_marks);
}

static void run_scenario(const struct upd_scenario *s)
{
	struct symphony_job jobs[2], other;
	unsigned int i;

	memcpy(jobs, s->init, sizeof(jobs));
	for (i = 0; i < s->nrows; i++) {
		const struct upd_row *r = &s->rows[i];
		struct symphony_job *job = &jobs[r->j];
		struct symphony_pkt pkt = {
			.job = r->j,
			.step = r->step,
			.psn = r->psn,
			.last = r->last,
			.ecn = 2,
			.step_bits = s->step_bits,
			.psn_bits = s->psn_bits,
		};
		bool outpacing = !r->op;
		uint32_t prob;

		other = jobs[!r->j];
		tap_point_start();
		prob = symphony_job_update(job, &pkt, &s->params, r->now,
					   r->segs, &outpacing);
		expect_u64("probability", r->prob, prob);
		expect_u64("outpacing", r->op, outpacing);
		expect_u64("step_min", r->step_min, job->step_min);
		expect_u64("psn_rec", r->psn_rec, job->psn_rec);
		expect_u64("alpha", r->alpha, job->alpha);
		expect_u64("cnt_total", r->total, job->cnt_total);
		expect_u64("cnt_op", r->cnt_op, job->cnt_op);
		expect_u64("flags", SYMPHONY_JOB_F_ACTIVE, job->flags);
		/* a stale slot keeps its window count: only rolls add to it */
		expect_u64("windows", r->windows + s->init[r->j].windows,
			   job->windows);
		expect_u64("window_start_ns", r->wstart, job->window_start_ns);
		expect_u64("last_seen_ns", r->now, job->last_seen_ns);
		expect_untouched(&s->init[r->j], job);
		expect_u64("other job changed", 0,
			   !!memcmp(&other, &jobs[!r->j], sizeof(other)));
		tap_point_end("job_update %s [%u]: %s", s->name, i + 1, r->what);
	}
}

static void test_job_update(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(scenarios); i++)
		run_scenario(&scenarios[i]);
}

/*
 * The job's counters as the module, the program and the simulator keep
 * them: segments and bytes always, marks only where the packet can carry
 * them.
 */
static void test_job_count(void)
{
	struct symphony_job job = {};

	/* 3 segments ahead, ECT, both marks */
	symphony_job_count(&job, 3, 3000, true, true, true, true);
	/* 1 lagging segment that cannot carry marks (Not-ECT) */
	symphony_job_count(&job, 1, 1000, false, false, true, true);
	/* 2 segments, ECT, RED's mark only */
	symphony_job_count(&job, 2, 2000, false, true, true, false);
	tap_check(job.packets == 6 && job.bytes == 6000 &&
		  job.outpacing_packets == 3 && job.red_marks == 5 &&
		  job.symphony_marks == 3,
		  "job counters: packets %llu bytes %llu outpacing %llu red %llu symphony %llu (want 6 6000 3 5 3)",
		  (unsigned long long)job.packets, (unsigned long long)job.bytes,
		  (unsigned long long)job.outpacing_packets,
		  (unsigned long long)job.red_marks,
		  (unsigned long long)job.symphony_marks);
}

/*
 * The reset handshake: a bumped reset_gen is applied by the datapath's
 * next update of the job, under its lock, before anything reads the
 * block: the old state and counters go, the agent's parameters stay, and
 * the packet is the first of a fresh job.
 */
static void test_job_reset(void)
{
	struct symphony_params params = {
		.k_ppm = 10000, .tau_ppm = 100000, .warmup_psn = 0,
		.sample_min_packets = 0, .alpha_max = 100,
		.twin_ns = 1000000000ULL,
	};
	struct symphony_pkt pkt = {
		.job = 5, .step = 9, .psn = 40, .step_bits = 16,
		.psn_bits = 24,
	};
	struct symphony_job job = {
		.step_min = 3, .psn_rec = 1000, .alpha = 7, .cnt_total = 50,
		.cnt_op = 20, .flags = SYMPHONY_JOB_F_ACTIVE,
		.window_start_ns = 100, .last_seen_ns = 100, .k_ppm = 500000,
		.packets = 1000000000000ULL, .bytes = 5, .outpacing_packets = 4,
		.symphony_marks = 3, .red_marks = 2, .windows = 1,
	};
	bool outpacing;

	symphony_job_update(&job, &pkt, &params, 200, 1, &outpacing);
	tap_check(job.step_min == 3 && job.alpha == 7 && outpacing,
		  "without a reset asked for, an update keeps the job's state");
	job.reset_gen++;
	symphony_job_update(&job, &pkt, &params, 300, 1, &outpacing);
	symphony_job_count(&job, 1, 100, outpacing, true, false, false);
	tap_check(job.applied_gen == job.reset_gen && job.step_min == 9 &&
		  job.alpha == 1 && job.cnt_total == 1 && !outpacing &&
		  job.packets == 1 && job.bytes == 100 && job.windows == 0 &&
		  job.symphony_marks == 0 && job.red_marks == 0 &&
		  job.window_start_ns == 300 && job.k_ppm == 500000,
		  "a bumped reset_gen: the next update starts the job afresh, its parameters kept (step_min %u alpha %u packets %llu)",
		  job.step_min, job.alpha, (unsigned long long)job.packets);
}

/* ------------------------------------------------------------------ */
/* Seeds for the parser fuzzer */

/*
 * Input layout of selftests/fuzz/fuzz_symphony_parse.c (described there):
 * a 20-byte header (byte 0: bit 0 IPv6, bits 1-2 job field, bits 3-4 step
 * field, bit 5 preset job state; byte 1: available bytes + 1, 0 for what
 * the qdisc reads; byte 2: segments - 1; byte 3: us between updates; bytes
 * 4-7: k ppm; 8-11 step_min, 12-15 psn_rec, 16-19 alpha when preset),
 * then the packet.
 */
static int write_seed(const char *dir, const char *name, const uint8_t *hdr,
		      const uint8_t *pkt, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(hdr, 1, 20, f) != 20 ||
	    fwrite(pkt, 1, len, f) != len || fclose(f)) {
		perror(path);
		return -1;
	}
	return 0;
}

#define FZ_V6			0x01
#define FZ_FIELDS(job, step)	((job) << 1 | (step) << 3)
#define FZ_PRESET		0x20

static int write_seeds(const char *dir)
{
	static const struct {
		const char *name;
		uint8_t flags, avail;
		struct pspec spec;
	} seeds[] = {
		{ "roce4-write-first", FZ_FIELDS(1, 0), 0, { ROCE(false) } },
		{ "roce4-write-last-qp-rsvd", FZ_FIELDS(2, 1), 0,
		  { ROCE(false), .opcode = 0x08 } },
		{ "roce4-preset-job", FZ_FIELDS(1, 0) | FZ_PRESET, 0,
		  { ROCE(false), .opcode = 0x07 } },
		{ "roce4-bth-cut", FZ_FIELDS(1, 0), 40, { ROCE(false) } },
		{ "roce4-cnp", FZ_FIELDS(1, 0), 0,
		  { ROCE(false), .opcode = 0x81 } },
		{ "roce6-send-last", FZ_V6 | FZ_FIELDS(1, 0), 0,
		  { ROCE(true), .opcode = 0x02 } },
		{ "roce6-hbh", FZ_V6 | FZ_FIELDS(1, 0), 0,
		  { ROCE(true), EXT(ext_hbh, 0) } },
		{ "roce6-three-ext", FZ_V6 | FZ_FIELDS(0, 2), 0,
		  { ROCE(true), EXT(ext_three, 0) } },
		{ "roce6-frag", FZ_V6 | FZ_FIELDS(1, 0), 0,
		  { ROCE(true), EXT(ext_frag, 44) } },
		{ "uec4-eom", FZ_FIELDS(1, 0), 0, { UEC(false) } },
		{ "uec6-no-eom", FZ_V6 | FZ_FIELDS(1, 0), 0,
		  { UEC(true), .ses_flags = 0x4d } },
	};
	uint8_t buf[256], hdr[20];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(seeds); i++) {
		size_t len = build(buf, &seeds[i].spec);

		/* k 0.01, 100 us between updates, 1 segment; preset:
		 * step_min one behind the packet's, psn_rec 0x100000,
		 * alpha 5.
		 */
		memset(hdr, 0, sizeof(hdr));
		hdr[0] = seeds[i].flags;
		hdr[1] = seeds[i].avail;
		hdr[3] = 100;
		put32(hdr + 4, 10000);
		put32(hdr + 8, seeds[i].spec.sport - 1);
		put32(hdr + 12, 0x100000);
		put32(hdr + 16, 5);
		if (write_seed(dir, seeds[i].name, hdr, buf, len))
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{

	if (argc == 3 && !strcmp(argv[1], "--write-seeds")) {
		if (write_seeds(argv[2]))
			return 1;
	} else if (argc != 1) {
		fprintf(stderr, "usage: %s [--write-seeds DIR]\n", argv[0]);
		return 2;
	}

	test_mark_prob();
	test_red_prob();
	test_before();
	test_parse();
	test_job_update();
	test_job_count();
	test_job_reset();
	return tap_finish();
}
