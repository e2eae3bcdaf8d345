// SPDX-License-Identifier: GPL-2.0
/*
 * roceblast.c - send a RoCEv2 stream of ring-collective jobs as fast as a
 * device's qdisc takes it, for the qdisc benchmark (bench/qdisc_pps.sh).
 *
 * Packets go out through an AF_PACKET TX ring with the qdisc path on
 * (PACKET_QDISC_BYPASS off).  A virtio-net header tells the kernel to
 * copy the Ethernet, IPv4, UDP and BTH headers (or, with --linear, more
 * of the frame) into the skb's linear area, as a NIC driver or GRO would
 * leave them, so that a qdisc can read and ECN-mark them in place; the
 * rest stays in the ring (zero copy).
 *
 * The stream: JOBS jobs take turns, one packet each.  Each job has two
 * steps in flight, a lagging step s and an outpacing step s + 1, whose
 * RDMA WRITE MIDDLE packets alternate; after MIDDLE packets of each, a
 * WRITE LAST of step s ends it and step s + 1 becomes the lagging one.
 * The step travels in the UDP source port, the job in the BTH reserved
 * bits (include/symphony/symphony_wire.h), PSNs increase per job, the IP
 * header carries ECT(0).  The 4-byte ICRC is sent as zero.
 *
 *	roceblast [--cpu N] [--jobs N] [--middle N] [--size BYTES]
 *		  [--linear BYTES] [--duration SEC | --count N] DEV
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "parse.h"
#include "workload/roce_frame.h"

#define RB_ETH_LEN		14
#define RB_HDRS_LEN		(RB_ETH_LEN + ROCE_IPV4_LEN + ROCE_UDP_LEN + SYMPHONY_BTH_LEN)
#define RB_ICRC_LEN		4
#define RB_MIN_SIZE		(RB_HDRS_LEN + RB_ICRC_LEN)
#define RB_MAX_SIZE		1500
#define RB_MAX_JOBS		64
#define RB_FRAME_SIZE		2048
#define RB_BLOCK_SIZE		4096
#define RB_FRAMES		256	/* frames handed to the kernel per send */
#define RB_FIRST_STEP		1000
#define RB_FIRST_PSN		0x100	/* past Symphony's warm-up */

/* Offsets in the frame, from the Ethernet header. */
#define RB_OFF_IP		RB_ETH_LEN
#define RB_OFF_UDP		(RB_OFF_IP + ROCE_IPV4_LEN)
#define RB_OFF_BTH		(RB_OFF_UDP + ROCE_UDP_LEN)

struct rb_job {
	uint32_t	id;		/* 13 bits: the BTH reserved bits */
	uint32_t	step;		/* lagging step, 16 bits */
	uint32_t	psn;		/* next PSN, 24 bits */
	uint32_t	pos;		/* position in the step's pattern */
};

struct rb_ring {
	int		fd;
	uint8_t		*map;
	size_t		map_len;
	unsigned int	frames;
	size_t		data_off;	/* frame start to the virtio-net header */
};

static volatile sig_atomic_t rb_stop;

static void rb_on_signal(int sig)
{
	(void)sig;
	rb_stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: roceblast [OPTIONS] DEV\n"
		"  --cpu N          run on CPU N\n"
		"  --jobs N         collective jobs taking turns, 1..%d (default 4)\n"
		"  --middle N       WRITE MIDDLE packets per step and per flow before the\n"
		"                   lagging step's WRITE LAST, 1..1000 (default 3)\n"
		"  --size BYTES     frame size from the Ethernet header, %d..%d (default 1000)\n"
		"  --linear BYTES   bytes of the frame in the skb's linear area, at least\n"
		"                   the headers (default %d: Ethernet, IPv4, UDP, BTH)\n"
		"  --duration SEC   send for SEC seconds (default 0: until a signal)\n"
		"  --count N        stop after N packets\n"
		"Prints the packets sent, the seconds and the rate when it stops.\n",
		RB_MAX_JOBS, RB_MIN_SIZE, RB_MAX_SIZE, RB_HDRS_LEN);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The parts of a frame that never change: everything but the step, the
 * job, the opcode and the PSN.
 */
static void frame_template(uint8_t *f, size_t size, const uint8_t *src_mac)
{
	static const uint8_t dst_mac[ETH_ALEN] = { 0x02, 0, 0, 0, 0, 0x02 };

	memset(f, 0, size);
	memcpy(f, dst_mac, ETH_ALEN);
	memcpy(f + ETH_ALEN, src_mac, ETH_ALEN);
	symphony_put_be16(f + 2 * ETH_ALEN, ETH_P_IP);
	/* 10.99.0.1 to 10.99.0.2, ECT(0); the source port is the step */
	roce_put_ipv4_udp(f + RB_OFF_IP, htonl(0x0a630001), htonl(0x0a630002),
			  0, SYMPHONY_UDP_PORT_ROCEV2, ROCE_ECN_ECT0, 0,
			  size - RB_OFF_UDP - ROCE_UDP_LEN);
	memset(f + RB_HDRS_LEN, 0xa5, size - RB_HDRS_LEN - RB_ICRC_LEN);
}

