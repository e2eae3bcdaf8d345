/* SPDX-License-Identifier: GPL-2.0 */
/*
 * command.h - the agent's command framework: tables of commands and
 * subcommands, their usage text, dispatch, and the one option parser that
 * every command reads its command line with.
 */
#ifndef _SYMOFAN_COMMAND_H
#define _SYMOFAN_COMMAND_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

struct opt_style;

struct command {
	const char		*name;
	const char		*synopsis;	/* arguments after the name */
	const char		*help;		/* what it does, one line */
	const char		*details;	/* printed by --help, or NULL */
	void			(*print_details)(FILE *f);	/* more, or NULL */
	int			(*run)(const struct command *cmd, int argc,
				       char **argv);
	const struct command	*sub;		/* or a table of subcommands */
	const struct opt_style	*style;		/* how run() reads options */
};

/* "symofan ofan": the words before the command being run */
extern const char *cmd_path;

void usage_cmd(FILE *f, const struct command *cmd);

/*
 * Runs the command of @table named by argv[0] (argv[0] of a subcommand
 * table is the subcommand's name); @path is what comes before it.
 * Returns the exit code.
 */
int dispatch(const struct command *table, const char *path, int argc,
	     char **argv);

/* The per-job parameters of "symofan job add" and "set". */
enum job_param { PARAM_K, PARAM_TAU, PARAM_WARMUP, PARAM_SAMPLES,
		 NR_JOB_PARAMS };

/* Every option of every command; positional arguments in order. */
struct opts {
	const char	*pin_dir;
	bool		json;
	bool		force;		/* ofan unload */
	bool		once;		/* daemon */
	bool		verbose;
	bool		dry_run;	/* job reclaim */
	bool		has_id;		/* job add --id */
	__u32		id;
	const char	*name;		/* job add --name */
	__u32		nr_jobs;	/* job init, migrate */
	long		idle_s;		/* job reclaim: seconds, -1 unset */
	long		every_s;	/* job reclaim: seconds, 0 once */
	int		nr_params;	/* job parameters given */
	bool		set[NR_JOB_PARAMS];
	__u32		param[NR_JOB_PARAMS];
	int		nr_args;
	char		*args[4];
};

/* The options a command accepts (--help: all of them). */
enum opt_flags {
	OPT_PIN_DIR	= 0x001,	/* --pin-dir DIR */
	OPT_JSON	= 0x002,	/* --json */
	OPT_FORCE	= 0x004,	/* --force */
	OPT_ONCE	= 0x008,	/* --once */
	OPT_VERBOSE	= 0x010,	/* --verbose */
	OPT_DRY_RUN	= 0x020,	/* --dry-run */
	OPT_ID		= 0x040,	/* --id ID */
	OPT_NAME	= 0x080,	/* --name NAME */
	OPT_JOBS	= 0x100,	/* --jobs N */
	OPT_PARAMS	= 0x200,	/* --k, --tau, --warmup, --samples */
	OPT_IDLE	= 0x400,	/* --idle, --every */
};

/*
 * How a group of commands matches options and words its complaints.  The
 * groups were written with parsers of their own, and scripts read their
 * messages; each keeps its ways.
 */
enum opt_dialect {
	/* "ofan": options in full (no --js, no -hx), read left to right */
	OPT_DIALECT_OFAN,
	/* "daemon": getopt_long's abbreviations, read left to right */
	OPT_DIALECT_DAEMON,
	/* "job": getopt_long's, options also after the arguments */
	OPT_DIALECT_JOB,
};

struct opt_style {
	enum opt_dialect	dialect;
	unsigned int		known;		/* OPT_* of the group */
	const char		*shorts;	/* its one-letter options */
	struct opts		defaults;	/* of the options not given */
	/*
	 * Reads the value @arg of option --@name (those of OPT_ID and up)
	 * into @o: 0, or -1 after an error message.
	 */
	int			(*value)(const char *name, const char *arg,
					 struct opts *o);
};

/*
 * Parses argv[1..] (argv[0] is the command) into @o: the options of
 * @allowed and @nr_args positional arguments, in the style of
 * @cmd->style.  Returns 0 to go on, 1 after printing the help, -1 after
 * a usage error.
 */
int parse_opts(const struct command *cmd, int argc, char **argv,
	       unsigned int allowed, int nr_args, struct opts *o);
/* parse_opts()'s return value as an exit code, or -1 to go on */
int opts_exit(int ret);

#endif /* _SYMOFAN_COMMAND_H */
