#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_workload_core.sh - the unit tests of include/workload/ (the DCQCN
# rate machine, exact rates; RoCEv2/UEC framing, byte-exact and read back
# by the qdisc's parser), built by 'make -C selftests all'; their TAP
# output is this test's.
. "$(dirname "$0")/../lib.sh"

run_unit_test "$BUILD_DIR/selftests/test_workload_core"
