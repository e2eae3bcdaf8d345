#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_workload_core.sh - the unit tests of include/workload/ (the DCQCN
# rate machine, exact rates; RoCEv2/UEC framing, byte-exact and read back
# by the qdisc's parser), built by 'make -C selftests all'; their TAP
# output is this test's.
. "$(dirname "$0")/../lib.sh"

bin=$BUILD_DIR/selftests/test_workload_core
require_built "$bin"

"$bin"
rc=$?
case "$rc" in
0) exit $KSFT_PASS ;;
1) exit $KSFT_FAIL ;;
*) echo "# $bin exited with status $rc"; exit $KSFT_FAIL ;;
esac
