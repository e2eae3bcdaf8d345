// SPDX-License-Identifier: GPL-2.0
/*
 * hostload.c - how busy the machine was while a testbed ran, for the
 * run's guard: the share of CPU time spent busy and in softirq, and the
 * rate of local timer interrupts (the "LOC" line of /proc/interrupts),
 * over the whole run and in its busiest window; the share of time the
 * hypervisor took (steal); and how late a thread of its own woke from
 * 1 ms sleeps: a virtual machine whose CPUs are taken away stalls every
 * sender at once, with its own CPUs idle.  A netns testbed's senders,
 * links (HTB) and switches share this machine's CPUs: a run in which
 * they were saturated or stalled measured the machine, not the network.
 *
 * Samples /proc/stat and /proc/interrupts every --interval-ms until
 * SIGINT or SIGTERM (or --duration-ms), then writes one JSON object.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <signal.h>
#include <unistd.h>

#include <pthread.h>
#include <sys/prctl.h>

#include "workload.h"

#define MAX_SAMPLES	(1 << 16)

const char *tool_name = "hostload";

struct sample {
	__u64	mono_ns;
	__u64	total, idle, softirq, steal;	/* USER_HZ ticks, all CPUs */
	__u64	timer_irqs;		/* all CPUs */
};

#define PROBE_PERIOD_NS	1000000ULL	/* the wake-up probe's sleeps */

static volatile sig_atomic_t stop;

/* The wake-up probe: the worst lateness of 1 ms absolute sleeps, and how
 * many woke more than 1 ms late.
 */
static struct {
	__u64	worst_late_ns, late_1ms;
	int	stop;
} probe;

static void *probe_main(void *arg)
{
	__u64 due = mono_ns(), late;

	(void)arg;
	prctl(PR_SET_TIMERSLACK, 1000UL);
	while (!__atomic_load_n(&probe.stop, __ATOMIC_RELAXED)) {
		due += PROBE_PERIOD_NS;
		sleep_until(due);
		late = mono_ns() - due;
		if (late > probe.worst_late_ns)
			probe.worst_late_ns = late;
		if (late > 1000000ULL)
			probe.late_1ms++;
		/* after a stall, the next sleep starts from now */
		if (late > PROBE_PERIOD_NS)
			due += late / PROBE_PERIOD_NS * PROBE_PERIOD_NS;
	}
	return NULL;
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: hostload [--interval-ms MS] [--window-ms MS] [--duration-ms MS]\n"
"                [--out FILE]\n"
"  Samples CPU time (/proc/stat) and local timer interrupts\n"
"  (/proc/interrupts, LOC) until SIGINT or SIGTERM, then writes JSON: busy,\n"
"  softirq and steal shares (percent of all CPUs' time; busy leaves steal\n"
"  out) and timer interrupts per second, over the whole run and in its\n"
"  busiest window; and the worst lateness of a thread's 1 ms sleeps (ns).\n"
"  --interval-ms MS  between samples (10..1000, default 100)\n"
"  --window-ms MS    the busiest-window length (default 500)\n"
"  --duration-ms MS  stop by itself after MS (default: at a signal)\n"
"  --out FILE        JSON result (default stdout)\n");
}

/* The aggregate "cpu" line: total, idle (with iowait) and softirq ticks. */
static int read_stat(struct sample *s)
{
	unsigned long long v[10] = { 0 };
	FILE *f = fopen("/proc/stat", "r");
	int n, i;

	if (!f)
		return -1;
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
		   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7],
		   &v[8], &v[9]);
	fclose(f);
	if (n < 7)
		return -1;
	/* guest and guest_nice (8, 9) are already in user and nice */
	s->total = 0;
	for (i = 0; i < 8; i++)
		s->total += v[i];
	s->idle = v[3] + v[4];
	s->softirq = v[6];
	s->steal = v[7];
	return 0;
}

/* The sum of the "LOC:" line's per-CPU counts (0 where there is none). */
static int read_timer_irqs(struct sample *s)
{
	char line[4096], *p, *end;
	FILE *f = fopen("/proc/interrupts", "r");

	if (!f)
		return -1;
	s->timer_irqs = 0;
	while (fgets(line, sizeof(line), f)) {
		p = line + strspn(line, " ");
		if (strncmp(p, "LOC:", 4))
			continue;
		for (p += 4;; p = end) {
			unsigned long long n = strtoull(p, &end, 10);

			if (end == p)
				break;
			s->timer_irqs += n;
		}
		break;
	}
	fclose(f);
	return 0;
}

static double pct(__u64 part, __u64 whole)
{
	return whole ? 100.0 * part / whole : 0;
}

static double per_s(__u64 count, __u64 ns)
{
	return ns ? count * 1e9 / ns : 0;
}

