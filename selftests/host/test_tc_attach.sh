#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_tc_attach.sh - how symofan puts its tc-BPF programs on a port, as
# bpftool sees it: by a tcx link pinned beside the maps on a kernel with
# tcx (6.6 and later), by a clsact filter before it (the VM tier runs this
# on Debian's 6.1, 6.12 and 7.3).  For Symphony and for Ofan: attach,
# re-attach (the same link, one program on the hook), detach, a second
# pin folder's program refused on a taken port, the move between clsact
# and tcx (Symphony's --hook), and an agent killed by strace at the one
# call that makes the attachment last (the link's pin, or the netlink
# request that makes the filter): the port then runs nothing, and the
# next run attaches it.
. "$(dirname "$0")/../lib.sh"

require_root
require_cmd ip tc jq nsenter strace
require_hook_bpftool
require_tools symofan
require_bpffs

base=/sys/fs/bpf/symofan-tcx-$$
reg=$base/reg
pins=$base/sym
on_exit rm -rf "$base"
mkdir -p "$base" && chmod 0755 "$base"
tmp=$(mktemp -d)
on_exit rm -rf "$tmp"

ktap_plan 24

kver=$(uname -r | awk -F. '{ print $1 * 1000 + $2 }')
if [ "$kver" -ge 6006 ]; then hook=tcx; else hook=clsact; fi
ktap_print "$(uname -r): the programs go on by $hook"

status_of() { local out rc; out=$("$@" 2>&1) && rc=0 || rc=$?; echo "$rc: $out"; }
netns_create sw h0 h1 h2
veth_pair "$sw" p0 10.73.0.1/24 "$h0" q0 10.73.0.2/24
veth_pair "$sw" p1 10.73.1.1/24 "$h1" q1 10.73.1.2/24
veth_pair "$sw" p2 10.73.2.1/24 "$h2" q2 10.73.2.2/24
sw_sym() { in_ns "$sw" "$symofan" symphony "$@"; }
ifindex_of() { ip -n "$1" -j link show dev "$2" | jq '.[0].ifindex'; }
# the programs on DEV's DIR hook, as bpftool net lists them
on_hook() {
	nsenter --net="/run/netns/$sw" "$BPFTOOL" net show dev "$1" -j |
		jq -c --arg dir "$2" '[.[0].tc[] | select(.kind | endswith("/" + $dir)) | .name | sub(":\\[.*$"; "")]'
}
# what prog_hook says, without the link id: tcx or clsact
kind_of() { prog_hook "$sw" "$1" "$2" "$3" | cut -d' ' -f1; }
link_of() { prog_hook "$sw" "$1" "$2" "$3" | awk '$1 == "tcx" { print $2 }'; }

# kill_at SYSCALL PATTERN OUT -- CMD...: run CMD twice under strace, once
# to count its SYSCALL calls up to the first whose trace matches PATTERN,
# then, after UNDO (the caller's), again with SIGKILL injected at that
# call; OUT gets the count.  Split in two: kill_count, kill_run.
kill_count() {
	local syscall=$1 pattern=$2
	shift 2
	in_ns "$sw" strace -f -qq -e trace="$syscall" -o "$tmp/trace" "$@" >/dev/null 2>&1
	grep -n -m 1 -E "$pattern" "$tmp/trace" | cut -d: -f1
}
kill_run() {
	local syscall=$1 n=$2
	shift 2
	in_ns "$sw" strace -f -qq -e trace="$syscall" -o /dev/null \
		-e inject="$syscall":signal=SIGKILL:when="$n" "$@" >/dev/null 2>&1
}
# the syscall and trace pattern that make an attachment last
if [ "$hook" = tcx ]; then
	durable_call=bpf durable_sym='BPF_OBJ_PIN.*tcx_egress_' durable_ofan='BPF_OBJ_PIN.*tcx_ingress_'
else
	durable_call=sendto durable_sym=RTM_NEWTFILTER durable_ofan=RTM_NEWTFILTER
fi

"$symofan" job init --jobs 64 --pin-dir "$reg" >/dev/null
params=(rate 10gbit kmin 100mb kmax 200mb)

# ---- Symphony ---------------------------------------------------------
check "attach Symphony to p0" sw_sym attach p0 "${params[@]}" --registry "$reg" --pin-dir "$pins"
check_eq "bpftool net: p0's egress runs symphony_egress by $hook, alone" \
	"$hook [\"symphony_egress\"]" "$(kind_of p0 egress symphony_egress) $(on_hook p0 egress)"
