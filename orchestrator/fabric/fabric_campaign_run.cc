// The fabric driver's side of a sweep (FabricDriver::start_run, run/campaign_run.h).
#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "base/file_text.h"
#include "base/heap_policy.h"
#include "base/utc_time.h"
#include "model/result.h"
#include "orchestrator/fabric/fabric_driver.h"
#include "orchestrator/fabric/fabric_judging.h"
#include "orchestrator/fabric/fabric_point.h"
#include "orchestrator/fabric/fabric_run.h"
#include "orchestrator/fabric/fabric_verdicts.h"
#include "orchestrator/fabric/probe_verdicts.h"
#include "orchestrator/fabric/round_summary.h"
#include "orchestrator/fabric/start_delay.h"
#include "orchestrator/run/campaign_run.h"
#include "orchestrator/run/point_runner.h"

namespace rdmabench {
namespace {

// Measures each suspect link's combination again with nothing else running and settles its
// verdicts; the retests' documents and logs are kept.
void retest_suspects(std::vector<LinkVerdict>& verdicts, const RunSetup& ctx) {
  const VerdictCriteria& crit = fabric_spec(ctx.campaign)->verdicts;
  std::map<std::string, const Point*> by_id;
  for (const Point& p : ctx.expansion.points) by_id[p.id] = &p;
  std::map<std::string, PointOutcome> done;  // by the retest's point id
  for (LinkVerdict& v : verdicts) {
    if (v.verdict != "suspect") continue;
    if (!crit.retest || ctx.stop.load()) {
      settle(v, std::nullopt, "the sweep was interrupted", crit);
      continue;
    }
    Point alone = *by_id.at(v.point_id);
    alone.id += "-alone";
    auto it = done.find(alone.id);
    if (it == done.end()) {
      const HostPair pair = ctx.campaign.pair(alone.pair);
      ctx.out << "retest alone: " << pair.name << " (" << alone.id << ")" << std::endl;
      PointOutcome o;
      try {
        o = run_point(alone, PointContext{pair, *ctx.launchers.at(pair.server.host),
                                          *ctx.launchers.at(pair.client.host), ctx.token,
                                          ctx.campaign.timeout_s, ctx.stop});
      } catch (const std::exception& e) {
        o.error = e.what();
      }
      std::error_code ec;
      std::filesystem::create_directories(ctx.dir + "/retest", ec);
      if (o.brief.document)
        write_file_atomic(ctx.dir + "/retest/" + alone.id + ".json",
                          with_member(o.document, "point",
                                      {{"campaign", ctx.campaign.name},
                                       {"point_id", alone.id},
                                       {"retest_of", v.point_id},
                                       {"host_pair", pair.name},
                                       {"matrix", alone.values()}}) +
                              "\n");
      ctx.recorder.write_logs(alone.id, o);
      it = done.emplace(alone.id, std::move(o)).first;
    }
    const PointOutcome& o = it->second;
    settle(v, o.ok ? o.brief.figure(v.size, v.metric) : std::nullopt,
           o.error.empty() ? "no figure for this size" : o.error.substr(0, o.error.find('\n')),
           crit);
  }
}

// Port counters count a whole port: a flow's deltas are its link's own only when no other link of
// its round used a port of its ends (a host's device, however many host names it has); a probe on
// the flow's own link is the same link. For each member, whether its deltas are shared (its
// result's point.fabric.counters_shared).
std::vector<bool> counters_shared(const Campaign& c,
                                  const std::vector<FabricRun::Member>& members) {
  std::vector<std::set<std::string>> ports;  // each member's one or two ports
  std::map<std::string, std::set<size_t>> links_on;
  for (const FabricRun::Member& m : members) {
    const HostPair p = c.pair(m.point->pair);
    ports.push_back(
        {p.client.host + '\n' + p.client.device, p.server.host + '\n' + p.server.device});
    for (const std::string& port : ports.back()) links_on[port].insert(m.point->pair);
  }
  std::vector<bool> shared;
  shared.reserve(members.size());
  for (const auto& mine : ports)
    shared.push_back(std::any_of(mine.begin(), mine.end(), [&](const std::string& port) {
      return links_on[port].size() > 1;
    }));
  return shared;
}

// The rounds of `setup.todo` one batch each (planned when the run starts: the plan, 31 MiB at a
// million flows, is freed before the verdicts), each round's record written when its outcomes
// come back; then, over every flow of the campaign that has a result (this sweep's and earlier
// ones'), the per-link verdicts, each suspect measured again alone, and the probes' verdicts.
class FabricCampaignRun : public CampaignRun {
 public:
  explicit FabricCampaignRun(const RunSetup& setup)
      : s_(setup),
        spec_(*fabric_spec(setup.campaign)),
        run_(plan_fabric_run(setup.campaign, setup.expansion, setup.todo, setup.host_cpus)),
        start_delay_(spec_.start_delay_s) {
    if (spec_.probes) {
      std::set<std::string> notes;
      for (const auto& work : s_.expansion.combinations)
        if (const std::string n = probe_placement_note(*spec_.probes, work->values);
            !n.empty() && notes.insert(n).second)
          s_.out << n << std::endl;
    }
    if (!run_->note.empty()) s_.out << run_->note << std::endl;
  }

