// SPDX-License-Identifier: GPL-2.0
/*
 * ecnstat.c - attach, read and detach the ecnstat tc-BPF counter
 * (bpf/ecnstat.bpf.c) on an interface.  The program stays attached after
 * this tool exits; its counters live in a map pinned under bpffs, one per
 * network namespace, interface and hook.
 *
 *	ecnstat attach DEV [ingress|egress]
 *	ecnstat show   DEV [ingress|egress] [--json]
 *	ecnstat reset  DEV [ingress|egress]
 *	ecnstat detach DEV [ingress|egress]
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpffs.h"
#include "ecnstat.skel.h"
#include "json_doc.h"
#include "tool_util.h"

const char *tool_name = "ecnstat";
#include "ecnstat/ecnstat_map.h"

#define ECNSTAT_BPFFS		"/sys/fs/bpf"
#define ECNSTAT_PIN_DIR		ECNSTAT_BPFFS "/symphony-ofan/ecnstat"
/* tc filter handle and priority of the attachment, "ec" for ecnstat */
#define ECNSTAT_TC_HANDLE	0xec
#define ECNSTAT_TC_PRIORITY	0xec

struct target {
	const char *ifname;
	unsigned int ifindex;
	enum bpf_tc_attach_point hook;
	const char *hook_name;
	char pin_path[256];
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ecnstat attach DEV [ingress|egress]\n"
		"       ecnstat show   DEV [ingress|egress] [--json]\n"
		"       ecnstat reset  DEV [ingress|egress]\n"
		"       ecnstat detach DEV [ingress|egress]\n"
		"Counts the ECN codepoints (packets) and bytes of IPv4/IPv6 packets,\n"
		"RoCEv2 (UDP 4791) packets and CNPs, and UEC (UDP 4793) packets\n"
		"crossing DEV.  The hook defaults to ingress.\n");
}

static int require_bpffs(void)
{
	if (!on_bpffs(ECNSTAT_BPFFS)) {
		error("no bpf filesystem at %s: mount -t bpf bpf %s ('ip netns exec' hides it; nsenter --net=... does not)",
		      ECNSTAT_BPFFS, ECNSTAT_BPFFS);
		return -1;
	}
	return 0;
}

static int parse_target(struct target *t, int argc, char **argv, bool *json)
{
	__u64 ns_dev, ns_ino;
	int i;

	memset(t, 0, sizeof(*t));
	t->hook = BPF_TC_INGRESS;
	t->hook_name = "ingress";
	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], "ingress") == 0) {
			t->hook = BPF_TC_INGRESS;
			t->hook_name = "ingress";
		} else if (strcmp(argv[i], "egress") == 0) {
			t->hook = BPF_TC_EGRESS;
			t->hook_name = "egress";
		} else if (json && strcmp(argv[i], "--json") == 0) {
			*json = true;
		} else if (!t->ifname && argv[i][0] != '-') {
			t->ifname = argv[i];
		} else {
			error("unexpected argument '%s'", argv[i]);
			return -EXIT_USAGE;
		}
	}
	if (!t->ifname) {
		error("no interface given");
		return -EXIT_USAGE;
	}
	t->ifindex = if_nametoindex(t->ifname);
	if (!t->ifindex) {
		error("no interface '%s' in this network namespace",
		      t->ifname);
		return -EXIT_ERROR;
	}
	/* Pins are global to bpffs; interface names are per namespace. */
	if (netns_id(&ns_dev, &ns_ino))
		return -EXIT_ERROR;
	snprintf(t->pin_path, sizeof(t->pin_path), "%s/%lu-%s-%s",
		 ECNSTAT_PIN_DIR, (unsigned long)ns_ino, t->ifname,
		 t->hook_name);
	return 0;
}

