#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_ofan_bpf.sh - Ofan's tc-BPF program on the VM's kernels (Debian's
# 6.1 and 6.12), where the host tier cannot go: the verifier of each
# accepts the program in every mode's path (ofan, pofan, rr, rps, ecmp,
# ar and jsq share one object), and its BPF_PROG_TEST_RUN fixtures pass;
# the runner then checks the boot's log for splats.  The program is built
# against vmlinux.h (CO-RE), so libbpf needs the kernel's BTF: on a kernel
# without it (the project's debug kernel, CONFIG_DEBUG_INFO_NONE) the test
# skips, saying so.
. "$(dirname "$0")/../lib.sh"

require_root
[ -e /sys/kernel/btf/vmlinux ] ||
	ktap_skip_all "$(uname -r) has no BTF (/sys/kernel/btf/vmlinux): the Ofan program's CO-RE relocations need it"

ktap_plan 1
check "the Ofan program's fixtures pass on $(uname -r)" \
	"$TOP_DIR/selftests/host/test_ofan_prog.sh"
ktap_finished
