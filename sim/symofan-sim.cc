// SPDX-License-Identifier: GPL-2.0
/*
 * symofan-sim.cc - the project's packet-level simulator on ns-3: ring
 * collectives of DCQCN senders over a leaf-spine or fat tree whose
 * switch ports run sch_symphony's model and whose switches forward by
 * ECMP or Ofan, with the very C cores the kernel, the BPF programs and
 * the workload tools run.  Writes one JSON document: the run's set-up,
 * the simulator's speed, every switch port's counters and each rank's
 * result in ringcoll's form (sim/ringsim.sh merges the ranks as
 * tc-scripts/ringrun.sh does the testbed's).
 */
#include <getopt.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "model/background.h"
#include "model/flow-driver.h"
#include "model/perm-driver.h"
#include "model/partition.h"
#include "model/ring-driver.h"
#include "model/topology.h"
#include "model/workload-driver.h"

#include "ns3/core-module.h"
#include "ns3/traffic-control-module.h"

extern "C" {
#include "parse.h"
#include "symphony_param.h"
}

using namespace ns3;

static const char kUsage[] =
    "Usage: symofan-sim ring|perm|flows|workload [options]\n"
    "  ring: ring collectives of DCQCN senders (ringcoll's)\n"
    "  workload: training jobs of compute phases and ring collectives, read\n"
    "        from --workload FILE (docs/workloads.md); their JCT, iteration\n"
    "        times and each op's times\n"
    "  flows: single RDMA WRITE flows of DCQCN senders (--flow), each with its\n"
    "        own job, step and start (the Symphony paper's Fig. 9)\n"
    "  perm: the Ofan paper's permutation, every packet ACKed (permsend's);\n"
    "        default fabric: a k=4 fat tree of 20 Mbit/s links\n"
    "Fabric:\n"
    "  --topology leafspine|fattree|multipod  (default leafspine)\n"
    "  --leaves N --spines N --hosts-per-leaf N   leaf-spine size (default 4, 2, 4);\n"
    "                        multipod: per pod\n"
    "  --pods N --cores N    multipod: leaf-spine pods under N cores, spine j of each\n"
    "                        pod linked to the j-th cores/spines of them (default 2, 2)\n"
    "  --k K                 fat tree arity, even (default 4)\n"
    "  --rate RATE           host link rate, tc units (default 2500kbit)\n"
    "  --uplink-rate RATE    switch-to-switch link rate (default: twice --rate in a\n"
    "                        leaf-spine, --rate in a fat tree or multi-pod fabric)\n"
    "  --delay-us US         one-way propagation of every link, microseconds (default 1)\n"
    "  --links p2p|htb       p2p (default): links serialise every packet at every hop,\n"
    "                        as switches do; htb: the testbed's veth links, shaped by\n"
    "                        an HTB class that sends a frame whenever its bucket is\n"
    "                        not in debt\n"
    "  --burst BYTES         htb: every class's bucket (default 5 ms at its rate,\n"
    "                        at least 1600 bytes: leafspine.sh's auto)\n"
    "  --imbalance L:S:R     leaf L's link to spine S runs at the uplink rate / R\n"
    "  --fail LINK           switch link number LINK is down (repeatable)\n"
    "  --fail-prob P         and every other switch link down with probability P\n"
    "                        (0..0.5), drawn from the seed; a draw that cuts a host\n"
    "                        off another is drawn again\n"
    "  --pfc BYTES           lossless: a switch pauses the sender on an ingress port\n"
    "                        holding more than BYTES (16k..1g) and resumes it 8 KiB\n"
    "                        below (p2p links; default: off, deep lossy queues)\n"
    "  --background PCT      each edge switch sends UEC traffic (job 100 + its number)\n"
    "                        to the last host of the next at PCT%% of --rate (default 0)\n"
    "  --lb MODE             ecmp, ofan, pofan, Nofan (pofan, N ports a pipe: 4ofan), rr,\n"
    "                        rps, static, jsq (join the shortest queue) or ar\n"
    "                        (adaptive routing: JSQ on queues quantized at 5, 10\n"
    "                        and 20%% of --ar-buffer) (default ecmp), or reps (perm\n"
    "                        only: ecmp switches, and hosts choosing each packet's\n"
    "                        UDP source port by Recycled Entropy Packet Spraying),\n"
    "                        or drb (perm only: host destination rotation, each host\n"
    "                        rotating a pointer per destination and size class over\n"
    "                        the paths through the lowest common layer's switches)\n"
    "  --lb-mix MODE@WHERE   fat tree: these switches balance by MODE (ecmp, ofan,\n"
    "                        rr, rps, static, jsq, ar), the others by --lb: every\n"
    "                        edge switch (edge), every aggregation switch (agg),\n"
    "                        those of half the pods (pods) or half of the edge and\n"
    "                        aggregation switches (switches), halves drawn from\n"
    "                        the seed (the Ofan paper's Fig. 11)\n"
    "  --pipe-ports N        pOfan: a switch's downlinks, N to a pipe in port order\n"
    "                        (default 1: each its own pipe, the paper's 1Ofan;\n"
    "                        ofan-fattree.sh's --pipe-ports)\n"
    "  --ofan-start random|zero  Ofan's pointers start at random, ACK pointers\n"
    "                        half a round later (the paper's; default), or at 0\n"
    "                        (this simulator before: older results)\n"
    "  --reps-entropies N    reps: entropies a host's cache holds, 1..1024 (default 8,\n"
    "                        the buffer of the REPS paper's and the Ofan paper's htsim)\n"
    "  --reps-freeze-us US   reps: how long a timeout freezes the cache, microseconds,\n"
    "                        0..10000000; 0: never (default 10000, htsim's 10 ms)\n"
    "  --reps-timeout-min-us US  reps: a packet unACKed past its smoothed round trip\n"
    "                        plus four deviations, and at least US microseconds\n"
    "                        (1..10000000; default 2, htsim's minimum RTO), is a\n"
    "                        timeout, which freezes the cache\n"
    "                        reps without --qdisc: the switches mark every packet that\n"
    "                        leaves past a tenth of --ar-buffer (the Ofan paper's\n"
    "                        ECN threshold, 80 KB of its 800 KB buffer)\n"
    "  --ar-buffer BYTES     ar: the port buffer its quanta are of (default 800k,\n"
    "                        the Ofan paper's)\n"
    "  --qdisc \"OPTS\"        every switch port's sch_symphony options, tc's words\n"
    "                        (default \"limit 1000 kmin 16kb kmax 64kb pmax 0.2\n"
    "                        k 0.01 tau 0.25 twin 100ms warmup 4 samples 4\")\n"
    "  --marking red|symphony|pq  RED only (the baseline), Symphony OR RED, or\n"
    "                        RED with each job's slowest step served first in strict\n"
    "                        priority (the Symphony paper's Fig. 5 priority queue)\n"
    "  --state port|switch   Symphony's job state per port or shared per switch\n"
    "  --symphony-at all|tor|tor-up  the switch ports where Symphony marks (the\n"
    "                        others mark RED only): every port (default), the\n"
    "                        ToRs' ports (the paper's deployment), the ToRs' uplinks\n"
    "Workload (ringcoll's options):\n"
    "  --ring JOB=H,H,...    a ring of job JOB over hosts H (repeatable; several\n"
    "                        rings of one job run side by side)\n"
    "  --job-start JOB=US    job JOB starts at US microseconds (default 0)\n"
    "  --job-size JOB=BYTES --job-iterations JOB=N   job JOB's own --size and\n"
    "                        --iterations (default: the run's)\n"
    "  --collective C        allreduce, allgather or reducescatter (default allreduce)\n"
    "  --size BYTES          data per rank (default 1m)\n"
    "  --grid ROWSxCOLS      2D rings: each --ring's hosts are a grid, row-major, and\n"
    "                        AllReduce runs hierarchically (row reduce-scatter,\n"
    "                        column AllReduce, row all-gather; ringcoll's --grid)\n"
    "  --ring-jobs           a grid's row and column rings each carry a job ID of\n"
    "                        their own (JOB x 256 + ring: rows 0.., columns ROWS..)\n"
    "  --flows legacy|astra|nccl  the transport's flows (default legacy):\n"
    "                        legacy: --step-qps queue pairs per channel, the PSN\n"
    "                        running on across messages; astra: Astra-Sim's, every\n"
    "                        step a new queue pair at line rate, a node's open steps\n"
    "                        sharing its NIC; nccl: one queue pair per channel, steps\n"
    "                        in order; astra and nccl number each message's PSNs from 0\n"
    "  --channels N --step-qps S --iterations N --step-base PORT\n"
    "  --step-flows          each step's transfer starts as a new flow (legacy flows)\n"
    "  --fixed-rate          no DCQCN: queue pairs send at line rate\n"
    "  --mtu BYTES           payload bytes per packet, 64..65491 (default 4096)\n"
    "  --rto MS              retransmission timeout, milliseconds (default 20)\n"
    "  --lose-ack-of-message N  fault injection: every receiver drops the first ACK\n"
    "                        of each queue pair's N-th message (1..1000000)\n"
    "  --cc PROFILE          DCQCN's constants: mlx5 (the driver's defaults; the\n"
    "                        default), hpcc (HPCC's simulator) or legacy (the\n"
    "                        project's before 2026-12); docs/workloads.md\n"
    "  --cnp-interval US     at most one CNP per queue pair per US microseconds\n"
    "                        (default: the profile's, mlx5 4)\n"
    "  --dcqcn-alpha-us US --dcqcn-timer-us US --dcqcn-decrease-us US\n"
    "  --dcqcn-bytes BYTES (0: no byte counter)\n"
    "  --dcqcn-rai RATE --dcqcn-rhai RATE   DCQCN's timers, byte counter and steps\n"
    "  --dcqcn-g N --dcqcn-f N --dcqcn-min-rate RATE   gain 1/N, fast-recovery\n"
    "                        events after a cut and the floor of a cut\n"
    "  --dcqcn-clamp always|timer|never  a cut sets the target rate to the\n"
    "                        current rate: always, after a timer increase, never\n"
    "                        (with a byte counter: also after a byte-counter increase)\n"
    "                        (each overrides the profile's, as ringcoll's)\n"
    "Workload:\n"
    "  --workload FILE       the jobs (format symofan-workload, version 1); the\n"
    "                        collectives run as ring's, with its options\n"
    "Flows:\n"
    "  --flow SRC:DST:JOB:STEP:BYTES:START_US  a flow of BYTES from host SRC to\n"
    "                        DST, job JOB, step STEP (UDP source port --step-base +\n"
    "                        STEP), starting START_US microseconds in (repeatable)\n"
    "  --flow-sample-us US   each flow's packets sent per US microseconds, from the\n"
    "                        first start until all are acknowledged, in the JSON\n"
    "                        (sent_packets_per_sample; default 0: none)\n"
    "Permutation (permsend's options):\n"
    "  --packets M           data packets per host and destination (default 64)\n"
    "  --pattern P           permutation (default: each host to its partner in the\n"
    "                        seed's derangement), all-to-all (each host M packets\n"
    "                        to every other, a queue pair each, host h's in the order\n"
    "                        h+1, h+2, ... and interleaved round-robin at the pace;\n"
    "                        without --cca and failures) or server-ring (servers of\n"
    "                        --server-hosts hosts in the seed's random cyclic order,\n"
    "                        each host to its slot in the next server: the Ofan\n"
    "                        paper's FSDP2 scale-out rings, GPU i to GPU i + 8) or\n"
    "                        matrix (--matrix: each host its bytes to each other,\n"
    "                        a queue pair each in all-to-all's order, the NIC\n"
    "                        round-robin at the line rate, or with --cca a window\n"
    "                        a queue pair; without failures)\n"
    "  --matrix FILE         matrix: the bytes (format symofan-matrix, version 1:\n"
    "                        {\"hosts\": N, \"bytes\": [[N bytes] x N]}, the\n"
    "                        fabric's hosts; sim/workload_gen.py moe writes one)\n"
    "  --server-hosts G      server-ring: hosts a server (default 8; the hosts a\n"
    "                        multiple of G, 2 servers or more)\n"
    "  --phases P            the pattern P times on the same queue pairs, each\n"
    "                        phase starting once every host has the previous one's\n"
    "                        last ACK (1..100000; default 1): a layer's collective\n"
    "                        phase after another's; each phase's CCT in the JSON\n"
    "  --load PCT|max        each host's pace, % of --rate (default 100); max: the\n"
    "                        highest every host can keep over the live links when\n"
    "                        switches split each destination's traffic evenly\n"
    "  --cca ALG             a window per host for sprayed traffic: none (the\n"
    "                        open-loop pace, default), dctcp, nscc (UEC's) or mswift\n"
    "                        (multipath Swift); every packet ACKed on its own, a\n"
    "                        lost one sent again; ports hold --ar-buffer bytes and\n"
    "                        mark past a tenth of it unless --qdisc says otherwise\n"
    "  --dupack-threshold N  --cca: a packet is lost once ACKs came back for N\n"
    "                        packets sent after it (1..100000; default 3 + the\n"
    "                        paths between two pods: (k/2)^2 in a fat tree)\n"
    "  --loss-rto-min-us US  --cca: a packet unACKed past its round trip's timeout,\n"
    "                        at least US microseconds (1..10000000), is lost (default:\n"
    "                        the path's base round trip plus the time its switch\n"
    "                        ports' --ar-buffer takes to drain)\n"
    "  --cwnd-init-pct P --cwnd-max-pct P  --cca: the windows' start and ceiling,\n"
    "                        % of the path's bandwidth-delay product (1..10000;\n"
    "                        default 100 and 150)\n"
    "  --mswift-subflows N   --cca mswift: windows per host, each its own UDP source\n"
    "                        port (1..256; default 1)\n"
    "Run:\n"
    "  --seed N              (default 1)\n"
    "  --paper-ofan          perm: the Ofan paper's settings as defaults: --k 12 (432\n"
    "                        hosts), --rate 800gbit, 0.5 us links (--delay-us\n"
    "                        overrides), --mtu 4096, --ar-buffer 800k (ECN for reps\n"
    "                        at 80k); fixed: 4,158-byte data frames (62 bytes of\n"
    "                        headers) and a 20-byte gap, time in ps\n"
    "  --stop-ms MS          give up at this simulated time (default 600000)\n"
    "  --out FILE            the JSON result (default stdout)\n";

