// SPDX-License-Identifier: GPL-2.0
/*
 * roce-host.cc - the simulator's RoCEv2 NIC (roce-host.h): one pump event
 * sends the next due packet of the queue pairs, round-robin, at the line
 * rate; each pair's DCQCN state advances lazily, on its own sends and
 * CNPs, so congestion control schedules no events of its own.
 */
#include "roce-host.h"

#include "fabric-routing.h"

#include "ns3/ipv4-route.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceHost");
NS_OBJECT_ENSURE_REGISTERED(RoceHost);

static constexpr uint8_t kUdpProtocol = 17;
static constexpr uint32_t kUdpBytes = 8;
/* the UDP source port of ACKs, NAKs and CNPs (ringcoll's step base) */
static constexpr uint16_t kControlPort = 49152;
static constexpr uint32_t kPsnMask = 0xffffff;

void
PutUdpHeader(uint8_t* udp, uint16_t sport, uint16_t dport, uint32_t payload)
{
    symphony_put_be16(udp, sport);
    symphony_put_be16(udp + 2, dport);
    symphony_put_be16(udp + 4, kUdpBytes + payload);
    symphony_put_be16(udp + 6, 0); /* no checksum, as RoCEv2 NICs send */
}

NS_OBJECT_ENSURE_REGISTERED(SeqTag);

TypeId
SeqTag::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::SeqTag").SetParent<Tag>().SetGroupName("Symofan").AddConstructor<SeqTag>();
    return tid;
}

TypeId
SeqTag::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
SeqTag::GetSerializedSize() const
{
    return 8;
}

void
SeqTag::Serialize(TagBuffer i) const
{
    i.WriteU64(seq);
}

void
SeqTag::Deserialize(TagBuffer i)
{
    seq = i.ReadU64();
}

void
SeqTag::Print(std::ostream& os) const
{
    os << "seq=" << seq;
}

TypeId
RoceHost::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceHost")
                            .SetParent<IpL4Protocol>()
                            .SetGroupName("Symofan")
                            .AddConstructor<RoceHost>();
    return tid;
}

RoceHost::RoceHost()
    : m_host(kNoHost),
      m_nicFreeNs(0),
      m_rrNext(0),
      m_ipId(0)
{
}

RoceHost::~RoceHost() = default;

void
RoceHost::DoDispose()
{
    m_pumpEvent.Cancel();
    for (auto& qp : m_qps)
        qp.rtoEvent.Cancel();
    m_ipv4 = nullptr;
    m_route = nullptr;
    IpL4Protocol::DoDispose();
}

void
RoceHost::Setup(Ptr<Node> node, uint32_t host, const RoceConfig& cfg)
{
    Ptr<IpL4Protocol> udp;

    m_host = host;
    m_cfg = cfg;
    m_ipv4 = node->GetObject<Ipv4L3Protocol>();
    NS_ABORT_MSG_IF(!m_ipv4, "host " << host << " has no IPv4 stack");
    /* in place of ns-3's UDP: RoCEv2 is all this host speaks */
    udp = m_ipv4->GetProtocol(kUdpProtocol);
    if (udp)
        m_ipv4->Remove(udp);
    m_ipv4->Insert(this);
}

uint32_t
RoceHost::CreateQp(uint32_t dst, uint32_t qpn, uint32_t job)
{
    TxQp qp;

    NS_ABORT_MSG_IF(m_qpOfQpn.count(qpn), "host " << m_host << ": queue pair " << qpn << " twice");
    qp.dst = dst;
    qp.qpn = qpn;
    qp.job = job;
    dcqcn_init(&qp.cc, &m_cfg.dcqcn);
    rto_init(&qp.rto);
    m_qps.push_back(std::move(qp));
    m_qpOfQpn[qpn] = m_qps.size() - 1;
    return m_qps.size() - 1;
}

uint32_t
RoceHost::PostWrite(uint32_t qpIndex, uint16_t sport, uint32_t bytes)
{
    TxQp& qp = m_qps.at(qpIndex);
    Message m;
    uint64_t now = Simulator::Now().GetNanoSeconds();

    m.seqStart = qp.endSeq;
    m.count = bytes ? (bytes + m_cfg.mtuBytes - 1) / m_cfg.mtuBytes : 1;
    m.bytes = bytes;
    m.sport = sport;
    m.acked = false;
    m.startRateBps = 0;
    qp.endSeq += m.count;
    qp.msgs.push_back(m);
    if (qp.nextTxNs < now)
        qp.nextTxNs = now;
    Kick();
    return qp.msgs.size() - 1;
}

