// SPDX-License-Identifier: GPL-2.0
/*
 * symofan_jobs.c - "symofan job ...": the Symphony job registry.  Creates
 * and pins the jobs map that symphony qdiscs share ("tc qdisc ... symphony
 * jobs_map DIR/jobs"), hands out job ids as the paper's controller does,
 * sets each job's parameters while qdiscs use them, shows each job's live
 * state block, and reclaims jobs that went idle.
 *
 * The pin folder (default /sys/fs/bpf/symphony, mode 0700) holds:
 *	jobs		BPF array of struct symphony_job, indexed by job id
 *	job_registry	BPF hash: job id -> struct symphony_job_entry
 *	job_meta	BPF array[1]: struct symphony_jobs_meta (layout version)
 * all declared in include/symphony/symphony_map.h and created from
 * bpf/symphony_jobs.bpf.c, so that bpftool shows them field by field.
 *
 * The qdisc updates a job's state block under its own lock; the agent
 * never rewrites a registered job's block: a parameter change is one
 * 32-bit store through a mapping of the (mmapable) jobs map.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/capability.h>

#include "parse.h"
#include "symofan.h"
#include "symphony_param.h"
#include "symphony_jobs.skel.h"
#include "tool_util.h"
#include "symphony/symphony_map.h"

#define JOBS_PIN_DIR		"/sys/fs/bpf/symphony"
#define JOBS_PIN		"jobs"
#define REGISTRY_PIN		"job_registry"
#define META_PIN		"job_meta"
#define JOB_ID_FIRST		1	/* id 0 stays for untagged traffic */


/* An open pin folder. */
struct jobs_dir {
	const char		*dir;
	int			jobs_fd;
	int			registry_fd;
	int			meta_fd;
	int			lock_fd;
	struct symphony_jobs_meta meta;
	struct symphony_job	*jobs;	/* the jobs map, mapped shared */
	size_t			jobs_len;
};

/* Options of the job commands; a command accepts a subset. */
struct job_opts {
	const char	*pin_dir;
	bool		json;
	bool		dry_run;
	bool		has_id;
	__u32		id;
	const char	*name;
	__u32		nr_jobs;
	long		idle_s;		/* reclaim: seconds, -1 unset */
	long		every_s;	/* reclaim: seconds, 0 once */
	int		nr_params;
	bool		set[4];		/* k, tau, warmup, samples given */
	__u32		param[4];
	int		nr_args;
	char		*args[2];
};

enum job_param { PARAM_K, PARAM_TAU, PARAM_WARMUP, PARAM_SAMPLES };

enum job_opt {
	JOPT_PIN_DIR	= 0x01,
	JOPT_JSON	= 0x02,
	JOPT_ID		= 0x04,
	JOPT_NAME	= 0x08,
	JOPT_JOBS	= 0x10,
	JOPT_PARAMS	= 0x20,
	JOPT_IDLE	= 0x40,
	JOPT_DRY_RUN	= 0x80,
};

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

/*
 * Parses argv[1..] into @o, accepting the options in @allowed and
 * @nr_args positional arguments.  Returns 0 to go on, 1 after --help,
 * -1 after a usage error (printed).
 */
