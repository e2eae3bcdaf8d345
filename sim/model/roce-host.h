/* SPDX-License-Identifier: GPL-2.0 */
/*
 * roce-host.h - a RoCEv2 NIC in the simulator, as ringcoll's transport
 * (userspace/workload/ringcoll/transport.c) behaves: reliable-connection
 * queue pairs carrying RDMA WRITE messages in packets built by
 * roce_frame.h (the step in the UDP source port, the job in the BTH
 * reserved bits, ECT(0)), each paced by its own DCQCN reaction point
 * (dcqcn.h) and all sharing the line rate round-robin, a packet at a
 * time; go-back-N with a cumulative ACK every ACK_EVERY packets and at
 * each message's end, a NAK per gap, an adaptive retransmission timeout
 * (rto.h); the
 * receiver's CNP for CE-marked packets, at most one per queue pair per
 * CNP interval.  It sits on IPv4 as protocol 17 (UDP), in place of ns-3's
 * UDP.
 *
 * With RoceConfig::reps (--lb reps, the permutation's unreliable
 * transport only) the sender chooses each data packet's UDP source port,
 * the entropy the fabric's ECMP hashes, by Recycled Entropy Packet
 * Spraying (REPS; Bonato et al., "REPS: Recycling Entropies for Packet
 * Spraying to Adaptively Explore Paths and Mitigate Failures", arXiv
 * 2407.21625, as UEC adopted it): workload/reps.h, permsend's too.  The
 * receiver echoes a data packet's CE mark in its ACK's BTH BECN bit.
 */
#ifndef SYMOFAN_SIM_ROCE_HOST_H
#define SYMOFAN_SIM_ROCE_HOST_H

#include <deque>
#include <map>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/ip-l4-protocol.h"
#include "ns3/ipv4-l3-protocol.h"
#include "ns3/random-variable-stream.h"
#include "ns3/tag.h"

#include "cores.h"

