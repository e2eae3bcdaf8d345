/* SPDX-License-Identifier: GPL-2.0 */
/*
 * topology.h - the simulator's fabrics: a two-tier leaf-spine (leaves,
 * spines, hosts per leaf; uplinks at their own rate, so over-subscription
 * is hosts * rate / (spines * uplink rate); one leaf-spine link slower,
 * the testbed's load imbalance) and a k-ary fat tree (k pods of k/2 edge
 * and k/2 aggregation switches, (k/2)^2 cores, k^3/4 hosts), with failed
 * links.  Every switch port, and each host's NIC, is a point-to-point
 * device under a queue disc (sch_symphony's model on switch ports); every
 * node forwards by FabricRouting with tables worked out here from the
 * live links; every host speaks RoCEv2 through a RoceHost.
 */
#ifndef SYMOFAN_SIM_TOPOLOGY_H
#define SYMOFAN_SIM_TOPOLOGY_H

#include <string>
#include <vector>

#include "fabric-routing.h"
#include "pfc.h"
#include "roce-host.h"
#include "symphony-queue-disc.h"

#include "ns3/node-container.h"
#include "ns3/object-factory.h"

namespace ns3
{

struct TopologySpec
{
    std::string kind = "leafspine"; /* or "fattree", "multipod" */
    /* leaf-spine; in a multi-pod fabric, per pod */
    uint32_t leaves = 4, spines = 2, hostsPerLeaf = 4;
    /* multi-pod: @pods leaf-spine pods under @cores cores in @spines
     * planes: spine j of every pod links to the cores j * cores/spines ..
     * (j + 1) * cores/spines - 1 (over-subscribed when cores/spines is
     * below a spine's leaves)
     */
    uint32_t pods = 2, cores = 2;
    /* fat tree */
    uint32_t k = 4;
    uint64_t hostRateBps = 2500000;
    uint64_t uplinkRateBps = 5000000; /* switch-to-switch links */
    uint64_t delayNs = 1000;          /* every link, one way */
    /* every device's IP MTU, bytes: jumbo frames by default, up to
     * IPv4's 65,535 for the Ofan paper's 64 KB packets
     */
    uint32_t deviceMtu = 9000;
    /* point-to-point links: bytes of wire time each frame takes past its
     * IP packet and PPP header (--paper-ofan: Ethernet's 18 less PPP's 2,
     * and the 20 of preamble and inter-frame gap), at the link's rate
     * both the device's InterframeGap (the wire is busy for them) and
     * added to the channel's delay (the frame arrives when all of them
     * are through, as if serialised with the frame); 0: none
     */
    uint32_t extraWireBytes = 0;
    /* "p2p": point-to-point links at their rate, every packet serialised
     * at every hop; "htb": the testbed's, fast devices shaped by an HTB
     * class of the link's rate and @burstBytes (0: leafspine.sh's auto,
     * 5 ms at the rate and at least 1600 bytes) over the port's queue
     */
    std::string linkModel = "p2p";
    uint32_t burstBytes = 0;
    /* leaf-spine: leaf @slowLeaf's link to spine @slowSpine runs at the
     * uplink rate divided by @slowFactorPpm / 1e6 (1e6: none)
     */
    uint32_t slowLeaf = 0, slowSpine = 0, slowFactorPpm = 1000000;
    /* failed switch-to-switch links, by their number (LinkName()) */
    std::vector<uint32_t> failedLinks;
    /* and each other switch link failed with probability failPpm / 1e6,
     * drawn from the seed; a draw that leaves a host unable to reach
     * another is drawn again (the Ofan paper's Fig. 9)
     */
    uint32_t failPpm = 0;
    /* the queue disc of every switch port: its TypeId and attributes */
    ObjectFactory switchQueue;
    bool sharedJobs = false; /* one job table per switch, not per port */
    /* where Symphony marks (the rest of the switch ports mark RED only):
     * "all" every switch port, "tor" the ToRs' (leaf, edge) ports only, as
     * the Symphony paper deploys it (section 5), "tor-up" the ToRs'
     * uplinks only
     */
    std::string symphonyAt = "all";
    uint32_t hostQueuePackets = 100000;
    /* PFC (pfc.h): a switch pauses the sender on an ingress port holding
     * more than @pfcXoffBytes and resumes it at @pfcXonBytes; 0: lossy
     * (p2p links only)
     */
    uint32_t pfcXoffBytes = 0, pfcXonBytes = 0;
    FabricRoutingConfig routing;
    /* --lb-mix (fat tree): some switches balance by @mixMode instead of
     * routing.mode (the Ofan paper's Fig. 11): every edge switch
     * ("edge"), every aggregation switch ("agg"), those of half the pods
     * ("pods") or half of the edge and aggregation switches ("switches"),
     * the halves drawn from the seed; "" for none
     */
    std::string mixWhere;
    LbMode mixMode = LbMode::Ar;
    /* pOfan: a switch's downlinks, this many to a pipe in port order */
    uint32_t pipePorts = 1;
    uint64_t seed = 1;
    /* distributed runs (partition.h): the processes, and this one */
    uint32_t partitions = 1, self = 0;
};

struct SwitchPort
{
    std::string name;   /* "leaf0->spine1", "spine1->leaf0", "leaf0->h3" */
    Ptr<QueueDisc> queue;
    uint64_t rateBps;
    Ptr<PfcGate> gate; /* under PFC: the port's pause state */
    uint32_t node;     /* the switch's, for IsLocal() */
    bool symphony;     /* Symphony marks here (--symphony-at) */
};

class Fabric
{
  public:
    void Build(const TopologySpec& spec, const RoceConfig& roce);