link=$(link_of p0 egress symphony_egress)
check_jq "status names the same hook and link" \
	".[0].hook == \"$hook\" and .[0].link_id == ${link:-0}" \
	"$(sw_sym status p0 --pin-dir "$pins" --json)"
if [ "$hook" = tcx ]; then
	check "bpftool link: the link is pinned in the pin folder, as tcx_egress_IFINDEX" \
		grep -q "pinned $pins/tcx_egress_$(ifindex_of "$sw" p0)\$" \
		<<<"$("$BPFTOOL" -f link show id "$link")"
else
	check "no link pin without tcx" test -z "$(compgen -G "$pins/tcx_*")"
fi

sw_sym attach p0 rate 5gbit kmin 100mb kmax 200mb --registry "$reg" --pin-dir "$pins" >/dev/null
check_eq "a re-attach keeps the hook (and link), one program on it, with the new rate" \
	"$hook ${link:-none} [\"symphony_egress\"] 5000000000" \
	"$(kind_of p0 egress symphony_egress) $(link_of p0 egress symphony_egress || true)$([ -n "$link" ] || echo none) $(on_hook p0 egress) $(sw_sym status p0 --pin-dir "$pins" --json | jq '.[0].rate_bps')"

r=$(status_of sw_sym attach p0 "${params[@]}" --registry "$reg" --pin-dir "$base/other")
ktap_print "$r"
check_eq "a second pin folder's attach to p0 exits 1, naming the program there" "1 yes" \
	"${r%%:*} $(grep -q "the egress of p0 runs another pin folder's Symphony program (prog id [0-9]*, by" <<<"$r" && echo yes)"
check_eq "... p0 keeps its program, and the second folder is gone" "$hook ${link:-none} [\"symphony_egress\"] no" \
	"$(kind_of p0 egress symphony_egress) $(link_of p0 egress symphony_egress)$([ -n "$link" ] || echo none) $(on_hook p0 egress) $([ -e "$base/other" ] && echo yes || echo no)"

sw_sym attach p0 "${params[@]}" --registry "$reg" --pin-dir "$pins" --hook clsact >/dev/null
check_eq "--hook clsact moves p0 to a clsact filter: no link left, one program" \
	"clsact [\"symphony_egress\"] " \
	"$(kind_of p0 egress symphony_egress) $(on_hook p0 egress) $(compgen -G "$pins/tcx_*")"
sw_sym attach p0 "${params[@]}" --registry "$reg" --pin-dir "$pins" >/dev/null
check_eq "... and an attach without it moves it back: one program, by $hook" \
	"$hook [\"symphony_egress\"]" "$(kind_of p0 egress symphony_egress) $(on_hook p0 egress)"

# killed at the call that would make p1's attachment last
n=$(kill_count "$durable_call" "$durable_sym" "$symofan" symphony attach p1 "${params[@]}" --registry "$reg" --pin-dir "$pins")
sw_sym detach p1 --pin-dir "$pins" --registry "$reg" >/dev/null
ktap_print "p1's attach is lasting from $durable_call call $n"
kill_run "$durable_call" "${n:-1}" "$symofan" symphony attach p1 "${params[@]}" --registry "$reg" --pin-dir "$pins"
check_eq "an attach killed there leaves p1 running nothing, no link of it pinned" "found [] no" \
	"$([ -n "$n" ] && echo found || echo "no $durable_call call in the trace") $(on_hook p1 egress) $([ -e "$pins/tcx_egress_$(ifindex_of "$sw" p1)" ] && echo yes || echo no)"
check_jq "... status shows p1's port on no hook, p0's as it was" \
	"(.[] | select(.dev == \"p1\") | .hook == \"none\") and (.[] | select(.dev == \"p0\") | .hook == \"$hook\")" \
	"$(sw_sym status --pin-dir "$pins" --json)"
sw_sym attach p1 "${params[@]}" --registry "$reg" --pin-dir "$pins" >/dev/null
check_eq "... and the next attach attaches p1" "$hook [\"symphony_egress\"]" \
	"$(kind_of p1 egress symphony_egress) $(on_hook p1 egress)"

check "detach p0" sw_sym detach p0 --pin-dir "$pins" --registry "$reg"
check_eq "... p0 runs nothing, its link is gone, p1 runs on" "[] no $hook" \
	"$(on_hook p0 egress) $([ -e "$pins/tcx_egress_$(ifindex_of "$sw" p0)" ] && echo yes || echo no) $(kind_of p1 egress symphony_egress)"
