/* SPDX-License-Identifier: GPL-2.0 */
/*
 * flow-driver.h - single RDMA WRITE flows on the simulator's hosts, each
 * with its own job, step (the UDP source port, step base + step) and
 * start: the Symphony paper's hardware experiment (Fig. 9, two flows of
 * consecutive steps of one job through one port) and any other hand-made
 * mix.  A flow's end is the arrival of its last packet at the receiver;
 * its ACK time is recorded too, and, with a sample interval, the packets
 * each flow sent in every interval (its transmission timeline, from which
 * the time both flows of Fig. 9 transmit is read).
 */
#ifndef SYMOFAN_SIM_FLOW_DRIVER_H
#define SYMOFAN_SIM_FLOW_DRIVER_H

#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "roce-host.h"

namespace ns3
{

struct FlowSpec
{
    uint32_t src = 0, dst = 0, job = 1, step = 0;
    uint64_t bytes = 0;
    uint64_t startNs = 0; /* after the run's first millisecond */
};

class FlowDriver
{
  public:
    FlowDriver(std::vector<FlowSpec> flows, std::vector<Ptr<RoceHost>> hosts, uint16_t stepBase);

    /* Distributed runs: the hosts this process simulates (default all). */
    void SetLocalHosts(std::vector<bool> local);
    /* Record each flow's packets sent per @ns from the run's first flow
     * start on, until every flow is acknowledged (0: no timeline).
     */
    void SetSampleInterval(uint64_t ns);
    void Start();
    /* every flow of this process's senders is acknowledged */
    bool Done() const;
    /* each flow's result, with whether its sender is this process's */
    std::vector<std::pair<bool, std::string>> FlowItems() const;

  private:
    struct Flow
    {
        FlowSpec spec;
        uint32_t qp = 0, qpn = 0, msg = 0;
        uint64_t startNs = 0, endNs = 0, ackedNs = 0;
        uint64_t sentAtLastSample = 0;
        std::vector<uint32_t> sentPerSample;
    };

    void StartFlow(uint32_t i);
    void OnArrival(uint32_t host, uint32_t src, uint32_t qpn, uint16_t sport);
    void OnAcked(uint32_t host, uint32_t qp, uint32_t msg);
    void Sample();

    std::vector<Flow> m_flows;
    std::vector<Ptr<RoceHost>> m_hosts;
    std::vector<bool> m_local;
    uint16_t m_stepBase;
    uint64_t m_sampleNs = 0, m_samplesStartNs = 0;
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, uint32_t> m_rx; /* dst, src, qpn */
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> m_tx;             /* src, qp */
};

} // namespace ns3

#endif /* SYMOFAN_SIM_FLOW_DRIVER_H */