static int parse_job_opts(const struct command *cmd, int argc, char **argv,
			  unsigned int allowed, int nr_args, struct job_opts *o)
{
	static const struct option long_opts[] = {
		{ "pin-dir", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "id", required_argument, NULL, 'i' },
		{ "name", required_argument, NULL, 'n' },
		{ "jobs", required_argument, NULL, 'J' },
		{ "k", required_argument, NULL, 'k' },
		{ "tau", required_argument, NULL, 't' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "samples", required_argument, NULL, 's' },
		{ "idle", required_argument, NULL, 'I' },
		{ "every", required_argument, NULL, 'e' },
		{ "dry-run", no_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	static const struct { int c; unsigned int opt; } need[] = {
		{ 'd', JOPT_PIN_DIR }, { 'j', JOPT_JSON }, { 'i', JOPT_ID },
		{ 'n', JOPT_NAME }, { 'J', JOPT_JOBS }, { 'k', JOPT_PARAMS },
		{ 't', JOPT_PARAMS }, { 'w', JOPT_PARAMS }, { 's', JOPT_PARAMS },
		{ 'I', JOPT_IDLE }, { 'e', JOPT_IDLE }, { 'D', JOPT_DRY_RUN },
	};
	enum job_param p;
	__u32 v;
	size_t i;
	int c;

	memset(o, 0, sizeof(*o));
	o->pin_dir = JOBS_PIN_DIR;
	o->nr_jobs = SYMPHONY_JOBS_DEFAULT;
	o->idle_s = -1;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "hj", long_opts, NULL)) != -1) {
		if (c == 'h') {
			usage_cmd(stdout, cmd);
			return 1;
		}
		if (c == '?' || c == ':') {
			error("%s: unknown option or missing value in '%s'",
			      cmd->name, argv[optind - 1]);
			goto usage;
		}
		for (i = 0; i < ARRAY_SIZE(need); i++)
			if (need[i].c == c && !(allowed & need[i].opt)) {
				error("%s: option '%s' does not apply here",
				      cmd->name, argv[optind - 1]);
				goto usage;
			}
		switch (c) {
		case 'd':
			o->pin_dir = optarg;
			break;
		case 'j':
			o->json = true;
			break;
		case 'D':
			o->dry_run = true;
			break;
		case 'i':
			if (parse_u32(optarg, 0, SYMPHONY_JOBS_MAX - 1, &o->id)) {
				error("--id wants a job id 0..%u, got '%s'",
				      SYMPHONY_JOBS_MAX - 1, optarg);
				goto usage;
			}
			o->has_id = true;
			break;
		case 'n':
			if (strlen(optarg) >= SYMPHONY_JOB_NAME_LEN) {
				error("--name '%s' is longer than %d characters",
				      optarg, SYMPHONY_JOB_NAME_LEN - 1);
				goto usage;
			}
			o->name = optarg;
			break;
		case 'J':
			if (parse_u32(optarg, SYMPHONY_JOBS_MIN,
				       SYMPHONY_JOBS_MAX, &o->nr_jobs)) {
				error("--jobs wants %u..%u job slots, got '%s'",
				      SYMPHONY_JOBS_MIN, SYMPHONY_JOBS_MAX, optarg);
				goto usage;
			}
			break;
		case 'I':
		case 'e':
			if (parse_u32(optarg, c == 'I' ? 0 : 1, 86400 * 365,
				       &v)) {
				error("--%s wants seconds, got '%s'",
				      c == 'I' ? "idle" : "every", optarg);
				goto usage;
			}
			if (c == 'I')
				o->idle_s = v;
			else
				o->every_s = v;
			break;
		default:
			p = c == 'k' ? PARAM_K : c == 't' ? PARAM_TAU :
			    c == 'w' ? PARAM_WARMUP : PARAM_SAMPLES;
			if (!parse_param(p, optarg, &o->param[p])) {
				char range[64];

				symphony_param_range_text(job_param(p), 1, range,
							  sizeof(range));
				error("--%s wants %s, %s, or default, got '%s'",
				      job_param(p)->keyword, job_param(p)->help,
				      range,
				      optarg);
				goto usage;
			}
			if (!o->set[p])
				o->nr_params++;
			o->set[p] = true;
			break;
		}
	}
	for (; optind < argc; optind++) {
		if (o->nr_args == nr_args) {
			error("%s: unexpected argument '%s'", cmd->name,
			      argv[optind]);
			goto usage;
		}
		o->args[o->nr_args++] = argv[optind];
	}
	if (o->nr_args < nr_args) {
		error("%s: missing arguments", cmd->name);
		goto usage;
	}
	if (o->pin_dir[0] != '/' || strlen(o->pin_dir) > 200) {
		error("--pin-dir wants an absolute path of at most 200 characters");
		goto usage;
	}
	return 0;