void
RoceHost::SetArrivalCallback(ArrivalCallback cb)
{
    m_arrival = cb;
}

void
RoceHost::SetAckedCallback(AckedCallback cb)
{
    m_acked = cb;
}

void
RoceHost::SetFixedRateBps(uint64_t bps)
{
    m_cfg.fixedRateBps = bps;
}

uint64_t
RoceHost::MessageStartRateBps(uint32_t qp, uint32_t msg) const
{
    return m_qps.at(qp).msgs.at(msg).startRateBps;
}

const RoceCounters&
RoceHost::Counters() const
{
    return m_counters;
}

uint32_t
RoceHost::Host() const
{
    return m_host;
}

uint32_t
RoceHost::MtuBytes() const
{
    return m_cfg.mtuBytes;
}

/* Run the pump now, or when the NIC is next free. */
void
RoceHost::Kick()
{
    uint64_t now = Simulator::Now().GetNanoSeconds();
    uint64_t at = m_nicFreeNs > now ? m_nicFreeNs : now;

    if (m_pumpEvent.IsRunning())
    {
        if (m_pumpEvent.GetTs() <= (uint64_t)Simulator::Now().GetTimeStep() + (at - now))
            return;
        m_pumpEvent.Cancel();
    }
    m_pumpEvent = Simulator::Schedule(NanoSeconds(at - now), &RoceHost::Pump, this);
}

/* Send one due packet, round-robin over the queue pairs, and come back
 * when the NIC or the earliest paced queue pair allows the next.
 */
void
RoceHost::Pump()
{
    uint64_t now = Simulator::Now().GetNanoSeconds();
    uint64_t wake = UINT64_MAX;
    uint32_t n, nr = m_qps.size();

    if (m_nicFreeNs > now)
    {
        m_pumpEvent = Simulator::Schedule(NanoSeconds(m_nicFreeNs - now), &RoceHost::Pump, this);
        return;
    }
    for (n = 0; n < nr; n++)
    {
        uint32_t i = (m_rrNext + n) % nr;
        TxQp& qp = m_qps[i];

        if (qp.nextSeq >= qp.endSeq)
            continue;
        if (qp.nextTxNs > now)
        {
            if (qp.nextTxNs < wake)
                wake = qp.nextTxNs;
            continue;
        }
        Transmit(qp, now);
        ArmRto(i);
        m_rrNext = (i + 1) % nr;
        wake = m_nicFreeNs;
        break;
    }
    if (wake != UINT64_MAX)
    {
        if (wake < m_nicFreeNs)
            wake = m_nicFreeNs;
        m_pumpEvent = Simulator::Schedule(NanoSeconds(wake - now), &RoceHost::Pump, this);
    }
}

void
RoceHost::Transmit(TxQp& qp, uint64_t now)
{
    uint8_t l4[kUdpBytes + SYMPHONY_BTH_LEN];
    Message* m = nullptr;
    uint32_t i, payload;
    uint64_t wire;

    for (uint32_t k = qp.firstUnacked; k < qp.msgs.size(); k++)
    {
        if (qp.nextSeq >= qp.msgs[k].seqStart && qp.nextSeq < qp.msgs[k].seqStart + qp.msgs[k].count)
        {
            m = &qp.msgs[k];
            break;
        }
    }
    NS_ASSERT(m);
    i = qp.nextSeq - m->seqStart;
    if (i == 0 && qp.nextSeq == qp.highSeq && m_cfg.stepFlows && !m_cfg.fixedRate)
    {
        dcqcn_init(&qp.cc, &m_cfg.dcqcn);
        m_counters.flowStarts++;
    }
    if (i == 0 && !m->startRateBps)
        m->startRateBps = m_cfg.fixedRate ? m_cfg.lineRateBps : qp.cc.rc_bps;
    payload = i + 1 < m->count ? m_cfg.mtuBytes : m->bytes - (m->count - 1) * m_cfg.mtuBytes;
    bool ackReq = i + 1 == m->count || !((qp.nextSeq + 1) % m_cfg.ackEvery);
    roce_put_bth(l4 + kUdpBytes,
                 roce_write_opcode(i, m->count),
                 qp.job,
                 qp.qpn,
                 (m_cfg.psnPerMessage ? i : qp.nextSeq) & kPsnMask,
                 ackReq);
    if (ackReq && qp.nextSeq == qp.highSeq)
        rto_sent(&qp.rto, qp.nextSeq, now);
    PutUdpHeader(l4, m->sport, SYMPHONY_UDP_PORT_ROCEV2, SYMPHONY_BTH_LEN + payload + ROCE_ICRC_LEN);
    Ptr<Packet> p = Create<Packet>(l4, sizeof(l4));
    p->AddPaddingAtEnd(payload + ROCE_ICRC_LEN);
    if (m_cfg.psnPerMessage)
    {
        SeqTag tag;
        tag.seq = qp.nextSeq;
        p->AddPacketTag(tag);
    }
    SendIp(qp.dst, p);

    m_counters.packetsSent++;
    m_counters.bytesSent += SYMPHONY_BTH_LEN + payload;
    if (qp.nextSeq < qp.highSeq)
        m_counters.retransmitted++;
    qp.nextSeq++;
    if (qp.nextSeq > qp.highSeq)
        qp.highSeq = qp.nextSeq;
    qp.ackDeadlineNs = now + rto_ns(&qp.rto, m_cfg.rtoNs);

    wire = m_cfg.framingBytes + ROCE_IPV4_LEN + kUdpBytes + SYMPHONY_BTH_LEN + payload +
           ROCE_ICRC_LEN;
    if (!m_cfg.fixedRate)
    {
        dcqcn_on_sent(&qp.cc, &m_cfg.dcqcn, SYMPHONY_BTH_LEN + payload, now);
        qp.nextTxNs += dcqcn_gap_ns(&qp.cc, wire);
    }
    else
    {
        /* a fixed pace below the line rate, or back to back */
        qp.nextTxNs = m_cfg.fixedRateBps ? qp.nextTxNs + wire * 8 * 1000000000ULL / m_cfg.fixedRateBps
                                         : now;
    }
    if (qp.nextTxNs < now)
        qp.nextTxNs = now;
    m_nicFreeNs = now + wire * 8 * 1000000000ULL / m_cfg.lineRateBps;
}

