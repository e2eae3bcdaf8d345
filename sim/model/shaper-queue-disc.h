/* SPDX-License-Identifier: GPL-2.0 */
/*
 * shaper-queue-disc.h - the testbed's link in the simulator: an HTB class
 * (rate, burst) over a child queue disc, on a device much faster than
 * the rate.  As Linux HTB does, it lets a packet go whenever its token
 * bucket is not in debt, and charges the whole frame to it, so a 4 KB
 * frame leaves at once and the next waits until the debt is paid: the
 * link is shaped, not serialised, and a packet crosses several such
 * hops without a store-and-forward delay at each (tc-scripts' veth
 * links with HTB on every end).  The point-to-point links of the default
 * model serialise every packet at every hop instead, as a switch does.
 */
#ifndef SYMOFAN_SIM_SHAPER_QUEUE_DISC_H
#define SYMOFAN_SIM_SHAPER_QUEUE_DISC_H

#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/queue-disc.h"

namespace ns3
{

class ShaperQueueDisc : public QueueDisc
{
  public:
    static TypeId GetTypeId();
    ShaperQueueDisc();
    ~ShaperQueueDisc() override;

  private:
    bool DoEnqueue(Ptr<QueueDiscItem> item) override;
    Ptr<QueueDiscItem> DoDequeue() override;
    bool CheckConfig() override;
    void InitializeParams() override;
    void DoDispose() override;

    DataRate m_rate;
    uint32_t m_burst;     /* bytes */
    int64_t m_tokensNs;   /* transmission time in the bucket, ns; < 0: debt */
    int64_t m_bufferNs;   /* the bucket: burst at the rate, ns */
    int64_t m_lastNs;
    EventId m_wake;
};

} // namespace ns3

#endif /* SYMOFAN_SIM_SHAPER_QUEUE_DISC_H */
