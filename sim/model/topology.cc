// SPDX-License-Identifier: GPL-2.0
/*
 * topology.cc - the simulator's fabrics (topology.h): nodes and links,
 * the IPv4 stack with FabricRouting and RoceHost in it, queue discs on
 * every port, and each switch's table worked out from the live links:
 * the port down to each host below it, each host's destination key, and
 * the uplinks whose next switch still reaches the host.
 */
#include "topology.h"

#include "ns3/boolean.h"

#include <algorithm>
#include <array>
#include <functional>
#include <random>

#include "shaper-queue-disc.h"

#include "ns3/abort.h"
#include "ns3/data-rate.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-l3-protocol.h"
#include "ns3/ipv4-routing-helper.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/queue-size.h"
#include "ns3/string.h"
#include "ns3/traffic-control-layer.h"
#include "ns3/uinteger.h"

namespace ns3
{

/* the devices of the htb link model: much faster than any shaper */
static constexpr uint64_t kHtbDeviceBps = 100000000000ULL;

/* InternetStackHelper's way to put FabricRouting on every node. */
class FabricRoutingHelper : public Ipv4RoutingHelper
{
  public:
    FabricRoutingHelper* Copy() const override
    {
        return new FabricRoutingHelper(*this);
    }

    Ptr<Ipv4RoutingProtocol> Create(Ptr<Node> node) const override
    {
        (void)node;
        return CreateObject<FabricRouting>();
    }
};

uint32_t
Fabric::AddNode(uint32_t tier,
                int32_t pod,
                uint32_t index,
                const std::string& name,
                uint32_t group)
{
    /* distributed runs: a leaf or pod and its hosts share a process */
    m_nodes.Create(1, group % m_partitions);
    m_info.push_back({tier, pod, index, name});
    if (tier > m_maxTier)
        m_maxTier = tier;
    return m_nodes.GetN() - 1;
}

void
Fabric::AddLink(uint32_t a, uint32_t b, uint64_t rateBps, bool hostLink)
{
    m_links.push_back({a, b, 0, 0, rateBps, true, hostLink});
    if (!hostLink)
        m_switchLinks.push_back(m_links.size() - 1);
}

void
Fabric::Build(const TopologySpec& spec, const RoceConfig& roce)
{
    m_partitions = spec.partitions ? spec.partitions : 1;
    m_self = spec.self;
    if (spec.kind == "leafspine")
    {
        uint32_t L = spec.leaves, S = spec.spines, H = spec.hostsPerLeaf;
        std::vector<uint32_t> leaf(L), spine(S);

        NS_ABORT_MSG_IF(!L || !S || !H, "a leaf-spine needs leaves, spines and hosts");
        for (uint32_t h = 0; h < L * H; h++)
            m_hostNodes.push_back(AddNode(0, -1, h, "h" + std::to_string(h), h / H));
        for (uint32_t l = 0; l < L; l++)
        {
            leaf[l] = AddNode(1, -1, l, "leaf" + std::to_string(l), l);
            m_edgeNodes.push_back(leaf[l]);
        }
        for (uint32_t s = 0; s < S; s++)
            spine[s] = AddNode(2, -1, s, "spine" + std::to_string(s), s);
        m_edges = L;
        for (uint32_t h = 0; h < L * H; h++)
        {
            m_edgeOf.push_back(leaf[h / H]);
            AddLink(m_hostNodes[h], leaf[h / H], spec.hostRateBps, true);
        }
        for (uint32_t l = 0; l < L; l++)
            for (uint32_t s = 0; s < S; s++)
            {
                uint64_t rate = spec.uplinkRateBps;
                if (l == spec.slowLeaf && s == spec.slowSpine)
                    rate = rate * 1000000 / spec.slowFactorPpm;
                AddLink(leaf[l], spine[s], rate, false);
            }
    }
    else if (spec.kind == "fattree")
    {
        uint32_t k = spec.k, half = k / 2;
        std::vector<uint32_t> edge(k * half), agg(k * half), core(half * half);

        NS_ABORT_MSG_IF(k < 2 || k % 2, "a fat tree needs an even k >= 2, not " << k);
        for (uint32_t h = 0; h < k * half * half; h++)
            m_hostNodes.push_back(AddNode(0, h / (half * half), h, "h" + std::to_string(h),
                                         h / (half * half)));
        for (uint32_t e = 0; e < k * half; e++)
        {
            edge[e] = AddNode(1, e / half, e, "edge" + std::to_string(e), e / half);
            m_edgeNodes.push_back(edge[e]);
        }
        for (uint32_t a = 0; a < k * half; a++)
            agg[a] = AddNode(2, a / half, a, "agg" + std::to_string(a), a / half);
        for (uint32_t c = 0; c < half * half; c++)
            core[c] = AddNode(3, -1, c, "core" + std::to_string(c), c);
        m_edges = k * half;
        for (uint32_t h = 0; h < k * half * half; h++)
        {
            m_edgeOf.push_back(edge[h / half]);
            AddLink(m_hostNodes[h], edge[h / half], spec.hostRateBps, true);
        }
        for (uint32_t p = 0; p < k; p++)
            for (uint32_t i = 0; i < half; i++)
                for (uint32_t j = 0; j < half; j++)
                    AddLink(edge[p * half + i], agg[p * half + j], spec.uplinkRateBps, false);
        for (uint32_t p = 0; p < k; p++)
            for (uint32_t j = 0; j < half; j++)
                for (uint32_t m = 0; m < half; m++)
                    AddLink(agg[p * half + j], core[j * half + m], spec.uplinkRateBps, false);
    }
    else if (spec.kind == "multipod")
    {
        uint32_t P = spec.pods, L = spec.leaves, S = spec.spines, H = spec.hostsPerLeaf;
        uint32_t C = spec.cores, plane = S ? C / S : 0;
        std::vector<uint32_t> leaf(P * L), spine(P * S), core(C);

        NS_ABORT_MSG_IF(!P || !L || !S || !H || !C || C % S,
                        "a multi-pod fabric needs pods, leaves, spines, hosts and a multiple of "
                        "the spines per pod as cores");
        for (uint32_t h = 0; h < P * L * H; h++)
            m_hostNodes.push_back(AddNode(0, h / (L * H), h, "h" + std::to_string(h), h / (L * H)));
        for (uint32_t e = 0; e < P * L; e++)
        {
            leaf[e] = AddNode(1, e / L, e, "leaf" + std::to_string(e), e / L);
            m_edgeNodes.push_back(leaf[e]);
        }
        for (uint32_t a = 0; a < P * S; a++)
            spine[a] = AddNode(2, a / S, a, "spine" + std::to_string(a), a / S);
        for (uint32_t c = 0; c < C; c++)
            core[c] = AddNode(3, -1, c, "core" + std::to_string(c), c);
        m_edges = P * L;
        for (uint32_t h = 0; h < P * L * H; h++)
        {
            m_edgeOf.push_back(leaf[h / H]);
            AddLink(m_hostNodes[h], leaf[h / H], spec.hostRateBps, true);
        }
        for (uint32_t e = 0; e < P * L; e++)
            for (uint32_t j = 0; j < S; j++)
                AddLink(leaf[e], spine[e / L * S + j], spec.uplinkRateBps, false);
        for (uint32_t a = 0; a < P * S; a++)
            for (uint32_t m = 0; m < plane; m++)
                AddLink(spine[a], core[a % S * plane + m], spec.uplinkRateBps, false);
    }
    else
    {
        NS_ABORT_MSG("unknown topology '" << spec.kind << "'");
    }
    for (uint32_t l : spec.failedLinks)
    {
        NS_ABORT_MSG_IF(l >= m_switchLinks.size(),
                        "no switch link " << l << " (there are " << m_switchLinks.size() << ")");
        m_links[m_switchLinks[l]].up = false;
    }
    if (spec.failPpm)
        DrawFailures(spec);
    m_hostRateBps = spec.hostRateBps;
    Wire(spec, roce);
    ComputeTables(spec);
}

void
Fabric::Wire(const TopologySpec& spec, const RoceConfig& roce)
{
    InternetStackHelper stack;
    FabricRoutingHelper routing;
    std::vector<Ptr<SymphonyJobs>> jobsOf(m_nodes.GetN());

    stack.SetIpv6StackInstall(false);
    stack.SetRoutingHelper(routing);
    stack.Install(m_nodes);

    for (uint32_t n = 0; n < m_nodes.GetN(); n++)
        m_routers.push_back(
            DynamicCast<FabricRouting>(m_nodes.Get(n)->GetObject<Ipv4>()->GetRoutingProtocol()));

    m_pfc.assign(m_nodes.GetN(), nullptr);
    /* switch links are numbered in the order they come */
    uint32_t switchLink = 0;
    for (Link& link : m_links)
    {
        PointToPointHelper p2p;
        Ptr<Node> a = m_nodes.Get(link.a), b = m_nodes.Get(link.b);

        bool htb = spec.linkModel == "htb";
        /* htb: the device is fast; the shaper sets the pace */
        p2p.SetDeviceAttribute("DataRate",
                               DataRateValue(DataRate(htb ? kHtbDeviceBps : link.rateBps)));
        p2p.SetDeviceAttribute("Mtu", UintegerValue(spec.deviceMtu));
        p2p.SetChannelAttribute("Delay", TimeValue(NanoSeconds(spec.delayNs)));
        if (spec.extraWireBytes && !htb)
        {
            Time extra = PicoSeconds((uint64_t)spec.extraWireBytes * 8 * 1000000000000ULL /
                                     link.rateBps);

            p2p.SetDeviceAttribute("InterframeGap", TimeValue(extra));
            p2p.SetChannelAttribute("Delay", TimeValue(NanoSeconds(spec.delayNs) + extra));
        }
        /* the queue is the queue disc's: one packet in the device */
        p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", QueueSizeValue(QueueSize("1p")));
        NetDeviceContainer devs = p2p.Install(a, b);
        Ptr<PfcGate> gates[2];

        /* queue discs first: addresses would install ns-3's default */
        for (uint32_t side = 0; side < 2; side++)
        {
            uint32_t node = side ? link.b : link.a, peer = side ? link.a : link.b;
            Ptr<NetDevice> dev = devs.Get(side);
            Ptr<QueueDisc> q;

            if (m_info[node].tier == 0)
            {
                ObjectFactory fifo("ns3::FifoQueueDisc");
                fifo.Set("MaxSize",
                         QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, spec.hostQueuePackets)));
                q = fifo.Create<QueueDisc>();
            }
            else
            {
                bool tor = m_info[node].tier == 1;
                bool here = spec.symphonyAt == "all" ||
                            (tor && (spec.symphonyAt == "tor" || m_info[peer].tier > 1));

                q = spec.switchQueue.Create<QueueDisc>();
                Ptr<SymphonyQueueDisc> sym = DynamicCast<SymphonyQueueDisc>(q);
                if (sym && !here)
                {
                    sym->SetAttribute("marking", EnumValue(SYMPHONY_MARKING_RED));
                    sym->SetAttribute("priority_lagging", BooleanValue(false));
                }
                if (sym && spec.sharedJobs)
                {
                    if (!jobsOf[node])
                        jobsOf[node] = CreateObject<SymphonyJobs>();
                    sym->SetJobs(jobsOf[node]);
                }
                if (sym)
                    sym->AssignStreams(spec.seed * 100003 + m_ports.size());
                m_ports.push_back({m_info[node].name + "->" + m_info[peer].name, q, link.rateBps,
                                   nullptr, node, here});
            }
            if (htb)
            {
                Ptr<ShaperQueueDisc> shaper = CreateObject<ShaperQueueDisc>();
                Ptr<QueueDiscClass> cls = CreateObject<QueueDiscClass>();
                uint64_t burst = spec.burstBytes ? spec.burstBytes
                                                 : std::max<uint64_t>(1600, link.rateBps / 8 / 200);

                shaper->SetAttribute("Rate", DataRateValue(DataRate(link.rateBps)));
                shaper->SetAttribute("Burst", UintegerValue(burst));
                cls->SetQueueDisc(q);
                shaper->AddQueueDiscClass(cls);
                q = shaper;
            }
            if (spec.pfcXoffBytes)
            {
                Ptr<QueueDiscClass> cls = CreateObject<QueueDiscClass>();

                gates[side] = CreateObject<PfcGate>();
                cls->SetQueueDisc(q);
                gates[side]->AddQueueDiscClass(cls);
                q = gates[side];
                if (m_info[node].tier == 0)
                    m_hostGates.push_back(gates[side]);
                else
                {
                    if (!m_pfc[node])
                        m_pfc[node] = CreateObject<PfcSwitch>(spec.pfcXoffBytes, spec.pfcXonBytes);
                    gates[side]->SetSwitch(m_pfc[node]);
                    m_ports.back().gate = gates[side];
                }
            }
            m_nodes.Get(node)->GetObject<TrafficControlLayer>()->SetRootQueueDiscOnDevice(dev, q);
        }
        /* each switch end is fed by the gate at the other end */
        for (uint32_t side = 0; spec.pfcXoffBytes && side < 2; side++)
        {
            uint32_t node = side ? link.b : link.a;

            if (m_pfc[node])
                m_pfc[node]->AddIngress(devs.Get(side)->GetIfIndex(), gates[!side], spec.delayNs);
        }

