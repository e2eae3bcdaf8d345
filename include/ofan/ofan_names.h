/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ofan_names.h - the names userspace gives Ofan's modes (the agent's
 * config parser, set-mode and status), next to the enum
 * in ofan_maps.h, so that every tool spells them the same way.
 */
#ifndef _OFAN_NAMES_H
#define _OFAN_NAMES_H

#include <string.h>

#include "ofan_maps.h"

static const char *const ofan_mode_names[__OFAN_MODE_MAX] = {
	[OFAN_MODE_OFAN]	= "ofan",
	[OFAN_MODE_POFAN]	= "pofan",
	[OFAN_MODE_RR]		= "rr",
	[OFAN_MODE_RPS]		= "rps",
	[OFAN_MODE_ECMP]	= "ecmp",
	[OFAN_MODE_AR]		= "ar",
	[OFAN_MODE_JSQ]		= "jsq",
};

/* The names above, for messages and synopses (keep them in step). */
#define OFAN_MODE_CHOICES	"ofan|pofan|rr|rps|ecmp|ar|jsq"
#define OFAN_MODE_LIST		"ofan, pofan, rr, rps, ecmp, ar or jsq"

/* Modes that send on the phantom backlog, which needs the uplinks' rates */
static inline int ofan_mode_needs_rate(unsigned int mode)
{
	return mode == OFAN_MODE_AR || mode == OFAN_MODE_JSQ;
}

/* The mode named @name, or -1. */
static inline int ofan_mode_by_name(const char *name)
{
	int m;

	for (m = 0; m < __OFAN_MODE_MAX; m++)
		if (ofan_mode_names[m] && !strcmp(name, ofan_mode_names[m]))
			return m;
	return -1;
}

/* The name of @mode, or "unknown". */
static inline const char *ofan_mode_name(unsigned int mode)
{
	return mode < __OFAN_MODE_MAX && ofan_mode_names[mode] ?
	       ofan_mode_names[mode] : "unknown";
}

#endif /* _OFAN_NAMES_H */
