/* SPDX-License-Identifier: GPL-2.0 */
/*
 * workload.h - what the workload tools (ringcoll, permsend) share:
 * the clock, argument parsers with units, the local-address test, the
 * raw IPv4 socket through which they send packets whose UDP source port
 * and ECN field they set themselves, and their JSON results (json_doc.h, json-c).
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

#include "json_doc.h"
#include "parse.h"
#include "workload/roce_frame.h"

extern const char *tool_name;

static inline __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static inline __u64 real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Sleep until @t_ns of CLOCK_MONOTONIC (earlier if a signal comes). */
static inline void sleep_until(__u64 t_ns)
{
	struct timespec ts = { t_ns / 1000000000ULL, t_ns % 1000000000ULL };

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
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
	__u64 now = mono_ns();
	__s64 delta = (__s64)(realtime_ns - real_ns());

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

/*
 * A raw IPv4 socket for sending (the tool builds IP and UDP headers),
 * non-blocking: a full socket buffer or queue refuses a packet at once
 * (send_raw_udp() returns 1), so that a tool's receiving and ACKing never
 * wait behind its sending.
 *
 * Its send buffer is large (64 MiB): a packet stays charged to the socket
 * until something orphans it.  The kernel's IP receive does, at the first
 * switch that routes it, but veth and a tc-BPF redirect do not, so where
 * Ofan forwards (edge and aggregation switches) the queues of the uplinks
 * it picks count against the sender's buffer.  With the default 208 KiB a
 * queue one or two switches away would hold the sender back, as it would
 * no NIC.
 */
static inline int open_raw_socket(void)
{
	int fd = socket(AF_INET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC,
			IPPROTO_RAW);
	int sndbuf = 64 << 20;

	if (fd < 0) {
		fprintf(stderr, "%s: cannot open a raw socket: %s%s\n", tool_name,
			strerror(errno), errno == EPERM ?
			" (needs CAP_NET_RAW: run as root)" : "");
		return fd;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf, sizeof(sndbuf)))
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
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

#endif /* SYMOFAN_WORKLOAD_H */
