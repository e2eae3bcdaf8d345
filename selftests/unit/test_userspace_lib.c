// SPDX-License-Identifier: GPL-2.0
/*
 * test_userspace_lib.c - unit tests of userspace/lib: the number readers
 * every tool uses (parse.c), and the symphony qdisc's parameter table
 * (include/symphony/symphony_params.h) with its reader (symphony_param.c):
 * the kernel's static range messages quote the very bounds the policy
 * enforces, every attribute has its row, the agent's per-job ranges are
 * the qdisc's from 1 up, and values read and print in a user's words.
 */
#include <stdio.h>
#include <string.h>

#include "tap.h"
#include "parse.h"
#include "symphony_param.h"

/* The kernel's messages, generated exactly as kernel/symphony_qdisc.c
 * generates them.
 */
#define KERNEL_MSG(id, kw, json, kind, unit, min, max, dflt, flags,	\
		   names, help)						\
	[TCA_SYMPHONY_##id] = SYMPHONY_RANGE_TEXT(id, kw, json, kind,	\
				unit, min, max, dflt, flags, names, help),
static const char *const kernel_msgs[TCA_SYMPHONY_MAX + 1] = {
	SYMPHONY_PARAMS(KERNEL_MSG)
};

static void test_kernel_messages(void)
{
	char want[256];
	int i, j;

	for (i = 0; i < symphony_params_nr; i++) {
		const struct symphony_param *p = &symphony_params[i];
		size_t used;

		if (p->kind == SYMPHONY_KIND_ENUM) {
			used = snprintf(want, sizeof(want), "%s must be one of:",
					p->keyword);
			for (j = 0; j < p->nr_names; j++)
				used += snprintf(want + used, sizeof(want) - used,
						 " %s (%d)", p->names[j], j);
			tap_check(p->max == (unsigned int)p->nr_names - 1,
				  "%s: the policy's maximum is the last name's value",
				  p->keyword);
		} else {
			snprintf(want, sizeof(want), "%s must be %llu..%llu%s",
				 p->keyword, p->min, p->max, p->unit);
		}
		tap_check(!strcmp(kernel_msgs[p->attr], want),
			  "%s: the kernel's message quotes its policy's range",
			  p->keyword);
		if (strcmp(kernel_msgs[p->attr], want))
			tap_note("kernel says \"%s\", policy is \"%s\"",
				 kernel_msgs[p->attr], want);
	}
}

static void test_rows(void)
{
	int attr, i, seen;

	for (attr = TCA_SYMPHONY_UNSPEC + 1; attr <= TCA_SYMPHONY_MAX; attr++) {
		bool want = attr != TCA_SYMPHONY_JOBS_FD &&
			    attr != TCA_SYMPHONY_JOBS_MAP_ID;

		for (seen = 0, i = 0; i < symphony_params_nr; i++)
			seen += symphony_params[i].attr == attr;
		tap_check(seen == want, "attribute %d has %d row(s) in the table",
			  attr, want);
	}
	for (i = 0; i < symphony_params_nr; i++) {
		const struct symphony_param *p = &symphony_params[i];

		tap_check(p->min <= p->dflt && p->dflt <= p->max &&
			  p->max <= 0xffffffffULL,
			  "%s: default %llu within %llu..%llu, a u32",
			  p->keyword, p->dflt, p->min, p->max);
		tap_check(symphony_param_by_keyword(p->keyword) == p &&
			  symphony_param_by_attr(p->attr) == p,
			  "%s: found by keyword and by attribute", p->keyword);
	}
	tap_check(SYMPHONY_JOBS_MAX == 1 << 24 && SYMPHONY_LIMIT_DEFAULT == 1000 &&
		  SYMPHONY_TWIN_DEFAULT == 100,
		  "generated bounds: SYMPHONY_JOBS_MAX, _LIMIT_DEFAULT, _TWIN_DEFAULT");
}

static bool parses(const char *kw, const char *text, unsigned long long floor,
		   __u32 want)
{
	__u32 v = 0xdeadbeef;

	return !symphony_param_parse(symphony_param_by_keyword(kw), text,
				     floor, &v) && v == want;
}

static bool refuses(const char *kw, const char *text, unsigned long long floor)
{
	__u32 v;

	return symphony_param_parse(symphony_param_by_keyword(kw), text,
				    floor, &v) != 0;
}

static void test_per_job(void)
{
	const char *per_job[] = { "k", "tau", "warmup", "samples" };
	char text[64];
	int i, n = 0;

	for (i = 0; i < symphony_params_nr; i++) {
		if (!(symphony_params[i].flags & SYMPHONY_PARAM_PER_JOB))
			continue;
		tap_check(n < 4 && !strcmp(symphony_params[i].keyword,
					   per_job[n]),
			  "per-job parameter %d is %s", n + 1,
			  symphony_params[i].keyword);
		n++;
	}
	tap_check(n == 4, "4 per-job parameters");

	/* The agent takes the qdisc's range from 1 up (0 is "default"). */
	tap_check(parses("warmup", "16777216", 1, 16777216),
		  "per-job warmup takes the qdisc's maximum, 16777216");
	tap_check(refuses("warmup", "16777217", 1), "per-job warmup 16777217 refused");
	tap_check(refuses("warmup", "0", 1) && parses("warmup", "0", 0, 0),
		  "warmup 0: refused per job, taken by the qdisc");
	tap_check(parses("samples", "4294967294", 1, 4294967294U) &&
		  refuses("samples", "4294967295", 1),
		  "samples up to 4294967294");
	tap_check(refuses("k", "0", 1) && parses("k", "0.000001", 1, 1) &&
		  parses("k", "100", 1, 100000000) && refuses("k", "100.000001", 1),
		  "per-job k: 0.000001..100");
	symphony_param_range_text(symphony_param_by_keyword("k"), 1, text,
				  sizeof(text));
	tap_check(!strcmp(text, "0.000001..100"), "k's per-job range reads %s",
		  text);
	symphony_param_range_text(symphony_param_by_keyword("warmup"), 1,
				  text, sizeof(text));
	tap_check(!strcmp(text, "1..16777216 PSN units"),
		  "warmup's per-job range reads %s", text);
}

