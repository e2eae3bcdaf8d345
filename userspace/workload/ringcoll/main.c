// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - ringcoll, one rank of ring collectives over emulated RoCEv2
 * (or UEC) with DCQCN senders (ringcoll.h says what it does, and where):
 * the command line, the jobs, the sockets, the run, the JSON result.
 * Exit status: 0 every job done, 1 a failure, 2 bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ringcoll.h"

const char *tool_name = "ringcoll";

int main(int argc, char **argv)
{
	struct ringcoll *rc = calloc(1, sizeof(*rc));
	FILE *out = stdout;
	int ret;

	if (!rc)
		return EXIT_FAIL;
	if (parse_args(rc, argc, argv)) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (check_jobs(rc))
		return EXIT_USAGE;
	plan_steps(rc, rc->jobs[0].nranks);
	if (plan_flows(rc))
		return EXIT_USAGE;
	if (place_ranks(rc))
		return EXIT_USAGE;
	if (!rc->common.local)
		rc->common.local = rc->jobs[0].addr[rc->jobs[0].rank];
	dcqcn_params_profile(&rc->cc, rc->cc_profile, rc->rate_bps);
	if (apply_dcqcn_opts(rc))
		return EXIT_USAGE;
	if (init_jobs(rc))
		return EXIT_FAIL;
	if (rc->common.out_path) {
		out = fopen(rc->common.out_path, "w");
		if (!out) {
			fprintf(stderr, "ringcoll: cannot write %s: %s\n",
				rc->common.out_path, strerror(errno));
			return EXIT_FAIL;
		}
	}
	if (open_sockets(rc))
		return EXIT_FAIL;
	ret = run_collectives(rc);
	if (print_report(rc, out))
		ret = EXIT_FAIL;
	if (out != stdout)
		fclose(out);
	return ret;
}
