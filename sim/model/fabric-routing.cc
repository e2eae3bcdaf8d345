// SPDX-License-Identifier: GPL-2.0
/*
 * fabric-routing.cc - the simulator's forwarding (fabric-routing.h): a
 * table lookup per packet, then the load-balancing mode's choice of
 * uplink through ofan_core.h as the tc-BPF program makes it.
 */
#include "fabric-routing.h"

#include "pfc.h"

#include "ns3/ipv4-route.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/output-stream-wrapper.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/simulator.h"
#include "ns3/traffic-control-layer.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricRouting");
NS_OBJECT_ENSURE_REGISTERED(FabricRouting);

static constexpr uint32_t kHostNet = 0x0a000000;   /* 10.0.0.0/8 */
static constexpr uint32_t kSwitchNet = 0x0b000000; /* 11.0.0.0/8 */
/* Ethernet header and FCS: the frame length Ofan's size class reads */
static constexpr uint32_t kEthFrameBytes = 14;

static const char* const kModeNames[] =
    {"ecmp", "ofan", "pofan", "rr", "rps", "static", "jsq", "ar", "drb"};

bool
LbModeFromName(const std::string& name, LbMode* mode, uint32_t* pipePorts)
{
    /* "<N>ofan": pOfan, N ports a pipe (the paper's 1Ofan, 2Ofan, 4Ofan) */
    size_t digits = name.find_first_not_of("0123456789");
    if (digits > 0 && digits <= 4 && name[0] != '0' &&
        name.compare(digits, std::string::npos, "ofan") == 0)
    {
        *mode = LbMode::Pofan;
        if (pipePorts)
            *pipePorts = (uint32_t)std::stoul(name.substr(0, digits));
        return true;
    }
    for (size_t i = 0; i < sizeof(kModeNames) / sizeof(kModeNames[0]); i++)
    {
        if (name == kModeNames[i])
        {
            *mode = static_cast<LbMode>(i);
            return true;
        }
    }
    return false;
}

std::string
LbModeNames()
{
    std::string names;

    for (const char* name : kModeNames)
    {
        names += names.empty() ? "" : ", ";
        names += name;
        if (std::string(name) == "pofan")
            names += ", Nofan (4ofan: 4 ports a pipe)";
    }
    return names;
}

const char*
LbModeName(LbMode mode)
{
    return kModeNames[static_cast<int>(mode)];
}

Ipv4Address
HostAddress(uint32_t host)
{
    return Ipv4Address(kHostNet + (host << 2) + 1);
}

Ipv4Address
HostLinkPeerAddress(uint32_t host)
{
    return Ipv4Address(kHostNet + (host << 2) + 2);
}

Ipv4Address
SwitchLinkAddress(uint32_t link, bool second)
{
    return Ipv4Address(kSwitchNet + (link << 2) + 1 + second);
}

uint32_t
HostOfAddress(Ipv4Address addr)
{
    uint32_t a = addr.Get();

    if ((a & 0xff000000) != kHostNet || (a & 3) != 1)
        return kNoHost;
    return (a - kHostNet) >> 2;
}

TypeId
FabricRouting::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricRouting")
                            .SetParent<Ipv4RoutingProtocol>()
                            .SetGroupName("Symofan")
                            .AddConstructor<FabricRouting>();
    return tid;
}

FabricRouting::FabricRouting()
    : m_isHost(false),
      m_host(kNoHost),
      m_basePerm{},
      m_rrPointer(0),
      m_noRouteDrops(0)
{
    m_rng = CreateObject<UniformRandomVariable>();
}

FabricRouting::~FabricRouting() = default;

void
FabricRouting::DoDispose()
{
    m_ipv4 = nullptr;
    m_routes.clear();
    Ipv4RoutingProtocol::DoDispose();
}

void
FabricRouting::SetHost(uint32_t host)
{
    m_isHost = true;
    m_host = host;
}

