// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - the project's userspace agent: one program, subcommands per
 * datapath.  "symofan ofan ..." loads the Ofan tc-BPF load balancer
 * (bpf/ofan.bpf.c) from a switch description (userspace/ofan.conf.5.md),
 * pins its maps, attaches it to the clsact ingress of the downlinks, and
 * reads or changes its state at run time; "symofan daemon" keeps its
 * valid ports in step with the kernel's routes; "symofan job ..." keeps
 * the Symphony job registry that symphony qdiscs share.
 *
 *	symofan ofan load CONFIG
 *	symofan ofan unload   [--pin-dir DIR] [--force]
 *	symofan ofan status   [--pin-dir DIR] [--json]
 *	symofan ofan set-mode MODE [--pin-dir DIR]
 *	symofan ofan port INDEX up|down [--pin-dir DIR]
 *	symofan daemon [--pin-dir DIR] [--once] [--verbose]
 *	symofan job init|add|set|del|list|show|reclaim|migrate ...
 *	symofan symphony attach|detach|status ...
 *
 * This file holds the command tables and main(); the layers below it:
 * ofan_*.c and daemon*.c (Ofan), jobs.c (Symphony), then state.c,
 * job_registry.c and ofan_config.c, then command.c, then userspace/lib.
 */
#include <bpf/libbpf.h>

#include "command.h"
#include "jobs.h"
#include "ofan.h"
#include "symphony_cmd.h"
#include "tool_util.h"

const char *tool_name = "symofan";

/* How "symofan ofan ..." reads its options. */
static const struct opt_style ofan_style = {
	.dialect	= OPT_DIALECT_OFAN,
	.known		= OPT_PIN_DIR | OPT_JSON | OPT_FORCE,
	.shorts		= "h",
	.defaults	= { .pin_dir = OFAN_CONF_PIN_DIR },
};

/* How "symofan daemon" reads its options. */
static const struct opt_style daemon_style = {
	.dialect	= OPT_DIALECT_DAEMON,
	.known		= OPT_PIN_DIR | OPT_ONCE | OPT_VERBOSE,
	.shorts		= "hv",
	.defaults	= { .pin_dir = OFAN_CONF_PIN_DIR },
};

static const struct command ofan_commands[] = {
	{
		.name = "load", .synopsis = "CONFIG",
		.help = "validate CONFIG, fill and pin the maps, attach to the downlinks (reload: keep pointers)",
		.details =
		"  CONFIG is described in ofan.conf(5) (userspace/ofan.conf.5.md).  Any\n"
		"  error in it is reported as CONFIG:LINE: reason, exit status 2, and\n"
		"  nothing is changed.  A load over a loaded pin folder reuses its maps:\n"
		"  counters and the pointers of keys still declared are kept.\n",
		.run = cmd_ofan_load,
		.style = &ofan_style,
	},
	{
		.name = "unload", .synopsis = "[--pin-dir DIR] [--force]",
		.help = "detach from the downlinks recorded at load and remove the pins",
		.details =
		"  Run it in the network namespace of the load.  --force removes the\n"
		"  pins even when the program cannot be detached from there.\n",
		.run = cmd_ofan_unload,
		.style = &ofan_style,
	},
	{
		.name = "status", .synopsis = "[--pin-dir DIR] [--json]",
		.help = "print mode, ports, keys, pointers and counters",
		.run = cmd_ofan_status,
		.style = &ofan_style,
	},
	{
		.name = "set-mode", .synopsis = OFAN_MODE_CHOICES " [--pin-dir DIR]",
		.help = "change the load-balancing mode at run time",
		.run = cmd_ofan_set_mode,
		.style = &ofan_style,
	},
	{
		.name = "port", .synopsis = "INDEX up|down [--pin-dir DIR]",
		.help = "mark uplink INDEX up or down for the datapath",
		.run = cmd_ofan_port,
		.style = &ofan_style,
	},
	{ }
};

static const struct command top_commands[] = {
	{
		.name = "ofan", .synopsis = "COMMAND [ARGS]",
		.help = "Ofan load balancing of a fat-tree switch's northbound packets (tc-BPF)",
		.sub = ofan_commands,
	},
	{
		.name = "job", .synopsis = "COMMAND [ARGS]",
		.help = "Symphony job registry: the jobs map that symphony qdiscs and programs share",
		.sub = job_commands,
	},
	{
		.name = "symphony", .synopsis = "COMMAND [ARGS]",
		.help = "Symphony as tc-BPF on switch ports, for kernels without sch_symphony",
		.sub = symphony_commands,
	},
	{
		.name = "daemon", .synopsis = "[--pin-dir DIR] [--once] [--verbose]",
		.help = "follow links and routes over rtnetlink: uplink state and each key's valid ports",
		.details =
		"  Run it in the network namespace of the load.  An uplink is up while\n"
		"  its link is IFF_UP and IFF_RUNNING; a key's valid ports are the\n"
		"  uplinks whose next hop (gateway and device) the kernel's main-table\n"
		"  route of each of its prefixes holds (exact prefix, else the longest\n"
		"  covering route), intersected over its prefixes and with its listed\n"
		"  ports.  A key without any route keeps its configured ports; local\n"
		"  keys are not touched.  Only changed entries are written, pointers\n"
		"  and counters never.  --once syncs and exits; SIGHUP re-reads the\n"
		"  config; SIGTERM or SIGINT exits, leaving the maps as they are.\n",
		.run = cmd_daemon,
		.style = &daemon_style,
	},
	{ }
};

int main(int argc, char **argv)
{
	libbpf_set_print(libbpf_quiet);
	return dispatch(top_commands, "symofan", argc - 1, argv + 1);
}
