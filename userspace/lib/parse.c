// SPDX-License-Identifier: GPL-2.0
/*
 * parse.c - the number readers of the project's command lines and
 * configuration files (parse.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

int parse_ull(const char *s, unsigned long long min, unsigned long long max,
	      unsigned long long *out)
{
	unsigned long long v;
	int base = 10;
	char *end;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		if (!isxdigit((unsigned char)s[0]))
			return -1;
	} else if (!isdigit((unsigned char)s[0])) {
		return -1;
	}
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int parse_u32(const char *s, __u32 min, __u32 max, __u32 *out)
{
	unsigned long long v;

	if (parse_ull(s, min, max, &v))
		return -1;
	*out = v;
	return 0;
}

int parse_ppm(const char *s, __u32 max_ppm, __u32 *out)
{
	unsigned long long value = 0;
	int frac_digits = -1;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s == '.' && frac_digits < 0) {
			frac_digits = 0;
			continue;
		}
		if (!isdigit((unsigned char)*s))
			return -1;
		if (frac_digits >= 6)
			continue;	/* beyond ppm resolution: cut */
		value = value * 10 + (*s - '0');
		if (frac_digits >= 0)
			frac_digits++;
		if (value > 1000000ULL * max_ppm)
			return -1;
	}
	if (frac_digits < 0)
		frac_digits = 0;
	for (; frac_digits < 6; frac_digits++)
		value *= 10;
	if (value > max_ppm)
		return -1;
	*out = value;
	return 0;
}

/* The decimal number at the start of @s, and where it ends. */
static int leading_number(const char *s, unsigned long long *v, char **end)
{
	if (!isdigit((unsigned char)s[0]))
		return -1;
	errno = 0;
	*v = strtoull(s, end, 10);
	return errno ? -1 : 0;
}

int parse_size(const char *s, __u64 *out)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	if (leading_number(s, &v, &end))
		return -1;
	switch (*end) {
	case 'k': case 'K':
		shift = 10;
		break;
	case 'm': case 'M':
		shift = 20;
		break;
	case 'g': case 'G':
		shift = 30;
		break;
	}
	if (shift)
		end++;
	if (*end == 'b' || *end == 'B')
		end++;
	if (*end || v > (~0ULL >> shift))
		return -1;
	*out = v << shift;
	return 0;
}

struct unit {
	const char		*name;
	unsigned long long	scale;
};

/* A number followed by one of the @nr @units' names, scaled by it. */
static int parse_with_units(const char *s, const struct unit *units,
			    size_t nr, __u64 *out)
{
	unsigned long long v;
	char *end;
	size_t i;

	if (leading_number(s, &v, &end))
		return -1;
	for (i = 0; i < nr; i++)
		if (!strcmp(end, units[i].name)) {
			if (v > ~0ULL / units[i].scale)
				return -1;
			*out = v * units[i].scale;
			return 0;
		}
	return -1;
}

int parse_time_us(const char *s, __u64 *out)
{
	static const struct unit units[] = {
		{ "", 1 }, { "us", 1 }, { "usec", 1 }, { "ms", 1000 },
		{ "msec", 1000 }, { "s", 1000000 }, { "sec", 1000000 },
	};

	return parse_with_units(s, units, sizeof(units) / sizeof(units[0]), out);
}

int parse_rate(const char *s, __u64 *out)
{
	static const struct unit units[] = {
		{ "", 1 }, { "bit", 1 }, { "kbit", 1000 },
		{ "mbit", 1000000 }, { "gbit", 1000000000 },
	};

	return parse_with_units(s, units, sizeof(units) / sizeof(units[0]), out);
}
