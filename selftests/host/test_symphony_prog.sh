#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_symphony_prog.sh - BPF_PROG_TEST_RUN fixtures of Symphony as tc-BPF
# (bpf/symphony.bpf.c): the module's unit cases through the program and RED
# on the phantom queue (selftests/unit/test_symphony_prog.c),
# built by 'make -C selftests all'; their TAP output is this test's.
. "$(dirname "$0")/../lib.sh"

require_root
bin=$BUILD_DIR/selftests/test_symphony_prog
require_built "$bin"

"$bin"
rc=$?
case "$rc" in
0|4) exit "$rc" ;;
1) exit $KSFT_FAIL ;;
*) echo "# $bin exited with status $rc"; exit $KSFT_FAIL ;;
esac
