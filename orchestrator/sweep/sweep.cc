#include "orchestrator/sweep/sweep.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <ostream>
#include <random>
#include <set>
#include <vector>

#include "base/error.h"
#include "base/heap_policy.h"
#include "base/temp_dir.h"
#include "base/utc_time.h"
#include "model/result.h"
#include "orchestrator/agent/agent_hub.h"
#include "orchestrator/campaign/campaign.h"
#include "orchestrator/campaign/point_id.h"
#include "orchestrator/fabric/fabric_driver.h"  // campaign_kinds(): the drivers it knows
#include "orchestrator/hunt/hunt_driver.h"
#include "orchestrator/launch/clock_offset.h"
#include "orchestrator/launch/launcher.h"
#include "orchestrator/launch/slurm_launcher.h"
#include "orchestrator/run/campaign_run.h"
#include "orchestrator/run/point_recorder.h"
#include "orchestrator/run/progress.h"
#include "orchestrator/sweep/dry_run.h"
#include "orchestrator/sweep/point_pool.h"
#include "orchestrator/sweep/resume.h"
#include "orchestrator/sweep/round_runner.h"
#include "orchestrator/sweep/sweep_halt.h"
#include "orchestrator/sweep/sweep_state.h"

namespace rdmabench {
namespace {

namespace fs = std::filesystem;

std::string self_exe() {
  std::error_code ec;
  fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("rdmabench") : p.string();
}

std::string random_token() {
  std::random_device rd;
  std::string t;
  const char* hex = "0123456789abcdef";
  for (int i = 0; i < 8; ++i) {
    uint32_t v = rd();
    for (int k = 0; k < 4; ++k) {
      t += hex[(v >> (8 * k + 4)) & 0xf];
      t += hex[(v >> (8 * k)) & 0xf];
    }
  }
  return t;
}

void make_dir(const std::string& d) {
  std::error_code ec;
  fs::create_directories(d, ec);
  if (ec) throw ConfigError("--out", d, "a folder that can be created (" + ec.message() + ")");
}

// The folder for ssh's control sockets: $TMPDIR when its path leaves room for the socket names
// (a Unix socket path has at most 107 characters; ssh binds "%C" (40) plus a temporary suffix
// (17) in our folder (21 more)), else /tmp.
fs::path control_dir_parent() {
  constexpr size_t kMaxBase = 107 - 21 - 1 - 40 - 17;
  const char* t = std::getenv("TMPDIR");
  if (t != nullptr && *t == '/' && std::strlen(t) <= kMaxBase) return t;
  return "/tmp";
}

// Hosts and how they are used.
void collect_hosts(Sweep& s) {
  auto use = [&](const HostSpec& spec, const std::string& role) {
    HostUse& u = s.hosts[spec.host];
    if (u.rdmabench.empty()) u.rdmabench = spec.rdmabench;
    u.paths.insert(spec.rdmabench);
    u.roles.insert(role);
  };
  s.c.driver->for_each_host(use);
}

// Resume state: the earlier index and the points it says are done. Without --resume, a folder
// of an earlier sweep is refused.
void read_resume_state(Sweep& s, std::ostream& err) {
  std::error_code ec;
  if (s.opt.resume) {
    size_t bad = 0;
    s.index = read_index(s.index_path, &bad);
    if (bad != 0)
      err << "rdmabench: note: " << bad << " unreadable line(s) in " << s.index_path
          << " ignored\n";
    std::vector<std::string> ids;
    std::set<std::string> existing;
    for (const auto& p : s.x.points) {
      ids.push_back(p.id);
      if (fs::exists(s.dir + "/" + p.id + ".json", ec)) existing.insert(p.id);
    }
    s.done = done_points(ids, s.index, existing);
    if (s.c.driver->adaptive_budget())  // it makes its points as it goes: every finished one
      for (const auto& [id, entry] : s.index)
        if (entry.status == "ok" && fs::exists(s.dir + "/" + id + ".json", ec)) s.done.insert(id);
  } else if (!s.opt.dry_run && fs::exists(s.index_path, ec)) {
    throw ConfigError("--out", s.dir,
                      "a folder without an earlier sweep (it has index.jsonl): add --resume to "
                      "continue that sweep, or choose another --out");
  }
}

// One launcher per host: local, slurm (inside an allocation) or ssh (sharing a folder of control
// sockets, made only when the sweep really runs).
void make_launchers(Sweep& s) {
  const Campaign& c = s.c;
  bool any_ssh = false;
  for (const auto& [h, u] : s.hosts) any_ssh = any_ssh || (h != "local" && !c.allocation);
  if (any_ssh && !s.opt.dry_run)
    s.control = std::make_unique<TempDir>("rdmabench-ssh", control_dir_parent());
  for (const auto& [h, u] : s.hosts) {
    if (h == "local") {
      s.launchers[h] = make_local_launcher();
    } else if (c.allocation) {
      s.launchers[h] =
          make_slurm_launcher(h, SlurmSettings{c.allocation->job_id, c.connect_timeout_s});
    } else {
      SshSettings settings{c.ssh_config, c.connect_timeout_s,
                           s.control ? s.control->str() : std::string("/tmp/rdmabench-ssh.XXXXXX")};
      s.launchers[h] = make_ssh_launcher(h, settings);
    }
  }
}

// Plan: the hosts, what is done already, the launchers; what the dry run prints.
void plan_sweep(Sweep& s, std::ostream& err) {
  collect_hosts(s);
  read_resume_state(s, err);
  make_launchers(s);
  if (!s.done.empty()) {
    // A driver may measure finished points again with those left (a fabric's round runs whole).
    std::vector<const Point*> left;
    for (const auto& p : s.x.points)
      if (!p.skipped() && s.done.count(p.id) == 0) left.push_back(&p);
    for (const Point* p : s.c.driver->to_run(s.x, std::move(left))) s.done.erase(p->id);
  }
}

// The points to run now, the output folders, and the sweep's first line.
void start_sweep(Sweep& s, std::ostream& out) {
  for (const auto& p : s.x.points) {
    if (p.skipped()) {
      ++s.skipped;
    } else if (s.done.count(p.id) == 0) {
      s.todo.push_back(&p);
    }
  }
  make_dir(s.dir);
  make_dir(s.dir + "/env");
  make_dir(s.dir + "/logs");
  if (s.c.driver->adaptive_budget()) {
    out << "campaign '" << s.c.name << "': " << s.c.driver->adaptive_start();
    if (!s.done.empty()) out << ", " << s.done.size() << " done earlier (read back)";
    out << "; results in " << s.dir << std::endl;
    return;
  }
  out << "campaign '" << s.c.name << "': " << s.x.points.size() << " points, " << s.todo.size()
      << " to run";
  if (s.skipped != 0) out << ", " << s.skipped << " skipped as invalid";
  if (!s.done.empty()) out << ", " << s.done.size() << " already done";
  out << "; results in " << s.dir << std::endl;
}

void disconnect_all(Sweep& s) {
  for (auto& [h, l] : s.launchers) l->disconnect();
}

// Skipped points: recorded once (a resumed sweep does not repeat them).
void record_skipped(const Sweep& s, IndexWriter& writer) {
  for (const auto& p : s.x.points) {
    if (!p.skipped()) continue;
    auto it = s.index.find(p.id);
    if (it != s.index.end() && it->second.status == "skipped") continue;
    writer.append(index_line({.point_id = p.id,
                              .status = "skipped",
                              .error = p.skip_reason(),
                              .host_pair = s.c.pair_name(p.pair),
                              .repetition = p.repetition,
                              .time = utc_now()}));
  }
}

// A fabric's links to hosts that failed their check: recorded failed, not run.
void leave_out_failed_hosts(Sweep& s, IndexWriter& writer) {
  if (s.bad_paths.empty()) return;
  std::vector<const Point*> runnable;
  for (const Point* p : s.todo) {
    const HostPair pair = s.c.pair(p->pair);
    std::string why;
    for (const HostSpec* h : {&pair.server, &pair.client})
      if (auto it = s.bad_paths.find({h->host, h->rdmabench}); it != s.bad_paths.end())
        why = "left out: its host failed the check: " + it->second;
    if (why.empty()) {
      runnable.push_back(p);
      continue;
    }
    writer.append(index_line({.point_id = p->id,
                              .status = "failed",
                              .error = why,
                              .host_pair = pair.name,
                              .repetition = p->repetition,
                              .time = utc_now()}));
    ++s.left_out;
  }
  s.todo = std::move(runnable);
}

// What the run step uses beyond the sweep's state; run_sweep keeps them alive to the summary.
struct RunTools {
  const std::string& token;
  Progress& progress;
  const std::atomic<bool>& halted;
  PointRecorder& recorder;
  IndexWriter& writer;
  AgentHub* agents = nullptr;  // a fabric's (its rounds run through them), or none
};

// One batch through the launchers, each point recorded: its points each on its own (the pool),
// or as a round.
BatchOutcome run_batch(const Batch& b, const Sweep& s, const RunTools& t,
                       const std::map<std::string, Launcher*>& by_host,
                       const std::map<std::string, ClockOffset>& clocks) {
  if (!b.round)
    return run_each_point(b, PointPoolContext{by_host, t.token, s.c.timeout_s, t.halted, t.recorder,
                                              t.progress, s.opt.jobs});
  std::vector<RoundFlow> flows;
  flows.reserve(b.points.size());
  for (const BatchPoint& bp : b.points) {
    flows.push_back({bp.point, bp.pair, bp.server_name});
    t.progress.started(bp.point->id);
  }
  std::vector<PointOutcome> ran = run_round(
      flows, RoundContext{by_host, t.token, s.c.timeout_s, t.halted, b.start_delay_s, &clocks});
  BatchOutcome result;
  result.outcomes.reserve(ran.size());
  for (size_t i = 0; i < ran.size(); ++i) {
    result.outcomes.push_back(
        t.recorder.record_outcome(*b.points[i].point, std::move(ran[i]), b.points[i].fields));
    ++result.finished;
    if (!result.outcomes.back().ok) ++result.failed;
  }
  return result;
}

// Run: the driver's batches one after another (run/campaign_run.h), each recorded and handed
// back; between them the clock offsets refreshed when due (agents); then, unless the sweep
// halted, the driver's finish (a fabric's verdicts). Returns the run, for its summary.
std::shared_ptr<CampaignRun> run_points(Sweep& s, const RunTools& t, std::ostream& out) {
  std::map<std::string, Launcher*> by_host;
  std::vector<std::unique_ptr<Launcher>> through_agents;
  for (auto& [h, l] : s.launchers) {
    by_host[h] = l.get();
    if (t.agents != nullptr && t.agents->has(h))
      by_host[h] = through_agents.emplace_back(t.agents->launcher(h)).get();
  }
  std::map<std::string, ClockOffset> clocks = s.host_clocks;
  const RunSetup setup{s.c,         s.x,    s.todo,  s.dir,   t.writer, t.progress, out,
                       s.host_cpus, clocks, by_host, t.token, t.halted, t.recorder, s.done};
  std::shared_ptr<CampaignRun> run = start_campaign_run(setup);
  while (!t.halted.load()) {
    const std::optional<Batch> b = run->next();
    if (!b) break;
    const BatchOutcome o = run_batch(*b, s, t, by_host, clocks);
    s.finished += o.finished;
    s.failed += o.failed;
    run->done(*b, o.outcomes);
    if (t.agents != nullptr) {
      refresh_clocks_if_due(s, *t.agents, t.writer);
      clocks = s.host_clocks;
    }
  }
  if (!t.halted.load()) s.bad_links = run->finish();
  return run;
}

// Summary: the final report lines (and the run's own: a search's cliffs), and the exit status
// with what to do next.
int print_summary(const Sweep& s, CampaignRun& run, IndexWriter& writer, const SweepHalt& halt,
                  const std::atomic<bool>& stop, std::ostream& out, std::ostream& err) {
  const Campaign& c = s.c;
  const bool interrupted = halt.flag().load() || stop.load();
  const bool allocation_ended = halt.allocation_ended() && !stop.load();
  out << "campaign '" << c.name << "': " << (s.finished - s.failed) << " ok, "
      << s.failed + s.left_out << " failed";
  if (s.left_out != 0) out << " (" << s.left_out << " left out with their hosts)";
  if (s.skipped != 0) out << ", " << s.skipped << " skipped";
  if (!s.done.empty()) out << ", " << s.done.size() << " done earlier";
  const bool adaptive = c.driver->adaptive_budget().has_value();
  if (interrupted && !adaptive)
    out << ", " << (s.todo.size() - s.finished) << " not run ("
        << (allocation_ended ? "the allocation ended" : "interrupted") << ")";
  if (interrupted && adaptive)
    out << " (" << (allocation_ended ? "the allocation ended" : "interrupted") << ")";
  out << "; results in " << s.dir << std::endl;
  if (!interrupted) run.summary(writer, out, err);
  if (allocation_ended) {
    err << "rdmabench: Slurm allocation " << c.allocation->job_id
        << " ended (its time limit, or scancel): launched nothing more; finished results are "
           "kept. Continue in a new allocation of the same nodes with: rdmabench sweep "
        << s.opt.campaign_file << " --out " << s.dir << " --resume" << std::endl;
    return 1;
  }
  if (interrupted) {
    err << "rdmabench: interrupted: launched nothing more and stopped the running points; "
           "finished results are kept. Continue with: rdmabench sweep "
        << s.opt.campaign_file << " --out " << s.dir << " --resume" << std::endl;
    return 130;
  }
  // A lost host fails its flows from then on: status 1, before 6 (a bad link is a verdict on
  // a campaign whose every point ran).
  for (const auto& [host, why] : s.lost_agents)
    err << "rdmabench: host " << host << " was lost mid-campaign (its agent: " << why
        << "); its later flows failed, the other hosts went on" << std::endl;
  if (adaptive) {  // its failed points are measurements (a hunt's "failed" term)
    if (s.bad_links == 0) return 0;
    err << "rdmabench: " << c.driver->adaptive_findings(s.bad_links) << " (its record in "
        << s.index_path << ")" << std::endl;
    return kSweepBadLink;
  }
  if (s.failed + s.left_out != 0) {
    err << "rdmabench: " << s.failed + s.left_out << " point(s) failed (see " << s.index_path
        << "); rerun them with --resume" << std::endl;
    return 1;
  }
  if (s.bad_links != 0) {
    err << "rdmabench: " << s.bad_links
        << " link measurement(s) judged bad or lossy (the verdicts record in " << s.index_path
        << ")" << std::endl;
    return kSweepBadLink;
  }
  return 0;
}

}  // namespace

std::vector<DriverKind> campaign_kinds() { return {fabric_kind(), hunt_kind()}; }

int run_sweep(const SweepOptions& opt, std::ostream& out, std::ostream& err,
              const std::atomic<bool>& stop) {
  if (opt.jobs < 1 || opt.jobs > 256)
    throw ConfigError("jobs", std::to_string(opt.jobs), "from 1 to 256");
  map_large_allocations();  // a large campaign's tables given back when freed (heap_policy.h)
  const Campaign c =
      load_campaign(opt.campaign_file, self_exe(),
                    CampaignOptions{opt.launcher, find_slurm_allocation, campaign_kinds()});
  const Expansion x = expand(c);
  Sweep s(opt, c, x);
  if (x.points.empty() && !c.driver->adaptive_budget())
    throw ConfigError(opt.campaign_file + ": /exclude", "(everything)",
                      "a campaign with at least one point left");
  plan_sweep(s, err);
  if (opt.dry_run) {
    print_dry_run(out, c, x, s.launchers, s.done, s.dir);
    return 0;
  }
  start_sweep(s, out);
  // Through agents (a fabric's), the host checks are their hellos (agent_checks.cc); else commands.
  const bool agents_run = through_agents(s);
  if (!agents_run && !check_hosts(s, err)) {
    disconnect_all(s);
    return 1;
  }

  IndexWriter writer(s.index_path);
  record_skipped(s, writer);
  const std::string token = c.token.empty() ? random_token() : c.token;
  std::unique_ptr<AgentHub> agents = agents_run ? start_agents(s, token, err) : nullptr;
  leave_out_failed_hosts(s, writer);
  Progress progress(err, stderr_is_terminal(), c.driver->adaptive_budget().value_or(s.todo.size()));
  SweepHalt halt(stop, c.allocation ? c.allocation->job_id : std::string());
  // A failed point may be the allocation's end: asked at once, before anything more starts.
  PointRecorder recorder(c, s.dir, writer, progress, [&halt] { halt.check_now(); });
  const std::shared_ptr<CampaignRun> run =
      run_points(s, RunTools{token, progress, halt.flag(), recorder, writer, agents.get()}, out);
  progress.close();
  if (agents) s.lost_agents = agents->lost_after_hello();
  agents.reset();  // bye: every agent ends its sessions and exits
  disconnect_all(s);
  return print_summary(s, *run, writer, halt, stop, out, err);
}

}  // namespace rdmabench
