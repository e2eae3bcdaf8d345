/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tap.h - the TAP writer of every userspace unit test (selftests/unit/).
 *
 * A test point is either one call, tap_check(ok, "what"), or a span:
 * tap_point_start(), any number of tap_fail() (each marks the point
 * failed; its text, "# ..." lines, goes under the point, at most
 * TAP_MAX_FAILS of them) and tap_note() (printed under the point whatever
 * its result), then tap_point_end("what").  Points are kept in memory and
 * printed by tap_finish() after the version line and the plan, then the
 * totals; tap_finish()'s value is the program's exit status: 0 when every
 * point passed, 1 otherwise.  tap_skip_all() ends a program that cannot
 * run (exit 0, TAP's "1..0 # SKIP").
 */
#ifndef _SELFTESTS_TAP_H
#define _SELFTESTS_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAP_MAX_FAILS	8	/* failure texts kept per point */

static struct {
	FILE		*out;		/* the points, in memory */
	char		*buf;
	size_t		len;
	unsigned int	points, failed, skipped;
	bool		in_span;	/* between tap_point_start and _end */
	bool		point_ok;
	unsigned int	point_fails;
	char		diag[8192], note[2048];
	size_t		diag_len, note_len;
} tap;

static inline FILE *tap_stream(void)
{
	if (!tap.out) {
		tap.out = open_memstream(&tap.buf, &tap.len);
		if (!tap.out) {
			perror("tap: open_memstream");
			exit(2);
		}
	}
	return tap.out;
}

static inline void tap_vappend(char *buf, size_t size, size_t *len,
			       const char *fmt, va_list ap)
{
	int n;

	if (*len >= size - 1)
		return;
	n = vsnprintf(buf + *len, size - *len, fmt, ap);
	if (n > 0)
		*len += (size_t)n;
	if (*len > size - 1)
		*len = size - 1;
}

static inline void tap_point_start(void)
{
	tap.in_span = true;
	tap.point_ok = true;
	tap.point_fails = 0;
	tap.diag_len = tap.note_len = 0;
	tap.diag[0] = tap.note[0] = '\0';
}

/* The open point failed: @fmt's text ("# ...\n" lines) goes under it. */
static inline void __attribute__((format(printf, 1, 2)))
tap_fail(const char *fmt, ...)
{
	static const char more[] = "# (more failures left out)\n";
	va_list ap;

	tap.point_ok = false;
	if (++tap.point_fails > TAP_MAX_FAILS) {
		if (tap.point_fails == TAP_MAX_FAILS + 1 &&
		    tap.diag_len + sizeof(more) < sizeof(tap.diag)) {
			memcpy(tap.diag + tap.diag_len, more, sizeof(more));
			tap.diag_len += sizeof(more) - 1;
		}
		return;
	}
	va_start(ap, fmt);
	tap_vappend(tap.diag, sizeof(tap.diag), &tap.diag_len, fmt, ap);
	va_end(ap);
}

/* A diagnostic line (no "# " or newline needed): under the open span's
 * point when it ends, else at once (under the point just printed).
 */
static inline void __attribute__((format(printf, 1, 2)))
tap_note(const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (!tap.in_span) {
		fprintf(tap_stream(), "# %s\n", line);
		return;
	}
	if (tap.note_len + strlen(line) + 3 < sizeof(tap.note))
		tap.note_len += snprintf(tap.note + tap.note_len,
					 sizeof(tap.note) - tap.note_len,
					 "# %s\n", line);
}

static inline void tap_vresult(bool ok, const char *directive,
			       const char *fmt, va_list ap)
{
	FILE *f = tap_stream();

	tap.points++;
	if (!ok)
		tap.failed++;
	fprintf(f, "%sok %u - ", ok ? "" : "not ", tap.points);
	vfprintf(f, fmt, ap);
	if (directive)
		fprintf(f, " # %s", directive);
	fputc('\n', f);
	if (!ok)
		fputs(tap.diag, f);
	fputs(tap.note, f);
	tap_point_start();
	tap.in_span = false;
}

static inline void __attribute__((format(printf, 1, 2)))
tap_point_end(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vresult(tap.point_ok, NULL, fmt, ap);
	va_end(ap);
}

/* One point: @ok, named by @fmt (with the notes given since the last). */
static inline void __attribute__((format(printf, 2, 3)))
tap_check(bool ok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vresult(ok, NULL, fmt, ap);
	va_end(ap);
}

/* A point not run here; @fmt says what and why ("what: why"). */
static inline void __attribute__((format(printf, 1, 2)))
tap_skip(const char *fmt, ...)
{
	va_list ap;

	tap.skipped++;
	va_start(ap, fmt);
	tap_vresult(true, "SKIP", fmt, ap);
	va_end(ap);
}

/* The whole program cannot run here: say why, exit 0. */
static inline void __attribute__((format(printf, 1, 2), noreturn))
tap_skip_all(const char *fmt, ...)
{
	va_list ap;

	printf("TAP version 13\n1..0 # SKIP ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	exit(0);
}

static inline int tap_finish(void)
{
	fclose(tap_stream());
	printf("TAP version 13\n1..%u\n", tap.points);
	fwrite(tap.buf, 1, tap.len, stdout);
	printf("# totals: pass:%u fail:%u skip:%u\n",
	       tap.points - tap.failed - tap.skipped, tap.failed, tap.skipped);
	free(tap.buf);
	return tap.failed ? 1 : 0;
}

#endif /* _SELFTESTS_TAP_H */