usage:
	usage_cmd(stderr, cmd);
	return -1;
}

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

static __u64 clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* ---- the pin folder ------------------------------------------------- */

/* Creating BPF maps needs CAP_BPF (or CAP_SYS_ADMIN): say so up front. */
static int require_cap_bpf(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {};
	int caps[] = { CAP_BPF, CAP_SYS_ADMIN };
	size_t i;

	if (syscall(SYS_capget, &hdr, data))
		return 0;	/* cannot tell: let the kernel decide */
	for (i = 0; i < ARRAY_SIZE(caps); i++)
		if (data[caps[i] / 32].effective & (1U << (caps[i] % 32)))
			return 0;
	error("creating BPF maps needs CAP_BPF: run as root");
	return -1;
}

static int get_pinned(const char *dir, const char *name,
		      struct bpf_map_info *info)
{
	__u32 len = sizeof(*info);
	char path[256];
	int fd;

	pin_path(path, sizeof(path), dir, name);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno;
	memset(info, 0, sizeof(*info));
	if (bpf_obj_get_info_by_fd(fd, info, &len)) {
		close(fd);
		return -errno;
	}
	return fd;
}

static void close_jobs_dir(struct jobs_dir *d)
{
	if (d->jobs)
		munmap(d->jobs, d->jobs_len);
	if (d->jobs_fd >= 0)
		close(d->jobs_fd);
	if (d->registry_fd >= 0)
		close(d->registry_fd);
	if (d->meta_fd >= 0)
		close(d->meta_fd);
	if (d->lock_fd >= 0)
		close(d->lock_fd);
	d->jobs = NULL;
	d->jobs_fd = d->registry_fd = d->meta_fd = d->lock_fd = -1;
}

/*
 * Opens the registry of @dir: the three maps, checked against this
 * symofan's layout, and the jobs map mapped.  With @lock, holds the
 * folder's lock until close_jobs_dir().  0, or -1 after an error message.
 */
static int open_jobs_dir(struct jobs_dir *d, const char *dir, bool lock)
{
	struct bpf_map_info jobs_info, reg_info, meta_info;
	__u32 zero = 0;

	memset(d, 0, sizeof(*d));
	d->dir = dir;
	d->jobs_fd = d->registry_fd = d->meta_fd = d->lock_fd = -1;
	if (check_bpffs(dir))
		return -1;
	d->meta_fd = get_pinned(dir, META_PIN, &meta_info);
	if (d->meta_fd == -ENOENT) {
		error("no job registry at %s: run 'symofan job init%s%s'", dir,
		      strcmp(dir, JOBS_PIN_DIR) ? " --pin-dir " : "",
		      strcmp(dir, JOBS_PIN_DIR) ? dir : "");
		return -1;
	}
	if (d->meta_fd < 0) {
		error("cannot open %s/%s: %s", dir, META_PIN, why(-d->meta_fd));
		return -1;
	}
	if (meta_info.value_size != sizeof(d->meta) ||
	    bpf_map_lookup_elem(d->meta_fd, &zero, &d->meta) ||
	    d->meta.magic != SYMPHONY_JOBS_META_MAGIC) {
		error("%s/%s is not a job registry's meta map", dir, META_PIN);
		goto fail;
	}
	if (d->meta.layout_version != SYMPHONY_JOB_LAYOUT_VERSION) {
		error("the maps in %s have job layout %u, this symofan uses %u: 'symofan job migrate --pin-dir %s' re-creates them at layout %u, keeping job ids, names and parameters",
		      dir, d->meta.layout_version, SYMPHONY_JOB_LAYOUT_VERSION,
		      dir, SYMPHONY_JOB_LAYOUT_VERSION);
		goto fail;
	}
	d->jobs_fd = get_pinned(dir, JOBS_PIN, &jobs_info);
	d->registry_fd = get_pinned(dir, REGISTRY_PIN, &reg_info);
	if (d->jobs_fd < 0 || d->registry_fd < 0) {
		error("%s is incomplete (%s, %s): 'symofan job migrate --pin-dir %s' re-creates it",
		      dir, d->jobs_fd < 0 ? "no jobs map" : "jobs map",
		      d->registry_fd < 0 ? "no registry" : "registry", dir);
		goto fail;
	}
	if (jobs_info.type != BPF_MAP_TYPE_ARRAY ||
	    jobs_info.value_size != sizeof(struct symphony_job) ||
	    !(jobs_info.map_flags & BPF_F_MMAPABLE) ||
	    reg_info.value_size != sizeof(struct symphony_job_entry)) {
		error("%s/%s or %s/%s has another layout than this symofan's: 'symofan job migrate --pin-dir %s'",
		      dir, JOBS_PIN, dir, REGISTRY_PIN, dir);
		goto fail;
	}
	d->meta.nr_jobs = jobs_info.max_entries;
	d->jobs_len = (size_t)jobs_info.max_entries * sizeof(struct symphony_job);
	d->jobs = mmap(NULL, d->jobs_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		       d->jobs_fd, 0);
	if (d->jobs == MAP_FAILED) {
		d->jobs = NULL;
		error("cannot map %s/%s: %s", dir, JOBS_PIN, why(errno));
		goto fail;
	}
	if (lock) {
		d->lock_fd = lock_dir(dir);
		if (d->lock_fd < 0)
			goto fail;
	}
	return 0;
fail:
	close_jobs_dir(d);
	return -1;
}