/* Write the next packet of @job into frame @f and advance the job. */
static void frame_next(uint8_t *f, struct rb_job *job, uint32_t middle)
{
	uint8_t *bth = f + RB_OFF_BTH;
	uint32_t step = job->step;
	uint8_t opcode = SYMPHONY_OP_RC_WRITE_MIDDLE;

	/* pattern: lagging, outpacing, ... (middle of each), lagging LAST */
	if (job->pos == 2 * middle)
		opcode = SYMPHONY_OP_RC_WRITE_LAST;
	else if (job->pos & 1)
		step++;

	symphony_put_be16(f + RB_OFF_UDP, step & 0xffff);
	roce_put_bth(bth, opcode, job->id, job->id, job->psn, false);

	job->psn = (job->psn + 1) & 0xffffff;
	if (++job->pos > 2 * middle) {
		job->pos = 0;
		job->step = (job->step + 1) & 0xffff;
	}
}

static int ring_open(struct rb_ring *r, const char *dev, uint8_t *mac)
{
	struct tpacket_req req = {
		.tp_block_size	= RB_BLOCK_SIZE,
		.tp_block_nr	= RB_FRAMES / (RB_BLOCK_SIZE / RB_FRAME_SIZE),
		.tp_frame_size	= RB_FRAME_SIZE,
		.tp_frame_nr	= RB_FRAMES,
	};
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	int version = TPACKET_V2, one = 1, zero = 0;
	int sndbuf = 16 << 20;
	struct ifreq ifr = {};

	r->fd = socket(AF_PACKET, SOCK_RAW, 0);	/* protocol 0: send only */
	if (r->fd < 0) {
		perror("roceblast: socket(AF_PACKET)");
		return -1;
	}
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	if (ioctl(r->fd, SIOCGIFINDEX, &ifr)) {
		fprintf(stderr, "roceblast: no device '%s': %s\n", dev,
			strerror(errno));
		return -1;
	}
	sll.sll_ifindex = ifr.ifr_ifindex;
	if (ioctl(r->fd, SIOCGIFHWADDR, &ifr)) {
		perror("roceblast: SIOCGIFHWADDR");
		return -1;
	}
	memcpy(mac, ifr.ifr_hwaddr.sa_data, ETH_ALEN);

	if (setsockopt(r->fd, SOL_PACKET, PACKET_VERSION, &version, sizeof(version)) ||
	    setsockopt(r->fd, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof(one)) ||
	    setsockopt(r->fd, SOL_PACKET, PACKET_QDISC_BYPASS, &zero, sizeof(zero))) {
		perror("roceblast: setsockopt(SOL_PACKET)");
		return -1;
	}
	if (setsockopt(r->fd, SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf, sizeof(sndbuf)))
		setsockopt(r->fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	if (setsockopt(r->fd, SOL_PACKET, PACKET_TX_RING, &req, sizeof(req))) {
		perror("roceblast: setsockopt(PACKET_TX_RING)");
		return -1;
	}
	r->frames = req.tp_frame_nr;
	r->map_len = (size_t)req.tp_block_size * req.tp_block_nr;
	r->map = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		      r->fd, 0);
	if (r->map == MAP_FAILED) {
		perror("roceblast: mmap");
		return -1;
	}
	/* TPACKET_V2 transmit data starts where a received frame's
	 * sockaddr_ll would be.
	 */
	r->data_off = TPACKET2_HDRLEN - sizeof(struct sockaddr_ll);
	if (bind(r->fd, (struct sockaddr *)&sll, sizeof(sll))) {
		perror("roceblast: bind");
		return -1;
	}
	return 0;
}

static struct tpacket2_hdr *ring_frame(const struct rb_ring *r, unsigned int i)
{
	return (struct tpacket2_hdr *)(r->map + (size_t)i * RB_FRAME_SIZE);
}

