// SPDX-License-Identifier: GPL-2.0
/*
 * flow-driver.cc - single flows on the simulator's hosts (flow-driver.h).
 */
#include "flow-driver.h"

#include <algorithm>
#include <sstream>

#include "ns3/abort.h"
#include "ns3/simulator.h"

namespace ns3
{

/* as the ring driver's: a time of 0 means "not yet" in the records */
static constexpr uint64_t kFirstStartNs = 1000000;

FlowDriver::FlowDriver(std::vector<FlowSpec> flows, std::vector<Ptr<RoceHost>> hosts,
                       uint16_t stepBase)
    : m_hosts(std::move(hosts)),
      m_local(m_hosts.size(), true),
      m_stepBase(stepBase)
{
    std::vector<uint32_t> nextQpn(m_hosts.size(), 1);

    for (const FlowSpec& s : flows)
    {
        Flow f;

        NS_ABORT_MSG_IF(s.src >= m_hosts.size() || s.dst >= m_hosts.size() || s.src == s.dst,
                        "a flow from host " << s.src << " to " << s.dst);
        f.spec = s;
        f.qpn = nextQpn[s.src]++;
        f.qp = m_hosts[s.src]->CreateQp(s.dst, f.qpn, s.job);
        m_rx[{s.dst, s.src, f.qpn}] = m_flows.size();
        m_tx[{s.src, f.qp}] = m_flows.size();
        m_flows.push_back(f);
    }
    for (uint32_t h = 0; h < m_hosts.size(); h++)
    {
        m_hosts[h]->SetArrivalCallback(MakeCallback(&FlowDriver::OnArrival, this).Bind(h));
        m_hosts[h]->SetAckedCallback(MakeCallback(&FlowDriver::OnAcked, this).Bind(h));
    }
}

void
FlowDriver::SetLocalHosts(std::vector<bool> local)
{
    m_local = std::move(local);
    m_local.resize(m_hosts.size(), false);
}

void
FlowDriver::SetSampleInterval(uint64_t ns)
{
    m_sampleNs = ns;
}

void
FlowDriver::Start()
{
    uint64_t firstNs = UINT64_MAX;

    for (uint32_t i = 0; i < m_flows.size(); i++)
        if (m_local[m_flows[i].spec.src])
        {
            Simulator::Schedule(NanoSeconds(kFirstStartNs + m_flows[i].spec.startNs),
                                &FlowDriver::StartFlow, this, i);
            firstNs = std::min(firstNs, m_flows[i].spec.startNs);
        }
    /* the first interval ends one interval after the first start */
    if (m_sampleNs && firstNs != UINT64_MAX)
    {
        m_samplesStartNs = kFirstStartNs + firstNs;
        Simulator::Schedule(NanoSeconds(m_samplesStartNs + m_sampleNs), &FlowDriver::Sample, this);
    }
}

void
FlowDriver::Sample()
{
    for (Flow& f : m_flows)
    {
        uint64_t sent;

        if (!m_local[f.spec.src])
            continue;
        sent = f.startNs ? m_hosts[f.spec.src]->SentPackets(f.qp) : 0;
        f.sentPerSample.push_back(sent - f.sentAtLastSample);
        f.sentAtLastSample = sent;
    }
    if (!Done())
        Simulator::Schedule(NanoSeconds(m_sampleNs), &FlowDriver::Sample, this);
}

void
FlowDriver::StartFlow(uint32_t i)
{
    Flow& f = m_flows[i];

    f.startNs = Simulator::Now().GetNanoSeconds();
    f.msg = m_hosts[f.spec.src]->PostWrite(f.qp, (m_stepBase + f.spec.step) & 0xffff, f.spec.bytes);
}

void
FlowDriver::OnArrival(uint32_t host, uint32_t src, uint32_t qpn, uint16_t sport)
{
    auto found = m_rx.find({host, src, qpn});

    (void)sport;
    if (found != m_rx.end() && !m_flows[found->second].endNs)
        m_flows[found->second].endNs = Simulator::Now().GetNanoSeconds();
}

void
FlowDriver::OnAcked(uint32_t host, uint32_t qp, uint32_t msg)
{
    auto found = m_tx.find({host, qp});

    (void)msg;
    if (found != m_tx.end() && !m_flows[found->second].ackedNs)
        m_flows[found->second].ackedNs = Simulator::Now().GetNanoSeconds();
}

bool
FlowDriver::Done() const
{
    for (const Flow& f : m_flows)
        if (m_local[f.spec.src] && !f.ackedNs)
            return false;
    return true;
}

std::vector<std::pair<bool, std::string>>
FlowDriver::FlowItems() const
{
    std::vector<std::pair<bool, std::string>> items;

    for (uint32_t i = 0; i < m_flows.size(); i++)
    {
        const Flow& f = m_flows[i];
        std::ostringstream os;

        os << "{\"flow\":" << i << ",\"src\":" << f.spec.src << ",\"dst\":" << f.spec.dst
           << ",\"job\":" << f.spec.job << ",\"step\":" << f.spec.step
           << ",\"bytes\":" << f.spec.bytes << ",\"start_ns\":" << f.startNs
           << ",\"end_ns\":" << f.endNs << ",\"acked_ns\":" << f.ackedNs
           << ",\"first_rate_bps\":"
           << (m_local[f.spec.src] ? m_hosts[f.spec.src]->MessageStartRateBps(f.qp, f.msg) : 0);
        if (m_sampleNs && m_local[f.spec.src])
        {
            os << ",\"sample_ns\":" << m_sampleNs << ",\"samples_start_ns\":" << m_samplesStartNs
               << ",\"sent_packets_per_sample\":[";
            for (size_t j = 0; j < f.sentPerSample.size(); j++)
                os << (j ? "," : "") << f.sentPerSample[j];
            os << "]";
        }
        os << "}";
        items.emplace_back(m_local[f.spec.src], os.str());
    }
    return items;
}

} // namespace ns3