/* Creates the three maps of a registry with @nr_jobs slots, unpinned. */
static struct symphony_jobs_bpf *create_maps(__u32 nr_jobs)
{
	struct symphony_jobs_bpf *skel;
	int err;

	skel = symphony_jobs_bpf__open();
	if (!skel) {
		error("cannot open the maps' object: %s", why(errno));
		return NULL;
	}
	err = bpf_map__set_max_entries(skel->maps.symphony_jobs, nr_jobs);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.job_registry,
					       nr_jobs);
	if (!err)
		err = symphony_jobs_bpf__load(skel);
	if (err) {
		error("cannot create the maps: %s", why(-err));
		symphony_jobs_bpf__destroy(skel);
		return NULL;
	}
	return skel;
}

/* Pins the maps of @skel in @dir (mode 0600), meta last: it marks the
 * registry complete.
 */
static int pin_maps(struct symphony_jobs_bpf *skel, const char *dir,
		    __u32 nr_jobs)
{
	struct symphony_jobs_meta meta = {
		.magic = SYMPHONY_JOBS_META_MAGIC,
		.layout_version = SYMPHONY_JOB_LAYOUT_VERSION,
		.nr_jobs = nr_jobs,
	};
	struct bpf_map *maps[] = {
		skel->maps.symphony_jobs, skel->maps.job_registry,
		skel->maps.job_meta,
	};
	static const char *const names[] = { JOBS_PIN, REGISTRY_PIN, META_PIN };
	char path[256];
	__u32 zero = 0;
	size_t i;
	int err;

	if (bpf_map_update_elem(bpf_map__fd(skel->maps.job_meta), &zero, &meta,
				BPF_ANY)) {
		error("cannot write the meta map: %s", why(errno));
		return -1;
	}
	for (i = 0; i < 3; i++) {
		pin_path(path, sizeof(path), dir, names[i]);
		err = bpf_map__pin(maps[i], path);
		if (err) {
			error("cannot pin %s: %s", path, why(-err));
			return -1;
		}
		chmod(path, 0600);
	}
	return 0;
}

