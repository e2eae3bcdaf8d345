/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fabric-routing.h - the forwarding of the simulator's hosts and switches,
 * an ns-3 IPv4 routing protocol: a destination below a switch goes down
 * its one port; any other goes up, on an uplink chosen by the switch's
 * load-balancing mode among those valid for the destination host (the
 * uplinks whose next switch still reaches it over live links: the Ofan
 * paper's rule, a pointer skips a port with no path to the packet's
 * destination), in the modes of bpf/ofan.bpf.c:
 *
 *	ecmp	hash of the 5-tuple (the step rides in the UDP source port)
 *	ofan	a pointer per destination key and size class, walking its
 *		order pi(0..w-1) (ofan_core.h), invalid ports skipped
 *	pofan	the same with a pointer per pipe of ingress ports
 *	rr	one switch-wide pointer over the base permutation
 *	rps	a uniform random valid uplink per packet
 *	jsq	the valid uplink with the fewest bytes queued (its queue disc,
 *		the device's queue and what is left of the frame on the wire),
 *		at random among equal ones (the paper's Table 1)
 *	ar	adaptive routing: the same on the queue quantized to classes
 *		at 5, 10 and 20% of the port buffer (ofan_ar_class()), the
 *		lowest class wins, at random among equal ones
 *	drb	the host's choice (host destination rotation, the Ofan paper's
 *		section 3.4): the host numbers its paths to a destination
 *		over the lowest common layer's switches and rotates a pointer
 *		per destination and size class through them; each switch
 *		takes its digit of that number (the UDP source port) as the
 *		uplink, the next valid one past a failed link
 *	static	balanced destination routes: host i of an edge switch through
 *		uplink i mod w, or the next valid one (leafspine.sh --routing
 *		static, the Symphony paper's "static balanced routing")
 *
 * Ofan's data pointers start at random positions and their ACK pointers
 * half a round (floor(w/2)) later, as the paper's switches and the agent
 * start them (Ofan paper, section 4.1); randomStart false starts them all
 * at 0, as this simulator did before.
 *
 * Destination keys (the pointers') are the destination's edge switch (at
 * an edge or leaf switch) or pod (at an aggregation switch), as the
 * agent's.  The agent's valid ports are per key, the intersection over
 * the key's prefixes (symofan daemon); without failures, and with
 * failures that leave every host of a key the same uplinks, the two
 * agree.  Random failures need not: a pod key can then have no uplink
 * that reaches all its hosts while each host is still reachable.  Hosts
 * send everything on their one link.
 *
 * Addresses: host h has 10.0.0.0 + 4h + 1 on its link (its switch + 2),
 * switch-to-switch link l has 11.0.0.0 + 4l + 1 and + 2, so a host's index
 * is read off its address.
 */
#ifndef SYMOFAN_SIM_FABRIC_ROUTING_H
#define SYMOFAN_SIM_FABRIC_ROUTING_H

#include <memory>
#include <vector>

#include "ns3/ipv4-routing-protocol.h"
#include "ns3/ipv4.h"
#include "ns3/queue.h"
#include "ns3/queue-disc.h"
#include "ns3/random-variable-stream.h"

#include "cores.h"

namespace ns3
{

enum class LbMode
{
    Ecmp,
    Ofan,
    Pofan,
    Rr,
    Rps,
    Static,
    Jsq,
    Ar,
    Drb,
};

/* --lb drb: a host's path number rides in its packets' UDP source ports,
 * kDrbPortBase + 0..paths - 1
 */
constexpr uint32_t kDrbPortBase = 49152;

/* "ecmp", "ofan", ...; false for an unknown name.  "<N>ofan" (1ofan,
 * 2ofan, 4ofan: N of 1..9999 without a leading zero) is pOfan with N
 * ports a pipe, as the paper names it: its mode is Pofan, and
 * *@pipePorts (if given) becomes N.
 */
bool LbModeFromName(const std::string& name, LbMode* mode, uint32_t* pipePorts);
/* the modes' names, ", "-separated, for messages */
std::string LbModeNames();
const char* LbModeName(LbMode mode);

constexpr uint32_t kNoHost = 0xffffffffU;

Ipv4Address HostAddress(uint32_t host);
Ipv4Address HostLinkPeerAddress(uint32_t host);
Ipv4Address SwitchLinkAddress(uint32_t link, bool second);
/* The host index of @addr, or kNoHost. */
uint32_t HostOfAddress(Ipv4Address addr);

/* What a switch forwards by: filled by the topology (topology.h). */
struct SwitchTable
{
    std::vector<int32_t> downIf;     /* per host: the interface down to it, or -1 */
    std::vector<uint32_t> uplinkIf;  /* uplink p's interface; w = size() */
    std::vector<uint32_t> keyOfHost; /* per host: its destination key here */
    std::vector<uint32_t> slotOfHost; /* per host: its number on its edge switch */
    std::vector<uint64_t> validOfHost; /* per host: bit p, uplink p reaches it */
    uint32_t nrKeys = 0;
    std::vector<uint32_t> pipeOfIf;  /* per interface: its pOfan pipe (downlinks) */
    uint32_t nrPipes = 1;
    /* drb: this switch's digit of a path number is (path / drbDivisor)
     * mod w: 1 at an edge switch, the edge switches' uplinks above
     */
    uint32_t drbDivisor = 1;
};

struct FabricRoutingConfig
{
    LbMode mode = LbMode::Ecmp;
    uint32_t ackMaxBytes = 128; /* frames up to this length: ACK class */
    uint32_t hashSeed = 0;      /* ECMP's per-switch hash key */
    bool tagIngress = false;    /* PFC: tag packets with their ingress (pfc.h) */
    bool randomStart = true;    /* Ofan's pointers: random starts, or all at 0 */
    uint64_t arBufferBytes = 800000; /* AR: the port buffer its quanta are of */
};

class FabricRouting : public Ipv4RoutingProtocol
{
  public:
    static TypeId GetTypeId();
    FabricRouting();
    ~FabricRouting() override;

    /* A host: all its packets leave on interface 1. */
    void SetHost(uint32_t host);
    /* A switch with its table and load balancing. */
    void SetSwitch(std::shared_ptr<const SwitchTable> table, const FabricRoutingConfig& cfg);
    /* The address at the other end of interface @iface. */
    void SetNeighbor(uint32_t iface, Ipv4Address addr);
    int64_t AssignStreams(int64_t stream);

    /* Packets sent up each uplink, for the report. */
    const std::vector<uint64_t>& UplinkPackets() const;
    uint64_t NoRouteDrops() const;

    Ptr<Ipv4Route> RouteOutput(Ptr<Packet> p,
                               const Ipv4Header& header,
                               Ptr<NetDevice> oif,
                               Socket::SocketErrno& sockerr) override;
    bool RouteInput(Ptr<const Packet> p,
                    const Ipv4Header& header,
                    Ptr<const NetDevice> idev,
                    UnicastForwardCallback ucb,
                    MulticastForwardCallback mcb,
                    LocalDeliverCallback lcb,
                    ErrorCallback ecb) override;
    void NotifyInterfaceUp(uint32_t interface) override;
    void NotifyInterfaceDown(uint32_t interface) override;
    void NotifyAddAddress(uint32_t interface, Ipv4InterfaceAddress address) override;
    void NotifyRemoveAddress(uint32_t interface, Ipv4InterfaceAddress address) override;
    void SetIpv4(Ptr<Ipv4> ipv4) override;
    void PrintRoutingTable(Ptr<OutputStreamWrapper> stream,
                           Time::Unit unit = Time::S) const override;

  private:
    void DoDispose() override;
    Ptr<Ipv4Route> RouteVia(uint32_t iface);
    /* The uplink (0..w-1) for a packet to host @host, or -1. */
    int ChooseUplink(Ptr<const Packet> p,
                     const Ipv4Header& header,
                     Ptr<const NetDevice> idev,
                     uint32_t host);
    /* JSQ and AR: each valid uplink's queue (bytes, or AR's class) */
    int ChooseLeastLoaded(uint64_t valid);
    /* the bytes waiting at uplink @port, with the rest of its frame on the wire */
    uint64_t UplinkBacklog(uint32_t port);
    void WatchUplinks();
    static void UplinkTxBegin(FabricRouting* self, uint32_t port, Ptr<const Packet> p);

    Ptr<Ipv4> m_ipv4;
    bool m_isHost;
    uint32_t m_host;
    std::shared_ptr<const SwitchTable> m_table;
    FabricRoutingConfig m_cfg;
    std::vector<Ipv4Address> m_neighbor;
    std::vector<Ptr<Ipv4Route>> m_routes;
    /* Ofan's pointers: [(pipe * nrKeys + key) * 2 + class] */
    std::vector<__u64> m_pointers;
    /* each pointer's order pi(0..w-1): [key * 2 + class] */
    std::vector<std::array<__u8, OFAN_MAX_W>> m_orders;
    std::array<__u8, OFAN_MAX_W> m_basePerm;
    __u64 m_rrPointer;
    Ptr<UniformRandomVariable> m_rng;
    std::vector<uint64_t> m_uplinkPackets;
    /* JSQ and AR: each uplink's queues and the end of its frame on the wire */
    struct UplinkWatch
    {
        Ptr<QueueDisc> qdisc;
        Ptr<Queue<Packet>> devQueue;
        uint64_t rateBps = 0;
        Time txEnd;
    };
    std::vector<UplinkWatch> m_watch;
    uint64_t m_noRouteDrops;
};

} // namespace ns3

#endif /* SYMOFAN_SIM_FABRIC_ROUTING_H */
