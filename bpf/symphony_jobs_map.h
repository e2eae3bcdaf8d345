/* SPDX-License-Identifier: GPL-2.0 */
/*
 * symphony_jobs_map.h - the Symphony jobs map as BPF objects declare it:
 * an mmapable array of struct symphony_job (symphony_map.h) indexed by
 * job id, and the registry's map of job locks.  symphony_jobs.bpf.c
 * declares them for the agent to create the registry's maps with their
 * BTF; symphony.bpf.c, to be handed those maps.
 */
#ifndef _BPF_SYMPHONY_JOBS_MAP_H
#define _BPF_SYMPHONY_JOBS_MAP_H

#include "symphony/symphony_bpf.h"
#include "symphony/symphony_map.h"
#include "symphony/symphony_params.h"

/* mmapable: the agent changes one job's parameter with one store, without
 * a read-modify-write of the state block the datapath updates meanwhile
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SYMPHONY_JOBS_DEFAULT);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct symphony_job);
} symphony_jobs SEC(".maps");

/* The registry's job locks ("job_locks", symofan job init): every program
 * serving the registry reuses this one map, so that a job's updates are
 * serialised on one lock whichever port and program they come from
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SYMPHONY_BPF_JOB_LOCKS);
	__type(key, __u32);
	__type(value, struct symphony_bpf_job_lock);
} symphony_job_locks SEC(".maps");

#endif /* _BPF_SYMPHONY_JOBS_MAP_H */
