/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perm-driver.h - the Ofan paper's permutation collective on the
 * simulator's hosts, as permsend runs it on the testbed: every host sends
 * m packets to its partner in the seed's derangement (derangement.h, the
 * same partners as permsend's for the same seed) at a fixed fraction of
 * the line rate, or (all-to-all) m packets to every other host, a queue
 * pair each in the staggered order h + 1, h + 2, ... the NIC's round-robin
 * interleaving them, and the receiver ACKs each packet; no congestion control
 * and no retransmission, or (--cca) a window that reacts to the ACKs'
 * marks and round trips and a packet lost sent again.  A host's
 * completion time runs from the common start to its last ACK; its
 * Appendix-A bound (permutation_lb.h) takes all its packets over the
 * path of its last destination (a permutation's one path; all-to-all, an
 * approximation: the appendix derives it for a permutation), at the pace
 * and at the line rate (what the Ofan paper's failure runs compare with).
 * The server ring (the Ofan paper's FSDP2 scale-out rings, its section
 * 6.7): servers of G hosts placed at random, logical GPU i sending to
 * GPU i + G, so each host sends to the host of its own slot in the next
 * server of a random cyclic order.  With P phases, the pattern runs P
 * times on the same queue pairs, each phase starting on every host when
 * the previous one's last ACK is back everywhere (a layer's collective
 * phase ending before the next layer's starts; over MPI, at the
 * processes' first common check after it, one every 100 ns); each
 * phase's CCT and bound are recorded.  A traffic matrix (the Ofan paper's MoE dispatch,
 * its Fig. 13) gives each host its bytes to each other host, a queue pair
 * each in the staggered order, the NIC sending round-robin at the line
 * rate; its bound also counts the busiest receiver's bytes (an incast).
 */
#ifndef SYMOFAN_SIM_PERM_DRIVER_H
#define SYMOFAN_SIM_PERM_DRIVER_H

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "roce-host.h"

namespace ns3
{

struct PermSpec
{
    uint32_t packets = 64;  /* m: data packets per destination */
    bool allToAll = false;  /* every other host a destination, not a partner */
    uint32_t serverRing = 0; /* G: the server ring of G-host servers; 0: not */
    uint32_t phases = 1;
    /* [src][dst]: bytes; empty: the pattern's m packets */
    std::vector<std::vector<uint64_t>> matrix;
    uint32_t loadPpm = 1000000; /* of the line rate, parts per million */
    uint64_t seed = 1;
};

class PermDriver
{
  public:
    /* @hops[i]: links on host i's path to its partner */
    PermDriver(const PermSpec& spec, std::vector<Ptr<RoceHost>> hosts);

    /* the permutation's partners (all-to-all runs do not use them) */
    const std::vector<uint32_t>& Partners() const;
    /* host @h's destinations; all-to-all: h + 1, h + 2, ... (mod hosts) */
    std::vector<uint32_t> Dests(uint32_t h) const;
    /* the pace, parts per million of the line rate, before Start() */
    void SetLoadPpm(uint32_t ppm);
    /* Distributed runs: the hosts this process simulates (default all);
     * before Start(), which starts only theirs.
     */
    void SetLocalHosts(std::vector<bool> local);
    /* @hops(h, d): links on host h's path to host d */
    void Start(const std::function<uint32_t(uint32_t, uint32_t)>& hops, uint64_t delayNs,
               const RoceConfig& roce);
    /* every host of this process's has its ACKs */
    bool Done() const;
    /* each phase's start, end, CCT and bound, JSON (a list) */
    std::string PhasesJson() const;
    /* a matrix: the busiest sender's and receiver's line-rate time with
     * the longest path, ns (0 without a matrix)
     */
    double MatrixBoundNs() const;
    /* each host's result, permsend's names, with whether it is this
     * process's (the others' texts are not results)
     */
    std::vector<std::pair<bool, std::string>> HostItems() const;

  private:
    void OnAcked(uint32_t host, uint32_t qp, uint32_t psn);
    void StartPhase();
    void PostPhase(uint32_t h, uint32_t i);
    void EndPhase(uint64_t endNs);
    void CheckBarrier();

    PermSpec m_spec;
    std::vector<Ptr<RoceHost>> m_hosts;
    std::vector<uint32_t> m_partner;
    std::vector<uint32_t> m_hops; /* each host's path to its last destination */
    std::vector<bool> m_local;
    std::vector<uint64_t> m_acked, m_lastAckNs;
    std::vector<double> m_boundNs, m_fullRateBoundNs; /* at the load, at the line rate */
    uint64_t m_startNs;
    bool m_windowed = false; /* --cca */
    uint32_t m_done;
    uint32_t m_localHosts = 0;
    uint32_t m_idleLocalHosts = 0; /* of them, with nothing to send (a matrix's) */
    /* phases: each host's queue pairs, the current phase, the hosts
     * through it, each phase's start and end
     */
    std::vector<std::vector<uint32_t>> m_qps, m_qpDest; /* [h][i]: queue pair, its destination */
    uint32_t m_phase = 0, m_phaseHostsDone = 0; /* this process's hosts through it */
    uint64_t m_phaseLocalEndNs = 0;             /* their last ACK */
    std::vector<uint64_t> m_phaseStartNs, m_phaseEndNs;
    double m_phaseBoundNs = 0; /* the largest host's bound of one phase */
    /* per host: data packets it sends and receives in a phase */
    std::vector<uint64_t> m_txPackets, m_rxPackets;
    double m_matrixBoundNs = 0;
};

} // namespace ns3

#endif /* SYMOFAN_SIM_PERM_DRIVER_H */