namespace ns3
{

struct RoceConfig
{
    uint64_t lineRateBps = 0;
    uint32_t mtuBytes = 4096;         /* payload bytes per packet */
    struct dcqcn_params dcqcn = {};
    bool fixedRate = false;           /* no DCQCN: every queue pair at line rate */
    bool stepFlows = false;           /* a message's first packet starts a new flow */
    /* the BTH PSN is the packet's position within its message (Algorithm
     * 1's psn, as a queue pair per message starts at 0); the transport's
     * own sequence rides in a packet tag (SeqTag) for go-back-N
     */
    bool psnPerMessage = false;
    uint64_t cnpIntervalNs = 50000;   /* at most one CNP per queue pair per interval */
    uint64_t rtoNs = 0;               /* the retransmission timeout's minimum */
    uint32_t ackEvery = 64;           /* packets per cumulative ACK */
    /* bytes the link adds to an IP packet, for the NIC's pace: 2 (PPP)
     * on point-to-point links, 18 (Ethernet header and FCS, as ringcoll
     * counts) on the testbed's
     */
    uint32_t framingBytes = 2;
    /* bytes of wire time after every frame the NIC paces (preamble and
     * inter-frame gap, --paper-ofan's 20); 0 elsewhere
     */
    uint32_t ifgBytes = 0;
    /* permsend's transport (the Ofan paper's workload): every data
     * packet ACKed with its own PSN, no NAKs, no retransmission, losses
     * and reordering counted
     */
    bool unreliable = false;
    uint64_t fixedRateBps = 0; /* --fixed-rate's pace; 0: the line rate */
    /* fault injection: the first ACK of each queue pair's n-th message
     * received is not sent, as if lost (0: none)
     */
    uint32_t loseAckOfMessage = 0;
    /* REPS (unreliable transport only): each data packet's UDP source
     * port from a cache of repsEntropies recycled entropies; a packet
     * unACKed past the timeout (rto.h's estimate, at least
     * repsTimeoutMinNs) freezes the cache for repsFreezeNs (0: never)
     */
    bool reps = false;
    uint32_t repsEntropies = 8;
    uint64_t repsFreezeNs = 10000000;
    uint64_t repsTimeoutMinNs = 2000; /* the timeout's floor */
    /* a window for sprayed traffic (unreliable transport only, --cca):
     * with an algorithm, every data packet still has an ACK of its own,
     * and the sender keeps at most cwnd bytes unACKed, declares a packet
     * lost once ACKs came back for dupThreshold packets sent after it or
     * once it is unACKed past its timeout (rto.h's estimate, at least
     * lossRtoMinNs), and sends it again before new data.  wcc's round
     * trip and windows are per queue pair's path (SetPath()).
     */
    /* --lb drb (unreliable transport only): each data packet's UDP
     * source port is kDrbPortBase plus the next of drbPaths path numbers
     * from a pointer per queue pair, each ACK's from a pointer per
     * sender; the pointers start at random
     */
    bool drb = false;
    uint32_t drbPaths = 1;
    struct wcc_params wcc = {};
    uint32_t dupThreshold = 3;
    /* the windows' start and ceiling, % of the path's bandwidth-delay
     * product (window_cc.h's defaults: 100 and 150)
     */
    uint32_t initCwndPct = 100, maxCwndPct = 150;
    /* the timeout's floor; 0: the path's base round trip plus the time
     * its ports' buffers (portBufferBytes each, at the line rate) take
     * to drain, the longest a packet not lost can wait
     */
    uint64_t lossRtoMinNs = 0;
    uint64_t portBufferBytes = 800000;
};

/* the UDP source port of ACKs, NAKs and CNPs (ringcoll's step base) */
constexpr uint16_t kControlPort = 49152;


/* What the NIC counts; the names of ringcoll's "counters". */
struct RoceCounters
{
    uint64_t packetsSent = 0, bytesSent = 0, retransmitted = 0;
    uint64_t packetsReceived = 0, ceReceived = 0, cnpsSent = 0, cnpsReceived = 0;
    uint64_t acksSent = 0, naksSent = 0, naksReceived = 0, duplicates = 0;
    uint64_t flowStarts = 0;
    /* retransmission timeouts; those before the queue pair's first
     * round-trip sample wait rto.h's initial 1 s
     */
    uint64_t rtoTimeouts = 0, rtoTimeoutsUnsampled = 0;
    /* the unreliable transport's */
    uint64_t acksReceived = 0, reordered = 0;
    uint64_t lastAckNs = 0;
    /* REPS's (workload/reps.h's counters), and the distinct entropies sent */
    struct reps_counters reps = {};
    uint64_t repsDistinct = 0;
    /* the window's (--cca): packets declared lost by duplicate ACKs and
     * by timeouts, ACKs of packets already ACKed, the window's decreases
     * and NSCC's quick adapts, the smallest window, bytes
     */
    uint64_t lossesDupAck = 0, lossesTimeout = 0, duplicateAcks = 0;
    uint64_t ccDecreases = 0, ccQuickAdapts = 0, minCwndBytes = 0;
};

/* The sender's 64-bit transport sequence of a data packet whose BTH PSN
 * counts within its message (RoceConfig::psnPerMessage): simulator
 * metadata, not on the wire.
 */
class SeqTag : public Tag
{
  public:
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(TagBuffer i) const override;
    void Deserialize(TagBuffer i) override;
    void Print(std::ostream& os) const override;
    uint64_t seq = 0;
};

/* The 8-byte UDP header at @udp of a datagram with @payload bytes after
 * it, ports in host order, no checksum (as RoCEv2 NICs send).
 */
void PutUdpHeader(uint8_t* udp, uint16_t sport, uint16_t dport, uint32_t payload);

/* The longest header run MakeDataFrame takes: UDP, UEC's PDS and SES or
 * RoCEv2's BTH and RETH, with room to spare.
 */
static constexpr uint32_t kDataFrameHeaderMax = 64;

/* A data packet of @hdrLen bytes of headers at @hdr (at most
 * kDataFrameHeaderMax) followed by @zeroBytes of zeros: the payload and
 * the ICRC, whose bytes no model reads.  The zeros are ns-3's virtual
 * zero area, never allocated, so a queued packet holds its headers in
 * memory and not its payload; Packet::AddPaddingAtEnd would write them
 * out, 64 KiB a frame.
 */
Ptr<Packet> MakeDataFrame(const uint8_t* hdr, uint32_t hdrLen, uint32_t zeroBytes);

class RoceHost : public IpL4Protocol
{
  public:
    /* a message arrived whole: (source host, DestQP, UDP source port) */
    using ArrivalCallback = Callback<void, uint32_t, uint32_t, uint16_t>;
    /* a queue pair's message was acknowledged: (queue pair, its message number) */
    using AckedCallback = Callback<void, uint32_t, uint32_t>;

