// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - ringcoll's result, as JSON through json-c: the run's
 * parameters (its --flows among them), the DCQCN profile and the
 * constants in force, the counters, per job and iteration the start and
 * end and each step's start, arrival and first rate, and the rate
 * timeline.  tc-scripts/ringrun.sh merges the ranks' results.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/printbuf.h>

#include "ringcoll.h"

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

struct u64_field {
	const char	*key;
	__u64		val;
};

/* An object of @n named numbers. */
static struct json_object *fields_json(const struct u64_field *f, size_t n)
{
	struct json_object *o = json_object_new_object();
	size_t i;
	int err = 0;

	for (i = 0; i < n; i++)
		err |= jdoc_add_u64(o, f[i].key, f[i].val);
	return jdoc_finish(o, err);
}

/* The target-rate clamp on a cut, as --dcqcn-clamp names it. */
static const char *clamp_name(const struct dcqcn_params *p)
{
	return p->clamp_tgt_rate ? "always" : p->clamp_tgt_rate_ati ? "timer" :
	       "never";
}

static struct json_object *dcqcn_json(const struct ringcoll *rc)
{
	const struct dcqcn_params *p = &rc->cc;
	const struct u64_field params[] = {
		{ "g_q16", p->g_q16 },
		{ "alpha_interval_ns", p->alpha_interval_ns },
		{ "rate_interval_ns", p->rate_interval_ns },
		{ "byte_counter_bytes", p->byte_counter_bytes },
		{ "f", p->f },
		{ "rai_bps", p->rai_bps },
		{ "rhai_bps", p->rhai_bps },
		{ "min_rate_bps", p->min_rate_bps },
		{ "decrease_interval_ns", p->decrease_interval_ns },
		{ "cnp_interval_ns", p->cnp_interval_ns },
	};
	struct json_object *o = json_object_new_object();
	size_t i;
	int err;

	err = jdoc_add_str(o, "profile", dcqcn_profile_name(rc->cc_profile));
	for (i = 0; i < ARRAY_SIZE(params); i++)
		err |= jdoc_add_u64(o, params[i].key, params[i].val);
	err |= jdoc_add_str(o, "clamp", clamp_name(p));
	err |= jdoc_add_bool(o, "hai_grows", p->hai_grows);
	err |= jdoc_add_bool(o, "alpha_decays_at_rest", p->alpha_decays_at_rest);
	return jdoc_finish(o, err);
}

static struct json_object *counters_json(const struct ringcoll *rc)
{
	const struct u64_field counters[] = {
		{ "packets_sent", rc->packets_sent },
		{ "bytes_sent", rc->bytes_sent },
		{ "retransmitted_packets", rc->retransmits },
		{ "packets_received", rc->packets_received },
		{ "ce_received", rc->ce_received },
		{ "cnps_sent", rc->cnps_sent },
		{ "cnps_received", rc->cnps_received },
		{ "acks_sent", rc->acks_sent },
		{ "naks_sent", rc->naks_sent },
		{ "naks_received", rc->naks_received },
		{ "duplicate_packets", rc->dup_packets },
		{ "flow_starts", rc->flow_starts },
		{ "retransmission_timeouts", rc->rto_timeouts },
		{ "closes_sent", rc->closes_sent },
		{ "closes_received", rc->closes_received },
	};

	return fields_json(counters, ARRAY_SIZE(counters));
}

/* How well the NIC's pace was kept, for the run's guard (ringcoll.h). */
static struct json_object *pacing_json(const struct ringcoll *rc)
{
	const struct u64_field figures[] = {
		{ "worst_lag_ns", rc->worst_lag_ns },
		{ "max_catchup_ns", MAX_BURST_NS },
		{ "schedule_slip_ns", rc->slip_ns },
		{ "schedule_slips", rc->slips },
		{ "max_burst_packets", rc->max_burst },
		{ "refused_sends", rc->refused_sends },
		{ "control_unsent", rc->control_unsent },
	};

