// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_bench.c - what the tc-BPF benchmarks share: timing a case through
 * BPF_PROG_TEST_RUN, medians, the table and the result document.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <bpf/bpf.h>

#include "bpf_bench.h"
#include "json_doc.h"

/* The value of "@key<tabs>: value" line @line, or NULL if another key's */
static char *cpuinfo_value(char *line, const char *key)
{
	size_t len = strlen(key);
	char *value;

	if (strncmp(line, key, len) || (line[len] != '\t' && line[len] != ' '))
		return NULL;
	value = strchr(line, ':');
	if (!value)
		return NULL;
	value += 1 + strspn(value + 1, " \t");
	value[strcspn(value, "\n")] = '\0';
	return value;
}

/*
 * The first CPU's model name, family and model from /proc/cpuinfo into
 * @buf: ratios to the peer differ between CPUs (a hypervisor may show
 * only "AMD EPYC"), so each result names its own.
 */
static void cpu_model(char *buf, size_t size)
{
	char line[256], name[128] = "unknown", family[16] = "?", model[16] = "?";
	FILE *f = fopen("/proc/cpuinfo", "r");
	char *value;

	while (f && fgets(line, sizeof(line), f) && line[0] != '\n') {
		value = cpuinfo_value(line, "model name");
		if (value) {
			snprintf(name, sizeof(name), "%s", value);
			continue;
		}
		value = cpuinfo_value(line, "cpu family");
		if (value) {
			snprintf(family, sizeof(family), "%s", value);
			continue;
		}
		value = cpuinfo_value(line, "model");
		if (value)
			snprintf(model, sizeof(model), "%s", value);
	}
	if (f)
		fclose(f);
	snprintf(buf, size, "%s (family %s, model %s)", name, family, model);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double bpf_bench_time(const char *tool, struct bpf_program *prog,
		      const void *pkt, size_t len, struct __sk_buff *ctx,
		      int repeat, int verdict)
{
	__u8 out[2048];
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		    .data_in = pkt, .data_size_in = len,
		    .data_out = out, .data_size_out = sizeof(out),
		    .ctx_in = ctx, .ctx_size_in = ctx ? sizeof(*ctx) : 0,
		    .repeat = repeat);
	struct timespec t0, t1;

	/* The kernel reports whole ns per run; time the call ourselves for
	 * fractions (one syscall per @repeat runs is noise).
	 */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (bpf_prog_test_run_opts(bpf_program__fd(prog), &opts)) {
		fprintf(stderr, "%s: %s: test run failed\n", tool,
			bpf_program__name(prog));
		return -1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if ((int)opts.retval != verdict) {
		fprintf(stderr, "%s: %s returned %u, not %d\n", tool,
			bpf_program__name(prog), opts.retval, verdict);
		return -1;
	}
	return ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) /
	       repeat;
}

int bpf_bench_options(const char *tool, int argc, char **argv, int *repeat,
		      int *runs, const char **out)
{
	static const struct option longopts[] = {
		{ "repeat", required_argument, NULL, 'r' },
		{ "runs", required_argument, NULL, 'n' },
		{ "out", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'r':
			*repeat = atoi(optarg);
			break;
		case 'n':
			*runs = atoi(optarg);
			break;
		case 'o':
			*out = optarg;
			break;
		default:
			fprintf(opt == 'h' ? stdout : stderr,
				"Usage: %s [--repeat N] [--runs N] [--out FILE]\n",
				tool);
			return opt == 'h' ? 0 : 2;
		}
	}
	if (*repeat < 1 || *runs < 1 || *runs > BPF_BENCH_MAX_RUNS) {
		fprintf(stderr, "%s: --repeat >= 1, --runs 1..%d\n", tool,
			BPF_BENCH_MAX_RUNS);
		return 2;
	}
	return -1;
}

void bpf_bench_medians(struct bpf_bench_case *cases, int nr, int runs)
{
	double sorted[BPF_BENCH_MAX_RUNS];
	int i;

	for (i = 0; i < nr; i++) {
		memcpy(sorted, cases[i].ns, runs * sizeof(double));
		qsort(sorted, runs, sizeof(double), cmp_double);
		cases[i].median = sorted[runs / 2];
	}
}

void bpf_bench_print(const struct bpf_bench_case *cases, int nr, int peer)
{
	double p = cases[peer].median;
	int i;

	printf("%-20s %12s %10s\n", "program", "median ns", "vs peer");
	for (i = 0; i < nr; i++)
		printf("%-20s %12.1f %9.2fx\n", cases[i].name, cases[i].median,
		       p > 0 ? cases[i].median / p : 0);
}

/* One case's times per run, their median and its ratio to the peer's. */
static struct json_object *case_json(const struct bpf_bench_case *c, int runs,
				     double peer)
{
	struct json_object *o = json_object_new_object();
	struct json_object *ns = json_object_new_array_ext(runs);
	int err = 0, r;

	for (r = 0; r < runs; r++)
		err |= jdoc_append(ns, jdoc_fixed(c->ns[r], 1));
	err |= jdoc_add(o, "ns_per_packet", ns);
	err |= jdoc_add(o, "median_ns_per_packet", jdoc_fixed(c->median, 1));
	err |= jdoc_add(o, "ratio_to_peer",
			jdoc_fixed(peer > 0 ? c->median / peer : 0, 3));
	return jdoc_finish(o, err);
}

struct json_object *bpf_bench_doc(const char *benchmark, const char *method,
				  const struct bpf_bench_case *cases, int nr,
				  int peer, int repeat, int runs)
{
	struct json_object *doc = json_object_new_object();
	struct json_object *results = json_object_new_object();
	char when[64], cpu[192];
	struct utsname uts;
	time_t now;
	int err, i;

	now = time(NULL);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	uname(&uts);
	cpu_model(cpu, sizeof(cpu));
	err = jdoc_add_str(doc, "benchmark", benchmark);
	err |= jdoc_add_str(doc, "date", when);
	err |= jdoc_add_str(doc, "kernel", uts.release);
	err |= jdoc_add_str(doc, "cpu", cpu);
	err |= jdoc_add_str(doc, "method", method);
	err |= jdoc_add_u64(doc, "repeat", repeat);
	err |= jdoc_add_u64(doc, "runs", runs);
	err |= jdoc_add_str(doc, "peer", cases[peer].name);
	for (i = 0; i < nr; i++)
		err |= jdoc_add(results, cases[i].name,
				case_json(&cases[i], runs, cases[peer].median));
	err |= jdoc_add(doc, "results", results);
	return jdoc_finish(doc, err);
}
