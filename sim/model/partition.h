/* SPDX-License-Identifier: GPL-2.0 */
/*
 * partition.h - the share of a run this process simulates.  Built with
 * SYMOFAN_MPI (build/symofan-sim-mpi, against an ns-3 built with MPI:
 * scripts/build-ns3-mpi.sh), a run is split over the processes mpirun
 * starts, by ns-3's distributed engine: each process owns the nodes whose
 * system id is its rank (topology.cc gives a leaf or pod and its hosts one
 * id, spines or cores theirs), links between processes become remote
 * channels, and the processes advance together in windows of the
 * smallest such link's delay.  Built without, the run is one process and
 * these calls are trivial.
 */
#ifndef SYMOFAN_SIM_PARTITION_H
#define SYMOFAN_SIM_PARTITION_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

class Partition
{
  public:
    /* Before anything else of ns-3: with MPI, select the distributed
     * simulator and start MPI (mpirun's arguments are taken out).
     */
    static void Init(int* argc, char*** argv);
    /* Built for distributed runs (even as one process): the run ends when
     * every process has run out of events, not when a watcher stops it.
     */
    static bool Distributed();
    static uint32_t Self();  /* this process, 0.. */
    static uint32_t Count(); /* processes */
    /* Process 0 gets every process's @local items (index, text), @n in
     * all, in index order; the others get nothing.
     */
    static std::vector<std::string> Gather(const std::vector<std::pair<uint32_t, std::string>>& local,
                                           uint32_t n);
    static uint64_t Sum(uint64_t v);
    static double Max(double v);
    static bool All(bool v);
    static void Finish();
};

} // namespace ns3

#endif /* SYMOFAN_SIM_PARTITION_H */
