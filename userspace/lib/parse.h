/* SPDX-License-Identifier: GPL-2.0 */
/*
 * parse.h - the one set of number readers of the project's command lines
 * and configuration files: strict unsigned integers within a range,
 * fractions in parts per million, sizes with binary suffixes and rates
 * with decimal ones.  Each returns 0, or -1 and leaves @out alone.
 */
#ifndef SYMOFAN_LIB_PARSE_H
#define SYMOFAN_LIB_PARSE_H

#include <linux/types.h>

/* Decimal, or hexadecimal with 0x; no sign, no spaces; @min..@max. */
int parse_ull(const char *s, unsigned long long min, unsigned long long max,
	      unsigned long long *out);
int parse_u32(const char *s, __u32 min, __u32 max, __u32 *out);

/* A decimal fraction such as "0.25" in parts per million (digits past
 * the sixth are cut), at most @max_ppm.
 */
int parse_ppm(const char *s, __u32 max_ppm, __u32 *out);

/* Bytes: a decimal number with an optional binary suffix k, m or g and
 * an optional b ("64k", "1mb").
 */
int parse_size(const char *s, __u64 *out);

/* A time as tc writes it ("100us", "1ms", "2s"; bare: microseconds),
 * in microseconds.  0 or -1.
 */
int parse_time_us(const char *s, __u64 *out);

/* A rate in bit/s: a decimal number with an optional bit, kbit, mbit or
 * gbit ("20mbit").
 */
int parse_rate(const char *s, __u64 *out);

#endif /* SYMOFAN_LIB_PARSE_H */
