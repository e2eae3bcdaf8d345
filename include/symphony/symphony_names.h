/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * symphony_names.h - the names userspace gives the symphony qdisc's enum
 * values (tc plugin, agent, tools), built from the lists in
 * symphony_params.h, so that every tool spells them the same way.
 */
#ifndef _SYMPHONY_NAMES_H
#define _SYMPHONY_NAMES_H

#include <string.h>

#include "symphony_params.h"

#define SYMPHONY_NAME_ENTRY(enumerator, number, name)	[enumerator] = name,

static const char *const symphony_field_names[__SYMPHONY_FIELD_MAX] = {
	SYMPHONY_FIELD_NAMES(SYMPHONY_NAME_ENTRY)
};

static const char *const symphony_nonect_names[__SYMPHONY_NONECT_MAX] = {
	SYMPHONY_NONECT_NAMES(SYMPHONY_NAME_ENTRY)
};

static const char *const symphony_marking_names[__SYMPHONY_MARKING_MAX] = {
	SYMPHONY_MARKING_NAMES(SYMPHONY_NAME_ENTRY)
};

/* The value named @name in @names[0..nr-1], or -1. */
static inline int symphony_lookup_name(const char *const *names, int nr,
				       const char *name)
{
	int i;

	for (i = 0; i < nr; i++)
		if (names[i] && strcmp(name, names[i]) == 0)
			return i;
	return -1;
}

/* The name of @value in @names[0..nr-1], or "unknown". */
static inline const char *symphony_name_of(const char *const *names, int nr,
					   unsigned int value)
{
	return value < (unsigned int)nr && names[value] ? names[value] :
							  "unknown";
}

#endif /* _SYMPHONY_NAMES_H */
