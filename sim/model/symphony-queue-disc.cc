// SPDX-License-Identifier: GPL-2.0
/*
 * symphony-queue-disc.cc - sch_symphony's enqueue and dequeue in ns-3,
 * in the order kernel/symphony_qdisc.c runs them: the limit and RED's
 * drop of non-ECT packets at enqueue; at dequeue, RED on the backlog the
 * packet leaves behind plus itself, then symphony_parse() on the packet's
 * wire bytes and symphony_job_update() for collective packets, CE set
 * when either marks.
 */
#include "symphony-queue-disc.h"

#include "ns3/boolean.h"
#include "ns3/drop-tail-queue.h"
#include "ns3/enum.h"
#include "ns3/ipv4-queue-disc-item.h"
#include "ns3/log.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SymphonyQueueDisc");
NS_OBJECT_ENSURE_REGISTERED(SymphonyJobs);
NS_OBJECT_ENSURE_REGISTERED(SymphonyQueueDisc);

/* The Ethernet header the kernel's backlog counts with each packet. */
static constexpr uint32_t kEthHeaderBytes = 14;

TypeId
SymphonyJobs::GetTypeId()
{
    static TypeId tid = TypeId("ns3::SymphonyJobs").SetParent<Object>().SetGroupName("Symofan");
    return tid;
}

SymphonyJobs::SymphonyJobs(uint32_t slots)
    : m_slots(slots),
      m_pages((slots + kJobsPerPage - 1) / kJobsPerPage)
{
}

struct symphony_job*
SymphonyJobs::Lookup(uint32_t job)
{
    if (job >= m_slots)
        return nullptr;
    std::unique_ptr<struct symphony_job[]>& page = m_pages[job / kJobsPerPage];
    if (!page)
        page.reset(new struct symphony_job[kJobsPerPage]()); /* zeroed */
    return &page[job % kJobsPerPage];
}

uint32_t
SymphonyJobs::Slots() const
{
    return m_slots;
}

