#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_symphony_bpf.sh - Symphony as tc-BPF on the VM's kernels (Debian's
# 6.1 and 6.12, the debug kernel), where the host tier cannot go: the
# verifier of each accepts the program, its BPF_PROG_TEST_RUN fixtures
# pass, and the host tier's netns test (attach, CE on the outpacing step
# only, shared job state, errors, detach) passes; the runner then checks
# the boot's log for splats (and, on the debug kernel, kmemleak).
. "$(dirname "$0")/../lib.sh"

require_root

ktap_plan 2
check "the program's fixtures pass on $(uname -r)" \
	"$TOP_DIR/selftests/host/test_symphony_prog.sh"
check "attach, marks, shared jobs, errors and detach on $(uname -r)" \
	"$TOP_DIR/selftests/host/test_symphony_bpf.sh"
ktap_finished
