#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_userspace_lib.sh - the unit tests of userspace/lib (number readers,
# the symphony qdisc's parameter table and its reader), built by
# 'make -C selftests all'; their TAP output is this test's.
. "$(dirname "$0")/../lib.sh"

run_unit_test "$BUILD_DIR/selftests/test_userspace_lib"
