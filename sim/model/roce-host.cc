// SPDX-License-Identifier: GPL-2.0
/*
 * roce-host.cc - the simulator's RoCEv2 NIC (roce-host.h): one pump event
 * sends the next due packet of the queue pairs, round-robin, at the line
 * rate; each pair's DCQCN state advances lazily, on its own sends and
 * CNPs, so congestion control schedules no events of its own.
 */
#include "roce-host.h"

#include <cstring>

#include "fabric-routing.h"

#include "ns3/abort.h"
#include "ns3/header.h"
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
static constexpr uint32_t kPsnMask = 0xffffff;
/* BTH byte 4's BECN bit (IBTA vol. 1, 9.2: backward explicit congestion
 * notification), which the unreliable transport's ACK sets when the data
 * packet it acknowledges arrived CE-marked: REPS's per-packet ECN echo
 * (UEC's PDS ACKs carry the same echo).  Symphony's job bits in that
 * byte are the low six (SYMPHONY_BTH_RSVD6_MASK).
 */
static constexpr uint8_t kBthBecn = 0x40;

void
PutUdpHeader(uint8_t* udp, uint16_t sport, uint16_t dport, uint32_t payload)
{
    symphony_put_be16(udp, sport);
    symphony_put_be16(udp + 2, dport);
    symphony_put_be16(udp + 4, kUdpBytes + payload);
    symphony_put_be16(udp + 6, 0); /* no checksum, as RoCEv2 NICs send */
}

/* MakeDataFrame's headers: bytes the transport already laid out, put in
 * front of the packet's zero area as a Header, the one way ns-3 writes
 * bytes at a packet's start.
 */
class RawHeader : public Header
{
  public:
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;
    uint8_t bytes[kDataFrameHeaderMax];
    uint32_t len = 0;
};

NS_OBJECT_ENSURE_REGISTERED(RawHeader);

TypeId
RawHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::SymofanRawHeader")
                            .SetParent<Header>()
                            .SetGroupName("Symofan")
                            .AddConstructor<RawHeader>();
    return tid;
}

TypeId
RawHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
RawHeader::GetSerializedSize() const
{
    return len;
}

void
RawHeader::Serialize(Buffer::Iterator start) const
{
    start.Write(bytes, len);
}

uint32_t
RawHeader::Deserialize(Buffer::Iterator start)
{
    start.Read(bytes, len);
    return len;
}

void
RawHeader::Print(std::ostream& os) const
{
    os << "raw " << len << " bytes";
}

Ptr<Packet>
MakeDataFrame(const uint8_t* hdr, uint32_t hdrLen, uint32_t zeroBytes)
{
    RawHeader h;

    NS_ABORT_MSG_IF(hdrLen > kDataFrameHeaderMax, "a data frame's headers exceed "
                                                      << kDataFrameHeaderMax << " bytes");
    memcpy(h.bytes, hdr, hdrLen);
    h.len = hdrLen;
    Ptr<Packet> p = Create<Packet>(zeroBytes);
    p->AddHeader(h);
    return p;
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
      m_stepsPerSec(1000000000),
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
    {
        qp.rtoEvent.Cancel();
        qp.win.lossTimer.Cancel();
    }
    m_ipv4 = nullptr;
    m_route = nullptr;
    IpL4Protocol::DoDispose();
}

void
RoceHost::Setup(Ptr<Node> node, uint32_t host, const RoceConfig& cfg)
{
    m_stepsPerSec = (uint64_t)Seconds(1).GetTimeStep();
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
    if (cfg.reps || cfg.drb)
        m_rng = CreateObject<UniformRandomVariable>();
    m_repsParams.entropies = cfg.repsEntropies;
    m_repsParams.freeze_ns = cfg.repsFreezeNs;
    m_repsParams.timeout_min_ns = cfg.repsTimeoutMinNs;
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
    reps_init(&qp.reps, &m_repsParams);
    if (m_cfg.drb)
        qp.drbNext = m_rng->GetInteger(0, m_cfg.drbPaths - 1);
    if (Windowed())
    {
        qp.win.params = m_cfg.wcc;
        qp.win.cc.resize(m_cfg.wcc.swift_subflows ? m_cfg.wcc.swift_subflows : 1);
        for (auto& cc : qp.win.cc)
            wcc_init(&cc, &qp.win.params);
        qp.win.inflight.assign(qp.win.cc.size(), 0);
        rto_init(&qp.win.rtt);
    }
    m_qps.push_back(std::move(qp));
    m_qpOfQpn[qpn] = m_qps.size() - 1;
    return m_qps.size() - 1;
}

