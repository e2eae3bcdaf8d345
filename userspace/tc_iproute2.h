/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tc_iproute2.h - the part of iproute2's tc plugin ABI (6.1 and later) that
 * the project's q_<kind>.so plugins use.  Debian ships no iproute2 headers;
 * tc exports these helpers from its own binary and resolves the plugin's
 * "<kind>_qdisc_util" symbol with dlsym().  The declarations follow
 * iproute2's tc/tc_util.h, include/utils.h, include/libnetlink.h and
 * include/json_print.h.
 */
#ifndef SYMOFAN_TC_IPROUTE2_H
#define SYMOFAN_TC_IPROUTE2_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/types.h>

struct qdisc_util {
	struct qdisc_util *next;
	const char *id;
	int (*parse_qopt)(struct qdisc_util *qu, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev);
	int (*print_qopt)(struct qdisc_util *qu, FILE *f, struct rtattr *opt);
	int (*print_xstats)(struct qdisc_util *qu, FILE *f,
			    struct rtattr *xstats);
	int (*parse_copt)(struct qdisc_util *qu, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev);
	int (*print_copt)(struct qdisc_util *qu, FILE *f, struct rtattr *opt);
	int (*has_block)(struct qdisc_util *qu, struct rtattr *opt,
			 __u32 block_idx, bool *p_has);
};

/* include/utils.h */
int matches(const char *prefix, const char *string);
int get_u32(__u32 *val, const char *arg, int base);
int get_u64(__u64 *val, const char *arg, int base);
int get_size(unsigned int *size, const char *str);
int get_time(unsigned int *time, const char *str);

/* include/libnetlink.h */
#define TCA_BUF_MAX	(64 * 1024)
int addattr_l(struct nlmsghdr *n, int maxlen, int type, const void *data,
	      int alen);
struct rtattr *addattr_nest(struct nlmsghdr *n, int maxlen, int type);
int addattr_nest_end(struct nlmsghdr *n, struct rtattr *nest);
int parse_rtattr_flags(struct rtattr *tb[], int max, struct rtattr *rta,
		       int len, unsigned short flags);

static inline int parse_rtattr_nested(struct rtattr *tb[], int max,
				      struct rtattr *rta)
{
	return parse_rtattr_flags(tb, max, RTA_DATA(rta), RTA_PAYLOAD(rta),
				  NLA_F_NESTED);
}

static inline __u32 rta_getattr_u32(const struct rtattr *rta)
{
	return *(const __u32 *)RTA_DATA(rta);
}

/* include/json_print.h and include/color.h */
enum output_type {
	PRINT_FP = 1,
	PRINT_JSON = 2,
	PRINT_ANY = 4,
};

enum color_attr {
	COLOR_IFNAME,
	COLOR_MAC,
	COLOR_INET,
	COLOR_INET6,
	COLOR_OPERSTATE_UP,
	COLOR_OPERSTATE_DOWN,
	COLOR_NONE
};

bool is_json_context(void);
void open_json_object(const char *str);
void close_json_object(void);
void print_nl(void);
int print_color_uint(enum output_type t, enum color_attr color,
		     const char *key, const char *fmt, unsigned int value);
int print_color_u64(enum output_type t, enum color_attr color,
		    const char *key, const char *fmt, uint64_t value);
int print_color_string(enum output_type t, enum color_attr color,
		       const char *key, const char *fmt, const char *value);

static inline int print_uint(enum output_type t, const char *key,
			     const char *fmt, unsigned int value)
{
	return print_color_uint(t, COLOR_NONE, key, fmt, value);
}

static inline int print_u64(enum output_type t, const char *key,
			    const char *fmt, uint64_t value)
{
	return print_color_u64(t, COLOR_NONE, key, fmt, value);
}

static inline int print_string(enum output_type t, const char *key,
			       const char *fmt, const char *value)
{
	return print_color_string(t, COLOR_NONE, key, fmt, value);
}

#endif /* SYMOFAN_TC_IPROUTE2_H */