    static TypeId GetTypeId();
    RoceHost();
    ~RoceHost() override;

    /* Take the place of UDP on @node, host number @host. */
    void Setup(Ptr<Node> node, uint32_t host, const RoceConfig& cfg);
    /* A queue pair to host @dst, DestQP @qpn, job @job: its index. */
    uint32_t CreateQp(uint32_t dst, uint32_t qpn, uint32_t job);
    /* --cca: queue pair @qp's path is @hops links of @baseRttNs round
     * trip (unloaded, a data packet out and its ACK back): its windows
     * start at the bandwidth-delay product
     */
    void SetPath(uint32_t qp, uint32_t hops, uint64_t baseRttNs);
    /* Queue an RDMA WRITE of @bytes on queue pair @qp, its packets'
     * UDP source port @sport; returns its message number on the pair.
     */
    uint32_t PostWrite(uint32_t qp, uint16_t sport, uint32_t bytes);
    /* the rate message MSG (PostWrite's index) of queue pair QP started at:
     * its first packet's, after a --step-flows reset; 0 before it leaves */
    uint64_t MessageStartRateBps(uint32_t qp, uint32_t msg) const;
    /* queue pair QP's packets sent so far, retransmissions not counted
     * (the highest sequence number sent, plus one)
     */
    uint64_t SentPackets(uint32_t qp) const;
    void SetArrivalCallback(ArrivalCallback cb);
    void SetAckedCallback(AckedCallback cb);
    /* --fixed-rate's pace from now on, bit/s (0: the line rate). */
    void SetFixedRateBps(uint64_t bps);
    const RoceCounters& Counters() const;
    uint32_t Host() const;
    uint32_t MtuBytes() const;
    bool Reps() const;

    /* IpL4Protocol */
    int GetProtocolNumber() const override;
    enum RxStatus Receive(Ptr<Packet> p,
                          const Ipv4Header& header,
                          Ptr<Ipv4Interface> incomingInterface) override;
    enum RxStatus Receive(Ptr<Packet> p,
                          const Ipv6Header& header,
                          Ptr<Ipv6Interface> incomingInterface) override;
    void SetDownTarget(DownTargetCallback cb) override;
    void SetDownTarget6(DownTargetCallback6 cb) override;
    DownTargetCallback GetDownTarget() const override;
    DownTargetCallback6 GetDownTarget6() const override;

  private:
    struct Message
    {
        uint64_t seqStart;
        uint32_t count;
        uint32_t bytes;
        uint16_t sport;
        bool acked;
        uint64_t startRateBps; /* the rate its first packet left at, 0 until then */
    };

    /* --cca's state of a queue pair (roce-host.cc) */
    struct WindowState
    {
        struct wcc_params params;
        /* one window per subflow (MSwift's; one for the others), and
         * the bytes each has in flight
         */
        std::vector<struct wcc> cc;
        std::vector<uint64_t> inflight;
        uint32_t nextSubflow = 0;
        /* per sequence number: its last transmission's number and time,
         * its subflow, its transmissions, 0 in flight, 1 ACKed, 2 lost
         */
        std::vector<uint64_t> txIndex, sentNs;
        std::vector<uint8_t> subflow, sends, state;
        std::map<uint64_t, uint64_t> outstanding; /* transmission -> sequence */
        std::deque<uint64_t> resend;             /* lost, to send again */
        uint64_t transmissions = 0;
        /* per transmission: ACKed; the ACKed ones, and those below
         * scanPos (the oldest in flight, or past it), for the count
         * of ACKs after the oldest
         */
        std::vector<uint8_t> txAcked;
        uint64_t ackedTx = 0, scanPos = 0, ackedBelowScan = 0;
        uint64_t rtoMinNs = 0;                   /* the timeout's floor */
        struct rto_state rtt;
        EventId lossTimer;
    };

    struct TxQp
    {
        uint32_t dst;
        uint32_t qpn;
        uint32_t job;
        struct dcqcn cc;
        uint64_t nextSeq = 0, endSeq = 0, ackedSeq = 0, highSeq = 0;
        uint64_t nextTxNs = 0;
        uint64_t ackDeadlineNs = 0; /* 0: nothing awaits an ACK */
        struct rto_state rto;       /* the adaptive timeout (rto.h) */
        uint32_t firstUnacked = 0;  /* messages before it are acked */
        std::vector<Message> msgs;
        EventId rtoEvent;
        /* REPS (workload/reps.h): the cache, and each sequence number's
         * entropy, send time and state
         */
        struct reps reps;
        std::vector<struct reps_sent> repsSent;
        WindowState win;
        uint32_t drbNext = 0; /* --lb drb: the data pointer */
    };

