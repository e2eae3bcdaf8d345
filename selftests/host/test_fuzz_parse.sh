#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_fuzz_parse.sh - a bounded libFuzzer run of symphony_parse() and
# Algorithm 1 (selftests/fuzz/fuzz_symphony_parse.c, built by
# 'make -C selftests all') on a copy of the seed corpus, with ASan and
# UBSan.  Passes when libFuzzer ends without a finding; a crashing input
# is kept under build/selftests/fuzz-artifacts/.
#
# FUZZ_SECONDS (default 20) sets the length of the run.
. "$(dirname "$0")/../lib.sh"

bin=$BUILD_DIR/selftests/fuzz_symphony_parse
seconds=${FUZZ_SECONDS:-20}

# Only a missing libFuzzer runtime excuses a missing binary.
have_libfuzzer() {
	printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return !d + !n; }\n' |
		clang -fsanitize=fuzzer -x c - -o /dev/null >/dev/null 2>&1
}
if [ ! -e "$bin" ] && ! have_libfuzzer; then
	ktap_skip_all "clang's libFuzzer runtime is absent (libclang-rt-14-dev):" \
		"the fuzzer cannot be built"
fi
require_built "$bin"

ktap_plan 1

work=$(mktemp -d /tmp/fuzz_symphony_parse.XXXXXX)
on_exit "rm -rf '$work'"
artifacts=$BUILD_DIR/selftests/fuzz-artifacts
mkdir -p "$work/corpus" "$artifacts"
cp "$SELFTESTS_DIR"/fuzz/corpus/* "$work/corpus/"

"$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
	-print_final_stats=1 -artifact_prefix="$artifacts/" \
	"$work/corpus" >"$work/log" 2>&1
rc=$?
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
ktap_print "libFuzzer exit status $rc, ${execs:-no} executions (limit $seconds s)"

if [ "$rc" -eq 0 ] && [ -n "$execs" ]; then
	ktap_pass "symphony_parse survives $execs fuzzed inputs"
else
	ktap_fail "symphony_parse survives $seconds s of fuzzing"
	{
		grep -E 'ERROR|invariant broken|SUMMARY|Test unit written' "$work/log" | head -n 5
		echo "--- end of the libFuzzer log:"
		tail -n 25 "$work/log"
	} | sed 's/^/#   /'
fi

ktap_finished
