#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_symphony_tdc.sh - the symphony qdisc's tc surface as tc-testing
# (tdc) JSON cases, selftests/tc-tests/symphony.json: add with each
# parameter, refusals that add nothing, change, replace and delete,
# statistics, and symphony under HTB, TBF, DRR and mq.  The same file runs
# under the kernel's tools/testing/selftests/tc-testing/tdc.py (nsPlugin)
# with TC_LIB_DIR pointing at the plugin; here selftests/tools/tdc_run.py
# runs it and prints KTAP.
. "$(dirname "$0")/../lib.sh"

symphony_vm_test python3 nsenter

exec "$SELFTESTS_DIR/tools/tdc_run.py" "$SELFTESTS_DIR/tc-tests/symphony.json"