    /* an edge switch's uplinks */
    uint32_t EdgeUplinks() const;
    /* --lb-mix: per node, whether it balances by spec.mixMode; how many */
    std::vector<bool> MixedSwitches(const TopologySpec& spec) const;
    uint32_t MixedCount(const TopologySpec& spec) const;
    uint32_t NumHosts() const;
    uint32_t NumSwitchLinks() const;
    std::string LinkName(uint32_t link) const;
    /* the switch number (edge or leaf) a host hangs off */
    uint32_t EdgeOf(uint32_t host) const;
    uint32_t NumEdges() const;
    /* edge (leaf) switch @edge, and the address its own packets carry */
    Ptr<Node> EdgeSwitch(uint32_t edge, Ipv4Address* addr) const;
    /* links on the path from host @a to host @b */
    uint32_t Hops(uint32_t a, uint32_t b) const;
    /* distributed runs: whether this process simulates @node or @host */
    bool IsLocal(uint32_t node) const;
    bool HostIsLocal(uint32_t host) const;
    /* the switch links that are down, by number */
    std::vector<uint32_t> FailedLinks() const;
    /* The highest fraction of the host rate at which every host can send
     * to its @partner at once when each switch splits a destination's
     * traffic evenly over its live uplinks towards it (at most 1): the
     * feasible pace of the Ofan paper's failure runs, with an even split
     * standing for its "balanced perfectly across all valid shortest
     * paths".  0 if a host cannot reach its partner.
     */
    double FeasibleRate(const std::vector<uint32_t>& partner) const;
    std::vector<Ptr<RoceHost>> Hosts() const;
    const std::vector<SwitchPort>& Ports() const;
    std::vector<Ptr<FabricRouting>> Routers() const;
    /* under PFC: PAUSEs the switches sent, and the hosts' NICs' time paused */
    uint64_t PfcPausesSent() const;
    uint64_t PfcHostPausedNs() const;

  private:
    struct NodeInfo
    {
        uint32_t tier;        /* 0 host, 1 edge/leaf, 2 aggregation (or spine), 3 core */
        int32_t pod;          /* fat tree; -1 for cores and leaf-spine */
        uint32_t index;       /* within its tier */
        std::string name;
    };
    struct Link
    {
        uint32_t a, b;        /* nodes: a below b */
        uint32_t ifA, ifB;    /* their interfaces */
        uint64_t rateBps;
        bool up;
        bool hostLink;
    };

    uint32_t AddNode(uint32_t tier,
                     int32_t pod,
                     uint32_t index,
                     const std::string& name,
                     uint32_t group);
    void AddLink(uint32_t a, uint32_t b, uint64_t rateBps, bool hostLink);
    void Wire(const TopologySpec& spec, const RoceConfig& roce);
    void ComputeTables(const TopologySpec& spec);
    /* over live links, whether node n reaches host h going down only
     * (@down, by interface @downIf) or at all, up then down (@any)
     */
    void Reach(std::vector<std::vector<char>>* down, std::vector<std::vector<int32_t>>* downIf,
               std::vector<std::vector<char>>* any) const;
    void DrawFailures(const TopologySpec& spec);

    NodeContainer m_nodes;
    std::vector<NodeInfo> m_info;
    std::vector<Link> m_links;            /* host links first, then switch links */
    std::vector<uint32_t> m_switchLinks;  /* indices into m_links */
    std::vector<uint32_t> m_hostNodes;    /* host h's node */
    std::vector<uint32_t> m_edgeOf;       /* host h's edge switch node */
    std::vector<uint32_t> m_edgeNodes;    /* edge switch e's node */
    uint32_t m_edges = 0, m_maxTier = 0;
    uint64_t m_hostRateBps = 0;
    uint32_t m_partitions = 1, m_self = 0;
    std::vector<SwitchPort> m_ports;
    std::vector<Ptr<RoceHost>> m_roce;
    std::vector<Ptr<FabricRouting>> m_routers;
    std::vector<Ptr<PfcSwitch>> m_pfc;     /* by node, switches only */
    std::vector<Ptr<PfcGate>> m_hostGates;
};

} // namespace ns3

#endif /* SYMOFAN_SIM_TOPOLOGY_H */
