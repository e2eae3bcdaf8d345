// SPDX-License-Identifier: GPL-2.0
/*
 * background.cc - a switch's constant-rate UEC stream (background.h).
 */
#include "background.h"

#include "roce-host.h"

#include "ns3/abort.h"
#include "ns3/ipv4-route.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(BackgroundStream);

TypeId
BackgroundStream::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::BackgroundStream").SetParent<Object>().SetGroupName("Symofan");
    return tid;
}

BackgroundStream::BackgroundStream()
    : m_dst(kNoHost),
      m_gapNs(0),
      m_payload(0),
      m_job(0),
      m_sport(0),
      m_psn(0),
      m_ipId(0),
      m_sent(0)
{
}

BackgroundStream::~BackgroundStream() = default;

void
BackgroundStream::DoDispose()
{
    m_event.Cancel();
    m_ipv4 = nullptr;
    Object::DoDispose();
}

void
BackgroundStream::Start(Ptr<Node> node, Ipv4Address src, uint32_t dst, uint64_t pps,
                        uint32_t payload, uint32_t job, uint16_t sport)
{
    NS_ABORT_MSG_IF(!pps, "a background stream of 0 packets per second");
    m_ipv4 = node->GetObject<Ipv4L3Protocol>();
    m_src = src;
    m_dst = dst;
    m_gapNs = 1000000000ULL / pps;
    m_payload = payload;
    m_job = job;
    m_sport = sport;
    m_event = Simulator::ScheduleNow(&BackgroundStream::Send, this);
}

uint64_t
BackgroundStream::Sent() const
{
    return m_sent;
}

void
BackgroundStream::Send()
{
    uint8_t l4[8 + SYMPHONY_PDS_LEN + SYMPHONY_SES_MIN_LEN];
    size_t hdr = roce_put_uec(l4 + 8, m_psn, 1, m_job, 0, m_psn == 0, false);
    uint32_t udpLen = 8 + hdr + m_payload;
    Ipv4Header h;
    Socket::SocketErrno err;

    m_psn++;
    PutUdpHeader(l4, m_sport, SYMPHONY_UDP_PORT_UEC, hdr + m_payload);
    Ptr<Packet> p = MakeDataFrame(l4, 8 + hdr, m_payload);
    h.SetSource(m_src);
    h.SetDestination(HostAddress(m_dst));
    h.SetProtocol(17);
    h.SetPayloadSize(udpLen);
    h.SetTtl(64);
    h.SetEcn(Ipv4Header::ECN_ECT0);
    h.SetIdentification(m_ipId++);
    h.SetDontFragment();
    Ptr<Ipv4Route> route = m_ipv4->GetRoutingProtocol()->RouteOutput(p, h, nullptr, err);
    if (route)
    {
        m_ipv4->SendWithHeader(p, h, route);
        m_sent++;
    }
    m_event = Simulator::Schedule(NanoSeconds(m_gapNs), &BackgroundStream::Send, this);
}

} // namespace ns3
