// SPDX-License-Identifier: GPL-2.0
/*
 * symphony_bpf_cfg.c - a port's parameters for Symphony as tc-BPF: the
 * qdisc's parameter table read into struct symphony_bpf_cfg, and the
 * fields the datapath derives from it.
 */
#include <stdio.h>
#include <string.h>

#include "symphony/symphony_core.h"
#include "parse.h"
#include "symphony_bpf_cfg.h"
#include "symphony_param.h"

void symphony_bpf_cfg_defaults(struct symphony_bpf_cfg *cfg)
{
	*cfg = (struct symphony_bpf_cfg){
		.limit_packets		= SYMPHONY_LIMIT_DEFAULT,
		.limit_bytes		= SYMPHONY_LIMIT_BYTES_DEFAULT,
		.kmin_bytes		= SYMPHONY_KMIN_DEFAULT,
		.kmax_bytes		= SYMPHONY_KMAX_DEFAULT,
		.pmax_ppm		= SYMPHONY_PMAX_DEFAULT,
		.qmin_bytes		= SYMPHONY_QMIN_DEFAULT,
		.k_ppm			= SYMPHONY_K_DEFAULT,
		.tau_ppm		= SYMPHONY_TAU_DEFAULT,
		.twin_us		= SYMPHONY_TWIN_DEFAULT,
		.warmup_psn		= SYMPHONY_WARMUP_DEFAULT,
		.sample_min_packets	= SYMPHONY_SAMPLES_DEFAULT,
		.alpha_max		= SYMPHONY_ALPHA_MAX_DEFAULT,
		.nonect			= SYMPHONY_NONECT_DEFAULT,
		.marking		= SYMPHONY_MARKING_DEFAULT,
		.job_field		= SYMPHONY_JOB_FIELD_DEFAULT,
		.step_field		= SYMPHONY_STEP_FIELD_DEFAULT,
	};
}

/* Where the value of parameter @attr lives in @cfg, and its width. */
static void *cfg_field(struct symphony_bpf_cfg *cfg, int attr, size_t *size)
{
	*size = sizeof(__u32);
	switch (attr) {
	case TCA_SYMPHONY_LIMIT:	return &cfg->limit_packets;
	case TCA_SYMPHONY_LIMIT_BYTES:	return &cfg->limit_bytes;
	case TCA_SYMPHONY_KMIN:		return &cfg->kmin_bytes;
	case TCA_SYMPHONY_KMAX:		return &cfg->kmax_bytes;
	case TCA_SYMPHONY_PMAX:		return &cfg->pmax_ppm;
	case TCA_SYMPHONY_QMIN:		return &cfg->qmin_bytes;
	case TCA_SYMPHONY_K:		return &cfg->k_ppm;
	case TCA_SYMPHONY_TAU:		return &cfg->tau_ppm;
	case TCA_SYMPHONY_TWIN:		return &cfg->twin_us;
	case TCA_SYMPHONY_WARMUP:	return &cfg->warmup_psn;
	case TCA_SYMPHONY_SAMPLES:	return &cfg->sample_min_packets;
	case TCA_SYMPHONY_ALPHA_MAX:	return &cfg->alpha_max;
	}
	*size = sizeof(__u8);
	switch (attr) {
	case TCA_SYMPHONY_NONECT:	return &cfg->nonect;
	case TCA_SYMPHONY_MARKING:	return &cfg->marking;
	case TCA_SYMPHONY_JOB_FIELD:	return &cfg->job_field;
	case TCA_SYMPHONY_STEP_FIELD:	return &cfg->step_field;
	}
	return NULL;	/* jobs: the jobs map's size decides */
}

int symphony_bpf_cfg_set(struct symphony_bpf_cfg *cfg, const char *keyword,
			 const char *text, char *err, size_t err_len)
{
	const struct symphony_param *p = symphony_param_by_keyword(keyword);
	char range[96];
	__u64 v64 = 0;
	void *field;
	size_t size;
	__u32 v;
	int bad;

	field = p ? cfg_field(cfg, p->attr, &size) : NULL;
	if (!field) {
		snprintf(err, err_len, "'%s' is not a parameter of Symphony's datapath",
			 keyword);
		return -1;
	}
	switch (p->kind) {
	case SYMPHONY_KIND_BYTES:
		bad = parse_size(text, &v64) || symphony_param_in_range(p, v64);
		v = (__u32)v64;
		break;
	case SYMPHONY_KIND_US:
		bad = parse_time_us(text, &v64) || symphony_param_in_range(p, v64);
		v = (__u32)v64;
		break;
	default:
		bad = symphony_param_parse(p, text, 0, &v);
		break;
	}
	if (bad) {
		symphony_param_range_text(p, 0, range, sizeof(range));
		snprintf(err, err_len, "%s '%s': wants %s (%s)", keyword, text,
			 range, p->help);
		return -1;
	}
	if (size == sizeof(__u8))
		*(__u8 *)field = (__u8)v;
	else
		*(__u32 *)field = v;
	return 0;
}

/* @bytes as nanoseconds at @ps_per_byte_q16, at most U32_MAX. */
static __u32 ns_of_bytes(__u64 bytes, __u64 ps_per_byte_q16)
{
	unsigned __int128 ns = (unsigned __int128)bytes * ps_per_byte_q16 /
			       (1000ULL << 16);

	return ns > 0xffffffffULL ? 0xffffffffU : (__u32)ns;
}

int symphony_bpf_cfg_derive(struct symphony_bpf_cfg *cfg, __u64 rate_bps,
			    __u32 frame_bytes, __u32 nr_jobs, char *err,
			    size_t err_len)
{
	__u64 limit;

	if (rate_bps < SYMPHONY_BPF_RATE_MIN || rate_bps > SYMPHONY_BPF_RATE_MAX) {
		snprintf(err, err_len, "rate %llu bit/s: wants 10kbit..400gbit",
			 (unsigned long long)rate_bps);
		return -1;
	}
	if (cfg->kmin_bytes > cfg->kmax_bytes) {
		snprintf(err, err_len, "kmin %u bytes is above kmax %u bytes",
			 cfg->kmin_bytes, cfg->kmax_bytes);
		return -1;
	}
	cfg->rate_bps = rate_bps;
	cfg->nr_jobs = nr_jobs;
	cfg->frame_bytes = frame_bytes;
	cfg->ps_per_byte_q16 = (8000000000000ULL << 16) / rate_bps;
	limit = cfg->limit_bytes ? cfg->limit_bytes :
		(__u64)cfg->limit_packets * frame_bytes;
	cfg->limit_ns = ns_of_bytes(limit, cfg->ps_per_byte_q16);
	cfg->kmin_ns = ns_of_bytes(cfg->kmin_bytes, cfg->ps_per_byte_q16);
	cfg->kmax_ns = ns_of_bytes(cfg->kmax_bytes, cfg->ps_per_byte_q16);
	cfg->qmin_ns = ns_of_bytes(cfg->qmin_bytes, cfg->ps_per_byte_q16);
	cfg->pmax_q32 = symphony_red_pmax_q32(cfg->pmax_ppm);
	cfg->params = (struct symphony_params){
		.k_ppm			= cfg->k_ppm,
		.tau_ppm		= cfg->tau_ppm,
		.warmup_psn		= cfg->warmup_psn,
		.sample_min_packets	= cfg->sample_min_packets,
		.alpha_max		= cfg->alpha_max,
		.twin_ns		= (__u64)cfg->twin_us * 1000,
	};
	return 0;
}
