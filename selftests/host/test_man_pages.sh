#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_man_pages.sh - the manual pages (make man): tc-symphony(8),
# symofan(8) and ofan.conf(5) render without a groff warning and with a
# NAME line that whatis reads; every option the tc plugin accepts (its own
# help) and every command the agent has (its own --help) is in its page.
. "$(dirname "$0")/../lib.sh"

require_cmd tc groff lexgrog
man_dir=$BUILD_DIR/man
require_built "$man_dir/tc-symphony.8" "$man_dir/symofan.8" \
	"$man_dir/ofan.conf.5" "$BUILD_DIR/tc/q_symphony.so" "$BUILD_DIR/symofan"

ktap_plan 7

# The page as a reader sees it, and groff's warnings (-ww: all of them).
render() { LC_ALL=C.UTF-8 MANWIDTH=200 man -l "$1" 2>/dev/null | col -b; }
for page in tc-symphony.8 symofan.8 ofan.conf.5; do
	warnings=$(LC_ALL=C.UTF-8 groff -ww -man -Tutf8 -z "$man_dir/$page" 2>&1)
	check_eq "$page renders without a groff warning" "" "$warnings"
done
check "whatis reads each page's NAME line" \
	lexgrog "$man_dir/tc-symphony.8" "$man_dir/symofan.8" "$man_dir/ofan.conf.5"

# "  limit PACKETS        queue limit": each option of the plugin's help,
# with its value, is an entry of tc-symphony(8).
help=$(TC_LIB_DIR=$BUILD_DIR/tc tc qdisc add dev lo root symphony help 2>&1)
options=$(awk '/^  [a-z_]+ [A-Z]/ { print $1 " " $2 }' <<<"$help")
ktap_print "the plugin's options: $(wc -l <<<"$options")"
page=$(render "$man_dir/tc-symphony.8")
missing=$(while read -r option; do
	grep -qE "^ {7}$option( |[|]|$)" <<<"$page" || echo "$option"
done <<<"$options")
check "the plugin has options" test "$(wc -l <<<"$options")" -ge 17
check_eq "every option of the plugin is an entry of tc-symphony(8)" "" "$missing"

# "  symofan job init [--jobs N] ...": each command of the agent, with its
# synopsis, is an entry of symofan(8).
page=$(render "$man_dir/symofan.8")
commands=$(for group in ofan job symphony; do
	"$BUILD_DIR/symofan" "$group" --help 2>&1 | sed -n 's/^  \(symofan .*\)/\1/p'
done; "$BUILD_DIR/symofan" --help 2>&1 | sed -n 's/^  \(symofan daemon .*\)/\1/p')
missing=$(while read -r command; do
	grep -qF -- "$command" <<<"$page" || echo "$command"
done <<<"$commands")
ktap_print "the agent's commands: $(wc -l <<<"$commands")"
check_eq "every command of the agent, with its synopsis, is in symofan(8)" "" "$missing"

ktap_finished
