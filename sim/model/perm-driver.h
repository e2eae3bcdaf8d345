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
    /* each host's result, permsend's names, with whether it is this
     * process's (the others' texts are not results)
     */
    std::vector<std::pair<bool, std::string>> HostItems() const;

  private:
    void OnAcked(uint32_t host, uint32_t qp, uint32_t psn);

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
};

} // namespace ns3

#endif /* SYMOFAN_SIM_PERM_DRIVER_H */
