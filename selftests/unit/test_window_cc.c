// SPDX-License-Identifier: GPL-2.0
/*
 * test_window_cc.c - unit tests of include/workload/window_cc.h, the
 * simulator's window-based congestion control for sprayed traffic: each
 * algorithm's basic law with exact windows after scripted ACKs (DCTCP's
 * cut by alpha / 2 and alpha's convergence to the marked fraction; NSCC's
 * four cases and quick adapt; MSwift's additive increase, its cut in
 * proportion to the delay over a flow-scaled target, and its pace below
 * one packet), and the loss cut, at most once a round trip.
 * Prints TAP; exits 0 when every test point passes, 1 otherwise.
 */
#include <stdint.h>
#include <stdio.h>

#include "tap.h"
#include "workload/window_cc.h"

#define MTU	4000U
#define BASE_NS	10000ULL	/* 10 us */
#define BDP	100000ULL	/* 25 packets */
#define US	1000ULL

static void setup(struct wcc *c, struct wcc_params *p, enum wcc_algo algo)
{
	wcc_params_default(p, algo, MTU, BASE_NS, BDP);
	wcc_init(c, p);
}

static void test_names(void)
{
	tap_check(wcc_algo_by_name("dctcp") == WCC_DCTCP &&
		  wcc_algo_by_name("nscc") == WCC_NSCC &&
		  wcc_algo_by_name("mswift") == WCC_MSWIFT &&
		  wcc_algo_by_name("none") == WCC_NONE &&
		  wcc_algo_by_name("swift") == -1,
		  "names: dctcp, nscc, mswift, none; nothing else");
	tap_check(wcc_isqrt(0) == 0 && wcc_isqrt(1) == 1 && wcc_isqrt(99) == 9 &&
		  wcc_isqrt(100) == 10 && wcc_isqrt(1ULL << 40) == 1ULL << 20,
		  "isqrt: floor of the root");
}

static void test_dctcp(void)
{
	struct wcc_params p;
	struct wcc c;
	int i;

	setup(&c, &p, WCC_DCTCP);
	tap_check(c.cwnd_bytes == BDP && c.alpha_q16 == WCC_ONE_Q16 &&
		  p.max_cwnd_bytes == BDP * 3 / 2 && p.min_cwnd_bytes == MTU,
		  "dctcp: starts at the BDP with alpha 1, at most 1.5 BDP, at least an MTU");
	wcc_on_ack(&c, &p, MTU, false, BASE_NS, 100 * US);
	/* one MTU a round trip: 4000 x 4000 / 100000 = 160 */
	tap_check(c.cwnd_bytes == BDP + 160, "dctcp: an unmarked ACK adds MTU x bytes / cwnd (%llu)",
		  (unsigned long long)c.cwnd_bytes);
	wcc_on_ack(&c, &p, MTU, true, BASE_NS, 101 * US);
	tap_check(c.cwnd_bytes == (BDP + 160) / 2 && c.decreases == 1,
		  "dctcp: a mark cuts cwnd (1 - alpha / 2), alpha 1: half (%llu)",
		  (unsigned long long)c.cwnd_bytes);
	wcc_on_ack(&c, &p, MTU, true, BASE_NS, 105 * US);
	tap_check(c.cwnd_bytes == (BDP + 160) / 2 && c.decreases == 1,
		  "dctcp: a second mark within the round trip does not cut again");
	wcc_on_ack(&c, &p, MTU, true, BASE_NS, 112 * US);
	tap_check(c.decreases == 2, "dctcp: a mark a round trip later cuts again");

	/* alpha's law: a quarter of the bytes marked, window after window:
	 * alpha -> 1/4 (g = 1/16: within 1% after 100 windows)
	 */
	setup(&c, &p, WCC_DCTCP);
	for (i = 0; i < 20000; i++)
		wcc_on_ack(&c, &p, MTU, !(i % 4), BASE_NS, 100 * US + i * 40ULL);
	tap_check(c.alpha_q16 > WCC_ONE_Q16 / 4 - 655 && c.alpha_q16 < WCC_ONE_Q16 / 4 + 655,
		  "dctcp: alpha converges to the marked fraction, 1/4: %u/65536", c.alpha_q16);
	setup(&c, &p, WCC_DCTCP);
	for (i = 0; i < 20000; i++)
		wcc_on_ack(&c, &p, MTU, false, BASE_NS, 100 * US + i * 40ULL);
	tap_check(c.alpha_q16 < 655 && c.cwnd_bytes == p.max_cwnd_bytes && !c.decreases,
		  "dctcp: no marks: alpha decays to 0 (%u), cwnd grows to its ceiling",
		  c.alpha_q16);
}

