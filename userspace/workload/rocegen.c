// SPDX-License-Identifier: GPL-2.0
/*
 * rocegen.c - craft and send RoCEv2 or UEC packets of collective flows
 * over ordinary UDP sockets, for the qdisc's selftests and benchmarks.
 *
 * Each FLOW names a job, a step, a first PSN and a packet count; the
 * flows' packets go out round-robin, one per flow in turn, so that the
 * order at the qdisc is known.  Job and step are placed where the qdisc
 * reads them (see include/symphony/symphony_wire.h): by default the step
 * in the UDP source port and the job in the BTH reserved bits; for UEC the
 * JobID and the source PDC id.
 *
 *	rocegen [OPTIONS] DEST FLOW...
 *	FLOW := job=J,step=S[,psn=P][,count=N][,first][,last][,opcode=X]
 *		[,truncate=BYTES]
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "parse.h"
#include "symphony/symphony_core.h"
#include "symphony/symphony_names.h"
#include "workload/roce_frame.h"
#include <linux/pkt_sched_symphony.h>

#define ROCEGEN_MAX_FLOWS	64
#define ROCEGEN_MAX_PAYLOAD	9000
#define ROCEGEN_UEC_SPORT	49152	/* UEC: any source port will do */

enum rocegen_proto { ROCEGEN_ROCEV2, ROCEGEN_UEC };

struct rocegen_flow {
	uint32_t	job;
	uint32_t	step;
	uint32_t	psn;		/* first PSN */
	uint32_t	count;		/* packets */
	int		opcode;		/* -1: FIRST/MIDDLE/LAST by position */
	int		truncate;	/* -1: whole header, else header bytes */
	bool		first;		/* first packet opens the message */
	bool		last;		/* last packet ends the message */
	int		fd;
	uint32_t	sent;
};

struct rocegen {
	enum rocegen_proto	proto;
	int			family;
	struct sockaddr_storage	dest;
	socklen_t		dest_len;
	uint8_t			ecn;
	uint32_t		payload;	/* bytes after the headers */
	uint32_t		pps;		/* 0: as fast as possible */
	uint32_t		gso;		/* packets per UDP GSO send */
	uint8_t			job_field;
	uint8_t			step_field;
	struct rocegen_flow	flows[ROCEGEN_MAX_FLOWS];
	int			nr_flows;
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: rocegen [OPTIONS] DEST FLOW...\n"
		"  FLOW := job=J,step=S[,psn=P][,count=N][,first][,last][,opcode=X][,truncate=BYTES]\n"
		"           count packets (default 1) from PSN P (default 0); 'last' ends the\n"
		"           message with its last packet (RDMA WRITE LAST/ONLY, UEC EOM),\n"
		"           'first' opens it (WRITE FIRST); opcode=X forces a BTH opcode;\n"
		"           truncate=BYTES sends only BYTES of the transport headers\n"
		"Options:\n"
		"  --proto rocev2|uec     framing (default rocev2: UDP 4791; uec: UDP 4793)\n"
		"  --ecn 0..3             IP ECN field (default 2, ECT(0))\n"
		"  --payload BYTES        payload after the headers (default 64)\n"
		"  --pps PACKETS          send rate in packets per second (default: no pacing)\n"
		"  --gso SEGMENTS         send up to SEGMENTS consecutive packets of a flow as\n"
		"                         one UDP GSO datagram (default 1: no GSO)\n"
		"  --job-field FIELD      RoCEv2 field of the job: udp_sport, bth_rsvd (default),\n"
		"                         bth_destqp\n"
		"  --step-field FIELD     RoCEv2 field of the step (default udp_sport)\n"
		"Flows send round-robin, one packet each in turn.\n");
}

static int parse_field(const char *s, uint8_t *out)
{
	int field = symphony_lookup_name(symphony_field_names,
					 __SYMPHONY_FIELD_MAX, s);

	if (field < 0)
		return -1;
	*out = field;
	return 0;
}

