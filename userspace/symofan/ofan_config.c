// SPDX-License-Identifier: GPL-2.0
/*
 * ofan_config.c - parser and validator of the Ofan switch description
 * read by "symofan ofan load" (format: userspace/ofan.conf.5.md).  Every
 * error is reported as "FILE:LINE: reason"; the whole file is checked
 * before the caller touches anything, and the first OFAN_CONF_MAX_ERRORS
 * errors are printed in line order, those found by whole-file checks
 * among those of single lines.
 * One directive, one function (the table near the end); the file is the
 * format's whole grammar and its checks, so it stays one unit.
 */
#define _GNU_SOURCE		/* vasprintf() */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "ofan_config.h"
#include "parse.h"

#define OFAN_CONF_MAX_TOKENS	10
#define OFAN_CONF_MAX_ERRORS	20

#define __maybe_unused		__attribute__((__unused__))

/* An error, kept until the whole file is read. */
struct conf_msg {
	unsigned int		line;
	unsigned int		seq;	/* order found, within a line */
	char			*text;
};

/* The state of one parse: where we are and what was seen only once. */
struct parser {
	struct ofan_conf	*conf;
	FILE			*err;
	struct conf_msg		*msgs;
	unsigned int		nr_msgs, cap_msgs;
	unsigned int		line;
	unsigned int		errors;
	unsigned int		role_line, mode_line, ack_line, pin_line;
	unsigned int		fast_line, seed_line, ar_buffer_line;
	unsigned int		downlink_line;	/* last, even if wrong */
	__u32			nr_prefixes[2];	/* IPv4, IPv6 */
	__u32			max_prefixes;	/* allocated */
};

static void __attribute__((format(printf, 3, 4)))
conf_error(struct parser *p, unsigned int line, const char *fmt, ...)
{
	struct conf_msg *m;
	va_list ap;
	char *text;
	int len;

	p->errors++;
	va_start(ap, fmt);
	len = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (len < 0)
		return;
	if (p->nr_msgs == p->cap_msgs) {
		unsigned int cap = p->cap_msgs ? 2 * p->cap_msgs : 32;

		m = realloc(p->msgs, cap * sizeof(*m));
		if (!m) {
			fprintf(p->err, "%s:%u: %s\n", p->conf->path, line, text);
			free(text);
			return;
		}
		p->msgs = m;
		p->cap_msgs = cap;
	}
	m = &p->msgs[p->nr_msgs];
	m->line = line;
	m->seq = p->nr_msgs++;
	m->text = text;
}

