// SPDX-License-Identifier: GPL-2.0
/*
 * perm-driver.cc - the permutation collective on the simulator's hosts
 * (perm-driver.h).
 */
#include "perm-driver.h"

#include <algorithm>
#include <sstream>

#include "ns3/simulator.h"

#include "cores.h"
#include "partition.h"

extern "C" {
#include "workload/derangement.h"
}

namespace ns3
{

/* the hosts start together, 1 ms in */
static constexpr uint64_t kStartNs = 1000000;
/* distributed phases: how often the processes agree whether a phase has
 * ended everywhere (the next one starts at the first such check after
 * the phase's last ACK; one process starts it at that ACK)
 */
static constexpr uint64_t kBarrierCheckNs = 100;
/* a data packet's and an ACK's bytes past the IP header: UDP, BTH,
 * payload or AETH, ICRC
 */
static constexpr uint32_t kUdp = 8;

PermDriver::PermDriver(const PermSpec& spec, std::vector<Ptr<RoceHost>> hosts)
    : m_spec(spec),
      m_hosts(std::move(hosts)),
      m_local(m_hosts.size(), true),
      m_startNs(kStartNs),
      m_done(0)
{
    uint32_t n = m_hosts.size();

    m_partner.resize(n);
    if (spec.serverRing)
    {
        /* servers in a random cyclic order (the seed's Fisher-Yates
         * shuffle); each host to its slot in the next server
         */
        uint32_t g = spec.serverRing, servers = n / g;
        std::vector<uint32_t> order(servers), next(servers);
        __u64 state = spec.seed;

        for (uint32_t i = 0; i < servers; i++)
            order[i] = i;
        for (uint32_t i = servers - 1; i > 0; i--)
            std::swap(order[i], order[derangement_next_random(&state) % (i + 1)]);
        for (uint32_t i = 0; i < servers; i++)
            next[order[i]] = order[(i + 1) % servers];
        for (uint32_t h = 0; h < n; h++)
            m_partner[h] = next[h / g] * g + h % g;
    }
    else
        derangement(m_partner.data(), n, spec.seed);
    m_acked.assign(n, 0);
    m_lastAckNs.assign(n, 0);
    for (uint32_t h = 0; h < n; h++)
        m_hosts[h]->SetAckedCallback(MakeCallback(&PermDriver::OnAcked, this).Bind(h));
}

const std::vector<uint32_t>&
PermDriver::Partners() const
{
    return m_partner;
}

std::vector<uint32_t>
PermDriver::Dests(uint32_t h) const
{
    std::vector<uint32_t> dests;

    if (!m_spec.matrix.empty())
    {
        /* a matrix's destinations, staggered as all-to-all's */
        for (uint32_t i = 1; i < m_hosts.size(); i++)
            if (m_spec.matrix[h][(h + i) % m_hosts.size()])
                dests.push_back((h + i) % m_hosts.size());
        return dests;
    }
    if (!m_spec.allToAll)
        return {m_partner[h]};
    /* staggered, as collective libraries order an all-to-all: the NIC's
     * round-robin then sends every host's k-th packet by the same shift,
     * a permutation in every slot, never an incast by construction
     */
    for (uint32_t i = 1; i < m_hosts.size(); i++)
        dests.push_back((h + i) % m_hosts.size());
    return dests;
}

void
PermDriver::SetLocalHosts(std::vector<bool> local)
{
    m_local = std::move(local);
    m_local.resize(m_hosts.size(), false);
}

void
PermDriver::SetLoadPpm(uint32_t ppm)
{
    m_spec.loadPpm = ppm;
}

void
PermDriver::Start(const std::function<uint32_t(uint32_t, uint32_t)>& hops, uint64_t delayNs,
                  const RoceConfig& roce)
{
    double bitNs = 1e9 / roce.lineRateBps;
    /* each frame's wire time with its gap (RoceConfig::ifgBytes), as the
     * hosts pace it and the links serialise it (TopologySpec::extraWireBytes)
     */
    uint32_t data = roce.framingBytes + ROCE_IPV4_LEN + kUdp + SYMPHONY_BTH_LEN + roce.mtuBytes +
                    ROCE_ICRC_LEN + roce.ifgBytes;
    uint32_t ack = roce.framingBytes + ROCE_IPV4_LEN + kUdp + SYMPHONY_BTH_LEN + ROCE_AETH_LEN +
                   ROCE_ICRC_LEN + roce.ifgBytes;

    m_windowed = roce.wcc.algo != WCC_NONE;
    m_qps.resize(m_hosts.size());
    m_qpDest.resize(m_hosts.size());
    m_txPackets.assign(m_hosts.size(), 0);
    m_rxPackets.assign(m_hosts.size(), 0);
    uint32_t mtu = roce.mtuBytes, longest = 0;
    std::vector<uint32_t> nearest(m_hosts.size(), UINT32_MAX); /* a receiver's nearest sender */
    for (uint32_t h = 0; h < m_hosts.size(); h++)
        for (uint32_t d : Dests(h))
        {
            uint64_t n = m_spec.matrix.empty() ? m_spec.packets
                                               : (m_spec.matrix[h][d] + mtu - 1) / mtu;
            uint32_t path = hops(h, d);

            m_txPackets[h] += n;
            m_rxPackets[d] += n;
            longest = std::max(longest, path);
            nearest[d] = std::min(nearest[d], path);
        }
    /* a matrix: the busiest end; a sender by Appendix A's permutation
     * bound over the longest path, a receiver (an incast) by the first
     * packet's arrival from its nearest sender, the others back to back
     * on its link, and the last one's ACK back
     */
    for (uint32_t h = 0; h < m_hosts.size() && !m_spec.matrix.empty(); h++)
    {
        struct permutation_lb_params lb = {};
        double tData = data * 8 * bitNs, tAck = ack * 8 * bitNs, prop = (double)delayNs * longest;

        lb.m = m_txPackets[h];
        lb.hops = longest;
        lb.t_data_ns = tData;
        lb.t_ack_ns = tAck;
        lb.t_prop_ns = prop;
        lb.load = 1.0;
        m_matrixBoundNs = std::max(m_matrixBoundNs, permutation_lb_ns(&lb));
        if (m_rxPackets[h])
        {
            double near = (double)delayNs * nearest[h];

            m_matrixBoundNs = std::max(m_matrixBoundNs, near + nearest[h] * tData +
                                                            (m_rxPackets[h] - 1) * tData + near +
                                                            nearest[h] * tAck);
        }
    }
    for (uint32_t h = 0; h < m_hosts.size(); h++)
    {
        struct permutation_lb_params lb = {};
        std::vector<uint32_t> dests = Dests(h);
        if (dests.empty())
        {
            m_hops.push_back(0);
            m_boundNs.push_back(0);
            m_fullRateBoundNs.push_back(0);
            continue;
        }
        uint32_t path = hops(h, dests.back());

        m_hops.push_back(path);
        /* a host's link carries all its packets (all-to-all: m to each),
         * the collective ending with the last one's ACK over its path
         * (all-to-all: the appendix's permutation bound over the path of
         * the last destination, an approximation)
         */
        lb.m = m_txPackets[h];
        lb.hops = path;
        lb.t_data_ns = data * 8 * bitNs;
        lb.t_ack_ns = ack * 8 * bitNs;
        lb.t_gap_ns = 0;
        lb.t_prop_ns = (double)delayNs * path;
        lb.load = 1.0;
        m_fullRateBoundNs.push_back(permutation_lb_ns(&lb));
        lb.load = m_spec.loadPpm / 1e6;
        m_boundNs.push_back(permutation_lb_ns(&lb));
        m_phaseBoundNs = std::max(m_phaseBoundNs, m_boundNs.back());
        if (m_spec.phases > 1)
        {
            /* the whole run's bound: every phase's, back to back */
            m_boundNs.back() *= m_spec.phases;
            m_fullRateBoundNs.back() *= m_spec.phases;
        }
        if (!m_local[h])
            continue;
        for (uint32_t i = 0; i < dests.size(); i++)
        {
            uint32_t d = dests[i], qp = m_hosts[h]->CreateQp(d, i + 1, 1), path = hops(h, d);

            /* --cca: the unloaded round trip, a data packet out and its
             * ACK back, store and forward at every hop
             */
            m_hosts[h]->SetPath(qp, path,
                                (uint64_t)((lb.t_data_ns + lb.t_ack_ns + 2.0 * delayNs) * path));
            m_qps[h].push_back(qp);
            m_qpDest[h].push_back(d);
        }
    }
    /* a matrix's hosts with nothing to send are done from the start */
    m_localHosts = std::count(m_local.begin(), m_local.end(), true);
    for (uint32_t h = 0; h < m_hosts.size(); h++)
        m_idleLocalHosts += m_local[h] && !m_txPackets[h];
    if (m_spec.phases == 1)
        m_done += m_idleLocalHosts;
    /* the first phase: an event a queue pair, as before phases */
    m_phaseStartNs.push_back(m_startNs);
    m_phaseHostsDone = m_idleLocalHosts;
    for (uint32_t h = 0; h < m_hosts.size(); h++)
        for (uint32_t i = 0; i < m_qps[h].size(); i++)
            Simulator::Schedule(NanoSeconds(m_startNs), &PermDriver::PostPhase, this, h, i);
    if (m_spec.phases > 1 && Partition::Distributed())
        Simulator::Schedule(NanoSeconds(m_startNs + kBarrierCheckNs), &PermDriver::CheckBarrier,
                            this);
}

/* Host @h's message of this phase on its @i-th queue pair. */
void
PermDriver::PostPhase(uint32_t h, uint32_t i)
{
    uint64_t bytes = m_spec.matrix.empty() ? (uint64_t)m_spec.packets * m_hosts[h]->MtuBytes()
                                           : m_spec.matrix[h][m_qpDest[h][i]];

    m_hosts[h]->PostWrite(m_qps[h][i], 49152, bytes);
}

/* A later phase: every local host posts its message on each of its
 * pairs.
 */
void
PermDriver::StartPhase()
{
    m_phaseStartNs.push_back(Simulator::Now().GetNanoSeconds());
    m_phaseHostsDone = m_idleLocalHosts;
    for (uint32_t h = 0; h < m_hosts.size(); h++)
        for (uint32_t i = 0; i < m_qps[h].size(); i++)
            PostPhase(h, i);
}

/* The phase ended at @endNs on every host: the next one starts now. */
void
PermDriver::EndPhase(uint64_t endNs)
{
    m_phaseEndNs.push_back(endNs);
    if (++m_phase < m_spec.phases)
        StartPhase();
    else
        m_done = m_localHosts;
}

/*
 * A distributed run's barrier: every process calls this at the same
 * simulated times (from the common start, every kBarrierCheckNs), so the
 * collectives pair up, and all processes of a window reach it before the
 * window's end.  The phase ended at the latest process's last ACK.
 */
void
PermDriver::CheckBarrier()
{
    bool here = m_phaseHostsDone >= m_localHosts;

    if (Partition::All(here))
    {
        EndPhase((uint64_t)Partition::Max((double)(m_localHosts ? m_phaseLocalEndNs : 0)));
        if (m_phase == m_spec.phases)
            return;
    }
    Simulator::Schedule(NanoSeconds(kBarrierCheckNs), &PermDriver::CheckBarrier, this);
}

double
PermDriver::MatrixBoundNs() const
{
    return m_matrixBoundNs;
}

void
PermDriver::OnAcked(uint32_t host, uint32_t qp, uint32_t psn)
{
    (void)qp;
    (void)psn;
    uint64_t per = m_txPackets[host];

    m_lastAckNs[host] = Simulator::Now().GetNanoSeconds();
    if (++m_acked[host] != per * (m_phase + 1))
        return;
    if (m_spec.phases == 1)
    {
        m_done++;
        return;
    }
    /* a barrier: the next phase starts once every host has its ACKs;
     * distributed, once every process's have (CheckBarrier())
     */
    if (++m_phaseHostsDone < m_localHosts)
        return;
    m_phaseLocalEndNs = Simulator::Now().GetNanoSeconds();
    if (!Partition::Distributed())
        EndPhase(m_phaseLocalEndNs);
}

std::string
PermDriver::PhasesJson() const
{
    std::ostringstream os;

    os << "[";
    for (uint32_t p = 0; p < m_phaseEndNs.size(); p++)
    {
        uint64_t cct = m_phaseEndNs[p] - m_phaseStartNs[p];
        os << (p ? "," : "") << "{\"start_ns\":" << m_phaseStartNs[p]
           << ",\"end_ns\":" << m_phaseEndNs[p] << ",\"cct_ns\":" << cct
           << ",\"lower_bound_ns\":" << (uint64_t)m_phaseBoundNs
           << ",\"cct_over_bound\":" << (m_phaseBoundNs > 0 ? cct / m_phaseBoundNs : 0) << "}";
    }
    os << "]";
    return os.str();
}

bool
PermDriver::Done() const
{
    return m_done == (uint32_t)std::count(m_local.begin(), m_local.end(), true);
}

std::vector<std::pair<bool, std::string>>
PermDriver::HostItems() const
{
    std::vector<std::pair<bool, std::string>> items;

    for (uint32_t h = 0; h < m_hosts.size(); h++)
    {
        std::ostringstream os;
        const RoceCounters& c = m_hosts[h]->Counters();
        /* every host is one host's partner (all-to-all: every other
         * host's destination): what it received of them
         */
        uint64_t received = c.packetsReceived;
        uint64_t cct = m_acked[h] ? m_lastAckNs[h] - m_startNs : 0;
        std::vector<uint32_t> dests = Dests(h);
        uint64_t expected = m_rxPackets[h] * m_spec.phases;

        os << "{\"tool\":\"symofan-sim\",\"index\":" << h << ",\"pattern\":\""
           << (m_spec.allToAll ? "all-to-all" : m_spec.serverRing ? "server-ring" : "permutation")
           << "\",\"seed\":" << m_spec.seed << ",\"phases\":" << m_spec.phases
           << ",\"hosts\":" << m_hosts.size() << ",\"dests\":[";
        for (size_t i = 0; i < dests.size(); i++)
            os << (i ? "," : "") << dests[i];
        os << "],\"packets_per_dest\":" << m_spec.packets << ",\"load_pct\":" << m_spec.loadPpm / 1e4
           << ",\"hops\":" << m_hops[h] << ",\"start_ns\":" << m_startNs
           << ",\"last_ack_ns\":" << m_lastAckNs[h] << ",\"cct_ns\":" << cct
           << ",\"lower_bound_ns\":" << (uint64_t)m_boundNs[h]
           << ",\"cct_over_bound\":" << (m_boundNs[h] > 0 ? cct / m_boundNs[h] : 0)
           << ",\"lower_bound_full_rate_ns\":" << (uint64_t)m_fullRateBoundNs[h]
           << ",\"sent\":" << c.packetsSent << ",\"acked\":" << m_acked[h]
           << ",\"received\":" << received << ",\"expected\":" << expected
           << ",\"lost\":" << (received < expected ? expected - received : 0)
           << ",\"reordered\":" << c.reordered;
        if (m_hosts[h]->Reps())
            os << ",\"reps\":{\"explored\":" << c.reps.explored << ",\"recycled\":" << c.reps.recycled
               << ",\"retired\":" << c.reps.retired << ",\"cached\":" << c.reps.cached
               << ",\"frozen_episodes\":" << c.reps.freezes
               << ",\"frozen_reused\":" << c.reps.frozen_reused
               << ",\"frozen_explored\":" << c.reps.frozen_explored
               << ",\"frozen_ns\":" << c.reps.frozen_ns << ",\"timeouts\":" << c.reps.timeouts
               << ",\"distinct_entropies\":" << c.repsDistinct
               << ",\"ce_received\":" << c.ceReceived << "}";
        if (m_windowed)
            os << ",\"cc\":{\"lost_dupack\":" << c.lossesDupAck
               << ",\"lost_timeout\":" << c.lossesTimeout << ",\"retransmitted\":" << c.retransmitted
               << ",\"duplicate_acks\":" << c.duplicateAcks
               << ",\"duplicates_received\":" << c.duplicates << ",\"decreases\":" << c.ccDecreases
               << ",\"quick_adapts\":" << c.ccQuickAdapts
               << ",\"min_cwnd_bytes\":" << c.minCwndBytes << "}";
        os << "}";
        items.emplace_back(m_local[h], os.str());
    }
    return items;
}

} // namespace ns3