static int cmd_attach(struct target *t)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = t->ifindex,
			    .attach_point = t->hook);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = ECNSTAT_TC_HANDLE,
			    .priority = ECNSTAT_TC_PRIORITY);
	struct ecnstat_bpf *skel;
	int err, ret = EXIT_ERROR;

	if (require_bpffs())
		return EXIT_ERROR;
	if (access(t->pin_path, F_OK) == 0) {
		DECLARE_LIBBPF_OPTS(bpf_tc_opts, query,
				    .handle = ECNSTAT_TC_HANDLE,
				    .priority = ECNSTAT_TC_PRIORITY);

		if (bpf_tc_query(&hook, &query) == 0) {
			error("already attached to %s %s (counters at %s): detach first",
			      t->ifname, t->hook_name, t->pin_path);
			return EXIT_ERROR;
		}
		/* Left by a namespace deleted without a detach. */
		unlink(t->pin_path);
	}

	skel = ecnstat_bpf__open_and_load();
	if (!skel) {
		error("cannot load the BPF program: %s", why(errno));
		return EXIT_ERROR;
	}

	err = bpf_tc_hook_create(&hook);
	if (err && err != -EEXIST) {
		error("cannot create the clsact qdisc on %s: %s", t->ifname,
		      why(-err));
		goto out;
	}

	if (make_pin_dir(ECNSTAT_PIN_DIR))
		goto out;
	err = bpf_map__pin(skel->maps.ecnstat_counters, t->pin_path);
	if (err) {
		error("cannot pin the counters at %s: %s", t->pin_path,
		      why(-err));
		goto out;
	}

	opts.prog_fd = bpf_program__fd(skel->progs.ecnstat);
	err = bpf_tc_attach(&hook, &opts);
	if (err) {
		error("cannot attach to %s %s: %s", t->ifname, t->hook_name,
		      why(-err));
		unlink(t->pin_path);
		goto out;
	}
	printf("ecnstat: attached to %s %s, counters at %s\n", t->ifname,
	       t->hook_name, t->pin_path);
	ret = EXIT_OK;
out:
	ecnstat_bpf__destroy(skel);
	return ret;
}

static int cmd_detach(struct target *t)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = t->ifindex,
			    .attach_point = t->hook);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = ECNSTAT_TC_HANDLE,
			    .priority = ECNSTAT_TC_PRIORITY);
	int err;

	err = bpf_tc_detach(&hook, &opts);
	if (err == -ENOENT || err == -EINVAL) {
		error("not attached to %s %s", t->ifname, t->hook_name);
		unlink(t->pin_path);
		return EXIT_ERROR;
	}
	if (err) {
		error("cannot detach from %s %s: %s", t->ifname, t->hook_name,
		      why(-err));
		return EXIT_ERROR;
	}
	if (unlink(t->pin_path) && errno != ENOENT)
		error("cannot remove %s: %s", t->pin_path, strerror(errno));
	return EXIT_OK;
}

static int open_counters(struct target *t)
{
	int fd = bpf_obj_get(t->pin_path);

	if (fd < 0)
		error("not attached to %s %s (no %s): %s", t->ifname,
		      t->hook_name, t->pin_path, why(errno));
	return fd;
}

static int read_counters(int fd, struct ecnstat_counters *sum)
{
	int ncpus = libbpf_num_possible_cpus();
	struct ecnstat_counters *percpu;
	__u32 key = 0;
	int cpu;

	if (ncpus <= 0)
		return -1;
	percpu = calloc(ncpus, sizeof(*percpu));
	if (!percpu)
		return -1;
	if (bpf_map_lookup_elem(fd, &key, percpu)) {
		free(percpu);
		return -1;
	}
	memset(sum, 0, sizeof(*sum));
	for (cpu = 0; cpu < ncpus; cpu++) {
		sum->packets += percpu[cpu].packets;
		sum->bytes += percpu[cpu].bytes;
		sum->not_ect += percpu[cpu].not_ect;
		sum->ect1 += percpu[cpu].ect1;
		sum->ect0 += percpu[cpu].ect0;
		sum->ce += percpu[cpu].ce;
		sum->rocev2 += percpu[cpu].rocev2;
		sum->rocev2_cnp += percpu[cpu].rocev2_cnp;
		sum->uec += percpu[cpu].uec;
		sum->other += percpu[cpu].other;
	}
	free(percpu);
	return 0;
}