        Ptr<Ipv4> ipA = a->GetObject<Ipv4>(), ipB = b->GetObject<Ipv4>();
        Ipv4Address addrA, addrB;
        if (link.hostLink)
        {
            uint32_t host = m_info[link.a].index;
            addrA = HostAddress(host);
            addrB = HostLinkPeerAddress(host);
        }
        else
        {
            addrA = SwitchLinkAddress(switchLink, false);
            addrB = SwitchLinkAddress(switchLink, true);
            switchLink++;
        }
        link.ifA = ipA->AddInterface(devs.Get(0));
        link.ifB = ipB->AddInterface(devs.Get(1));
        ipA->AddAddress(link.ifA, Ipv4InterfaceAddress(addrA, Ipv4Mask("255.255.255.252")));
        ipB->AddAddress(link.ifB, Ipv4InterfaceAddress(addrB, Ipv4Mask("255.255.255.252")));
        ipA->SetUp(link.ifA);
        ipB->SetUp(link.ifB);
        m_routers[link.a]->SetNeighbor(link.ifA, addrB);
        m_routers[link.b]->SetNeighbor(link.ifB, addrA);
    }

    for (uint32_t h = 0; h < m_hostNodes.size(); h++)
    {
        Ptr<RoceHost> roceHost = CreateObject<RoceHost>();

        m_routers[m_hostNodes[h]]->SetHost(h);
        roceHost->Setup(m_nodes.Get(m_hostNodes[h]), h, roce);
        m_roce.push_back(roceHost);
    }
}