static void test_values(void)
{
	char text[64];

	tap_check(parses("tau", "0.25", 0, 250000) && parses("pmax", "1", 0, 1000000) &&
		  parses("pmax", ".5", 0, 500000) && refuses("pmax", "1.1", 0) &&
		  refuses("pmax", "0.2x", 0) && refuses("pmax", "", 0),
		  "fractions read as ppm, within range");
	tap_check(parses("tau", "0.1234567", 0, 123456),
		  "digits past ppm resolution are cut, not rounded");
	tap_check(parses("nonect", "pass", 0, SYMPHONY_NONECT_PASS) &&
		  parses("job_field", "bth_destqp", 0, SYMPHONY_FIELD_BTH_DESTQP) &&
		  refuses("marking", "both", 0),
		  "enums read by name");
	tap_check(parses("limit", "1000000", 0, 1000000) && refuses("limit", "0", 0) &&
		  refuses("limit", "-1", 0) && refuses("limit", "12x", 0) &&
		  refuses("jobs", "16777217", 0),
		  "counts within range");
	symphony_param_value_text(symphony_param_by_keyword("tau"),
				  SYMPHONY_TAU_DEFAULT, text, sizeof(text));
	tap_check(!strcmp(text, "0.25"), "tau's default prints as %s", text);
	symphony_param_value_text(symphony_param_by_keyword("marking"),
				  SYMPHONY_MARKING_DEFAULT, text, sizeof(text));
	tap_check(!strcmp(text, "symphony"), "marking's default prints as %s",
		  text);
	symphony_param_range_text(symphony_param_by_keyword("job_field"), 0,
				  text, sizeof(text));
	tap_check(!strcmp(text, "udp_sport, bth_rsvd or bth_destqp"),
		  "job_field's choices read %s", text);
}

static void test_numbers(void)
{
	unsigned long long ull;
	__u64 v64;
	__u32 v;

	tap_check(!parse_u32("42", 0, 100, &v) && v == 42 &&
		  !parse_u32("0x2a", 0, 100, &v) && v == 42 &&
		  !parse_u32("010", 0, 100, &v) && v == 10,
		  "decimal, 0x hexadecimal; a leading 0 is not octal");
	tap_check(parse_u32("", 0, 100, &v) && parse_u32("-1", 0, 100, &v) &&
		  parse_u32("+1", 0, 100, &v) && parse_u32(" 1", 0, 100, &v) &&
		  parse_u32("1 ", 0, 100, &v) && parse_u32("0x", 0, 100, &v) &&
		  parse_u32("101", 0, 100, &v) && parse_u32("4", 5, 100, &v),
		  "empty, signed, spaced, bare 0x and out-of-range refused");
	tap_check(!parse_ull("18446744073709551615", 0, ~0ULL, &ull) &&
		  ull == ~0ULL && parse_ull("18446744073709551616", 0, ~0ULL, &ull),
		  "the largest u64 read, one more refused");
	tap_check(!parse_u32("4294967295", 0, 0xffffffffU, &v) && v == 0xffffffffU &&
		  parse_u32("4294967296", 0, 0xffffffffU, &v),
		  "u32 up to its largest value");
	tap_check(!parse_size("64k", &v64) && v64 == 65536 &&
		  !parse_size("1MB", &v64) && v64 == 1 << 20 &&
		  !parse_size("1500", &v64) && v64 == 1500 &&
		  !parse_size("2g", &v64) && v64 == 2ULL << 30 &&
		  parse_size("1x", &v64) && parse_size("k", &v64) &&
		  parse_size("-1k", &v64) && parse_size("17179869184g", &v64),
		  "sizes with binary suffixes; junk and overflow refused");
	tap_check(!parse_rate("20mbit", &v64) && v64 == 20000000 &&
		  !parse_rate("1gbit", &v64) && v64 == 1000000000 &&
		  !parse_rate("800", &v64) && v64 == 800 &&
		  !parse_rate("9bit", &v64) && v64 == 9 &&
		  parse_rate("20mbps", &v64) && parse_rate("mbit", &v64) &&
		  parse_rate("18446744073709551gbit", &v64),
		  "rates with decimal suffixes; junk and overflow refused");
	tap_check(!parse_ppm("0.25", 1000000, &v) && v == 250000 &&
		  !parse_ppm("100", 100000000, &v) && v == 100000000 &&
		  parse_ppm("100.000001", 100000000, &v) &&
		  parse_ppm("1.2.3", 1000000, &v) && parse_ppm("", 1000000, &v),
		  "fractions in ppm within their maximum");
}

int main(void)
{
	test_numbers();
	test_kernel_messages();
	test_rows();
	test_per_job();
	test_values();
	return tap_finish();
}