[[noreturn]] static void
Usage(const std::string& why)
{
    std::cerr << "symofan-sim: " << why << "\n" << kUsage;
    exit(2);
}

/* A RoCEv2 packet's IP datagram of @payload bytes: IPv4, UDP, BTH,
 * payload, ICRC
 */
static uint32_t
RoceIpBytes(uint32_t payload)
{
    return ROCE_IPV4_LEN + 8 + SYMPHONY_BTH_LEN + payload + ROCE_ICRC_LEN;
}

static uint64_t
ArgU64(const char* opt, const char* s, uint64_t min, uint64_t max)
{
    unsigned long long v;

    if (parse_ull(s, min, max, &v))
        Usage(std::string(opt) + ": '" + s + "' is not a number in " + std::to_string(min) +
              ".." + std::to_string(max));
    return v;
}

static uint64_t
ArgRate(const char* opt, const char* s)
{
    __u64 v;

    if (parse_rate(s, &v) || !v)
        Usage(std::string(opt) + ": '" + s + "' is not a rate (e.g. 2500kbit)");
    return v;
}

/* PFC resumes a port this many bytes below its XOFF */
static constexpr uint32_t kPfcHysteresisBytes = 8192;
/* --paper-ofan: the Ofan paper's settings (its section 6 and Table 1) */
static constexpr uint32_t kPaperK = 12;                  /* 432 hosts, three tiers */
static constexpr uint64_t kPaperRateBps = 800000000000ULL;
static constexpr uint64_t kPaperDelayNs = 500;
static constexpr uint32_t kPaperPayload = 4096;
static constexpr uint64_t kPaperBufferBytes = 800000;    /* ECN at a tenth: 80 KB */
static constexpr uint32_t kPaperFramingBytes = 18;       /* Ethernet header 14, FCS 4 */
static constexpr uint32_t kPaperIfgBytes = 20;           /* preamble 8, gap 12 */
static constexpr uint32_t kPaperAckBytes = 64;           /* the paper's (htsim's) ACK */

static uint64_t
ArgSize(const char* opt, const char* s)
{
    __u64 v;

    if (parse_size(s, &v))
        Usage(std::string(opt) + ": '" + s + "' is not a size (e.g. 64k)");
    return v;
}

/* A tc time ("100ms", "50us", "1s", bare microseconds) in microseconds. */
static int
ParseTimeUs(const char* s, unsigned long long* us)
{
    static const struct
    {
        const char* unit;
        unsigned long long scale;
    } units[] = {{"", 1}, {"us", 1}, {"ms", 1000}, {"s", 1000000}};
    char num[32];
    size_t n = strspn(s, "0123456789");

    if (!n || n >= sizeof(num))
        return -1;
    memcpy(num, s, n);
    num[n] = 0;
    for (const auto& u : units)
        if (!strcmp(s + n, u.unit))
        {
            unsigned long long v;
            if (parse_ull(num, 0, ~0ULL / u.scale, &v))
                return -1;
            *us = v * u.scale;
            return 0;
        }
    return -1;
}

/* sch_symphony's options in tc's words onto the queue disc's attributes. */
static void
ApplyQdiscOptions(ObjectFactory& f, const std::string& text)
{
    std::istringstream in(text);
    std::string kw, val;

    while (in >> kw)
    {
        const struct symphony_param* p = symphony_param_by_keyword(kw.c_str());
        char range[96];
        __u32 v;

        if (!p || p->attr == TCA_SYMPHONY_JOBS)
            Usage("--qdisc: unknown option '" + kw + "'");
        if (!(in >> val))
            Usage("--qdisc: '" + kw + "' wants a value");
        symphony_param_range_text(p, 0, range, sizeof(range));
        if (p->kind == SYMPHONY_KIND_BYTES || p->kind == SYMPHONY_KIND_US)
        {
            unsigned long long n = 0;
            __u64 bytes = 0;
            int bad = p->kind == SYMPHONY_KIND_BYTES ? parse_size(val.c_str(), &bytes)
                                                     : ParseTimeUs(val.c_str(), &n);
            if (p->kind == SYMPHONY_KIND_BYTES)
                n = bytes;
            if (bad || symphony_param_in_range(p, n))
                Usage("--qdisc: " + kw + " '" + val + "' is not in " + range);
            v = n;
        }
        else if (symphony_param_parse(p, val.c_str(), 0, &v))
        {
            Usage("--qdisc: " + kw + " '" + val + "' is not in " + range);
        }
        if (p->kind == SYMPHONY_KIND_ENUM)
            f.Set(kw, EnumValue(v));
        else
            f.Set(kw, UintegerValue(v));
    }
}

