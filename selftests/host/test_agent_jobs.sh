#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_agent_jobs.sh - "symofan job": the registry creates and pins the
# jobs map with BTF, add/set/del/show/list round-trip through the maps as
# bpftool sees them, ids are handed out lowest first, idle jobs are
# reclaimed, maps of another layout are refused with the way to migrate
# and migrate keeps ids, names and parameters, and bad input gets one
# clear error and changes nothing.
. "$(dirname "$0")/../lib.sh"

require_root
require_cmd bpftool jq stat setpriv
require_tools symofan
require_bpffs

pins=/sys/fs/bpf/symofan-jobs-test-$$
on_exit rm -rf "$pins"

ktap_plan 55

job() { "$symofan" job "$@" --pin-dir "$pins"; }
map_field() {	# ID FIELD: a field of the jobs map's entry, by bpftool
	bpftool -j map lookup pinned "$pins/jobs" key "$1" 0 0 0 |
		jq -r ".formatted.value.$2"
}
# the exit status and the output of a command, as "STATUS: OUTPUT"
status_of() { local out rc; out=$("$@" 2>&1) && rc=0 || rc=$?; echo "$rc: $out"; }

check "init creates the registry with 64 job slots" job init --jobs 64
check_eq "the jobs map, the registry, the job locks and the meta map are pinned 0600" \
	"600 600 600 600" "$(stat -c %a "$pins/jobs" "$pins/job_registry" "$pins/job_locks" "$pins/job_meta" | xargs)"
info=$(bpftool -j map show pinned "$pins/jobs")
check_jq "the jobs map is a 64-slot mmapable array with BTF" \
	'.type == "array" and .max_entries == 64 and .btf_id > 0 and (.flags == 1024)' "$info"
check_eq "the meta map records the layout version" 2 \
	"$(bpftool -j map lookup pinned "$pins/job_meta" key 0 0 0 0 | jq .formatted.value.layout_version)"
out=$(job init --jobs 64)
check "a second init keeps what is there" grep -q "already initialised: 64 job slots" <<<"$out"

check_eq "add hands out the lowest free id from 1" "1" "$(job add --json | jq .id)"
check_eq "add with a name and parameters: the next id" "2" \
	"$(job add --name allreduce-a --k 2 --tau 0.5 --warmup 32 --samples 8 --json | jq .id)"
check_eq "bpftool shows the parameters in the jobs map" "2000000 500000 32 8" \
	"$(for f in k_ppm tau_ppm warmup_psn sample_min_packets; do map_field 2 $f; done | xargs)"
reg=$(bpftool -j map lookup pinned "$pins/job_registry" key 2 0 0 0)
check_jq "bpftool shows the registry entry by field name" \
	'.formatted.value.k_ppm == 2000000 and (.formatted.value.name | tostring | test("allreduce-a"))' "$reg"
check_eq "a job added without parameters takes the qdisc's (0 in the map)" "0 0" \
	"$(map_field 1 k_ppm) $(map_field 1 tau_ppm)"
check_eq "add --id takes that id" 40 "$(job add --id 40 --json | jq .id)"
r=$(status_of job add --id 40)
check "add --id of a registered job exits 1, naming it" \
	grep -q "^1: .*job 40 is registered already" <<<"$r"
r=$(status_of job add --id 64)
check "add --id beyond the map exits 1, naming the range" \
	grep -q "^1: .*--id 64: the jobs map has ids 0..63" <<<"$r"
check_eq "the free id below the others is handed out next" 3 "$(job add --json | jq .id)"

show=$(job show 2 --json)
check_jq "show --json: identity, state block, parameters and counters" \
	'.id == 2 and .name == "allreduce-a" and .registered and (.active | not) and
	 .step_min == 0 and .psn_rec == 0 and .alpha == 0 and .k_ppm == 2000000 and
	 .packets == 0 and has("symphony_marks") and has("outpacing_packets")' "$show"