void
Fabric::Reach(std::vector<std::vector<char>>* downOut, std::vector<std::vector<int32_t>>* downIfOut,
              std::vector<std::vector<char>>* anyOut) const
{
    uint32_t N = m_nodes.GetN(), H = m_hostNodes.size();
    std::vector<std::vector<char>>& down = *downOut;
    std::vector<std::vector<char>>& any = *anyOut;
    std::vector<std::vector<int32_t>>& downIf = *downIfOut;

    down.assign(N, std::vector<char>(H, 0));
    downIf.assign(N, std::vector<int32_t>(H, -1));
    for (uint32_t h = 0; h < H; h++)
        down[m_hostNodes[h]][h] = 1;
    for (uint32_t tier = 1; tier <= m_maxTier; tier++)
        for (const Link& link : m_links)
        {
            if (!link.up || m_info[link.b].tier != tier)
                continue;
            for (uint32_t h = 0; h < H; h++)
                if (down[link.a][h] && !down[link.b][h])
                {
                    down[link.b][h] = 1;
                    downIf[link.b][h] = link.ifB;
                }
        }
    any = down;
    for (uint32_t tier = m_maxTier; tier-- > 0;)
        for (const Link& link : m_links)
        {
            if (!link.up || m_info[link.a].tier != tier)
                continue;
            for (uint32_t h = 0; h < H; h++)
                any[link.a][h] |= any[link.b][h];
        }
}

