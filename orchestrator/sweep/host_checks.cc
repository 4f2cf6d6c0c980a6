#include <mutex>
#include <thread>

#include "base/error.h"
#include "base/file_text.h"
#include "base/utc_time.h"
#include "model/host_env_record.h"
#include "model/result.h"
#include "orchestrator/launch/host_env.h"
#include "orchestrator/sweep/sweep_state.h"

// The host checks by command (host pairs; sweep_state.h): every rdmabench path a host uses runs,
// then its environment once and, for a fabric, its clock offset.
namespace rdmabench {
namespace {

// One host, on a thread of its own: every rdmabench path it uses runs; then its environment
// once (DIR/env/<host>.json) and, for a fabric, its clock offset. What the sweep keeps of it
// (failures, bad paths, CPUs, clock) is written under `mu`.
void check_one_host(Sweep& s, const std::string& host, const HostUse& use, std::mutex& mu,
                    std::vector<std::string>& failures, std::ostream& err) {
  const Campaign& c = s.c;
  Launcher& l = *s.launchers.at(host);
  try {
    std::string good;  // a path that passed, for the environment
    std::string first_error;
    for (const auto& path : use.paths) {
      try {
        // (+20 s: the first run of a large binary from a network file system, the testbed's 9p
        // or NFS, may take that long; an unreachable host fails at the connection.)
        check_host(l, path, c.connect_timeout_s + 20);
        if (good.empty() || path == use.rdmabench) good = path;
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lock(mu);
        s.bad_paths[{host, path}] = e.what();
        if (first_error.empty()) first_error = e.what();
      }
    }
    if (good.empty()) throw Error(first_error);
    if (!first_error.empty()) {
      std::lock_guard<std::mutex> lock(mu);
      failures.push_back("host check failed for " + join(use.roles) + ": " + first_error);
    }
    const nlohmann::json env = capture_host_env(l, good, c.connect_timeout_s + 20);
    // The clock offsets serve the synchronised start and windows of points measured together
    // (a fabric's rounds) only.
    std::optional<ClockOffset> clock;
    if (c.driver->measures_together()) clock = measure_clock_offset(l, 5, c.connect_timeout_s + 5);
    const std::optional<unsigned> cpus =
        write_host_env(s, host, env, clock ? &*clock : nullptr, err);
    std::lock_guard<std::mutex> lock(mu);
    if (clock) s.host_clocks[host] = *clock;
    if (cpus) s.host_cpus[host] = *cpus;
  } catch (const std::exception& e) {
    std::lock_guard<std::mutex> lock(mu);
    for (const auto& path : use.paths) s.bad_paths.try_emplace({host, path}, e.what());
    failures.push_back("host check failed for " + join(use.roles) + ": " + e.what());
  }
}

}  // namespace

std::optional<unsigned> write_host_env(const Sweep& s, const std::string& host,
                                       const nlohmann::json& env, const ClockOffset* clock,
                                       std::ostream& err) {
  const std::string path = s.dir + "/env/" + slug(host, 80) + ".json";
  HostEnvRecord r;
  try {
    r = host_env_record_from_json(env);
  } catch (const ConfigError& e) {
    // What a host sent that does not read as the record (an agent of another version): kept as
    // it came, and said.
    err << "rdmabench: warning: " << host << ": its environment does not read as a record ("
        << e.what() << "); " << path << " holds it as captured\n";
    nlohmann::json raw = env;
    if (clock != nullptr) raw["clock_offset"] = to_json(*clock);
    write_file_atomic(path, raw.dump(2) + "\n");
    return std::nullopt;
  }
  if (clock != nullptr) r.clock_offset = *clock;
  write_file_atomic(path, to_json(r).dump(2) + "\n");
  if (r.devices_error)
    err << "rdmabench: warning: " << host
        << ": 'rdmabench devices --json' failed: " << *r.devices_error << "\n";
  return r.cpus;
}

bool check_hosts(Sweep& s, std::ostream& err) {
  std::mutex mu;
  std::vector<std::string> failures;
  std::vector<std::thread> threads;
  for (auto& [h, u] : s.hosts) {
    threads.emplace_back(
        [&, host = h, use = u] { check_one_host(s, host, use, mu, failures, err); });
  }
  for (auto& t : threads) t.join();
  if (!failures.empty() && s.c.driver->measures_together()) {
    // Points measured together go on without them: theirs are left out (recorded failed below).
    for (const auto& f : failures) err << "rdmabench: " << f << "\n";
    for (const auto& [host_path, why] : s.bad_paths)
      for (const std::string& line : s.c.driver->left_out(host_path.first, host_path.second))
        err << "rdmabench: " << line << "\n";
  } else if (!failures.empty()) {
    for (const auto& f : failures) err << "rdmabench: " << f << "\n";
    err << "rdmabench: no point was run" << std::endl;
    return false;
  }
  return true;
}

}  // namespace rdmabench
