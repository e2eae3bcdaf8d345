/* SPDX-License-Identifier: GPL-2.0 */
/*
 * symphony-queue-disc.h - sch_symphony as an ns-3 queue disc: a FIFO with
 * RED ECN marking on the backlog at dequeue, OR-ed with Symphony's
 * Algorithm 1 (include/symphony/symphony_core.h, the kernel qdisc's own
 * code) for collective packets.  Attributes carry the tc keywords
 * (limit, kmin, kmax, pmax, marking, k, tau, twin, warmup, samples,
 * alpha_max, qmin) in the units of their JSON names; the counters are the
 * qdisc's xstats (struct tc_symphony_xstats).  Job state lives in a
 * SymphonyJobs table, one per port by default or shared by the ports of
 * a switch (the paper's per-switch state), as the kernel's jobs map is.
 * With priority_lagging (the simulator's own, the Symphony paper's
 * Fig. 5 "priority queue" baseline), the port serves the packets of each
 * job's slowest step (Algorithm 1's step_min, tracked at enqueue) before
 * all others, in strict priority, and marks RED only; a flow with packets
 * still in the low-priority queue stays there, so that no flow's packets
 * overtake each other (go-back-N would take that for loss).
 */
#ifndef SYMOFAN_SIM_SYMPHONY_QUEUE_DISC_H
#define SYMOFAN_SIM_SYMPHONY_QUEUE_DISC_H

#include <deque>
#include <memory>
#include <unordered_map>
#include <vector>

#include "ns3/buffer.h"
#include "ns3/queue-disc.h"
#include "ns3/random-variable-stream.h"

#include "cores.h"

namespace ns3
{

/*
 * The jobs map: struct symphony_job per job id, as the kernel's.  Blocks
 * are allocated, zeroed, a page of kJobsPerPage at a time on a job's first
 * lookup: a 1,024-host fabric has 5,120 switch ports, and a full table on
 * each (4,096 slots of 104 B) was 2.2 GB and a fifth of a run's time.
 */
class SymphonyJobs : public Object
{
  public:
    static TypeId GetTypeId();
    explicit SymphonyJobs(uint32_t slots = SYMPHONY_JOBS_DEFAULT);

    /* The job's state block, or nullptr beyond the table. */
    struct symphony_job* Lookup(uint32_t job);
    uint32_t Slots() const;

    static constexpr uint32_t kJobsPerPage = 64;

  private:
    uint32_t m_slots;
    std::vector<std::unique_ptr<struct symphony_job[]>> m_pages;
};

class SymphonyQueueDisc : public QueueDisc
{
  public:
    static TypeId GetTypeId();
    SymphonyQueueDisc();
    ~SymphonyQueueDisc() override;

    /* Share @jobs with other queue discs (per-switch state). */
    void SetJobs(Ptr<SymphonyJobs> jobs);
    Ptr<SymphonyJobs> GetJobs() const;
    const struct tc_symphony_xstats& GetXstats() const;
    /* The highest BTH PSN of the collective packets parsed here (the
     * simulator's own figure, not an xstat: shows whether the senders
     * number PSNs per message or per queue pair)
     */
    uint32_t GetMaxPsn() const;
    int64_t AssignStreams(int64_t stream);

  private:
    bool DoEnqueue(Ptr<QueueDiscItem> item) override;
    Ptr<QueueDiscItem> DoDequeue() override;
    bool CheckConfig() override;
    void InitializeParams() override;

    bool Toss(uint32_t prob_q32);
    /* The packet's collective header as a switch's parser reads it. */
    int Parse(Ptr<QueueDiscItem> item, struct symphony_pkt* pkt, uint32_t* pkt_len);
    /* priority_lagging: whether the packet belongs to its job's slowest step */
    bool Lagging(Ptr<QueueDiscItem> item);
    /* priority_lagging: the packet's flow (source, UDP ports, DestQP) */
    uint64_t FlowKey(Ptr<QueueDiscItem> item);
    void MarkDequeued(Ptr<QueueDiscItem> item, uint32_t backlog);

    /* tc options */
    uint32_t m_limit;
    uint32_t m_limitBytes;
    uint32_t m_kmin;
    uint32_t m_kmax;
    uint32_t m_pmaxPpm;
    uint32_t m_nonect;
    uint32_t m_marking;
    uint32_t m_qmin;
    uint32_t m_twinUs;
    uint32_t m_jobField;
    uint32_t m_stepField;
    uint32_t m_kPpm;
    uint32_t m_tauPpm;
    uint32_t m_warmupPsn;
    uint32_t m_samplesPackets;
    uint32_t m_alphaMax;
    bool m_priorityLagging = false;
    std::unordered_map<uint64_t, uint32_t> m_lowQueued; /* a flow's packets in queue 1 */
    std::deque<uint64_t> m_lowFlows;                    /* queue 1's flows, in its order */
    struct symphony_params m_params; /* Algorithm 1's, from the above */

    uint32_t m_redPmaxQ32;
    uint32_t m_backlog; /* bytes as the kernel counts them: L2 frames */
    Buffer m_ipHeader;  /* a dequeued packet's IP header, serialised */
    Ptr<SymphonyJobs> m_jobs;
    Ptr<UniformRandomVariable> m_rng;
    struct tc_symphony_xstats m_xstats;
    uint32_t m_maxPsn = 0;
};

} // namespace ns3

#endif /* SYMOFAN_SIM_SYMPHONY_QUEUE_DISC_H */
