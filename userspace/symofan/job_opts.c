// SPDX-License-Identifier: GPL-2.0
/*
 * job_opts.c - how the "symofan job ..." commands read their options: the
 * values of --id, --name, --jobs, --idle and --every, and the per-job
 * parameters --k, --tau, --warmup, --samples as rows of the qdisc's
 * parameter table (symphony_param.h), with their help.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "command.h"
#include "job_registry.h"
#include "jobs.h"
#include "parse.h"
#include "symphony_param.h"
#include "tool_util.h"

/* Each per-job parameter's row of the qdisc's parameter table. */
static const struct symphony_param *job_param(enum job_param p)
{
	static const int attrs[] = {
		[PARAM_K]	= TCA_SYMPHONY_K,
		[PARAM_TAU]	= TCA_SYMPHONY_TAU,
		[PARAM_WARMUP]	= TCA_SYMPHONY_WARMUP,
		[PARAM_SAMPLES]	= TCA_SYMPHONY_SAMPLES,
	};

	return symphony_param_by_attr(attrs[p]);
}

/*
 * A parameter's value: "default" (0: the qdisc's own) or a value in the
 * qdisc's range, from 1 up (0 is "default" in the jobs map).
 */
static bool parse_param(enum job_param p, const char *s, __u32 *out)
{
	if (!strcmp(s, "default")) {
		*out = 0;
		return true;
	}
	return !symphony_param_parse(job_param(p), s, 1, out);
}

/* The value of job option --@name, for parse_opts(). */
static int job_opt_value(const char *name, const char *arg, struct opts *o)
{
	char range[64];
	int p;
	__u32 v;

	if (!strcmp(name, "id")) {
		if (parse_u32(arg, 0, SYMPHONY_JOBS_MAX - 1, &o->id)) {
			error("--id wants a job id 0..%u, got '%s'",
			      SYMPHONY_JOBS_MAX - 1, arg);
			return -1;
		}
		o->has_id = true;
	} else if (!strcmp(name, "name")) {
		if (strlen(arg) >= SYMPHONY_JOB_NAME_LEN) {
			error("--name '%s' is longer than %d characters",
			      arg, SYMPHONY_JOB_NAME_LEN - 1);
			return -1;
		}
		o->name = arg;
	} else if (!strcmp(name, "jobs")) {
		if (parse_u32(arg, SYMPHONY_JOBS_MIN, SYMPHONY_JOBS_MAX,
			      &o->nr_jobs)) {
			error("--jobs wants %u..%u job slots, got '%s'",
			      SYMPHONY_JOBS_MIN, SYMPHONY_JOBS_MAX, arg);
			return -1;
		}
	} else if (!strcmp(name, "idle") || !strcmp(name, "every")) {
		if (parse_u32(arg, name[0] == 'i' ? 0 : 1, 86400 * 365, &v)) {
			error("--%s wants seconds, got '%s'", name, arg);
			return -1;
		}
		if (name[0] == 'i')
			o->idle_s = v;
		else
			o->every_s = v;
	} else {
		/* --k, --tau, --warmup, --samples: the qdisc's keywords */
		for (p = PARAM_K; p < NR_JOB_PARAMS; p++)
			if (!strcmp(name, job_param(p)->keyword))
				break;
		if (p == NR_JOB_PARAMS)
			return -1;
		if (!parse_param(p, arg, &o->param[p])) {
			symphony_param_range_text(job_param(p), 1, range,
						  sizeof(range));
			error("--%s wants %s, %s, or default, got '%s'",
			      job_param(p)->keyword, job_param(p)->help, range,
			      arg);
			return -1;
		}
		if (!o->set[p])
			o->nr_params++;
		o->set[p] = true;
	}
	return 0;
}

const struct opt_style job_style = {
	.dialect	= OPT_DIALECT_JOB,
	.known		= OPT_PIN_DIR | OPT_JSON | OPT_ID | OPT_NAME |
			  OPT_JOBS | OPT_PARAMS | OPT_IDLE | OPT_DRY_RUN,
	.shorts		= "hj",
	.defaults	= {
		.pin_dir	= JOBS_PIN_DIR,
		.nr_jobs	= SYMPHONY_JOBS_DEFAULT,
		.idle_s		= -1,
	},
	.value		= job_opt_value,
};

/* The per-job parameters' help, from the qdisc's parameter table. */
void print_param_details(FILE *f)
{
	char range[64];
	int p;

	for (p = PARAM_K; p <= PARAM_SAMPLES; p++) {
		symphony_param_range_text(job_param(p), 1, range,
					  sizeof(range));
		fprintf(f, "  --%-8s %s (%s)\n", job_param(p)->keyword,
			job_param(p)->help, range);
	}
	fputs("  Each also takes 'default': the value of the qdisc using the map.\n",
	      f);
}