/* Each switch link not already failed fails with probability failPpm /
 * 1e6, from a generator of the seed's own (the routers' and queues'
 * streams are not touched); draws that disconnect two hosts are redrawn.
 */
void
Fabric::DrawFailures(const TopologySpec& spec)
{
    std::mt19937_64 rng(spec.seed * 0x9e3779b97f4a7c15ULL + 0x0fa11);
    std::vector<char> fixed(m_links.size(), 0);
    std::vector<std::vector<char>> down, any;
    std::vector<std::vector<int32_t>> downIf;

    for (uint32_t l : m_switchLinks)
        fixed[l] = !m_links[l].up;
    for (uint32_t draw = 0; draw < 1000; draw++)
    {
        bool connected = true;

        for (uint32_t l : m_switchLinks)
            m_links[l].up = !fixed[l] && rng() % 1000000 >= spec.failPpm;
        Reach(&down, &downIf, &any);
        for (uint32_t a = 0; a < m_hostNodes.size() && connected; a++)
            for (uint32_t b = 0; b < m_hostNodes.size() && connected; b++)
                connected = any[m_hostNodes[a]][b];
        if (connected)
            return;
    }
    NS_ABORT_MSG("--fail-prob: 1000 draws all cut some host off another");
}

void
Fabric::ComputeTables(const TopologySpec& spec)
{
    uint32_t N = m_nodes.GetN(), H = m_hostNodes.size();
    std::vector<std::vector<char>> down, any;
    std::vector<std::vector<int32_t>> downIf;

    Reach(&down, &downIf, &any);
    std::vector<bool> mixed = MixedSwitches(spec);
    for (uint32_t n = 0; n < N; n++)
    {
        const NodeInfo& info = m_info[n];
        auto table = std::make_shared<SwitchTable>();
        std::vector<uint32_t> upPeer;

        if (info.tier == 0)
            continue;
        table->downIf = downIf[n];
        for (const Link& link : m_links)
            if (link.a == n)
            {
                table->uplinkIf.push_back(link.ifA);
                upPeer.push_back(link.up ? link.b : UINT32_MAX);
            }
        /* destination keys: the destination's edge switch at an edge
         * switch, its pod at an aggregation switch of a fat tree
         */
        bool byPod = info.tier == 2 && spec.kind != "leafspine";
        table->nrKeys = byPod ? (spec.kind == "fattree" ? spec.k : spec.pods) : m_edges;
        table->keyOfHost.resize(H);
        table->slotOfHost.resize(H);
        table->validOfHost.assign(H, 0);
        for (uint32_t h = 0; h < H; h++)
        {
            table->keyOfHost[h] = byPod ? m_info[m_hostNodes[h]].pod : m_info[m_edgeOf[h]].index;
            table->slotOfHost[h] = h % (H / m_edges);
            for (uint32_t p = 0; p < upPeer.size(); p++)
                if (upPeer[p] != UINT32_MAX && any[upPeer[p]][h])
                    table->validOfHost[h] |= 1ULL << p;
        }
        /* pOfan's pipes group the downlinks, where northbound packets
         * come in, pipePorts to a pipe in port order (ofan-fattree.sh);
         * packets from an uplink or the switch itself take pipe 0
         */
        uint32_t ifaces = m_nodes.Get(n)->GetObject<Ipv4>()->GetNInterfaces(), down = 0;
        table->pipeOfIf.assign(ifaces, 0);
        for (const Link& link : m_links)
            if (link.b == n)
                table->pipeOfIf[link.ifB] = std::min<uint32_t>(down++ / spec.pipePorts,
                                                               OFAN_MAX_PIPES - 1);
        table->nrPipes = std::min<uint32_t>((down + spec.pipePorts - 1) / spec.pipePorts,
                                            OFAN_MAX_PIPES);
        if (!table->nrPipes)
            table->nrPipes = 1;
        table->drbDivisor = info.tier == 1 ? 1 : std::max<uint32_t>(1, EdgeUplinks());
        FabricRoutingConfig cfg = spec.routing;
        if (mixed[n])
            cfg.mode = spec.mixMode;
        cfg.hashSeed = (uint32_t)(spec.seed * 2654435761ULL + n);
        /* the stream first: SetSwitch() draws the pointers' starts */
        m_routers[n]->AssignStreams(spec.seed * 100003 + 50000 + n);
        m_routers[n]->SetSwitch(table, cfg);
    }
}