TypeId
SymphonyQueueDisc::GetTypeId()
{
#define SYM_U32(name, help, member, dflt, lo, hi)                                                  \
    AddAttribute(name,                                                                             \
                 help,                                                                             \
                 UintegerValue(dflt),                                                              \
                 MakeUintegerAccessor(&SymphonyQueueDisc::member),                                 \
                 MakeUintegerChecker<uint32_t>(lo, hi))
    static TypeId tid =
        TypeId("ns3::SymphonyQueueDisc")
            .SetParent<QueueDisc>()
            .SetGroupName("Symofan")
            .AddConstructor<SymphonyQueueDisc>()
            .SYM_U32("limit", "queue limit, packets", m_limit, SYMPHONY_LIMIT_DEFAULT,
                     SYMPHONY_LIMIT_MIN, SYMPHONY_LIMIT_MAX)
            .SYM_U32("limit_bytes", "queue limit, bytes (0: none)", m_limitBytes, 0, 0,
                     0xffffffffU)
            .SYM_U32("kmin", "backlog where RED starts marking, bytes", m_kmin,
                     SYMPHONY_KMIN_DEFAULT, 0, 0xffffffffU)
            .SYM_U32("kmax", "backlog from which RED marks every packet, bytes", m_kmax,
                     SYMPHONY_KMAX_DEFAULT, 0, 0xffffffffU)
            .SYM_U32("pmax", "RED marking probability at kmax, ppm", m_pmaxPpm,
                     SYMPHONY_PMAX_DEFAULT, SYMPHONY_PMAX_MIN, SYMPHONY_PMAX_MAX)
            .AddAttribute("nonect",
                          "what RED does to a non-ECT packet it would mark",
                          EnumValue(SYMPHONY_NONECT_DROP),
                          MakeEnumAccessor(&SymphonyQueueDisc::m_nonect),
                          MakeEnumChecker(SYMPHONY_NONECT_DROP,
                                          "drop",
                                          SYMPHONY_NONECT_PASS,
                                          "pass"))
            .AddAttribute("marking",
                          "RED only (the baseline) or Symphony OR RED",
                          EnumValue(SYMPHONY_MARKING_SYMPHONY),
                          MakeEnumAccessor(&SymphonyQueueDisc::m_marking),
                          MakeEnumChecker(SYMPHONY_MARKING_RED,
                                          "red",
                                          SYMPHONY_MARKING_SYMPHONY,
                                          "symphony"))
            .AddAttribute("k",
                          "Symphony's throttling gain k, ppm",
                          UintegerValue(SYMPHONY_K_DEFAULT),
                          MakeUintegerAccessor(&SymphonyQueueDisc::m_kPpm),
                          MakeUintegerChecker<uint32_t>(SYMPHONY_K_MIN, SYMPHONY_K_MAX))
            .AddAttribute("tau",
                          "outpacing share of a window that raises alpha, ppm",
                          UintegerValue(SYMPHONY_TAU_DEFAULT),
                          MakeUintegerAccessor(&SymphonyQueueDisc::m_tauPpm),
                          MakeUintegerChecker<uint32_t>(SYMPHONY_TAU_MIN, SYMPHONY_TAU_MAX))
            .SYM_U32("twin", "window T_win, us", m_twinUs, SYMPHONY_TWIN_DEFAULT,
                     SYMPHONY_TWIN_MIN, SYMPHONY_TWIN_MAX)
            .AddAttribute("warmup",
                          "N_warmup: no Symphony marks until psn_rec exceeds it, PSN units",
                          UintegerValue(SYMPHONY_WARMUP_DEFAULT),
                          MakeUintegerAccessor(&SymphonyQueueDisc::m_warmupPsn),
                          MakeUintegerChecker<uint32_t>(SYMPHONY_WARMUP_MIN, SYMPHONY_WARMUP_MAX))
            .AddAttribute("samples",
                          "N_sample: windows with fewer packets keep alpha, packets",
                          UintegerValue(SYMPHONY_SAMPLES_DEFAULT),
                          MakeUintegerAccessor(&SymphonyQueueDisc::m_samplesPackets),
                          MakeUintegerChecker<uint32_t>(SYMPHONY_SAMPLES_MIN,
                                                        SYMPHONY_SAMPLES_MAX))
            .AddAttribute("alpha_max",
                          "cap of alpha",
                          UintegerValue(SYMPHONY_ALPHA_MAX_DEFAULT),
                          MakeUintegerAccessor(&SymphonyQueueDisc::m_alphaMax),
                          MakeUintegerChecker<uint32_t>(SYMPHONY_ALPHA_MAX_MIN,
                                                        SYMPHONY_ALPHA_MAX_MAX))
            .AddAttribute("priority_lagging",
                          "serve each job's slowest step first, in strict priority (the "
                          "Symphony paper's priority-queue baseline; marks RED only)",
                          BooleanValue(false),
                          MakeBooleanAccessor(&SymphonyQueueDisc::m_priorityLagging),
                          MakeBooleanChecker())
            .SYM_U32("qmin", "backlog from which Symphony marks, bytes (0: any)", m_qmin,
                     SYMPHONY_QMIN_DEFAULT, 0, 0xffffffffU)
            .SYM_U32("job_field", "RoCEv2 header field of the job id (enum symphony_field)",
                     m_jobField, SYMPHONY_JOB_FIELD_DEFAULT, 0, SYMPHONY_JOB_FIELD_MAX)
            .SYM_U32("step_field", "RoCEv2 header field of the step (enum symphony_field)",
                     m_stepField, SYMPHONY_STEP_FIELD_DEFAULT, 0, SYMPHONY_STEP_FIELD_MAX)
            .AddAttribute("jobs_map",
                          "the job table, shared by the ports of a switch (default: the "
                          "queue disc's own)",
                          PointerValue(),
                          MakePointerAccessor(&SymphonyQueueDisc::m_jobs),
                          MakePointerChecker<SymphonyJobs>());
#undef SYM_U32
    return tid;
}

SymphonyQueueDisc::SymphonyQueueDisc()
    : QueueDisc(QueueDiscSizePolicy::NO_LIMITS),
      m_backlog(0),
      m_xstats{}
{
    m_params = {};
    m_rng = CreateObject<UniformRandomVariable>();
}

SymphonyQueueDisc::~SymphonyQueueDisc() = default;

void
SymphonyQueueDisc::SetJobs(Ptr<SymphonyJobs> jobs)
{
    m_jobs = jobs;
}

Ptr<SymphonyJobs>
SymphonyQueueDisc::GetJobs() const
{
    return m_jobs;
}

const struct tc_symphony_xstats&
SymphonyQueueDisc::GetXstats() const
{
    return m_xstats;
}

int64_t
SymphonyQueueDisc::AssignStreams(int64_t stream)
{
    m_rng->SetStream(stream);
    return 1;
}

bool
SymphonyQueueDisc::Toss(uint32_t prob_q32)
{
    if (!prob_q32)
        return false;
    if (prob_q32 == SYMPHONY_PROB_ALWAYS)
        return true;
    return symphony_coin(prob_q32, m_rng->GetInteger(0, 0xffffffffU));
}