/* Wait until the kernel has given frame @h back; false on an error. */
static bool frame_wait(const struct rb_ring *r, volatile struct tpacket2_hdr *h)
{
	struct pollfd pfd = { .fd = r->fd, .events = POLLOUT };

	for (;;) {
		uint32_t status = h->tp_status;

		if (status == TP_STATUS_AVAILABLE)
			return true;
		if (status & TP_STATUS_WRONG_FORMAT) {
			fprintf(stderr, "roceblast: the kernel rejected a frame\n");
			return false;
		}
		if (rb_stop)
			return false;
		poll(&pfd, 1, 10);
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "cpu",	required_argument, NULL, 'c' },
		{ "jobs",	required_argument, NULL, 'j' },
		{ "middle",	required_argument, NULL, 'm' },
		{ "size",	required_argument, NULL, 's' },
		{ "linear",	required_argument, NULL, 'l' },
		{ "duration",	required_argument, NULL, 'd' },
		{ "count",	required_argument, NULL, 'n' },
		{ "help",	no_argument,	   NULL, 'h' },
		{}
	};
	unsigned long long cpu = ~0ULL, count = 0, sent = 0, enobufs = 0;
	unsigned long long nr_jobs = 4, middle = 3, size = 1000;
	unsigned long long linear = RB_HDRS_LEN;
	struct rb_job jobs[RB_MAX_JOBS];
	struct rb_ring ring = { .fd = -1 };
	double duration = 0, start, elapsed;
	uint8_t mac[ETH_ALEN];
	unsigned int i, next_job = 0;
	int opt;

	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			if (parse_ull(optarg, 0, CPU_SETSIZE - 1, &cpu))
				goto usage;
			break;
		case 'j':
			if (parse_ull(optarg, 0, RB_MAX_JOBS, &nr_jobs) || !nr_jobs)
				goto usage;
			break;
		case 'm':
			if (parse_ull(optarg, 0, 1000, &middle) || !middle)
				goto usage;
			break;
		case 's':
			if (parse_ull(optarg, 0, RB_MAX_SIZE, &size) || size < RB_MIN_SIZE)
				goto usage;
			break;
		case 'l':
			if (parse_ull(optarg, 0, RB_MAX_SIZE, &linear) ||
			    linear < RB_HDRS_LEN)
				goto usage;
			break;
		case 'd': {
			char *end;

			duration = strtod(optarg, &end);
			if (end == optarg || *end || !(duration >= 0 && duration <= 86400))
				goto usage;
			break;
		}
		case 'n':
			if (parse_ull(optarg, 0, ~0ULL, &count))
				goto usage;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			goto usage;
		}
	}
	if (argc - optind != 1 || linear > size)
		goto usage;

	if (cpu != ~0ULL) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			perror("roceblast: sched_setaffinity");
			return 1;
		}
	}
	signal(SIGINT, rb_on_signal);
	signal(SIGTERM, rb_on_signal);

	if (ring_open(&ring, argv[optind], mac))
		return 1;

	/* Job ids spread over both parts of the 13-bit field. */
	for (i = 0; i < nr_jobs; i++)
		jobs[i] = (struct rb_job) {
			.id	= 7 + 61 * i,
			.step	= RB_FIRST_STEP + 100 * i,
			.psn	= RB_FIRST_PSN,
		};
	for (i = 0; i < ring.frames; i++) {
		struct tpacket2_hdr *h = ring_frame(&ring, i);
		uint8_t *data = (uint8_t *)h + ring.data_off;
		struct virtio_net_hdr *vnet = (struct virtio_net_hdr *)data;

		memset(vnet, 0, sizeof(*vnet));
		vnet->hdr_len = linear;		/* copied, the rest zero copy */
		frame_template(data + sizeof(*vnet), size, mac);
		h->tp_len = sizeof(*vnet) + size;
	}

	start = now_s();
	while (!rb_stop && (!count || sent < count)) {
		unsigned int queued = 0;

		for (i = 0; i < ring.frames && (!count || sent + queued < count); i++) {
			struct tpacket2_hdr *h = ring_frame(&ring, i);
			uint8_t *frame = (uint8_t *)h + ring.data_off +
					 sizeof(struct virtio_net_hdr);

			if (!frame_wait(&ring, h))
				goto out;
			frame_next(frame, &jobs[next_job], middle);
			next_job = (next_job + 1) % nr_jobs;
			__atomic_store_n(&h->tp_status, TP_STATUS_SEND_REQUEST,
					 __ATOMIC_RELEASE);
			queued++;
		}
		/* Blocking: returns once the kernel has sent every frame. */
		while (send(ring.fd, NULL, 0, 0) < 0) {
			if (errno == ENOBUFS) {		/* a qdisc drop */
				enobufs++;
				continue;
			}
			if (errno == EINTR && rb_stop)
				break;
			perror("roceblast: send");
			return 1;
		}
		sent += queued;
		if (duration && now_s() - start >= duration)
			break;
	}
out:
	elapsed = now_s() - start;
	printf("roceblast: sent %llu packets of %llu bytes in %.3f s: %.0f pps (%llu ENOBUFS)\n",
	       sent, size, elapsed, elapsed > 0 ? sent / elapsed : 0.0, enobufs);
	munmap(ring.map, ring.map_len);
	close(ring.fd);
	return 0;

usage:
	usage(stderr);
	return 2;
}