	return fields_json(figures, ARRAY_SIZE(figures));
}

/* Step @k of channel @c in iteration record @r. */
static struct json_object *step_json(const struct ringcoll *rc,
				     const struct iteration_record *r,
				     __u32 k, __u32 c)
{
	struct json_object *o = json_object_new_object();
	int err;

	err = jdoc_add_u64(o, "step", k);
	err |= jdoc_add_str(o, "ring", rc->dims == 1 ? "ring" :
					 rc->step_dim[k] ? "column" : "row");
	err |= jdoc_add_u64(o, "channel", c);
	err |= jdoc_add_u64(o, "start_ns", r->step_start_ns[c][k]);
	err |= jdoc_add_u64(o, "end_ns", r->step_recv_ns[c][k]);
	err |= jdoc_add_u64(o, "first_rate_bps", r->step_first_rate_bps[c][k]);
	return jdoc_finish(o, err);
}

static struct json_object *iteration_json(const struct ringcoll *rc,
					  const struct iteration_record *r)
{
	struct json_object *o = json_object_new_object(), *steps;
	__u32 k, c;
	int err;

	steps = json_object_new_array_ext(rc->steps * rc->channels);
	err = jdoc_add_u64(o, "start_ns", r->start_ns);
	err |= jdoc_add_u64(o, "end_ns", r->end_ns);
	err |= jdoc_add(o, "steps", steps);
	for (k = 0; k < rc->steps && !err; k++)
		for (c = 0; c < rc->channels && !err; c++)
			err |= jdoc_append(steps, step_json(rc, r, k, c));
	return jdoc_finish(o, err);
}

/* What a job's "iterations" are written from. */
struct iterations_of {
	const struct ringcoll	*rc;
	const struct job	*job;
};

/*
 * json-c's serializer of a job's "iterations": each iteration is made
 * into objects as the document is written, and freed at once, so that
 * the document holds one iteration's steps at a time rather than the
 * run's (json-c takes about 1 KB for a step's object, and --iterations
 * 1000 of a 64-rank ring on 16 channels have two million steps).  The
 * document is written plain (jdoc_print()), so this writes plain too.
 */
static int iterations_to_json(struct json_object *jso, struct printbuf *pb,
			      int level, int flags)
{
	const struct iterations_of *of = json_object_get_userdata(jso);
	__u32 it;

	(void)level;
	if (printbuf_strappend(pb, "[") < 0)
		return -1;
	for (it = 0; it < of->rc->iterations; it++) {
		struct json_object *o = iteration_json(of->rc, &of->job->rec[it]);
		const char *text = o ? json_object_to_json_string_ext(o, flags) : NULL;
		bool ok = text && (!it || printbuf_strappend(pb, ",") >= 0) &&
			  printbuf_memappend(pb, text, strlen(text)) >= 0;

		json_object_put(o);
		if (!ok)
			return -1;
	}
	return printbuf_strappend(pb, "]") < 0 ? -1 : 0;
}

static struct json_object *iterations_json(const struct ringcoll *rc,
					   const struct job *j)
{
	struct json_object *o = json_object_new_array();
	struct iterations_of *of = malloc(sizeof(*of));

	if (!o || !of) {
		json_object_put(o);
		free(of);
		return NULL;
	}
	*of = (struct iterations_of){ rc, j };
	json_object_set_serializer(o, iterations_to_json, of,
				   json_object_free_userdata);
	return o;
}

static struct json_object *job_json(const struct ringcoll *rc,
				    const struct job *j)
{
	struct json_object *o = json_object_new_object();
	char grid[24];
	int err;

	snprintf(grid, sizeof(grid), "%ux%u",
		 rc->dims == 2 ? rc->grid_rows : 1,
		 rc->dims == 2 ? rc->grid_cols : j->nranks);
	err = jdoc_add_u64(o, "job", j->id);
	err |= jdoc_add_u64(o, "ranks", j->nranks);
	err |= jdoc_add_u64(o, "rank", j->rank);
	err |= jdoc_add_u64(o, "step_bytes", step_bytes(rc, 0, 0));
	err |= jdoc_add_str(o, "grid", grid);
	err |= jdoc_add(o, "iterations", iterations_json(rc, j));
	return jdoc_finish(o, err);
}

