/* SPDX-License-Identifier: GPL-2.0 */
/*
 * workload-driver.h - training jobs on the simulator's hosts: each job a
 * list of compute phases and collectives that every rank runs in turn
 * (docs/workloads.md, "Training workloads in the simulator", has the file
 * format).  A rank has one compute stream and one stream per
 * communication group; each stream takes its ops in the file's order, an
 * op starting once its stream is free and the ops it depends on have
 * ended on this rank, so a layer's gradient AllReduce overlaps the next
 * layer's backward pass as DDP's buckets do.  A group's collectives run
 * on RingDriver's rings, on queue pairs the group keeps from one
 * collective to the next (NCCL's communicators), the step numbers on the
 * wire running on.  Iteration i + 1 starts on a rank when all of
 * iteration i's ops have ended there (the optimizer step).
 */
#ifndef SYMOFAN_SIM_WORKLOAD_DRIVER_H
#define SYMOFAN_SIM_WORKLOAD_DRIVER_H

#include <string>
#include <vector>

#include "ring-driver.h"

namespace ns3
{

struct WorkloadOp
{
    std::string name;
    bool compute = true;
    uint64_t ns = 0;       /* compute: its duration on every rank */
    Collective coll = Collective::AllReduce;
    uint64_t bytes = 0;    /* collective: data per rank */
    uint32_t group = 0;    /* collective: its group */
    std::vector<uint32_t> deps; /* earlier ops of the same iteration */
};

struct WorkloadGroup
{
    std::string name;
    std::vector<std::vector<uint32_t>> rings; /* ranks of each ring, in order */
    uint32_t wireJob = 0;                     /* 0: the job's */
    bool wireJobPerRing = false;              /* ring i carries wireJob + i */
};

struct WorkloadJob
{
    uint32_t job = 1;
    std::vector<uint32_t> hosts; /* rank r runs on hosts[r] */
    uint32_t iterations = 1;
    uint64_t startNs = 0; /* after the run's first millisecond */
    std::vector<WorkloadGroup> groups;
    std::vector<WorkloadOp> ops;
};

struct Workload
{
    std::string name, source;
    std::vector<WorkloadJob> jobs;
};

/* Reads and checks a workload file; false with *err naming the file, the
 * place and the bad value.
 */
bool LoadWorkload(const std::string& path, Workload* w, std::string* err);
/* Reads a traffic matrix (perm --matrix; format symofan-matrix, version
 * 1): @hosts x @hosts bytes, none to itself, each at most 4 GiB - 1 (one
 * RDMA WRITE), not all zero; false with *err as LoadWorkload()'s.
 */
bool LoadTrafficMatrix(const std::string& path, uint32_t hosts,
                       std::vector<std::vector<uint64_t>>* matrix, std::string* err);

class WorkloadDriver
{
  public:
    WorkloadDriver(const Workload& w, RingDriver* rings);

    /* Every rank of every job ended its last iteration. */
    bool Done() const;
    /* The jobs' JCT, iteration times and each op's times, as JSON. */
    std::string Json() const;

  private:
    struct OpTimes
    {
        uint64_t startNs = 0, endNs = 0;
    };
    struct RankState
    {
        uint32_t job, rank, host;
        uint32_t iter = 0;
        bool done = false;
        std::vector<uint8_t> opDone;     /* this iteration's */
        uint32_t nextCompute = 0;        /* its stream's next op */
        bool computeBusy = false;
        std::vector<uint32_t> nextColl;  /* per group: its stream's next op */
        std::vector<uint8_t> collBusy;   /* per group */
        std::vector<uint8_t> inGroup;    /* per group */
        uint32_t opsDone = 0;
        std::vector<std::vector<OpTimes>> times; /* [iteration][op] */
        std::vector<uint64_t> iterEndNs;
    };
    struct JobState
    {
        const WorkloadJob* spec;
        std::vector<uint32_t> handles; /* per group: RingDriver's */
        std::vector<std::vector<uint32_t>> groupOps; /* per group: its collectives */
        std::vector<uint32_t> computeOps;
        std::vector<RankState> ranks;
        std::vector<int32_t> rankOfHost; /* -1: none */
    };

    void StartIteration(RankState* r);
    void Issue(RankState* r);
    void EndOp(RankState* r, uint32_t op);
    void OnCallDone(uint32_t handle, uint32_t host, uint32_t call);

    const Workload& m_w;
    RingDriver* m_rings;
    std::vector<JobState> m_jobs;
    std::vector<std::pair<uint32_t, uint32_t>> m_handleGroup; /* handle: job, group */
};

} // namespace ns3

#endif /* SYMOFAN_SIM_WORKLOAD_DRIVER_H */
