// SPDX-License-Identifier: GPL-2.0
/*
 * jobs.c - "symofan job ...": the commands of the Symphony job registry
 * (job_registry.h).  Creates and pins the jobs map that symphony qdiscs
 * share ("tc qdisc ... symphony jobs_map DIR/jobs"), hands out job ids as
 * the paper's controller does, sets each job's parameters while qdiscs
 * use them, shows each job's live state block, and reclaims jobs that
 * went idle.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpffs.h"
#include "command.h"
#include "job_registry.h"
#include "jobs.h"
#include "json_doc.h"
#include "parse.h"
#include "symphony_param.h"
#include "tool_util.h"

/* The job id in positional argument @arg. */
static int arg_job_id(const char *arg, __u32 *id)
{
	if (parse_u32(arg, 0, SYMPHONY_JOBS_MAX - 1, id)) {
		error("'%s' is not a job id (0..%u)", arg,
		      SYMPHONY_JOBS_MAX - 1);
		return -1;
	}
	return 0;
}

/* ---- creating the registry ------------------------------------------ */

static int cmd_init(const struct command *cmd, int argc, char **argv)
{
	struct bpf_map_info info;
	struct jobs_dir d;
	struct opts o;
	char path[256];
	int ret, fd, lock_fd;

	ret = opts_exit(parse_opts(cmd, argc, argv,
				   OPT_PIN_DIR | OPT_JOBS, 0, &o));
	if (ret >= 0)
		return ret;
	if (require_cap_bpf() || check_bpffs(o.pin_dir))
		return EXIT_ERROR;
	/* new folders 0700; one that exists must be this user's alone
	 * (the bpffs root is 1777: anyone may have made it)
	 */
	if (make_pin_dir(o.pin_dir))
		return EXIT_ERROR;
	lock_fd = lock_dir(o.pin_dir);
	if (lock_fd < 0)
		return EXIT_ERROR;
	ret = EXIT_ERROR;
	fd = get_pinned(o.pin_dir, META_PIN, &info);
	if (fd >= 0) {
		/* initialised before: reuse it if it is ours, else say so */
		close(fd);
		if (!open_jobs_dir(&d, o.pin_dir, false)) {
			printf("symofan: job registry at %s already initialised: %u job slots, layout %u\n",
			       o.pin_dir, d.meta.nr_jobs,
			       d.meta.layout_version);
			close_jobs_dir(&d);
			ret = EXIT_OK;
		}
		goto out;
	}
	pin_path(path, sizeof(path), o.pin_dir, JOBS_PIN);
	if (!access(path, F_OK)) {
		error("%s exists but is no registry's (made by symjobs?): remove it or use another --pin-dir",
		      path);
		goto out;
	}
	if (!create_registry(o.pin_dir, o.nr_jobs)) {
		printf("symofan: job registry with %u job slots at %s (tc ... symphony jobs_map %s)\n",
		       o.nr_jobs, o.pin_dir, path);
		ret = EXIT_OK;
	}
out:
	close(lock_fd);
	return ret;
}

/* ---- reading jobs --------------------------------------------------- */

static void print_ppm_text(const char *label, __u32 ppm)
{
	if (ppm)
		printf("%s %u.%06u", label, ppm / 1000000, ppm % 1000000);
	else
		printf("%s default", label);
}