static void test_nscc(void)
{
	struct wcc_params p;
	struct wcc c;
	__u64 target;

	setup(&c, &p, WCC_NSCC);
	target = p.nscc_target_ns;
	tap_check(target == BASE_NS / 2 && p.nscc_gamma_q16 == 52428,
		  "nscc: target half the base round trip, gamma 0.8");
	/* no mark, no queue: proportional increase at its fullest, pi = 1 MTU */
	wcc_on_ack(&c, &p, MTU, false, BASE_NS, 100 * US);
	tap_check(c.cwnd_bytes == BDP + 160, "nscc: no mark, delay 0: cwnd + pi x MTU x bytes / cwnd (%llu)",
		  (unsigned long long)c.cwnd_bytes);
	/* half the target: half the increase (80 of 100160: 4000 x 4000 /
	 * 100160 x 1/2 = 79.87, floored in the Q16 chain to 79)
	 */
	wcc_on_ack(&c, &p, MTU, false, BASE_NS + target / 2, 100 * US);
	tap_check(c.cwnd_bytes == BDP + 160 + 79,
		  "nscc: no mark, delay half the target: half the increase (%llu)",
		  (unsigned long long)c.cwnd_bytes);
	/* no mark, a queue past the target: fair increase, fi = MTU / 4 */
	setup(&c, &p, WCC_NSCC);
	wcc_on_ack(&c, &p, MTU, false, BASE_NS + 2 * target, 100 * US);
	tap_check(c.cwnd_bytes == BDP + 40, "nscc: no mark, delay past the target: fair increase (%llu)",
		  (unsigned long long)c.cwnd_bytes);
	/* a mark, no queue: hold */
	setup(&c, &p, WCC_NSCC);
	wcc_on_ack(&c, &p, MTU, true, BASE_NS + target / 2, 100 * US);
	tap_check(c.cwnd_bytes == BDP && !c.decreases, "nscc: a mark with the delay under the target: no change");
	/* a mark and delay 2 x target: cwnd (1 - 0.8 x 1/2) = 0.6 cwnd */
	wcc_on_ack(&c, &p, MTU, true, BASE_NS + 2 * target, 101 * US);
	tap_check(c.cwnd_bytes >= BDP * 6 / 10 - 2 && c.cwnd_bytes <= BDP * 6 / 10 && c.decreases == 1,
		  "nscc: a mark with delay 2 x target: cwnd x (1 - gamma / 2) = %llu",
		  (unsigned long long)c.cwnd_bytes);
	wcc_on_ack(&c, &p, MTU, true, BASE_NS + 2 * target, 105 * US);
	tap_check(c.decreases == 1, "nscc: at most one decrease a base round trip");
	/* a huge delay: never below half */
	wcc_on_ack(&c, &p, MTU, true, BASE_NS + 100 * target, 112 * US);
	tap_check(c.decreases == 2 && c.cwnd_bytes >= BDP * 3 / 10 - 2 && c.cwnd_bytes <= BDP * 3 / 10,
		  "nscc: a decrease keeps at least half (%llu)", (unsigned long long)c.cwnd_bytes);

	/* quick adapt: a base round trip that ACKed a tenth of the window,
	 * the delay past 4 x target: cwnd drops to what it ACKed
	 */
	setup(&c, &p, WCC_NSCC);
	wcc_on_ack(&c, &p, MTU, false, BASE_NS + 5 * target, 100 * US);
	wcc_on_ack(&c, &p, MTU, false, BASE_NS + 5 * target, 100 * US + BASE_NS);
	tap_check(c.quick_adapts == 1 && c.cwnd_bytes >= MTU * 2 && c.cwnd_bytes <= MTU * 2 + 40,
		  "nscc: quick adapt: cwnd to the bytes ACKed in the base round trip (%llu)",
		  (unsigned long long)c.cwnd_bytes);
	setup(&c, &p, WCC_NSCC);
	wcc_on_ack(&c, &p, MTU, false, BASE_NS + 3 * target, 100 * US);
	wcc_on_ack(&c, &p, MTU, false, BASE_NS + 3 * target, 100 * US + BASE_NS);
	tap_check(!c.quick_adapts, "nscc: no quick adapt under 4 x target");
}

