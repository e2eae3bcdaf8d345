#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_symphony_params.sh - the unit tests of the symphony qdisc's
# parameter table (include/symphony/symphony_params.h) and its userspace
# reader, built by 'make -C selftests all'; their TAP output is this test's.
. "$(dirname "$0")/../lib.sh"

run_unit_test "$BUILD_DIR/selftests/test_symphony_params"
