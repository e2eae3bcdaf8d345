/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ring-driver.h - ring collectives on the simulator's RoCE hosts, with
 * ringcoll's schedule (userspace/workload/ringcoll/collective.c): a job
 * is one or more rings; each rank runs its ring's AllReduce
 * (reduce-scatter then all-gather, 2(N-1) steps of size/N), AllGather or
 * ReduceScatter (N-1 steps) on C channels, each channel's steps in turn
 * on its queue pair to the next rank (or on S queue pairs, step k on
 * pair k mod S, or each step on a pair of its own); step k+1 of a channel starts when the previous rank's
 * step k has fully arrived.  With a grid of ROWS x COLS (ringcoll's
 * --grid), each "ring" is a 2D torus of ranks in row-major order running
 * the hierarchical AllReduce: reduce-scatter along its row ring (COLS-1
 * steps of size/COLS), AllReduce of that share along its column ring
 * (2(ROWS-1) steps of size/COLS/ROWS), all-gather along the row (COLS-1
 * steps of size/COLS), as ringcoll's plan_steps() plans them.  Steps ride in the UDP source port (step
 * base + iteration * steps + step), so ECMP hashes each step anew.  What
 * it records per rank and iteration (start, end, each step's start and
 * arrival) is ringcoll's per-rank result, so that tc-scripts/ringmerge.jq
 * turns the ranks into the testbed's CCTs and step overlaps.
 */
#ifndef SYMOFAN_SIM_RING_DRIVER_H
#define SYMOFAN_SIM_RING_DRIVER_H

#include <functional>
#include <map>
#include <tuple>
#include <utility>
#include <string>
#include <vector>

#include "roce-host.h"

namespace ns3
{

enum class Collective
{
    AllReduce,
    AllGather,
    ReduceScatter,
    SendRecv, /* one step: each rank sends its data to the next */
};

bool CollectiveFromName(const std::string& name, Collective* coll);
const char* CollectiveName(Collective coll);

/* One collective of a rank's sequence. */
struct RingCall
{
    Collective coll = Collective::AllReduce;
    uint64_t sizeBytes = 0; /* per rank */
};

struct RingJobSpec
{
    uint32_t job = 1;
    std::vector<std::vector<uint32_t>> rings; /* hosts of each ring, in order */
    uint64_t startNs = 0; /* after the run's first millisecond */
    uint64_t sizeBytes = 0;  /* per rank and collective; 0: the run's */
    uint32_t iterations = 0; /* collectives back to back; 0: the run's */
    /* A workload's: the collectives every rank of the job runs in this
     * order, on the same queue pairs, the step numbers running on from
     * one to the next (empty: the run's collective, iterations times).
     */
    std::vector<RingCall> calls;
    /* each call of a rank waits for StartCall() instead of the previous
     * call's end (a workload's dependencies decide)
     */
    bool onDemand = false;
    /* the job ID on the wire: 0 for JOB; with wireJobPerRing, ring i's
     * is wireJob + i (a workload's groups)
     */
    uint32_t wireJob = 0;
    bool wireJobPerRing = false;
};

struct RingRunSpec
{
    Collective coll = Collective::AllReduce;
    uint64_t sizeBytes = 1 << 20; /* per rank and collective */
    uint32_t channels = 1;
    uint32_t stepQps = 1;
    /* Astra-Sim's flows: every step of a ring its own queue pair (as
     * --step-qps with one pair per step of the job's ring)
     */
    bool qpPerStep = false;
    uint32_t iterations = 1;
    uint32_t stepBase = 49152;
    uint32_t gridRows = 0, gridCols = 0; /* 0: 1D rings */
    /* a grid's rings each carry a job ID of their own on the wire, JOB x
     * 256 + the ring's number (rows 0..ROWS-1, columns ROWS..), so that
     * Symphony compares steps within a ring only; results stay per job
     */
    bool ringJobs = false;
};

class RingDriver
{
  public:
    RingDriver(const RingRunSpec& spec, std::vector<Ptr<RoceHost>> hosts);
    ~RingDriver();