/* --lb-mix: which switches take spec.mixMode */
std::vector<bool>
Fabric::MixedSwitches(const TopologySpec& spec) const
{
    uint32_t N = m_nodes.GetN();
    std::vector<bool> mixed(N, false);
    std::vector<uint32_t> balancing; /* the edge and aggregation switches */
    std::mt19937_64 rng(spec.seed * 0x9e3779b97f4a7c15ULL + 0x3a1f);

    if (spec.mixWhere.empty())
        return mixed;
    for (uint32_t n = 0; n < N; n++)
        if (m_info[n].tier == 1 || m_info[n].tier == 2)
            balancing.push_back(n);
    if (spec.mixWhere == "edge" || spec.mixWhere == "agg")
    {
        for (uint32_t n : balancing)
            mixed[n] = m_info[n].tier == (spec.mixWhere == "edge" ? 1U : 2U);
    }
    else if (spec.mixWhere == "pods")
    {
        std::vector<uint32_t> pods(spec.k);

        for (uint32_t p = 0; p < spec.k; p++)
            pods[p] = p;
        std::shuffle(pods.begin(), pods.end(), rng);
        pods.resize(spec.k / 2);
        for (uint32_t n : balancing)
            mixed[n] = std::find(pods.begin(), pods.end(), (uint32_t)m_info[n].pod) != pods.end();
    }
    else
    {
        std::shuffle(balancing.begin(), balancing.end(), rng);
        for (uint32_t i = 0; i < balancing.size() / 2; i++)
            mixed[balancing[i]] = true;
    }
    return mixed;
}