static void test_mswift(void)
{
	struct wcc_params p;
	struct wcc c;
	__u64 t_small, t_big, target, w;

	setup(&c, &p, WCC_MSWIFT);
	tap_check(p.min_cwnd_bytes == MTU / 100 && p.swift_beta_q16 == 52428 &&
		  p.swift_max_mdf_q16 == WCC_ONE_Q16 / 2,
		  "mswift: down to a hundredth of a packet, beta 0.8, max_mdf 0.5");
	/* flow scaling: the smaller the window, the larger the target */
	c.cwnd_bytes = MTU / 10;
	t_small = wcc_swift_target_ns(&c, &p);
	c.cwnd_bytes = 100 * MTU;
	t_big = wcc_swift_target_ns(&c, &p);
	c.cwnd_bytes = 200 * MTU;
	tap_check(t_small == p.swift_base_target_ns + p.swift_fs_range_ns &&
		  t_big == p.swift_base_target_ns &&
		  wcc_swift_target_ns(&c, &p) == t_big,
		  "mswift: flow scaling adds its whole range at 0.1 packet (%llu ns), nothing from 100 (%llu ns)",
		  (unsigned long long)t_small, (unsigned long long)t_big);
	c.cwnd_bytes = 4 * MTU;
	target = wcc_swift_target_ns(&c, &p);
	tap_check(target > t_big && target < t_small,
		  "mswift: between them at 4 packets (%llu ns)", (unsigned long long)target);
	p.swift_hops = 6;
	p.swift_hop_ns = 100;
	tap_check(wcc_swift_target_ns(&c, &p) == target + 600, "mswift: hop scaling adds hops x hop_ns");

	setup(&c, &p, WCC_MSWIFT);
	wcc_on_ack(&c, &p, MTU, true, BASE_NS, 100 * US);
	tap_check(c.cwnd_bytes == BDP + 160, "mswift: under the target: + ai x MTU x bytes / cwnd, marks ignored (%llu)",
		  (unsigned long long)c.cwnd_bytes);
	/* delay 2 x target at 25 packets */
	w = c.cwnd_bytes;
	target = wcc_swift_target_ns(&c, &p);
	wcc_on_ack(&c, &p, MTU, false, BASE_NS + 2 * target, 101 * US);
	tap_check(c.cwnd_bytes + 2 >= w * 6 / 10 && c.cwnd_bytes <= w * 6 / 10 && c.decreases == 1,
		  "mswift: delay 2 x target: cwnd x (1 - beta / 2) = %llu", (unsigned long long)c.cwnd_bytes);
	wcc_on_ack(&c, &p, MTU, false, BASE_NS + 2 * target, 103 * US);
	tap_check(c.decreases == 1, "mswift: at most one decrease a round trip");
	w = c.cwnd_bytes;
	/* a round trip of the new sample later: its smoothed round trip
	 * has grown with it
	 */
	wcc_on_ack(&c, &p, MTU, false, BASE_NS + 100 * target, 1200 * US);
	tap_check(c.decreases == 2 && c.cwnd_bytes + 1 >= w / 2 && c.cwnd_bytes <= w / 2,
		  "mswift: a cut keeps at least 1 - max_mdf (%llu of %llu)",
		  (unsigned long long)c.cwnd_bytes, (unsigned long long)w);

	/* below a packet: + ai x bytes per ACK, and a pace of srtt x MTU / cwnd */
	setup(&c, &p, WCC_MSWIFT);
	c.cwnd_bytes = MTU / 4;
	c.srtt_ns = BASE_NS;
	tap_check(wcc_pace_ns(&c, &p) == 4 * BASE_NS, "mswift: a quarter-packet window paces one packet per 4 round trips");
	wcc_on_ack(&c, &p, MTU / 100, false, BASE_NS, 100 * US);
	tap_check(c.cwnd_bytes == MTU / 4 + MTU / 100,
		  "mswift: below a packet an ACK adds ai x its bytes (%llu)", (unsigned long long)c.cwnd_bytes);
	c.cwnd_bytes = 2 * MTU;
	tap_check(wcc_pace_ns(&c, &p) == 0, "mswift: no pace from one packet up");
}

static void test_loss(void)
{
	struct wcc_params p;
	struct wcc c;

	setup(&c, &p, WCC_DCTCP);
	wcc_on_loss(&c, &p, 100 * US);
	wcc_on_loss(&c, &p, 101 * US);
	tap_check(c.cwnd_bytes == BDP / 2 && c.losses == 2 && c.decreases == 1,
		  "loss: dctcp halves, once a round trip");
	setup(&c, &p, WCC_NSCC);
	wcc_on_loss(&c, &p, 100 * US);
	tap_check(c.cwnd_bytes == BDP / 2, "loss: nscc halves");
	setup(&c, &p, WCC_MSWIFT);
	wcc_on_loss(&c, &p, 100 * US);
	wcc_on_loss(&c, &p, 100 * US + BASE_NS);
	tap_check(c.cwnd_bytes == BDP / 4 && c.decreases == 2,
		  "loss: mswift cuts 1 - max_mdf, again a round trip later");
	setup(&c, &p, WCC_DCTCP);
	c.cwnd_bytes = MTU;
	wcc_on_loss(&c, &p, 100 * US);
	tap_check(c.cwnd_bytes == MTU, "loss: never below the minimum window");
}

int main(void)
{
	test_names();
	test_dctcp();
	test_nscc();
	test_mswift();
	test_loss();
	return tap_finish();
}
