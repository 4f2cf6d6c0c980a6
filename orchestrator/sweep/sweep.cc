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
#include "orchestrator/fabric/fabric_driver.h"
#include "orchestrator/fabric/fabric_run.h"
#include "orchestrator/fabric/fabric_sweep.h"
#include "orchestrator/launch/clock_offset.h"
#include "orchestrator/launch/launcher.h"
#include "orchestrator/launch/slurm_launcher.h"
#include "orchestrator/run/point_recorder.h"
#include "orchestrator/run/progress.h"
#include "orchestrator/search/cliff.h"
#include "orchestrator/sweep/dry_run.h"
#include "orchestrator/sweep/matrix_sweep.h"
#include "orchestrator/sweep/resume.h"
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

// After a search sweep: the cliffs among every point whose last index status is ok (this run's
// and earlier ones'), appended to the index as one record and printed.
void report_cliffs(const Campaign& c, const Expansion& x, const std::string& dir,
                   IndexWriter& writer, std::ostream& out) {
  const CliffSpec& spec = *c.search->cliff;
  const std::vector<nlohmann::json> order = c.search->along_order();
  const auto index = read_index(dir + "/index.jsonl");
  std::vector<CliffObservation> observations;
  for (const auto& p : x.points) {
    auto it = index.find(p.id);
    if (p.skipped() || it == index.end() || it->second.status != "ok") continue;
    std::ifstream in(dir + "/" + p.id + ".json");
    if (!in) continue;
    const nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
    for (auto& o : cliff_observations(doc, p.values(), c.pair_name(p.pair), p.id, spec, order))
      observations.push_back(std::move(o));
  }
  const CliffScan scan = find_cliffs(observations, spec.threshold);
  writer.append(cliffs_record(spec, scan, utc_now()));
  print_cliffs(out, spec, scan);
  out.flush();
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
  if (fabric_spec(s.c) && !s.done.empty()) {
    // A fabric's round runs whole: the finished partners of a flow still to run run again.
    std::vector<const Point*> left;
    for (const auto& p : s.x.points)
      if (!p.skipped() && s.done.count(p.id) == 0) left.push_back(&p);
    for (const Point* p : with_round_partners(s.x, left)) s.done.erase(p->id);
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

// Run: a fabric's rounds (fabric_sweep.h), or the matrix's points (matrix_sweep.h).
void run_points(Sweep& s, const RunTools& t, std::ostream& out) {
  if (!fabric_spec(s.c)) {
    const MatrixSweepOutcome m =
        run_matrix_sweep(s.todo, MatrixSweepContext{s.c, s.launchers, t.token, t.halted, t.recorder,
                                                    t.progress, s.opt.jobs});
    s.finished += m.finished;
    s.failed += m.failed;
    return;
  }
  std::map<std::string, Launcher*> by_host;
  std::vector<std::unique_ptr<Launcher>> through_agents;
  for (auto& [h, l] : s.launchers) {
    by_host[h] = l.get();
    if (t.agents != nullptr && t.agents->has(h))
      by_host[h] = through_agents.emplace_back(t.agents->launcher(h)).get();
  }
  FabricSweepContext ctx{s.c,     s.x,      s.dir,      by_host,  s.host_cpus, s.host_clocks,
                         t.token, t.halted, t.recorder, t.writer, t.progress,  out};
  if (t.agents != nullptr)
    ctx.between_rounds = [&](std::map<std::string, ClockOffset>& clocks) {
      refresh_clocks_if_due(s, *t.agents, t.writer);
      clocks = s.host_clocks;
    };
  const FabricSweepOutcome f = run_fabric_sweep(s.todo, ctx);
  s.finished += f.finished;
  s.failed += f.failed;
  s.bad_links = f.bad_links;
}

// Summary: the final report lines (and a search's cliffs), and the exit status with what to do
// next.
int print_summary(const Sweep& s, IndexWriter& writer, const SweepHalt& halt,
                  const std::atomic<bool>& stop, std::ostream& out, std::ostream& err) {
  const Campaign& c = s.c;
  const bool interrupted = halt.flag().load() || stop.load();
  const bool allocation_ended = halt.allocation_ended() && !stop.load();
  out << "campaign '" << c.name << "': " << (s.finished - s.failed) << " ok, "
      << s.failed + s.left_out << " failed";
  if (s.left_out != 0) out << " (" << s.left_out << " left out with their hosts)";
  if (s.skipped != 0) out << ", " << s.skipped << " skipped";
  if (!s.done.empty()) out << ", " << s.done.size() << " done earlier";
  if (interrupted)
    out << ", " << (s.todo.size() - s.finished) << " not run ("
        << (allocation_ended ? "the allocation ended" : "interrupted") << ")";
  out << "; results in " << s.dir << std::endl;
  if (c.search && c.search->cliff && !interrupted) {
    try {
      report_cliffs(c, s.x, s.dir, writer, out);
    } catch (const std::exception& e) {
      err << "rdmabench: error: cannot look for cliffs: " << e.what() << std::endl;
    }
  }
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

std::vector<DriverKind> campaign_kinds() { return {fabric_kind()}; }

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
  if (x.points.empty())
    throw ConfigError(opt.campaign_file + ": /exclude", "(everything)",
                      "a campaign with at least one point left");
  plan_sweep(s, err);
  if (opt.dry_run) {
    print_dry_run(out, c, x, s.launchers, s.done, s.dir);
    return 0;
  }
  start_sweep(s, out);
  // A fabric's host checks are its agents' hellos (agent_checks.cc); the others' are commands.
  const bool through_agents = fabric_through_agents(s);
  if (!through_agents && !check_hosts(s, err)) {
    disconnect_all(s);
    return 1;
  }

  IndexWriter writer(s.index_path);
  record_skipped(s, writer);
  const std::string token = c.token.empty() ? random_token() : c.token;
  std::unique_ptr<AgentHub> agents = through_agents ? start_agents(s, token, err) : nullptr;
  leave_out_failed_hosts(s, writer);
  Progress progress(err, stderr_is_terminal(), s.todo.size());
  SweepHalt halt(stop, c.allocation ? c.allocation->job_id : std::string());
  // A failed point may be the allocation's end: asked at once, before anything more starts.
  PointRecorder recorder(c, s.dir, writer, progress, [&halt] { halt.check_now(); });
  run_points(s, RunTools{token, progress, halt.flag(), recorder, writer, agents.get()}, out);
  progress.close();
  if (agents) s.lost_agents = agents->lost_after_hello();
  agents.reset();  // bye: every agent ends its sessions and exits
  disconnect_all(s);
  return print_summary(s, writer, halt, stop, out, err);
}

}  // namespace rdmabench