static int cmd_init(const struct command *cmd, int argc, char **argv)
{
	struct symphony_jobs_bpf *skel;
	struct bpf_map_info info;
	struct jobs_dir d;
	struct job_opts o;
	char path[256];
	int ret, fd, lock_fd;

	ret = opts_exit(parse_job_opts(cmd, argc, argv,
				       JOPT_PIN_DIR | JOPT_JOBS, 0, &o));
	if (ret >= 0)
		return ret;
	if (require_cap_bpf() || check_bpffs(o.pin_dir))
		return EXIT_ERROR;
	if (mkdir_p(o.pin_dir)) {
		error("cannot create %s: %s", o.pin_dir, why(errno));
		return EXIT_ERROR;
	}
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
	skel = create_maps(o.nr_jobs);
	if (!skel)
		goto out;
	if (!pin_maps(skel, o.pin_dir, o.nr_jobs)) {
		printf("symofan: job registry with %u job slots at %s (tc ... symphony jobs_map %s)\n",
		       o.nr_jobs, o.pin_dir, path);
		ret = EXIT_OK;
	} else {
		bpf_map__unpin(skel->maps.symphony_jobs, NULL);
		bpf_map__unpin(skel->maps.job_registry, NULL);
	}
	symphony_jobs_bpf__destroy(skel);
out:
	close(lock_fd);
	return ret;
}

/* ---- reading jobs --------------------------------------------------- */

/* A copy of job @id's block for display: the qdisc may be updating it,
 * so fields of one copy can be a packet apart.
 */
static void read_job(const struct jobs_dir *d, __u32 id, struct symphony_job *j)
{
	memcpy(j, &d->jobs[id], sizeof(*j));
}

/* One set bit per registered id, in a bitmap of nr_jobs bits. */
static __u64 *registered_ids(const struct jobs_dir *d, __u32 *count)
{
	__u64 *bits = calloc((d->meta.nr_jobs + 63) / 64, sizeof(__u64));
	__u32 key, next, *prev = NULL;

	*count = 0;
	if (!bits) {
		error("out of memory");
		return NULL;
	}
	while (!bpf_map_get_next_key(d->registry_fd, prev, &next)) {
		if (next < d->meta.nr_jobs) {
			bits[next / 64] |= 1ULL << (next % 64);
			(*count)++;
		}
		key = next;
		prev = &key;
	}
	return bits;
}

static bool id_set(const __u64 *bits, __u32 id)
{
	return bits[id / 64] >> (id % 64) & 1;
}

static void print_ppm_text(const char *label, __u32 ppm)
{
	if (ppm)
		printf("%s %u.%06u", label, ppm / 1000000, ppm % 1000000);
	else
		printf("%s default", label);
}

static void print_job_json(__u32 id, const struct symphony_job_entry *e,
			   const struct symphony_job *j)
{
	printf("{\"id\":%u,\"name\":", id);
	json_string(e ? e->name : "");
	printf(",\"registered\":%s", e ? "true" : "false");
	if (e)
		printf(",\"created_ns\":%llu", (unsigned long long)e->created_ns);
	printf(",\"active\":%s,\"step_min\":%u,\"psn_rec\":%u,\"alpha\":%u,"
	       "\"window_packets\":%u,\"window_outpacing_packets\":%u,"
	       "\"last_seen_ns\":%llu,",
	       j->flags & SYMPHONY_JOB_F_ACTIVE ? "true" : "false",
	       j->step_min, j->psn_rec, j->alpha, j->cnt_total, j->cnt_op,
	       (unsigned long long)j->last_seen_ns);
	printf("\"k_ppm\":%u,\"tau_ppm\":%u,\"warmup_psn\":%u,"
	       "\"sample_min_packets\":%u,",
	       j->k_ppm, j->tau_ppm, j->warmup_psn, j->sample_min_packets);
	printf("\"packets\":%llu,\"bytes\":%llu,\"outpacing_packets\":%llu,"
	       "\"symphony_marks\":%llu,\"red_marks\":%llu,\"windows\":%llu}",
	       (unsigned long long)j->packets, (unsigned long long)j->bytes,
	       (unsigned long long)j->outpacing_packets,
	       (unsigned long long)j->symphony_marks,
	       (unsigned long long)j->red_marks,
	       (unsigned long long)j->windows);
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
	struct job_opts o;
	bool registered;
	int ret;
	__u32 id;

	ret = opts_exit(parse_job_opts(cmd, argc, argv,
				       JOPT_PIN_DIR | JOPT_JSON, 1, &o));
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
	if (o.json) {
		print_job_json(id, registered ? &e : NULL, &j);
		putchar('\n');
	} else {
		print_job_text(id, registered ? &e : NULL, &j);
	}
	ret = EXIT_OK;
out:
	close_jobs_dir(&d);
	return ret;
}

