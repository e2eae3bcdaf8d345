/* SPDX-License-Identifier: GPL-2.0 */
/*
 * workload.h - what the workload tools (ringcoll, permsend) share:
 * the clock, argument parsers with units, the local-address test, the
 * raw IPv4 socket through which they send packets whose UDP source port
 * and ECN field they set themselves, and their JSON results (json-c).
 * Each tool defines tool_name.
 */
#ifndef SYMOFAN_WORKLOAD_H
#define SYMOFAN_WORKLOAD_H

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <linux/types.h>
#include <json-c/json.h>

#include "parse.h"
#include "workload/roce_frame.h"

extern const char *tool_name;

static inline __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static inline int bad(const char *opt, const char *val, const char *want)
{
	fprintf(stderr, "%s: %s '%s': %s\n", tool_name, opt, val, want);
	return -1;
}

/* A number @min..@max for option @opt, or an error naming both. */
static inline int parse_u32_range(const char *opt, const char *s, __u32 min,
				  __u32 max, __u32 *out)
{
	char want[64];

	if (!parse_u32(s, min, max, out))
		return 0;
	snprintf(want, sizeof(want), "wants %u..%u", min, max);
	return bad(opt, s, want);
}

static inline bool addr_is_local(__u32 addr)
{
	struct ifaddrs *ifa, *i;
	bool found = false;

	if (getifaddrs(&ifa))
		return false;
	for (i = ifa; i && !found; i = i->ifa_next)
		if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET &&
		    ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr == addr)
			found = true;
	freeifaddrs(ifa);
	return found;
}

/*
 * The options every workload tool takes (same letters in each):
 * --start-at (S), --timeout (t), --local (l), --out (o).
 */
struct workload_common {
	__u64		start_at_mono_ns;	/* 0: now */
	__u64		timeout_ns;
	__u32		local;			/* network byte order, 0: find */
	const char	*out_path;
};

/* The CLOCK_MONOTONIC time of CLOCK_REALTIME @realtime_ns (now if past). */
static inline __u64 mono_of_realtime(__u64 realtime_ns)
{
	struct timespec rt;
	__u64 now = mono_ns();
	__s64 delta;

	clock_gettime(CLOCK_REALTIME, &rt);
	delta = (__s64)(realtime_ns - ((__u64)rt.tv_sec * 1000000000ULL +
				       rt.tv_nsec));
	return now + (delta > 0 ? delta : 0);
}

/* Option @c with @arg if it is a common one: 1 taken, -1 bad, 0 not one. */
static inline int common_opt(struct workload_common *w, int c, const char *arg)
{
	__u64 v;
	__u32 s;

	switch (c) {
	case 'S':
		if (parse_size(arg, &v))
			return bad("--start-at", arg, "CLOCK_REALTIME ns");
		w->start_at_mono_ns = mono_of_realtime(v);
		return 1;
	case 't':
		if (parse_u32_range("--timeout", arg, 1, 3600, &s))
			return -1;
		w->timeout_ns = s * 1000000000ULL;
		return 1;
	case 'l':
		if (inet_pton(AF_INET, arg, &w->local) != 1)
			return bad("--local", arg, "not an IPv4 address");
		return 1;
	case 'o':
		w->out_path = arg;
		return 1;
	}
	return 0;
}

/* Wait for @fds until @wake_ns (CLOCK_MONOTONIC), or for a packet. */
static inline int wait_until(struct pollfd *fds, nfds_t n, __u64 wake_ns)
{
	__u64 now = mono_ns(), d = wake_ns > now ? wake_ns - now : 0;
	struct timespec ts = { d / 1000000000ULL, d % 1000000000ULL };

	return ppoll(fds, n, &ts, NULL);
}

/* A raw IPv4 socket for sending (the tool builds IP and UDP headers). */
static inline int open_raw_socket(void)
{
	int fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);

	if (fd < 0)
		fprintf(stderr, "%s: cannot open a raw socket: %s%s\n", tool_name,
			strerror(errno), errno == EPERM ?
			" (needs CAP_NET_RAW: run as root)" : "");
	return fd;
}

