/* SPDX-License-Identifier: GPL-2.0 */
/*
 * symphony_ppm.h - the one parser of Symphony's fractions ("0.25", "2")
 * into parts per million, for the tc plugin and the agent alike.
 */
#ifndef _SYMPHONY_PPM_H
#define _SYMPHONY_PPM_H

#include <linux/types.h>

/* Parse a decimal fraction such as "0.25" into parts per million, at
 * most @max_ppm; 0 or -1.
 */
static inline int symphony_get_ppm(__u32 *ppm, const char *str, __u32 max_ppm)
{
	unsigned long long value = 0;
	const char *p = str;
	int frac_digits = -1;

	if (!*p)
		return -1;
	for (; *p; p++) {
		if (*p == '.' && frac_digits < 0) {
			frac_digits = 0;
			continue;
		}
		if (*p < '0' || *p > '9')
			return -1;
		if (frac_digits >= 6)
			continue;	/* beyond ppm resolution: truncate */
		value = value * 10 + (*p - '0');
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
	*ppm = value;
	return 0;
}

#endif /* _SYMPHONY_PPM_H */
