#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_symphony_bpf_ops.sh - Symphony as tc-BPF and its job registry under
# an operator's hands, no module:
#  - two pin folders on one registry: one job's packets through both
#    programs on two CPUs are all counted (one job_locks map for both);
#  - a job reset under traffic on the other CPU (as job del/add do) is
#    applied by the datapath and never undone by its read-modify-write;
#    a deleted job reads as cleared at once, a reused id starts afresh;
#  - the registry serves one datapath: the tc plugin refuses its jobs map
#    to a qdisc while the program uses it, attach refuses a registry
#    qdiscs own until 'job release', the last detach frees it;
#  - two network namespaces on one pin folder: the second is refused,
#    and its detach leaves the first one's port alone;
#  - pin folders others can write to, or made by another user, or a
#    symlink, are refused by job init, symphony attach and ofan load;
#  - a vanished device: detach by ifindex, ports of gone devices pruned,
#    the last real detach unpins;
#  - a re-attach that fails keeps the port's old parameters; a partly
#    pinned folder is left alone.
. "$(dirname "$0")/../lib.sh"

require_root
require_cmd ip tc jq setpriv nsenter
require_hook_bpftool
require_tools symofan
require_bpffs
race=$BUILD_DIR/selftests/symphony_jobs_race
require_built "$race"

base=/sys/fs/bpf/symofan-ops-$$
reg=$base/reg
on_exit rm -rf "$base"
mkdir -p "$base" && chmod 0755 "$base"
tmp=$(mktemp -d)
on_exit rm -rf "$tmp"

ktap_plan 36

status_of() { local out rc; out=$("$@" 2>&1) && rc=0 || rc=$?; echo "$rc: $out"; }
job() { "$symofan" job "$@" --pin-dir "$reg"; }

netns_create sw ns2 h0 h1 h2
veth_pair "$sw" p0 10.72.0.1/24 "$h0" q0 10.72.0.2/24
veth_pair "$sw" p1 10.72.1.1/24 "$h1" q1 10.72.1.2/24
veth_pair "$sw" p2 10.72.2.1/24 "$h2" q2 10.72.2.2/24
sw_sym() { in_ns "$sw" "$symofan" symphony "$@"; }
ifindex_of() { ip -n "$1" -j link show dev "$2" | jq '.[0].ifindex'; }
# RED out of reach: only Algorithm 1 runs
params=(rate 10gbit kmin 100mb kmax 200mb)

"$symofan" job init --jobs 64 --pin-dir "$reg" >/dev/null
job add --id 5 --name race >/dev/null

# ---- one job, two programs, two CPUs --------------------------------
attach_two() {
	sw_sym attach p0 "${params[@]}" --registry "$reg" --pin-dir "$base/a" >/dev/null &&
	sw_sym attach p1 "${params[@]}" --registry "$reg" --pin-dir "$base/b" >/dev/null
}
check "two ports attach with two pin folders and one registry" attach_two
sent=$(in_ns "$sw" "$race" count 5 1000000 "$base/a/symphony_egress" \
	"$(ifindex_of "$sw" p0)" "$base/b/symphony_egress" "$(ifindex_of "$sw" p1)")
counted=$(job show 5 --json | jq .packets)
ktap_print "sent $sent packets of job 5 through two programs on two CPUs, the job counted $counted"
check_eq "every update of the job from two programs on two CPUs is kept" \
	"2000000" "$counted"
check_eq "both programs take the registry's one job_locks map" 1 \
	"$(for p in a b; do bpftool -j prog show pinned "$base/$p/symphony_egress" | jq -c .map_ids; done |
	   jq -s --argjson id "$(bpftool -j map show pinned "$reg/job_locks" | jq .id)" \
	   '[.[] | index($id) != null] | all' | grep -c true)"

# ---- resets under traffic ------------------------------------------
r=$(in_ns "$sw" "$race" reset 5 50000 "$(ifindex_of "$sw" p0)" \
	"$base/a/symphony_egress" "$reg/jobs") && rc=0 || rc=$?
ktap_print "$r"
check_eq "50000 resets under traffic on the other CPU: each applied, none undone" 0 "$rc"
job del 5 >/dev/null
check_jq "a deleted job reads as cleared at once (the datapath applies it later)" \
	'.packets == 0 and .active == false and .registered == false' "$(job show 5 --json)"
job add --id 5 --k 0.5 >/dev/null
in_ns "$sw" "$race" count 5 10 "$base/a/symphony_egress" "$(ifindex_of "$sw" p0)" >/dev/null
check_jq "a reused id starts afresh, with its own parameters" \
	'.packets == 10 and .k_ppm == 500000' "$(job show 5 --json)"