static int parse_flow(struct rocegen *g, char *spec)
{
	struct rocegen_flow *f = &g->flows[g->nr_flows];
	bool have_job = false, have_step = false;
	char *tok, *save = NULL;
	uint32_t v;

	if (g->nr_flows == ROCEGEN_MAX_FLOWS) {
		fprintf(stderr, "rocegen: at most %d flows\n", ROCEGEN_MAX_FLOWS);
		return -1;
	}
	memset(f, 0, sizeof(*f));
	f->count = 1;
	f->opcode = -1;
	f->truncate = -1;
	f->fd = -1;

	for (tok = strtok_r(spec, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *val = strchr(tok, '=');

		if (val)
			*val++ = '\0';
		if (!strcmp(tok, "first") && !val) {
			f->first = true;
		} else if (!strcmp(tok, "last") && !val) {
			f->last = true;
		} else if (!val) {
			goto bad;
		} else if (!strcmp(tok, "job")) {
			if (parse_u32(val, 0, 0xffffff, &f->job))
				goto bad;
			have_job = true;
		} else if (!strcmp(tok, "step")) {
			if (parse_u32(val, 0, 0xffff, &f->step))
				goto bad;
			have_step = true;
		} else if (!strcmp(tok, "psn")) {
			if (parse_u32(val, 0, UINT32_MAX, &f->psn))
				goto bad;
		} else if (!strcmp(tok, "count")) {
			if (parse_u32(val, 0, UINT32_MAX, &f->count) || !f->count)
				goto bad;
		} else if (!strcmp(tok, "opcode")) {
			if (parse_u32(val, 0, 0xff, &v))
				goto bad;
			f->opcode = v;
		} else if (!strcmp(tok, "truncate")) {
			if (parse_u32(val, 0, SYMPHONY_PDS_LEN + SYMPHONY_SES_MIN_LEN, &v))
				goto bad;
			f->truncate = v;
		} else {
			goto bad;
		}
	}
	if (!have_job || !have_step) {
		fprintf(stderr, "rocegen: a flow needs job= and step=\n");
		return -1;
	}
	g->nr_flows++;
	return 0;
bad:
	fprintf(stderr, "rocegen: bad flow item '%s'\n", tok);
	return -1;
}

/* Put @value into RoCEv2 field @field of @bth (UDP source port: bound). */
static void bth_put_field(uint8_t *bth, uint8_t field, uint32_t value)
{
	switch (field) {
	case SYMPHONY_FIELD_BTH_RSVD:
		roce_bth_put_job(bth, value);
		break;
	case SYMPHONY_FIELD_BTH_DESTQP:
		symphony_put_be24(bth + SYMPHONY_BTH_DESTQP, value);
		break;
	}
}

static uint8_t bth_opcode(const struct rocegen_flow *f, uint32_t i)
{
	bool first = f->first && i == 0, last = f->last && i == f->count - 1;

	if (f->opcode >= 0)
		return f->opcode;
	if (first && last)
		return SYMPHONY_OP_RC_WRITE_ONLY;
	if (first)
		return SYMPHONY_OP_RC_WRITE_FIRST;
	if (last)
		return SYMPHONY_OP_RC_WRITE_LAST;
	return SYMPHONY_OP_RC_WRITE_MIDDLE;
}

/* Build packet @i of flow @f into @buf; returns its UDP payload length. */
static size_t build_packet(const struct rocegen *g, const struct rocegen_flow *f,
			   uint32_t i, uint8_t *buf)
{
	size_t hdr_len;

	if (g->proto == ROCEGEN_ROCEV2) {
		/* no job, DestQP 0: the fields chosen for them carry them */
		roce_put_bth(buf, bth_opcode(f, i), 0, 0, f->psn + i, false);
		bth_put_field(buf, g->job_field, f->job);
		bth_put_field(buf, g->step_field, f->step);
		hdr_len = SYMPHONY_BTH_LEN;
	} else {
		hdr_len = roce_put_uec(buf, f->psn + i, f->step, f->job, 0,
				       f->first && i == 0,
				       f->last && i == f->count - 1);
	}
	if (f->truncate >= 0)
		return (size_t)f->truncate < hdr_len ? (size_t)f->truncate : hdr_len;
	memset(buf + hdr_len, 0xa5, g->payload);
	return hdr_len + g->payload;
}

static int open_flow_socket(const struct rocegen *g, struct rocegen_flow *f)
{
	struct sockaddr_storage src = { .ss_family = g->family };
	int tos = g->ecn, one = 1;
	uint16_t sport;
	int fd;

	if (g->proto == ROCEGEN_ROCEV2 && g->step_field == SYMPHONY_FIELD_UDP_SPORT)
		sport = f->step;
	else if (g->proto == ROCEGEN_ROCEV2 && g->job_field == SYMPHONY_FIELD_UDP_SPORT)
		sport = f->job;
	else
		sport = 0;	/* any */

	fd = socket(g->family, SOCK_DGRAM, 0);
	if (fd < 0) {
		perror("rocegen: socket");
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (g->family == AF_INET) {
		((struct sockaddr_in *)&src)->sin_port = htons(sport);
		if (setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos)))
			goto sockopt_failed;
	} else {
		((struct sockaddr_in6 *)&src)->sin6_port = htons(sport);
		if (setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &tos, sizeof(tos)))
			goto sockopt_failed;
	}
	if (bind(fd, (struct sockaddr *)&src, g->family == AF_INET ?
		 sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6))) {
		fprintf(stderr, "rocegen: cannot bind UDP source port %u: %s\n",
			sport, strerror(errno));
		close(fd);
		return -1;
	}
	f->fd = fd;
	return 0;