bool
SymphonyQueueDisc::DoEnqueue(Ptr<QueueDiscItem> item)
{
    uint32_t len = item->GetSize() + kEthHeaderBytes;
    uint32_t backlog = m_backlog + len;
    uint32_t prob;

    uint32_t queued = 0;

    for (uint32_t i = 0; i < GetNInternalQueues(); i++)
        queued += GetInternalQueue(i)->GetNPackets();
    if (queued >= m_limit || (m_limitBytes && backlog > m_limitBytes))
    {
        m_xstats.limit_drops++;
        DropBeforeEnqueue(item, "limit");
        return false;
    }
    /* RED's verdict on a packet it could not mark, as the kernel's */
    prob = symphony_red_prob_q32(m_kmin, m_kmax, m_redPmaxQ32, backlog);
    if (prob && m_nonect == SYMPHONY_NONECT_DROP)
    {
        Ptr<Ipv4QueueDiscItem> ip = DynamicCast<Ipv4QueueDiscItem>(item);
        if ((!ip || ip->GetHeader().GetEcn() == Ipv4Header::ECN_NotECT) && Toss(prob))
        {
            m_xstats.red_drops++;
            DropBeforeEnqueue(item, "red");
            return false;
        }
    }
    uint32_t band = 0;
    uint64_t flow = 0;
    if (m_priorityLagging)
    {
        flow = FlowKey(item);
        /* behind its own packets, whatever its step is now */
        auto low = m_lowQueued.find(flow);
        band = (low != m_lowQueued.end() && low->second) || !Lagging(item) ? 1 : 0;
    }
    if (!GetInternalQueue(band)->Enqueue(item))
        return false;
    if (band)
    {
        m_lowQueued[flow]++;
        m_lowFlows.push_back(flow);
    }
    m_backlog = backlog;
    uint32_t qlen = queued + 1;
    if (qlen > m_xstats.max_backlog_packets)
        m_xstats.max_backlog_packets = qlen;
    if (m_backlog > m_xstats.max_backlog_bytes)
        m_xstats.max_backlog_bytes = m_backlog;
    return true;
}

int
SymphonyQueueDisc::Parse(Ptr<QueueDiscItem> item, struct symphony_pkt* pkt, uint32_t* pkt_len)
{
    Ptr<Ipv4QueueDiscItem> ip = DynamicCast<Ipv4QueueDiscItem>(item);
    uint8_t nh[SYMPHONY_PARSE_MAX_BYTES];
    const struct symphony_parse_cfg cfg = {(__u8)m_jobField, (__u8)m_stepField};

    if (!ip)
        return SYMPHONY_PARSE_OTHER;
    /* The bytes a switch's parser sees: the IP header as it would be on
     * the wire (serialised into the queue disc's own buffer, sized
     * once), then the packet's first bytes.
     */
    uint32_t hlen = ip->GetHeader().GetSerializedSize();
    *pkt_len = hlen + item->GetPacket()->GetSize();
    if (m_ipHeader.GetSize() != hlen)
    {
        m_ipHeader = Buffer();
        m_ipHeader.AddAtStart(hlen);
    }
    ip->GetHeader().Serialize(m_ipHeader.Begin());
    m_ipHeader.CopyData(nh, hlen);
    uint32_t avail = hlen + item->GetPacket()->CopyData(nh + hlen, SYMPHONY_PARSE_MAX_BYTES - hlen);
    return symphony_parse(nh, avail, *pkt_len, false, &cfg, pkt);
}

uint64_t
SymphonyQueueDisc::FlowKey(Ptr<QueueDiscItem> item)
{
    Ptr<Ipv4QueueDiscItem> ip = DynamicCast<Ipv4QueueDiscItem>(item);
    uint8_t l4[8 + SYMPHONY_BTH_LEN] = {};

    if (!ip)
        return 0;
    item->GetPacket()->CopyData(l4, sizeof(l4));
    /* source address, both UDP ports, DestQP */
    return (uint64_t)ip->GetHeader().GetSource().Get() << 32 ^
           (uint64_t)symphony_get_be32(l4) << 8 ^ symphony_get_be24(l4 + 8 + SYMPHONY_BTH_DESTQP);
}

bool
SymphonyQueueDisc::Lagging(Ptr<QueueDiscItem> item)
{
    struct symphony_pkt pkt;
    struct symphony_job* job;
    uint32_t pkt_len;
    bool outpacing;

    if (Parse(item, &pkt, &pkt_len) != SYMPHONY_PARSE_COLLECTIVE || !(job = m_jobs->Lookup(pkt.job)))
        return false;
    uint64_t now_ns = Simulator::Now().GetNanoSeconds();
    now_ns -= now_ns % m_params.twin_ns;
    /* Algorithm 1's progress tracking; its marking probability unused */
    symphony_job_update(job, &pkt, &m_params, now_ns, 1, &outpacing);
    m_xstats.collective_packets++;
    if (outpacing)
        m_xstats.outpacing_packets++;
    return !outpacing;
}

