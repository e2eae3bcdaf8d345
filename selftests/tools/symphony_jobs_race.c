// SPDX-License-Identifier: GPL-2.0
/*
 * symphony_jobs_race.c - drives pinned Symphony tc-BPF programs with one
 * job's RoCEv2 packets on several CPUs at once (BPF_PROG_TEST_RUN), for
 * the host tests of what two writers of one job must not lose:
 *
 *   symphony_jobs_race count JOB PACKETS PROG_PIN IFINDEX [PROG_PIN IFINDEX]...
 *	PACKETS packets of job JOB through each program, one thread and CPU
 *	per program, as if leaving its port of IFINDEX; prints the packets
 *	sent.  The job's counter must then hold them all.
 *
 *   symphony_jobs_race reset JOB RESETS IFINDEX PROG_PIN JOBS_PIN
 *	packets of JOB through the program on CPU 1 while CPU 0 resets the
 *	job RESETS times as "symofan job del/add" do (request_job_reset());
 *	after each reset, once the datapath applied it, the job's packet
 *	counter must hold no more than the packets sent since.  Prints
 *	"resets N came_back N unapplied N"; exits 1 if either is not 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <linux/if_ether.h>
#include <bpf/bpf.h>

#include "symphony/symphony_wire.h"
#include "workload/roce_frame.h"
#include "job_registry.h"

#define FRAME_LEN	(ETH_HLEN + ROCE_IPV4_LEN + ROCE_UDP_LEN + \
			 SYMPHONY_BTH_LEN + 64)
#define BATCH		64	/* packets per BPF_PROG_TEST_RUN */

struct sender {
	int		prog_fd;
	int		cpu;
	__u32		ifindex;
	__u64		packets;	/* to send; 0: until stop */
	__u64		sent;
	int		err;
};

static __u8 frame[FRAME_LEN];
static int stop;	/* read and set with __atomic */

/* Job @job's RDMA WRITE middle packet, step 3, ECT(0). */
static void build_frame(__u32 job)
{
	static const __u8 macs[12] = { 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1 };
	__u8 *ip = frame + ETH_HLEN;

	memcpy(frame, macs, sizeof(macs));
	frame[12] = ETH_P_IP >> 8;
	frame[13] = ETH_P_IP & 0xff;
	roce_put_ipv4_udp(ip, 0x0100000a, 0x0200000a, 3,
			  SYMPHONY_UDP_PORT_ROCEV2, ROCE_ECN_ECT0, 1,
			  SYMPHONY_BTH_LEN + 64);
	roce_put_bth(ip + ROCE_IPV4_LEN + ROCE_UDP_LEN,
		     SYMPHONY_OP_RC_WRITE_MIDDLE, job, 17, 100, false);
}

static void *send_loop(void *arg)
{
	struct sender *s = arg;
	struct __sk_buff ctx = { .ifindex = s->ifindex };
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(s->cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED) &&
	       (!s->packets || s->sent < s->packets)) {
		__u32 n = BATCH;
		LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame,
			    .data_size_in = sizeof(frame), .ctx_in = &ctx,
			    .ctx_size_in = sizeof(ctx));

		if (s->packets && s->packets - s->sent < n)
			n = s->packets - s->sent;
		opts.repeat = n;
		if (bpf_prog_test_run_opts(s->prog_fd, &opts)) {
			s->err = errno;
			break;
		}
		__atomic_store_n(&s->sent, s->sent + n, __ATOMIC_RELEASE);
	}
	return NULL;
}

static int open_prog(const char *path)
{
	int fd = bpf_obj_get(path);

	if (fd < 0)
		fprintf(stderr, "symphony_jobs_race: %s: %s\n", path,
			strerror(errno));
	return fd;
}