/* The counters as one JSON object on a line; 0, or -1 after a message. */
static int print_json(const struct target *t, const struct ecnstat_counters *c)
{
	struct json_object *doc = json_object_new_object();
	int err;

	err = jdoc_add_str(doc, "dev", t->ifname);
	err |= jdoc_add_str(doc, "hook", t->hook_name);
	err |= jdoc_add_u64(doc, "packets", c->packets);
	err |= jdoc_add_u64(doc, "bytes", c->bytes);
	err |= jdoc_add_u64(doc, "not_ect", c->not_ect);
	err |= jdoc_add_u64(doc, "ect1", c->ect1);
	err |= jdoc_add_u64(doc, "ect0", c->ect0);
	err |= jdoc_add_u64(doc, "ce", c->ce);
	err |= jdoc_add_u64(doc, "rocev2", c->rocev2);
	err |= jdoc_add_u64(doc, "rocev2_cnp", c->rocev2_cnp);
	err |= jdoc_add_u64(doc, "uec", c->uec);
	err |= jdoc_add_u64(doc, "other", c->other);
	return jdoc_print(stdout, jdoc_finish(doc, err), JSON_C_TO_STRING_PLAIN);
}

static int cmd_show(struct target *t, bool json)
{
	struct ecnstat_counters c;
	int fd, err;

	fd = open_counters(t);
	if (fd < 0)
		return EXIT_ERROR;
	err = read_counters(fd, &c);
	close(fd);
	if (err) {
		error("cannot read %s: %s", t->pin_path, why(errno));
		return EXIT_ERROR;
	}

	if (json)
		return print_json(t, &c) ? EXIT_ERROR : EXIT_OK;
	printf("%s %s: %llu packets, %llu bytes\n", t->ifname, t->hook_name,
	       c.packets, c.bytes);
	printf("  ecn packets: not-ect %llu ect(1) %llu ect(0) %llu ce %llu\n",
	       c.not_ect, c.ect1, c.ect0, c.ce);
	printf("  rocev2 packets %llu (cnp %llu), uec packets %llu, other %llu\n",
	       c.rocev2, c.rocev2_cnp, c.uec, c.other);
	return EXIT_OK;
}

static int cmd_reset(struct target *t)
{
	int ncpus = libbpf_num_possible_cpus();
	struct ecnstat_counters *zero;
	__u32 key = 0;
	int fd, err;

	fd = open_counters(t);
	if (fd < 0)
		return EXIT_ERROR;
	zero = calloc(ncpus > 0 ? ncpus : 1, sizeof(*zero));
	err = zero ? bpf_map_update_elem(fd, &key, zero, BPF_ANY) : -1;
	if (err)
		error("cannot reset %s: %s", t->pin_path, why(errno));
	free(zero);
	close(fd);
	return err ? EXIT_ERROR : EXIT_OK;
}

int main(int argc, char **argv)
{
	struct target t;
	bool json = false;
	const char *cmd;
	int err;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") ||
	    !strcmp(cmd, "help")) {
		usage(stdout);
		return EXIT_OK;
	}

	err = parse_target(&t, argc - 2, argv + 2,
			   !strcmp(cmd, "show") ? &json : NULL);
	if (err) {
		if (err == -EXIT_USAGE)
			usage(stderr);
		return -err;
	}

	if (!strcmp(cmd, "attach"))
		return cmd_attach(&t);
	if (!strcmp(cmd, "detach"))
		return cmd_detach(&t);
	if (!strcmp(cmd, "show"))
		return cmd_show(&t, json);
	if (!strcmp(cmd, "reset"))
		return cmd_reset(&t);

	error("unknown command '%s'", cmd);
	usage(stderr);
	return EXIT_USAGE;
}