void
RoceHost::ArmRto(uint32_t qpIndex)
{
    TxQp& qp = m_qps[qpIndex];
    uint64_t now = Simulator::Now().GetNanoSeconds();

    if (m_cfg.unreliable || !qp.ackDeadlineNs)
        return;
    if (qp.rtoEvent.IsRunning())
    {
        /* lazy while the deadline only moves later; the first round-trip
         * sample can bring it from rto.h's initial 1 s to milliseconds
         */
        if (now + Simulator::GetDelayLeft(qp.rtoEvent).GetNanoSeconds() <= qp.ackDeadlineNs)
            return;
        qp.rtoEvent.Cancel();
    }
    qp.rtoEvent = Simulator::Schedule(NanoSeconds(qp.ackDeadlineNs > now ? qp.ackDeadlineNs - now : 0),
                                      &RoceHost::OnRto,
                                      this,
                                      qpIndex);
}

/* The timer runs lazily: it fires at the deadline it was armed for and
 * re-arms itself when sends or ACKs moved the deadline since.
 */
void
RoceHost::OnRto(uint32_t qpIndex)
{
    TxQp& qp = m_qps[qpIndex];
    uint64_t now = Simulator::Now().GetNanoSeconds();

    if (!qp.ackDeadlineNs)
        return;
    if (now < qp.ackDeadlineNs)
    {
        ArmRto(qpIndex);
        return;
    }
    qp.nextSeq = qp.ackedSeq; /* timeout: go back */
    m_counters.rtoTimeouts++;
    if (!qp.rto.srtt_ns)
        m_counters.rtoTimeoutsUnsampled++;
    rto_timed_out(&qp.rto);
    qp.ackDeadlineNs = now + rto_ns(&qp.rto, m_cfg.rtoNs);
    ArmRto(qpIndex);
    Kick();
}

void
RoceHost::SendIp(uint32_t dst, Ptr<Packet> p)
{
    Ipv4Header h;

    if (!m_route)
    {
        Socket::SocketErrno err;
        Ipv4Header none;
        m_route = m_ipv4->GetRoutingProtocol()->RouteOutput(p, none, nullptr, err);
        NS_ABORT_MSG_IF(!m_route, "host " << m_host << " has no route");
    }
    h.SetSource(HostAddress(m_host));
    h.SetDestination(HostAddress(dst));
    h.SetProtocol(kUdpProtocol);
    h.SetPayloadSize(p->GetSize());
    h.SetTtl(64);
    h.SetEcn(Ipv4Header::ECN_ECT0);
    h.SetIdentification(m_ipId++);
    h.SetDontFragment();
    m_ipv4->SendWithHeader(p, h, m_route);
}

