// SPDX-License-Identifier: GPL-2.0
/*
 * partition.cc - one process's share of a run (partition.h): ns-3's MPI
 * engine when built with SYMOFAN_MPI, the whole run otherwise.
 */
#include "partition.h"

#ifdef SYMOFAN_MPI
#include <mpi.h>

#include "ns3/global-value.h"
#include "ns3/mpi-interface.h"
#include "ns3/string.h"
#endif

namespace ns3
{

#ifdef SYMOFAN_MPI

void
Partition::Init(int* argc, char*** argv)
{
    GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::DistributedSimulatorImpl"));
    MpiInterface::Enable(argc, argv);
}

bool
Partition::Distributed()
{
    return true;
}

uint32_t
Partition::Self()
{
    return MpiInterface::GetSystemId();
}

uint32_t
Partition::Count()
{
    return MpiInterface::GetSize();
}

std::vector<std::string>
Partition::Gather(const std::vector<std::pair<uint32_t, std::string>>& local, uint32_t n)
{
    /* one blob per process: index, length, text, ... */
    std::string blob;
    for (const auto& [index, text] : local)
    {
        uint32_t head[2] = {index, (uint32_t)text.size()};
        blob.append(reinterpret_cast<const char*>(head), sizeof(head));
        blob += text;
    }
    int self = Self(), count = Count(), len = blob.size();
    std::vector<int> lens(count), offs(count);
    MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::string all;
    if (!self)
    {
        int total = 0;
        for (int p = 0; p < count; p++)
        {
            offs[p] = total;
            total += lens[p];
        }
        all.resize(total);
    }
    MPI_Gatherv(blob.data(), len, MPI_CHAR, all.data(), lens.data(), offs.data(), MPI_CHAR, 0,
                MPI_COMM_WORLD);
    std::vector<std::string> items;
    if (self)
        return items;
    items.resize(n);
    for (size_t at = 0; at + 8 <= all.size();)
    {
        uint32_t head[2];
        all.copy(reinterpret_cast<char*>(head), sizeof(head), at);
        at += sizeof(head);
        if (head[0] < n)
            items[head[0]] = all.substr(at, head[1]);
        at += head[1];
    }
    return items;
}

uint64_t
Partition::Sum(uint64_t v)
{
    unsigned long long in = v, out = 0;
    MPI_Allreduce(&in, &out, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    return out;
}

double
Partition::Max(double v)
{
    double out = 0;
    MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return out;
}

bool
Partition::All(bool v)
{
    int in = v, out = 0;
    MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    return out;
}

void
Partition::Finish()
{
    MpiInterface::Disable();
}

#else /* one process */

void
Partition::Init(int*, char***)
{
}

bool
Partition::Distributed()
{
    return false;
}

uint32_t
Partition::Self()
{
    return 0;
}

uint32_t
Partition::Count()
{
    return 1;
}

std::vector<std::string>
Partition::Gather(const std::vector<std::pair<uint32_t, std::string>>& local, uint32_t n)
{
    std::vector<std::string> items(n);
    for (const auto& [index, text] : local)
        if (index < n)
            items[index] = text;
    return items;
}

uint64_t
Partition::Sum(uint64_t v)
{
    return v;
}

double
Partition::Max(double v)
{
    return v;
}

bool
Partition::All(bool v)
{
    return v;
}

void
Partition::Finish()
{
}

#endif

} // namespace ns3