/* Job @id as a JSON object: registry entry @e (NULL: none), state @j. */
static struct json_object *job_json(__u32 id,
				    const struct symphony_job_entry *e,
				    const struct symphony_job *j)
{
	struct json_object *o = json_object_new_object();
	int err;

	err = jdoc_add_u64(o, "id", id);
	err |= jdoc_add_str(o, "name", e ? e->name : "");
	err |= jdoc_add_bool(o, "registered", e);
	if (e)
		err |= jdoc_add_u64(o, "created_ns", e->created_ns);
	err |= jdoc_add_bool(o, "active", j->flags & SYMPHONY_JOB_F_ACTIVE);
	err |= jdoc_add_u64(o, "step_min", j->step_min);
	err |= jdoc_add_u64(o, "psn_rec", j->psn_rec);
	err |= jdoc_add_u64(o, "alpha", j->alpha);
	err |= jdoc_add_u64(o, "window_packets", j->cnt_total);
	err |= jdoc_add_u64(o, "window_outpacing_packets", j->cnt_op);
	err |= jdoc_add_u64(o, "last_seen_ns", j->last_seen_ns);
	err |= jdoc_add_u64(o, "k_ppm", j->k_ppm);
	err |= jdoc_add_u64(o, "tau_ppm", j->tau_ppm);
	err |= jdoc_add_u64(o, "warmup_psn", j->warmup_psn);
	err |= jdoc_add_u64(o, "sample_min_packets", j->sample_min_packets);
	err |= jdoc_add_u64(o, "packets", j->packets);
	err |= jdoc_add_u64(o, "bytes", j->bytes);
	err |= jdoc_add_u64(o, "outpacing_packets", j->outpacing_packets);
	err |= jdoc_add_u64(o, "symphony_marks", j->symphony_marks);
	err |= jdoc_add_u64(o, "red_marks", j->red_marks);
	err |= jdoc_add_u64(o, "windows", j->windows);
	return jdoc_finish(o, err);
}

static void print_job_text(__u32 id, const struct symphony_job_entry *e,
			   const struct symphony_job *j)
{
	printf("job %u%s%s%s\n", id, e && e->name[0] ? " \"" : "",
	       e ? e->name : "", e && e->name[0] ? "\"" : "");
	if (!e)
		printf("  not registered (packets carry this id)\n");
	printf("  state: %s, step_min %u, psn_rec %u PSN, alpha %u, window %u packets (%u outpacing)\n",
	       j->flags & SYMPHONY_JOB_F_ACTIVE ? "active" : "no packet yet",
	       j->step_min, j->psn_rec, j->alpha, j->cnt_total, j->cnt_op);
	printf("  parameters: ");
	print_ppm_text("k", j->k_ppm);
	print_ppm_text(", tau", j->tau_ppm);
	printf(", warmup %u PSN, samples %u packets%s\n", j->warmup_psn,
	       j->sample_min_packets,
	       j->warmup_psn && j->sample_min_packets ? "" :
	       " (0: the qdisc's)");
	printf("  counters: %llu packets, %llu bytes, %llu outpacing, %llu Symphony marks, %llu RED marks, %llu windows\n",
	       (unsigned long long)j->packets, (unsigned long long)j->bytes,
	       (unsigned long long)j->outpacing_packets,
	       (unsigned long long)j->symphony_marks,
	       (unsigned long long)j->red_marks,
	       (unsigned long long)j->windows);
}

static int cmd_show(const struct command *cmd, int argc, char **argv)
{
	struct symphony_job_entry e;
	struct symphony_job j;
	struct jobs_dir d;
	struct opts o;
	bool registered;
	int ret;
	__u32 id;

	ret = opts_exit(parse_opts(cmd, argc, argv,
				   OPT_PIN_DIR | OPT_JSON, 1, &o));
	if (ret >= 0)
		return ret;
	if (arg_job_id(o.args[0], &id))
		return EXIT_USAGE;
	if (open_jobs_dir(&d, o.pin_dir, false))
		return EXIT_ERROR;
	ret = EXIT_ERROR;
	if (id >= d.meta.nr_jobs) {
		error("no job %u: the jobs map has ids 0..%u", id,
		      d.meta.nr_jobs - 1);
		goto out;
	}
	registered = !bpf_map_lookup_elem(d.registry_fd, &id, &e);
	read_job(&d, id, &j);
	ret = EXIT_OK;
	if (!o.json)
		print_job_text(id, registered ? &e : NULL, &j);
	else if (jdoc_print(stdout, job_json(id, registered ? &e : NULL, &j),
			    JSON_C_TO_STRING_PLAIN))
		ret = EXIT_ERROR;
out:
	close_jobs_dir(&d);
	return ret;
}

