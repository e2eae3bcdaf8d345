// SPDX-License-Identifier: GPL-2.0
/*
 * command.c - the agent's command framework: usage text of a command and
 * of a table, dispatch down the tables to the command named, and the one
 * option parser of every command (getopt_long over the options of all of
 * them; each command accepts those of its mask).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "bpffs.h"
#include "command.h"
#include "tool_util.h"

/* ---- usage and dispatch --------------------------------------------- */

static void usage_table(FILE *f, const char *path, const struct command *table)
{
	const struct command *c;

	fprintf(f, "Usage: %s COMMAND [ARGS]\n", path);
	for (c = table; c->name; c++)
		fprintf(f, "  %s %s %s\n      %s\n", path, c->name, c->synopsis,
			c->help);
	fprintf(f, "'%s COMMAND --help' describes a command.\n", path);
}

const char *cmd_path = "symofan";

void usage_cmd(FILE *f, const struct command *cmd)
{
	fprintf(f, "Usage: %s %s %s\n  %s\n", cmd_path, cmd->name,
		cmd->synopsis, cmd->help);
	if (cmd->details)
		fputs(cmd->details, f);
	if (cmd->print_details)
		cmd->print_details(f);
}

static bool is_help(const char *a)
{
	return !strcmp(a, "-h") || !strcmp(a, "--help") || !strcmp(a, "help");
}

int dispatch(const struct command *table, const char *path, int argc,
	     char **argv)
{
	const struct command *c;
	char sub[64];

	if (argc < 1) {
		usage_table(stderr, path, table);
		return EXIT_USAGE;
	}
	if (is_help(argv[0])) {
		usage_table(stdout, path, table);
		return EXIT_OK;
	}
	for (c = table; c->name; c++) {
		if (strcmp(c->name, argv[0]))
			continue;
		if (c->sub) {
			snprintf(sub, sizeof(sub), "%s %s", path, c->name);
			return dispatch(c->sub, sub, argc - 1, argv + 1);
		}
		cmd_path = path;
		return c->run(c, argc, argv);
	}
	error("unknown command '%s'", argv[0]);
	usage_table(stderr, path, table);
	return EXIT_USAGE;
}

/* ---- options -------------------------------------------------------- */

/* Every option of every command. */
static const struct opt_def {
	const char	*name;
	int		has_arg;
	int		key;	/* getopt's value; the short form, if any */
	unsigned int	flag;	/* OPT_*; 0: every command's (--help) */
} opt_defs[] = {
	{ "help",	no_argument,		'h', 0 },
	{ "pin-dir",	required_argument,	'p', OPT_PIN_DIR },
	{ "json",	no_argument,		'j', OPT_JSON },
	{ "force",	no_argument,		'f', OPT_FORCE },
	{ "once",	no_argument,		'o', OPT_ONCE },
	{ "verbose",	no_argument,		'v', OPT_VERBOSE },
	{ "dry-run",	no_argument,		'D', OPT_DRY_RUN },
	/* read by the group's value() */
	{ "id",		required_argument,	'i', OPT_ID },
	{ "name",	required_argument,	'n', OPT_NAME },
	{ "jobs",	required_argument,	'J', OPT_JOBS },
	{ "k",		required_argument,	'k', OPT_PARAMS },
	{ "tau",	required_argument,	't', OPT_PARAMS },
	{ "warmup",	required_argument,	'w', OPT_PARAMS },
	{ "samples",	required_argument,	's', OPT_PARAMS },
	{ "idle",	required_argument,	'I', OPT_IDLE },
	{ "every",	required_argument,	'e', OPT_IDLE },
};

static const struct opt_def *opt_by_key(int key)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(opt_defs); i++)
		if (opt_defs[i].key == key)
			return &opt_defs[i];
	return NULL;
}

/* @word is option @d in full and alone: "--name", "--name=VALUE", "-c". */
static bool spelled_out(const char *word, const struct opt_def *d,
			bool is_long)
{
	size_t len = strlen(d->name);

	if (!is_long)
		return word[0] == '-' && word[1] == d->key && !word[2];
	return !strncmp(word, "--", 2) && !strncmp(word + 2, d->name, len) &&
	       (!word[len + 2] || (d->has_arg && word[len + 2] == '='));
}

enum opt_problem {
	OPT_UNKNOWN,		/* not the group's, or malformed */
	OPT_NO_VALUE,		/* --pin-dir without its directory */
	OPT_NOT_HERE,		/* the group's, not this command's */
	OPT_EXTRA,		/* a positional argument too many */
};

/* Says what is wrong with @word, in the words of @cmd's group. */
static void opt_problem(const struct command *cmd, enum opt_problem what,
			const char *word)
{
	switch (cmd->style->dialect) {
	case OPT_DIALECT_OFAN:
		if (what == OPT_NO_VALUE)
			error("--pin-dir wants a directory");
		else if (what == OPT_EXTRA)
			error("%s: unexpected argument '%s'", cmd->name, word);
		else
			error("%s: unknown option '%s'", cmd->name, word);
		break;
	case OPT_DIALECT_DAEMON:
		if (what == OPT_NO_VALUE)
			error("%s: '%s' wants a directory", cmd->name, word);
		else if (what == OPT_EXTRA)
			error("%s: unexpected argument '%s'", cmd->name, word);
		else
			error("%s: unknown option '%s'", cmd->name, word);
		break;
	case OPT_DIALECT_JOB:
		if (what == OPT_NOT_HERE)
			error("%s: option '%s' does not apply here", cmd->name,
			      word);
		else if (what == OPT_EXTRA)
			error("%s: unexpected argument '%s'", cmd->name, word);
		else
			error("%s: unknown option or missing value in '%s'",
			      cmd->name, word);
		break;
	}
}