static int cmp_msg(const void *a, const void *b)
{
	const struct conf_msg *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Prints the first OFAN_CONF_MAX_ERRORS errors by line, then the count. */
static void print_errors(struct parser *p)
{
	unsigned int i;

	qsort(p->msgs, p->nr_msgs, sizeof(*p->msgs), cmp_msg);
	for (i = 0; i < p->nr_msgs; i++) {
		if (i < OFAN_CONF_MAX_ERRORS)
			fprintf(p->err, "%s:%u: %s\n", p->conf->path,
				p->msgs[i].line, p->msgs[i].text);
		free(p->msgs[i].text);
	}
	free(p->msgs);
	p->msgs = NULL;
	if (p->errors > OFAN_CONF_MAX_ERRORS)
		fprintf(p->err, "%s: %u more errors\n", p->conf->path,
			p->errors - OFAN_CONF_MAX_ERRORS);
}

/* ADDR/LEN of either family, host bits clear; @addr 16 bytes. */
static int parse_cidr(const char *s, __u32 *family, __u8 *addr, __u32 *len,
		      const char **why)
{
	char buf[INET6_ADDRSTRLEN + 8];
	__u32 max, i;
	char *slash;

	*why = "expected ADDRESS/LENGTH";
	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	slash = strchr(buf, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	memset(addr, 0, 16);
	*why = "bad address";
	if (inet_pton(AF_INET, buf, addr) == 1) {
		*family = AF_INET;
		max = 32;
	} else if (inet_pton(AF_INET6, buf, addr) == 1) {
		*family = AF_INET6;
		max = 128;
	} else {
		return -1;
	}
	*why = "bad prefix length";
	if (parse_u32(slash + 1, 0, max, len) || (slash[1] == '0' && slash[2]))
		return -1;
	*why = "host bits set after the prefix length";
	for (i = *len; i < max; i++)
		if (addr[i / 8] & (0x80 >> (i % 8)))
			return -1;
	return 0;
}

static bool interface_in_use(struct parser *p, const char *ifname)
{
	struct ofan_conf *c = p->conf;
	__u32 i;

	for (i = 0; i < OFAN_MAX_W; i++) {
		if (c->uplinks[i].line && !strcmp(c->uplinks[i].ifname, ifname)) {
			conf_error(p, p->line, "interface '%s' is already uplink %u (line %u)",
				   ifname, i, c->uplinks[i].line);
			return true;
		}
	}
	for (i = 0; i < c->nr_downlinks; i++) {
		if (!strcmp(c->downlinks[i].ifname, ifname)) {
			conf_error(p, p->line, "interface '%s' is already a downlink (line %u)",
				   ifname, c->downlinks[i].line);
			return true;
		}
	}
	return false;
}

/* Checks IFNAME and looks it up in this network namespace; 0 on error. */
static __u32 lookup_interface(struct parser *p, const char *ifname)
{
	__u32 ifindex;

	if (strlen(ifname) >= IFNAMSIZ) {
		conf_error(p, p->line, "interface name '%s' longer than %d characters",
			   ifname, IFNAMSIZ - 1);
		return 0;
	}
	if (interface_in_use(p, ifname))
		return 0;
	ifindex = if_nametoindex(ifname);
	if (!ifindex)
		conf_error(p, p->line, "unknown interface '%s' (not in this network namespace)",
			   ifname);
	return ifindex;
}

/* A directive seen once only: false (after an error) when seen before. */
static bool first_time(struct parser *p, unsigned int *seen, const char *what)
{
	if (*seen) {
		conf_error(p, p->line, "duplicate '%s' (first on line %u)", what,
			   *seen);
		return false;
	}
	*seen = p->line;
	return true;
}

static void do_role(struct parser *p, char **tok, int n __maybe_unused)
{
	if (!first_time(p, &p->role_line, "role"))
		return;
	if (!strcmp(tok[1], "edge"))
		p->conf->role = OFAN_ROLE_EDGE;
	else if (!strcmp(tok[1], "aggregation"))
		p->conf->role = OFAN_ROLE_AGGREGATION;
	else
		conf_error(p, p->line, "unknown role '%s' (edge or aggregation)",
			   tok[1]);
}

static void do_mode(struct parser *p, char **tok, int n __maybe_unused)
{
	int mode;

	if (!first_time(p, &p->mode_line, "mode"))
		return;
	mode = ofan_mode_by_name(tok[1]);
	if (mode < 0)
		conf_error(p, p->line, "unknown mode '%s' (" OFAN_MODE_LIST ")",
			   tok[1]);
	else
		p->conf->mode = mode;
}

static void do_ack_max_bytes(struct parser *p, char **tok, int n __maybe_unused)
{
	if (!first_time(p, &p->ack_line, "ack-max-bytes"))
		return;
	if (parse_u32(tok[1], 0, 0xffffffffU, &p->conf->ack_max_bytes))
		conf_error(p, p->line, "bad byte count '%s'", tok[1]);
}

static void do_pin_dir(struct parser *p, char **tok, int n __maybe_unused)
{
	struct ofan_conf *c = p->conf;
	size_t len = strlen(tok[1]);

	if (!first_time(p, &p->pin_line, "pin-dir"))
		return;
	while (len > 1 && tok[1][len - 1] == '/')
		tok[1][--len] = '\0';
	if (tok[1][0] != '/' || len < 2)
		conf_error(p, p->line, "pin-dir '%s' is not an absolute path below /",
			   tok[1]);
	else if (len > OFAN_CONF_PIN_DIR_MAX)
		conf_error(p, p->line, "pin-dir longer than %d characters",
			   OFAN_CONF_PIN_DIR_MAX);
	else
		strcpy(c->pin_dir, tok[1]);
}

/* Next hop @text into @u: its family's slot, which must still be free. */
static void uplink_nexthop(struct parser *p, struct ofan_conf_uplink *u,
			   const char *text)
{
	bool v4 = strchr(text, ':') == NULL;
	__u32 flag = v4 ? OFAN_PORT_F_NH4 : OFAN_PORT_F_NH6;
	__u8 *slot = v4 ? u->nh4 : u->nh6;
	__u8 addr[16];

	if (inet_pton(v4 ? AF_INET : AF_INET6, text, addr) != 1) {
		conf_error(p, p->line, "bad next-hop address '%s'", text);
		return;
	}
	if (u->nh_flags & flag) {
		conf_error(p, p->line, "a second IPv%d next hop '%s': one per family",
			   v4 ? 4 : 6, text);
		return;
	}
	memcpy(slot, addr, v4 ? 4 : 16);
	u->nh_flags |= flag;
}

#define UPLINK_SYNTAX	"uplink INDEX dev IFNAME via NEXTHOP [via NEXTHOP] [rate RATE]"

/* "rate RATE" of an uplink: bit/s in tc's words, within the bounds the
 * datapath's fixed point keeps its precision in.
 */
static void uplink_rate(struct parser *p, struct ofan_conf_uplink *u,
			const char *text)
{
	__u64 rate;

	if (u->rate_bps) {
		conf_error(p, p->line, "a second rate '%s': one per uplink", text);
		return;
	}
	if (parse_rate(text, &rate)) {
		conf_error(p, p->line, "bad rate '%s' (bit/s: a number with bit, kbit, mbit or gbit)",
			   text);
		return;
	}
	if (rate < OFAN_AR_RATE_MIN || rate > OFAN_AR_RATE_MAX) {
		conf_error(p, p->line, "rate '%s' out of range 10kbit..1600gbit",
			   text);
		return;
	}
	u->rate_bps = rate;
}

static void do_uplink(struct parser *p, char **tok, int n)
{
	struct ofan_conf *c = p->conf;
	struct ofan_conf_uplink *u;
	__u32 idx, ifindex;
	int i, vias = 0;

	if (strcmp(tok[2], "dev") || n % 2) {
		conf_error(p, p->line, "expected '" UPLINK_SYNTAX "'");
		return;
	}
	/* after dev IFNAME: "via" once or twice, "rate" at most once */
	for (i = 4; i < n; i += 2) {
		if (!strcmp(tok[i], "via")) {
			vias++;
		} else if (strcmp(tok[i], "rate")) {
			conf_error(p, p->line, "unknown word '%s' (expected '" UPLINK_SYNTAX "')",
				   tok[i]);
			return;
		}
	}
	if (!vias || vias > 2) {
		conf_error(p, p->line, "expected '" UPLINK_SYNTAX "'");
		return;
	}
	if (parse_u32(tok[1], 0, 0xffffffffU, &idx)) {
		conf_error(p, p->line, "bad uplink index '%s'", tok[1]);
		return;
	}
	if (idx >= OFAN_MAX_W) {
		conf_error(p, p->line, "uplink index %u out of range 0..%d (at most %d uplinks)",
			   idx, OFAN_MAX_W - 1, OFAN_MAX_W);
		return;
	}
	u = &c->uplinks[idx];
	if (u->line) {
		conf_error(p, p->line, "duplicate uplink %u (first on line %u)",
			   idx, u->line);
		return;
	}
	/* declared even when wrong below: no cascade of "gap" errors */
	u->line = p->line;
	ifindex = lookup_interface(p, tok[3]);
	if (!ifindex)
		return;
	for (i = 4; i < n; i += 2) {
		if (!strcmp(tok[i], "via"))
			uplink_nexthop(p, u, tok[i + 1]);
		else
			uplink_rate(p, u, tok[i + 1]);
	}
	u->ifindex = ifindex;
	strcpy(u->ifname, tok[3]);
}

/* "ar-buffer SIZE": the port buffer of ar's classes, bytes */
static void do_ar_buffer(struct parser *p, char **tok, int n __maybe_unused)
{
	__u64 bytes;

	if (!first_time(p, &p->ar_buffer_line, "ar-buffer"))
		return;
	if (parse_size(tok[1], &bytes) || bytes < OFAN_AR_BUFFER_MIN ||
	    bytes > OFAN_AR_BUFFER_MAX) {
		conf_error(p, p->line, "bad buffer size '%s' (bytes, with k, m or g for KiB, MiB, GiB: %llu..1g)",
			   tok[1], OFAN_AR_BUFFER_MIN);
		return;
	}
	p->conf->ar_buffer_bytes = bytes;
}

static void do_downlink(struct parser *p, char **tok, int n)
{
	struct ofan_conf *c = p->conf;
	struct ofan_conf_downlink *d;
	__u32 pipe = 0, ifindex;

	p->downlink_line = p->line;
	if (strcmp(tok[1], "dev") || (n == 5 && strcmp(tok[3], "pipe")) ||
	    n == 4) {
		conf_error(p, p->line, "expected 'downlink dev IFNAME [pipe N]'");
		return;
	}
	if (n == 5 && (parse_u32(tok[4], 0, 0xffffffffU, &pipe) ||
		       pipe >= OFAN_MAX_PIPES)) {
		conf_error(p, p->line, "pipe '%s' out of range 0..%d", tok[4],
			   OFAN_MAX_PIPES - 1);
		return;
	}
	if (c->nr_downlinks >= OFAN_CONF_MAX_DOWNLINKS) {
		conf_error(p, p->line, "more than %d downlinks",
			   OFAN_CONF_MAX_DOWNLINKS);
		return;
	}
	ifindex = lookup_interface(p, tok[2]);
	if (!ifindex)
		return;
	d = &c->downlinks[c->nr_downlinks++];
	d->line = p->line;
	d->ifindex = ifindex;
	d->pipe = pipe;
	strcpy(d->ifname, tok[2]);
	if (pipe + 1 > c->nr_pipes)
		c->nr_pipes = pipe + 1;
}

/* "all" or P,P,...; ranges against w are checked at the end. */
static int parse_ports(const char *s, struct ofan_conf_key *k)
{
	char buf[512], *save, *item;
	__u32 port;

	if (!strcmp(s, "all")) {
		k->all_ports = true;
		return 0;
	}
	if (strlen(s) >= sizeof(buf) || !*s || s[strlen(s) - 1] == ',' ||
	    strstr(s, ",,") || s[0] == ',')
		return -1;
	strcpy(buf, s);
	for (item = strtok_r(buf, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		if (parse_u32(item, 0, OFAN_MAX_W - 1, &port))
			return -1;
		k->ports |= 1ULL << port;
	}
	return 0;
}

static void do_key(struct parser *p, char **tok, int n)
{
	struct ofan_conf *c = p->conf;
	struct ofan_conf_key *k, parsed = { .all_ports = true };
	__u32 key;

	if (parse_u32(tok[1], 0, 0xffffffffU, &key)) {
		conf_error(p, p->line, "bad key '%s'", tok[1]);
		return;
	}
	if (key >= OFAN_MAX_KEYS) {
		conf_error(p, p->line, "key %u out of range 0..%d", key,
			   OFAN_MAX_KEYS - 1);
		return;
	}
	if (n >= 3 && !strcmp(tok[2], "local")) {
		if (n != 3) {
			conf_error(p, p->line, "unexpected '%s' after 'local'", tok[3]);
			return;
		}
		parsed.local = true;
		parsed.all_ports = false;
	} else if (n >= 3 && !strcmp(tok[2], "ports")) {
		if (n != 4) {
			conf_error(p, p->line, "expected 'key KEY ports all|P,P,...'");
			return;
		}
		parsed.all_ports = false;
		if (parse_ports(tok[3], &parsed)) {
			conf_error(p, p->line, "bad port list '%s' (all, or uplink indexes 0..%d separated by commas)",
				   tok[3], OFAN_MAX_W - 1);
			return;
		}
	} else if (n >= 3) {
		conf_error(p, p->line, "unknown key attribute '%s' ('local' or 'ports')",
			   tok[2]);
		return;
	}
	k = &c->keys[key];
	if (k->line) {
		conf_error(p, p->line, "duplicate key %u (first on line %u)", key,
			   k->line);
		return;
	}
	*k = parsed;
	k->line = p->line;
	c->nr_declared++;
	if (k->local)
		c->nr_local++;
	if (key + 1 > c->nr_keys)
		c->nr_keys = key + 1;
}

static void do_prefix(struct parser *p, char **tok, int n __maybe_unused)
{
	struct ofan_conf *c = p->conf;
	struct ofan_conf_prefix *pfx, parsed = { .line = p->line };
	const char *why;
	__u32 *count;

	if (strcmp(tok[2], "key")) {
		conf_error(p, p->line, "expected 'prefix CIDR key KEY'");
		return;
	}
	if (parse_cidr(tok[1], &parsed.family, parsed.addr, &parsed.len, &why)) {
		conf_error(p, p->line, "bad CIDR '%s': %s", tok[1], why);
		return;
	}
	if (parse_u32(tok[3], 0, 0xffffffffU, &parsed.key)) {
		conf_error(p, p->line, "bad key '%s'", tok[3]);
		return;
	}
	if (parsed.key >= OFAN_MAX_KEYS) {
		conf_error(p, p->line, "key %u out of range 0..%d", parsed.key,
			   OFAN_MAX_KEYS - 1);
		return;
	}
	count = &p->nr_prefixes[parsed.family == AF_INET6];
	if (*count >= OFAN_MAX_PREFIXES) {
		conf_error(p, p->line, "more than %d IPv%c prefixes",
			   OFAN_MAX_PREFIXES, parsed.family == AF_INET6 ? '6' : '4');
		return;
	}
	if (c->nr_prefixes == p->max_prefixes) {
		__u32 max = p->max_prefixes ? 2 * p->max_prefixes : 64;

		pfx = realloc(c->prefixes, max * sizeof(*pfx));
		if (!pfx) {
			conf_error(p, p->line, "out of memory");
			return;
		}
		c->prefixes = pfx;
		p->max_prefixes = max;
	}
	c->prefixes[c->nr_prefixes++] = parsed;
	(*count)++;
}

static void do_fast(struct parser *p, char **tok, int n __maybe_unused)
{
	struct ofan_conf *c = p->conf;
	__u32 family, len, shift, mask;
	const char *why;
	__u8 addr[16];

	if (!first_time(p, &p->fast_line, "fast"))
		return;
	if (strcmp(tok[2], "shift") || strcmp(tok[4], "mask")) {
		conf_error(p, p->line, "expected 'fast NET/LEN shift S mask M'");
		return;
	}
	if (parse_cidr(tok[1], &family, addr, &len, &why)) {
		conf_error(p, p->line, "bad CIDR '%s': %s", tok[1], why);
		return;
	}
	if (family != AF_INET) {
		conf_error(p, p->line, "the fast path is IPv4 only: '%s'", tok[1]);
		return;
	}
	if (parse_u32(tok[3], 0, 31, &shift)) {
		conf_error(p, p->line, "shift '%s' out of range 0..31", tok[3]);
		return;
	}
	if (parse_u32(tok[5], 0, 0xffffffffU, &mask)) {
		conf_error(p, p->line, "bad mask '%s'", tok[5]);
		return;
	}
	if (mask >= OFAN_MAX_KEYS) {
		conf_error(p, p->line, "mask 0x%x yields keys above %d", mask,
			   OFAN_MAX_KEYS - 1);
		return;
	}
	c->fast_enabled = true;
	memcpy(&c->fast_net, addr, 4);
	c->fast_prefix_len = len;
	c->fast_shift = shift;
	c->fast_mask = mask;
}

static void do_seed(struct parser *p, char **tok, int n __maybe_unused)
{
	unsigned long long seed;

	if (!first_time(p, &p->seed_line, "seed"))
		return;
	if (parse_ull(tok[1], 0, ~0ULL, &seed)) {
		conf_error(p, p->line, "bad seed '%s'", tok[1]);
		return;
	}
	p->conf->seed = seed;
	p->conf->has_seed = true;
}

struct directive {
	const char	*name;
	int		min_tokens, max_tokens;	/* the name included */
	const char	*syntax;
	void		(*parse)(struct parser *p, char **tok, int n);
};

static const struct directive directives[] = {
	{ "role",	   2, 2, "role edge|aggregation", do_role },
	{ "mode",	   2, 2, "mode " OFAN_MODE_CHOICES, do_mode },
	{ "ack-max-bytes", 2, 2, "ack-max-bytes BYTES", do_ack_max_bytes },
	{ "pin-dir",	   2, 2, "pin-dir PATH", do_pin_dir },
	{ "uplink",	   6, 10, UPLINK_SYNTAX, do_uplink },
	{ "downlink",	   3, 5, "downlink dev IFNAME [pipe N]", do_downlink },
	{ "key",	   2, 4, "key KEY local|ports all|P,P,...", do_key },
	{ "prefix",	   4, 4, "prefix CIDR key KEY", do_prefix },
	{ "fast",	   6, 6, "fast NET/LEN shift S mask M", do_fast },
	{ "seed",	   2, 2, "seed N", do_seed },
	{ "ar-buffer",	   2, 2, "ar-buffer BYTES", do_ar_buffer },
};

static void parse_line(struct parser *p, char *buf)
{
	char *tok[OFAN_CONF_MAX_TOKENS + 1], *hash, *save, *t;
	const struct directive *d = NULL;
	size_t i;
	int n = 0;

	hash = strchr(buf, '#');
	if (hash)
		*hash = '\0';
	for (t = strtok_r(buf, " \t\r\n\v\f", &save); t;
	     t = strtok_r(NULL, " \t\r\n\v\f", &save)) {
		if (n == OFAN_CONF_MAX_TOKENS) {
			n++;
			break;
		}
		tok[n++] = t;
	}
	if (!n)
		return;
	for (i = 0; i < sizeof(directives) / sizeof(directives[0]); i++)
		if (!strcmp(tok[0], directives[i].name))
			d = &directives[i];
	if (!d) {
		conf_error(p, p->line, "unknown directive '%s'", tok[0]);
		return;
	}
	if (n < d->min_tokens) {
		conf_error(p, p->line, "missing tokens: expected '%s'", d->syntax);
		return;
	}
	if (n > d->max_tokens) {
		conf_error(p, p->line, "extra tokens: expected '%s'", d->syntax);
		return;
	}
	d->parse(p, tok, n);
}

static int cmp_prefix(const void *a, const void *b)
{
	const struct ofan_conf_prefix *x = a, *y = b;
	int r;

	if (x->family != y->family)
		return x->family < y->family ? -1 : 1;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	r = memcmp(x->addr, y->addr, 16);
	if (r)
		return r;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* By family, then address, then length: a prefix sorts before those it
 * contains.
 */
static int cmp_prefix_addr(const void *a, const void *b)
{
	const struct ofan_conf_prefix *x = *(const struct ofan_conf_prefix **)a;
	const struct ofan_conf_prefix *y = *(const struct ofan_conf_prefix **)b;
	int r;

	if (x->family != y->family)
		return x->family < y->family ? -1 : 1;
	r = memcmp(x->addr, y->addr, 16);
	if (r)
		return r;
	return x->len < y->len ? -1 : x->len > y->len;
}

/* Whether prefix @outer contains prefix @inner (same family). */
static bool prefix_contains(const struct ofan_conf_prefix *outer,
			    const struct ofan_conf_prefix *inner)
{
	__u32 full = outer->len / 8, rest = outer->len % 8;

	if (outer->family != inner->family || outer->len > inner->len)
		return false;
	if (memcmp(outer->addr, inner->addr, full))
		return false;
	return !rest || !((outer->addr[full] ^ inner->addr[full]) &
			  (0xff << (8 - rest)));
}

static void prefix_string(const struct ofan_conf_prefix *pfx, char *buf,
			  size_t size);

/*
 * Destination keys need disjoint prefixes: one inside another would send
 * part of a key's destinations to another key.  Reports the first overlap
 * of each prefix, scanning in address order with a stack of the prefixes
 * that may still contain the next one.
 */
static void check_overlaps(struct parser *p)
{
	struct ofan_conf *c = p->conf;
	const struct ofan_conf_prefix **order, **stack;
	char buf[64], obuf[64];
	__u32 i, depth = 0;

	order = calloc(c->nr_prefixes, sizeof(*order));
	stack = calloc(c->nr_prefixes, sizeof(*stack));
	if (!order || !stack) {
		conf_error(p, 0, "out of memory");
		goto out;
	}
	for (i = 0; i < c->nr_prefixes; i++)
		order[i] = &c->prefixes[i];
	qsort(order, c->nr_prefixes, sizeof(*order), cmp_prefix_addr);
	for (i = 0; i < c->nr_prefixes; i++) {
		const struct ofan_conf_prefix *b = order[i];

		while (depth && !prefix_contains(stack[depth - 1], b))
			depth--;
		if (depth && stack[depth - 1]->len != b->len) {
			const struct ofan_conf_prefix *a = stack[depth - 1];

			prefix_string(b, buf, sizeof(buf));
			prefix_string(a, obuf, sizeof(obuf));
			conf_error(p, b->line, "prefix %s overlaps prefix %s (line %u): keys need disjoint prefixes",
				   buf, obuf, a->line);
		}
		stack[depth++] = b;
	}
out:
	free(order);
	free(stack);
}

static void prefix_string(const struct ofan_conf_prefix *pfx, char *buf,
			  size_t size)
{
	char addr[INET6_ADDRSTRLEN];

	inet_ntop(pfx->family, pfx->addr, addr, sizeof(addr));
	snprintf(buf, size, "%s/%u", addr, pfx->len);
}

static __u32 mask_of_len(__u32 len)
{
	return len ? ~0U << (32 - len) : 0;
}

/*
 * The fast path and the prefixes must agree: an IPv4 prefix inside the
 * fast path's NET/LEN must have the key that the address bits give each
 * of its destinations, and a prefix around NET/LEN would see its
 * destinations there take the fast path's keys instead of its own.
 */
static void check_fast(struct parser *p)
{
	const struct ofan_conf *c = p->conf;
	__u32 net = ntohl(c->fast_net), i, addr, host, key;
	char buf[INET6_ADDRSTRLEN + 8];

	if (!c->fast_enabled)
		return;
	for (i = 0; i < c->nr_prefixes; i++) {
		const struct ofan_conf_prefix *pfx = &c->prefixes[i];

		if (pfx->family != AF_INET)
			continue;
		memcpy(&addr, pfx->addr, 4);
		addr = ntohl(addr);
		prefix_string(pfx, buf, sizeof(buf));
		if (pfx->len < c->fast_prefix_len) {
			if ((net & mask_of_len(pfx->len)) == addr)
				conf_error(p, pfx->line, "prefix %s contains the fast path's net (line %u): its destinations there would take the fast path's keys",
					   buf, p->fast_line);
			continue;
		}
		if ((addr & mask_of_len(c->fast_prefix_len)) != net)
			continue;
		host = ~mask_of_len(pfx->len);
		key = (addr >> c->fast_shift) & c->fast_mask;
		if ((host >> c->fast_shift) & c->fast_mask)
			conf_error(p, pfx->line, "prefix %s spans several keys of the fast path (line %u)",
				   buf, p->fast_line);
		else if (key != pfx->key)
			conf_error(p, pfx->line, "prefix %s has key %u, the fast path (line %u) gives its destinations key %u",
				   buf, pfx->key, p->fast_line, key);
	}
}

/* What can only be checked once the whole file is read. */
static void check_whole(struct parser *p)
{
	struct ofan_conf *c = p->conf;
	unsigned int eof = p->line ? p->line : 1;
	char buf[INET6_ADDRSTRLEN + 8];
	__u32 i, j, gap = OFAN_MAX_W;

	if (!p->role_line)
		conf_error(p, eof, "no 'role' directive");
	for (i = 0; i < OFAN_MAX_W; i++) {
		if (!c->uplinks[i].line) {
			if (gap == OFAN_MAX_W)
				gap = i;
			continue;
		}
		if (gap != OFAN_MAX_W) {
			conf_error(p, c->uplinks[i].line,
				   "uplink %u without uplink %u: indexes must be 0..w-1 without gaps",
				   i, gap);
			return;
		}
		c->w = i + 1;
	}
	if (!c->w)
		conf_error(p, eof, "no 'uplink' directive");
	/* ar and jsq drain each uplink's phantom backlog at its rate */
	for (i = 0; i < c->w && ofan_mode_needs_rate(c->mode); i++)
		if (!c->uplinks[i].rate_bps)
			conf_error(p, c->uplinks[i].line,
				   "uplink %u has no rate: mode %s (line %u) needs one on every uplink",
				   i, ofan_mode_name(c->mode), p->mode_line);
	if (!p->downlink_line)
		conf_error(p, eof, "no 'downlink' directive");
	if (!c->nr_pipes)
		c->nr_pipes = 1;

	for (i = 0; i < OFAN_MAX_KEYS && c->w; i++) {
		const struct ofan_conf_key *k = &c->keys[i];

		if (!k->line || k->local || k->all_ports)
			continue;
		for (j = c->w; j < OFAN_MAX_W; j++) {
			if ((k->ports >> j) & 1) {
				conf_error(p, k->line, "key %u: port %u out of range 0..%u",
					   i, j, c->w - 1);
				break;
			}
		}
	}

	for (i = 0; i < c->nr_prefixes; i++) {
		const struct ofan_conf_prefix *pfx = &c->prefixes[i];

		if (!c->keys[pfx->key].line) {
			prefix_string(pfx, buf, sizeof(buf));
			conf_error(p, pfx->line, "prefix %s refers to undeclared key %u",
				   buf, pfx->key);
			continue;
		}
		/* bpf_redirect_neigh() drops a packet sent to a next hop
		 * of the other family: its key needs one of its own
		 */
		if (!c->keys[pfx->key].local && c->w &&
		    !(ofan_conf_key_ports(c, pfx->key) &
		      ofan_conf_family_ports(c, pfx->family))) {
			prefix_string(pfx, buf, sizeof(buf));
			conf_error(p, pfx->line, "prefix %s of key %u: none of the key's uplinks has an %s next hop",
				   buf, pfx->key,
				   pfx->family == AF_INET ? "IPv4" : "IPv6");
		}
	}
	if (c->nr_prefixes > 1)
		qsort(c->prefixes, c->nr_prefixes, sizeof(*c->prefixes),
		      cmp_prefix);
	for (i = 1; i < c->nr_prefixes; i++) {
		const struct ofan_conf_prefix *a = &c->prefixes[i - 1];
		const struct ofan_conf_prefix *b = &c->prefixes[i];

		if (a->family == b->family && a->len == b->len &&
		    !memcmp(a->addr, b->addr, 16)) {
			prefix_string(b, buf, sizeof(buf));
			conf_error(p, b->line, "duplicate prefix %s (first on line %u)",
				   buf, a->line);
		}
	}
	check_overlaps(p);
	check_fast(p);
}

int ofan_conf_load(struct ofan_conf *conf, const char *path, FILE *err)
{
	struct parser p = { .conf = conf, .err = err };
	char *buf = NULL;
	size_t size = 0;
	ssize_t len;
	FILE *f;

	memset(conf, 0, sizeof(*conf));
	conf->path = path;
	conf->mode = OFAN_MODE_OFAN;
	conf->ack_max_bytes = OFAN_CONF_ACK_MAX_BYTES;
	conf->ar_buffer_bytes = OFAN_AR_BUFFER_DEFAULT;
	strcpy(conf->pin_dir, OFAN_CONF_PIN_DIR);

	f = fopen(path, "r");
	if (!f) {
		fprintf(err, "%s:0: cannot open: %s\n", path, strerror(errno));
		return -1;
	}
	while ((len = getline(&buf, &size, f)) >= 0) {
		p.line++;
		/* a NUL would end the line early: its rest unread, unnoticed */
		if (strlen(buf) != (size_t)len) {
			conf_error(&p, p.line, "a NUL byte in the line");
			continue;
		}
		if (len > 4096) {
			conf_error(&p, p.line, "line longer than 4096 characters");
			continue;
		}
		parse_line(&p, buf);
	}
	if (ferror(f))
		conf_error(&p, p.line, "read error: %s", strerror(errno));
	free(buf);
	fclose(f);

	check_whole(&p);
	print_errors(&p);
	return p.errors ? -1 : 0;
}

void ofan_conf_free(struct ofan_conf *conf)
{
	free(conf->prefixes);
	conf->prefixes = NULL;
	conf->nr_prefixes = 0;
}

__u64 ofan_conf_key_ports(const struct ofan_conf *conf, __u32 k)
{
	const struct ofan_conf_key *key = &conf->keys[k];
	__u64 all = conf->w >= OFAN_MAX_W ? ~0ULL : (1ULL << conf->w) - 1;

	if (key->local)
		return 0;
	return key->all_ports ? all : key->ports & all;
}

__u64 ofan_conf_family_ports(const struct ofan_conf *conf, int family)
{
	__u32 flag = family == AF_INET ? OFAN_PORT_F_NH4 : OFAN_PORT_F_NH6;
	__u64 ports = 0;
	__u32 i;

	for (i = 0; i < conf->w && i < OFAN_MAX_W; i++)
		if (conf->uplinks[i].nh_flags & flag)
			ports |= 1ULL << i;
	return ports;
}

void ofan_conf_port(const struct ofan_conf *conf, __u32 i,
		    struct ofan_port *port)
{
	const struct ofan_conf_uplink *u = &conf->uplinks[i];

	memset(port, 0, sizeof(*port));
	port->ifindex = u->ifindex;
	port->flags = u->nh_flags;
	memcpy(port->nh4, u->nh4, sizeof(port->nh4));
	memcpy(port->nh6, u->nh6, sizeof(port->nh6));
	ofan_port_set_rate(port, u->rate_bps, conf->ar_buffer_bytes);
}
