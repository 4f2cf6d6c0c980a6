#include "orchestrator/sweep/sweep.h"

#include <sys/stat.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <ostream>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "base/error.h"
#include "base/temp_dir.h"
#include "base/utc_time.h"
#include "model/result.h"
#include "orchestrator/campaign/campaign.h"
#include "orchestrator/campaign/point_id.h"
#include "orchestrator/fabric/fabric_run.h"
#include "orchestrator/fabric/fabric_sweep.h"
#include "orchestrator/launch/clock_offset.h"
#include "orchestrator/launch/host_env.h"
#include "orchestrator/launch/launcher.h"
#include "orchestrator/launch/slurm_launcher.h"
#include "orchestrator/search/cliff.h"
#include "orchestrator/sweep/dry_run.h"
#include "orchestrator/sweep/point_recorder.h"
#include "orchestrator/sweep/point_runner.h"
#include "orchestrator/sweep/progress.h"
#include "orchestrator/sweep/resume.h"
#include "orchestrator/sweep/sweep_halt.h"

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

struct HostUse {
  std::string rdmabench;        // the first rdmabench path seen for the host (env capture)
  std::set<std::string> paths;  // every rdmabench path to check
  std::set<std::string> roles;  // "pair 'x' server", ...
};

std::string join(const std::set<std::string>& s) {
  std::string out;
  for (const auto& x : s) out += (out.empty() ? "" : ", ") + x;
  return out;
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

}  // namespace

