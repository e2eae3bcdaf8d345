#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_ofan_conf_examples.sh - every switch description the project shows
# its users loads as written: the examples of ofan.conf(5) and the files
# tc-scripts/*.conf.example, in a namespace with their interfaces (up0,
# up1, dn0, dn1).  Each loads (its pin-dir moved to a test folder), status
# shows the keys it declares, and it unloads.
. "$(dirname "$0")/../lib.sh"

require_root
require_cmd ip nsenter jq awk
require_tools symofan
require_bpffs

tmp=$(mktemp -d /tmp/test_ofan_conf_examples.XXXXXX)
on_exit rm -rf "$tmp"
man=$TOP_DIR/userspace/ofan.conf.5.md

# The fenced blocks of the man page that are switch descriptions (their
# first line a "role" directive), one file each.
awk -v dir="$tmp" '
	/^```/ { if (inside) { inside = 0; close(out) } else { inside = 1; first = 1 } next }
	inside && first { first = 0; if ($1 != "role") { inside = 0; next }
			  out = sprintf("%s/man-%d.conf", dir, ++n) }
	inside { print > out }' "$man"
examples=("$tmp"/man-*.conf "$TOP_DIR"/tc-scripts/*.conf.example)
[ -e "${examples[0]}" ] || ktap_skip_all "no example found in $man"
ktap_plan $((3 * ${#examples[@]}))

netns_create sw up dn
veth_pair "$sw" up0 172.16.0.1/31 "$up" p0 172.16.0.0/31
veth_pair "$sw" up1 172.16.0.3/31 "$up" p1 172.16.0.2/31
veth_pair "$sw" dn0 10.0.0.1/24 "$dn" h0 10.0.0.2/24
veth_pair "$sw" dn1 10.0.0.129/25 "$dn" h1 10.0.0.130/25

n=0
for example in "${examples[@]}"; do
	n=$((n + 1))
	name=${example#"$TOP_DIR"/}
	[[ $example == "$tmp"/man-* ]] && name="ofan.conf(5) example $n"
	pins=/sys/fs/bpf/ofan-examples-$$-$n
	conf=$tmp/load-$n.conf
	{ grep -v '^pin-dir' "$example"; echo "pin-dir $pins"; } > "$conf"
	on_exit in_ns "$sw" "$BUILD_DIR/symofan" ofan unload --pin-dir "$pins" --force
	keys=$(grep -c '^key ' "$example")
	check "$name loads" in_ns "$sw" "$BUILD_DIR/symofan" ofan load "$conf"
	check_jq "$name: status shows its $keys keys" \
		".keys | map(select(.configured)) | length == $keys" \
		"$(in_ns "$sw" "$BUILD_DIR/symofan" ofan status --pin-dir "$pins" --json)"
	check "$name unloads" in_ns "$sw" "$BUILD_DIR/symofan" ofan unload --pin-dir "$pins"
done

ktap_finished
