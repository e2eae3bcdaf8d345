/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jobs.h - "symofan job ...": the table of the job commands (jobs.c) and
 * how they read their options (job_opts.c).
 */
#ifndef _SYMOFAN_JOBS_H
#define _SYMOFAN_JOBS_H

#include <stdio.h>

#include "command.h"

extern const struct command job_commands[];

/* The job commands' options, defaults and messages. */
extern const struct opt_style job_style;

/* The per-job parameters' help, from the qdisc's parameter table. */
void print_param_details(FILE *f);

#endif /* _SYMOFAN_JOBS_H */
