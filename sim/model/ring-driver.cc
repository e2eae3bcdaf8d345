// SPDX-License-Identifier: GPL-2.0
/*
 * ring-driver.cc - ring collectives on the simulator's hosts
 * (ring-driver.h), step for step as ringcoll runs them.
 */
#include "ring-driver.h"

#include <array>
#include <sstream>

#include "ns3/abort.h"
#include "ns3/simulator.h"

namespace ns3
{

/* Jobs start 1 ms into the run at the earliest: in ringcoll's records a
 * time of 0 means "not yet".
 */
static constexpr uint64_t kFirstStartNs = 1000000;

static const char* const kCollNames[] = {"allreduce", "allgather", "reducescatter", "sendrecv"};

bool
CollectiveFromName(const std::string& name, Collective* coll)
{
    for (size_t i = 0; i < sizeof(kCollNames) / sizeof(kCollNames[0]); i++)
    {
        if (name == kCollNames[i])
        {
            *coll = static_cast<Collective>(i);
            return true;
        }
    }
    return false;
}

const char*
CollectiveName(Collective coll)
{
    return kCollNames[static_cast<int>(coll)];
}

RingDriver::RingDriver(const RingRunSpec& spec, std::vector<Ptr<RoceHost>> hosts)
    : m_spec(spec),
      m_hosts(std::move(hosts)),
      m_local(m_hosts.size(), true),
      m_nextQpn(m_hosts.size(), 1)
{
    for (uint32_t h = 0; h < m_hosts.size(); h++)
    {
        m_hosts[h]->SetArrivalCallback(MakeCallback(&RingDriver::OnArrival, this).Bind(h));
        m_hosts[h]->SetAckedCallback(MakeCallback(&RingDriver::OnAcked, this).Bind(h));
    }
}

RingDriver::~RingDriver()
{
    for (Rank* r : m_ranks)
        delete r;
}

void
RingDriver::SetLocalHosts(std::vector<bool> local)
{
    m_local = std::move(local);
    m_local.resize(m_hosts.size(), false);
}

/* Bytes of step @k of @plan per channel; the first channels carry the
 * remainder.
 */
uint32_t
RingDriver::StepBytes(const StepPlan* plan, uint32_t k, uint32_t c) const
{
    uint64_t size = plan->bytes[k];
    uint64_t bytes = size / m_spec.channels + (c < size % m_spec.channels);

    return bytes ? bytes : 1;
}

/* Messages of a call of @plan on queue pair @slot of a channel in ring
 * @dim, with @stepQps pairs a channel: that ring's steps at positions
 * slot, slot + S, slot + 2S, ...
 */
uint32_t
RingDriver::QpMessages(const StepPlan* plan, uint32_t stepQps, uint32_t dim, uint32_t slot)
{
    uint32_t n = plan->dimSteps[dim].size();

    return slot < n ? (n - slot + stepQps - 1) / stepQps : 0;
}

/* The steps of collective @coll on a ring of @nranks and @size bytes
 * per rank (ringcoll's plan_steps()).
 */
const RingDriver::StepPlan*
RingDriver::PlanSteps(Collective coll, uint32_t nranks, uint64_t size)
{
    auto found = m_plans.find({coll, nranks, size});
    if (found != m_plans.end())
        return &found->second;
    StepPlan& p = m_plans[{coll, nranks, size}];
    auto add = [&p](uint32_t n, uint32_t dim, uint64_t bytes) {
        for (uint32_t i = 0; i < n; i++)
        {
            p.pos.push_back(p.dimSteps[dim].size());
            p.dimSteps[dim].push_back(p.dim.size());
            p.dim.push_back(dim);
            p.bytes.push_back(bytes);
        }
    };
    uint32_t R = m_spec.gridRows, C = m_spec.gridCols;

    if (coll == Collective::SendRecv)
    {
        add(1, 0, size);
        return &p;
    }
    if (!C)
    {
        add(coll == Collective::AllReduce ? 2 * (nranks - 1) : nranks - 1, 0, size / nranks);
        return &p;
    }
    p.dims = 2;
    add(C - 1, 0, size / C);
    add(2 * (R - 1), 1, size / C / R);
    add(C - 1, 0, size / C);
    return &p;
}

void
RingDriver::SetCallDoneCallback(std::function<void(uint32_t, uint32_t, uint32_t)> cb)
{
    m_onCallDone = std::move(cb);
}

uint32_t
RingDriver::AddJob(const RingJobSpec& job)
{
    uint32_t C = m_spec.channels;
    uint32_t R2 = m_spec.gridRows, C2 = m_spec.gridCols;
    uint32_t handle = m_nextHandle++;
    std::vector<RingCall> calls = job.calls;

    if (calls.empty())
    {
        uint64_t size = job.sizeBytes ? job.sizeBytes : m_spec.sizeBytes;
        uint32_t iterations = job.iterations ? job.iterations : m_spec.iterations;

        calls.assign(iterations, RingCall{m_spec.coll, size});
    }
    for (uint32_t i = 0; i < job.rings.size(); i++)
    {
        const auto& ring = job.rings[i];
        uint32_t n = ring.size();
        std::vector<const StepPlan*> plans;
        std::vector<Rank*> ranks;
        std::vector<std::array<uint32_t, 2>> next(n); /* the next rank's index, per ring */

        NS_ABORT_MSG_IF(n < 2, "job " << job.job << ": a ring of " << n << " ranks");
        NS_ABORT_MSG_IF(C2 && n != R2 * C2,
                        "job " << job.job << ": " << n << " ranks are not a " << R2 << "x" << C2
                               << " grid");
        size_t S = m_spec.stepQps;
        for (const RingCall& call : calls)
        {
            NS_ABORT_MSG_IF(C2 && call.coll != Collective::AllReduce, "a grid runs AllReduce");
            plans.push_back(PlanSteps(call.coll, n, call.sizeBytes));
        }
        if (m_spec.qpPerStep)
        {
            S = 1;
            for (const StepPlan* plan : plans)
                S = std::max({S, plan->dimSteps[0].size(), plan->dimSteps[1].size()});
        }
        for (uint32_t i = 0; i < n; i++)
        {
            Rank* r = new Rank;

            if (!C2)
                next[i] = {(i + 1) % n, (i + 1) % n};
            else
                next[i] = {i / C2 * C2 + (i % C2 + 1) % C2, (i / C2 + 1) % R2 * C2 + i % C2};
            r->handle = handle;
            r->job = job.job;
            r->nranks = n;
            r->rank = i;
            r->host = ring[i];
            r->succ[0] = ring[next[i][0]];
            r->succ[1] = ring[next[i][1]];
            NS_ABORT_MSG_IF(r->host >= m_hosts.size(), "job " << job.job << ": no host " << r->host);
            r->calls = calls;
            r->plans = plans;
            r->onDemand = job.onDemand;
            r->plan = plans[0];
            r->steps = plans[0]->dim.size();
            r->sizeBytes = calls[0].sizeBytes;
            r->stepQps = S;
            r->iterations = calls.size();
            r->startNs = kFirstStartNs + job.startNs;
            r->nextStep.assign(C, 0);
            r->acked.assign(plans[0]->dims * C * S, 0);
            r->rec.resize(calls.size());
            for (uint32_t c = 0; c < calls.size(); c++)
            {
                uint32_t steps = plans[c]->dim.size();
                Iteration& it = r->rec[c];

                it.stepStartNs.assign(C, std::vector<uint64_t>(steps, 0));
                it.stepRecvNs.assign(C, std::vector<uint64_t>(steps, 0));
                it.stepMsg.assign(C, std::vector<uint32_t>(steps, kNoMsg));
            }
            /* StartCall() finds an on-demand job's rank by its host (a
             * workload's group has a host in one ring); a ring run may
             * put a host in several rings of a job
             */
            NS_ABORT_MSG_IF(job.onDemand && m_byHost.count({handle, r->host}),
                            "job " << job.job << ": host " << r->host << " is in two of its rings");
            if (job.onDemand)
                m_byHost[{handle, r->host}] = r;
            ranks.push_back(r);
            m_ranks.push_back(r);
        }
        for (uint32_t j = 0; j < n; j++)
        {
            Rank* r = ranks[j];

            for (uint32_t d = 0; d < plans[0]->dims; d++)
                for (uint32_t q = 0; q < C * S; q++)
                {
                    uint32_t qpn = m_nextQpn[r->host]++;
                    uint32_t wireJob = job.wireJob ? job.wireJob : job.job;
                    if (job.wireJobPerRing)
                        wireJob += i;
                    if (C2 && m_spec.ringJobs)
                        wireJob = job.job * 256 + (d ? R2 + j % C2 : j / C2);
                    uint32_t idx = m_hosts[r->host]->CreateQp(r->succ[d], qpn, wireJob);

                    r->qp.push_back(idx);
                    m_tx[{r->host, idx}] = {r, (uint32_t)(d * C * S + q)};
                    /* the next rank on this ring receives the pair's messages */
                    m_rx[{r->succ[d], r->host, qpn}] =
                        RxEndpoint{ranks[next[j][d]], d, (uint32_t)(q / S), (uint32_t)(q % S)};
                }
            if (m_local[r->host] && !job.onDemand)
                Simulator::Schedule(NanoSeconds(r->startNs), &RingDriver::Start, this, r);
        }
    }
    return handle;
}

void
RingDriver::StartCall(uint32_t handle, uint32_t host)
{
    auto found = m_byHost.find({handle, host});

    NS_ABORT_MSG_IF(found == m_byHost.end(), "no rank on host " << host);
    Rank* r = found->second;
    NS_ABORT_MSG_IF(r->running || r->done, "host " << host << ": a call while one runs");
    Start(r);
}

void
RingDriver::Start(Rank* r)
{
    uint64_t now = Simulator::Now().GetNanoSeconds();

    r->running = true;
    r->plan = r->plans[r->iter];
    r->steps = r->plan->dim.size();
    r->sizeBytes = r->calls[r->iter].sizeBytes;
    r->rec[r->iter].startNs = now;
    std::fill(r->nextStep.begin(), r->nextStep.end(), 0);
    std::fill(r->acked.begin(), r->acked.end(), 0);
    Advance(r);
}

void
RingDriver::StartStep(Rank* r, uint32_t c, uint32_t k)
{
    uint16_t sport = (m_spec.stepBase + r->stepOffset + k) & 0xffff;
    Iteration& it = r->rec[r->iter];

    it.stepStartNs[c][k] = Simulator::Now().GetNanoSeconds();
    it.stepMsg[c][k] = m_hosts[r->host]->PostWrite(r->qp[StepQp(r, r->plan, c, k)], sport,
                                                  StepBytes(r->plan, k, c));
}

/* The rate step k of channel c of call @call started at; 0 for another
 * process's rank.
 */
uint64_t
RingDriver::StepStartRateBps(const Rank* r, uint32_t call, uint32_t c, uint32_t k) const
{
    const Iteration& it = r->rec[call];

    if (!m_local[r->host] || it.stepMsg[c][k] == kNoMsg)
        return 0;
    return m_hosts[r->host]->MessageStartRateBps(r->qp[StepQp(r, r->plans[call], c, k)],
                                                 it.stepMsg[c][k]);
}

uint32_t
RingDriver::StepQp(const Rank* r, const StepPlan* plan, uint32_t c, uint32_t k) const
{
    return (plan->dim[k] * m_spec.channels + c) * r->stepQps + plan->pos[k] % r->stepQps;
}

/* Start what the ring allows, and close the iteration when it is done. */
void
RingDriver::Advance(Rank* r)
{
    uint32_t C = m_spec.channels, S = r->stepQps;

    if (!r->running)
        return;
    Iteration& it = r->rec[r->iter];
    for (uint32_t c = 0; c < C; c++)
    {
        uint32_t k;
        while ((k = r->nextStep[c]) < r->steps && (k == 0 || it.stepRecvNs[c][k - 1]))
        {
            StartStep(r, c, k);
            r->nextStep[c]++;
        }
    }
    for (uint32_t c = 0; c < C; c++)
    {
        if (r->nextStep[c] < r->steps)
            return;
        for (uint32_t k = 0; k < r->steps; k++)
            if (!it.stepRecvNs[c][k])
                return;
    }
    for (uint32_t q = 0; q < r->plan->dims * C * S; q++)
        if (r->acked[q] < QpMessages(r->plan, S, q / (C * S), q % S))
            return;
    it.endNs = Simulator::Now().GetNanoSeconds();
    r->running = false;
    r->stepOffset += r->steps;
    uint32_t call = r->iter++;
    if (r->iter == r->iterations)
        r->done = true;
    if (r->onDemand)
    {
        if (m_onCallDone)
            m_onCallDone(r->handle, r->host, call);
        return;
    }
    if (!r->done)
        Start(r);
}

void
RingDriver::OnArrival(uint32_t host, uint32_t src, uint32_t qpn, uint16_t sport)
{
    auto found = m_rx.find({host, src, qpn});

    (void)sport;
    if (found == m_rx.end() || !found->second.rank)
        return;
    RxEndpoint& ep = found->second;
    Rank* r = ep.rank;
    uint32_t per = 0;
    /* this pair's n-th message of a call is its ring's step at position
     * slot + n * S; the previous rank may be calls ahead, and a call may
     * send nothing on this pair
     */
    while (ep.call < r->iterations &&
           !(per = QpMessages(r->plans[ep.call], r->stepQps, ep.dim, ep.slot)))
        ep.call++;
    if (ep.call >= r->iterations)
        return;
    uint32_t k = r->plans[ep.call]->dimSteps[ep.dim][ep.slot + ep.inCall * r->stepQps];
    r->rec[ep.call].stepRecvNs[ep.channel][k] = Simulator::Now().GetNanoSeconds();
    if (++ep.inCall == per)
    {
        ep.call++;
        ep.inCall = 0;
    }
    Advance(r);
}

void
RingDriver::OnAcked(uint32_t host, uint32_t qp, uint32_t msg)
{
    auto found = m_tx.find({host, qp});

    (void)msg;
    if (found == m_tx.end())
        return;
    Rank* r = found->second.first;
    r->acked[found->second.second]++;
    Advance(r);
}

bool
RingDriver::Done() const
{
    for (const Rank* r : m_ranks)
        if (m_local[r->host] && !r->done)
            return false;
    return true;
}

/* Each rank's result as ringcoll prints it (the parts ringmerge.jq reads). */
std::vector<std::pair<bool, std::string>>
RingDriver::RankItems(const RoceConfig& roce) const
{
    std::vector<bool> counted(m_hosts.size(), false);
    std::vector<std::pair<bool, std::string>> items;
    const RoceCounters none;

    for (size_t n = 0; n < m_ranks.size(); n++)
    {
        const Rank* r = m_ranks[n];
        /* a host's NIC counts for all its ranks: once, with its first */
        const RoceCounters& c = counted[r->host] ? none : m_hosts[r->host]->Counters();
        std::ostringstream os;

        counted[r->host] = true;
        os << "{\"tool\":\"symofan-sim\",\"host\":" << r->host
           << ",\"collective\":\"" << CollectiveName(r->calls[0].coll) << "\",\"proto\":\"rocev2\""
           << ",\"size_bytes\":" << r->calls[0].sizeBytes << ",\"channels\":" << m_spec.channels
           << ",\"step_qps\":" << r->stepQps
           << ",\"step_flows\":" << (roce.stepFlows ? "true" : "false")
           << ",\"flows\":\""
           << (m_spec.qpPerStep ? "astra" : roce.psnPerMessage ? "nccl" : "legacy") << "\""
           << ",\"iterations\":" << r->iterations << ",\"steps\":" << r->plans[0]->dim.size()
           << ",\"mtu_bytes\":" << roce.mtuBytes << ",\"rate_bps\":" << roce.lineRateBps
           << ",\"congestion_control\":\"" << (roce.fixedRate ? "fixed" : "dcqcn") << "\"";
        os << ",\"counters\":{\"packets_sent\":" << c.packetsSent
           << ",\"bytes_sent\":" << c.bytesSent << ",\"retransmitted_packets\":" << c.retransmitted
           << ",\"packets_received\":" << c.packetsReceived << ",\"ce_received\":" << c.ceReceived
           << ",\"cnps_sent\":" << c.cnpsSent << ",\"cnps_received\":" << c.cnpsReceived
           << ",\"acks_sent\":" << c.acksSent << ",\"naks_sent\":" << c.naksSent
           << ",\"naks_received\":" << c.naksReceived << ",\"duplicate_packets\":" << c.duplicates
           << ",\"flow_starts\":" << c.flowStarts
           << ",\"retransmission_timeouts\":" << c.rtoTimeouts
           << ",\"timeouts_before_rtt_sample\":" << c.rtoTimeoutsUnsampled << "}";
        os << ",\"jobs\":[{\"job\":" << r->job << ",\"ranks\":" << r->nranks
           << ",\"rank\":" << r->rank << ",\"step_bytes\":" << StepBytes(r->plans[0], 0, 0)
           << ",\"grid\":\"";
        if (m_spec.gridCols)
            os << m_spec.gridRows << "x" << m_spec.gridCols;
        else
            os << "1x" << r->nranks;
        os << "\",\"iterations\":[";
        for (uint32_t i = 0; i < r->iterations; i++)
        {
            const Iteration& it = r->rec[i];
            const StepPlan* plan = r->plans[i];
            os << (i ? "," : "") << "{\"start_ns\":" << it.startNs << ",\"end_ns\":" << it.endNs
               << ",\"steps\":[";
            bool first = true;
            for (uint32_t k = 0; k < plan->dim.size(); k++)
                for (uint32_t ch = 0; ch < m_spec.channels; ch++)
                {
                    os << (first ? "" : ",") << "{\"step\":" << k
                       << ",\"ring\":\""
                       << (plan->dims == 1 ? "ring" : plan->dim[k] ? "column" : "row")
                       << "\",\"channel\":" << ch
                       << ",\"start_ns\":" << it.stepStartNs[ch][k]
                       << ",\"end_ns\":" << it.stepRecvNs[ch][k]
                       << ",\"first_rate_bps\":"
                       << StepStartRateBps(r, i, ch, k) << "}";
                    first = false;
                }
            os << "]}";
        }
        os << "]}]}";
        items.emplace_back(m_local[r->host], os.str());
    }
    return items;
}

} // namespace ns3