/* "JOB=rest" */
static uint32_t
SplitJob(const char* opt, const std::string& arg, std::string* rest)
{
    size_t eq = arg.find('=');

    if (eq == std::string::npos)
        Usage(std::string(opt) + ": '" + arg + "' is not JOB=...");
    *rest = arg.substr(eq + 1);
    return ArgU64(opt, arg.substr(0, eq).c_str(), 1, (1U << ROCE_JOB_BITS) - 1);
}

int
main(int argc, char** argv)
{
    enum
    {
        O_TOPOLOGY = 256, O_LEAVES, O_SPINES, O_PODS, O_CORES, O_HPL, O_K, O_RATE, O_UPRATE, O_DELAY, O_IMB,
        O_FAIL, O_LB, O_PIPES, O_QDISC, O_MARKING, O_STATE, O_RING, O_JOBSTART, O_COLL,
        O_SIZE, O_CHANNELS, O_STEPQPS, O_ITER, O_STEPBASE, O_STEPFLOWS, O_FIXED, O_MTU,
        O_RTO, O_LOSEACK, O_CNP, O_DALPHA, O_DTIMER, O_DBYTES, O_DRAI, O_DRHAI, O_DG, O_DF, O_DMIN, O_PFC, O_SEED, O_STOP, O_OUT, O_BG, O_LINKS, O_BURST, O_PACKETS, O_LOAD, O_GRID, O_FAILP, O_JOBSIZE, O_JOBITER, O_RINGJOBS,
        O_CC, O_FLOWS, O_SYMAT, O_DDEC, O_DCLAMP, O_FLOW, O_FLOWSAMPLE, O_OFANSTART, O_ARBUF,
        O_REPSN, O_REPSFREEZE, O_REPSTMIN, O_PAPER, O_CCA, O_DUPTHR, O_SUBFLOWS, O_LOSSRTO, O_CWNDINIT, O_CWNDMAX, O_LBMIX,
        O_PATTERN, O_WORKLOAD, O_SERVERHOSTS, O_PHASES, O_MATRIX,
    };
    static const struct option opts[] = {
        {"topology", required_argument, nullptr, O_TOPOLOGY},
        {"leaves", required_argument, nullptr, O_LEAVES},
        {"spines", required_argument, nullptr, O_SPINES},
        {"pods", required_argument, nullptr, O_PODS},
        {"cores", required_argument, nullptr, O_CORES},
        {"hosts-per-leaf", required_argument, nullptr, O_HPL},
        {"k", required_argument, nullptr, O_K},
        {"rate", required_argument, nullptr, O_RATE},
        {"uplink-rate", required_argument, nullptr, O_UPRATE},
        {"delay-us", required_argument, nullptr, O_DELAY},
        {"imbalance", required_argument, nullptr, O_IMB},
        {"fail", required_argument, nullptr, O_FAIL},
        {"lb", required_argument, nullptr, O_LB},
        {"pipe-ports", required_argument, nullptr, O_PIPES},
        {"ofan-start", required_argument, nullptr, O_OFANSTART},
        {"ar-buffer", required_argument, nullptr, O_ARBUF},
        {"reps-entropies", required_argument, nullptr, O_REPSN},
        {"reps-freeze-us", required_argument, nullptr, O_REPSFREEZE},
        {"reps-timeout-min-us", required_argument, nullptr, O_REPSTMIN},
        {"qdisc", required_argument, nullptr, O_QDISC},
        {"marking", required_argument, nullptr, O_MARKING},
        {"state", required_argument, nullptr, O_STATE},
        {"ring", required_argument, nullptr, O_RING},
        {"job-start", required_argument, nullptr, O_JOBSTART},
        {"collective", required_argument, nullptr, O_COLL},
        {"size", required_argument, nullptr, O_SIZE},
        {"channels", required_argument, nullptr, O_CHANNELS},
        {"step-qps", required_argument, nullptr, O_STEPQPS},
        {"iterations", required_argument, nullptr, O_ITER},
        {"step-base", required_argument, nullptr, O_STEPBASE},
        {"step-flows", no_argument, nullptr, O_STEPFLOWS},
        {"fixed-rate", no_argument, nullptr, O_FIXED},
        {"mtu", required_argument, nullptr, O_MTU},
        {"rto", required_argument, nullptr, O_RTO},
        {"lose-ack-of-message", required_argument, nullptr, O_LOSEACK},
        {"cnp-interval", required_argument, nullptr, O_CNP},
        {"dcqcn-alpha-us", required_argument, nullptr, O_DALPHA},
        {"dcqcn-timer-us", required_argument, nullptr, O_DTIMER},
        {"dcqcn-bytes", required_argument, nullptr, O_DBYTES},
        {"dcqcn-rai", required_argument, nullptr, O_DRAI},
        {"dcqcn-rhai", required_argument, nullptr, O_DRHAI},
        {"dcqcn-g", required_argument, nullptr, O_DG},
        {"dcqcn-f", required_argument, nullptr, O_DF},
        {"dcqcn-min-rate", required_argument, nullptr, O_DMIN},
        {"pfc", required_argument, nullptr, O_PFC},
        {"seed", required_argument, nullptr, O_SEED},
        {"stop-ms", required_argument, nullptr, O_STOP},
        {"out", required_argument, nullptr, O_OUT},
        {"background", required_argument, nullptr, O_BG},
        {"links", required_argument, nullptr, O_LINKS},
        {"packets", required_argument, nullptr, O_PACKETS},
        {"pattern", required_argument, nullptr, O_PATTERN},
        {"load", required_argument, nullptr, O_LOAD},
        {"burst", required_argument, nullptr, O_BURST},
        {"grid", required_argument, nullptr, O_GRID},
        {"fail-prob", required_argument, nullptr, O_FAILP},
        {"job-size", required_argument, nullptr, O_JOBSIZE},
        {"job-iterations", required_argument, nullptr, O_JOBITER},
        {"ring-jobs", no_argument, nullptr, O_RINGJOBS},
        {"cc", required_argument, nullptr, O_CC},
        {"flows", required_argument, nullptr, O_FLOWS},
        {"symphony-at", required_argument, nullptr, O_SYMAT},
        {"dcqcn-decrease-us", required_argument, nullptr, O_DDEC},
        {"dcqcn-clamp", required_argument, nullptr, O_DCLAMP},
        {"flow", required_argument, nullptr, O_FLOW},
        {"flow-sample-us", required_argument, nullptr, O_FLOWSAMPLE},
        {"paper-ofan", no_argument, nullptr, O_PAPER},
        {"cca", required_argument, nullptr, O_CCA},
        {"dupack-threshold", required_argument, nullptr, O_DUPTHR},
        {"mswift-subflows", required_argument, nullptr, O_SUBFLOWS},
        {"loss-rto-min-us", required_argument, nullptr, O_LOSSRTO},
        {"cwnd-init-pct", required_argument, nullptr, O_CWNDINIT},
        {"lb-mix", required_argument, nullptr, O_LBMIX},
        {"cwnd-max-pct", required_argument, nullptr, O_CWNDMAX},
        {"workload", required_argument, nullptr, O_WORKLOAD},
        {"server-hosts", required_argument, nullptr, O_SERVERHOSTS},
        {"phases", required_argument, nullptr, O_PHASES},
        {"matrix", required_argument, nullptr, O_MATRIX},
        {"help", no_argument, nullptr, 'h'},
        {nullptr, 0, nullptr, 0},
    };
    TopologySpec topo;
    RoceConfig roce;
    RingRunSpec run;
    std::map<uint32_t, RingJobSpec> jobs;
    std::string qdiscText = "limit 1000 kmin 16kb kmax 64kb pmax 0.2 "
                            "k 0.01 tau 0.25 twin 100ms warmup 4 samples 4";
    std::string marking = "symphony", state = "port", out, imbalance = "none";
    std::string lbName = "ecmp";      /* as given: "4ofan" runs as pofan */
    uint32_t lbPipePorts = 0;         /* the ports a pipe --lb implies (4ofan) */
    bool pipePortsSet = false;
    uint64_t uplinkRate = 0, stopMs = 600000, backgroundPct = 0;
    uint64_t dAlphaUs = 0, dTimerUs = 0, dRai = 0, dRhai = 0, dG = 0, dMin = 0;
    int64_t dBytes = -1, dF = -1, dDecUs = -1, cnpUs = -1;
    int ccProfile = DCQCN_PROFILE_MLX5;
    std::string flows = "legacy", dClamp;
    bool stepQpsSet = false, qdiscSet = false, repsOptSet = false;
    uint64_t repsEcnBytes = 0; /* reps's default marking threshold, 0: --qdisc's */
    int64_t dupThreshold = -1; /* --cca's; -1: 3 + the fabric's paths */
    uint64_t portLimitPackets = 0; /* --cca's port buffer, packets (0: --qdisc's) */
    bool ccaOptSet = false;
    int opt;

    PermSpec perm;
    std::vector<FlowSpec> flowSpecs;
    uint64_t flowSampleUs = 0;
    bool isPerm, isFlows, isWorkload, loadMax = false, patternSet = false;
    std::string workloadFile;
    bool serverRing = false, serverHostsSet = false, matrixPattern = false;
    std::string matrixFile;
    uint32_t serverHosts = 8;
    Workload workload;

    /* --paper-ofan runs at ps resolution (its 41.78 ns frames), set
     * before the first Time of the run, as ns-3 requires
     */
    bool paper = false;
    for (int a = 2; a < argc; a++)
        if (!strcmp(argv[a], "--paper-ofan"))
            paper = true;
    if (paper)
        Time::SetResolution(Time::PS);
    Partition::Init(&argc, &argv);
    roce.lineRateBps = 2500000;
    roce.rtoNs = 20000000;
    if (argc < 2 || (strcmp(argv[1], "ring") && strcmp(argv[1], "perm") && strcmp(argv[1], "flows") &&
                     strcmp(argv[1], "workload")))
        Usage(argc < 2 ? "no command" : std::string("unknown command '") + argv[1] + "'");
    isPerm = !strcmp(argv[1], "perm");
    isFlows = !strcmp(argv[1], "flows");
    isWorkload = !strcmp(argv[1], "workload");
    if (isPerm)
    {
        topo.kind = "fattree";
        roce.lineRateBps = 20000000;
        roce.fixedRate = true;
        roce.unreliable = true;
        /* a FIFO as deep as the run: queues are measured, never marked */
        qdiscText = "limit 1000000 kmin 4000000000 kmax 4000000000 pmax 0";
        marking = "red";
    }
    if (paper)
    {
        /* the Ofan paper's settings (section 6, Table 1): each a default
         * that its option overrides
         */
        topo.k = kPaperK;
        roce.lineRateBps = kPaperRateBps;
        topo.delayNs = kPaperDelayNs;
        roce.mtuBytes = kPaperPayload;
        topo.routing.arBufferBytes = kPaperBufferBytes;
    }
    optind = 2;
    while ((opt = getopt_long(argc, argv, "h", opts, nullptr)) != -1)
    {
        switch (opt)
        {
        case O_TOPOLOGY:
            topo.kind = optarg;
            if (topo.kind != "leafspine" && topo.kind != "fattree" && topo.kind != "multipod")
                Usage(std::string("--topology: '") + optarg +
                      "' is not leafspine, fattree or multipod");
            break;
        case O_LEAVES: topo.leaves = ArgU64("--leaves", optarg, 1, 4096); break;
        case O_SPINES: topo.spines = ArgU64("--spines", optarg, 1, OFAN_MAX_W); break;
        case O_PODS: topo.pods = ArgU64("--pods", optarg, 1, 1024); break;
        case O_CORES: topo.cores = ArgU64("--cores", optarg, 1, 65536); break;
        case O_HPL: topo.hostsPerLeaf = ArgU64("--hosts-per-leaf", optarg, 1, 4096); break;
        case O_K: topo.k = ArgU64("--k", optarg, 2, 2 * OFAN_MAX_W); break;
        case O_RATE: roce.lineRateBps = ArgRate("--rate", optarg); break;
        case O_UPRATE: uplinkRate = ArgRate("--uplink-rate", optarg); break;
        case O_DELAY: topo.delayNs = ArgU64("--delay-us", optarg, 0, 10000000) * 1000; break;
        case O_IMB: {
            unsigned l, s;
            double r;
            char tail;
            if (sscanf(optarg, "%u:%u:%lf%c", &l, &s, &r, &tail) != 3 || r < 1 || r > 1000)
                Usage(std::string("--imbalance: '") + optarg + "' is not LEAF:SPINE:RATIO, RATIO 1..1000");
            topo.slowLeaf = l;
            topo.slowSpine = s;
            topo.slowFactorPpm = (uint32_t)(r * 1000000 + 0.5);
            imbalance = optarg;
            break;
        }
        case O_FAIL: topo.failedLinks.push_back(ArgU64("--fail", optarg, 0, 1000000)); break;
        case O_LB:
            lbPipePorts = 0;
            /* reps: ecmp switches, REPS in the hosts */
            roce.reps = !strcmp(optarg, "reps");
            if (roce.reps)
                topo.routing.mode = LbMode::Ecmp;
            else if (!LbModeFromName(optarg, &topo.routing.mode, &lbPipePorts))
                Usage(std::string("--lb: unknown mode '") + optarg + "' (" + LbModeNames() +
                      ", reps)");
            lbName = optarg;
            /* drb: the hosts choose, the switches follow */
            roce.drb = topo.routing.mode == LbMode::Drb;
            break;
        case O_PIPES:
            topo.pipePorts = ArgU64("--pipe-ports", optarg, 1, 4096);
            pipePortsSet = true;
            break;
        case O_OFANSTART:
            if (std::string(optarg) != "random" && std::string(optarg) != "zero")
                Usage(std::string("--ofan-start: '") + optarg + "' is not random or zero");
            topo.routing.randomStart = std::string(optarg) == "random";
            break;
        case O_ARBUF: topo.routing.arBufferBytes = ArgSize("--ar-buffer", optarg); break;
        case O_QDISC:
            qdiscText = optarg;
            qdiscSet = true;
            break;
        case O_REPSN:
            roce.repsEntropies = ArgU64("--reps-entropies", optarg, 1, 1024);
            repsOptSet = true;
            break;
        case O_REPSFREEZE:
            roce.repsFreezeNs = ArgU64("--reps-freeze-us", optarg, 0, 10000000) * 1000;
            repsOptSet = true;
            break;
        case O_REPSTMIN:
            roce.repsTimeoutMinNs = ArgU64("--reps-timeout-min-us", optarg, 1, 10000000) * 1000;
            repsOptSet = true;
            break;
        case O_CCA: {
            int a = wcc_algo_by_name(optarg);

            if (a < 0)
                Usage(std::string("--cca: unknown algorithm '") + optarg +
                      "' (none, dctcp, nscc, mswift)");
            roce.wcc.algo = (enum wcc_algo)a;
            break;
        }
        case O_DUPTHR:
            dupThreshold = ArgU64("--dupack-threshold", optarg, 1, 100000);
            ccaOptSet = true;
            break;
        case O_SUBFLOWS:
            roce.wcc.swift_subflows = ArgU64("--mswift-subflows", optarg, 1, 256);
            ccaOptSet = true;
            break;
        case O_LBMIX: {
            std::string v = optarg, mode, where;
            size_t at = v.find('@');
            uint32_t mixPipes = 0;

            mode = v.substr(0, at);
            where = at == std::string::npos ? "" : v.substr(at + 1);
            if (!LbModeFromName(mode, &topo.mixMode, &mixPipes) || mixPipes ||
                topo.mixMode == LbMode::Pofan || topo.mixMode == LbMode::Drb ||
                (where != "edge" && where != "agg" && where != "pods" && where != "switches"))
                Usage("--lb-mix: '" + v + "' is not MODE@WHERE (MODE a switch's own: ecmp, ofan, "
                      "rr, rps, static, jsq, ar; WHERE edge, agg, pods or switches)");
            topo.mixWhere = where;
            break;
        }
        case O_CWNDINIT:
            roce.initCwndPct = ArgU64("--cwnd-init-pct", optarg, 1, 10000);
            ccaOptSet = true;
            break;
        case O_CWNDMAX:
            roce.maxCwndPct = ArgU64("--cwnd-max-pct", optarg, 1, 10000);
            ccaOptSet = true;
            break;
        case O_LOSSRTO:
            roce.lossRtoMinNs = ArgU64("--loss-rto-min-us", optarg, 1, 10000000) * 1000;
            ccaOptSet = true;
            break;
        case O_MARKING:
            marking = optarg;
            if (marking != "red" && marking != "symphony" && marking != "pq")
                Usage(std::string("--marking: '") + optarg + "' is not red, symphony or pq");
            break;
        case O_STATE:
            state = optarg;
            if (state != "port" && state != "switch")
                Usage(std::string("--state: '") + optarg + "' is not port or switch");
            break;
        case O_RING: {
            std::string rest, tok;
            uint32_t job = SplitJob("--ring", optarg, &rest);
            std::istringstream in(rest);
            std::vector<uint32_t> ring;
            while (std::getline(in, tok, ','))
                ring.push_back(ArgU64("--ring", tok.c_str(), 0, 1000000));
            if (ring.size() < 2)
                Usage(std::string("--ring: '") + optarg + "' has fewer than 2 hosts");
            jobs[job].job = job;
            jobs[job].rings.push_back(ring);
            break;
        }
        case O_JOBSTART: {
            std::string rest;
            uint32_t job = SplitJob("--job-start", optarg, &rest);
            jobs[job].job = job;
            jobs[job].startNs = ArgU64("--job-start", rest.c_str(), 0, 1ULL << 40) * 1000;
            break;
        }
        case O_JOBSIZE: {
            std::string rest;
            uint32_t job = SplitJob("--job-size", optarg, &rest);
            jobs[job].job = job;
            jobs[job].sizeBytes = ArgSize("--job-size", rest.c_str());
            break;
        }
        case O_RINGJOBS: run.ringJobs = true; break;
        case O_JOBITER: {
            std::string rest;
            uint32_t job = SplitJob("--job-iterations", optarg, &rest);
            jobs[job].job = job;
            jobs[job].iterations = ArgU64("--job-iterations", rest.c_str(), 1, 100000);
            break;
        }
        case O_COLL:
            if (!CollectiveFromName(optarg, &run.coll))
                Usage(std::string("--collective: unknown '") + optarg + "'");
            break;
        case O_SIZE: run.sizeBytes = ArgSize("--size", optarg); break;
        case O_CHANNELS: run.channels = ArgU64("--channels", optarg, 1, 64); break;
        case O_STEPQPS:
            run.stepQps = ArgU64("--step-qps", optarg, 1, 64);
            stepQpsSet = true;
            break;
        case O_ITER: run.iterations = ArgU64("--iterations", optarg, 1, 100000); break;
        case O_STEPBASE: run.stepBase = ArgU64("--step-base", optarg, 0, 65535); break;
        case O_STEPFLOWS: roce.stepFlows = true; break;
        case O_FIXED: roce.fixedRate = true; break;
        case O_MTU:
            /* IPv4's 65,535 bytes less IPv4, UDP, BTH and ICRC */
            roce.mtuBytes = ArgU64("--mtu", optarg, 64,
                                   65535 - ROCE_IPV4_LEN - 8 - SYMPHONY_BTH_LEN - ROCE_ICRC_LEN);
            break;
        case O_RTO: roce.rtoNs = ArgU64("--rto", optarg, 1, 600000) * 1000000; break;
        case O_LOSEACK: roce.loseAckOfMessage = ArgU64("--lose-ack-of-message", optarg, 1, 1000000); break;
        case O_CNP: cnpUs = ArgU64("--cnp-interval", optarg, 0, 10000000); break;
        case O_CC:
            ccProfile = dcqcn_profile_by_name(optarg);
            if (ccProfile < 0)
                Usage(std::string("--cc: '") + optarg + "' is not mlx5, hpcc or legacy");
            break;
        case O_FLOWS:
            flows = optarg;
            if (flows != "legacy" && flows != "astra" && flows != "nccl")
                Usage(std::string("--flows: '") + optarg + "' is not legacy, astra or nccl");
            break;
        case O_SYMAT:
            topo.symphonyAt = optarg;
            if (topo.symphonyAt != "all" && topo.symphonyAt != "tor" && topo.symphonyAt != "tor-up")
                Usage(std::string("--symphony-at: '") + optarg + "' is not all, tor or tor-up");
            break;
        case O_DDEC: dDecUs = ArgU64("--dcqcn-decrease-us", optarg, 0, 10000000); break;
        case O_DCLAMP:
            dClamp = optarg;
            if (dClamp != "always" && dClamp != "timer" && dClamp != "never")
                Usage(std::string("--dcqcn-clamp: '") + optarg + "' is not always, timer or never");
            break;
        case O_DALPHA: dAlphaUs = ArgU64("--dcqcn-alpha-us", optarg, 1, 10000000); break;
        case O_DTIMER: dTimerUs = ArgU64("--dcqcn-timer-us", optarg, 1, 10000000); break;
        case O_DBYTES: dBytes = ArgSize("--dcqcn-bytes", optarg); break;
        case O_DRAI: dRai = ArgRate("--dcqcn-rai", optarg); break;
        case O_DRHAI: dRhai = ArgRate("--dcqcn-rhai", optarg); break;
        case O_DG: dG = ArgU64("--dcqcn-g", optarg, 1, 65536); break;
        case O_DF: dF = ArgU64("--dcqcn-f", optarg, 0, 100); break;
        case O_DMIN: dMin = ArgRate("--dcqcn-min-rate", optarg); break;
        case O_PFC: topo.pfcXoffBytes = ArgSize("--pfc", optarg); break;
        case O_SEED: topo.seed = ArgU64("--seed", optarg, 1, 1ULL << 32); break;
        case O_STOP: stopMs = ArgU64("--stop-ms", optarg, 1, 1ULL << 32); break;
        case O_OUT: out = optarg; break;
        case O_LINKS:
            topo.linkModel = optarg;
            if (topo.linkModel != "p2p" && topo.linkModel != "htb")
                Usage(std::string("--links: '") + optarg + "' is not p2p or htb");
            break;
        case O_PACKETS: perm.packets = ArgU64("--packets", optarg, 1, 1000000); break;
        case O_PATTERN:
            if (strcmp(optarg, "permutation") && strcmp(optarg, "all-to-all") &&
                strcmp(optarg, "server-ring") && strcmp(optarg, "matrix"))
                Usage(std::string("--pattern: '") + optarg +
                      "' is not permutation, all-to-all, server-ring or matrix");
            perm.allToAll = !strcmp(optarg, "all-to-all");
            serverRing = !strcmp(optarg, "server-ring");
            matrixPattern = !strcmp(optarg, "matrix");
            patternSet = true;
            break;
        case O_SERVERHOSTS:
            serverHosts = ArgU64("--server-hosts", optarg, 1, 1000000);
            serverHostsSet = true;
            break;
        case O_PHASES: perm.phases = ArgU64("--phases", optarg, 1, 100000); break;
        case O_MATRIX: matrixFile = optarg; break;
        case O_LOAD:
            if (!strcmp(optarg, "max"))
                loadMax = true;
            else
                perm.loadPpm = ArgU64("--load", optarg, 1, 100) * 10000;
            break;
        case O_FAILP: {
            double p;
            char tail;
            if (sscanf(optarg, "%lf%c", &p, &tail) != 1 || !(p >= 0 && p <= 0.5))
                Usage(std::string("--fail-prob: '") + optarg + "' is not a probability in 0..0.5");
            topo.failPpm = (uint32_t)(p * 1000000 + 0.5);
            break;
        }
        case O_BURST: topo.burstBytes = ArgSize("--burst", optarg); break;
        case O_BG: backgroundPct = ArgU64("--background", optarg, 0, 100); break;
        case O_GRID: {
            unsigned rows, cols;
            char tail;
            if (sscanf(optarg, "%ux%u%c", &rows, &cols, &tail) != 2 || rows < 2 || cols < 2 ||
                rows > 4096 || cols > 4096)
                Usage(std::string("--grid: '") + optarg + "' is not ROWSxCOLS, each 2..4096");
            run.gridRows = rows;
            run.gridCols = cols;
            break;
        }
        case O_FLOWSAMPLE:
            flowSampleUs = ArgU64("--flow-sample-us", optarg, 1, 1000000);
            break;
        case O_FLOW: {
            unsigned src, dst, job, step;
            unsigned long long startUs;
            char size[32], tail;
            __u64 bytes = 0;
            if (sscanf(optarg, "%u:%u:%u:%u:%31[^:]:%llu%c", &src, &dst, &job, &step, size, &startUs,
                       &tail) != 6 || parse_size(size, &bytes) || !bytes || bytes > (1ULL << 32) - 1 ||
                !job || job >= (1U << ROCE_JOB_BITS) || step > 65535 || src == dst)
                Usage(std::string("--flow: '") + optarg +
                      "' is not SRC:DST:JOB:STEP:BYTES:START_US (two hosts, job 1..8191, step "
                      "0..65535, 1 byte to 4g - 1, with k, m or g)");
            flowSpecs.push_back({src, dst, job, step, bytes, startUs * 1000});
            break;
        }
        case O_WORKLOAD: workloadFile = optarg; break;
        case O_PAPER: break; /* read before the loop */
        case 'h': std::cout << kUsage; return 0;
        default: Usage("bad option");
        }
    }
    if (lbPipePorts)
    {
        if (pipePortsSet && topo.pipePorts != lbPipePorts)
            Usage("--lb " + lbName + " has " + std::to_string(lbPipePorts) +
                  " ports a pipe, not --pipe-ports " + std::to_string(topo.pipePorts));
        topo.pipePorts = lbPipePorts;
    }
    if (optind != argc)
        Usage(std::string("unexpected argument '") + argv[optind] + "'");
    if (paper && !isPerm)
        Usage("--paper-ofan is for the perm command");
    if (paper && (topo.kind != "fattree" || topo.linkModel != "p2p"))
        Usage("--paper-ofan runs a fat tree on point-to-point links (its gap is the devices')");
    if (roce.reps && !isPerm)
        Usage("--lb reps is for the perm command (its hosts choose each packet's UDP source "
              "port, where ring and flows carry Symphony's step)");
    if (repsOptSet && !roce.reps)
        Usage("--reps-entropies, --reps-freeze-us and --reps-timeout-min-us are for --lb reps");
    if (!topo.mixWhere.empty() && topo.kind != "fattree")
        Usage("--lb-mix is for --topology fattree (its edge and aggregation switches)");
    if (!topo.mixWhere.empty() && (roce.drb || roce.reps))
        Usage("--lb-mix mixes switch modes; --lb " + lbName + " is the hosts'");
    if (roce.drb && !isPerm)
        Usage("--lb drb is for the perm command (its hosts choose each packet's UDP source "
              "port, where ring and flows carry Symphony's step)");
    if (roce.wcc.algo != WCC_NONE && !isPerm)
        Usage("--cca is for the perm command (ring and flows run DCQCN: --cc)");
    if ((patternSet || perm.phases > 1) && !isPerm)
        Usage("--pattern and --phases are for the perm command");
    if (serverHostsSet && !serverRing)
        Usage("--server-hosts is for --pattern server-ring");
    if (serverRing)
        perm.serverRing = serverHosts;
    if (matrixPattern != !matrixFile.empty())
        Usage(matrixPattern ? "--pattern matrix: no --matrix" : "--matrix is for --pattern matrix");
    if (matrixPattern && (loadMax || !topo.failedLinks.empty() || topo.failPpm))
        Usage("--pattern matrix: not with --load max, --fail or --fail-prob");
    /* all-to-all: the NIC's round-robin over a queue pair per destination,
     * open loop; a window per queue pair and the failures' feasible pace
     * (a permutation's) are not built for it
     */
    if (perm.allToAll && (roce.wcc.algo != WCC_NONE || loadMax || !topo.failedLinks.empty() ||
                          topo.failPpm))
        Usage("--pattern all-to-all: not with --cca, --load max, --fail or --fail-prob");
    if (ccaOptSet && roce.wcc.algo == WCC_NONE)
        Usage("--dupack-threshold, --mswift-subflows, --loss-rto-min-us, --cwnd-init-pct and "
              "--cwnd-max-pct are for --cca");
    if (roce.maxCwndPct < roce.initCwndPct)
        Usage("--cwnd-max-pct " + std::to_string(roce.maxCwndPct) + " is below --cwnd-init-pct " +
              std::to_string(roce.initCwndPct));
    if (roce.wcc.swift_subflows > 1 && roce.wcc.algo != WCC_MSWIFT)
        Usage("--mswift-subflows is for --cca mswift");
    if (!roce.wcc.swift_subflows)
        roce.wcc.swift_subflows = 1;
    roce.portBufferBytes = topo.routing.arBufferBytes;
    /* drb's path numbers: through the top layer, an edge switch's
     * uplinks times an aggregation switch's (a fat tree's (k/2)^2, a
     * multi-pod fabric's cores, a leaf-spine's spines)
     */
    roce.drbPaths = topo.kind == "fattree"    ? topo.k / 2 * (topo.k / 2)
                    : topo.kind == "multipod" ? topo.cores
                                              : topo.spines;
    if (roce.wcc.algo != WCC_NONE)
    {
        /* 3 + the paths between two pods' hosts (htsim's threshold for
         * sprayed traffic): a fat tree's (k/2)^2 through its cores, a
         * leaf-spine's spines
         */
        uint32_t paths = topo.kind == "fattree" ? topo.k / 2 * (topo.k / 2) : topo.spines;

        roce.dupThreshold = dupThreshold >= 0 ? dupThreshold : 3 + paths;
    }
    if ((roce.reps || roce.wcc.algo != WCC_NONE) && !qdiscSet)
    {
        /* the Ofan paper's REPS setting (its Table 1): ECN at 10% of the
         * port buffer, every packet leaving past it marked, as htsim's
         * ECN queue marks at dequeue
         */
        repsEcnBytes = topo.routing.arBufferBytes / 10;
        if (!repsEcnBytes || repsEcnBytes > 0xffffffffULL)
            Usage("--ar-buffer: " + std::to_string(topo.routing.arBufferBytes) +
                  " bytes leaves reps no ECN threshold in 1..4g");
        /* with a window, a port holds --ar-buffer's bytes (the paper's
         * 800 KB) in whole data frames, and drops past them
         */
        if (roce.wcc.algo != WCC_NONE)
            portLimitPackets =
                std::max<uint64_t>(1, topo.routing.arBufferBytes /
                                          (RoceIpBytes(roce.mtuBytes) +
                                           (paper ? kPaperFramingBytes : 2)));
        qdiscText = "limit " + std::to_string(portLimitPackets ? portLimitPackets : 1000000) +
                    " kmin " + std::to_string(repsEcnBytes) + " kmax " +
                    std::to_string(repsEcnBytes) + " pmax 1";
    }
    if (jobs.empty() && !isPerm && !isFlows && !isWorkload)
        Usage("no --ring");
    if (!jobs.empty() && (isPerm || isFlows || isWorkload))
        Usage("--ring is for the ring command");
    if (isWorkload != !workloadFile.empty())
        Usage(isWorkload ? "no --workload" : "--workload is for the workload command");
    if (isWorkload && run.gridCols)
        Usage("--grid is for the ring command (a workload's groups are 1D rings)");
    if (isWorkload && Partition::Distributed())
        Usage("workload: not for distributed runs yet (its ranks' streams are in one process)");
    if (isWorkload)
    {
        std::string err;
        if (!LoadWorkload(workloadFile, &workload, &err))
        {
            std::cerr << "symofan-sim: --workload " << err << "\n";
            exit(2);
        }
    }
    if (isFlows != !flowSpecs.empty())
        Usage(isFlows ? "no --flow" : "--flow is for the flows command");
    if (flowSampleUs && !isFlows)
        Usage("--flow-sample-us is for the flows command");
    if (topo.kind != "leafspine" && imbalance != "none")
        Usage("--imbalance is for --topology leafspine");
    if (topo.kind == "leafspine" && imbalance != "none" &&
        (topo.slowLeaf >= topo.leaves || topo.slowSpine >= topo.spines))
        Usage("--imbalance: no such leaf or spine");
    for (const auto& [id, job] : jobs)
    {
        if (job.rings.empty())
            Usage("job " + std::to_string(id) + " has a start, size or iterations but no --ring");
        for (const auto& ring : job.rings)
            if (run.gridCols && ring.size() != (size_t)run.gridRows * run.gridCols)
                Usage("--grid " + std::to_string(run.gridRows) + "x" +
                      std::to_string(run.gridCols) + ": a ring of job " + std::to_string(id) +
                      " has " + std::to_string(ring.size()) + " hosts, not " +
                      std::to_string(run.gridRows * run.gridCols));
    }
    if (run.ringJobs && !run.gridCols)
        Usage("--ring-jobs is for --grid (1D rings take a job each with --ring)");
    for (const auto& [id, job] : jobs)
        if (run.ringJobs && (id < 1 || id > 31))
            Usage("--ring-jobs: job " + std::to_string(id) + " is not 1..31 (its rings' IDs are JOB x 256 + ring, 13 bits)");
    if (run.gridCols && (run.coll != Collective::AllReduce || run.stepQps != 1))
        Usage("--grid runs allreduce with --step-qps 1 (ringcoll's 2D rings)");
    if (flows != "legacy" && (stepQpsSet || roce.stepFlows))
        Usage("--flows " + flows + ": --step-qps and --step-flows are for legacy flows (astra: a "
              "queue pair per step, a new flow each; nccl: one queue pair per channel)");
    if (flows == "astra")
    {
        run.qpPerStep = true;
        roce.stepFlows = true;
    }
    roce.psnPerMessage = flows != "legacy";
    if (topo.kind == "fattree" && topo.k % 2)
        Usage("--k: " + std::to_string(topo.k) + " is odd (a fat tree's k is even)");
    /* the fabric's switch links: leaf x spine, or k^3/2 in a fat tree */
    if (topo.kind == "multipod" && topo.cores % topo.spines)
        Usage("--cores: " + std::to_string(topo.cores) + " is not a multiple of --spines " +
              std::to_string(topo.spines) + " (a plane of cores per spine)");
    if (topo.kind == "multipod" && topo.cores / topo.spines > OFAN_MAX_W)
        Usage("--cores: a spine would have " + std::to_string(topo.cores / topo.spines) +
              " uplinks, more than " + std::to_string(OFAN_MAX_W));
    uint64_t switchLinks = topo.kind == "fattree"
                               ? (uint64_t)topo.k * topo.k * topo.k / 2
                           : topo.kind == "multipod"
                               ? (uint64_t)topo.pods * (topo.leaves * topo.spines + topo.cores)
                               : (uint64_t)topo.leaves * topo.spines;
    for (uint32_t l : topo.failedLinks)
        if (l >= switchLinks)
            Usage("--fail: no switch link " + std::to_string(l) + " (the fabric has " +
                  std::to_string(switchLinks) + ", numbered from 0)");

    if (topo.burstBytes && topo.linkModel != "htb")
        Usage("--burst applies to --links htb only");
    if (topo.pfcXoffBytes)
    {
        if (topo.linkModel != "p2p")
            Usage("--pfc applies to --links p2p only");
        if (topo.pfcXoffBytes < kPfcHysteresisBytes * 2 || topo.pfcXoffBytes > (1U << 30))
            Usage("--pfc: '" + std::to_string(topo.pfcXoffBytes) + "' bytes is not in 16k..1g");
        topo.pfcXonBytes = topo.pfcXoffBytes - kPfcHysteresisBytes;
        topo.routing.tagIngress = true;
    }
    topo.hostRateBps = roce.lineRateBps;
    roce.framingBytes = topo.linkModel == "htb" ? 18 : 2;
    if (paper)
    {
        /* Ethernet's 18 bytes (header and FCS) and the 20 of preamble and
         * gap: the NIC paces 4,178 bytes a data frame, and each link's
         * device takes the 16 bytes past its PPP header's 2 and the gap
         * as its InterframeGap, so that a data frame holds the wire for
         * 4,178 bytes (41.78 ns at 800 Gbit/s, exact in ps)
         */
        roce.framingBytes = kPaperFramingBytes;
        roce.ifgBytes = kPaperIfgBytes;
        topo.extraWireBytes = kPaperFramingBytes - 2 + kPaperIfgBytes;
    }
    /* a fat tree has full bisection; the leaf-spine twice the host rate */
    topo.uplinkRateBps = uplinkRate                 ? uplinkRate
                         : topo.kind != "leafspine" ? roce.lineRateBps
                                                    : 2 * roce.lineRateBps;
    if (isPerm)
        roce.fixedRateBps = roce.lineRateBps * perm.loadPpm / 1000000;
    dcqcn_params_profile(&roce.dcqcn, (enum dcqcn_profile)ccProfile, roce.lineRateBps);
    if (dAlphaUs)
        roce.dcqcn.alpha_interval_ns = dAlphaUs * 1000;
    if (dTimerUs)
        roce.dcqcn.rate_interval_ns = dTimerUs * 1000;
    if (dBytes >= 0)
        roce.dcqcn.byte_counter_bytes = dBytes;
    if (dRai)
        roce.dcqcn.rai_bps = dRai;
    if (dRhai)
        roce.dcqcn.rhai_bps = dRhai;
    if (dG) /* g = 1/N as Q16 */
        roce.dcqcn.g_q16 = DCQCN_ONE_Q16 / dG;
    if (dF >= 0)
        roce.dcqcn.f = dF;
    if (dMin)
        roce.dcqcn.min_rate_bps = dMin;
    if (dDecUs >= 0)
        roce.dcqcn.decrease_interval_ns = dDecUs * 1000;
    if (cnpUs >= 0)
        roce.dcqcn.cnp_interval_ns = cnpUs * 1000;
    if (!dClamp.empty())
    {
        roce.dcqcn.clamp_tgt_rate = dClamp == "always";
        roce.dcqcn.clamp_tgt_rate_ati = dClamp == "timer";
    }
    roce.cnpIntervalNs = roce.dcqcn.cnp_interval_ns;

    topo.switchQueue.SetTypeId("ns3::SymphonyQueueDisc");
    ApplyQdiscOptions(topo.switchQueue, qdiscText + " marking " + (marking == "pq" ? "red" : marking));
    if (marking == "pq")
        topo.switchQueue.Set("priority_lagging", BooleanValue(true));
    topo.sharedJobs = state == "switch";
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(topo.seed);

    if (Partition::Distributed() && (topo.pfcXoffBytes || backgroundPct))
        Usage("--pfc and --background are not for distributed runs (a PAUSE does not cross "
              "processes; background traffic never ends)");
    topo.partitions = Partition::Count();
    topo.self = Partition::Self();
    topo.deviceMtu = std::max<uint32_t>(topo.deviceMtu, RoceIpBytes(roce.mtuBytes));

    Fabric fabric;
    fabric.Build(topo, roce);
    std::vector<bool> localHosts(fabric.NumHosts());
    for (uint32_t h = 0; h < fabric.NumHosts(); h++)
        localHosts[h] = fabric.HostIsLocal(h);
    for (const auto& [id, job] : jobs)
        for (const auto& ring : job.rings)
            for (uint32_t h : ring)
                if (h >= fabric.NumHosts())
                    Usage("--ring: no host " + std::to_string(h) + " (the fabric has " +
                          std::to_string(fabric.NumHosts()) + ")");
    /* background: each edge switch to the last host of the next, 4096-byte
     * payloads at PCT% of the host rate (eval/symphony_ring.sh's rocegen)
     */
    std::vector<Ptr<BackgroundStream>> background;
    if (backgroundPct)
    {
        uint32_t edges = fabric.NumEdges(), perEdge = fabric.NumHosts() / edges;
        uint64_t pps = roce.lineRateBps * backgroundPct / 100 / ((4096 + 100) * 8);
        Ptr<UniformRandomVariable> port = CreateObject<UniformRandomVariable>();

        for (uint32_t e = 0; e < edges; e++)
        {
            Ipv4Address src;
            Ptr<Node> sw = fabric.EdgeSwitch(e, &src);
            Ptr<BackgroundStream> bg = CreateObject<BackgroundStream>();

            bg->Start(sw, src, ((e + 1) % edges) * perEdge + perEdge - 1, pps ? pps : 1, 4096,
                      100 + e, port->GetInteger(32768, 60999));
            background.push_back(bg);
        }
    }
    for (const WorkloadJob& job : workload.jobs)
        for (uint32_t h : job.hosts)
            if (h >= fabric.NumHosts())
                Usage("--workload: job " + std::to_string(job.job) + " runs on host " +
                      std::to_string(h) + "; the fabric has " + std::to_string(fabric.NumHosts()));
    RingDriver driver(run, fabric.Hosts());
    driver.SetLocalHosts(localHosts);
    for (const auto& [id, job] : jobs)
        driver.AddJob(job);
    std::unique_ptr<WorkloadDriver> workloadDriver;
    if (isWorkload)
        workloadDriver = std::make_unique<WorkloadDriver>(workload, &driver);
    std::unique_ptr<PermDriver> permDriver;
    double feasible = 0;
    if (isPerm)
    {
        if (matrixPattern)
        {
            std::string err;
            if (!LoadTrafficMatrix(matrixFile, fabric.NumHosts(), &perm.matrix, &err))
            {
                std::cerr << "symofan-sim: --matrix " << err << "\n";
                exit(2);
            }
        }
        if (serverRing && (fabric.NumHosts() % serverHosts || fabric.NumHosts() / serverHosts < 2))
            Usage("--pattern server-ring: the fabric's " + std::to_string(fabric.NumHosts()) +
                  " hosts are not 2 or more servers of --server-hosts " +
                  std::to_string(serverHosts));
        perm.seed = topo.seed;
        permDriver = std::make_unique<PermDriver>(perm, fabric.Hosts());
        permDriver->SetLocalHosts(localHosts);
        feasible = fabric.FeasibleRate(permDriver->Partners());
        if (loadMax)
        {
            /* the pace in whole ppm, rounded down: feasible, never over */
            perm.loadPpm = std::max<uint32_t>(1, (uint32_t)(feasible * 1e6));
            permDriver->SetLoadPpm(perm.loadPpm);
            for (const Ptr<RoceHost>& host : fabric.Hosts())
                host->SetFixedRateBps(roce.lineRateBps * perm.loadPpm / 1000000);
        }
        /* all-to-all: each queue pair paced at its share of the pace,
         * the NIC interleaving them round-robin at the pace
         */
        if (perm.allToAll && fabric.NumHosts() > 2)
            for (const Ptr<RoceHost>& host : fabric.Hosts())
                host->SetFixedRateBps(roce.fixedRateBps / (fabric.NumHosts() - 1));
        permDriver->Start([&fabric](uint32_t h, uint32_t d) { return fabric.Hops(h, d); },
                          topo.delayNs, roce);
    }
    std::unique_ptr<FlowDriver> flowDriver;
    if (isFlows)
    {
        for (const FlowSpec& f : flowSpecs)
            if (f.src >= fabric.NumHosts() || f.dst >= fabric.NumHosts())
                Usage("--flow: no host " + std::to_string(std::max(f.src, f.dst)) +
                      " (the fabric has " + std::to_string(fabric.NumHosts()) + ")");
        flowDriver = std::make_unique<FlowDriver>(flowSpecs, fabric.Hosts(), run.stepBase);
        flowDriver->SetLocalHosts(localHosts);
        flowDriver->SetSampleInterval(flowSampleUs * 1000);
        flowDriver->Start();
    }
    auto done = [&]() {
        return isPerm       ? permDriver->Done()
               : isFlows    ? flowDriver->Done()
               : isWorkload ? workloadDriver->Done()
                            : driver.Done();
    };

    auto wall0 = std::chrono::steady_clock::now();
    /* stop once every rank is done, checked every simulated millisecond;
     * a distributed run ends when all its processes run out of events
     * (one process stopping alone would leave the others waiting)
     */
    std::function<void()> watch = [&]() {
        if (done())
            Simulator::Stop();
        else
            Simulator::Schedule(MilliSeconds(1), watch);
    };
    if (!Partition::Distributed())
        Simulator::Schedule(MilliSeconds(1), watch);
    Simulator::Stop(MilliSeconds(stopMs));
    Simulator::Run();
    double wall = Partition::Max(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count());
    uint64_t events = Partition::Sum(Simulator::GetEventCount());
    uint64_t simNs = Simulator::Now().GetNanoSeconds();
    bool complete = Partition::All(done());
    /* every process's own items, gathered at process 0 in order */
    auto gather = [](const std::vector<std::pair<bool, std::string>>& items) {
        std::vector<std::pair<uint32_t, std::string>> local;
        for (uint32_t i = 0; i < items.size(); i++)
            if (items[i].first)
                local.emplace_back(i, items[i].second);
        return Partition::Gather(local, items.size());
    };
    std::vector<std::pair<bool, std::string>> portItems;
    for (const SwitchPort& port : fabric.Ports())
    {
        Ptr<SymphonyQueueDisc> q = DynamicCast<SymphonyQueueDisc>(port.queue);
        const struct tc_symphony_xstats& x = q->GetXstats();
        std::ostringstream o;

        o << "{\"port\":\"" << port.name << "\",\"rate_bps\":" << port.rateBps
          << ",\"packets\":" << x.packets << ",\"bytes\":" << x.bytes
          << ",\"red_marks\":" << x.red_marks << ",\"symphony_marks\":" << x.symphony_marks
          << ",\"outpacing_packets\":" << x.outpacing_packets
          << ",\"collective_packets\":" << x.collective_packets
          << ",\"unclassified_packets\":" << x.unclassified_packets
          << ",\"malformed_packets\":" << x.malformed_packets
          << ",\"limit_drops\":" << x.limit_drops << ",\"red_drops\":" << x.red_drops
          << ",\"max_backlog_packets\":" << x.max_backlog_packets
          << ",\"max_backlog_bytes\":" << x.max_backlog_bytes << ",\"max_psn\":" << q->GetMaxPsn()
          << ",\"symphony\":" << (port.symphony ? "true" : "false");
        if (port.gate)
            o << ",\"pfc_pauses\":" << port.gate->Pauses()
              << ",\"pfc_paused_ns\":" << port.gate->PausedNs();
        o << "}";
        portItems.emplace_back(fabric.IsLocal(port.node), o.str());
    }
    std::vector<std::string> portsJson = gather(portItems);
    std::vector<std::string> endsJson =
        gather(isPerm       ? permDriver->HostItems()
               : isFlows    ? flowDriver->FlowItems()
               : isWorkload ? std::vector<std::pair<bool, std::string>>()
                            : driver.RankItems(roce));
    if (Partition::Self())
    {
        Simulator::Destroy();
        Partition::Finish();
        return complete ? 0 : 1;
    }

    std::ofstream file;
    if (!out.empty())
    {
        file.open(out);
        if (!file)
        {
            std::cerr << "symofan-sim: cannot write " << out << ": " << strerror(errno) << "\n";
            return 1;
        }
    }
    std::ostream& os = out.empty() ? std::cout : file;
    os << "{\"tool\":\"symofan-sim\",\"seed\":" << topo.seed;
    os << ",\"topology\":{\"kind\":\"" << topo.kind << "\"";
    if (topo.kind == "leafspine")
        os << ",\"leaves\":" << topo.leaves << ",\"spines\":" << topo.spines
           << ",\"hosts_per_leaf\":" << topo.hostsPerLeaf << ",\"imbalance\":\"" << imbalance
           << "\"";
    else if (topo.kind == "multipod")
        os << ",\"pods\":" << topo.pods << ",\"leaves_per_pod\":" << topo.leaves
           << ",\"spines_per_pod\":" << topo.spines << ",\"hosts_per_leaf\":" << topo.hostsPerLeaf
           << ",\"cores\":" << topo.cores;
    else
        os << ",\"k\":" << topo.k;
    os << ",\"hosts\":" << fabric.NumHosts() << ",\"rate_bps\":" << topo.hostRateBps
       << ",\"uplink_rate_bps\":" << topo.uplinkRateBps << ",\"delay_ns\":" << topo.delayNs
       << ",\"links\":\"" << topo.linkModel << "\",\"burst_bytes\":" << topo.burstBytes
       << ",\"background_pct\":" << backgroundPct << ",\"fail_prob\":" << topo.failPpm / 1e6
       << ",\"failed_links\":[";
    std::vector<uint32_t> failed = fabric.FailedLinks();
    for (size_t i = 0; i < failed.size(); i++)
        os << (i ? "," : "") << "\"" << fabric.LinkName(failed[i]) << "\"";
    os << "]},\"lb\":\"" << lbName << "\",\"lb_mode\":\"" << LbModeName(topo.routing.mode)
       << "\",\"pipe_ports\":" << topo.pipePorts;
    if (!topo.mixWhere.empty())
        os << ",\"lb_mix\":{\"mode\":\"" << LbModeName(topo.mixMode) << "\",\"where\":\""
           << topo.mixWhere << "\",\"switches\":" << fabric.MixedCount(topo) << "}";
    os << ",\"ofan_start\":\"" << (topo.routing.randomStart ? "random" : "zero")
       << "\",\"ar_buffer_bytes\":" << topo.routing.arBufferBytes;
    if (roce.reps)
        os << ",\"reps\":{\"entropies\":" << roce.repsEntropies
           << ",\"freeze_us\":" << roce.repsFreezeNs / 1000
           << ",\"explore_after_freeze\":" << REPS_EXPLORE_AFTER_FREEZE
           << ",\"ports\":[" << REPS_PORT_BASE << "," << REPS_PORT_BASE + REPS_PORTS - 1 << "]"
           << ",\"timeout_min_ns\":" << roce.repsTimeoutMinNs << ",\"ecn_threshold_bytes\":"
           << (repsEcnBytes ? std::to_string(repsEcnBytes) : std::string("null")) << "}";
    if (roce.wcc.algo != WCC_NONE)
        os << ",\"cca\":{\"algorithm\":\"" << wcc_algo_names[roce.wcc.algo]
           << "\",\"dupack_threshold\":" << roce.dupThreshold
           << ",\"loss_rto_min_ns\":"
           << (roce.lossRtoMinNs ? std::to_string(roce.lossRtoMinNs) : std::string("\"path\""))
           << ",\"mswift_subflows\":" << roce.wcc.swift_subflows
           << ",\"cwnd_init_pct\":" << roce.initCwndPct << ",\"cwnd_max_pct\":" << roce.maxCwndPct
           << ",\"port_limit_packets\":"
           << (portLimitPackets ? std::to_string(portLimitPackets) : std::string("null"))
           << ",\"ecn_threshold_bytes\":"
           << (repsEcnBytes ? std::to_string(repsEcnBytes) : std::string("null")) << "}";
    os << ",\"marking\":\"" << marking
       << "\",\"qdisc\":\"" << qdiscText << "\",\"state\":\"" << state
       << "\",\"symphony_at\":\"" << topo.symphonyAt << "\",\"flow_model\":\"" << flows << "\"";
    os << ",\"dcqcn\":{\"profile\":\"" << dcqcn_profile_name((enum dcqcn_profile)ccProfile)
       << "\",\"g_q16\":" << roce.dcqcn.g_q16
       << ",\"alpha_interval_ns\":" << roce.dcqcn.alpha_interval_ns
       << ",\"rate_interval_ns\":" << roce.dcqcn.rate_interval_ns
       << ",\"byte_counter_bytes\":" << roce.dcqcn.byte_counter_bytes << ",\"f\":" << roce.dcqcn.f
       << ",\"rai_bps\":" << roce.dcqcn.rai_bps << ",\"rhai_bps\":" << roce.dcqcn.rhai_bps
       << ",\"min_rate_bps\":" << roce.dcqcn.min_rate_bps
       << ",\"decrease_interval_ns\":" << roce.dcqcn.decrease_interval_ns
       << ",\"cnp_interval_ns\":" << roce.dcqcn.cnp_interval_ns << ",\"clamp\":\""
       << (roce.dcqcn.clamp_tgt_rate ? "always" : roce.dcqcn.clamp_tgt_rate_ati ? "timer" : "never")
       << "\",\"hai_grows\":" << (roce.dcqcn.hai_grows ? "true" : "false")
       << ",\"alpha_decays_at_rest\":" << (roce.dcqcn.alpha_decays_at_rest ? "true" : "false") << "}";
    os << ",\"sim\":{\"complete\":" << (complete ? "true" : "false")
       << ",\"processes\":" << Partition::Count()
       << ",\"simulated_ns\":" << simNs << ",\"events\":" << events
       << ",\"wall_s\":" << wall << ",\"events_per_s\":" << (uint64_t)(events / (wall > 0 ? wall : 1))
       << "}";
    uint32_t ipData = RoceIpBytes(roce.mtuBytes);

    if (paper)
    {
        uint32_t ipAck = ROCE_IPV4_LEN + 8 + SYMPHONY_BTH_LEN + ROCE_AETH_LEN + ROCE_ICRC_LEN;
        uint64_t ifgPs = (uint64_t)topo.extraWireBytes * 8 * 1000000000000ULL / topo.hostRateBps;

        os << ",\"preset\":\"paper-ofan\",\"paper_ofan\":{\"time_resolution\":\""
           << (Time::GetResolution() == Time::PS ? "ps" : "not ps") << "\",\"k\":"
           << topo.k << ",\"hosts\":" << fabric.NumHosts() << ",\"rate_bps\":" << topo.hostRateBps
           << ",\"delay_ns\":" << topo.delayNs << ",\"payload_bytes\":" << roce.mtuBytes
           << ",\"header_bytes\":" << roce.framingBytes + ipData - roce.mtuBytes
           << ",\"frame_bytes\":" << roce.framingBytes + ipData
           << ",\"ack_frame_bytes\":" << roce.framingBytes + ipAck
           << ",\"paper_ack_bytes\":" << kPaperAckBytes << ",\"ifg_bytes\":" << roce.ifgBytes
           << ",\"device_interframe_gap_ps\":" << ifgPs
           << ",\"frame_wire_ps\":"
           << (uint64_t)(roce.framingBytes + ipData + roce.ifgBytes) * 8 * 1000000000000ULL /
                  topo.hostRateBps
           << ",\"port_buffer_bytes\":" << topo.routing.arBufferBytes
           << ",\"ecn_threshold_bytes\":" << topo.routing.arBufferBytes / 10
           << ",\"ecn_marking\":" << (repsEcnBytes ? "true" : "false")
           << ",\"queue_limit\":\""
           << (portLimitPackets ? std::to_string(portLimitPackets) + " packets (--cca)"
                                : std::string("none (measured)"))
           << "\"}";
    }
    if (isPerm)
        os << ",\"perm\":{\"pattern\":\""
           << (perm.allToAll ? "all-to-all" : serverRing ? "server-ring" : "permutation") << "\""
           << ",\"server_hosts\":" << (serverRing ? std::to_string(serverHosts) : "null")
           << ",\"phases\":" << perm.phases << ",\"phase_times\":" << permDriver->PhasesJson()
           << ",\"matrix\":"
           << (matrixPattern ? "{\"file\":" + nlohmann::json(matrixFile).dump() +
                                   ",\"bound_ns\":" +
                                   std::to_string((uint64_t)permDriver->MatrixBoundNs()) + "}"
                             : std::string("null"))
           << ",\"load_pct\":" << perm.loadPpm / 1e4
           << ",\"feasible_rate\":" << feasible << ",\"payload_bytes\":" << roce.mtuBytes
           << ",\"data_frame_bytes\":" << roce.framingBytes + ipData
           << ",\"ifg_bytes\":" << roce.ifgBytes << "}";
    if (topo.pfcXoffBytes)
        os << ",\"pfc\":{\"xoff_bytes\":" << topo.pfcXoffBytes << ",\"xon_bytes\":" << topo.pfcXonBytes
           << ",\"pauses_sent\":" << fabric.PfcPausesSent()
           << ",\"host_paused_ns\":" << fabric.PfcHostPausedNs() << "}";
    os << ",\"ports\":[";
    for (size_t i = 0; i < portsJson.size(); i++)
        os << (i ? "," : "") << "\n" << portsJson[i];
    if (isWorkload)
    {
        /* a rank's steps are many: the ops' times stand for them */
        os << "],\"workload_file\":" << nlohmann::json(workloadFile).dump()
           << ",\"workload\":" << workloadDriver->Json();
    }
    else
    {
        os << "],\"" << (isPerm ? "hosts" : isFlows ? "flows" : "ranks") << "\":[";
        for (size_t i = 0; i < endsJson.size(); i++)
            os << (i ? "," : "") << "\n" << endsJson[i];
        os << "\n]";
    }
    os << "}\n";
    Simulator::Destroy();
    Partition::Finish();
    return complete ? 0 : 1;
}
