// SPDX-License-Identifier: GPL-2.0
/*
 * workload-driver.cc - training jobs of compute phases and collectives
 * (workload-driver.h): the file's reader and the ranks' streams.
 */
#include "workload-driver.h"

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "ns3/abort.h"
#include "ns3/simulator.h"

namespace ns3
{

/* As RingDriver's: jobs start 1 ms into the run at the earliest. */
static constexpr uint64_t kFirstStartNs = 1000000;
static constexpr uint64_t kMaxJobId = 8191; /* 13 bits of BTH (ROCE_JOB_BITS) */
static constexpr uint64_t kMaxCollectiveBytes = (1ULL << 40); /* 1 TiB a rank */

using json = nlohmann::json;

namespace
{

/* A reading error: where, and what is wrong there. */
struct Bad
{
    std::string where, what;
};

void
CheckKeys(const json& obj, const std::string& where, std::initializer_list<const char*> allowed)
{
    if (!obj.is_object())
        throw Bad{where, "is not an object"};
    for (const auto& item : obj.items())
    {
        bool known = false;
        for (const char* key : allowed)
            known |= item.key() == key;
        if (!known)
        {
            std::string keys;
            for (const char* key : allowed)
                keys += std::string(keys.empty() ? "" : ", ") + key;
            throw Bad{where, "unknown key \"" + item.key() + "\" (known: " + keys + ")"};
        }
    }
}

uint64_t
GetU64(const json& obj, const std::string& where, const char* key, uint64_t min, uint64_t max,
       const uint64_t* dflt)
{
    if (!obj.contains(key))
    {
        if (!dflt)
            throw Bad{where, std::string("has no \"") + key + "\""};
        return *dflt;
    }
    const json& v = obj.at(key);
    if (!v.is_number_unsigned() || v.get<uint64_t>() < min || v.get<uint64_t>() > max)
        throw Bad{where + "." + key,
                  v.dump() + " is not a whole number in " + std::to_string(min) + ".." +
                      std::to_string(max)};
    return v.get<uint64_t>();
}

std::string
GetString(const json& obj, const std::string& where, const char* key, bool required)
{
    if (!obj.contains(key))
    {
        if (required)
            throw Bad{where, std::string("has no \"") + key + "\""};
        return "";
    }
    if (!obj.at(key).is_string() || obj.at(key).get<std::string>().empty())
        throw Bad{where + "." + key, obj.at(key).dump() + " is not a non-empty string"};
    return obj.at(key).get<std::string>();
}

/* "hosts": [H, ...] or "FIRST-LAST" */
std::vector<uint32_t>
GetHosts(const json& v, const std::string& where)
{
    std::vector<uint32_t> hosts;

    if (v.is_string())
    {
        unsigned first, last;
        char tail;
        if (sscanf(v.get<std::string>().c_str(), "%u-%u%c", &first, &last, &tail) != 2 ||
            first > last || last > 1000000)
            throw Bad{where, v.dump() + " is not FIRST-LAST (hosts 0..1000000)"};
        for (uint32_t h = first; h <= last; h++)
            hosts.push_back(h);
        return hosts;
    }
    if (!v.is_array())
        throw Bad{where, v.dump().substr(0, 40) + " is not a list of hosts or FIRST-LAST"};
    for (size_t i = 0; i < v.size(); i++)
    {
        if (!v[i].is_number_unsigned() || v[i].get<uint64_t>() > 1000000)
            throw Bad{where + "[" + std::to_string(i) + "]", v[i].dump() + " is not a host 0..1000000"};
        hosts.push_back(v[i].get<uint32_t>());
    }
    return hosts;
}

WorkloadJob
ReadJob(const json& j, const std::string& where)
{
    WorkloadJob job;
    const uint64_t one = 1, zero = 0;
    std::set<uint32_t> seen;

    CheckKeys(j, where, {"job", "hosts", "iterations", "start_ns", "groups", "ops"});
    job.job = GetU64(j, where, "job", 1, kMaxJobId, nullptr);
    if (!j.contains("hosts"))
        throw Bad{where, "has no \"hosts\""};
    job.hosts = GetHosts(j.at("hosts"), where + ".hosts");
    if (job.hosts.empty())
        throw Bad{where + ".hosts", "is empty"};
    for (uint32_t h : job.hosts)
        if (!seen.insert(h).second)
            throw Bad{where + ".hosts", "host " + std::to_string(h) + " is there twice"};
    job.iterations = GetU64(j, where, "iterations", 1, 1000000, &one);
    job.startNs = GetU64(j, where, "start_ns", 0, 1ULL << 50, &zero);

    std::map<std::string, uint32_t> groupByName;
    if (j.contains("groups") && !j.at("groups").is_array())
        throw Bad{where + ".groups", "is not a list"};
    const json& groups = j.contains("groups") ? j.at("groups") : json::array();
    for (size_t g = 0; g < groups.size(); g++)
    {
        std::string at = where + ".groups[" + std::to_string(g) + "]";
        WorkloadGroup group;
        std::set<uint32_t> inGroup;

        CheckKeys(groups[g], at, {"name", "rings", "wire_job", "wire_job_per_ring"});
        group.name = GetString(groups[g], at, "name", true);
        if (!groupByName.emplace(group.name, g).second)
            throw Bad{at + ".name", "\"" + group.name + "\" names an earlier group too"};
        if (!groups[g].contains("rings") || !groups[g].at("rings").is_array() ||
            groups[g].at("rings").empty())
            throw Bad{at, "has no \"rings\" (a list of rings, each a list of ranks)"};
        const json& rings = groups[g].at("rings");
        for (size_t i = 0; i < rings.size(); i++)
        {
            std::string rat = at + ".rings[" + std::to_string(i) + "]";
            std::vector<uint32_t> ring = GetHosts(rings[i], rat);

            if (ring.size() < 2)
                throw Bad{rat, "has " + std::to_string(ring.size()) + " ranks, not 2 or more"};
            for (uint32_t r : ring)
            {
                if (r >= job.hosts.size())
                    throw Bad{rat, "rank " + std::to_string(r) + " is not one of the job's " +
                                       std::to_string(job.hosts.size()) + " ranks"};
                if (!inGroup.insert(r).second)
                    throw Bad{rat, "rank " + std::to_string(r) + " is in two rings of the group"};
            }
            group.rings.push_back(ring);
        }
        group.wireJob = GetU64(groups[g], at, "wire_job", 1, kMaxJobId, &zero);
        if (groups[g].contains("wire_job_per_ring"))
        {
            if (!groups[g].at("wire_job_per_ring").is_boolean())
                throw Bad{at + ".wire_job_per_ring", "is not true or false"};
            group.wireJobPerRing = groups[g].at("wire_job_per_ring").get<bool>();
        }
        uint32_t base = group.wireJob ? group.wireJob : job.job;
        if (group.wireJobPerRing && base + group.rings.size() - 1 > kMaxJobId)
            throw Bad{at, "its rings' job IDs run past " + std::to_string(kMaxJobId)};
        job.groups.push_back(group);
    }

    std::map<std::string, uint32_t> opByName;
    if (!j.contains("ops") || !j.at("ops").is_array() || j.at("ops").empty())
        throw Bad{where, "has no \"ops\" (a list of compute phases and collectives)"};
    const json& ops = j.at("ops");
    for (size_t i = 0; i < ops.size(); i++)
    {
        std::string at = where + ".ops[" + std::to_string(i) + "]";
        WorkloadOp op;

        if (!ops[i].is_object())
            throw Bad{at, "is not an object"};
        op.name = GetString(ops[i], at, "name", true);
        at += " (\"" + op.name + "\")";
        CheckKeys(ops[i], at, {"name", "kind", "ns", "bytes", "group", "deps"});
        if (!opByName.emplace(op.name, i).second)
            throw Bad{at, "its name is an earlier op's too"};
        std::string kind = GetString(ops[i], at, "kind", true);
        if (kind == "compute")
        {
            if (ops[i].contains("bytes") || ops[i].contains("group"))
                throw Bad{at, "a compute op has no \"bytes\" or \"group\""};
            op.ns = GetU64(ops[i], at, "ns", 0, 1ULL << 50, nullptr);
        }
        else
        {
            op.compute = false;
            if (!CollectiveFromName(kind, &op.coll))
                throw Bad{at + ".kind", "\"" + kind +
                                            "\" is not compute, allreduce, allgather, "
                                            "reducescatter or sendrecv"};
            if (ops[i].contains("ns"))
                throw Bad{at, "a collective has no \"ns\" (the network decides)"};
            op.bytes = GetU64(ops[i], at, "bytes", 1, kMaxCollectiveBytes, nullptr);
            std::string group = GetString(ops[i], at, "group", true);
            auto found = groupByName.find(group);
            if (found == groupByName.end())
                throw Bad{at + ".group", "\"" + group + "\" is not one of the job's groups"};
            op.group = found->second;
            /* the RDMA WRITE of one step is at most 4 GiB - 1 */
            uint64_t ringRanks = job.groups[op.group].rings[0].size();
            uint64_t step = op.coll == Collective::SendRecv ? op.bytes : op.bytes / ringRanks;
            if (step > 0xffffffffULL)
                throw Bad{at + ".bytes", std::to_string(op.bytes) +
                                             " makes a step of more than 4 GiB - 1"};
        }
        if (ops[i].contains("deps"))
        {
            const json& deps = ops[i].at("deps");
            if (!deps.is_array())
                throw Bad{at + ".deps", "is not a list of op names"};
            for (const json& d : deps)
            {
                if (!d.is_string())
                    throw Bad{at + ".deps", d.dump() + " is not an op name"};
                auto found = opByName.find(d.get<std::string>());
                if (found == opByName.end() || found->second == i)
                    throw Bad{at + ".deps", d.dump() + " is not an earlier op of the job"};
                op.deps.push_back(found->second);
            }
        }
        job.ops.push_back(op);
    }
    return job;
}

/* @path's JSON document; false with *err naming the file. */
bool
ReadJsonFile(const std::string& path, json* doc, std::string* err)
{
    std::ifstream file(path);

    if (!file)
    {
        *err = path + ": " + strerror(errno);
        return false;
    }
    try
    {
        *doc = json::parse(file);
    }
    catch (const json::parse_error& e)
    {
        *err = path + ": not JSON: " + e.what();
        return false;
    }
    return true;
}

} // namespace

bool
LoadWorkload(const std::string& path, Workload* w, std::string* err)
{
    json doc;

    if (!ReadJsonFile(path, &doc, err))
        return false;
    try
    {
        std::set<uint32_t> jobIds, hosts;

        CheckKeys(doc, "the file", {"format", "version", "name", "source", "jobs"});
        if (GetString(doc, "the file", "format", true) != "symofan-workload")
            throw Bad{"format", doc.at("format").dump() + " is not \"symofan-workload\""};
        GetU64(doc, "the file", "version", 1, 1, nullptr);
        w->name = GetString(doc, "the file", "name", true);
        w->source = GetString(doc, "the file", "source", false);
        if (!doc.contains("jobs") || !doc.at("jobs").is_array() || doc.at("jobs").empty())
            throw Bad{"the file", "has no \"jobs\" (a list)"};
        for (size_t i = 0; i < doc.at("jobs").size(); i++)
        {
            std::string at = "jobs[" + std::to_string(i) + "]";
            w->jobs.push_back(ReadJob(doc.at("jobs")[i], at));
            if (!jobIds.insert(w->jobs.back().job).second)
                throw Bad{at + ".job", std::to_string(w->jobs.back().job) + " is an earlier job's too"};
            for (uint32_t h : w->jobs.back().hosts)
                if (!hosts.insert(h).second)
                    throw Bad{at + ".hosts", "host " + std::to_string(h) + " is an earlier job's too"};
        }
    }
    catch (const Bad& bad)
    {
        *err = path + ": " + bad.where + ": " + bad.what;
        return false;
    }
    return true;
}

bool
LoadTrafficMatrix(const std::string& path, uint32_t hosts,
                  std::vector<std::vector<uint64_t>>* matrix, std::string* err)
{
    json doc;
    uint64_t total = 0;

    if (!ReadJsonFile(path, &doc, err))
        return false;
    try
    {
        CheckKeys(doc, "the file", {"format", "version", "hosts", "bytes", "source", "stats"});
        if (GetString(doc, "the file", "format", true) != "symofan-matrix")
            throw Bad{"format", doc.at("format").dump() + " is not \"symofan-matrix\""};
        GetU64(doc, "the file", "version", 1, 1, nullptr);
        GetU64(doc, "the file", "hosts", hosts, hosts, nullptr);
        const json& rows = doc.contains("bytes") ? doc.at("bytes") : json();
        if (!rows.is_array() || rows.size() != hosts)
            throw Bad{"bytes", "is not a list of " + std::to_string(hosts) + " rows"};
        matrix->assign(hosts, std::vector<uint64_t>(hosts, 0));
        for (uint32_t s = 0; s < hosts; s++)
        {
            std::string at = "bytes[" + std::to_string(s) + "]";
            if (!rows[s].is_array() || rows[s].size() != hosts)
                throw Bad{at, "is not a row of " + std::to_string(hosts) + " numbers"};
            for (uint32_t d = 0; d < hosts; d++)
            {
                const json& v = rows[s][d];
                if (!v.is_number_unsigned() || v.get<uint64_t>() > 0xffffffffULL ||
                    (s == d && v.get<uint64_t>()))
                    throw Bad{at + "[" + std::to_string(d) + "]",
                              v.dump() + (s == d ? " is not 0 (a host to itself)"
                                                 : " is not a byte count 0..4294967295")};
                (*matrix)[s][d] = v.get<uint64_t>();
                total += (*matrix)[s][d];
            }
        }
        if (!total)
            throw Bad{"bytes", "every entry is 0"};
    }
    catch (const Bad& bad)
    {
        *err = path + ": " + bad.where + ": " + bad.what;
        return false;
    }
    return true;
}

WorkloadDriver::WorkloadDriver(const Workload& w, RingDriver* rings)
    : m_w(w),
      m_rings(rings)
{
    m_rings->SetCallDoneCallback([this](uint32_t handle, uint32_t host, uint32_t call) {
        OnCallDone(handle, host, call);
    });
    m_jobs.resize(w.jobs.size());
    for (uint32_t j = 0; j < w.jobs.size(); j++)
    {
        const WorkloadJob& spec = w.jobs[j];
        JobState& js = m_jobs[j];

        js.spec = &spec;
        js.groupOps.resize(spec.groups.size());
        for (uint32_t i = 0; i < spec.ops.size(); i++)
        {
            if (spec.ops[i].compute)
                js.computeOps.push_back(i);
            else
                js.groupOps[spec.ops[i].group].push_back(i);
        }
        for (uint32_t g = 0; g < spec.groups.size(); g++)
        {
            const WorkloadGroup& group = spec.groups[g];
            RingJobSpec rj;

            if (js.groupOps[g].empty())
            {
                js.handles.push_back(UINT32_MAX); /* no collective: no queue pairs */
                continue;
            }
            rj.job = spec.job;
            rj.onDemand = true;
            rj.wireJob = group.wireJob;
            rj.wireJobPerRing = group.wireJobPerRing;
            for (const auto& ring : group.rings)
            {
                std::vector<uint32_t> hosts;
                for (uint32_t r : ring)
                    hosts.push_back(spec.hosts[r]);
                rj.rings.push_back(hosts);
            }
            for (uint32_t it = 0; it < spec.iterations; it++)
                for (uint32_t op : js.groupOps[g])
                    rj.calls.push_back(RingCall{spec.ops[op].coll, spec.ops[op].bytes});
            uint32_t handle = m_rings->AddJob(rj);
            js.handles.push_back(handle);
            if (m_handleGroup.size() <= handle)
                m_handleGroup.resize(handle + 1, {UINT32_MAX, UINT32_MAX});
            m_handleGroup[handle] = {j, g};
        }
        js.ranks.resize(spec.hosts.size());
        uint32_t maxHost = 0;
        for (uint32_t h : spec.hosts)
            maxHost = std::max(maxHost, h);
        js.rankOfHost.assign(maxHost + 1, -1);
        for (uint32_t r = 0; r < spec.hosts.size(); r++)
        {
            RankState& rs = js.ranks[r];

            js.rankOfHost[spec.hosts[r]] = r;
            rs.job = j;
            rs.rank = r;
            rs.host = spec.hosts[r];
            rs.inGroup.assign(spec.groups.size(), 0);
            for (uint32_t g = 0; g < spec.groups.size(); g++)
                for (const auto& ring : spec.groups[g].rings)
                    for (uint32_t x : ring)
                        rs.inGroup[g] |= x == r;
            rs.times.assign(spec.iterations, std::vector<OpTimes>(spec.ops.size()));
            Simulator::Schedule(NanoSeconds(kFirstStartNs + spec.startNs),
                                &WorkloadDriver::StartIteration, this, &rs);
        }
    }
}

void
WorkloadDriver::StartIteration(RankState* r)
{
    const JobState& js = m_jobs[r->job];

    r->opDone.assign(js.spec->ops.size(), 0);
    r->opsDone = 0;
    r->nextCompute = 0;
    r->computeBusy = false;
    r->nextColl.assign(js.spec->groups.size(), 0);
    r->collBusy.assign(js.spec->groups.size(), 0);
    Issue(r);
}

/* Start every stream's next op whose dependencies have ended. */
void
WorkloadDriver::Issue(RankState* r)
{
    JobState& js = m_jobs[r->job];
    const WorkloadJob& spec = *js.spec;
    uint64_t now = Simulator::Now().GetNanoSeconds();
    auto ready = [&](uint32_t op) {
        for (uint32_t d : spec.ops[op].deps)
            if (!r->opDone[d])
                return false;
        return true;
    };
    bool progress = true;

    while (progress && !r->done)
    {
        progress = false;
        if (!r->computeBusy && r->nextCompute < js.computeOps.size() &&
            ready(js.computeOps[r->nextCompute]))
        {
            uint32_t op = js.computeOps[r->nextCompute++];

            r->computeBusy = true;
            r->times[r->iter][op].startNs = now;
            Simulator::Schedule(NanoSeconds(spec.ops[op].ns), &WorkloadDriver::EndOp, this, r, op);
        }
        for (uint32_t g = 0; g < spec.groups.size(); g++)
        {
            if (r->collBusy[g] || r->nextColl[g] >= js.groupOps[g].size())
                continue;
            uint32_t op = js.groupOps[g][r->nextColl[g]];
            if (!ready(op))
                continue;
            r->nextColl[g]++;
            r->times[r->iter][op].startNs = now;
            if (!r->inGroup[g])
            {
                /* not a member: nothing to send or wait for */
                r->times[r->iter][op].endNs = now;
                r->opDone[op] = 1;
                r->opsDone++;
                progress = true;
                continue;
            }
            r->collBusy[g] = 1;
            m_rings->StartCall(js.handles[g], r->host);
        }
    }
    if (r->opsDone == spec.ops.size() && !r->done)
    {
        r->iterEndNs.push_back(now);
        if (++r->iter == spec.iterations)
            r->done = true;
        else /* an event, not a call: an iteration may end within Issue() */
            Simulator::ScheduleNow(&WorkloadDriver::StartIteration, this, r);
    }
}

void
WorkloadDriver::EndOp(RankState* r, uint32_t op)
{
    const WorkloadOp& spec = m_jobs[r->job].spec->ops[op];

    r->times[r->iter][op].endNs = Simulator::Now().GetNanoSeconds();
    r->opDone[op] = 1;
    r->opsDone++;
    if (spec.compute)
        r->computeBusy = false;
    else
        r->collBusy[spec.group] = 0;
    Issue(r);
}

void
WorkloadDriver::OnCallDone(uint32_t handle, uint32_t host, uint32_t call)
{
    NS_ABORT_MSG_IF(handle >= m_handleGroup.size() || m_handleGroup[handle].first == UINT32_MAX,
                    "a collective of no workload group ended");
    auto [j, g] = m_handleGroup[handle];
    JobState& js = m_jobs[j];
    RankState* r = &js.ranks[js.rankOfHost[host]];
    uint32_t per = js.groupOps[g].size();
    uint32_t op = js.groupOps[g][call % per];

    NS_ABORT_MSG_IF(call / per != r->iter || !r->collBusy[g],
                    "host " << host << ": collective " << call << " ended out of turn");
    EndOp(r, op);
}

bool
WorkloadDriver::Done() const
{
    for (const JobState& js : m_jobs)
        for (const RankState& r : js.ranks)
            if (!r.done)
                return false;
    return true;
}

std::string
WorkloadDriver::Json() const
{
    std::ostringstream os;

    os << "{\"name\":" << json(m_w.name).dump() << ",\"source\":" << json(m_w.source).dump()
       << ",\"jobs\":[";
    for (uint32_t j = 0; j < m_jobs.size(); j++)
    {
        const JobState& js = m_jobs[j];
        const WorkloadJob& spec = *js.spec;
        uint64_t startNs = kFirstStartNs + spec.startNs, endNs = 0, computeNs = 0;
        std::vector<uint64_t> iterEnd(spec.iterations, 0);

        for (const RankState& r : js.ranks)
        {
            for (uint32_t i = 0; i < r.iterEndNs.size(); i++)
                iterEnd[i] = std::max(iterEnd[i], r.iterEndNs[i]);
            if (r.done)
                endNs = std::max(endNs, r.iterEndNs.back());
        }
        for (const WorkloadOp& op : spec.ops)
            computeNs += op.compute ? op.ns : 0;
        os << (j ? "," : "") << "\n{\"job\":" << spec.job << ",\"ranks\":" << spec.hosts.size()
           << ",\"groups\":" << spec.groups.size() << ",\"ops\":" << spec.ops.size()
           << ",\"iterations\":" << spec.iterations << ",\"start_ns\":" << startNs
           << ",\"end_ns\":" << endNs << ",\"jct_ns\":";
        bool jobDone = true;
        for (const RankState& r : js.ranks)
            jobDone &= r.done;
        if (jobDone)
            os << endNs - startNs;
        else
            os << "null";
        os << ",\"compute_ns_per_iteration\":" << computeNs << ",\"iteration_ns\":[";
        for (uint32_t i = 0; i < spec.iterations; i++)
        {
            uint64_t from = i ? iterEnd[i - 1] : startNs;
            os << (i ? "," : "");
            if (iterEnd[i] && from)
                os << iterEnd[i] - from;
            else
                os << "null";
        }
        os << "],\"op_times\":[";
        for (uint32_t o = 0; o < spec.ops.size(); o++)
        {
            const WorkloadOp& op = spec.ops[o];

            os << (o ? "," : "") << "\n {\"name\":" << json(op.name).dump() << ",\"kind\":\""
               << (op.compute ? "compute" : CollectiveName(op.coll)) << "\"";
            if (op.compute)
                os << ",\"ns\":" << op.ns;
            else
                os << ",\"group\":" << json(spec.groups[op.group].name).dump()
                   << ",\"bytes\":" << op.bytes;
            os << ",\"iterations\":[";
            for (uint32_t i = 0; i < spec.iterations; i++)
            {
                uint64_t first = UINT64_MAX, last = 0, sum = 0, n = 0;
                for (const RankState& r : js.ranks)
                {
                    const OpTimes& t = r.times[i][o];
                    if (!t.endNs)
                        continue;
                    first = std::min(first, t.startNs);
                    last = std::max(last, t.endNs);
                    sum += t.endNs - t.startNs;
                    n++;
                }
                os << (i ? "," : "");
                if (n < js.ranks.size())
                    os << "null";
                else
                    os << "{\"start_ns\":" << first << ",\"end_ns\":" << last
                       << ",\"span_ns\":" << last - first << ",\"mean_rank_ns\":" << sum / n
                       << "}";
            }
            os << "]}";
        }
        os << "]}";
    }
    os << "]}";
    return os.str();
}

} // namespace ns3
