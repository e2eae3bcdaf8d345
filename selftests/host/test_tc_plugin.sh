#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_tc_plugin.sh - Debian's tc loads q_symphony.so from TC_LIB_DIR and
# its parser gives help and rejects bad options before anything reaches
# the kernel (the kernel side is tested in the VM tier).
. "$(dirname "$0")/../lib.sh"

require_cmd tc
require_built "$BUILD_DIR/tc/q_symphony.so"
export TC_LIB_DIR=$BUILD_DIR/tc

ktap_plan 4

out=$(tc qdisc add dev lo root symphony help 2>&1)
check "help prints the usage with units" grep -q 'limit PACKETS' <<<"$out"
out=$(tc qdisc add dev lo root symphony limit 0 2>&1)
check "limit 0 is refused, naming the value" grep -q 'illegal limit "0"' <<<"$out"
out=$(tc qdisc add dev lo root symphony limit 12x 2>&1)
check "a non-number limit is refused" grep -q 'illegal limit "12x"' <<<"$out"
out=$(tc qdisc add dev lo root symphony limit 2>&1)
check "a missing value is refused" grep -q '"limit" needs' <<<"$out"

ktap_finished