uint32_t
Fabric::MixedCount(const TopologySpec& spec) const
{
    std::vector<bool> mixed = MixedSwitches(spec);

    return std::count(mixed.begin(), mixed.end(), true);
}

uint32_t
Fabric::EdgeUplinks() const
{
    for (uint32_t n = 0; n < m_nodes.GetN(); n++)
        if (m_info[n].tier == 1)
        {
            uint32_t up = 0;
            for (const Link& link : m_links)
                up += link.a == n;
            return up;
        }
    return 0;
}

uint32_t
Fabric::NumHosts() const
{
    return m_hostNodes.size();
}

uint32_t
Fabric::NumSwitchLinks() const
{
    return m_switchLinks.size();
}

std::string
Fabric::LinkName(uint32_t link) const
{
    const Link& l = m_links.at(m_switchLinks.at(link));
    return m_info[l.a].name + "-" + m_info[l.b].name;
}

uint32_t
Fabric::EdgeOf(uint32_t host) const
{
    return m_info[m_edgeOf.at(host)].index;
}

uint32_t
Fabric::NumEdges() const
{
    return m_edges;
}

Ptr<Node>
Fabric::EdgeSwitch(uint32_t edge, Ipv4Address* addr) const
{
    Ptr<Node> node = m_nodes.Get(m_edgeNodes.at(edge));

    /* its first interface's: the link to its first host */
    *addr = node->GetObject<Ipv4>()->GetAddress(1, 0).GetLocal();
    return node;
}