# ---- one datapath per registry --------------------------------------
check_jq "the registry records the program as its owner" '.owner == "bpf"' "$(job list --json)"
r=$(status_of in_ns "$h0" env TC_LIB_DIR="$BUILD_DIR/tc" tc qdisc add dev q0 root symphony jobs_map "$reg/jobs")
check "the tc plugin refuses the program's jobs map to a qdisc, saying why" \
	grep -q "serves Symphony's tc-BPF program .* two locks" <<<"$r"
r=$(status_of "$symofan" job release --pin-dir "$reg")
check "job release refuses while a program uses the jobs" \
	grep -q "^1: .*a BPF program uses the jobs" <<<"$r"
r=$(status_of "$symofan" job destroy --pin-dir "$reg")
check "job destroy refuses while a program uses the jobs" \
	grep -q "^1: .*a BPF program uses the jobs of $reg: 'symofan symphony detach' its ports first" <<<"$r"
check "... and keeps the registry" test -e "$reg/jobs" -a -e "$reg/job_meta"
sw_sym detach p1 --pin-dir "$base/b" --registry "$reg" >/dev/null
sw_sym detach p0 --pin-dir "$base/a" --registry "$reg" >/dev/null
check_jq "the last detach frees the registry" '.owner == "none"' "$(job list --json)"
# a qdisc takes it (the plugin records that before the kernel answers:
# without the module here, the kernel refuses the qdisc itself)
in_ns "$h0" env TC_LIB_DIR="$BUILD_DIR/tc" tc qdisc add dev q0 root symphony \
	jobs_map "$reg/jobs" >/dev/null 2>&1 || true
check_jq "a qdisc given the jobs map records the qdiscs as the owner" \
	'.owner == "qdisc"' "$(job list --json)"
r=$(status_of sw_sym attach p0 "${params[@]}" --registry "$reg" --pin-dir "$base/a")
check "attach refuses a registry the qdiscs own, saying why and what to do" \
	grep -q "^1: .*serves sch_symphony qdiscs .* two locks .*'symofan job release --pin-dir $reg'" <<<"$r"
check "... and pins nothing" test ! -e "$base/a/symphony_egress"
job release >/dev/null
check "after job release, attach takes it" \
	sw_sym attach p0 "${params[@]}" --registry "$reg" --pin-dir "$base/a"

# ---- namespaces -----------------------------------------------------
ip -n "$ns2" link add y0 type veth peer name y1
ip -n "$ns2" link set y0 up
r=$(status_of in_ns "$ns2" "$symofan" symphony attach y0 "${params[@]}" --registry "$reg" --pin-dir "$base/a")
check "attach from another namespace on the same pin folder is refused, naming both" \
	grep -q "^1: .*serves the ports of network namespace net:\[[0-9]*\], this is net:\[[0-9]*\]" <<<"$r"
r=$(status_of in_ns "$ns2" "$symofan" symphony detach y0 --pin-dir "$base/a" --registry "$reg")
check "so is detach from there" grep -q "^1: .*serves the ports of network namespace" <<<"$r"
check "... and the first namespace's port and pins stay" \
	test -e "$base/a/symphony_egress" -a -n "$(prog_hook "$sw" p0 egress symphony_egress)"

# ---- pin folders ----------------------------------------------------
shared=$base/shared
mkdir "$shared" && chmod 1777 "$shared"
setpriv --reuid=65534 --regid=65534 --clear-groups mkdir "$shared/nobodys"
r=$(status_of "$symofan" job init --pin-dir "$shared/nobodys")
check "job init refuses a folder another user made, naming it" \
	grep -q "^1: .*$shared/nobodys is owned by uid 65534 .*must be owned by this user" <<<"$r"
r=$(status_of sw_sym attach p2 "${params[@]}" --registry "$reg" --pin-dir "$shared/nobodys")
check "symphony attach refuses it too" grep -q "^1: .*is owned by uid 65534" <<<"$r"
check_eq "... and pins nothing there" "" "$(ls -A "$shared/nobodys")"
cat > "$tmp/ofan.conf" <<EOF
role edge
mode ofan
pin-dir $shared/nobodys
uplink 0 dev p0 via 10.72.0.2
uplink 1 dev p1 via 10.72.1.2
downlink dev p2
EOF
r=$(status_of in_ns "$sw" "$symofan" ofan load "$tmp/ofan.conf")
check "ofan load refuses it too" grep -q "is owned by uid 65534" <<<"$r"
mkdir "$base/real" && ln -s "$base/real" "$base/link"
r=$(status_of "$symofan" job init --pin-dir "$base/link")
check "a symlinked pin folder is refused" grep -q "^1: .*$base/link is a symbolic link" <<<"$r"
mkdir -m 0777 "$base/open"
r=$(status_of "$symofan" job init --pin-dir "$base/open/reg")
check "a folder above the pin folder writable by all, not sticky, is refused" \
	grep -q "^1: .*$base/open (above a pin folder) has mode 0777" <<<"$r"

