// SPDX-License-Identifier: GPL-2.0
/*
 * tcg_insns.c - a QEMU TCG plugin that counts the guest instructions
 * each guest function executes, for bench/tcg_insns.sh.
 *
 * Every translation block gets an inline counter of its executions.  At
 * exit the plugin maps each block's start address to the guest's text
 * symbol below it (from a copy of the guest's /proc/kallsyms, which the
 * guest writes before it powers off) and prints, per symbol, the guest
 * instructions and the block executions:
 *
 *	symbol<TAB>instructions<TAB>block_executions
 *
 * Arguments: out=FILE (default stdout), syms=FILE (the kallsyms copy).
 * The inline counters are not atomic: two vCPUs running the same block
 * at once may lose counts, so pin the measured work to one vCPU.
 *
 * Built against the plugin ABI of Debian 12's QEMU 7.2 (plugin API
 * version 1): qemu_plugin_v1.h declares the few entry points it uses, as
 * Debian ships no qemu-plugin.h.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu_plugin_v1.h"

#define TCG_INSNS_EXPORT	__attribute__((visibility("default")))

TCG_INSNS_EXPORT int qemu_plugin_version = 1;

/* --- counting --------------------------------------------------------- */

/* One translation of a block; a block may be translated more than once. */
struct tb_count {
	uint64_t	vaddr;
	uint64_t	insns;		/* instructions in the block */
	uint64_t	execs;		/* executions, counted inline */
	struct tb_count	*next;
};

struct guest_symbol {
	uint64_t	addr;
	char		*name;
	uint64_t	insns;
	uint64_t	execs;
};

static struct tb_count *tb_counts;
static pthread_mutex_t tb_counts_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *out_path;
static const char *syms_path;

static void tb_translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	struct tb_count *c = calloc(1, sizeof(*c));

	(void)id;
	if (!c)
		return;		/* that block goes uncounted */
	c->vaddr = qemu_plugin_tb_vaddr(tb);
	c->insns = qemu_plugin_tb_n_insns(tb);
	pthread_mutex_lock(&tb_counts_lock);
	c->next = tb_counts;
	tb_counts = c;
	pthread_mutex_unlock(&tb_counts_lock);
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &c->execs, 1);
}

static int symbol_cmp(const void *a, const void *b)
{
	const struct guest_symbol *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Text symbols of a kallsyms copy, sorted by address; NULL if none. */
static struct guest_symbol *load_symbols(const char *path, size_t *count)
{
	struct guest_symbol *syms = NULL, *grown;
	size_t n = 0, cap = 0;
	char line[512], name[256], type;
	uint64_t addr;
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNx64 " %c %255s", &addr, &type, name) != 3 ||
		    (type != 't' && type != 'T'))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 65536;
			grown = realloc(syms, cap * sizeof(*syms));
			if (!grown)
				break;
			syms = grown;
		}
		syms[n].addr = addr;
		syms[n].name = strdup(name);
		syms[n].insns = 0;
		syms[n].execs = 0;
		if (syms[n].name)
			n++;
	}
	fclose(f);
	qsort(syms, n, sizeof(*syms), symbol_cmp);
	*count = n;
	return syms;
}

/* The symbol at or below @addr, or NULL. */
static struct guest_symbol *symbol_of(struct guest_symbol *syms, size_t n,
				      uint64_t addr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &syms[lo - 1] : NULL;
}

static void report(qemu_plugin_id_t id, void *userdata)
{
	uint64_t other_insns = 0, other_execs = 0;
	struct guest_symbol *syms, *s;
	struct tb_count *c;
	size_t n = 0, i;
	FILE *out = stdout;

	(void)id;
	(void)userdata;
	syms = syms_path ? load_symbols(syms_path, &n) : NULL;
	if (out_path) {
		out = fopen(out_path, "w");
		if (!out) {
			perror(out_path);
			return;
		}
	}
	for (c = tb_counts; c; c = c->next) {
		s = syms ? symbol_of(syms, n, c->vaddr) : NULL;
		if (s) {
			s->insns += c->insns * c->execs;
			s->execs += c->execs;
		} else {
			other_insns += c->insns * c->execs;
			other_execs += c->execs;
		}
	}
	for (i = 0; i < n; i++)
		if (syms[i].execs)
			fprintf(out, "%s\t%" PRIu64 "\t%" PRIu64 "\n",
				syms[i].name, syms[i].insns, syms[i].execs);
	fprintf(out, "[unknown]\t%" PRIu64 "\t%" PRIu64 "\n", other_insns,
		other_execs);
	if (out != stdout)
		fclose(out);
}

TCG_INSNS_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					 const struct qemu_info_t *info,
					 int argc, char **argv)
{
	int i;

	(void)info;
	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			out_path = argv[i] + 4;
		} else if (!strncmp(argv[i], "syms=", 5)) {
			syms_path = argv[i] + 5;
		} else {
			fprintf(stderr, "tcg_insns: unknown argument '%s'\n",
				argv[i]);
			return -1;
		}
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_translated);
	qemu_plugin_register_atexit_cb(id, report, NULL);
	return 0;
}