static int cmd_list(const struct command *cmd, int argc, char **argv)
{
	struct symphony_job_entry e;
	struct symphony_job j;
	struct jobs_dir d;
	struct json_object *doc = NULL, *jobs = NULL;
	struct opts o;
	__u32 id, count;
	__u64 *bits;
	int ret, err = 0;

	ret = opts_exit(parse_opts(cmd, argc, argv,
				   OPT_PIN_DIR | OPT_JSON, 0, &o));
	if (ret >= 0)
		return ret;
	if (open_jobs_dir(&d, o.pin_dir, false))
		return EXIT_ERROR;
	bits = registered_ids(&d, &count);
	if (!bits) {
		close_jobs_dir(&d);
		return EXIT_ERROR;
	}
	if (o.json) {
		doc = json_object_new_object();
		err = jdoc_add_str(doc, "pin_dir", d.dir);
		err |= jdoc_add_u64(doc, "slots", d.meta.nr_jobs);
		err |= jdoc_add_u64(doc, "layout_version", d.meta.layout_version);
		err |= jdoc_add_str(doc, "owner",
				    d.meta.owner == SYMPHONY_JOBS_OWNER_QDISC ? "qdisc" :
				    d.meta.owner == SYMPHONY_JOBS_OWNER_BPF ? "bpf" :
				    "none");
		jobs = json_object_new_array();
	} else {
		printf("%u of %u job slots registered in %s, updated by %s\n%-8s %-20s %-8s %-10s %-10s %-6s %12s %12s %12s\n",
		       count, d.meta.nr_jobs, d.dir,
		       jobs_owner_name(d.meta.owner), "ID", "NAME", "ACTIVE",
		       "STEP_MIN", "PSN_REC", "ALPHA", "PACKETS",
		       "OUTPACING", "SYM_MARKS");
	}
	for (id = 0; id < d.meta.nr_jobs; id++) {
		if (!id_set(bits, id) ||
		    bpf_map_lookup_elem(d.registry_fd, &id, &e))
			continue;
		read_job(&d, id, &j);
		if (o.json) {
			err |= jdoc_append(jobs, job_json(id, &e, &j));
		} else {
			printf("%-8u %-20s %-8s %-10u %-10u %-6u %12llu %12llu %12llu\n",
			       id, e.name[0] ? e.name : "-",
			       j.flags & SYMPHONY_JOB_F_ACTIVE ? "yes" : "no",
			       j.step_min, j.psn_rec, j.alpha,
			       (unsigned long long)j.packets,
			       (unsigned long long)j.outpacing_packets,
			       (unsigned long long)j.symphony_marks);
		}
	}
	ret = EXIT_OK;
	if (o.json) {
		err |= jdoc_add(doc, "jobs", jobs);
		if (jdoc_print(stdout, jdoc_finish(doc, err),
			       JSON_C_TO_STRING_PLAIN))
			ret = EXIT_ERROR;
	}
	free(bits);
	close_jobs_dir(&d);
	return ret;
}

/* ---- changing jobs -------------------------------------------------- */

/* Stores the given parameters of job @id, one 32-bit store each. */
static void store_params(struct jobs_dir *d, __u32 id, const struct opts *o,
			 struct symphony_job_entry *e)
{
	struct symphony_job *j = &d->jobs[id];

	if (o->set[PARAM_K]) {
		__atomic_store_n(&j->k_ppm, o->param[PARAM_K], __ATOMIC_RELAXED);
		e->k_ppm = o->param[PARAM_K];
	}
	if (o->set[PARAM_TAU]) {
		__atomic_store_n(&j->tau_ppm, o->param[PARAM_TAU],
				 __ATOMIC_RELAXED);
		e->tau_ppm = o->param[PARAM_TAU];
	}
	if (o->set[PARAM_WARMUP]) {
		__atomic_store_n(&j->warmup_psn, o->param[PARAM_WARMUP],
				 __ATOMIC_RELAXED);
		e->warmup_psn = o->param[PARAM_WARMUP];
	}
	if (o->set[PARAM_SAMPLES]) {
		__atomic_store_n(&j->sample_min_packets,
				 o->param[PARAM_SAMPLES], __ATOMIC_RELAXED);
		e->sample_min_packets = o->param[PARAM_SAMPLES];
	}
}