sockopt_failed:
	fprintf(stderr, "rocegen: cannot set the ECN field: %s\n", strerror(errno));
	close(fd);
	return -1;
}

/* Send the next @segs packets of @f: one datagram, or one UDP GSO send
 * whose segments are consecutive packets of the flow.
 */
static ssize_t send_packets(const struct rocegen *g, struct rocegen_flow *f,
			    uint32_t segs, uint8_t *buf)
{
	char control[CMSG_SPACE(sizeof(uint16_t))] = {};
	struct iovec iov = { .iov_base = buf };
	struct msghdr msg = {
		.msg_name = (void *)&g->dest,
		.msg_namelen = g->dest_len,
		.msg_iov = &iov,
		.msg_iovlen = 1,
	};
	struct cmsghdr *cm;
	size_t len;
	uint32_t j;

	/* All packets of a flow have the same length. */
	len = build_packet(g, f, f->sent, buf);
	for (j = 1; j < segs; j++)
		build_packet(g, f, f->sent + j, buf + j * len);
	iov.iov_len = len * segs;
	if (segs > 1) {
		msg.msg_control = control;
		msg.msg_controllen = sizeof(control);
		cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_level = SOL_UDP;
		cm->cmsg_type = UDP_SEGMENT;
		cm->cmsg_len = CMSG_LEN(sizeof(uint16_t));
		*(uint16_t *)CMSG_DATA(cm) = len;
	}
	return sendmsg(f->fd, &msg, 0);
}

static void pace(struct timespec *next, uint32_t pps)
{
	if (!pps)
		return;
	next->tv_nsec += 1000000000L / pps;
	while (next->tv_nsec >= 1000000000L) {
		next->tv_nsec -= 1000000000L;
		next->tv_sec++;
	}
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, next, NULL);
}