void
FabricRouting::SetSwitch(std::shared_ptr<const SwitchTable> table, const FabricRoutingConfig& cfg)
{
    uint32_t w = table->uplinkIf.size();

    NS_ABORT_MSG_IF(w > OFAN_MAX_W, "a switch with " << w << " uplinks (at most " << OFAN_MAX_W
                                                     << ")");
    m_table = table;
    m_cfg = cfg;
    m_uplinkPackets.assign(w, 0);
    if (!w)
        return;
    ofan_base_perm(w, m_basePerm.data());
    m_orders.assign(table->nrKeys * OFAN_NR_CLASSES, {});
    for (uint32_t key = 0; key < table->nrKeys; key++)
        for (uint32_t cls = 0; cls < OFAN_NR_CLASSES; cls++)
            ofan_pointer_order(m_orders[key * OFAN_NR_CLASSES + cls].data(),
                               m_basePerm.data(),
                               w,
                               ofan_pointer_id(key, table->nrKeys, cls));
    m_pointers.assign((size_t)table->nrPipes * table->nrKeys * OFAN_NR_CLASSES, 0);
    if (!cfg.randomStart)
        return;
    /* the paper's starts (section 4.1), as the agent's load_pointers():
     * each data pointer at random, its ACK pointer floor(w/2) later
     */
    for (size_t slot = 0; slot < m_pointers.size(); slot += OFAN_NR_CLASSES)
    {
        m_pointers[slot + OFAN_CLASS_DATA] = m_rng->GetInteger(0, w - 1);
        m_pointers[slot + OFAN_CLASS_ACK] = m_pointers[slot + OFAN_CLASS_DATA] + w / 2;
    }
    m_rrPointer = m_rng->GetInteger(0, w - 1);
}

void
FabricRouting::SetNeighbor(uint32_t iface, Ipv4Address addr)
{
    if (m_neighbor.size() <= iface)
        m_neighbor.resize(iface + 1);
    m_neighbor[iface] = addr;
}

int64_t
FabricRouting::AssignStreams(int64_t stream)
{
    m_rng->SetStream(stream);
    return 1;
}

const std::vector<uint64_t>&
FabricRouting::UplinkPackets() const
{
    return m_uplinkPackets;
}

uint64_t
FabricRouting::NoRouteDrops() const
{
    return m_noRouteDrops;
}

Ptr<Ipv4Route>
FabricRouting::RouteVia(uint32_t iface)
{
    if (m_routes.size() <= iface)
        m_routes.resize(iface + 1);
    if (!m_routes[iface])
    {
        Ptr<Ipv4Route> r = Create<Ipv4Route>();
        r->SetSource(m_ipv4->GetAddress(iface, 0).GetLocal());
        r->SetGateway(m_neighbor.at(iface));
        r->SetOutputDevice(m_ipv4->GetNetDevice(iface));
        m_routes[iface] = r;
    }
    return m_routes[iface];
}

void
FabricRouting::UplinkTxBegin(FabricRouting* self, uint32_t port, Ptr<const Packet> p)
{
    UplinkWatch& u = self->m_watch[port];

    /* in simulator steps: ns at the default resolution, ps under --paper-ofan */
    u.txEnd = Simulator::Now() + TimeStep((uint64_t)p->GetSize() * 8 *
                                          (uint64_t)Seconds(1).GetTimeStep() / u.rateBps);
}

void
FabricRouting::WatchUplinks()
{
    Ptr<TrafficControlLayer> tc = m_ipv4->GetObject<Node>()->GetObject<TrafficControlLayer>();

    m_watch.resize(m_table->uplinkIf.size());
    for (uint32_t port = 0; port < m_watch.size(); port++)
    {
        Ptr<NetDevice> dev = m_ipv4->GetNetDevice(m_table->uplinkIf[port]);
        Ptr<PointToPointNetDevice> p2p = DynamicCast<PointToPointNetDevice>(dev);
        DataRateValue rate;
        UplinkWatch& u = m_watch[port];

        u.qdisc = tc->GetRootQueueDiscOnDevice(dev);
        if (!p2p)
            continue; /* another link type: its queue disc only */
        p2p->GetAttribute("DataRate", rate);
        u.rateBps = rate.Get().GetBitRate();
        u.devQueue = p2p->GetQueue();
        p2p->TraceConnectWithoutContext("PhyTxBegin",
                                        MakeBoundCallback(&FabricRouting::UplinkTxBegin, this, port));
    }
}

