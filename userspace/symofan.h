/* SPDX-License-Identifier: GPL-2.0 */
/*
 * symofan.h - what the parts of the agent share: the command table, the
 * option parser of the simple commands, exit codes and the pin-folder
 * helpers (symofan.c), and the tables of each datapath's commands.
 */
#ifndef _SYMOFAN_H
#define _SYMOFAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

#include "ofan_config.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#endif

enum exit_code {
	EXIT_OK = 0,
	EXIT_ERROR = 1,
	EXIT_USAGE = 2,
};

struct command {
	const char		*name;
	const char		*synopsis;	/* arguments after the name */
	const char		*help;		/* what it does, one line */
	const char		*details;	/* printed by --help, or NULL */
	void			(*print_details)(FILE *f);	/* more, or NULL */
	int			(*run)(const struct command *cmd, int argc,
				       char **argv);
	const struct command	*sub;		/* or a table of subcommands */
};

/* "symofan ofan": the words before the command being run */
extern const char *cmd_path;

void usage_cmd(FILE *f, const struct command *cmd);

/* Options of the simple commands; positional arguments in order. */
struct opts {
	const char	*pin_dir;
	bool		json;
	bool		force;
	int		nr_args;
	char		*args[4];
};

enum opt_flags {
	OPT_PIN_DIR	= 0x1,
	OPT_JSON	= 0x2,
	OPT_FORCE	= 0x4,
};

/*
 * Parses argv[1..] (argv[0] is the command) into @o; returns 0 to go on,
 * 1 after printing the help, -1 after a usage error.
 */
int parse_opts(const struct command *cmd, int argc, char **argv,
	       unsigned int allowed, int nr_args, struct opts *o);
/* parse_opts()'s return value as an exit code, or -1 to go on */
int opts_exit(int ret);

void pin_path(char *buf, size_t size, const char *dir, const char *name);
bool on_bpffs(const char *path);
/* The deepest existing ancestor of @dir (or itself) must be on bpffs. */
int check_bpffs(const char *dir);
int mkdir_p(const char *path);
/* An exclusive lock on the pin folder against concurrent agents. */
int lock_dir(const char *dir);

/*
 * The agent's own map in the pin folder: what a later load, unload, status
 * or daemon must know of the last load.
 */
#define SYMOFAN_STATE_PIN	"symofan_state"
#define SYMOFAN_STATE_MAGIC	0x4f46414e	/* "OFAN" */
#define SYMOFAN_STATE_VERSION	1
#define SYMOFAN_F_RR_INIT	0x1	/* ofan_rr initialised */

#define PTR_INIT_WORDS		(OFAN_MAX_PIPES * OFAN_MAX_KEYS / 64)

struct symofan_link {
	__u32	ifindex;
	__u32	pipe;			/* downlinks */
	char	ifname[IFNAMSIZ];
};

/*
 * The value of the agent's own map, SYMOFAN_STATE_PIN in the pin folder
 * (a one-entry array created by the agent, not by the BPF object).  bpffs
 * holds no regular files, so this is where the agent keeps what it must
 * remember.
 */
struct symofan_state {
	__u32			magic;
	__u32			version;
	__u64			netns_dev;	/* namespace of the interfaces */
	__u64			netns_ino;
	__u32			flags;		/* SYMOFAN_F_* */
	__u32			role;		/* enum ofan_role */
	__u32			nr_uplinks;
	__u32			nr_downlinks;
	char			config[256];	/* file of the last load */
	struct symofan_link	uplinks[OFAN_MAX_W];
	struct symofan_link	downlinks[OFAN_CONF_MAX_DOWNLINKS];
	/* bit pipe * OFAN_MAX_KEYS + key: that key's pointers of that pipe
	 * were given their random start and must be kept across reloads
	 */
	__u64			ptr_init[PTR_INIT_WORDS];
};

/*
 * Opens the map pinned as DIR/NAME and checks its value size; returns the
 * fd, or -1 after an error message (quietly when @optional and absent).
 */
int open_pinned(const char *dir, const char *name, __u32 value_size,
		bool optional);
/* Reads the agent's state of @dir into @st: its fd, -1 if absent, -2 bad. */
int read_state(const char *dir, struct symofan_state *st);
/* The device and inode of this process's network namespace. */
int netns_id(__u64 *dev, __u64 *ino);

/* symofan_daemon.c: "symofan daemon" */
int cmd_daemon(const struct command *cmd, int argc, char **argv);

/* @s as a JSON string, quoted and escaped, on stdout */
void json_string(const char *s);

/* symofan_jobs.c: "symofan job ..." */
extern const struct command job_commands[];

#endif /* _SYMOFAN_H */