static int cmd_list(const struct command *cmd, int argc, char **argv)
{
	struct symphony_job_entry e;
	struct symphony_job j;
	struct jobs_dir d;
	struct job_opts o;
	__u32 id, count;
	bool first = true;
	__u64 *bits;
	int ret;

	ret = opts_exit(parse_job_opts(cmd, argc, argv,
				       JOPT_PIN_DIR | JOPT_JSON, 0, &o));
	if (ret >= 0)
		return ret;
	if (open_jobs_dir(&d, o.pin_dir, false))
		return EXIT_ERROR;
	bits = registered_ids(&d, &count);
	if (!bits) {
		close_jobs_dir(&d);
		return EXIT_ERROR;
	}
	if (o.json)
		printf("{\"pin_dir\":\"%s\",\"slots\":%u,\"layout_version\":%u,\"jobs\":[",
		       d.dir, d.meta.nr_jobs, d.meta.layout_version);
	else
		printf("%u of %u job slots registered in %s\n%-8s %-20s %-8s %-10s %-10s %-6s %12s %12s %12s\n",
		       count, d.meta.nr_jobs, d.dir, "ID", "NAME", "ACTIVE",
		       "STEP_MIN", "PSN_REC", "ALPHA", "PACKETS",
		       "OUTPACING", "SYM_MARKS");
	for (id = 0; id < d.meta.nr_jobs; id++) {
		if (!id_set(bits, id) ||
		    bpf_map_lookup_elem(d.registry_fd, &id, &e))
			continue;
		read_job(&d, id, &j);
		if (o.json) {
			if (!first)
				putchar(',');
			print_job_json(id, &e, &j);
		} else {
			printf("%-8u %-20s %-8s %-10u %-10u %-6u %12llu %12llu %12llu\n",
			       id, e.name[0] ? e.name : "-",
			       j.flags & SYMPHONY_JOB_F_ACTIVE ? "yes" : "no",
			       j.step_min, j.psn_rec, j.alpha,
			       (unsigned long long)j.packets,
			       (unsigned long long)j.outpacing_packets,
			       (unsigned long long)j.symphony_marks);
		}
		first = false;
	}
	if (o.json)
		printf("]}\n");
	free(bits);
	close_jobs_dir(&d);
	return EXIT_OK;
}

/* ---- changing jobs -------------------------------------------------- */

/* Stores the given parameters of job @id, one 32-bit store each. */
static void store_params(struct jobs_dir *d, __u32 id, const struct job_opts *o,
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
	struct symphony_job zero_job = {};
	struct jobs_dir d;
	struct job_opts o;
	__u32 id, count;
	__u64 *bits;
	int ret;

	ret = opts_exit(parse_job_opts(cmd, argc, argv,
				       JOPT_PIN_DIR | JOPT_JSON | JOPT_ID |
				       JOPT_NAME | JOPT_PARAMS, 0, &o));
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
	/* A fresh state block: whatever an unregistered id gathered goes. */
	if (bpf_map_update_elem(d.jobs_fd, &id, &zero_job, BPF_ANY)) {
		error("cannot reset job %u: %s", id, why(errno));
		goto out;
	}
	if (o.name)
		snprintf(e.name, sizeof(e.name), "%s", o.name);
	e.created_ns = clock_ns(CLOCK_REALTIME);
	e.idle_since_ns = clock_ns(CLOCK_MONOTONIC);
	store_params(&d, id, &o, &e);
	if (bpf_map_update_elem(d.registry_fd, &id, &e, BPF_NOEXIST)) {
		error("cannot register job %u: %s", id, why(errno));
		goto out;
	}
	if (o.json)
		printf("{\"id\":%u}\n", id);
	else
		printf("symofan: job %u added%s%s\n", id, o.name ? " as " : "",
		       o.name ? o.name : "");
	ret = EXIT_OK;
out:
	free(bits);
	close_jobs_dir(&d);
	return ret;
}