uint32_t
Fabric::Hops(uint32_t a, uint32_t b) const
{
    if (a == b)
        return 0;
    if (m_edgeOf.at(a) == m_edgeOf.at(b))
        return 2;
    /* a fat tree's pod: up to an aggregation switch and back */
    if (m_maxTier == 3 && m_info[m_hostNodes[a]].pod == m_info[m_hostNodes[b]].pod)
        return 4;
    return 2 * m_maxTier;
}

bool
Fabric::IsLocal(uint32_t node) const
{
    return m_nodes.Get(node)->GetSystemId() == m_self;
}

bool
Fabric::HostIsLocal(uint32_t host) const
{
    return IsLocal(m_hostNodes.at(host));
}

std::vector<uint32_t>
Fabric::FailedLinks() const
{
    std::vector<uint32_t> failed;

    for (uint32_t l = 0; l < m_switchLinks.size(); l++)
        if (!m_links[m_switchLinks[l]].up)
            failed.push_back(l);
    return failed;
}

double
Fabric::FeasibleRate(const std::vector<uint32_t>& partner) const
{
    std::vector<std::vector<char>> down, any;
    std::vector<std::vector<int32_t>> downIf;
    /* each link's load each way, in host rates: [l][0] up (a to b), [l][1] down */
    std::vector<std::array<double, 2>> load(m_links.size(), {0, 0});
    bool reachable = true;

    Reach(&down, &downIf, &any);
    /* frac of host d's traffic at node n: down if it can, else evenly
     * over the live uplinks that reach d
     */
    std::function<void(uint32_t, uint32_t, double)> spread = [&](uint32_t n, uint32_t d,
                                                                 double frac) {
        if (down[n][d])
        {
            while (n != m_hostNodes[d])
                for (uint32_t l = 0; l < m_links.size(); l++)
                    if (m_links[l].b == n && (int32_t)m_links[l].ifB == downIf[n][d])
                    {
                        load[l][1] += frac;
                        n = m_links[l].a;
                        break;
                    }
            return;
        }
        std::vector<uint32_t> ups;
        for (uint32_t l = 0; l < m_links.size(); l++)
            if (m_links[l].a == n && m_links[l].up && any[m_links[l].b][d])
                ups.push_back(l);
        if (ups.empty())
        {
            reachable = false;
            return;
        }
        for (uint32_t l : ups)
        {
            load[l][0] += frac / ups.size();
            spread(m_links[l].b, d, frac / ups.size());
        }
    };
    for (uint32_t h = 0; h < partner.size() && h < m_hostNodes.size(); h++)
        if (partner[h] != h)
            spread(m_hostNodes[h], partner[h], 1.0);
    if (!reachable)
        return 0;
    double rate = 1.0;
    for (uint32_t l = 0; l < m_links.size(); l++)
        for (double f : load[l])
            if (f > 0)
                rate = std::min(rate, (double)m_links[l].rateBps / m_hostRateBps / f);
    return rate;
}

std::vector<Ptr<RoceHost>>
Fabric::Hosts() const
{
    return m_roce;
}

const std::vector<SwitchPort>&
Fabric::Ports() const
{
    return m_ports;
}

std::vector<Ptr<FabricRouting>>
Fabric::Routers() const
{
    return m_routers;
}

uint64_t
Fabric::PfcPausesSent() const
{
    uint64_t n = 0;

    for (const Ptr<PfcSwitch>& sw : m_pfc)
        n += sw ? sw->PausesSent() : 0;
    return n;
}

uint64_t
Fabric::PfcHostPausedNs() const
{
    uint64_t ns = 0;

    for (const Ptr<PfcGate>& gate : m_hostGates)
        ns += gate->PausedNs();
    return ns;
}

} // namespace ns3
