#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_ofan_core.sh - the unit tests of include/ofan/ofan_core.h and
# ofan_perm.h (port orders, base permutation P, round-robin pointers),
# built by 'make -C selftests all'; their TAP output is this test's.
. "$(dirname "$0")/../lib.sh"

run_unit_test "$BUILD_DIR/selftests/test_ofan_core"
