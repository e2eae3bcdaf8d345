/* SPDX-License-Identifier: GPL-2.0 */
/*
 * symphony_bpf_cfg.h - a port's parameters for Symphony as tc-BPF
 * (include/symphony/symphony_bpf.h): the qdisc's defaults, a parameter
 * set by its tc keyword (the same table, units and ranges as the tc
 * plugin's), and the fields the datapath derives from them and the rate.
 * Used by symofan and the program's fixtures.
 */
#ifndef SYMOFAN_LIB_SYMPHONY_BPF_CFG_H
#define SYMOFAN_LIB_SYMPHONY_BPF_CFG_H

#include <stddef.h>
#include <linux/types.h>

#include "symphony/symphony_bpf.h"

/* The lowest and highest drain rates, bit/s: picoseconds per byte must
 * fit 32 bits and stay above a few.
 */
#define SYMPHONY_BPF_RATE_MIN	10000ULL
#define SYMPHONY_BPF_RATE_MAX	400000000000ULL

void symphony_bpf_cfg_defaults(struct symphony_bpf_cfg *cfg);

/*
 * Set the parameter tc calls @keyword from @text, in tc's words ("50kb",
 * "0.25", "100us", "drop").  Returns 0, or -1 with @err saying which value
 * is wrong and what is valid.  "jobs", "jobs_map" and "limit" in packets
 * are taken; "rate" is not a qdisc parameter (symphony_bpf_cfg_derive).
 */
int symphony_bpf_cfg_set(struct symphony_bpf_cfg *cfg, const char *keyword,
			 const char *text, char *err, size_t err_len);

/*
 * Fill the derived fields for a drain rate of @rate_bps and frames of
 * @frame_bytes (the port's MTU and Ethernet header), @nr_jobs job slots.
 * Returns 0, or -1 with @err (a rate out of range, kmin above kmax).
 */
int symphony_bpf_cfg_derive(struct symphony_bpf_cfg *cfg, __u64 rate_bps,
			    __u32 frame_bytes, __u32 nr_jobs, char *err,
			    size_t err_len);

#endif /* SYMOFAN_LIB_SYMPHONY_BPF_CFG_H */
