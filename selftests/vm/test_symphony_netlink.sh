#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_symphony_netlink.sh - the symphony qdisc's netlink configuration:
# every out-of-range value, bad type and malformed nest is refused with an
# extack message naming the parameter, and a refused change leaves the
# previous configuration in place; good values are applied and dumped.
# Raw netlink (symphony_nl) bypasses the tc plugin's own checks.
. "$(dirname "$0")/../lib.sh"

symphony_vm_test jq
nl=$BUILD_DIR/selftests/symphony_nl
require_built "$nl"

# attributes | substring of the kernel's message
cases=(
	"limit=0|limit must be 1..1000000 packets"
	"limit=1000001|limit must be 1..1000000 packets"
	"pmax=1000001|pmax must be 0..1000000 ppm"
	"k=100000001|k must be 0..100000000 ppm"
	"tau=1000001|tau must be 0..1000000 ppm"
	"twin=0|twin must be 1..10000000 us"
	"twin=10000001|twin must be 1..10000000 us"
	"warmup=16777217|warmup must be 0..16777216"
	"samples=4294967295|samples must be 0..4294967294 packets"
	"alpha_max=0|alpha_max must be 1..65536"
	"alpha_max=65537|alpha_max must be 1..65536"
	"nonect=2|nonect must be one of: drop (0) pass (1)"
	"marking=2|marking must be one of: red (0) symphony (1)"
	"job_field=3|job_field must be one of: udp_sport (0)"
	"step_field=255|step_field must be one of: udp_sport (0)"
	"jobs=0|jobs must be 1..16777216 slots"
	"jobs=16777217|jobs must be 1..16777216 slots"
	"kmin=2000 kmax=1000|kmin must not exceed kmax"
	"jobs_fd=-2|jobs_fd must be a file descriptor or -1"
	"jobs_fd=0|jobs_map is not a BPF map fd"
	"jobs_map_id=1|jobs_map_id is read-only"
	"1:u8=5|"
	"99:u32=1|"
	"limit=100 pmax=2000000|pmax must be"
)

ktap_plan $(( ${#cases[@]} + 9 ))

netns_create a
ip -n "$a" link add d0 type dummy
ip -n "$a" link set d0 up
run() { "$nl" -n "$a" d0 "$@"; }

check "add with defaults over raw netlink" run add
good='limit=500 limit_bytes=300000 kmin=3000 kmax=9000 pmax=500000 nonect=1 marking=0 k=20000 tau=300000 twin=250 warmup=8 samples=4 alpha_max=64 job_field=2 step_field=1 jobs=128 qmin=4500'
# shellcheck disable=SC2086
check "change every parameter at once" run change $good
config=$(tc -n "$a" -j qdisc show dev d0 | jq -c '.[0].options')
check_jq "the dump shows them all" '.limit_packets == 500 and .limit_bytes == 300000
	and .kmin_bytes == 3000 and .kmax_bytes == 9000 and .pmax_ppm == 500000
	and .nonect == "pass" and .marking == "red" and .k_ppm == 20000
	and .tau_ppm == 300000 and .twin_us == 250 and .warmup_psn == 8
	and .samples_packets == 4 and .alpha_max == 64
	and .job_field == "bth_destqp" and .step_field == "bth_rsvd"
	and .jobs == 128 and .qmin_bytes == 4500' "$config"

for c in "${cases[@]}"; do
	attrs=${c%%|*}
	want=${c#*|}
	# shellcheck disable=SC2086
	out=$(run change $attrs 2>&1)
	rc=$?
	if [ "$rc" -eq 1 ] && { [ -z "$want" ] || grep -qF "$want" <<<"$out"; }; then
		ktap_pass "refused: $attrs ($(sed 's/^error [0-9]* //' <<<"$out"))"
	else
		ktap_fail "refused: $attrs" "exit $rc, wanted 1 and '$want'" "$out"
	fi
done

check_fails "a nest without NLA_F_NESTED is refused" run change --no-nested-flag limit=10

# The ranges live in the policy: the kernel reports the refused
# attribute's policy with the error.
check "the policy of a refused value comes with the error (min 1, max 1000000)" \
	sh -c "$nl -n $a d0 change limit=0 | grep -qx 'policy: min=1 max=1000000'"
out=$(run change jobs_fd=-2 2>&1)
check_fails "no message repeats the module's name" grep -q 'sch_symphony: sch_symphony:' <<<"$out"
# Kernels from 6.2 format the value into the message (6.1 cannot).
case "${SYMOFAN_VM_KERNEL:-6.1}" in
6.1*) ktap_skip "a negative fd is shown as negative" "6.1 has no formatted extack" ;;
*) check "a negative fd is shown as negative" grep -qF '(got -2)' <<<"$out" ;;
esac
check_eq "no refused change altered the configuration" "$config" \
	"$(tc -n "$a" -j qdisc show dev d0 | jq -c '.[0].options')"
check "tc shows the configuration in text with units" sh -c \
	"tc -n $a qdisc show dev d0 | grep -q 'limit 500p limit_bytes 300000b kmin 3000b kmax 9000b pmax 0.500000 nonect pass marking red k 0.020000 tau 0.300000 twin 250us warmup 8 samples 4 alpha_max 64 qmin 4500b'"

ktap_finished