static int cmd_add(const struct command *cmd, int argc, char **argv)
{
	struct symphony_job_entry e = {};
	struct jobs_dir d;
	struct opts o;
	__u32 id, count;
	__u64 *bits;
	int ret;

	ret = opts_exit(parse_opts(cmd, argc, argv,
				   OPT_PIN_DIR | OPT_JSON | OPT_ID |
				   OPT_NAME | OPT_PARAMS, 0, &o));
	if (ret >= 0)
		return ret;
	if (open_jobs_dir(&d, o.pin_dir, true))
		return EXIT_ERROR;
	ret = EXIT_ERROR;
	bits = registered_ids(&d, &count);
	if (!bits)
		goto out;
	if (o.has_id) {
		id = o.id;
		if (id >= d.meta.nr_jobs) {
			error("--id %u: the jobs map has ids 0..%u", id,
			      d.meta.nr_jobs - 1);
			goto out;
		}
		if (id_set(bits, id)) {
			error("job %u is registered already ('symofan job del %u' first)",
			      id, id);
			goto out;
		}
	} else {
		for (id = JOB_ID_FIRST; id < d.meta.nr_jobs; id++)
			if (!id_set(bits, id))
				break;
		if (id >= d.meta.nr_jobs) {
			error("all %u job ids of %s are registered",
			      d.meta.nr_jobs - JOB_ID_FIRST, d.dir);
			goto out;
		}
	}
	/* A fresh block: whatever an unregistered id gathered goes, cleared
	 * by the datapath under its lock (the reset handshake).
	 */
	request_job_reset(&d.jobs[id]);
	if (o.name)
		snprintf(e.name, sizeof(e.name), "%s", o.name);
	e.created_ns = clock_ns(CLOCK_REALTIME);
	e.idle_since_ns = clock_ns(CLOCK_MONOTONIC);
	store_params(&d, id, &o, &e);
	if (bpf_map_update_elem(d.registry_fd, &id, &e, BPF_NOEXIST)) {
		error("cannot register job %u: %s", id, why(errno));
		goto out;
	}
	ret = EXIT_OK;
	if (o.json) {
		struct json_object *doc = json_object_new_object();
		int err = jdoc_add_u64(doc, "id", id);

		if (jdoc_print(stdout, jdoc_finish(doc, err),
			       JSON_C_TO_STRING_PLAIN)) {
			error("job %u is registered all the same", id);
			ret = EXIT_ERROR;
		}
	} else {
		printf("symofan: job %u added%s%s\n", id, o.name ? " as " : "",
		       o.name ? o.name : "");
	}
out:
	free(bits);
	close_jobs_dir(&d);
	return ret;
}

/* Opens @dir locked, with job @arg registered; its entry in @e. */
static int open_registered(struct jobs_dir *d, const struct opts *o,
			   __u32 *id, struct symphony_job_entry *e)
{
	if (arg_job_id(o->args[0], id))
		return EXIT_USAGE;
	if (open_jobs_dir(d, o->pin_dir, true))
		return EXIT_ERROR;
	if (*id >= d->meta.nr_jobs ||
	    bpf_map_lookup_elem(d->registry_fd, id, e)) {
		error("job %u is not registered in %s", *id, d->dir);
		close_jobs_dir(d);
		return EXIT_ERROR;
	}
	return -1;
}

static int cmd_set(const struct command *cmd, int argc, char **argv)
{
	struct symphony_job_entry e;
	struct jobs_dir d;
	struct opts o;
	int ret;
	__u32 id;

	ret = opts_exit(parse_opts(cmd, argc, argv,
				   OPT_PIN_DIR | OPT_PARAMS, 1, &o));
	if (ret >= 0)
		return ret;
	if (!o.nr_params) {
		error("set: give at least one of --k, --tau, --warmup, --samples");
		usage_cmd(stderr, cmd);
		return EXIT_USAGE;
	}
	ret = open_registered(&d, &o, &id, &e);
	if (ret >= 0)
		return ret;
	store_params(&d, id, &o, &e);
	ret = EXIT_OK;
	if (bpf_map_update_elem(d.registry_fd, &id, &e, BPF_EXIST)) {
		error("cannot update the registry entry of job %u: %s", id,
		      why(errno));
		ret = EXIT_ERROR;
	} else {
		printf("symofan: job %u parameters set\n", id);
	}
	close_jobs_dir(&d);
	return ret;
}

