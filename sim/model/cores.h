/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cores.h - the project's C cores as the simulator includes them: the
 * very headers the kernel qdisc, the BPF programs and the workload tools
 * compile (Symphony's parser and Algorithm 1, DCQCN, the RoCEv2 frames,
 * the go-back-N timeout, Ofan's pointer step and base permutation, the
 * permutation bound),
 * unchanged, in C++.  In C++ __u64 is unsigned long long and uint64_t is
 * unsigned long: pointers handed to the cores must be __u64 *.
 */
#ifndef SYMOFAN_SIM_CORES_H
#define SYMOFAN_SIM_CORES_H

extern "C" {
#include "symphony/symphony_core.h"
#include "symphony/symphony_params.h"
#include "workload/dcqcn.h"
#include "workload/roce_frame.h"
#include "workload/rto.h"
#include "workload/window_cc.h"
#include "workload/reps.h"
#include "workload/permutation_lb.h"
#include "ofan/ofan_core.h"
#include "ofan/ofan_perm.h"
#include "ofan/ofan_maps.h"
}

#endif /* SYMOFAN_SIM_CORES_H */
