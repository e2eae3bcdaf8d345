// SPDX-License-Identifier: GPL-2.0
/*
 * tc_symphony_man.c - writes tc-symphony(8) from its template
 * (man/tc-symphony.8.in), filling the lines "@PARAMETERS@" and "@XSTATS@"
 * from the parameter and statistics tables of
 * include/symphony/symphony_params.h, so that the page says what the
 * plugin and the kernel do: every option with its value, unit, range and
 * default, every statistic with its tc -s and tc -s -j form.  A build
 * tool: "tc_symphony_man TEMPLATE > tc-symphony.8".
 */
#include <stdio.h>
#include <string.h>
#include <linux/pkt_sched.h>

#include "symphony_param.h"

/* @text as roff text: backslashes escaped, a leading control character
 * made literal.
 */
static void roff(const char *text)
{
	if (*text == '.' || *text == '\'')
		fputs("\\&", stdout);
	for (; *text; text++) {
		if (*text == '\\')
			fputs("\\e", stdout);
		else
			putchar(*text);
	}
}

/* How a value of @kind is written on tc's command line. */
static const char *kind_reading(enum symphony_param_kind kind)
{
	switch (kind) {
	case SYMPHONY_KIND_BYTES:
		return "a size as tc reads it (50kb, 1mb, 1500b); shown in bytes";
	case SYMPHONY_KIND_US:
		return "a time as tc reads it (100us, 1ms); shown in microseconds";
	case SYMPHONY_KIND_PPM:
		return "a decimal fraction (0.25), kept in parts per million (ppm)";
	case SYMPHONY_KIND_PACKETS:
		return "a number of packets";
	case SYMPHONY_KIND_ENUM:
		return "a name";
	default:
		return "a whole number";
	}
}

static void print_parameters(void)
{
	char range[160], dflt[32];
	int i;

	for (i = 0; i < symphony_params_nr; i++) {
		const struct symphony_param *p = &symphony_params[i];

		symphony_param_range_text(p, 0, range, sizeof(range));
		symphony_param_value_text(p, p->dflt, dflt, sizeof(dflt));
		printf(".TP\n.BI %s \" %s\"\n", p->keyword,
		       symphony_param_metavar(p->kind));
		roff(p->help);
		printf(".\n");
		printf("%c%s.\n", kind_reading(p->kind)[0] - 'a' + 'A',
		       kind_reading(p->kind) + 1);
		printf(p->kind == SYMPHONY_KIND_ENUM ? "One of " : "Range ");
		roff(range);
		printf(", default \\fB%s\\fR", dflt);
		if (p->flags & SYMPHONY_PARAM_HIDE_ZERO)
			printf(" (not shown while 0)");
		printf("; \\fBtc -j\\fR key \\fB%s\\fR.\n", p->json_key);
		if (p->flags & SYMPHONY_PARAM_PER_JOB)
			printf("A job may override it: \\fBsymofan job add\\fR|\\fBset --%s\\fR.\n",
			       p->keyword);
	}
}

/* The labels without their leading blanks: "marks: red ". */
static const char *label_text(const char *label)
{
	return label + strspn(label, " ");
}

static void print_xstats(void)
{
	int i;

	printf(".PP\n\\fBtc -s qdisc show\\fR prints, below the standard counters:\n");
	printf(".PP\n.nf\n.RS\n");
	for (i = 0; i < symphony_xstats_nr; i++) {
		const struct symphony_xstat *x = &symphony_xstats[i];

		if (x->new_line)
			printf("\n");
		printf("%s\\fIN\\fR%s", x->label, x->suffix);
	}
	printf("\n.RE\n.fi\n.PP\n");
	printf("and \\fBtc -s -j\\fR the same numbers under these keys:\n");
	for (i = 0; i < symphony_xstats_nr; i++) {
		const struct symphony_xstat *x = &symphony_xstats[i];
		const char *label = label_text(x->label);

		printf(".TP\n.B %s\n", x->json_key);
		roff(x->help);
		printf(" (tc -s: ");
		roff(*label ? label : "after the previous, ");
		printf("N%s).\n", x->suffix);
	}
}

int main(int argc, char **argv)
{
	char line[1024];
	FILE *in;

	if (argc != 2) {
		fprintf(stderr, "usage: tc_symphony_man TEMPLATE > tc-symphony.8\n");
		return 2;
	}
	in = fopen(argv[1], "r");
	if (!in) {
		perror(argv[1]);
		return 1;
	}
	while (fgets(line, sizeof(line), in)) {
		if (strcmp(line, "@PARAMETERS@\n") == 0)
			print_parameters();
		else if (strcmp(line, "@XSTATS@\n") == 0)
			print_xstats();
		else
			fputs(line, stdout);
	}
	fclose(in);
	return ferror(stdout) ? 1 : 0;
}