void
RoceHost::SendControl(uint32_t dst, const uint8_t* l4, size_t len)
{
    uint8_t buf[kUdpBytes + SYMPHONY_BTH_LEN + ROCE_CNP_PAD + ROCE_ICRC_LEN] = {};

    memcpy(buf + kUdpBytes, l4, len);
    PutUdpHeader(buf, kControlPort, SYMPHONY_UDP_PORT_ROCEV2, len + ROCE_ICRC_LEN);
    SendIp(dst, Create<Packet>(buf, kUdpBytes + len + ROCE_ICRC_LEN));
}

RoceHost::TxQp*
RoceHost::QpOfQpn(uint32_t qpn, uint32_t* index)
{
    auto it = m_qpOfQpn.find(qpn);

    if (it == m_qpOfQpn.end())
        return nullptr;
    *index = it->second;
    return &m_qps[it->second];
}

/* The 64-bit sequence number near @ref whose low 24 bits are @psn. */
static uint64_t
SeqOf(uint64_t ref, uint32_t psn)
{
    int32_t d = (int32_t)((psn - (uint32_t)ref) << 8) >> 8;

    return ref + d;
}

void
RoceHost::OnData(uint32_t src, uint16_t sport, uint32_t qpn, uint32_t job, uint32_t psn,
                 bool last, bool ce, uint64_t now)
{
    RxQp& rx = m_rx[(uint64_t)src << 32 | qpn];
    uint64_t seq = SeqOf(rx.expectedSeq, psn);
    uint8_t out[SYMPHONY_BTH_LEN + ROCE_CNP_PAD];
    size_t len;

    m_counters.packetsReceived++;
    if (m_cfg.unreliable)
    {
        /* an ACK of its own for every packet; nothing is resent */
        if (seq + 1 < rx.highestSeq)
            m_counters.reordered++;
        if (seq + 1 > rx.highestSeq)
            rx.highestSeq = seq + 1;
        len = roce_put_ack(out, job, qpn, psn, ROCE_AETH_ACK, rx.messages);
        SendControl(src, out, len);
        m_counters.acksSent++;
        return;
    }
    if (ce)
    {
        m_counters.ceReceived++;
        if (!rx.cnpSent || now - rx.lastCnpNs >= m_cfg.cnpIntervalNs)
        {
            len = roce_put_cnp(out, job, qpn);
            SendControl(src, out, len);
            m_counters.cnpsSent++;
            rx.lastCnpNs = now;
            rx.cnpSent = true;
        }
    }
    if (seq == rx.expectedSeq)
    {
        rx.expectedSeq++;
        if (!last)
        {
            if (!(rx.expectedSeq % m_cfg.ackEvery))
            {
                len = roce_put_ack(out, job, qpn, seq & kPsnMask, ROCE_AETH_ACK, rx.messages);
                SendControl(src, out, len);
                m_counters.acksSent++;
            }
            return;
        }
        rx.messages++;
        if (rx.messages == m_cfg.loseAckOfMessage && !rx.ackLost)
        {
            rx.ackLost = true;
            if (!m_arrival.IsNull())
                m_arrival(src, qpn, sport);
            return;
        }
        len = roce_put_ack(out, job, qpn, seq & kPsnMask, ROCE_AETH_ACK, rx.messages);
        SendControl(src, out, len);
        m_counters.acksSent++;
        if (!m_arrival.IsNull())
            m_arrival(src, qpn, sport);
        return;
    }
    if (seq > rx.expectedSeq)
    {
        /* a gap: one NAK per expected PSN and RTO/2 */
        if (rx.nakSeq != rx.expectedSeq || now - rx.lastNakNs > m_cfg.rtoNs / 2)
        {
            len = roce_put_ack(out, job, qpn, rx.expectedSeq & kPsnMask, ROCE_AETH_NAK_SEQ,
                               rx.messages);
            SendControl(src, out, len);
            m_counters.naksSent++;
            rx.nakSeq = rx.expectedSeq;
            rx.lastNakNs = now;
        }
        return;
    }
    m_counters.duplicates++;
    if (last)
    {
        /* its ACK may have been lost */
        len = roce_put_ack(out, job, qpn, seq & kPsnMask, ROCE_AETH_ACK, rx.messages);
        SendControl(src, out, len);
        m_counters.acksSent++;
    }
}