/* The rate timeline: [t_ns, job, channel, rate_bps, queue_pair] each. */
static struct json_object *rate_samples_json(const struct ringcoll *rc)
{
	struct json_object *o = json_object_new_array();
	__u32 n;
	int err = 0;

	for (n = 0; n < rc->nr_samples && !err; n++) {
		const struct rate_sample *s = &rc->samples[n];
		struct json_object *a = json_object_new_array_ext(5);

		err |= jdoc_append(a, json_object_new_uint64(s->t_ns));
		err |= jdoc_append(a, json_object_new_uint64(s->job));
		err |= jdoc_append(a, json_object_new_uint64(s->channel));
		err |= jdoc_append(a, json_object_new_uint64(s->rate_bps));
		err |= jdoc_append(a, json_object_new_uint64(s->slot));
		err |= jdoc_append(o, jdoc_finish(a, err));
	}
	return jdoc_finish(o, err);
}

static struct json_object *rate_sample_fields_json(void)
{
	static const char *const fields[] = {
		"t_ns", "job", "channel", "rate_bps", "queue_pair"
	};
	struct json_object *o = json_object_new_array_ext(ARRAY_SIZE(fields));
	size_t i;
	int err = 0;

	for (i = 0; i < ARRAY_SIZE(fields); i++)
		err |= jdoc_append(o, json_object_new_string(fields[i]));
	return jdoc_finish(o, err);
}

int print_report(const struct ringcoll *rc, FILE *f)
{
	struct json_object *doc = json_object_new_object(), *jobs;
	char addr[INET_ADDRSTRLEN];
	__u32 n;
	int err;

	inet_ntop(AF_INET, &rc->common.local, addr, sizeof(addr));
	err = jdoc_add_str(doc, "tool", "ringcoll");
	err |= jdoc_add_str(doc, "address", addr);
	err |= jdoc_add_str(doc, "collective", coll_names[rc->coll]);
	err |= jdoc_add_str(doc, "proto", rc->uec ? "uec" : "rocev2");
	err |= jdoc_add_u64(doc, "size_bytes", rc->size);
	err |= jdoc_add_u64(doc, "channels", rc->channels);
	err |= jdoc_add_str(doc, "flows", flows_names[rc->flows]);
	err |= jdoc_add_u64(doc, "step_qps", rc->step_qps);
	err |= jdoc_add_bool(doc, "step_flows", rc->step_flows);
	err |= jdoc_add_u64(doc, "iterations", rc->iterations);
	err |= jdoc_add_u64(doc, "steps", rc->steps);
	err |= jdoc_add_u64(doc, "mtu_bytes", rc->mtu);
	err |= jdoc_add_u64(doc, "rate_bps", rc->rate_bps);
	err |= jdoc_add_str(doc, "congestion_control",
			      rc->fixed_rate ? "fixed" : "dcqcn");
	err |= jdoc_add(doc, "dcqcn", dcqcn_json(rc));
	err |= jdoc_add(doc, "counters", counters_json(rc));
	err |= jdoc_add(doc, "pacing", pacing_json(rc));
	jobs = json_object_new_array_ext(rc->nr_jobs);
	err |= jdoc_add(doc, "jobs", jobs);
	for (n = 0; n < rc->nr_jobs && !err; n++)
		err |= jdoc_append(jobs, job_json(rc, &rc->jobs[n]));
	err |= jdoc_add(doc, "rate_samples", rate_samples_json(rc));
	err |= jdoc_add(doc, "rate_sample_fields", rate_sample_fields_json());
	return jdoc_print(f, jdoc_finish(doc, err), JSON_C_TO_STRING_PLAIN);
}