uint64_t
FabricRouting::UplinkBacklog(uint32_t port)
{
    const UplinkWatch& u = m_watch[port];
    uint64_t bytes = 0;
    Time left = u.txEnd - Simulator::Now();

    if (u.qdisc)
        bytes += u.qdisc->GetNBytes();
    if (u.devQueue)
        bytes += u.devQueue->GetNBytes();
    if (left.IsStrictlyPositive())
        bytes += (uint64_t)left.GetTimeStep() * u.rateBps / (8 * (uint64_t)Seconds(1).GetTimeStep());
    return bytes;
}

int
FabricRouting::ChooseLeastLoaded(uint64_t valid)
{
    uint32_t w = m_table->uplinkIf.size();
    __u64 load[OFAN_MAX_W] = {};

    if (m_watch.empty())
        WatchUplinks();
    for (uint32_t port = 0; port < w; port++)
    {
        if (!((valid >> port) & 1))
            continue;
        load[port] = UplinkBacklog(port);
        if (m_cfg.mode == LbMode::Ar)
            load[port] = ofan_ar_class(load[port], m_cfg.arBufferBytes);
    }
    return ofan_pick_least(load, w, valid, m_rng->GetInteger(0, 0xffffffffU));
}

/* The @n-th set bit of @mask. */
static int
NthSetBit(uint64_t mask, uint32_t n)
{
    for (int i = 0; i < OFAN_MAX_W; i++)
    {
        if (!((mask >> i) & 1))
            continue;
        if (!n--)
            return i;
    }
    return -1;
}

int
FabricRouting::ChooseUplink(Ptr<const Packet> p,
                            const Ipv4Header& header,
                            Ptr<const NetDevice> idev,
                            uint32_t host)
{
    const SwitchTable& t = *m_table;
    uint32_t w = t.uplinkIf.size(), key = t.keyOfHost[host];
    uint64_t valid = t.validOfHost[host];
    uint32_t cls, pipe = 0;

    if (!valid)
        return -1;
    cls = header.GetPayloadSize() + header.GetSerializedSize() + kEthFrameBytes <=
                  m_cfg.ackMaxBytes
              ? OFAN_CLASS_ACK
              : OFAN_CLASS_DATA;
    switch (m_cfg.mode)
    {
    case LbMode::Pofan:
        /* the switch's own packets: the first pipe */
        pipe = idev ? t.pipeOfIf[m_ipv4->GetInterfaceForDevice(idev)] : 0;
        [[fallthrough]];
    case LbMode::Ofan:
        return ofan_next_port(&m_pointers[((size_t)pipe * t.nrKeys + key) * OFAN_NR_CLASSES + cls],
                              m_orders[key * OFAN_NR_CLASSES + cls].data(),
                              w,
                              valid);
    case LbMode::Rr:
        /* pointer id 0: its order is the base permutation */
        return ofan_next_port(&m_rrPointer, m_basePerm.data(), w, valid);
    case LbMode::Rps:
        return NthSetBit(valid, m_rng->GetInteger(0, __builtin_popcountll(valid) - 1));
    case LbMode::Jsq:
    case LbMode::Ar:
        return ChooseLeastLoaded(valid);
    case LbMode::Static: {
        uint32_t slot = t.slotOfHost[host];
        for (uint32_t k = 0; k < w; k++)
            if ((valid >> ((slot + k) % w)) & 1)
                return (slot + k) % w;
        return -1;
    }
    case LbMode::Drb: {
        uint8_t ports[2] = {};
        uint32_t path;

        /* the host's path number in the UDP source port: this switch's
         * digit of it picks the uplink, or the next valid one
         */
        p->CopyData(ports, sizeof(ports));
        path = (uint32_t)(ports[0] << 8 | ports[1]);
        path = path >= kDrbPortBase ? path - kDrbPortBase : 0;
        path = path / t.drbDivisor % w;
        for (uint32_t k = 0; k < w; k++)
            if ((valid >> ((path + k) % w)) & 1)
                return (path + k) % w;
        return -1;
    }
    case LbMode::Ecmp: {
        uint8_t ports[4] = {};
        p->CopyData(ports, sizeof(ports));
        /* the 5-tuple, keyed per switch (the kernel's multipath hash
         * keys it per boot); spread over the valid uplinks
         */
        __u64 h = ofan_perm_mix(((__u64)header.GetSource().Get() << 32 |
                                 header.GetDestination().Get()) ^
                                m_cfg.hashSeed);
        h = ofan_perm_mix(h ^ ((__u64)header.GetProtocol() << 32 |
                               (__u64)ports[0] << 24 | ports[1] << 16 | ports[2] << 8 | ports[3]));
        return NthSetBit(valid, (uint32_t)(h >> 32) % __builtin_popcountll(valid));
    }
    }
    return -1;
}

