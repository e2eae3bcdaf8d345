// SPDX-License-Identifier: GPL-2.0
/*
 * shaper-queue-disc.cc - an HTB class in the simulator
 * (shaper-queue-disc.h): tokens in nanoseconds of transmission time, a
 * frame charged as HTB charges it (the IP packet and its 14-byte
 * Ethernet header), sent whenever the bucket is not in debt.
 */
#include "shaper-queue-disc.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("ShaperQueueDisc");
NS_OBJECT_ENSURE_REGISTERED(ShaperQueueDisc);

static constexpr uint32_t kEthHeaderBytes = 14;

TypeId
ShaperQueueDisc::GetTypeId()
{
    static TypeId tid = TypeId("ns3::ShaperQueueDisc")
                            .SetParent<QueueDisc>()
                            .SetGroupName("Symofan")
                            .AddConstructor<ShaperQueueDisc>()
                            .AddAttribute("Rate",
                                          "the class's rate",
                                          DataRateValue(DataRate("2500kbps")),
                                          MakeDataRateAccessor(&ShaperQueueDisc::m_rate),
                                          MakeDataRateChecker())
                            .AddAttribute("Burst",
                                          "the bucket, bytes",
                                          UintegerValue(1600),
                                          MakeUintegerAccessor(&ShaperQueueDisc::m_burst),
                                          MakeUintegerChecker<uint32_t>(1));
    return tid;
}

ShaperQueueDisc::ShaperQueueDisc()
    : QueueDisc(QueueDiscSizePolicy::SINGLE_CHILD_QUEUE_DISC),
      m_burst(1600),
      m_tokensNs(0),
      m_bufferNs(0),
      m_lastNs(0)
{
}

ShaperQueueDisc::~ShaperQueueDisc() = default;

void
ShaperQueueDisc::DoDispose()
{
    m_wake.Cancel();
    QueueDisc::DoDispose();
}

bool
ShaperQueueDisc::DoEnqueue(Ptr<QueueDiscItem> item)
{
    return GetQueueDiscClass(0)->GetQueueDisc()->Enqueue(item);
}

Ptr<QueueDiscItem>
ShaperQueueDisc::DoDequeue()
{
    Ptr<QueueDisc> child = GetQueueDiscClass(0)->GetQueueDisc();
    int64_t now = Simulator::Now().GetNanoSeconds();

    if (!child->Peek())
        return nullptr;
    m_tokensNs += now - m_lastNs;
    if (m_tokensNs > m_bufferNs)
        m_tokensNs = m_bufferNs;
    m_lastNs = now;
    if (m_tokensNs < 0)
    {
        /* in debt: come back when it is paid */
        if (!m_wake.IsRunning())
            m_wake = Simulator::Schedule(NanoSeconds(-m_tokensNs), &QueueDisc::Run, this);
        return nullptr;
    }
    Ptr<QueueDiscItem> item = child->Dequeue();
    if (item)
        m_tokensNs -= (int64_t)m_rate.CalculateBytesTxTime(item->GetSize() + kEthHeaderBytes)
                          .GetNanoSeconds();
    return item;
}

bool
ShaperQueueDisc::CheckConfig()
{
    if (GetNQueueDiscClasses() != 1)
    {
        NS_LOG_ERROR("ShaperQueueDisc needs exactly one class with a child queue disc");
        return false;
    }
    if (GetNInternalQueues() || GetNPacketFilters())
    {
        NS_LOG_ERROR("ShaperQueueDisc has no internal queues and no filters");
        return false;
    }
    return true;
}

void
ShaperQueueDisc::InitializeParams()
{
    m_bufferNs = m_rate.CalculateBytesTxTime(m_burst).GetNanoSeconds();
    m_tokensNs = m_bufferNs;
    m_lastNs = Simulator::Now().GetNanoSeconds();
}

} // namespace ns3
