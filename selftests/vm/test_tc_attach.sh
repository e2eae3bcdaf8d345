#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_tc_attach.sh - the host tier's test of how symofan attaches its
# tc-BPF programs, on each VM kernel: by clsact filter on Debian's 6.1,
# by pinned tcx link on 6.12 and 7.3 (attach, re-attach, detach, a second
# pin folder refused, a killed agent); the runner then checks the boot's
# log for splats (and, on the debug kernel, kmemleak).
. "$(dirname "$0")/../lib.sh"

require_root

ktap_plan 1
check "Symphony's and Ofan's attachments on $(uname -r)" \
	"$TOP_DIR/selftests/host/test_tc_attach.sh"
ktap_finished
