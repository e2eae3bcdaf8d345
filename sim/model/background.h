/* SPDX-License-Identifier: GPL-2.0 */
/*
 * background.h - the testbed's background traffic in the simulator: a
 * constant-rate stream of UEC-framed UDP packets (roce_frame.h's PDS and
 * SES headers, its own job) that a switch sends to a host, as
 * eval/symphony_ring.sh's rocegen does from each ToR to the last host of
 * the next ToR.  The switch routes its own packets as it forwards others.
 */
#ifndef SYMOFAN_SIM_BACKGROUND_H
#define SYMOFAN_SIM_BACKGROUND_H

#include "fabric-routing.h"

#include "ns3/event-id.h"
#include "ns3/ipv4-l3-protocol.h"

namespace ns3
{

class BackgroundStream : public Object
{
  public:
    static TypeId GetTypeId();
    BackgroundStream();
    ~BackgroundStream() override;

    /* From @node (address @src) to host @dst: @pps packets per second
     * of @payload bytes, job @job, UDP source port @sport.
     */
    void Start(Ptr<Node> node, Ipv4Address src, uint32_t dst, uint64_t pps, uint32_t payload,
               uint32_t job, uint16_t sport);
    uint64_t Sent() const;

  private:
    void DoDispose() override;
    void Send();

    Ptr<Ipv4L3Protocol> m_ipv4;
    Ipv4Address m_src;
    uint32_t m_dst;
    uint64_t m_gapNs;
    uint32_t m_payload, m_job;
    uint16_t m_sport;
    uint32_t m_psn;
    uint16_t m_ipId;
    uint64_t m_sent;
    EventId m_event;
};

} // namespace ns3

#endif /* SYMOFAN_SIM_BACKGROUND_H */