sw_sym detach p1 --pin-dir "$pins" --registry "$reg" >/dev/null
check_eq "detach p1, the last: nothing on either, the pin folder gone" "[] [] no" \
	"$(on_hook p0 egress) $(on_hook p1 egress) $([ -e "$pins" ] && echo yes || echo no)"

# ---- Ofan -------------------------------------------------------------
ofan_conf() {
	cat <<EOF
role edge
mode ofan
pin-dir $1
uplink 0 dev p0 via 10.73.0.2
uplink 1 dev p1 via 10.73.1.2
downlink dev p2
downlink dev $2
EOF
}
ip -n "$sw" link add d3 type veth peer name e3
ip -n "$sw" link set d3 up
ip -n "$sw" link set e3 up
ofan_conf "$base/ofan" d3 > "$tmp/ofan.conf"
ofan_conf "$base/ofan2" d3 > "$tmp/ofan2.conf"
on_exit in_ns "$sw" "$symofan" ofan unload --pin-dir "$base/ofan" --force
ofan() { in_ns "$sw" "$symofan" ofan "$@"; }

n=$(kill_count "$durable_call" "$durable_ofan" "$symofan" ofan load "$tmp/ofan.conf")
ofan unload --pin-dir "$base/ofan" >/dev/null
ktap_print "the load is lasting from $durable_call call $n"
kill_run "$durable_call" "${n:-1}" "$symofan" ofan load "$tmp/ofan.conf"
check_eq "a first load killed there leaves both downlinks running nothing" "found [] []" \
	"$([ -n "$n" ] && echo found || echo "no $durable_call call in the trace") $(on_hook p2 ingress) $(on_hook d3 ingress)"
check "... and the next load attaches both" ofan load "$tmp/ofan.conf"
check_eq "... by $hook, one program on each" \
	"$hook $hook [\"ofan_ingress\"] [\"ofan_ingress\"]" \
	"$(kind_of p2 ingress ofan_ingress) $(kind_of d3 ingress ofan_ingress) $(on_hook p2 ingress) $(on_hook d3 ingress)"
links="$(link_of p2 ingress ofan_ingress) $(link_of d3 ingress ofan_ingress)"
before=$(prog_hook "$sw" p2 ingress ofan_ingress)
ofan load "$tmp/ofan.conf" >/dev/null
check_eq "a reload runs its new program on the same links" \
	"$links 1 1" \
	"$(link_of p2 ingress ofan_ingress) $(link_of d3 ingress ofan_ingress) $(on_hook p2 ingress | jq length) $(on_hook d3 ingress | jq length)"
ktap_print "p2's ingress before the reload: $before"

r=$(status_of ofan load "$tmp/ofan2.conf")
ktap_print "$r"
check_eq "a second pin folder's load on the same downlinks exits 1, naming the program there" "1 yes" \
	"${r%%:*} $(grep -q "the ingress of p2 runs another pin folder's Ofan program (prog id [0-9]*, by" <<<"$r" && echo yes)"
check_eq "... the downlinks keep the first folder's program" "$links" \
	"$(link_of p2 ingress ofan_ingress) $(link_of d3 ingress ofan_ingress)"
ofan unload --pin-dir "$base/ofan2" --force >/dev/null 2>&1
# the refused load gives up at p2, before d3: what it closes on the way
in_ns "$sw" strace -f -qq -e trace=close -o "$tmp/closes" \
	"$symofan" ofan load "$tmp/ofan2.conf" >/dev/null 2>&1
check_eq "... and closes no descriptor it did not open (d3's unattached hook is not fd 0)" "0" \
	"$(grep -c '^[0-9 ]*close(0)' "$tmp/closes")"
ofan unload --pin-dir "$base/ofan2" --force >/dev/null 2>&1

# a link pinned by a load whose state lost track of it (a downlink renamed)
ip -n "$sw" link set d3 down
ip -n "$sw" link set d3 name d4
ip -n "$sw" link set d4 up
check "unload, with a downlink renamed since the load" ofan unload --pin-dir "$base/ofan"
# (a clsact filter has no pin to find it by: the renamed one stays)
if [ "$hook" = tcx ]; then left="[]"; else left='["ofan_ingress"]'; fi
check_eq "... p2 runs nothing, d4 $([ "$hook" = tcx ] && echo "nothing (its link was pinned)" || echo "its filter"), the pin folder is gone" \
	"[] $left no" \
	"$(on_hook p2 ingress) $(on_hook d4 ingress) $([ -e "$base/ofan" ] && echo yes || echo no)"

ktap_finished
