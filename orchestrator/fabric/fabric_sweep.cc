#include "orchestrator/fabric/fabric_sweep.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "base/file_text.h"
#include "base/heap_policy.h"
#include "base/utc_time.h"
#include "model/result.h"
#include "orchestrator/fabric/fabric_driver.h"
#include "orchestrator/fabric/fabric_judging.h"
#include "orchestrator/fabric/fabric_run.h"
#include "orchestrator/fabric/fabric_verdicts.h"
#include "orchestrator/fabric/probe_verdicts.h"
#include "orchestrator/fabric/round_runner.h"
#include "orchestrator/fabric/round_summary.h"
#include "orchestrator/fabric/start_delay.h"
#include "orchestrator/run/point_runner.h"

namespace rdmabench {
namespace {

// Measures each suspect link's combination again with nothing else running and settles its
// verdicts; the retests' documents and logs are kept.
void retest_suspects(std::vector<LinkVerdict>& verdicts, const FabricSweepContext& ctx) {
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

// What the rounds keep beside the load's figures: the probes' briefs for their verdicts, and each
// probe link's idle p99 by size for the round records' ratios.
struct ProbeState {
  ProbeJudge judge;
  std::map<size_t, std::map<uint64_t, double>> idle_p99;  // link -> size -> p99
};

// The rounds of `todo`, planned here (the plan, 31 MiB at a million flows, is freed before the
// verdicts): each flow recorded, its figures kept in `measured` (a load flow) or `probes` (a
// probe), each round's record written.
void run_rounds(const std::vector<const Point*>& todo, const FabricSweepContext& ctx,
                MeasuredFlows& measured, ProbeState& probes, FabricSweepOutcome& result) {
  const Campaign& c = ctx.campaign;
  const FabricRun run = plan_fabric_run(c, ctx.expansion, todo, ctx.host_cpus);
  if (!run.note.empty()) ctx.out << run.note << std::endl;
  StartDelay start_delay(fabric_spec(c)->start_delay_s);
  std::map<std::string, ClockOffset> clocks = ctx.host_clocks;  // refreshed between rounds
  for (const FabricRun::Group& g : run.groups) {
    if (ctx.stop.load()) break;
    std::vector<RoundFlow> flows;
    for (const FabricRun::Member& m : g.members) {
      flows.push_back({m.point, c.pair(m.point->pair), run.server_name(m)});
      ctx.progress.started(m.point->id);
    }
    const double delay = start_delay.next();
    const std::vector<PointOutcome> outcomes = run_round(
        flows, RoundContext{ctx.launchers, ctx.token, c.timeout_s, ctx.stop, delay, &clocks});
    start_delay.observe(delay, outcomes);
    const std::vector<bool> shared_ports = counters_shared(c, g.members);
    const bool idle_round = g.members.front().point->beside == kIdleProbe;
    std::vector<RoundFlowResult> results;
    std::vector<RoundProbe> round_probes;
    for (size_t i = 0; i < g.members.size(); ++i) {
      const FabricRun::Member& m = g.members[i];
      const Point& p = *m.point;
      const bool shared = shared_ports[i];
      nlohmann::json fields = run.fields(m);
      fields["fabric"]["counters_shared"] = shared;
      if (p.probe()) fields["fabric"]["probe"] = idle_round ? "idle" : "load";
      bool ok = false;
      try {
        ok = ctx.recorder.record(p, outcomes[i], fields);
      } catch (const std::exception& e) {
        ctx.progress.note(std::string("rdmabench: error: ") + e.what());
      }
      ++result.finished;
      if (!ok) ++result.failed;
      const auto clock = clocks.find(c.pair(p.pair).client.host);
      const ClockOffset offset = clock != clocks.end() ? clock->second : ClockOffset{};
      RoundFlowResult r{run.server_name(m), run.client_name(m),
                        ok ? std::optional(outcomes[i].brief) : std::nullopt, offset.offset_s,
                        offset.uncertainty_s};
      if (!p.probe()) {
        if (ok) measured.keep(p, outcomes[i].brief, shared);
        results.push_back(std::move(r));
        continue;
      }
      if (ok) {
        probes.judge.add(p, outcomes[i].brief);
      } else {
        probes.judge.add_failed(p, outcomes[i].error.empty() ? "failed" : outcomes[i].error);
      }
      if (idle_round && ok)
        for (const SizeBrief& s : outcomes[i].brief.sizes)
          if (s.p99_ns) probes.idle_p99[p.pair][s.size] = *s.p99_ns;
      if (idle_round) results.push_back(r);
      round_probes.push_back(
          {std::move(r), idle_round ? std::map<uint64_t, double>{} : probes.idle_p99[p.pair]});
    }
    const nlohmann::json first = run.fields(g.members.front())["fabric"];
    const Point& lead = *g.members.front().point;
    const RoundRecord summary =
        summarize_round(first["round"], first["round_index"], lead.repetition,
                        ctx.expansion.round_work(lead)->values, results, utc_now(), round_probes);
    ctx.writer.append(to_json(summary));
    ctx.progress.note(round_line(summary, run.rounds));
    if (ctx.between_rounds) ctx.between_rounds(clocks);
  }
}

}  // namespace

FabricSweepOutcome run_fabric_sweep(const std::vector<const Point*>& todo,
                                    const FabricSweepContext& ctx) {
  const Campaign& c = ctx.campaign;
  FabricSweepOutcome result;
  MeasuredFlows measured;
  ProbeState probes;
  if (fabric_spec(c)->probes) {
    std::set<std::string> notes;
    for (const auto& work : ctx.expansion.combinations)
      if (const std::string n = probe_placement_note(*fabric_spec(c)->probes, work->values);
          !n.empty() && notes.insert(n).second)
        ctx.out << n << std::endl;
  }
  run_rounds(todo, ctx, measured, probes, result);
  if (ctx.stop.load()) return result;
  // What the rounds freed (the plan, a million flows' small allocations) goes back to the system
  // before the verdicts take their tables: 47 MiB of RSS at a million flows.
  return_free_heap();

  ctx.progress.close();
  size_t ok_links = 0;  // judged ok: counted, not listed
  std::vector<LinkVerdict> verdicts = judge_fabric(c, ctx.expansion, ctx.dir, measured, ok_links);
  retest_suspects(verdicts, ctx);
  VerdictsRecord record =
      make_verdicts_record(verdicts, fabric_spec(c)->verdicts, utc_now(), ok_links);
  std::vector<std::string> lines = verdict_lines(verdicts, ok_links);
  if (fabric_spec(c)->probes) {
    add_earlier_probes(ctx.expansion, ctx.dir, probes.judge);
    size_t ok_probes = 0;
    const std::vector<ProbeVerdict> pv =
        probes.judge.finish(c, ctx.expansion, fabric_spec(c)->verdicts, ok_probes);
    record.probes = summarize_probe_verdicts(pv, ok_probes, fabric_spec(c)->verdicts);
    for (std::string& line : probe_verdict_lines(pv, ok_probes)) lines.push_back(std::move(line));
  }
  ctx.writer.append(to_json(record));
  for (const std::string& line : lines) ctx.out << line << "\n";
  ctx.out.flush();
  // Exit status 6 (fabric_sweep.h): a bad link, or a lossy one (whatever its other verdict).
  for (const LinkVerdict& v : verdicts) result.bad_links += v.verdict == "bad" || v.lossy ? 1 : 0;
  return result;
}

}  // namespace rdmabench