static int parse_dest(struct rocegen *g, const char *s)
{
	uint16_t port = g->proto == ROCEGEN_ROCEV2 ? SYMPHONY_UDP_PORT_ROCEV2 :
						    SYMPHONY_UDP_PORT_UEC;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&g->dest;
	struct sockaddr_in *s4 = (struct sockaddr_in *)&g->dest;

	memset(&g->dest, 0, sizeof(g->dest));
	if (inet_pton(AF_INET, s, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		g->dest_len = sizeof(*s4);
	} else if (inet_pton(AF_INET6, s, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		g->dest_len = sizeof(*s6);
	} else {
		fprintf(stderr, "rocegen: '%s' is not an IPv4 or IPv6 address\n", s);
		return -1;
	}
	g->family = g->dest.ss_family;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "proto",	required_argument, NULL, 'P' },
		{ "ecn",	required_argument, NULL, 'e' },
		{ "payload",	required_argument, NULL, 'l' },
		{ "pps",	required_argument, NULL, 'r' },
		{ "gso",	required_argument, NULL, 'g' },
		{ "job-field",	required_argument, NULL, 'j' },
		{ "step-field",	required_argument, NULL, 's' },
		{ "help",	no_argument,	   NULL, 'h' },
		{}
	};
	struct rocegen g = {
		.proto = ROCEGEN_ROCEV2,
		.ecn = 2,
		.payload = 64,
		.gso = 1,
		.job_field = SYMPHONY_FIELD_BTH_RSVD,
		.step_field = SYMPHONY_FIELD_UDP_SPORT,
	};
	static uint8_t buf[65536];
	uint64_t total = 0, failed = 0;
	struct timespec next;
	bool more = true;
	uint32_t v, i;
	int opt, k;

	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'P':
			if (!strcmp(optarg, "rocev2"))
				g.proto = ROCEGEN_ROCEV2;
			else if (!strcmp(optarg, "uec"))
				g.proto = ROCEGEN_UEC;
			else
				goto usage;
			break;
		case 'e':
			if (parse_u32(optarg, 0, 3, &v))
				goto usage;
			g.ecn = v;
			break;
		case 'l':
			if (parse_u32(optarg, 0, ROCEGEN_MAX_PAYLOAD, &g.payload))
				goto usage;
			break;
		case 'r':
			if (parse_u32(optarg, 0, 100000000, &g.pps))
				goto usage;
			break;
		case 'g':
			if (parse_u32(optarg, 0, 64, &g.gso) || !g.gso)
				goto usage;
			break;
		case 'j':
			if (parse_field(optarg, &g.job_field))
				goto usage;
			break;
		case 's':
			if (parse_field(optarg, &g.step_field))
				goto usage;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			goto usage;
		}
	}
	if (argc - optind < 2)
		goto usage;
	if (g.job_field == g.step_field) {
		fprintf(stderr, "rocegen: job and step cannot share a field\n");
		return 2;
	}
	if (g.gso > 1 && (g.payload + 64) * g.gso > 65000) {
		fprintf(stderr, "rocegen: --gso %u of %u-byte payloads exceeds 64 KB\n",
			g.gso, g.payload);
		return 2;
	}
	if (parse_dest(&g, argv[optind++]))
		return 2;
	for (; optind < argc; optind++)
		if (parse_flow(&g, argv[optind]))
			return 2;
	for (k = 0; k < g.nr_flows; k++) {
		struct rocegen_flow *f = &g.flows[k];

		if (g.proto == ROCEGEN_ROCEV2 &&
		    (f->job >> symphony_field_bits(g.job_field) ||
		     f->step >> symphony_field_bits(g.step_field))) {
			fprintf(stderr, "rocegen: job %u or step %u does not fit its field\n",
				f->job, f->step);
			return 2;
		}
		if (open_flow_socket(&g, f))
			return 1;
	}

	clock_gettime(CLOCK_MONOTONIC, &next);
	while (more) {
		more = false;
		for (k = 0; k < g.nr_flows; k++) {
			struct rocegen_flow *f = &g.flows[k];
			uint32_t segs;

			if (f->sent == f->count)
				continue;
			segs = f->count - f->sent < g.gso ? f->count - f->sent : g.gso;
			if (send_packets(&g, f, segs, buf) < 0)
				failed += segs;
			else
				total += segs;
			f->sent += segs;
			more |= f->sent < f->count;
			for (i = 0; i < segs; i++)
				pace(&next, g.pps);
		}
	}
	printf("rocegen: sent %llu packets in %d flows (%llu failed)\n",
	       (unsigned long long)total, g.nr_flows,
	       (unsigned long long)failed);
	return failed ? 1 : 0;

usage:
	usage(stderr);
	return 2;
}