static int cmd_count(__u32 job, __u64 packets, int nr, char **pins)
{
	struct sender s[8] = {};
	pthread_t t[8];
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	__u64 total = 0;
	int i;

	nr /= 2;
	if (nr > 8)
		nr = 8;
	build_frame(job);
	for (i = 0; i < nr; i++) {
		s[i].prog_fd = open_prog(pins[2 * i]);
		if (s[i].prog_fd < 0)
			return 2;
		s[i].cpu = i % (ncpus > 0 ? ncpus : 1);
		s[i].ifindex = strtoul(pins[2 * i + 1], NULL, 0);
		s[i].packets = packets;
	}
	for (i = 0; i < nr; i++)
		pthread_create(&t[i], NULL, send_loop, &s[i]);
	for (i = 0; i < nr; i++) {
		pthread_join(t[i], NULL);
		if (s[i].err) {
			fprintf(stderr, "symphony_jobs_race: test run: %s\n",
				strerror(s[i].err));
			return 2;
		}
		total += s[i].sent;
	}
	printf("%llu\n", (unsigned long long)total);
	return 0;
}

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int cmd_reset(__u32 job, __u32 resets, __u32 ifindex,
		     const char *prog_pin, const char *jobs_pin)
{
	struct sender s = { .cpu = 1, .ifindex = ifindex };
	__u32 i, came_back = 0, unapplied = 0, nr_slots;
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	struct symphony_job *jobs, *j;
	cpu_set_t set;
	pthread_t t;
	int jobs_fd;

	build_frame(job);
	s.prog_fd = open_prog(prog_pin);
	jobs_fd = open_prog(jobs_pin);
	if (s.prog_fd < 0 || jobs_fd < 0 ||
	    bpf_obj_get_info_by_fd(jobs_fd, &info, &len))
		return 2;
	nr_slots = info.max_entries;
	if (job >= nr_slots)
		return 2;
	jobs = mmap(NULL, (size_t)nr_slots * sizeof(*jobs),
		    PROT_READ | PROT_WRITE, MAP_SHARED, jobs_fd, 0);
	if (jobs == MAP_FAILED) {
		perror("symphony_jobs_race: mmap");
		return 2;
	}
	j = &jobs[job];
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	pthread_create(&t, NULL, send_loop, &s);
	for (i = 0; i < resets && !s.err; i++) {
		__u64 before, after, sent_then, sent_now;
		__u64 deadline = now_ns() + 1000000000ULL;

		/* a block with something to lose */
		while ((job_reset_pending(j) ||
			__atomic_load_n(&j->packets, __ATOMIC_RELAXED) < 1000) &&
		       now_ns() < deadline && !s.err)
			;
		before = __atomic_load_n(&j->packets, __ATOMIC_RELAXED);
		if (job_reset_pending(j) || before < 1000) {
			fprintf(stderr, "symphony_jobs_race: job %u counts no packets: is the program on the port of ifindex %u?\n",
				job, ifindex);
			__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
			pthread_join(t, NULL);
			return 2;
		}
		sent_then = __atomic_load_n(&s.sent, __ATOMIC_ACQUIRE);
		request_job_reset(j);
		deadline = now_ns() + 100000000ULL;
		while (job_reset_pending(j) && now_ns() < deadline)
			;
		if (job_reset_pending(j)) {
			unapplied++;
			continue;
		}
		/*
		 * A block cleared for good holds no more than the packets
		 * sent since the reset was asked for, and the two batches in
		 * flight then and now; one the datapath wrote back holds the
		 * count from before on top (at least 1000: more than those).
		 * Preemption of this thread in between changes neither.
		 */
		after = __atomic_load_n(&j->packets, __ATOMIC_RELAXED);
		sent_now = __atomic_load_n(&s.sent, __ATOMIC_ACQUIRE);
		if (after > sent_now - sent_then + 2 * BATCH)
			came_back++;
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	if (s.err) {
		fprintf(stderr, "symphony_jobs_race: test run: %s\n",
			strerror(s.err));
		return 2;
	}
	printf("resets %u came_back %u unapplied %u packets %llu\n", i,
	       came_back, unapplied, (unsigned long long)s.sent);
	return came_back || unapplied ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc >= 6 && argc % 2 == 0 && !strcmp(argv[1], "count"))
		return cmd_count(strtoul(argv[2], NULL, 0),
				 strtoull(argv[3], NULL, 0), argc - 4, argv + 4);
	if (argc == 7 && !strcmp(argv[1], "reset"))
		return cmd_reset(strtoul(argv[2], NULL, 0),
				 strtoul(argv[3], NULL, 0),
				 strtoul(argv[4], NULL, 0), argv[5], argv[6]);
	fprintf(stderr,
		"usage: symphony_jobs_race count JOB PACKETS PROG_PIN IFINDEX [PROG_PIN IFINDEX]...\n"
		"       symphony_jobs_race reset JOB RESETS IFINDEX PROG_PIN JOBS_PIN\n");
	return 2;
}
