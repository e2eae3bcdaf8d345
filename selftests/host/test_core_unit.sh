#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_core_unit.sh - the unit tests of include/symphony/symphony_core.h
# (marking probabilities, parser, Algorithm 1), built by
# 'make -C selftests all'; their TAP output is this test's.
. "$(dirname "$0")/../lib.sh"

run_unit_test "$BUILD_DIR/selftests/test_symphony_core"