out=$(job show 2)
check "show prints the job in text" grep -q 'job 2 "allreduce-a"' <<<"$out"
check "show names the parameters with units" grep -q "k 2.000000, tau 0.500000, warmup 32 PSN, samples 8 packets" <<<"$out"
check_jq "show of an unregistered id in range says so" '.registered == false' "$(job show 7 --json)"

check "set changes a parameter of a registered job" job set 2 --k 0.25
check_eq "... in the jobs map, where the qdisc reads it" 250000 "$(map_field 2 k_ppm)"
check_eq "... and in the registry" 250000 \
	"$(bpftool -j map lookup pinned "$pins/job_registry" key 2 0 0 0 | jq .formatted.value.k_ppm)"
check "set --k default returns to the qdisc's k" job set 2 --k default
check_eq "... 0 in the map" 0 "$(map_field 2 k_ppm)"
check_eq "set leaves the other parameters alone" "500000 32" \
	"$(map_field 2 tau_ppm) $(map_field 2 warmup_psn)"

list=$(job list --json)
check_jq "list --json shows the four registered jobs" \
	'[.jobs[].id] == [1, 2, 3, 40] and .slots == 64' "$list"
check "del unregisters a job" job del 40
check_fails "... bpftool finds no registry entry" \
	bpftool map lookup pinned "$pins/job_registry" key 40 0 0 0
r=$(status_of job del 40)
check "del of an unregistered job exits 1" grep -q "^1: .*job 40 is not registered" <<<"$r"

out=$(job reclaim --idle 3600)
check_eq "reclaim keeps jobs idle for less than --idle" "1 2 3" \
	"$(job list --json | jq -r '[.jobs[].id] | join(" ")')"
out=$(job reclaim --idle 0)
check "reclaim --idle 0 reclaims jobs that saw no packet" grep -q "job 2 allreduce-a idle for" <<<"$out"
check_eq "... and they are gone" 0 "$(job list --json | jq '.jobs | length')"

id=$(job add --name short-lived --json | jq .id)
reclaim_log=$(mktemp /tmp/test_agent_jobs.XXXXXX)
on_exit rm -f "$reclaim_log"
"$symofan" job reclaim --idle 1 --every 1 --pin-dir "$pins" >"$reclaim_log" 2>&1 &
reclaimer=$!
for _ in $(seq 40); do
	[ "$(job list --json | jq '.jobs | length')" = 0 ] && break
	sleep 0.1
done
check_eq "reclaim --every runs passes until stopped: the idle job goes" 0 \
	"$(job list --json | jq '.jobs | length')"
kill -TERM "$reclaimer"
wait "$reclaimer" && rc=0 || rc=$?
check_eq "... and it exits 0 on SIGTERM" 0 "$rc"

# another layout: the meta map says version 99
job add --name keep-me --k 3 >/dev/null
bpftool map update pinned "$pins/job_meta" key 0 0 0 0 \
	value 0x4a 0x4d 0x59 0x53 99 0 0 0 64 0 0 0 0 0 0 0
r=$(status_of job list)
check "maps of another layout are refused, naming both layouts and the way to migrate" \
	grep -q "^1: .*have job layout 99, this symofan uses 2: 'symofan job migrate" <<<"$r"
check "migrate re-creates the maps at this layout" job migrate
check_jq "migrate keeps the job's id, name and parameters" \
	'[.jobs[] | "\(.id) \(.name) \(.k_ppm)"] == ["1 keep-me 3000000"]' "$(job list --json)"

r=$(status_of job add --k 500)
check "a parameter out of range exits 2, naming value and range" \
	grep -q "^2: .*--k wants .*gain.*, 0.000001..100, or default, got '500'" <<<"$r"
check "a job's warmup takes the qdisc's whole range, up to 16777216 PSN units" \
	job set 1 --warmup 16777216
check_jq "... and the job shows it" '.warmup_psn == 16777216' "$(job show 1 --json)"
r=$(status_of job set 1 --warmup 16777217)
check "a warmup past the qdisc's range exits 2, naming the range" \
	grep -q "^2: .*--warmup wants .*1..16777216 PSN units, or default" <<<"$r"