void
RoceHost::SetPath(uint32_t qpIndex, uint32_t hops, uint64_t baseRttNs)
{
    TxQp& qp = m_qps.at(qpIndex);
    WindowState& w = qp.win;
    uint32_t subflows = w.cc.size();
    uint32_t frame = WireBytes(m_cfg.mtuBytes);
    uint64_t bdp = (uint64_t)((double)m_cfg.lineRateBps * baseRttNs / 8e9);

    if (!Windowed())
        return;
    /* the defaults for this path, then what the run set; subflows share
     * the bandwidth-delay product
     */
    wcc_params_default(&w.params, m_cfg.wcc.algo, frame, baseRttNs, bdp / subflows);
    w.params.init_cwnd_bytes = std::max<uint64_t>(frame, bdp / subflows * m_cfg.initCwndPct / 100);
    w.params.max_cwnd_bytes = std::max<uint64_t>(w.params.init_cwnd_bytes,
                                                 bdp / subflows * m_cfg.maxCwndPct / 100);
    w.params.swift_subflows = subflows;
    w.params.swift_hops = hops;
    w.params.swift_hop_ns = m_cfg.wcc.swift_hop_ns;
    w.rtoMinNs = m_cfg.lossRtoMinNs
                     ? m_cfg.lossRtoMinNs
                     : baseRttNs + (uint64_t)((double)m_cfg.portBufferBytes * 8e9 *
                                              (hops > 1 ? hops - 1 : 1) / m_cfg.lineRateBps);
    for (auto& cc : w.cc)
        wcc_init(&cc, &w.params);
}

