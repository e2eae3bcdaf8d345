#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_ofan_prog.sh - BPF_PROG_TEST_RUN fixtures of the Ofan tc-BPF
# program (every mode, IPv4 and IPv6, TTL 1, malformed headers, the ACK
# class, destinations with one and zero valid ports, the fast path),
# built by 'make -C selftests all'; their TAP output is this test's.
. "$(dirname "$0")/../lib.sh"

require_root
bin=$BUILD_DIR/selftests/test_ofan_prog
require_built "$bin"

"$bin"
rc=$?
case "$rc" in
0|4) exit "$rc" ;;
1) exit $KSFT_FAIL ;;
*) echo "# $bin exited with status $rc"; exit $KSFT_FAIL ;;
esac