int run_sweep(const SweepOptions& opt, std::ostream& out, std::ostream& err,
              const std::atomic<bool>& stop) {
  if (opt.jobs < 1 || opt.jobs > 256)
    throw ConfigError("jobs", std::to_string(opt.jobs), "from 1 to 256");
  const Campaign c = load_campaign(opt.campaign_file, self_exe(),
                                   CampaignOptions{opt.launcher, find_slurm_allocation});
  const Expansion x = expand(c);
  const std::string dir = opt.out_dir.empty() ? "out/" + slug(c.name, 60) : opt.out_dir;
  if (x.points.empty())
    throw ConfigError(opt.campaign_file + ": /exclude", "(everything)",
                      "a campaign with at least one point left");

  // Hosts and how they are used.
  std::map<std::string, HostUse> hosts;
  auto use = [&](const HostSpec& spec, const std::string& role) {
    HostUse& u = hosts[spec.host];
    if (u.rdmabench.empty()) u.rdmabench = spec.rdmabench;
    u.paths.insert(spec.rdmabench);
    u.roles.insert(role);
  };
  if (c.fabric) {  // by host, not by link: a fabric has up to a million links
    for (const FabricHost& h : c.fabric->hosts) use(h.spec, "fabric host '" + h.name + "'");
  } else {
    for (const auto& pair : c.pairs) {
      use(pair.server, "host pair '" + pair.name + "' server");
      use(pair.client, "host pair '" + pair.name + "' client");
    }
  }

  // Resume state.
  const std::string index_path = dir + "/index.jsonl";
  std::set<std::string> done;
  std::map<std::string, IndexEntry> index;
  std::error_code ec;
  if (opt.resume) {
    size_t bad = 0;
    index = read_index(index_path, &bad);
    if (bad != 0)
      err << "rdmabench: note: " << bad << " unreadable line(s) in " << index_path << " ignored\n";
    std::vector<std::string> ids;
    std::set<std::string> existing;
    for (const auto& p : x.points) {
      ids.push_back(p.id);
      if (fs::exists(dir + "/" + p.id + ".json", ec)) existing.insert(p.id);
    }
    done = done_points(ids, index, existing);
  } else if (!opt.dry_run && fs::exists(index_path, ec)) {
    throw ConfigError("--out", dir,
                      "a folder without an earlier sweep (it has index.jsonl): add --resume to "
                      "continue that sweep, or choose another --out");
  }

  std::unique_ptr<TempDir> control;  // ssh's control sockets; removed at the end
  bool any_ssh = false;
  for (const auto& [h, u] : hosts) any_ssh = any_ssh || (h != "local" && !c.allocation);
  if (any_ssh && !opt.dry_run)
    control = std::make_unique<TempDir>("rdmabench-ssh", control_dir_parent());
  std::map<std::string, std::unique_ptr<Launcher>> launchers;
  for (const auto& [h, u] : hosts) {
    if (h == "local") {
      launchers[h] = make_local_launcher();
    } else if (c.allocation) {
      launchers[h] =
          make_slurm_launcher(h, SlurmSettings{c.allocation->job_id, c.connect_timeout_s});
    } else {
      SshSettings s{c.ssh_config, c.connect_timeout_s,
                    control ? control->str() : std::string("/tmp/rdmabench-ssh.XXXXXX")};
      launchers[h] = make_ssh_launcher(h, s);
    }
  }

  if (c.fabric && !done.empty()) {
    // A fabric's round runs whole: the finished partners of a flow still to run run again.
    std::vector<const Point*> left;
    for (const auto& p : x.points)
      if (!p.skipped() && done.count(p.id) == 0) left.push_back(&p);
    for (const Point* p : with_round_partners(x, left)) done.erase(p->id);
  }

  if (opt.dry_run) {
    print_dry_run(out, c, x, launchers, done, dir);
    return 0;
  }

  // Points to run now.
  std::vector<const Point*> todo;
  size_t skipped = 0;
  for (const auto& p : x.points) {
    if (p.skipped()) {
      ++skipped;
    } else if (done.count(p.id) == 0) {
      todo.push_back(&p);
    }
  }
  make_dir(dir);
  make_dir(dir + "/env");
  make_dir(dir + "/logs");
  out << "campaign '" << c.name << "': " << x.points.size() << " points, " << todo.size()
      << " to run";
  if (skipped != 0) out << ", " << skipped << " skipped as invalid";
  if (!done.empty()) out << ", " << done.size() << " already done";
  out << "; results in " << dir << std::endl;

  // Hosts: reachable, rdmabench runs; environment once. In parallel, one thread per host.
  std::map<std::string, unsigned> host_cpus;       // online CPUs, where `nproc` told
  std::map<std::string, ClockOffset> host_clocks;  // each host's clock against this one's
  // (host, rdmabench path) -> why its check failed.
  std::map<std::pair<std::string, std::string>, std::string> bad_paths;
  {
    std::mutex mu;
    std::vector<std::string> failures;
    std::vector<std::thread> threads;
    for (auto& [h, u] : hosts) {
      threads.emplace_back([&, host = h, use = u] {
        Launcher& l = *launchers.at(host);
        try {
          std::string good;  // a path that passed, for the environment
          std::string first_error;
          for (const auto& path : use.paths) {
            try {
              check_host(l, path, c.connect_timeout_s + 5);
              if (good.empty() || path == use.rdmabench) good = path;
            } catch (const std::exception& e) {
              std::lock_guard<std::mutex> lock(mu);
              bad_paths[{host, path}] = e.what();
              if (first_error.empty()) first_error = e.what();
            }
          }
          if (good.empty()) throw Error(first_error);
          if (!first_error.empty()) {
            std::lock_guard<std::mutex> lock(mu);
            failures.push_back("host check failed for " + join(use.roles) + ": " + first_error);
          }
          nlohmann::json env = capture_host_env(l, good, c.connect_timeout_s + 20);
          // The clock offsets serve a fabric's synchronised start and windows only.
          ClockOffset clock;
          if (c.fabric) {
            clock = measure_clock_offset(l, 5, c.connect_timeout_s + 5);
            env["clock_offset"] = {{"offset_s", clock.offset_s},
                                   {"uncertainty_s", clock.uncertainty_s},
                                   {"samples", clock.samples}};
          }
          {
            std::lock_guard<std::mutex> lock(mu);
            if (c.fabric) host_clocks[host] = clock;
            if (env["cpus"].is_number_unsigned()) host_cpus[host] = env["cpus"].get<unsigned>();
          }
          write_file_atomic(dir + "/env/" + slug(host, 80) + ".json", env.dump(2) + "\n");
          if (env.contains("devices_error"))
            err << "rdmabench: warning: " + host + ": 'rdmabench devices --json' failed: " +
                       env["devices_error"].get<std::string>() + "\n";
        } catch (const std::exception& e) {
          std::lock_guard<std::mutex> lock(mu);
          for (const auto& path : use.paths) bad_paths.try_emplace({host, path}, e.what());
          failures.push_back("host check failed for " + join(use.roles) + ": " + e.what());
        }
      });
    }
    for (auto& t : threads) t.join();
    if (!failures.empty() && c.fabric) {
      // A fabric goes on without them: their links are left out (recorded failed below).
      for (const auto& f : failures) err << "rdmabench: " << f << "\n";
      for (const FabricHost& fh : c.fabric->hosts)
        if (bad_paths.count({fh.spec.host, fh.spec.rdmabench}) != 0)
          err << "rdmabench: fabric host " << fh.name << " is left out, with its links\n";
    } else if (!failures.empty()) {
      for (const auto& f : failures) err << "rdmabench: " << f << "\n";
      err << "rdmabench: no point was run" << std::endl;
      for (auto& [h, l] : launchers) l->disconnect();
      return 1;
    }
  }

  IndexWriter writer(index_path);
  // Skipped points: recorded once (a resumed sweep does not repeat them).
  for (const auto& p : x.points) {
    if (!p.skipped()) continue;
    auto it = index.find(p.id);
    if (it != index.end() && it->second.status == "skipped") continue;
    writer.append(index_line({.point_id = p.id,
                              .status = "skipped",
                              .error = p.skip_reason(),
                              .host_pair = c.pair_name(p.pair),
                              .repetition = p.repetition,
                              .time = utc_now()}));
  }

  // A fabric's links to hosts that failed their check: recorded failed, not run.
  size_t left_out = 0;
  if (!bad_paths.empty()) {
    std::vector<const Point*> runnable;
    for (const Point* p : todo) {
      const HostPair pair = c.pair(p->pair);
      std::string why;
      for (const HostSpec* h : {&pair.server, &pair.client})
        if (auto it = bad_paths.find({h->host, h->rdmabench}); it != bad_paths.end())
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
      ++left_out;
    }
    todo = std::move(runnable);
  }

  const std::string token = c.token.empty() ? random_token() : c.token;
  Progress progress(err, stderr_is_terminal(), todo.size());
  std::mutex mu;
  std::condition_variable cv;
  std::vector<bool> taken(todo.size(), false);
  std::set<std::string> busy;
  size_t finished = 0, failed = 0, next_hint = 0;
  unsigned active_workers = 0;

  SweepHalt halt(stop, c.allocation ? c.allocation->job_id : std::string());
  // A failed point may be the allocation's end: asked at once, before anything more starts.
  PointRecorder recorder(c, dir, writer, progress, [&halt] { halt.check_now(); });
  const std::atomic<bool>& halted = halt.flag();

  auto worker = [&] {
    std::unique_lock<std::mutex> lock(mu);
    for (;;) {
      // The first point not taken whose hosts are both free.
      size_t pick = todo.size();
      bool any_left = false;
      for (size_t i = next_hint; i < todo.size(); ++i) {
        if (taken[i]) continue;
        any_left = true;
        const HostPair pair = c.pair(todo[i]->pair);
        if (busy.count(pair.server.host) == 0 && busy.count(pair.client.host) == 0) {
          pick = i;
          break;
        }
      }
      if (halted.load() || !any_left) break;
      if (pick == todo.size()) {
        cv.wait_for(lock, std::chrono::milliseconds(200));
        continue;
      }
      taken[pick] = true;
      while (next_hint < todo.size() && taken[next_hint]) ++next_hint;
      const Point& p = *todo[pick];
      const HostPair pair = c.pair(p.pair);
      busy.insert(pair.server.host);
      busy.insert(pair.client.host);
      lock.unlock();

      progress.started(p.id);
      PointContext ctx{pair,
                       *launchers.at(pair.server.host),
                       *launchers.at(pair.client.host),
                       token,
                       c.timeout_s,
                       halted};
      PointOutcome o;
      try {
        o = run_point(p, ctx);
      } catch (const std::exception& e) {
        o.ok = false;
        o.error = e.what();
      }
      bool ok = false;
      try {
        ok = recorder.record(p, o, nlohmann::json::object());
      } catch (const std::exception& e) {
        progress.note(std::string("rdmabench: error: ") + e.what());
      }

      lock.lock();
      busy.erase(pair.server.host);
      busy.erase(pair.client.host);
      ++finished;
      if (!ok) ++failed;
      cv.notify_all();
    }
    --active_workers;
    cv.notify_all();
  };

  size_t bad_links = 0;
  if (c.fabric) {
    std::map<std::string, Launcher*> by_host;
    for (auto& [h, l] : launchers) by_host[h] = l.get();
    const FabricSweepOutcome f =
        run_fabric_sweep(todo, FabricSweepContext{c, x, dir, by_host, host_cpus, host_clocks, token,
                                                  halted, recorder, writer, progress, out});
    finished += f.finished;
    failed += f.failed;
    bad_links = f.bad_links;
  }
  const unsigned n_workers =
      c.fabric ? 0U
               : std::max(1U, std::min<unsigned>(opt.jobs, static_cast<unsigned>(todo.size())));
  std::vector<std::thread> workers;
  {
    std::lock_guard<std::mutex> lock(mu);
    active_workers = n_workers;
  }
  for (unsigned i = 0; i < n_workers; ++i) workers.emplace_back(worker);
  {
    std::unique_lock<std::mutex> lock(mu);
    while (active_workers > 0) {
      cv.wait_for(lock, std::chrono::seconds(1));
      lock.unlock();
      progress.tick();
      lock.lock();
    }
  }
  for (auto& t : workers) t.join();
  progress.close();
  for (auto& [h, l] : launchers) l->disconnect();

  const bool interrupted = halted.load() || stop.load();
  const bool allocation_ended = halt.allocation_ended() && !stop.load();
  out << "campaign '" << c.name << "': " << (finished - failed) << " ok, " << failed + left_out
      << " failed";
  if (left_out != 0) out << " (" << left_out << " left out with their hosts)";
  if (skipped != 0) out << ", " << skipped << " skipped";
  if (!done.empty()) out << ", " << done.size() << " done earlier";
  if (interrupted)
    out << ", " << (todo.size() - finished) << " not run ("
        << (allocation_ended ? "the allocation ended" : "interrupted") << ")";
  out << "; results in " << dir << std::endl;
  if (c.search && c.search->cliff && !interrupted) {
    try {
      report_cliffs(c, x, dir, writer, out);
    } catch (const std::exception& e) {
      err << "rdmabench: error: cannot look for cliffs: " << e.what() << std::endl;
    }
  }
  if (allocation_ended) {
    err << "rdmabench: Slurm allocation " << c.allocation->job_id
        << " ended (its time limit, or scancel): launched nothing more; finished results are "
           "kept. Continue in a new allocation of the same nodes with: rdmabench sweep "
        << opt.campaign_file << " --out " << dir << " --resume" << std::endl;
    return 1;
  }
  if (interrupted) {
    err << "rdmabench: interrupted: launched nothing more and stopped the running points; "
           "finished results are kept. Continue with: rdmabench sweep "
        << opt.campaign_file << " --out " << dir << " --resume" << std::endl;
    return 130;
  }
  if (failed + left_out != 0) {
    err << "rdmabench: " << failed + left_out << " point(s) failed (see " << index_path
        << "); rerun them with --resume" << std::endl;
    return 1;
  }
  if (bad_links != 0) {
    err << "rdmabench: " << bad_links << " link measurement(s) judged bad (the verdicts record in "
        << index_path << ")" << std::endl;
    return kSweepBadLink;
  }
  return 0;
}

}  // namespace rdmabench