static int report(FILE *out, const struct sample *s, __u32 n, __u32 window)
{
	struct json_object *doc = json_object_new_object();
	const struct sample *a = &s[0], *b = &s[n - 1];
	double busy_max = 0, softirq_max = 0, timer_max = 0, steal_max = 0;
	__u32 i, w = window < n - 1 ? window : n - 1;
	int err;

	/* windows of w intervals, sliding by one sample */
	for (i = 0; i + w < n; i++) {
		const struct sample *x = &s[i], *y = &s[i + w];
		__u64 total = y->total - x->total;
		double busy = pct(total - (y->idle - x->idle) -
				  (y->steal - x->steal), total);
		double soft = pct(y->softirq - x->softirq, total);
		double timer = per_s(y->timer_irqs - x->timer_irqs,
				     y->mono_ns - x->mono_ns);

		if (busy > busy_max)
			busy_max = busy;
		double steal = pct(y->steal - x->steal, total);

		if (soft > softirq_max)
			softirq_max = soft;
		if (steal > steal_max)
			steal_max = steal;
		if (timer > timer_max)
			timer_max = timer;
	}
	err = jdoc_add_u64(doc, "cpus", sysconf(_SC_NPROCESSORS_ONLN));
	err |= jdoc_add_u64(doc, "duration_ms", (b->mono_ns - a->mono_ns) / 1000000);
	err |= jdoc_add_u64(doc, "samples", n);
	err |= jdoc_add_u64(doc, "window_ms",
			    n > 1 ? (s[w].mono_ns - s[0].mono_ns) / 1000000 : 0);
	err |= jdoc_add(doc, "cpu_busy_pct",
			jdoc_fixed(pct(b->total - a->total - (b->idle - a->idle) -
				       (b->steal - a->steal),
				       b->total - a->total), 1));
	err |= jdoc_add(doc, "cpu_busy_max_window_pct", jdoc_fixed(busy_max, 1));
	err |= jdoc_add(doc, "softirq_pct",
			jdoc_fixed(pct(b->softirq - a->softirq, b->total - a->total), 1));
	err |= jdoc_add(doc, "softirq_max_window_pct", jdoc_fixed(softirq_max, 1));
	err |= jdoc_add(doc, "timer_irqs_per_s",
			jdoc_fixed(per_s(b->timer_irqs - a->timer_irqs,
					 b->mono_ns - a->mono_ns), 0));
	err |= jdoc_add(doc, "timer_irqs_max_window_per_s", jdoc_fixed(timer_max, 0));
	err |= jdoc_add(doc, "steal_pct",
			jdoc_fixed(pct(b->steal - a->steal, b->total - a->total), 1));
	err |= jdoc_add(doc, "steal_max_window_pct", jdoc_fixed(steal_max, 1));
	err |= jdoc_add_u64(doc, "wakeup_late_max_ns", probe.worst_late_ns);
	err |= jdoc_add_u64(doc, "wakeups_late_over_1ms", probe.late_1ms);
	return jdoc_print(out, jdoc_finish(doc, err), JSON_C_TO_STRING_PLAIN);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "interval-ms", required_argument, NULL, 'i' },
		{ "window-ms", required_argument, NULL, 'w' },
		{ "duration-ms", required_argument, NULL, 'd' },
		{ "out", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	__u32 interval_ms = 100, window_ms = 500, duration_ms = 0, n = 0;
	const char *out_path = NULL;
	pthread_t probe_thread;
	struct sample *s;
	int err;
	FILE *out = stdout;
	__u64 next;
	int c, ret;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return 0;
		case 'o':
			out_path = optarg;
			break;
		case 'i':
			if (parse_u32_range("--interval-ms", optarg, 10, 1000,
					    &interval_ms))
				return 2;
			break;
		case 'w':
			if (parse_u32_range("--window-ms", optarg, 1, 3600000,
					    &window_ms))
				return 2;
			break;
		case 'd':
			if (parse_u32_range("--duration-ms", optarg, 1, 86400000,
					    &duration_ms))
				return 2;
			break;
		default:
			fprintf(stderr, "hostload: unknown option or missing value: '%s'\n",
				argv[optind - 1]);
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "hostload: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	s = calloc(MAX_SAMPLES, sizeof(*s));
	if (!s) {
		fprintf(stderr, "hostload: out of memory\n");
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	err = pthread_create(&probe_thread, NULL, probe_main, NULL);
	if (err) {
		fprintf(stderr, "hostload: cannot start the wake-up probe: %s\n",
			strerror(err));
		return 1;
	}
	next = mono_ns();
	for (;;) {
		s[n].mono_ns = mono_ns();
		if (read_stat(&s[n]) || read_timer_irqs(&s[n])) {
			fprintf(stderr, "hostload: cannot read /proc/stat or /proc/interrupts: %s\n",
				strerror(errno));
			return 1;
		}
		n++;
		/* a signal ends the run with the sample it woke us for */
		if ((stop && n >= 2) || n == MAX_SAMPLES ||
		    (duration_ms &&
		     s[n - 1].mono_ns - s[0].mono_ns >= duration_ms * 1000000ULL))
			break;
		next += interval_ms * 1000000ULL;
		sleep_until(next);
	}
	__atomic_store_n(&probe.stop, 1, __ATOMIC_RELAXED);
	pthread_join(probe_thread, NULL);
	if (out_path) {
		out = fopen(out_path, "w");
		if (!out) {
			fprintf(stderr, "hostload: cannot write %s: %s\n", out_path,
				strerror(errno));
			return 1;
		}
	}
	ret = report(out, s, n, (window_ms + interval_ms - 1) / interval_ms);
	if (out != stdout)
		fclose(out);
	return ret ? 1 : 0;
}