/* Takes positional @arg; false if one too many (the first: *@extra). */
static bool take_arg(struct opts *o, int nr_args, char *arg,
		     const char **extra)
{
	if (o->nr_args < nr_args) {
		o->args[o->nr_args++] = arg;
		return true;
	}
	if (!*extra)
		*extra = arg;
	return false;
}

int parse_opts(const struct command *cmd, int argc, char **argv,
	       unsigned int allowed, int nr_args, struct opts *o)
{
	const struct opt_style *s = cmd->style;
	struct option longopts[ARRAY_SIZE(opt_defs) + 1] = {};
	const char *word, *extra = NULL;
	const struct opt_def *d;
	enum opt_problem what;
	int c, at, li, n = 0;
	char shorts[16], letter[3], option[32];
	size_t i;

	*o = s->defaults;
	for (i = 0; i < ARRAY_SIZE(opt_defs); i++) {
		d = &opt_defs[i];
		if (d->flag && !(s->known & d->flag))
			continue;
		longopts[n].name = d->name;
		longopts[n].has_arg = d->has_arg;
		longopts[n++].val = d->key;
	}
	/*
	 * ":": a missing value as ':'.  The job commands let getopt move
	 * their options before their arguments; the others read the words
	 * in order ("-"), an argument as 1.
	 */
	snprintf(shorts, sizeof(shorts), "%s:%s",
		 s->dialect == OPT_DIALECT_JOB ? "" : "-", s->shorts);
	opterr = 0;
	optind = 1;
	for (;;) {
		at = optind;
		li = -1;
		c = getopt_long(argc, argv, shorts, longopts, &li);
		if (c == -1)
			break;
		if (c == 1) {
			if (!take_arg(o, nr_args, optarg, &extra))
				goto extra;
			continue;
		}
		/*
		 * The word at fault: the ofan commands read their words in
		 * order, so it is the one read; the job commands' getopt
		 * moves arguments, so it is the one before getopt's next,
		 * or, for an unknown letter of a cluster ("-xv"), that
		 * letter.
		 */
		word = s->dialect == OPT_DIALECT_OFAN ? argv[at] :
							argv[optind - 1];
		if (s->dialect != OPT_DIALECT_OFAN && c == '?' && optopt) {
			snprintf(letter, sizeof(letter), "-%c", optopt);
			word = letter;
		}
		if (c == '?' || c == ':') {
			d = opt_by_key(optopt);
			what = OPT_UNKNOWN;
			if (s->dialect == OPT_DIALECT_DAEMON && optopt == 'p')
				what = OPT_NO_VALUE;
			else if (s->dialect == OPT_DIALECT_OFAN && c == ':' &&
				 d && (allowed & d->flag) &&
				 spelled_out(word, d, true))
				what = OPT_NO_VALUE;
			opt_problem(cmd, what, word);
			goto usage;
		}
		d = opt_by_key(c);
		if (s->dialect == OPT_DIALECT_OFAN &&
		    !spelled_out(word, d, li >= 0)) {
			opt_problem(cmd, OPT_UNKNOWN, word);
			goto usage;
		}
		if (c == 'h') {
			usage_cmd(stdout, cmd);
			return 1;
		}
		if (!(allowed & d->flag)) {
			/* named as the option, not a value given apart */
			if (li >= 0)
				snprintf(option, sizeof(option), "--%s", d->name);
			else
				snprintf(option, sizeof(option), "-%c", c);
			opt_problem(cmd, OPT_NOT_HERE, option);
			goto usage;
		}
		switch (c) {
		case 'p':
			o->pin_dir = optarg;
			break;
		case 'j':
			o->json = true;
			break;
		case 'f':
			o->force = true;
			break;
		case 'o':
			o->once = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'D':
			o->dry_run = true;
			break;
		default:
			if (!s->value || s->value(d->name, optarg, o))
				goto usage;
		}
	}
	/* after "--", or moved there by getopt */
	for (; optind < argc; optind++)
		take_arg(o, nr_args, argv[optind], &extra);
	if (extra)
		goto extra;
	if (o->nr_args < nr_args) {
		error("%s: missing arguments", cmd->name);
		goto usage;
	}
	if (check_dir_arg("--pin-dir", o->pin_dir))
		goto usage;
	return 0;
extra:
	opt_problem(cmd, OPT_EXTRA, extra);
usage:
	usage_cmd(stderr, cmd);
	return -1;
}

int opts_exit(int ret)
{
	if (!ret)
		return -1;
	return ret > 0 ? EXIT_OK : EXIT_USAGE;
}