/* RED on @backlog, and Algorithm 1 on the packet's own bytes. */
void
SymphonyQueueDisc::MarkDequeued(Ptr<QueueDiscItem> item, uint32_t backlog)
{
    Ptr<Ipv4QueueDiscItem> ip = DynamicCast<Ipv4QueueDiscItem>(item);
    bool red = Toss(symphony_red_prob_q32(m_kmin, m_kmax, m_redPmaxQ32, backlog));
    bool sym = false, markable = ip && ip->GetHeader().GetEcn() != Ipv4Header::ECN_NotECT;

    if (m_marking == SYMPHONY_MARKING_SYMPHONY && ip)
    {
        struct symphony_pkt pkt;
        uint32_t pkt_len;

        switch (Parse(item, &pkt, &pkt_len))
        {
        case SYMPHONY_PARSE_COLLECTIVE: {
            struct symphony_job* job = m_jobs->Lookup(pkt.job);
            if (!job)
            {
                m_xstats.unclassified_packets++;
                break;
            }
            uint64_t now_ns = Simulator::Now().GetNanoSeconds();
            /* the start of the current T_win period, as the kernel's tick */
            now_ns -= now_ns % m_params.twin_ns;
            bool outpacing;
            uint32_t prob = symphony_job_update(job, &pkt, &m_params, now_ns, 1, &outpacing);
            sym = backlog >= m_qmin && Toss(prob);
            symphony_job_count(job, 1, pkt_len + kEthHeaderBytes, outpacing, markable, red, sym);
            if (outpacing)
                m_xstats.outpacing_packets++;
            m_xstats.collective_packets++;
            if (pkt.psn > m_maxPsn)
                m_maxPsn = pkt.psn;
            break;
        }
        case SYMPHONY_PARSE_MALFORMED:
            m_xstats.malformed_packets++;
            m_xstats.unclassified_packets++;
            break;
        default:
            m_xstats.unclassified_packets++;
            break;
        }
    }
    if ((red || sym) && markable && item->Mark())
    {
        if (red)
            m_xstats.red_marks++;
        if (sym)
            m_xstats.symphony_marks++;
    }
}

uint32_t
SymphonyQueueDisc::GetMaxPsn() const
{
    return m_maxPsn;
}

Ptr<QueueDiscItem>
SymphonyQueueDisc::DoDequeue()
{
    Ptr<QueueDiscItem> item = GetInternalQueue(0)->Dequeue();

    if (!item && GetNInternalQueues() > 1)
    {
        item = GetInternalQueue(1)->Dequeue();
        if (item)
        {
            /* the flow of queue 1's head, noted at its enqueue */
            auto low = m_lowQueued.find(m_lowFlows.front());
            m_lowFlows.pop_front();
            if (low != m_lowQueued.end() && !--low->second)
                m_lowQueued.erase(low);
        }
    }
    if (!item)
        return nullptr;
    uint32_t len = item->GetSize() + kEthHeaderBytes;
    /* the backlog the packet leaves behind it, plus itself */
    uint32_t backlog = m_backlog;
    m_backlog -= len;
    MarkDequeued(item, backlog);
    m_xstats.packets++;
    m_xstats.bytes += len;
    return item;
}

bool
SymphonyQueueDisc::CheckConfig()
{
    if (GetNQueueDiscClasses() > 0 || GetNPacketFilters() > 0)
    {
        NS_LOG_ERROR("SymphonyQueueDisc has no classes and no filters");
        return false;
    }
    if (m_kmin > m_kmax)
    {
        NS_LOG_ERROR("kmin " << m_kmin << " above kmax " << m_kmax);
        return false;
    }
    /* the lagging steps' queue, then with priority_lagging the others' */
    while (GetNInternalQueues() < (m_priorityLagging ? 2U : 1U))
    {
        Ptr<InternalQueue> q = CreateObject<DropTailQueue<QueueDiscItem>>();
        /* the limit is the queue disc's own (DoEnqueue) */
        q->SetMaxSize(QueueSize(QueueSizeUnit::PACKETS, SYMPHONY_LIMIT_MAX));
        AddInternalQueue(q);
    }
    if (m_priorityLagging && m_marking != SYMPHONY_MARKING_RED)
    {
        NS_LOG_ERROR("priority_lagging marks RED only");
        return false;
    }
    if (!m_jobs)
        m_jobs = CreateObject<SymphonyJobs>();
    return true;
}

void
SymphonyQueueDisc::InitializeParams()
{
    m_params.k_ppm = m_kPpm;
    m_params.tau_ppm = m_tauPpm;
    m_params.warmup_psn = m_warmupPsn;
    m_params.sample_min_packets = m_samplesPackets;
    m_params.alpha_max = m_alphaMax;
    m_params.twin_ns = (uint64_t)m_twinUs * 1000;
    m_redPmaxQ32 = symphony_red_pmax_q32(m_pmaxPpm);
}

} // namespace ns3