/* A UDP socket on @port that reports each datagram's TOS byte. */
static inline int open_udp_rx(__u16 port, const char *busy_hint)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	int one = 1, rcvbuf = 16 << 20, fd;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		fprintf(stderr, "%s: socket: %s\n", tool_name, strerror(errno));
		return -1;
	}
	setsockopt(fd, IPPROTO_IP, IP_RECVTOS, &one, sizeof(one));
	/* room for a few ms of line rate while the process waits for a CPU */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "%s: cannot bind UDP port %u: %s%s\n", tool_name,
			port, strerror(errno),
			errno == EADDRINUSE ? busy_hint : "");
		return -1;
	}
	return fd;
}

/*
 * Send @len bytes of UDP payload, already at @pkt + 28, from @saddr to
 * @daddr: fills the IPv4 and UDP headers in front.  0, 1 when the
 * interface's queue is full (retry later), or -1 after an error message.
 */
static inline int send_raw_udp(int fd, __u32 saddr, __u32 daddr, __u16 sport,
			       __u16 dport, __u8 ecn, __u16 ip_id, __u8 *pkt,
			       size_t len)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_addr.s_addr = daddr };

	roce_put_ipv4_udp(pkt, saddr, daddr, sport, dport, ecn, ip_id, len);
	if (sendto(fd, pkt, ROCE_IPV4_LEN + ROCE_UDP_LEN + len, 0,
		   (struct sockaddr *)&to, sizeof(to)) < 0) {
		if (errno == ENOBUFS || errno == EAGAIN)
			return 1;
		fprintf(stderr, "%s: send: %s\n", tool_name, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * JSON results, built with json-c: an object lists its keys in the order
 * they were added.  Keys are string literals (not copied).  Each helper
 * takes an object or array and a value just made, either NULL when its
 * allocation failed, and returns 0, or -1 when the value could not be
 * added (it is freed): the caller ORs the results together, and
 * report_finish() and report_write() make nothing of a part with a hole.
 */
#define REPORT_KEY_FLAGS (JSON_C_OBJECT_ADD_KEY_IS_NEW | JSON_C_OBJECT_ADD_CONSTANT_KEY)

static inline int report_add(struct json_object *obj, const char *key,
			     struct json_object *val)
{
	if (!obj || !val || json_object_object_add_ex(obj, key, val,
						      REPORT_KEY_FLAGS)) {
		json_object_put(val);
		return -1;
	}
	return 0;
}

/* @key with the value null (nothing to report). */
static inline int report_add_null(struct json_object *obj, const char *key)
{
	return obj ? json_object_object_add_ex(obj, key, NULL, REPORT_KEY_FLAGS) : -1;
}

static inline int report_add_u64(struct json_object *obj, const char *key,
				 __u64 val)
{
	return report_add(obj, key, json_object_new_uint64(val));
}

static inline int report_add_str(struct json_object *obj, const char *key,
				 const char *val)
{
	return report_add(obj, key, json_object_new_string(val));
}

static inline int report_add_bool(struct json_object *obj, const char *key,
				  bool val)
{
	return report_add(obj, key, json_object_new_boolean(val));
}

/* Append @val to array @arr, as report_add() adds to an object. */
static inline int report_append(struct json_object *arr,
				struct json_object *val)
{
	if (!arr || !val || json_object_array_add(arr, val)) {
		json_object_put(val);
		return -1;
	}
	return 0;
}

/* @obj, complete, when @err is 0; else NULL (and @obj freed). */
static inline struct json_object *report_finish(struct json_object *obj,
						int err)
{
	if (!err)
		return obj;
	json_object_put(obj);
	return NULL;
}

/*
 * Write result @doc to @f on one line (what the runners and tests read
 * with jq), unless @err says a part of it is missing; frees @doc.
 * 0, or -1 after a message.
 */
static inline int report_write(FILE *f, struct json_object *doc, int err)
{
	const char *text = NULL;

	if (doc && !err)
		text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN |
						      JSON_C_TO_STRING_NOSLASHESCAPE);
	if (text)
		fprintf(f, "%s\n", text);
	else
		fprintf(stderr, "%s: out of memory: no JSON result\n", tool_name);
	json_object_put(doc);
	return text ? 0 : -1;
}

#endif /* SYMOFAN_WORKLOAD_H */