r=$(status_of job list --frobnicate)
check "an unknown option exits 2" grep -q "^2: .*unknown option" <<<"$r"
r=$(status_of job set 1 --name foo)
check "an option of another job command is named, not its value" \
	grep -q "^2: .*set: option '--name' does not apply here" <<<"$r"
r=$(status_of "$symofan" job list --pin-dir /tmp)
check "a pin folder off bpffs exits 1 with the reason" \
	grep -q "^1: .*/tmp is not on a bpf filesystem" <<<"$r"
r=$(status_of "$symofan" job list --pin-dir "$pins-absent")
check "a missing registry exits 1 and names the command that creates it" \
	grep -q "^1: .*no job registry at $pins-absent: run 'symofan job init --pin-dir" <<<"$r"
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
r=$(status_of nobody "$symofan" job init --pin-dir "$pins-nobody")
check "init without privileges exits 1, naming CAP_BPF" \
	grep -q "^1: .*creating BPF maps needs CAP_BPF: run as root" <<<"$r"
r=$(status_of nobody "$symofan" job list --pin-dir "$pins")
check "reading without privileges exits 1 with the reason" \
	grep -q "^1: .*permission denied (needs CAP_BPF" <<<"$r"

# The agent creates its folders 0700 and never changes the mode of one
# that exists (it once chmodded any --pin-dir to 0700, the bpffs root's
# 1777 too); it pins only into a folder nobody else can write to, under
# folders others cannot rename it in (a sticky 1777 root's is fine).
shared=/sys/fs/bpf/symofan-shared-$$
on_exit rm -rf "$shared"
mkdir "$shared" && chmod 1777 "$shared"
"$symofan" job init --jobs 4 --pin-dir "$shared/jobs-a" >/dev/null
r=$(status_of "$symofan" job init --jobs 4 --pin-dir "$shared")
check_eq "an existing pin folder keeps its mode (1777), a new one is 0700" \
	"1777 700" "$(stat -c %a "$shared" "$shared/jobs-a" | xargs)"
check "a registry is made under a sticky 1777 folder, and works" \
	"$symofan" job add --name shared --pin-dir "$shared/jobs-a"
check "init refuses a folder others may write to, naming it and its mode" \
	grep -q "^1: .*$shared is owned by uid 0 with mode 1777: a pin folder must be owned by this user" <<<"$r"
check "... and pins nothing there" test ! -e "$shared/jobs"

# A pin folder whose name has a quote and a backslash: list --json escapes
# it (the agent once printed pin_dir raw, invalid JSON).
odd='/sys/fs/bpf/symofan-q"b\\-'$$
on_exit rm -rf "'$odd'"
"$symofan" job init --jobs 4 --pin-dir "$odd" >/dev/null
check "job list --json names a pin folder with a quote and a backslash" \
	sh -c '"$0" job list --json --pin-dir "$1" |
		jq -e --arg dir "$1" ".pin_dir == \$dir" >/dev/null' "$symofan" "$odd"

# job destroy removes the registry's pins and its folder; a second destroy
# and a folder that never was are nothing to do (exit 0: the package's
# prerm runs it); a qdisc or program would keep the maps (tested in the VM
# tier and test_symphony_bpf_ops).
gone=/sys/fs/bpf/symofan-destroy-$$
on_exit rm -rf "$gone"
"$symofan" job init --jobs 8 --pin-dir "$gone" >/dev/null
"$symofan" job add --name doomed --pin-dir "$gone" >/dev/null
check "job destroy removes the registry" "$symofan" job destroy --pin-dir "$gone"
check "... its pins and its folder" test ! -e "$gone"
r=$(status_of "$symofan" job destroy --pin-dir "$gone")
check "a destroyed registry's folder is nothing to destroy (exit 0)" \
	grep -q "^0: .*does not exist: nothing to destroy" <<<"$r"
mkdir -p "$gone"
r=$(status_of "$symofan" job destroy --pin-dir "$gone")
check "a folder without a registry is left as it is (exit 0)" \
	grep -q "^0: .*holds no job registry" <<<"$r"

ktap_finished