  std::optional<Batch> next() override {
    if (next_group_ >= run_->groups.size()) return std::nullopt;
    const FabricRun::Group& g = run_->groups[next_group_++];
    shared_ = counters_shared(s_.campaign, g.members);
    idle_round_ = FabricPoint(*g.members.front().point).idle_probe();
    Batch b;
    b.round = true;
    b.start_delay_s = start_delay_.next();
    for (size_t i = 0; i < g.members.size(); ++i) {
      const FabricRun::Member& m = g.members[i];
      nlohmann::json fields = run_->fields(m);
      fields["fabric"]["counters_shared"] = static_cast<bool>(shared_[i]);
      if (FabricPoint(*m.point).probe()) fields["fabric"]["probe"] = idle_round_ ? "idle" : "load";
      b.points.push_back(
          {m.point, s_.campaign.pair(m.point->pair), run_->server_name(m), std::move(fields)});
    }
    return b;
  }

  void done(const Batch& b, const std::vector<PointOutcome>& outcomes) override {
    const FabricRun::Group& g = run_->groups[next_group_ - 1];
    start_delay_.observe(b.start_delay_s, outcomes);
    std::vector<RoundFlowResult> results;
    std::vector<RoundProbe> round_probes;
    for (size_t i = 0; i < g.members.size(); ++i) {
      const FabricRun::Member& m = g.members[i];
      const Point& p = *m.point;
      const PointOutcome& o = outcomes[i];
      const auto clock = s_.clocks.find(b.points[i].pair.client.host);
      const ClockOffset offset = clock != s_.clocks.end() ? clock->second : ClockOffset{};
      RoundFlowResult r{run_->server_name(m), run_->client_name(m),
                        o.ok ? std::optional(o.brief) : std::nullopt, offset.offset_s,
                        offset.uncertainty_s};
      if (!FabricPoint(p).probe()) {
        if (o.ok) measured_.keep(p, o.brief, shared_[i]);
        results.push_back(std::move(r));
        continue;
      }
      if (o.ok) {
        probes_.add(p, o.brief);
      } else {
        probes_.add_failed(p, o.error.empty() ? "failed" : o.error);
      }
      if (idle_round_ && o.ok)
        for (const SizeBrief& sz : o.brief.sizes)
          if (sz.p99_ns) idle_p99_[p.pair][sz.size] = *sz.p99_ns;
      if (idle_round_) results.push_back(r);
      round_probes.push_back(
          {std::move(r), idle_round_ ? std::map<uint64_t, double>{} : idle_p99_[p.pair]});
    }
    const nlohmann::json first = run_->fields(g.members.front())["fabric"];
    const Point& lead = *g.members.front().point;
    const RoundRecord summary =
        summarize_round(first["round"], first["round_index"], lead.repetition,
                        round_work(s_.expansion, lead)->values, results, utc_now(), round_probes);
    s_.writer.append(to_json(summary));
    s_.progress.note(round_line(summary, run_->rounds));
  }

  size_t finish() override {
    // What the rounds freed (the plan, a million flows' small allocations) goes back to the
    // system before the verdicts take their tables: 47 MiB of RSS at a million flows.
    run_.reset();
    return_free_heap();
    s_.progress.close();
    const Campaign& c = s_.campaign;
    size_t ok_links = 0;  // judged ok: counted, not listed
    std::vector<LinkVerdict> verdicts = judge_fabric(c, s_.expansion, s_.dir, measured_, ok_links);
    retest_suspects(verdicts, s_);
    VerdictsRecord record = make_verdicts_record(verdicts, spec_.verdicts, utc_now(), ok_links);
    std::vector<std::string> lines = verdict_lines(verdicts, ok_links);
    if (spec_.probes) {
      add_earlier_probes(s_.expansion, s_.dir, probes_);
      size_t ok_probes = 0;
      const std::vector<ProbeVerdict> pv =
          probes_.finish(c, s_.expansion, spec_.verdicts, ok_probes);
      record.probes = summarize_probe_verdicts(pv, ok_probes, spec_.verdicts);
      for (std::string& line : probe_verdict_lines(pv, ok_probes)) lines.push_back(std::move(line));
    }
    s_.writer.append(to_json(record));
    for (const std::string& line : lines) s_.out << line << "\n";
    s_.out.flush();
    // Exit status 6: a bad link, or a lossy one (whatever its other verdict).
    size_t bad = 0;
    for (const LinkVerdict& v : verdicts) bad += v.verdict == "bad" || v.lossy ? 1 : 0;
    return bad;
  }

 private:
  const RunSetup& s_;
  const FabricSpec& spec_;
  std::optional<FabricRun> run_;
  StartDelay start_delay_;
  size_t next_group_ = 0;
  std::vector<bool> shared_;  // the current round's members: counters shared with another link
  bool idle_round_ = false;   // the current round is the idle probes'
  MeasuredFlows measured_;    // the load flows' figures, for the verdicts
  ProbeJudge probes_;         // the probes' briefs, for their verdicts
  std::map<size_t, std::map<uint64_t, double>> idle_p99_;  // probe link -> size -> idle p99
};

}  // namespace

std::vector<const Point*> FabricDriver::to_run(const Expansion& x,
                                               std::vector<const Point*> left) const {
  return with_round_partners(x, left);
}

std::shared_ptr<CampaignRun> FabricDriver::start_run(const RunSetup& setup) const {
  return std::make_shared<FabricCampaignRun>(setup);
}

}  // namespace rdmabench
