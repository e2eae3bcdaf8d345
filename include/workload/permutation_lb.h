/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * permutation_lb.h - the lower bound on the completion time of a
 * permutation collective (Ofan paper, Appendix A): every host sends m
 * data packets over H hops to its partner, which ACKs each one, and the
 * collective ends when the last ACK is back.  Times in ns (doubles: this
 * is userspace arithmetic for reports).
 *
 * At 100% of the line rate the appendix's three modes apply: data only
 * (the first i1 packets), data and ACKs interleaved, then ACKs only.  At
 * a lower offered load the data leave every T_d / load; while that
 * spacing leaves room for an ACK (T_d / load >= T'_d + T'_a), ACKs slip
 * into the gaps and the bound is the last packet's arrival plus its ACK's
 * way back; otherwise the interleaved spacing T'_d + T'_a governs.
 */
#ifndef _WORKLOAD_PERMUTATION_LB_H
#define _WORKLOAD_PERMUTATION_LB_H

#include <math.h>
#include <stdlib.h>

struct permutation_lb_params {
	unsigned int	m;		/* data packets per host */
	unsigned int	hops;		/* H: links on a path */
	double		t_data_ns;	/* T_d: a data frame's serialisation */
	double		t_ack_ns;	/* T_a: an ACK frame's serialisation */
	double		t_gap_ns;	/* T_g: gap between frames */
	double		t_prop_ns;	/* T_p: one-way propagation */
	double		load;		/* offered load, (0, 1] */
};

/* The bound, in ns; 0 for m == 0. */
static inline double permutation_lb_ns(const struct permutation_lb_params *p)
{
	double td1 = p->t_data_ns + p->t_gap_ns, ta1 = p->t_ack_ns + p->t_gap_ns;
	double spacing = p->t_data_ns / p->load, t1, *ack, lb;
	unsigned int m = p->m, h = p->hops, i1, i2, i;

	if (!m)
		return 0;
	t1 = p->t_prop_ns + h * p->t_data_ns;
	if (p->load < 1 && spacing >= td1 + ta1)
		return t1 + (m - 1) * spacing + p->t_prop_ns + h * p->t_ack_ns;

	/* Appendix A, eq. (8) and the three modes */
	i1 = (unsigned int)ceil((p->t_prop_ns + (h - 1) * p->t_data_ns) / td1) + 1;
	if (i1 > m)
		i1 = m;
	i2 = m - i1 + 1;
	ack = (double *)calloc(m + 1, sizeof(*ack));	/* C++ too (sim/) */
	if (!ack)
		return 0;
	ack[1] = t1 + (i1 - 1) * (spacing > td1 ? spacing : td1) + ta1;
	for (i = 2; i <= i2; i++)
		ack[i] = ack[1] + (i - 1) * (td1 + ta1);
	for (i = i2 + 1; i <= m; i++) {
		double by_link = ack[i2] + (i - i2) * ta1;
		double by_data = i > i1 - 1 ? ack[i - (i1 - 1)] + (h - 1) * ta1 +
				 p->t_prop_ns : 0;

		ack[i] = by_link > by_data ? by_link : by_data;
	}
	lb = ack[m];
	free(ack);
	return lb;
}

#endif /* _WORKLOAD_PERMUTATION_LB_H */