Ptr<Ipv4Route>
FabricRouting::RouteOutput(Ptr<Packet> p,
                           const Ipv4Header& header,
                           Ptr<NetDevice> oif,
                           Socket::SocketErrno& sockerr)
{
    (void)oif;
    if (m_isHost)
    {
        sockerr = Socket::ERROR_NOTERROR;
        return RouteVia(1);
    }
    /* a switch's own packets (background traffic): as if forwarded */
    uint32_t host = HostOfAddress(header.GetDestination());
    int port = -1;

    sockerr = Socket::ERROR_NOROUTETOHOST;
    if (host >= m_table->downIf.size())
        return nullptr;
    sockerr = Socket::ERROR_NOTERROR;
    if (m_table->downIf[host] >= 0)
        return RouteVia(m_table->downIf[host]);
    if (!m_table->uplinkIf.empty())
        port = ChooseUplink(p, header, nullptr, host);
    if (port < 0)
    {
        sockerr = Socket::ERROR_NOROUTETOHOST;
        return nullptr;
    }
    m_uplinkPackets[port]++;
    return RouteVia(m_table->uplinkIf[port]);
}

bool
FabricRouting::RouteInput(Ptr<const Packet> p,
                          const Ipv4Header& header,
                          Ptr<const NetDevice> idev,
                          UnicastForwardCallback ucb,
                          MulticastForwardCallback mcb,
                          LocalDeliverCallback lcb,
                          ErrorCallback ecb)
{
    uint32_t host = HostOfAddress(header.GetDestination());
    int port;

    (void)mcb;
    if (m_isHost)
    {
        if (host != m_host)
            return false;
        lcb(p, header, m_ipv4->GetInterfaceForDevice(idev));
        return true;
    }
    if (m_cfg.tagIngress)
    {
        PfcIngressTag tag;

        tag.ifIndex = idev->GetIfIndex();
        p->AddPacketTag(tag);
    }
    if (host >= m_table->downIf.size())
    {
        m_noRouteDrops++;
        ecb(p, header, Socket::ERROR_NOROUTETOHOST);
        return false;
    }
    if (m_table->downIf[host] >= 0)
    {
        ucb(RouteVia(m_table->downIf[host]), p, header);
        return true;
    }
    port = m_table->uplinkIf.empty() ? -1 : ChooseUplink(p, header, idev, host);
    if (port < 0)
    {
        m_noRouteDrops++;
        ecb(p, header, Socket::ERROR_NOROUTETOHOST);
        return false;
    }
    m_uplinkPackets[port]++;
    ucb(RouteVia(m_table->uplinkIf[port]), p, header);
    return true;
}

void
FabricRouting::NotifyInterfaceUp(uint32_t interface)
{
    (void)interface;
}

void
FabricRouting::NotifyInterfaceDown(uint32_t interface)
{
    (void)interface;
}

void
FabricRouting::NotifyAddAddress(uint32_t interface, Ipv4InterfaceAddress address)
{
    (void)interface;
    (void)address;
}

void
FabricRouting::NotifyRemoveAddress(uint32_t interface, Ipv4InterfaceAddress address)
{
    (void)interface;
    (void)address;
}

void
FabricRouting::SetIpv4(Ptr<Ipv4> ipv4)
{
    m_ipv4 = ipv4;
}

void
FabricRouting::PrintRoutingTable(Ptr<OutputStreamWrapper> stream, Time::Unit unit) const
{
    (void)unit;
    std::ostream* os = stream->GetStream();
    if (m_isHost)
    {
        *os << "host " << m_host << ": everything via interface 1\n";
        return;
    }
    *os << "switch: " << m_table->uplinkIf.size() << " uplinks, " << m_table->nrKeys
        << " destination keys, mode " << LbModeName(m_cfg.mode) << "\n";
}

} // namespace ns3
