/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpf_bench.h - what the tc-BPF benchmarks (ofan_bpf_bench,
 * symphony_bpf_bench) share: a case timed through BPF_PROG_TEST_RUN run
 * by run, its median, and the result document with each case's ratio to
 * the peer program measured in the same run.
 */
#ifndef _BENCH_BPF_BENCH_H
#define _BENCH_BPF_BENCH_H

#include <stddef.h>
#include <linux/bpf.h>
#include <bpf/libbpf.h>
#include <json-c/json.h>

#define BPF_BENCH_MAX_RUNS	31

struct bpf_bench_case {
	const char		*name;
	int			verdict;	/* the TC action each repeat returns */
	struct bpf_program	*prog;
	const void		*priv;		/* the benchmark's own */
	double			ns[BPF_BENCH_MAX_RUNS];
	double			median;
};

/*
 * Average ns per run of @prog over @repeat runs of the @len-byte @pkt
 * with context @ctx; -1 (with a message) if the test run fails or the
 * verdict is not @verdict.
 */
double bpf_bench_time(const char *tool, struct bpf_program *prog,
		      const void *pkt, size_t len, struct __sk_buff *ctx,
		      int repeat, int verdict);

/*
 * The benchmarks' options: --repeat N, --runs N, --out FILE (@out keeps
 * its default when not given).  Returns -1 to go on, or the exit code
 * (0 after --help, 2 after a usage error, with a message).
 */
int bpf_bench_options(const char *tool, int argc, char **argv, int *repeat,
		      int *runs, const char **out);

/* Each case's median over its first @runs times. */
void bpf_bench_medians(struct bpf_bench_case *cases, int nr, int runs);

/* A table of the medians and their ratios to case @peer, on stdout. */
void bpf_bench_print(const struct bpf_bench_case *cases, int nr, int peer);

/*
 * The result document: @benchmark, the date, kernel and CPU, @method,
 * @repeat and @runs, the peer's name, and every case's times, median and
 * ratio to the peer (case @peer).
 */
struct json_object *bpf_bench_doc(const char *benchmark, const char *method,
				  const struct bpf_bench_case *cases, int nr,
				  int peer, int repeat, int runs);

#endif /* _BENCH_BPF_BENCH_H */