# ---- vanished devices -----------------------------------------------
sw_sym attach p1 "${params[@]}" --registry "$reg" --pin-dir "$base/a" >/dev/null
gone=$(ifindex_of "$sw" p1)
ip -n "$sw" link del p1
r=$(status_of sw_sym detach p1 --pin-dir "$base/a" --registry "$reg")
ktap_print "$r"
check "detach of a vanished device by name says there is none, and what to do" \
	grep -q "^2: .*no network device 'p1' here (a port whose device is gone: detach ifindex N" <<<"$r"
check "detach ifindex N takes a vanished device's port" \
	sw_sym detach ifindex "$gone" --pin-dir "$base/a" --registry "$reg"
check_eq "... and only p0's port is left" "p0" \
	"$(sw_sym status --pin-dir "$base/a" --json | jq -r '[.[].dev] | join(",")')"
sw_sym attach p2 "${params[@]}" --registry "$reg" --pin-dir "$base/a" >/dev/null
ip -n "$sw" link del p2
sw_sym detach p0 --pin-dir "$base/a" --registry "$reg" >/dev/null
check "the last real detach prunes the vanished port and unpins" \
	test ! -e "$base/a/symphony_egress"

# ---- a failed re-attach, a partly pinned folder ---------------------
# on clsact (--hook clsact; a tcx link is updated in place and cannot
# fail so): the filter's priority taken for another protocol, so that
# the re-attach's replace cannot go through
sw_sym attach p0 rate 1gbit kmin 1mb kmax 2mb --registry "$reg" --pin-dir "$base/a" --hook clsact >/dev/null
tc -n "$sw" qdisc del dev p0 clsact
tc -n "$sw" qdisc add dev p0 clsact
in_ns "$sw" tc filter add dev p0 egress pref 92 handle 0x5c protocol ip \
	bpf object-pinned "$base/a/symphony_egress" da
r=$(status_of sw_sym attach p0 rate 5gbit --registry "$reg" --pin-dir "$base/a" --hook clsact)
ktap_print "$r"
check_eq "a re-attach that cannot attach exits 1, saying the old one runs on" "1: yes" \
	"${r%%:*}: $(grep -q "cannot attach to the egress of p0: .*(its earlier attachment runs on as it was)" <<<"$r" && echo yes)"
check_eq "... and the port keeps its old parameters" "1000000000 1048576" \
	"$(sw_sym status p0 --pin-dir "$base/a" --json | jq -r '.[0] | "\(.rate_bps) \(.kmin_bytes)"')"
tc -n "$sw" filter del dev p0 egress pref 92
sw_sym attach p0 rate 1gbit --registry "$reg" --pin-dir "$base/a" >/dev/null
rm "$base/a/ports"
veth_pair "$sw" p2 10.72.2.1/24 "$h2" q3 10.72.2.3/24 2>/dev/null || true
r=$(status_of sw_sym attach p2 "${params[@]}" --registry "$reg" --pin-dir "$base/a")
check "attach on a partly pinned folder refuses, naming what is there" \
	grep -q "^1: .*holds part of a Symphony program (symphony_egress, port_stats, meta" <<<"$r"
check "... and leaves the program in use pinned and attached" \
	test -e "$base/a/symphony_egress" -a -n "$(prog_hook "$sw" p0 egress symphony_egress)"

# detach --all (the package's prerm): every port of a folder off, the
# folder unpinned, the registry freed; a folder with nothing is exit 0
veth_pair "$sw" p3 10.72.3.1/24 "$h2" q4 10.72.3.2/24
sw_sym attach p2 "${params[@]}" --registry "$reg" --pin-dir "$base/c" >/dev/null
sw_sym attach p3 "${params[@]}" --registry "$reg" --pin-dir "$base/c" --hook clsact >/dev/null
r=$(status_of sw_sym detach --all --pin-dir "$base/c" --registry "$reg")
check "detach --all takes Symphony off every port of the folder" \
	grep -q "^0: symofan: Symphony detached from 2 ports, $base/c unpinned" <<<"$r"
check_eq "... no hook is left on either port, no pin in the folder" "" \
	"$(prog_hook "$sw" p2 egress symphony_egress)$(prog_hook "$sw" p3 egress symphony_egress)$(ls "$base/c" 2>/dev/null)"
r=$(status_of sw_sym detach --all --pin-dir "$base/c")
check "detach --all of a folder with nothing attached is exit 0" \
	grep -q "^0: .*attached to no port" <<<"$r"

ktap_finished
