#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_ofan_core.sh - the unit tests of include/ofan/ofan_core.h and
# ofan_perm.h (port orders, base permutation P, round-robin pointers),
# built by 'make -C selftests all'; their TAP output is this test's.
. "$(dirname "$0")/../lib.sh"

bin=$BUILD_DIR/selftests/test_ofan_core
require_built "$bin"

"$bin"
rc=$?
case "$rc" in
0) exit $KSFT_PASS ;;
1) exit $KSFT_FAIL ;;
*) echo "# $bin exited with status $rc"; exit $KSFT_FAIL ;;
esac