/* Opens @dir locked, with job @arg registered; its entry in @e. */
static int open_registered(struct jobs_dir *d, const struct job_opts *o,
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
	struct job_opts o;
	int ret;
	__u32 id;

	ret = opts_exit(parse_job_opts(cmd, argc, argv,
				       JOPT_PIN_DIR | JOPT_PARAMS, 1, &o));
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

/* Unregisters job @id and clears its block (state and parameters). */
static int delete_job(struct jobs_dir *d, __u32 id)
{
	struct symphony_job zero_job = {};

	if (bpf_map_delete_elem(d->registry_fd, &id) && errno != ENOENT) {
		error("cannot unregister job %u: %s", id, why(errno));
		return -1;
	}
	if (bpf_map_update_elem(d->jobs_fd, &id, &zero_job, BPF_ANY)) {
		error("cannot clear job %u: %s", id, why(errno));
		return -1;
	}
	return 0;
}

static int cmd_del(const struct command *cmd, int argc, char **argv)
{
	struct symphony_job_entry e;
	struct jobs_dir d;
	struct job_opts o;
	int ret;
	__u32 id;

	ret = opts_exit(parse_job_opts(cmd, argc, argv, JOPT_PIN_DIR, 1, &o));
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
		packets = __atomic_load_n(&d->jobs[id].packets,
					  __ATOMIC_RELAXED);
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
	struct job_opts o;
	int ret, n;

	ret = opts_exit(parse_job_opts(cmd, argc, argv,
				       JOPT_PIN_DIR | JOPT_IDLE | JOPT_DRY_RUN,
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

/* ---- migration ------------------------------------------------------ */

/*
 * Re-creates the registry of a folder whose maps have another layout (or
 * are incomplete): new maps at this layout, registry entries (ids, names,
 * parameters) carried over when the old registry's layout is readable,
 * then the pins replaced.  Qdiscs keep the old jobs map until "tc qdisc
 * change ... jobs_map DIR/jobs".
 */
static int cmd_migrate(const struct command *cmd, int argc, char **argv)
{
	struct symphony_job_entry e;
	struct symphony_jobs_bpf *skel;
	struct bpf_map_info info;
	__u32 key, next, *prev = NULL, nr_jobs, carried = 0;
	static const char *const names[] = { JOBS_PIN, REGISTRY_PIN, META_PIN };
	struct jobs_dir d;
	struct job_opts o;
	char path[256];
	int ret, lock_fd, old_reg = -1, fd;
	size_t i;

	ret = opts_exit(parse_job_opts(cmd, argc, argv,
				       JOPT_PIN_DIR | JOPT_JOBS, 0, &o));
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
	fd = get_pinned(o.pin_dir, JOBS_PIN, &info);
	if (fd >= 0) {
		nr_jobs = info.max_entries;	/* keep the number of slots */
		close(fd);
	}
	fd = get_pinned(o.pin_dir, REGISTRY_PIN, &info);
	if (fd >= 0 && info.value_size == sizeof(e) && info.key_size == 4)
		old_reg = fd;
	else if (fd >= 0)
		close(fd);
	skel = create_maps(nr_jobs);
	if (!skel)
		goto out;
	while (old_reg >= 0 && !bpf_map_get_next_key(old_reg, prev, &next)) {
		if (next < nr_jobs &&
		    !bpf_map_lookup_elem(old_reg, &next, &e)) {
			struct symphony_job j = {
				.k_ppm = e.k_ppm, .tau_ppm = e.tau_ppm,
				.warmup_psn = e.warmup_psn,
				.sample_min_packets = e.sample_min_packets,
			};

			e.packets_seen = 0;
			e.idle_since_ns = clock_ns(CLOCK_MONOTONIC);
			bpf_map_update_elem(bpf_map__fd(skel->maps.job_registry),
					    &next, &e, BPF_ANY);
			bpf_map_update_elem(bpf_map__fd(skel->maps.symphony_jobs),
					    &next, &j, BPF_ANY);
			carried++;
		}
		key = next;
		prev = &key;
	}
	for (i = 0; i < 3; i++) {
		pin_path(path, sizeof(path), o.pin_dir, names[i]);
		if (unlink(path) && errno != ENOENT) {
			error("cannot remove %s: %s", path, why(errno));
			goto destroy;
		}
	}
	if (!pin_maps(skel, o.pin_dir, nr_jobs)) {
		printf("symofan: %s re-created at layout %u with %u job slots, %u registered jobs carried over; point qdiscs at it with 'tc qdisc change ... jobs_map %s/%s'\n",
		       o.pin_dir, SYMPHONY_JOB_LAYOUT_VERSION, nr_jobs, carried,
		       o.pin_dir, JOBS_PIN);
		ret = EXIT_OK;
	}
destroy:
	symphony_jobs_bpf__destroy(skel);
out:
	if (old_reg >= 0)
		close(old_reg);
	close(lock_fd);
	return ret;
}

/* ---- the command table ---------------------------------------------- */

#define PARAM_SYNOPSIS	"[--k GAIN] [--tau FRACTION] [--warmup PSN] [--samples PACKETS]"

/* The per-job parameters' help, from the qdisc's parameter table. */
static void print_param_details(FILE *f)
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

const struct command job_commands[] = {
	{
		.name = "init", .synopsis = "[--jobs N] [--pin-dir DIR]",
		.help = "create and pin the jobs map and the registry (default DIR /sys/fs/bpf/symphony)",
		.details =
		"  --jobs N  job slots, ids 0..N-1 (default 4096, at most 16777216)\n"
		"  Idempotent: a folder initialised before is checked and kept.\n"
		"  Symphony qdiscs use DIR/jobs: tc qdisc ... symphony jobs_map DIR/jobs\n",
		.run = cmd_init,
	},
	{
		.name = "add",
		.synopsis = "[--id ID] [--name NAME] " PARAM_SYNOPSIS " [--pin-dir DIR] [--json]",
		.help = "register a job: the lowest free id from 1 up, or ID; prints the id",
		.print_details = print_param_details,
		.run = cmd_add,
	},
	{
		.name = "set", .synopsis = "ID " PARAM_SYNOPSIS " [--pin-dir DIR]",
		.help = "change a job's parameters; qdiscs use them from the next packet on",
		.print_details = print_param_details,
		.run = cmd_set,
	},
	{
		.name = "del", .synopsis = "ID [--pin-dir DIR]",
		.help = "unregister a job and clear its state and parameters",
		.run = cmd_del,
	},
	{
		.name = "list", .synopsis = "[--pin-dir DIR] [--json]",
		.help = "registered jobs with their live state and counters",
		.run = cmd_list,
	},
	{
		.name = "show", .synopsis = "ID [--pin-dir DIR] [--json]",
		.help = "one job's state block (step_min, psn_rec, alpha), parameters and counters",
		.run = cmd_show,
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
	},
	{
		.name = "migrate", .synopsis = "[--jobs N] [--pin-dir DIR]",
		.help = "re-create a registry of another layout at this symofan's, keeping ids, names, parameters",
		.run = cmd_migrate,
	},
	{ }
};