static int cmd_del(const struct command *cmd, int argc, char **argv)
{
	struct symphony_job_entry e;
	struct jobs_dir d;
	struct opts o;
	int ret;
	__u32 id;

	ret = opts_exit(parse_opts(cmd, argc, argv, OPT_PIN_DIR, 1, &o));
	if (ret >= 0)
		return ret;
	ret = open_registered(&d, &o, &id, &e);
	if (ret >= 0)
		return ret;
	ret = delete_job(&d, id) ? EXIT_ERROR : EXIT_OK;
	if (!ret)
		printf("symofan: job %u deleted\n", id);
	close_jobs_dir(&d);
	return ret;
}

/* ---- reclaiming idle jobs ------------------------------------------- */

static volatile sig_atomic_t stop_reclaim;

static void on_signal(int sig)
{
	(void)sig;
	stop_reclaim = 1;
}

/*
 * One pass: a job whose packet count moved since the last pass is busy
 * from now; one whose count stood still for @idle_s seconds is deleted.
 * Returns the number reclaimed, or -1.
 */
static int reclaim_pass(struct jobs_dir *d, long idle_s, bool dry_run)
{
	__u64 now = clock_ns(CLOCK_MONOTONIC), *bits, packets;
	struct symphony_job_entry e;
	__u32 id, count;
	int reclaimed = 0;

	bits = registered_ids(d, &count);
	if (!bits)
		return -1;
	for (id = 0; id < d->meta.nr_jobs; id++) {
		if (!id_set(bits, id) ||
		    bpf_map_lookup_elem(d->registry_fd, &id, &e))
			continue;
		packets = job_packets(d, id);
		if (packets != e.packets_seen) {
			e.packets_seen = packets;
			e.idle_since_ns = now;
			if (!dry_run)
				bpf_map_update_elem(d->registry_fd, &id, &e,
						    BPF_EXIST);
			continue;
		}
		if (now - e.idle_since_ns < (__u64)idle_s * 1000000000ULL)
			continue;
		printf("symofan: job %u%s%s idle for %llu s: %s\n", id,
		       e.name[0] ? " " : "", e.name,
		       (unsigned long long)((now - e.idle_since_ns) /
					    1000000000ULL),
		       dry_run ? "would reclaim" : "reclaimed");
		if (!dry_run && delete_job(d, id)) {
			free(bits);
			return -1;
		}
		reclaimed++;
	}
	free(bits);
	fflush(stdout);
	return reclaimed;
}