uint32_t
RoceHost::PostWrite(uint32_t qpIndex, uint16_t sport, uint32_t bytes)
{
    TxQp& qp = m_qps.at(qpIndex);
    Message m;
    uint64_t now = Simulator::Now().GetTimeStep();

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

uint64_t
RoceHost::SentPackets(uint32_t qp) const
{
    return m_qps.at(qp).highSeq;
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

bool
RoceHost::Reps() const
{
    return m_cfg.reps;
}

/*
 * REPS (--lb reps): workload/reps.h's cache per queue pair, the
 * simulator's random stream for the entropies it explores, and each
 * sequence number's entropy, send time and state in TxQp::repsSent; a
 * --cca resend takes a new entropy and sends the packet's record again.
 */
void
RoceHost::RepsOnAck(TxQp& qp, uint64_t seq, bool ecnEcho, uint64_t now)
{
    reps_on_ack(&qp.reps, qp.repsSent.data(), qp.repsSent.size(), seq, ecnEcho, now,
                &m_counters.reps);
}

/* Run the pump now, or when the NIC is next free. */
void
RoceHost::Kick()
{
    uint64_t now = Simulator::Now().GetTimeStep();
    uint64_t at = m_nicFreeNs > now ? m_nicFreeNs : now;

    if (m_pumpEvent.IsRunning())
    {
        if (m_pumpEvent.GetTs() <= (uint64_t)Simulator::Now().GetTimeStep() + (at - now))
            return;
        m_pumpEvent.Cancel();
    }
    m_pumpEvent = Simulator::Schedule(TimeStep(at - now), &RoceHost::Pump, this);
}

/* Send one due packet, round-robin over the queue pairs, and come back
 * when the NIC or the earliest paced queue pair allows the next.
 */
void
RoceHost::Pump()
{
    uint64_t now = Simulator::Now().GetTimeStep();
    uint64_t wake = UINT64_MAX;
    uint32_t n, nr = m_qps.size();
    bool windowed = Windowed();

    if (m_nicFreeNs > now)
    {
        m_pumpEvent = Simulator::Schedule(TimeStep(m_nicFreeNs - now), &RoceHost::Pump, this);
        return;
    }
    for (n = 0; n < nr; n++)
    {
        uint32_t i = (m_rrNext + n) % nr;
        TxQp& qp = m_qps[i];

        uint64_t seq = qp.nextSeq;
        uint32_t sub = 0;

        /* --cca: a lost packet again before new data, in a window with room */
        if (windowed ? !WindowNext(qp, &seq, &sub) : qp.nextSeq >= qp.endSeq)
            continue;
        if (qp.nextTxNs > now)
        {
            if (qp.nextTxNs < wake)
                wake = qp.nextTxNs;
            continue;
        }
        Transmit(qp, now, seq, sub);
        ArmRto(i);
        m_rrNext = (i + 1) % nr;
        wake = m_nicFreeNs;
        break;
    }
    if (wake != UINT64_MAX)
    {
        if (wake < m_nicFreeNs)
            wake = m_nicFreeNs;
        m_pumpEvent = Simulator::Schedule(TimeStep(wake - now), &RoceHost::Pump, this);
    }
}

void
RoceHost::Transmit(TxQp& qp, uint64_t nowStep, uint64_t seq, uint32_t sub)
{
    /* the transport's clocks (rto.h, DCQCN, REPS) in ns, the pace in steps */
    uint64_t now = Simulator::Now().GetNanoSeconds();
    uint8_t l4[kUdpBytes + SYMPHONY_BTH_LEN];
    Message* m = nullptr;
    uint32_t i, payload;
    uint64_t wire;
    bool windowed = Windowed();

    for (uint32_t k = qp.firstUnacked; k < qp.msgs.size(); k++)
    {
        if (seq >= qp.msgs[k].seqStart && seq < qp.msgs[k].seqStart + qp.msgs[k].count)
        {
            m = &qp.msgs[k];
            break;
        }
    }
    NS_ASSERT(m);
    i = seq - m->seqStart;
    if (i == 0 && seq == qp.highSeq && m_cfg.stepFlows && !m_cfg.fixedRate)
    {
        dcqcn_init(&qp.cc, &m_cfg.dcqcn);
        m_counters.flowStarts++;
    }
    if (i == 0 && !m->startRateBps)
        m->startRateBps = m_cfg.fixedRate ? m_cfg.lineRateBps : qp.cc.rc_bps;
    payload = i + 1 < m->count ? m_cfg.mtuBytes : m->bytes - (m->count - 1) * m_cfg.mtuBytes;
    bool ackReq = i + 1 == m->count || !((seq + 1) % m_cfg.ackEvery);
    roce_put_bth(l4 + kUdpBytes,
                 roce_write_opcode(i, m->count),
                 qp.job,
                 qp.qpn,
                 (m_cfg.psnPerMessage ? i : seq) & kPsnMask,
                 ackReq);
    if (ackReq && seq == qp.highSeq)
        rto_sent(&qp.rto, seq, now);
    /* MSwift's subflows: an entropy each */
    uint16_t sport = m->sport + sub;
    if (m_cfg.drb)
    {
        sport = kDrbPortBase + qp.drbNext;
        qp.drbNext = (qp.drbNext + 1) % m_cfg.drbPaths;
    }
    if (m_cfg.reps)
    {
        /* each sequence number once, but for --cca's resends */
        sport = reps_next(&qp.reps, &m_repsParams, qp.repsSent.data(), qp.repsSent.size(), now,
                          &m_counters.reps);
        if (sport == REPS_EXPLORE)
            sport = REPS_PORT_BASE + m_rng->GetInteger(0, REPS_PORTS - 1);
        NS_ASSERT(seq == qp.repsSent.size() || (windowed && seq < qp.repsSent.size()));
        if (seq == qp.repsSent.size())
            qp.repsSent.emplace_back();
        reps_sent_at(qp.repsSent.data(), seq, sport, now);
        if (m_repsUsed.insert(sport).second)
            m_counters.repsDistinct++;
    }
    PutUdpHeader(l4, sport, SYMPHONY_UDP_PORT_ROCEV2, SYMPHONY_BTH_LEN + payload + ROCE_ICRC_LEN);
    Ptr<Packet> p = MakeDataFrame(l4, sizeof(l4), payload + ROCE_ICRC_LEN);
    if (m_cfg.psnPerMessage)
    {
        SeqTag tag;
        tag.seq = seq;
        p->AddPacketTag(tag);
    }
    SendIp(qp.dst, p);

    m_counters.packetsSent++;
    m_counters.bytesSent += SYMPHONY_BTH_LEN + payload;
    if (seq < qp.highSeq)
        m_counters.retransmitted++;
    if (seq == qp.nextSeq)
        qp.nextSeq++;
    if (qp.nextSeq > qp.highSeq)
        qp.highSeq = qp.nextSeq;
    qp.ackDeadlineNs = now + rto_ns(&qp.rto, m_cfg.rtoNs);

    wire = WireBytes(payload);
    if (windowed)
        WindowSent(qp, seq, sub, wire, now);
    if (!m_cfg.fixedRate)
    {
        dcqcn_on_sent(&qp.cc, &m_cfg.dcqcn, SYMPHONY_BTH_LEN + payload, now);
        qp.nextTxNs += dcqcn_gap_ns(&qp.cc, wire) * (m_stepsPerSec / 1000000000ULL);
    }
    else
    {
        /* a fixed pace below the line rate, or back to back */
        qp.nextTxNs = m_cfg.fixedRateBps ? qp.nextTxNs + wire * 8 * m_stepsPerSec / m_cfg.fixedRateBps
                                         : nowStep;
    }
    if (qp.nextTxNs < nowStep)
        qp.nextTxNs = nowStep;
    if (windowed)
    {
        /* MSwift below a packet's window: one packet a window's time */
        uint64_t gap = wcc_pace_ns(&qp.win.cc[sub], &qp.win.params);
        if (gap)
            qp.nextTxNs = nowStep + gap * (m_stepsPerSec / 1000000000ULL);
    }
    m_nicFreeNs = nowStep + wire * 8 * m_stepsPerSec / m_cfg.lineRateBps;
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
RoceHost::SendControl(uint32_t dst, const uint8_t* l4, size_t len, uint16_t sport)
{
    uint8_t buf[kUdpBytes + SYMPHONY_BTH_LEN + ROCE_CNP_PAD + ROCE_ICRC_LEN] = {};

    memcpy(buf + kUdpBytes, l4, len);
    PutUdpHeader(buf, sport, SYMPHONY_UDP_PORT_ROCEV2, len + ROCE_ICRC_LEN);
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
        /* an ACK of its own for every packet; nothing is resent, but
         * by --cca's senders
         */
        if (Windowed())
        {
            if (seq >= rx.seen.size())
                rx.seen.resize(seq + 1 + rx.seen.size() / 2, false);
            if (rx.seen[seq])
                m_counters.duplicates++;
            rx.seen[seq] = true;
        }
        if (seq + 1 < rx.highestSeq)
            m_counters.reordered++;
        if (seq + 1 > rx.highestSeq)
            rx.highestSeq = seq + 1;
        len = roce_put_ack(out, job, qpn, psn, ROCE_AETH_ACK, rx.messages);
        if (ce)
        {
            /* the mark, echoed per packet (REPS reads it) */
            m_counters.ceReceived++;
            out[SYMPHONY_BTH_FECN_RSVD] |= kBthBecn;
        }
        if (m_cfg.drb)
        {
            if (rx.drbAckNext == UINT32_MAX)
                rx.drbAckNext = m_rng->GetInteger(0, m_cfg.drbPaths - 1);
            SendControl(src, out, len, kDrbPortBase + rx.drbAckNext);
            rx.drbAckNext = (rx.drbAckNext + 1) % m_cfg.drbPaths;
            m_counters.acksSent++;
            return;
        }
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
RoceHost::OnAck(uint32_t qpn, uint32_t psn, uint8_t syndrome, bool becn, uint64_t now)
{
    uint32_t index;
    TxQp* qp = QpOfQpn(qpn, &index);

    if (!qp)
        return;
    if (m_cfg.unreliable)
    {
        m_counters.acksReceived++;
        m_counters.lastAckNs = now;
        if (Windowed())
        {
            WindowOnAck(index, SeqOf(qp->nextSeq, psn), becn, now);
            return;
        }
        if (m_cfg.reps)
            RepsOnAck(*qp, SeqOf(qp->nextSeq, psn), becn, now);
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

bool
RoceHost::Windowed() const
{
    return m_cfg.wcc.algo != WCC_NONE;
}

/*
 * --cca's transport, per queue pair: the packets a window allows, each
 * ACKed on its own (its CE mark echoed), a loss declared as htsim's
 * sprayed transports declare it (duplicate ACKs past a threshold that
 * tolerates the reordering of many paths, or a timeout), and the lost
 * packet sent again before new data.  Transmissions are numbered in
 * the order they leave; a packet is lost once ACKs came back for
 * dupThreshold transmissions after its own (RFC 6675's IsLost() with
 * per-packet ACKs as its SACK blocks; htsim's duplicate ACKs count the
 * same arrivals past a hole).  Only the oldest packet in flight need be
 * checked: a later one has no more ACKs after it.
 */
uint32_t
RoceHost::FrameBytes(const TxQp& qp, uint64_t seq) const
{
    uint32_t payload = 0;

    for (const Message& m : qp.msgs)
        if (seq >= m.seqStart && seq < m.seqStart + m.count)
        {
            payload = seq + 1 < m.seqStart + m.count ? m_cfg.mtuBytes
                                                     : m.bytes - (m.count - 1) * m_cfg.mtuBytes;
            break;
        }
    return WireBytes(payload);
}

uint32_t
RoceHost::WireBytes(uint32_t payload) const
{
    return m_cfg.framingBytes + ROCE_IPV4_LEN + kUdpBytes + SYMPHONY_BTH_LEN + payload +
           ROCE_ICRC_LEN + m_cfg.ifgBytes;
}

uint64_t
RoceHost::WindowRtoNs(const WindowState& w) const
{
    uint64_t rto = w.rtt.srtt_ns ? w.rtt.srtt_ns + 4 * w.rtt.rttvar_ns : 3 * w.params.base_rtt_ns;

    return rto < w.rtoMinNs ? w.rtoMinNs : rto;
}

bool
RoceHost::WindowNext(TxQp& qp, uint64_t* seq, uint32_t* sub)
{
    WindowState& w = qp.win;
    uint32_t n = w.cc.size();

    while (!w.resend.empty() && w.state[w.resend.front()] == 1)
        w.resend.pop_front();
    if (!w.resend.empty())
        *seq = w.resend.front();
    else if (qp.nextSeq < qp.endSeq)
        *seq = qp.nextSeq;
    else
        return false;
    /* a full packet's charge: the window holds whole frames */
    for (uint32_t k = 0; k < n; k++)
    {
        uint32_t s = (w.nextSubflow + k) % n;

        if (!w.inflight[s] || w.inflight[s] + w.params.mtu_bytes <= w.cc[s].cwnd_bytes)
        {
            *sub = s;
            return true;
        }
    }
    return false;
}

void
RoceHost::WindowSent(TxQp& qp, uint64_t seq, uint32_t sub, uint32_t bytes, uint64_t now)
{
    WindowState& w = qp.win;
    uint32_t index = &qp - m_qps.data();

    if (seq >= w.state.size())
    {
        w.txIndex.resize(seq + 1);
        w.sentNs.resize(seq + 1);
        w.subflow.resize(seq + 1);
        w.sends.resize(seq + 1);
        w.state.resize(seq + 1);
    }
    if (!w.resend.empty() && w.resend.front() == seq)
        w.resend.pop_front();
    w.txIndex[seq] = w.transmissions;
    w.sentNs[seq] = now;
    w.subflow[seq] = sub;
    if (w.sends[seq] < 255)
        w.sends[seq]++;
    w.state[seq] = 0;
    w.outstanding[w.transmissions++] = seq;
    w.txAcked.push_back(0);
    w.inflight[sub] += bytes;
    w.nextSubflow = (sub + 1) % w.cc.size();
    WindowArmTimer(index);
}

void
RoceHost::WindowLost(TxQp& qp, uint64_t tx, bool timeout, uint64_t now)
{
    WindowState& w = qp.win;
    auto it = w.outstanding.find(tx);
    uint64_t seq = it->second;
    uint32_t sub = w.subflow[seq];
    struct wcc& cc = w.cc[sub];
    uint64_t decreases = cc.decreases;

    w.outstanding.erase(it);
    w.state[seq] = 2;
    w.inflight[sub] -= FrameBytes(qp, seq);
    w.resend.push_back(seq);
    if (timeout)
        m_counters.lossesTimeout++;
    else
        m_counters.lossesDupAck++;
    wcc_on_loss(&cc, &w.params, now);
    m_counters.ccDecreases += cc.decreases - decreases;
    if (!m_counters.minCwndBytes || cc.cwnd_bytes < m_counters.minCwndBytes)
        m_counters.minCwndBytes = cc.cwnd_bytes;
}

void
RoceHost::WindowOnAck(uint32_t index, uint64_t seq, bool ecnEcho, uint64_t now)
{
    TxQp& qp = m_qps[index];
    WindowState& w = qp.win;
    uint32_t sub, bytes;
    uint64_t rtt, decreases, adapts;

    if (seq >= w.state.size())
        return;
    if (w.state[seq] == 1)
    {
        /* a resend's, or the first copy's after a resend */
        m_counters.duplicateAcks++;
        return;
    }
    sub = w.subflow[seq];
    bytes = FrameBytes(qp, seq);
    if (w.state[seq] == 0)
    {
        w.outstanding.erase(w.txIndex[seq]);
        w.inflight[sub] -= bytes;
    }
    w.state[seq] = 1;
    w.txAcked[w.txIndex[seq]] = 1;
    w.ackedTx++;
    if (w.txIndex[seq] < w.scanPos)
        w.ackedBelowScan++;
    /* Karn: a resent packet's ACK times nothing */
    rtt = w.sends[seq] == 1 ? now - w.sentNs[seq] : 0;
    if (rtt)
        rto_sample(&w.rtt, w.sentNs[seq], now);
    struct wcc& cc = w.cc[sub];
    decreases = cc.decreases;
    adapts = cc.quick_adapts;
    wcc_on_ack(&cc, &w.params, bytes, ecnEcho, rtt, now);
    m_counters.ccDecreases += cc.decreases - decreases;
    m_counters.ccQuickAdapts += cc.quick_adapts - adapts;
    if (!m_counters.minCwndBytes || cc.cwnd_bytes < m_counters.minCwndBytes)
        m_counters.minCwndBytes = cc.cwnd_bytes;
    if (m_cfg.reps)
        RepsOnAck(qp, seq, ecnEcho, now);
    while (!w.outstanding.empty())
    {
        uint64_t oldest = w.outstanding.begin()->first;

        for (; w.scanPos < oldest; w.scanPos++)
            w.ackedBelowScan += w.txAcked[w.scanPos];
        if (w.ackedTx - w.ackedBelowScan < m_cfg.dupThreshold)
            break;
        WindowLost(qp, oldest, false, now);
    }
    if (!m_acked.IsNull())
        m_acked(index, seq & kPsnMask);
    WindowArmTimer(index);
    Kick();
}

/* The timeout of the oldest packet in flight: srtt + 4 rttvar (RFC 6298,
 * no back-off), at least lossRtoMinNs; before any sample, three base
 * round trips.
 */
void
RoceHost::WindowArmTimer(uint32_t index)
{
    WindowState& w = m_qps[index].win;
    uint64_t now = Simulator::Now().GetNanoSeconds();
    uint64_t deadline;

    if (w.outstanding.empty())
    {
        w.lossTimer.Cancel();
        return;
    }
    deadline = w.sentNs[w.outstanding.begin()->second] + WindowRtoNs(w);
    if (w.lossTimer.IsRunning())
    {
        /* lazy: it fires early and re-arms itself */
        if (now + Simulator::GetDelayLeft(w.lossTimer).GetNanoSeconds() <= deadline)
            return;
        w.lossTimer.Cancel();
    }
    w.lossTimer = Simulator::Schedule(NanoSeconds(deadline > now ? deadline - now : 0),
                                      &RoceHost::WindowOnTimer, this, index);
}

void
RoceHost::WindowOnTimer(uint32_t index)
{
    TxQp& qp = m_qps[index];
    WindowState& w = qp.win;
    uint64_t now = Simulator::Now().GetNanoSeconds();
    uint64_t rto = WindowRtoNs(w);
    bool lost = false;

    while (!w.outstanding.empty() && w.sentNs[w.outstanding.begin()->second] + rto <= now)
    {
        WindowLost(qp, w.outstanding.begin()->first, true, now);
        lost = true;
    }
    WindowArmTimer(index);
    if (lost)
        Kick();
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
        OnAck(qpn, psn, bth[SYMPHONY_BTH_LEN], (bth[SYMPHONY_BTH_FECN_RSVD] & kBthBecn) != 0, now);
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