    struct RxQp
    {
        uint64_t expectedSeq = 0;
        uint64_t lastCnpNs = 0;
        bool cnpSent = false;
        uint64_t lastNakNs = 0;
        uint64_t nakSeq = UINT64_MAX;
        uint32_t messages = 0;
        uint64_t highestSeq = 0; /* unreliable: the highest seen + 1 */
        bool ackLost = false;    /* loseAckOfMessage's, done */
        std::vector<bool> seen;  /* --cca: the sequence numbers received */
        uint32_t drbAckNext = UINT32_MAX; /* --lb drb: the ACK pointer, unset */
    };

    void DoDispose() override;
    void Kick();
    void Pump();
    /* send @qp's packet @seq (its next, or --cca's resend) on subflow @sub */
    void Transmit(TxQp& qp, uint64_t nowStep, uint64_t seq, uint32_t sub);
    void ArmRto(uint32_t qpIndex);
    void OnRto(uint32_t qpIndex);
    void SendControl(uint32_t dst, const uint8_t* l4, size_t len, uint16_t sport = kControlPort);
    void SendIp(uint32_t dst, Ptr<Packet> p);
    void OnData(uint32_t src, uint16_t sport, uint32_t qpn, uint32_t job, uint32_t psn, bool last,
                bool ce, uint64_t now);
    void OnAck(uint32_t qpn, uint32_t psn, uint8_t syndrome, bool becn, uint64_t now);
    void RepsOnAck(TxQp& qp, uint64_t seq, bool ecnEcho, uint64_t now);
    void OnCnp(uint32_t qpn, uint64_t now);
    bool Windowed() const;
    /* --cca: the sequence number and subflow @qp sends next, false if
     * its windows or its data allow none now
     */
    bool WindowNext(TxQp& qp, uint64_t* seq, uint32_t* sub);
    void WindowSent(TxQp& qp, uint64_t seq, uint32_t sub, uint32_t bytes, uint64_t now);
    void WindowOnAck(uint32_t index, uint64_t seq, bool ecnEcho, uint64_t now);
    void WindowLost(TxQp& qp, uint64_t tx, bool timeout, uint64_t now);
    void WindowArmTimer(uint32_t index);
    void WindowOnTimer(uint32_t index);
    uint64_t WindowRtoNs(const WindowState& w) const;
    /* the wire bytes of @qp's packet @seq, its gap included */
    uint32_t FrameBytes(const TxQp& qp, uint64_t seq) const;
    /* the wire bytes of a data packet of @payload bytes, its gap included */
    uint32_t WireBytes(uint32_t payload) const;
    TxQp* QpOfQpn(uint32_t qpn, uint32_t* index);

    Ptr<Ipv4L3Protocol> m_ipv4;
    Ptr<Ipv4Route> m_route;
    uint32_t m_host;
    RoceConfig m_cfg;
    std::vector<TxQp> m_qps;
    std::unordered_map<uint32_t, uint32_t> m_qpOfQpn;
    std::unordered_map<uint64_t, RxQp> m_rx; /* (source host << 32) | DestQP */
    /* the NIC's pace runs in simulator time steps (ns at ns-3's default
     * resolution, ps under --paper-ofan): m_nicFreeNs and TxQp::nextTxNs
     * are in steps, m_stepsPerSec of them a second
     */
    uint64_t m_nicFreeNs;
    uint64_t m_stepsPerSec;
    uint32_t m_rrNext;
    EventId m_pumpEvent;
    uint16_t m_ipId;
    RoceCounters m_counters;
    ArrivalCallback m_arrival;
    AckedCallback m_acked;
    DownTargetCallback m_downTarget;
    DownTargetCallback6 m_downTarget6;
    Ptr<UniformRandomVariable> m_rng; /* REPS's entropies, drb's pointers */
    struct reps_params m_repsParams;
    std::unordered_set<uint16_t> m_repsUsed;
};

} // namespace ns3

#endif /* SYMOFAN_SIM_ROCE_HOST_H */
