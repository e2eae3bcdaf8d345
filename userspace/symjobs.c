// SPDX-License-Identifier: GPL-2.0
/*
 * symjobs.c - create and pin the Symphony jobs map (a BPF array map of
 * struct symphony_job, with BTF) that symphony qdiscs share through
 * "tc qdisc ... symphony jobs_map PATH".
 *
 *	symjobs create PATH [--jobs N]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "symphony_jobs.skel.h"
#include "tool_util.h"

const char *tool_name = "symjobs";
#include "../include/uapi/linux/pkt_sched_symphony.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: symjobs create PATH [--jobs N]\n"
		"  Creates the Symphony jobs map with N job slots (ids 0..N-1,\n"
		"  default %u) and pins it at PATH on a bpf filesystem.\n",
		SYMPHONY_JOBS_DEFAULT);
}

static int cmd_create(const char *path, unsigned long jobs)
{
	struct symphony_jobs_bpf *skel;
	int err;

	if (access(path, F_OK) == 0) {
		fprintf(stderr, "symjobs: %s exists: remove it first\n", path);
		return 1;
	}
	skel = symphony_jobs_bpf__open();
	if (!skel) {
		fprintf(stderr, "symjobs: cannot open the map object: %s\n",
			strerror(errno));
		return 1;
	}
	err = bpf_map__set_max_entries(skel->maps.symphony_jobs, jobs);
	if (!err)
		err = symphony_jobs_bpf__load(skel);
	if (err) {
		fprintf(stderr, "symjobs: cannot create the map: %s%s\n",
			strerror(-err), err == -EPERM ?
			" (needs CAP_BPF: run as root)" : "");
		goto out;
	}
	err = bpf_map__pin(skel->maps.symphony_jobs, path);
	if (err)
		fprintf(stderr, "symjobs: cannot pin at %s: %s\n", path,
			strerror(-err));
	else
		printf("symjobs: %lu job slots pinned at %s\n", jobs, path);
out:
	symphony_jobs_bpf__destroy(skel);
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	unsigned long jobs = SYMPHONY_JOBS_DEFAULT;
	char *end;

	libbpf_set_print(libbpf_quiet);
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage(stdout);
		return 0;
	}
	if (argc != 3 && !(argc == 5 && !strcmp(argv[3], "--jobs"))) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "create")) {
		fprintf(stderr, "symjobs: unknown command '%s'\n", argv[1]);
		usage(stderr);
		return 2;
	}
	if (argc == 5) {
		errno = 0;
		jobs = strtoul(argv[4], &end, 0);
		if (errno || *end || jobs < SYMPHONY_JOBS_MIN ||
		    jobs > SYMPHONY_JOBS_MAX) {
			fprintf(stderr, "symjobs: --jobs wants 1..%u slots, got '%s'\n",
				SYMPHONY_JOBS_MAX, argv[4]);
			return 2;
		}
	}
	return cmd_create(argv[2], jobs);
}
