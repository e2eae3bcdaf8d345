// SPDX-License-Identifier: GPL-2.0
/*
 * symphony_param.c - the symphony qdisc's parameter table as data, and
 * the readers and writers of its values in a user's words.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symphony/symphony_names.h"
#include "parse.h"
#include "symphony_param.h"
#include "tool_util.h"

#define SYMPHONY_NAMES_OF_NONE		NULL, 0
#define SYMPHONY_NAMES_OF_NONECT	symphony_nonect_names, __SYMPHONY_NONECT_MAX
#define SYMPHONY_NAMES_OF_MARKING	symphony_marking_names, __SYMPHONY_MARKING_MAX
#define SYMPHONY_NAMES_OF_FIELD		symphony_field_names, __SYMPHONY_FIELD_MAX

#define SYMPHONY_PARAM_ENTRY(id, kw, json, kind_, unit_, min_, max_,	\
			     dflt_, flags_, names_, help_)		\
	{								\
		.attr = TCA_SYMPHONY_##id, .keyword = kw,		\
		.json_key = json, .kind = SYMPHONY_KIND_##kind_,	\
		.unit = unit_, .min = min_, .max = max_, .dflt = dflt_,	\
		.flags = flags_, .help = help_,				\
		SYMPHONY_PARAM_NAMES(SYMPHONY_NAMES_OF_##names_)	\
	},
#define SYMPHONY_PARAM_NAMES(...)	SYMPHONY_PARAM_NAMES_(__VA_ARGS__)
#define SYMPHONY_PARAM_NAMES_(names_, nr_) .names = names_, .nr_names = nr_

const struct symphony_param symphony_params[] = {
	SYMPHONY_PARAMS(SYMPHONY_PARAM_ENTRY)
};

const int symphony_params_nr = sizeof(symphony_params) /
			       sizeof(symphony_params[0]);

const struct symphony_param *symphony_param_by_keyword(const char *keyword)
{
	int i;

	for (i = 0; i < symphony_params_nr; i++)
		if (!strcmp(symphony_params[i].keyword, keyword))
			return &symphony_params[i];
	return NULL;
}

const struct symphony_param *symphony_param_by_attr(int attr)
{
	int i;

	for (i = 0; i < symphony_params_nr; i++)
		if (symphony_params[i].attr == attr)
			return &symphony_params[i];
	return NULL;
}

static unsigned long long floor_of(const struct symphony_param *p,
				   unsigned long long min_floor)
{
	return min_floor > p->min ? min_floor : p->min;
}

int symphony_param_in_range(const struct symphony_param *p,
			    unsigned long long value)
{
	return value >= p->min && value <= p->max ? 0 : -1;
}

int symphony_param_parse(const struct symphony_param *p, const char *text,
			 unsigned long long min_floor, __u32 *value)
{
	unsigned long long min = floor_of(p, min_floor), v;
	int i;

	switch (p->kind) {
	case SYMPHONY_KIND_ENUM:
		i = symphony_lookup_name(p->names, p->nr_names, text);
		if (i < 0)
			return -1;
		v = i;
		break;
	case SYMPHONY_KIND_PPM:
		if (parse_ppm(text, p->max, value))
			return -1;
		v = *value;
		break;
	default:
		if (parse_ull(text, min, p->max, &v))
			return -1;
		break;
	}
	if (v < min || v > p->max)
		return -1;
	*value = v;
	return 0;
}

/* A ppm as a decimal with no trailing zeros: 250000 is "0.25". */
static void ppm_text(unsigned long long ppm, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%llu.%06llu", ppm / 1000000,
			 ppm % 1000000);

	if (n <= 0 || (size_t)n >= len)
		return;
	while (buf[n - 1] == '0')
		buf[--n] = '\0';
	if (buf[n - 1] == '.')
		buf[n - 1] = '\0';
}

void symphony_param_value_text(const struct symphony_param *p, __u32 value,
			       char *buf, size_t len)
{
	switch (p->kind) {
	case SYMPHONY_KIND_ENUM:
		snprintf(buf, len, "%s",
			 symphony_name_of(p->names, p->nr_names, value));
		break;
	case SYMPHONY_KIND_PPM:
		ppm_text(value, buf, len);
		break;
	default:
		snprintf(buf, len, "%u", value);
		break;
	}
}

void symphony_param_range_text(const struct symphony_param *p,
			       unsigned long long min_floor, char *buf,
			       size_t len)
{
	unsigned long long min = floor_of(p, min_floor);
	char lo[32], hi[32];
	size_t used = 0;
	int i;

	switch (p->kind) {
	case SYMPHONY_KIND_ENUM:
		buf[0] = '\0';
		for (i = 0; i < p->nr_names && used < len; i++)
			used += snprintf(buf + used, len - used, "%s%s",
					 i == 0 ? "" :
					 i == p->nr_names - 1 ? " or " : ", ",
					 p->names[i]);
		break;
	case SYMPHONY_KIND_PPM:
		ppm_text(min, lo, sizeof(lo));
		ppm_text(p->max, hi, sizeof(hi));
		snprintf(buf, len, "%s..%s", lo, hi);
		break;
	default:
		snprintf(buf, len, "%llu..%llu%s", min, p->max, p->unit);
		break;
	}
}

const char *symphony_param_metavar(enum symphony_param_kind kind)
{
	static const char *const metavar[] = {
		[SYMPHONY_KIND_PACKETS]	= "PACKETS",
		[SYMPHONY_KIND_COUNT]	= "N",
		[SYMPHONY_KIND_BYTES]	= "BYTES",
		[SYMPHONY_KIND_PPM]	= "DECIMAL",
		[SYMPHONY_KIND_US]	= "TIME",
		[SYMPHONY_KIND_ENUM]	= "NAME",
	};

	if ((unsigned int)kind >= ARRAY_SIZE(metavar))
		return "VALUE";
	return metavar[kind];
}

#define SYMPHONY_XSTAT_ROW(field, json, lbl, sfx, flags, text)		\
	{								\
		.json_key = json,					\
		.label = lbl,						\
		.suffix = sfx,						\
		.format = lbl "%" PRIu64 sfx,				\
		.offset = offsetof(struct tc_symphony_xstats, field),	\
		.size = sizeof(((struct tc_symphony_xstats *)0)->field), \
		.new_line = (flags) & SYMPHONY_XSTAT_NEW_LINE,		\
		.help = text,						\
	},
const struct symphony_xstat symphony_xstats[] = {
	SYMPHONY_XSTATS(SYMPHONY_XSTAT_ROW)
};

const int symphony_xstats_nr = ARRAY_SIZE(symphony_xstats);

/* The table covers struct tc_symphony_xstats, field by field (a term of
 * a sum over the X() list, as the tables of symphony_params.h:
 * checkpatch's "complex values" does not apply).
 */
#define SYMPHONY_XSTAT_SIZE(field, json, label, suffix, flags, help)	\
	+ sizeof(((struct tc_symphony_xstats *)0)->field)
_Static_assert(0 SYMPHONY_XSTATS(SYMPHONY_XSTAT_SIZE) ==
	       sizeof(struct tc_symphony_xstats),
	       "SYMPHONY_XSTATS lists every field of tc_symphony_xstats");

__u64 symphony_xstat_value(const struct symphony_xstat *x, const void *st)
{
	const char *at = (const char *)st + x->offset;
	__u32 v32;
	__u64 v64;

	if (x->size == sizeof(v64)) {
		memcpy(&v64, at, sizeof(v64));
		return v64;
	}
	memcpy(&v32, at, sizeof(v32));
	return v32;
}