static int cmd_reclaim(const struct command *cmd, int argc, char **argv)
{
	struct jobs_dir d;
	struct opts o;
	int ret, n;

	ret = opts_exit(parse_opts(cmd, argc, argv,
				   OPT_PIN_DIR | OPT_IDLE | OPT_DRY_RUN,
				   0, &o));
	if (ret >= 0)
		return ret;
	if (o.idle_s < 0) {
		error("reclaim: --idle SECONDS is required");
		usage_cmd(stderr, cmd);
		return EXIT_USAGE;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	do {
		if (open_jobs_dir(&d, o.pin_dir, true))
			return EXIT_ERROR;
		n = reclaim_pass(&d, o.idle_s, o.dry_run);
		close_jobs_dir(&d);
		if (n < 0)
			return EXIT_ERROR;
		if (!o.every_s)
			break;
		sleep(o.every_s);
	} while (!stop_reclaim);
	return EXIT_OK;
}

/* ---- the owning datapath -------------------------------------------- */

/*
 * Frees the registry's jobs for the other datapath.  A program's use is
 * visible (refused while one runs); a qdisc's is not, so releasing a
 * registry qdiscs still use is the operator's word that none does.
 */
static int cmd_release(const struct command *cmd, int argc, char **argv)
{
	struct jobs_dir d;
	struct opts o;
	__u32 was;
	int ret;

	ret = opts_exit(parse_opts(cmd, argc, argv, OPT_PIN_DIR, 0, &o));
	if (ret >= 0)
		return ret;
	if (open_jobs_dir(&d, o.pin_dir, true))
		return EXIT_ERROR;
	ret = EXIT_ERROR;
	was = d.meta.owner;
	if (map_used_by_prog(d.jobs_fd)) {
		error("a BPF program uses the jobs of %s: 'symofan symphony detach' its ports first",
		      d.dir);
		goto out;
	}
	if (!set_jobs_owner(&d, SYMPHONY_JOBS_OWNER_NONE)) {
		printf("symofan: the jobs of %s were %s's, now free for either datapath\n",
		       d.dir, jobs_owner_name(was));
		ret = EXIT_OK;
	}
out:
	close_jobs_dir(&d);
	return ret;
}

/*
 * Removes the registry: its pins and, when nothing else is in it, its
 * folder.  Refused while Symphony's tc-BPF program uses the jobs (detach
 * its ports first); qdiscs that use them keep them, unregistered, until
 * "tc qdisc change ... jobs_map none" or their deletion.
 */
static int cmd_destroy(const struct command *cmd, int argc, char **argv)
{
	struct bpf_map_info info;
	struct opts o;
	int ret, fd, lock_fd;

	ret = opts_exit(parse_opts(cmd, argc, argv, OPT_PIN_DIR, 0, &o));
	if (ret >= 0)
		return ret;
	if (require_cap_bpf() || check_bpffs(o.pin_dir))
		return EXIT_ERROR;
	if (access(o.pin_dir, F_OK) && errno == ENOENT) {
		printf("symofan: %s does not exist: nothing to destroy\n",
		       o.pin_dir);
		return EXIT_OK;
	}
	lock_fd = lock_dir(o.pin_dir);
	if (lock_fd < 0)
		return EXIT_ERROR;
	ret = EXIT_ERROR;
	fd = get_pinned(o.pin_dir, META_PIN, &info);
	if (fd < 0 && fd != -ENOENT) {
		error("cannot open %s/%s: %s", o.pin_dir, META_PIN, why(-fd));
		goto out;
	}
	if (fd < 0) {
		printf("symofan: %s holds no job registry: nothing to destroy\n",
		       o.pin_dir);
		ret = EXIT_OK;
		goto out;
	}
	close(fd);
	fd = get_pinned(o.pin_dir, JOBS_PIN, &info);
	if (fd >= 0) {
		bool used = map_used_by_prog(fd);

		close(fd);
		if (used) {
			error("a BPF program uses the jobs of %s: 'symofan symphony detach' its ports first",
			      o.pin_dir);
			goto out;
		}
	}
	if (unpin_registry(o.pin_dir))
		goto out;
	/* the folder goes with its last pin; one with other pins stays */
	if (rmdir(o.pin_dir) && errno != ENOTEMPTY && errno != EEXIST)
		error("the registry is gone, but not its folder %s: %s",
		      o.pin_dir, why(errno));
	printf("symofan: the job registry of %s is gone; qdiscs that used its jobs keep them until 'tc qdisc change ... jobs_map none'\n",
	       o.pin_dir);
	ret = EXIT_OK;
out:
	close(lock_fd);
	return ret;
}

/* ---- migration ------------------------------------------------------ */

/*
 * Re-creates the registry of a folder whose maps have another layout (or
 * are incomplete), keeping ids, names and parameters.  Qdiscs keep the
 * old jobs map until "tc qdisc change ... jobs_map DIR/jobs".
 */
static int cmd_migrate(const struct command *cmd, int argc, char **argv)
{
	__u32 nr_jobs, carried;
	struct jobs_dir d;
	struct opts o;
	int ret, lock_fd;

	ret = opts_exit(parse_opts(cmd, argc, argv,
				   OPT_PIN_DIR | OPT_JOBS, 0, &o));
	if (ret >= 0)
		return ret;
	if (require_cap_bpf() || check_bpffs(o.pin_dir))
		return EXIT_ERROR;
	if (!open_jobs_dir(&d, o.pin_dir, false)) {
		printf("symofan: %s has this symofan's layout %u already: nothing to migrate\n",
		       o.pin_dir, SYMPHONY_JOB_LAYOUT_VERSION);
		close_jobs_dir(&d);
		return EXIT_OK;
	}
	lock_fd = lock_dir(o.pin_dir);
	if (lock_fd < 0)
		return EXIT_ERROR;
	ret = EXIT_ERROR;
	nr_jobs = o.nr_jobs;
	if (!migrate_registry(o.pin_dir, &nr_jobs, &carried)) {
		printf("symofan: %s re-created at layout %u with %u job slots, %u registered jobs carried over; point qdiscs at it with 'tc qdisc change ... jobs_map %s/%s'\n",
		       o.pin_dir, SYMPHONY_JOB_LAYOUT_VERSION, nr_jobs, carried,
		       o.pin_dir, JOBS_PIN);
		ret = EXIT_OK;
	}
	close(lock_fd);
	return ret;
}

/* ---- the command table ---------------------------------------------- */

#define PARAM_SYNOPSIS	"[--k GAIN] [--tau FRACTION] [--warmup PSN] [--samples PACKETS]"

const struct command job_commands[] = {
	{
		.name = "init", .synopsis = "[--jobs N] [--pin-dir DIR]",
		.help = "create and pin the jobs map and the registry (default DIR /sys/fs/bpf/symphony)",
		.details =
		"  --jobs N  job slots, ids 0..N-1 (default 4096, at most 16777216)\n"
		"  Idempotent: a folder initialised before is checked and kept.\n"
		"  Symphony qdiscs use DIR/jobs: tc qdisc ... symphony jobs_map DIR/jobs\n",
		.run = cmd_init,
		.style = &job_style,
	},
	{
		.name = "add",
		.synopsis = "[--id ID] [--name NAME] " PARAM_SYNOPSIS " [--pin-dir DIR] [--json]",
		.help = "register a job: the lowest free id from 1 up, or ID; prints the id",
		.print_details = print_param_details,
		.run = cmd_add,
		.style = &job_style,
	},
	{
		.name = "set", .synopsis = "ID " PARAM_SYNOPSIS " [--pin-dir DIR]",
		.help = "change a job's parameters; qdiscs use them from the next packet on",
		.print_details = print_param_details,
		.run = cmd_set,
		.style = &job_style,
	},
	{
		.name = "del", .synopsis = "ID [--pin-dir DIR]",
		.help = "unregister a job and clear its state and parameters",
		.run = cmd_del,
		.style = &job_style,
	},
	{
		.name = "list", .synopsis = "[--pin-dir DIR] [--json]",
		.help = "registered jobs with their live state and counters",
		.run = cmd_list,
		.style = &job_style,
	},
	{
		.name = "show", .synopsis = "ID [--pin-dir DIR] [--json]",
		.help = "one job's state block (step_min, psn_rec, alpha), parameters and counters",
		.run = cmd_show,
		.style = &job_style,
	},
	{
		.name = "reclaim",
		.synopsis = "--idle SECONDS [--every SECONDS] [--dry-run] [--pin-dir DIR]",
		.help = "delete jobs whose packet count stood still for --idle seconds",
		.details =
		"  A job is idle from the first pass that sees its packet count\n"
		"  unchanged (or from 'job add').  With --every, runs a pass every\n"
		"  SECONDS until SIGTERM; without, one pass.\n",
		.run = cmd_reclaim,
		.style = &job_style,
	},
	{
		.name = "release", .synopsis = "[--pin-dir DIR]",
		.help = "free the registry's jobs for the other datapath (qdisc or tc-BPF)",
		.details =
		"  A registry serves one datapath: sch_symphony qdiscs (tc ... jobs_map)\n"
		"  or Symphony's tc-BPF program (symofan symphony attach), whichever\n"
		"  used it first, since the two lock a job's updates differently.\n"
		"  The program's claim ends with its last detach; a qdisc's cannot be\n"
		"  seen from here: release says that no qdisc uses the registry now.\n",
		.run = cmd_release,
		.style = &job_style,
	},
	{
		.name = "destroy", .synopsis = "[--pin-dir DIR]",
		.help = "remove the registry's pins and folder (qdiscs using its jobs keep them)",
		.details =
		"  Refused while Symphony's tc-BPF program uses the jobs: detach its\n"
		"  ports first.  A folder without a registry is left as it is (exit 0).\n",
		.run = cmd_destroy,
		.style = &job_style,
	},
	{
		.name = "migrate", .synopsis = "[--jobs N] [--pin-dir DIR]",
		.help = "re-create a registry of another layout at this symofan's, keeping ids, names, parameters",
		.run = cmd_migrate,
		.style = &job_style,
	},
	{ }
};
