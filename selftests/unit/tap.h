/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tap.h - a minimal TAP producer for the userspace unit tests: one test
 * point per tap_check(), a plan printed at the end, exit status 0 when
 * all passed.
 */
#ifndef _SELFTESTS_TAP_H
#define _SELFTESTS_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static unsigned int tap_points, tap_failures;

static inline void __attribute__((format(printf, 2, 3)))
tap_check(bool ok, const char *fmt, ...)
{
	va_list ap;

	tap_points++;
	if (!ok)
		tap_failures++;
	printf("%s %u - ", ok ? "ok" : "not ok", tap_points);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* tap_note - a diagnostic line, for the values behind a failure */
static inline void __attribute__((format(printf, 1, 2)))
tap_note(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static inline int tap_finish(void)
{
	printf("1..%u\n# %u of %u passed\n", tap_points,
	       tap_points - tap_failures, tap_points);
	return tap_failures ? 1 : 0;
}

#endif /* _SELFTESTS_TAP_H */
