#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_window_cc.sh - the unit tests of include/workload/window_cc.h, the
# simulator's window-based congestion control for sprayed traffic (DCTCP,
# UEC's NSCC, multipath Swift: each one's law on exact windows), built by
# 'make -C selftests all'; their TAP output is this test's.
. "$(dirname "$0")/../lib.sh"

run_unit_test "$BUILD_DIR/selftests/test_window_cc"
