/* SPDX-License-Identifier: GPL-2.0 */
/*
 * symphony_param.h - the symphony qdisc's parameter table
 * (include/symphony/symphony_params.h) as data for userspace: look a
 * parameter up by keyword or attribute, read a value in tc's words, say
 * its range, print it back.  Used by the tc plugin and by the agent's
 * per-job overrides.
 */
#ifndef SYMOFAN_LIB_SYMPHONY_PARAM_H
#define SYMOFAN_LIB_SYMPHONY_PARAM_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "symphony/symphony_params.h"

struct symphony_param {
	int			attr;		/* TCA_SYMPHONY_* */
	const char		*keyword;	/* tc's and the agent's name */
	const char		*json_key;	/* tc -j's key, with its unit */
	enum symphony_param_kind kind;
	const char		*unit;		/* " packets", or "" */
	unsigned long long	min, max;	/* inclusive, in the attribute's unit */
	unsigned long long	dflt;
	unsigned int		flags;		/* SYMPHONY_PARAM_* */
	const char *const	*names;		/* an enum's value names, or NULL */
	int			nr_names;
	const char		*help;
};

/* Every parameter, in tc's print order; symphony_params_nr of them. */
extern const struct symphony_param symphony_params[];
extern const int symphony_params_nr;

const struct symphony_param *symphony_param_by_keyword(const char *keyword);
const struct symphony_param *symphony_param_by_attr(int attr);

/*
 * Read @text as a value of @p ("0.25" for a ppm, a name for an enum, a
 * number otherwise) within @p's range, or within [@min_floor, max] when
 * @min_floor is above @p->min.  Sizes and times are tc's to read
 * (get_size, get_time): for those, check the number with
 * symphony_param_in_range().  0 or -1.
 */
int symphony_param_parse(const struct symphony_param *p, const char *text,
			 unsigned long long min_floor, __u32 *value);
int symphony_param_in_range(const struct symphony_param *p,
			    unsigned long long value);

/* @p's valid values in a user's words, e.g. "1..1000000 packets",
 * "0..1", "drop or pass"; from @min_floor up if that is above @p->min.
 */
void symphony_param_range_text(const struct symphony_param *p,
			       unsigned long long min_floor, char *buf,
			       size_t len);

/* @value of @p in a user's words: "0.25", "drop", "50000". */
void symphony_param_value_text(const struct symphony_param *p, __u32 value,
			       char *buf, size_t len);

/* One field of struct tc_symphony_xstats as tc -s prints it. */
struct symphony_xstat {
	const char	*json_key;	/* tc -s -j's key */
	const char	*label;		/* printed before the value */
	const char	*suffix;	/* after it: "p" packets, "b" bytes */
	const char	*format;	/* label "%" PRIu64 suffix */
	size_t		offset;		/* in struct tc_symphony_xstats */
	size_t		size;		/* 4 or 8 bytes */
	bool		new_line;	/* tc starts a line before it */
	const char	*help;
};

/* Every statistic, in tc -s's print order; symphony_xstats_nr of them. */
extern const struct symphony_xstat symphony_xstats[];
extern const int symphony_xstats_nr;

/* The value of @x in @st (struct tc_symphony_xstats). */
__u64 symphony_xstat_value(const struct symphony_xstat *x, const void *st);

/* How tc's usage and tc-symphony(8) name a value of @kind: "BYTES". */
const char *symphony_param_metavar(enum symphony_param_kind kind);

#endif /* SYMOFAN_LIB_SYMPHONY_PARAM_H */
