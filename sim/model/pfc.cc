// SPDX-License-Identifier: GPL-2.0
/*
 * pfc.cc - priority flow control in the simulator (pfc.h): the ingress
 * tag, the pausable root queue disc, and a switch's XOFF/XON accounting.
 */
#include "pfc.h"

#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("Pfc");
NS_OBJECT_ENSURE_REGISTERED(PfcIngressTag);
NS_OBJECT_ENSURE_REGISTERED(PfcGate);
NS_OBJECT_ENSURE_REGISTERED(PfcSwitch);

TypeId
PfcIngressTag::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PfcIngressTag")
                            .SetParent<Tag>()
                            .SetGroupName("Symofan")
                            .AddConstructor<PfcIngressTag>();
    return tid;
}

TypeId
PfcIngressTag::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
PfcIngressTag::GetSerializedSize() const
{
    return sizeof(uint32_t);
}

void
PfcIngressTag::Serialize(TagBuffer buf) const
{
    buf.WriteU32(ifIndex);
}

void
PfcIngressTag::Deserialize(TagBuffer buf)
{
    ifIndex = buf.ReadU32();
}

void
PfcIngressTag::Print(std::ostream& os) const
{
    os << "ingress=" << ifIndex;
}

TypeId
PfcGate::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PfcGate")
                            .SetParent<QueueDisc>()
                            .SetGroupName("Symofan")
                            .AddConstructor<PfcGate>();
    return tid;
}

PfcGate::PfcGate()
    : QueueDisc(QueueDiscSizePolicy::SINGLE_CHILD_QUEUE_DISC)
{
}

PfcGate::~PfcGate() = default;

void
PfcGate::SetSwitch(Ptr<PfcSwitch> sw)
{
    m_switch = sw;
}

void
PfcGate::Pause()
{
    if (m_paused)
        return;
    m_paused = true;
    m_pauses++;
    m_pausedSinceNs = Simulator::Now().GetNanoSeconds();
}

void
PfcGate::Resume()
{
    if (!m_paused)
        return;
    m_paused = false;
    m_pausedNs += Simulator::Now().GetNanoSeconds() - m_pausedSinceNs;
    Run();
}

uint64_t
PfcGate::Pauses() const
{
    return m_pauses;
}

uint64_t
PfcGate::PausedNs() const
{
    return m_pausedNs + (m_paused ? Simulator::Now().GetNanoSeconds() - m_pausedSinceNs : 0);
}

bool
PfcGate::DoEnqueue(Ptr<QueueDiscItem> item)
{
    if (!GetQueueDiscClass(0)->GetQueueDisc()->Enqueue(item))
        return false;
    if (m_switch)
        m_switch->Enqueued(item);
    return true;
}

Ptr<QueueDiscItem>
PfcGate::DoDequeue()
{
    Ptr<QueueDiscItem> item;

    if (m_paused)
        return nullptr;
    item = GetQueueDiscClass(0)->GetQueueDisc()->Dequeue();
    if (item && m_switch)
        m_switch->Dequeued(item);
    return item;
}

bool
PfcGate::CheckConfig()
{
    if (GetNQueueDiscClasses() != 1 || GetNInternalQueues() || GetNPacketFilters())
    {
        NS_LOG_ERROR("PfcGate needs exactly one class with a child queue disc, nothing else");
        return false;
    }
    return true;
}

void
PfcGate::InitializeParams()
{
}

TypeId
PfcSwitch::GetTypeId()
{
    static TypeId tid = TypeId("ns3::PfcSwitch").SetParent<Object>().SetGroupName("Symofan");
    return tid;
}

PfcSwitch::PfcSwitch(uint32_t xoffBytes, uint32_t xonBytes)
    : m_xoff(xoffBytes),
      m_xon(xonBytes)
{
}

void
PfcSwitch::AddIngress(uint32_t ifIndex, Ptr<PfcGate> upstream, uint64_t delayNs)
{
    if (ifIndex >= m_ingress.size())
        m_ingress.resize(ifIndex + 1);
    m_ingress[ifIndex].upstream = upstream;
    m_ingress[ifIndex].delayNs = delayNs;
}

PfcSwitch::Ingress*
PfcSwitch::Of(const PfcIngressTag& tag)
{
    if (tag.ifIndex >= m_ingress.size() || !m_ingress[tag.ifIndex].upstream)
        return nullptr;
    return &m_ingress[tag.ifIndex];
}

void
PfcSwitch::Enqueued(Ptr<const QueueDiscItem> item)
{
    PfcIngressTag tag;
    Ingress* in;

    if (!item->GetPacket()->PeekPacketTag(tag) || !(in = Of(tag)))
        return;
    in->bytes += item->GetSize();
    if (!in->pausing && in->bytes > m_xoff)
    {
        in->pausing = true;
        m_pausesSent++;
        Simulator::Schedule(NanoSeconds(in->delayNs), &PfcGate::Pause, in->upstream);
    }
}

void
PfcSwitch::Dequeued(Ptr<const QueueDiscItem> item)
{
    PfcIngressTag tag;
    Ingress* in;

    /* taken off as it leaves: the next switch tags it anew */
    if (!item->GetPacket()->RemovePacketTag(tag) || !(in = Of(tag)))
        return;
    in->bytes -= item->GetSize();
    if (in->pausing && in->bytes <= m_xon)
    {
        in->pausing = false;
        Simulator::Schedule(NanoSeconds(in->delayNs), &PfcGate::Resume, in->upstream);
    }
}

uint64_t
PfcSwitch::PausesSent() const
{
    return m_pausesSent;
}

} // namespace ns3