    /* Distributed runs: the hosts this process simulates (default all);
     * before AddJob(), which starts only theirs.
     */
    void SetLocalHosts(std::vector<bool> local);
    /* Adds a job; returns its handle for StartCall(). */
    uint32_t AddJob(const RingJobSpec& job);
    /* An on-demand job's rank on @host starts its next call. */
    void StartCall(uint32_t handle, uint32_t host);
    /* Called when a rank of an on-demand job has finished call @call
     * (every step arrived from the previous rank and every message of
     * its own acknowledged).
     */
    void SetCallDoneCallback(std::function<void(uint32_t handle, uint32_t host, uint32_t call)> cb);
    /* Every rank of this process's hosts completed every iteration. */
    bool Done() const;
    /* Each rank's result, ringcoll's JSON document, with whether its host
     * is this process's (the others' texts are not results).
     */
    std::vector<std::pair<bool, std::string>> RankItems(const RoceConfig& roce) const;

  private:
    struct Rank;
    struct RxEndpoint
    {
        Rank* rank;
        uint32_t dim, channel, slot;
        uint32_t call = 0;   /* the call the next message belongs to */
        uint32_t inCall = 0; /* its messages of that call received */
    };
    static constexpr uint32_t kNoMsg = UINT32_MAX;
    struct Iteration
    {
        uint64_t startNs = 0, endNs = 0;
        std::vector<std::vector<uint64_t>> stepStartNs, stepRecvNs; /* [c][k] */
        /* [c][k]: the step's message on its queue pair, kNoMsg before it is posted */
        std::vector<std::vector<uint32_t>> stepMsg;
    };
    /* The steps of a ring's collective, shared by its ranks. */
    struct StepPlan
    {
        uint32_t dims = 1;
        std::vector<uint32_t> dim;        /* [k]: the ring step k runs on, 0 row, 1 column */
        std::vector<uint32_t> pos;        /* [k]: its place among that ring's steps */
        std::vector<uint64_t> bytes;      /* [k]: bytes of step k, all channels */
        std::vector<uint32_t> dimSteps[2]; /* each ring's steps, in order */
    };
    struct Rank
    {
        uint32_t handle, job, nranks, rank, host;
        uint32_t succ[2];    /* next rank's host on the row (1D) ring and column ring */
        uint32_t stepQps;    /* queue pairs per channel and ring */
        uint32_t iterations; /* calls: the job's collectives in turn */
        std::vector<RingCall> calls;
        std::vector<const StepPlan*> plans; /* per call */
        bool onDemand;
        /* the current call's */
        const StepPlan* plan;
        uint32_t steps;
        uint64_t sizeBytes;
        uint64_t stepOffset = 0; /* steps of the calls before this one */
        uint64_t startNs;
        uint32_t iter = 0;
        bool running = false, done = false;
        std::vector<uint32_t> nextStep;            /* per channel */
        std::vector<uint32_t> qp;                  /* [(d * C + c) * S + s]: index on the host */
        std::vector<uint32_t> acked;               /* per queue pair, this iteration */
        std::vector<Iteration> rec;
    };

    void Start(Rank* r);
    void Advance(Rank* r);
    void StartStep(Rank* r, uint32_t c, uint32_t k);
    void OnArrival(uint32_t host, uint32_t src, uint32_t qpn, uint16_t sport);
    void OnAcked(uint32_t host, uint32_t qp, uint32_t msg);
    uint32_t StepBytes(const StepPlan* plan, uint32_t k, uint32_t c) const;
    /* the index in r->qp of the queue pair step k of @plan's channel c sends on */
    uint32_t StepQp(const Rank* r, const StepPlan* plan, uint32_t c, uint32_t k) const;
    uint64_t StepStartRateBps(const Rank* r, uint32_t call, uint32_t c, uint32_t k) const;
    static uint32_t QpMessages(const StepPlan* plan, uint32_t stepQps, uint32_t dim, uint32_t slot);
    const StepPlan* PlanSteps(Collective coll, uint32_t nranks, uint64_t sizeBytes);

    RingRunSpec m_spec;
    std::vector<Ptr<RoceHost>> m_hosts;
    std::vector<bool> m_local;                             /* per host */
    std::vector<Rank*> m_ranks;
    /* per collective, ring size and data size */
    std::map<std::tuple<Collective, uint32_t, uint64_t>, StepPlan> m_plans;
    std::map<std::pair<uint32_t, uint32_t>, Rank*> m_byHost; /* handle, host */
    std::function<void(uint32_t, uint32_t, uint32_t)> m_onCallDone;
    uint32_t m_nextHandle = 0;
    std::vector<uint32_t> m_nextQpn;                       /* per host */
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, RxEndpoint> m_rx; /* host, src, qpn */
    std::map<std::pair<uint32_t, uint32_t>, std::pair<Rank*, uint32_t>> m_tx; /* host, qp */
};

} // namespace ns3

#endif /* SYMOFAN_SIM_RING_DRIVER_H */