void
RoceHost::OnAck(uint32_t qpn, uint32_t psn, uint8_t syndrome, uint64_t now)
{
    uint32_t index;
    TxQp* qp = QpOfQpn(qpn, &index);

    if (!qp)
        return;
    if (m_cfg.unreliable)
    {
        m_counters.acksReceived++;
        m_counters.lastAckNs = now;
        if (!m_acked.IsNull())
            m_acked(index, psn);
        return;
    }
    uint64_t seq = SeqOf(qp->ackedSeq, psn);
    bool nak = syndrome == ROCE_AETH_NAK_SEQ;
    /* an ACK covers its PSN, a NAK everything before its PSN */
    uint64_t upto = nak ? seq : seq + 1;

    if (nak)
        m_counters.naksReceived++;
    if (upto > qp->ackedSeq && upto <= qp->highSeq)
    {
        qp->ackedSeq = upto;
        rto_acked(&qp->rto, upto, now);
        while (qp->firstUnacked < qp->msgs.size())
        {
            Message& m = qp->msgs[qp->firstUnacked];
            if (m.seqStart + m.count > qp->ackedSeq)
                break;
            m.acked = true;
            if (!m_acked.IsNull())
                m_acked(index, qp->firstUnacked);
            qp->firstUnacked++;
        }
        if (qp->nextSeq < qp->ackedSeq)
            qp->nextSeq = qp->ackedSeq;
        qp->ackDeadlineNs =
            qp->ackedSeq < qp->highSeq ? now + rto_ns(&qp->rto, m_cfg.rtoNs) : 0;
        ArmRto(index);
    }
    if (nak && seq >= qp->ackedSeq && seq < qp->nextSeq)
    {
        qp->nextSeq = seq; /* go back N */
        rto_went_back(&qp->rto);
        Kick();
    }
}

void
RoceHost::OnCnp(uint32_t qpn, uint64_t now)
{
    uint32_t index;
    TxQp* qp = QpOfQpn(qpn, &index);

    m_counters.cnpsReceived++;
    if (!qp || m_cfg.fixedRate)
        return;
    dcqcn_on_cnp(&qp->cc, &m_cfg.dcqcn, now);
}

int
RoceHost::GetProtocolNumber() const
{
    return kUdpProtocol;
}

IpL4Protocol::RxStatus
RoceHost::Receive(Ptr<Packet> p, const Ipv4Header& header, Ptr<Ipv4Interface> incomingInterface)
{
    uint8_t buf[kUdpBytes + SYMPHONY_BTH_LEN + ROCE_AETH_LEN];
    uint64_t now = Simulator::Now().GetNanoSeconds();
    uint32_t n, src, qpn, psn, job;
    uint8_t op;
    bool last;

    (void)incomingInterface;
    n = p->CopyData(buf, sizeof(buf));
    /* anything else (background traffic) the NIC drops silently: no
     * ICMP errors in the fabric
     */
    if (n < kUdpBytes + SYMPHONY_BTH_LEN ||
        symphony_get_be16(buf + 2) != SYMPHONY_UDP_PORT_ROCEV2)
        return RX_OK;
    src = HostOfAddress(header.GetSource());
    const uint8_t* bth = buf + kUdpBytes;
    op = bth[SYMPHONY_BTH_OPCODE];
    job = roce_bth_job(bth);
    qpn = symphony_get_be24(bth + SYMPHONY_BTH_DESTQP);
    psn = symphony_get_be24(bth + SYMPHONY_BTH_PSN);
    if (symphony_bth_is_data(op, &last))
    {
        SeqTag tag;
        /* a per-message PSN: the transport's sequence from the tag */
        if (m_cfg.psnPerMessage)
        {
            NS_ABORT_MSG_IF(!p->PeekPacketTag(tag),
                            "host " << m_host << ": a data packet without its sequence tag");
            psn = tag.seq & kPsnMask;
        }
        OnData(src,
               symphony_get_be16(buf),
               qpn,
               job,
               psn,
               last,
               header.GetEcn() == Ipv4Header::ECN_CE,
               now);
    }
    else if (op == SYMPHONY_OP_RC_ACK && n >= sizeof(buf))
        OnAck(qpn, psn, bth[SYMPHONY_BTH_LEN], now);
    else if (op == SYMPHONY_OP_CNP)
        OnCnp(qpn, now);
    return RX_OK;
}

IpL4Protocol::RxStatus
RoceHost::Receive(Ptr<Packet> p, const Ipv6Header& header, Ptr<Ipv6Interface> incomingInterface)
{
    (void)p;
    (void)header;
    (void)incomingInterface;
    return RX_ENDPOINT_UNREACH;
}

void
RoceHost::SetDownTarget(DownTargetCallback cb)
{
    m_downTarget = cb;
}

void
RoceHost::SetDownTarget6(DownTargetCallback6 cb)
{
    m_downTarget6 = cb;
}

IpL4Protocol::DownTargetCallback
RoceHost::GetDownTarget() const
{
    return m_downTarget;
}

IpL4Protocol::DownTargetCallback6
RoceHost::GetDownTarget6() const
{
    return m_downTarget6;
}

} // namespace ns3
