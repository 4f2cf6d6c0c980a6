#include "cli/cmd_check.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <tuple>

#include "base/error.h"
#include "base/file_text.h"
#include "base/number_text.h"
#include "base/utc_time.h"
#include "base/version.h"
#include "cli/check_fabric.h"
#include "cli/exit_status.h"
#include "engine/local_host.h"
#include "engine/loopback_server.h"
#include "engine/node_facts.h"
#include "model/check_baseline.h"
#include "model/check_expectation.h"
#include "model/check_plan.h"
#include "model/workload_options.h"
#include "report/link_rate.h"
#include "report/results_set.h"
#include "verbs/device.h"

namespace rdmabench {
namespace {

using Steady = std::chrono::steady_clock;

constexpr double kDefaultMaxTime = 30;
constexpr double kDefaultDuration = 1;
// What a workload costs beyond its sizes' measurement: connecting, setting up, warming up (on
// an emulated guest up to a few seconds).
constexpr double kSetupAllowance = 3;

// --expect-file: one expectation a line, blank lines and # comments skipped.
std::vector<std::string> expectations_in(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError("expect-file", path, "a readable file of expectations, one a line");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    const size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    lines.push_back(line);
  }
  return lines;
}

// --baseline: an earlier check's document, or result documents (a folder, or one file).
std::vector<CheckExpectation> baseline_of(const std::string& path, double tolerance) {
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec)) {
    std::ifstream in(path);
    const nlohmann::json doc = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (!in.is_open() || doc.is_discarded())
      throw ConfigError("baseline", path,
                        "a readable check document (rdmabench check --json), result folder or "
                        "result document");
    if (doc.is_object() && doc.contains("expectations"))
      return baseline_expectations(doc, tolerance, path);
  }
  const std::vector<ResultFile> files = load_results({path}, std::cerr);
  std::vector<BaselineRun> runs;
  for (const ResultFile& f : files) runs.push_back({f.path, &f.run});
  return baseline_from_results(runs, tolerance);
}

// What the check found, as it goes.
struct CheckRun {
  std::string started;  // UTC, ISO 8601
  double seconds = 0;
  std::string device;
  CheckFacts facts;
  std::string server;  // the peer's address (--peer, or the loopback server's), "" without traffic
  uint16_t server_port = 0;
  std::vector<CheckExpectation> ex;
  std::vector<CheckOutcome> outcomes;
  std::vector<nlohmann::json> runs;
  int run_status = 0;  // the first workload that could not run: its status
};

// Runs one group's workload against `server`:`port` and judges its expectations.
void run_group(const TrafficGroup& g, const CheckArgs& a, const std::string& server, uint16_t port,
               double per_size_s, CheckRun& c) {
  ClientOptions copt;
  copt.server = server;
  copt.port = port;
  copt.local = a.local;
  copt.token = a.token;
  Workload& w = copt.workload;
  w.op = g.op;
  w.qp = g.qp;
  w.mode = g.mode;
  w.sizes = g.sizes;
  w.duration_s = per_size_s;
  w.warmup_s = per_size_s / 5;
  validate(w);
  const std::string transport = device_transport(a.local.device);
  w.connect = resolve_connect(w.connect, w.qp, transport);
  const RunResult r = run_client(copt, [](const SizeResult&) {});
  c.runs.push_back(r);
  const double link = link_capacity_gbps(r, false);
  for (size_t i : g.expectations) {
    const CheckExpectation& e = c.ex[i];
    const auto it = std::find_if(r.results.begin(), r.results.end(),
                                 [&](const SizeResult& s) { return s.size == e.size; });
    if (it != r.results.end())
      c.outcomes[i] = judge_traffic(e, *it, link);
    else
      c.outcomes[i] = failed_traffic(e, r.error.empty() ? "no result for this size" : r.error);
  }
  // A run that reached the peer's server and then failed (no progress through a slow link, a
  // completion error) measured the link: its expectations FAIL (exit 8). One that could not
  // reach or was refused by the server did not run: its own status.
  const bool reached = !r.server_device.is_null() && !r.server_device.empty();
  if (!r.error.empty() && !reached && c.run_status == 0) c.run_status = exit_status(r.failure);
}

void print_outcome(std::ostream& out, const CheckOutcome& o) {
  out << (o.pass ? "PASS  " : "FAIL  ") << o.expectation << ": " << outcome_detail(o) << "\n";
}

// The check's options as numbers, and the traffic's plan: each size's duration within
// --max-time.
struct CheckSettings {
  std::vector<TrafficGroup> groups;
  double max_time = kDefaultMaxTime;
  double per_size = 0;  // seconds each size is measured
  uint16_t port = kDefaultPort;
};

CheckSettings settings_of(const CheckArgs& a, std::vector<TrafficGroup> groups) {
  CheckSettings s;
  s.groups = std::move(groups);
  if (a.max_time) s.max_time = parse_seconds_option("max-time", *a.max_time, 1, 86400);
  const double duration =
      a.duration ? parse_seconds_option("duration", *a.duration, 0.1, 3600) : kDefaultDuration;
  if (a.port) s.port = static_cast<uint16_t>(parse_uint_option("port", *a.port, 1, 65535));
  if (!s.groups.empty() && a.peer.empty() && !a.loopback)
    throw ConfigError("peer", "",
                      "a server to run the traffic expectations against: --peer HOST "
                      "(a running rdmabench server) or --loopback");
  if (!a.peer.empty() && a.loopback)
    throw ConfigError("loopback", "with --peer " + a.peer, "one of --peer HOST and --loopback");
  size_t sizes = 0;
  for (const auto& g : s.groups) sizes += g.sizes.size();
  const double budget = s.max_time - kSetupAllowance * static_cast<double>(s.groups.size());
  if (sizes > 0) s.per_size = std::min(duration, budget / (1.2 * static_cast<double>(sizes)));
  return s;
}

// Why the traffic cannot run ("" when it can): the port not ACTIVE, or no time left.
std::string why_not_run(const CheckSettings& s, const CheckFacts& facts) {
  const std::string state = facts["port"].value("state", std::string("unknown"));
  if (state != "ACTIVE") return "not run: the port is " + state;
  if (s.per_size < 0.05)
    return "not run: --max-time " + three_digits(s.max_time) + " s leaves no time for the sizes";
  return "";
}

// Runs every traffic group (against --peer, or a loopback server of its own) and judges it.
void run_traffic(const CheckArgs& a, const CheckSettings& s, CheckRun& c) {
  if (s.groups.empty()) return;
  const std::string not_run = why_not_run(s, c.facts);
  if (!not_run.empty()) {
    for (const auto& g : s.groups)
      for (size_t i : g.expectations) {
        c.outcomes[i] = failed_traffic(c.ex[i], "");
        c.outcomes[i].reason = not_run;
      }
    return;
  }
  std::unique_ptr<LoopbackServer> loopback;
  c.server = a.peer;
  c.server_port = s.port;
  if (a.loopback) {
    ServerOptions sopt;
    sopt.local = a.local;
    sopt.token = a.token;
    loopback = std::make_unique<LoopbackServer>(sopt, 30);
    c.server = loopback->address();
    c.server_port = loopback->port();
  }
  for (const auto& g : s.groups) run_group(g, a, c.server, c.server_port, s.per_size, c);
}

// The lines, the verdict line and --json; how many expectations failed.
size_t report_check(const CheckArgs& a, const CheckRun& c) {
  size_t failed = 0;
  std::string first_failed;
  for (const auto& o : c.outcomes)
    if (!o.pass && failed++ == 0) first_failed = o.expectation;
  std::ostream& out = a.json_file == "-" ? std::cerr : std::cout;
  for (const auto& o : c.outcomes) print_outcome(out, o);
  const std::string n = std::to_string(c.outcomes.size());
  out << "check: "
      << (failed == 0 ? "PASS, " + n + " of " + n + " expectations hold"
                      : "FAIL, " + std::to_string(failed) + " of " + n +
                            " failed, the first: " + first_failed)
      << " (" << c.device << " port " << a.local.port
      << (c.server.empty() ? "" : ", peer " + c.server + ":" + std::to_string(c.server_port))
      << ", " << std::lround(c.seconds) << " s)" << std::endl;
  if (a.json_file.empty()) return failed;
  const nlohmann::json doc = {{"check",
                               {{"tool", "rdmabench"},
                                {"tool_version", kVersion},
                                {"start_time", c.started},
                                {"seconds", c.seconds},
                                {"host", local_host_info().hostname},
                                {"device", c.device},
                                {"port", a.local.port},
                                {"peer", a.loopback ? std::string("loopback") : a.peer}}},
                              {"verdict", failed == 0 ? "PASS" : "FAIL"},
                              {"facts", c.facts},
                              {"expectations", c.outcomes},
                              {"runs", c.runs}};
  if (a.json_file == "-")
    std::cout << doc.dump(2) << std::endl;
  else
    write_file_atomic(a.json_file, doc.dump(2) + "\n");
  return failed;
}

// --fabric and its --out (check_fabric.h).
void add_fabric_options(CLI::App* check, CheckArgs& a) {
  check
      ->add_option("--fabric", a.fabric,
                   "check every host of a campaign's fabric (its hosts, launcher and agents): a "
                   "ring of flows, each host the client of one link and the server of another; "
                   "per-link lines, then a verdict per host (FAIL when its own expectations or "
                   "both of its links fail)")
      ->type_name("CAMPAIGN_FILE")
      ->check(path_not_option());
  check
      ->add_option("--out", a.out_dir,
                   "--fabric: where the ring's sweeps write (default out/check-NAME)")
      ->type_name("OUT_DIR")
      ->check(path_not_option());
}

}  // namespace

// The expectations given (-e, then --expect-file's), and the defaults: the port ACTIVE and a
// usable GID, unless given.
std::vector<CheckExpectation> check_expectations(const CheckArgs& a) {
  std::vector<std::string> texts = a.expect;
  if (!a.expect_file.empty())
    for (auto& line : expectations_in(a.expect_file)) texts.push_back(std::move(line));
  std::vector<CheckExpectation> ex;
  for (const auto& t : texts) ex.push_back(parse_check_expectation(t));
  if (!a.baseline.empty()) {
    const double tolerance =
        a.tolerance ? parse_number_option("tolerance", *a.tolerance, 0, 100, "%") / 100 : 0.1;
    for (auto& e : baseline_of(a.baseline, tolerance)) ex.push_back(std::move(e));
  } else if (a.tolerance) {
    throw ConfigError("tolerance", *a.tolerance, "--tolerance with --baseline only");
  }
  const auto given = [&](CheckSubject s) {
    return std::any_of(ex.begin(), ex.end(), [&](const auto& e) { return e.subject == s; });
  };
  if (!given(CheckSubject::kGid)) ex.insert(ex.begin(), parse_check_expectation("gid = usable"));
  if (!given(CheckSubject::kPortState))
    ex.insert(ex.begin(), parse_check_expectation("port state = ACTIVE"));
  return ex;
}

CLI::App* add_check_command(CLI::App& app, CheckArgs& a) {
  auto* check = app.add_subcommand(
      "check",
      "health check of this host's port and its link: expectations on the port's facts and on "
      "short workloads; exit 8 when one fails");
  add_local_options(check, a.local, a.local_args);
  check
      ->add_option("-e,--expect", a.expect,
                   "an expectation, repeatable: 'port state = ACTIVE', 'port mtu >= 4096', "
                   "'port speed >= 100 Gb/s', 'port width = 4x', 'gid = usable|roce-v2|roce-v1|"
                   "ib', 'fw >= 20.31', 'pcie width >= 16', 'pcie speed >= 16 GT/s', "
                   "'write bw 64K >= 90% of link', 'send ud bw 4K >= 20 Gb/s', 'read lat 8 p99 "
                   "<= 5us' (p50, p90, p99, p99.9, avg, max); 'port state = ACTIVE' and 'gid = "
                   "usable' are always checked unless given")
      ->type_name("EXPECTATION");
  check
      ->add_option("--expect-file", a.expect_file,
                   "more expectations from FILE, one a line (blank lines and lines starting "
                   "with # are skipped), after those of -e")
      ->type_name("EXPECT_FILE");
  check
      ->add_option("--baseline", a.baseline,
                   "an earlier check's --json document (each of its traffic figures becomes an "
                   "expectation on the same workload, within --tolerance), or result documents "
                   "(a folder or a file: each op, QP type, mode and size they measured, their "
                   "median Gb/s or p50)")
      ->type_name("BASELINE")
      ->check(path_not_option());
  check
      ->add_option("--tolerance", a.tolerance,
                   "--baseline's tolerance in percent: bandwidth at least (100 - P) % of the "
                   "baseline's, latency at most (100 + P) % (default 10)")
      ->type_name("PERCENT");
  check
      ->add_option("--peer", a.peer,
                   "a running rdmabench server to run the workloads against (rdmabench server "
                   "on the peer; check does not start it)")
      ->type_name("HOST");
  check->add_flag("--loopback", a.loopback,
                  "run the workloads against a server this check starts on its own device "
                  "(the device must reach itself: rxe, siw and most NICs do)");
  check->add_option("-p,--port", a.port, "the peer server's TCP port (default 18515)")
      ->type_name("PORT");
  check->add_option("--token", a.token, "shared secret (the peer server's)")
      ->envname("RDMABENCH_TOKEN")
      ->type_name("SECRET");
  check
      ->add_option("--duration", a.duration,
                   "seconds each size is measured (default 1; less when --max-time needs it)")
      ->type_name("SECONDS");
  check
      ->add_option("--max-time", a.max_time,
                   "the whole check's bound in seconds (default 30): the workloads' durations "
                   "shrink to fit, and what cannot fit fails with that reason")
      ->type_name("SECONDS");
  add_fabric_options(check, a);
  check
      ->add_option("--json", a.json_file,
                   "write the check's document to FILE (atomically; - : stdout)")
      ->type_name("CHECK_FILE")
      ->check(path_not_option());
  set_examples(
      check,
      "  rdmabench check                                        # port ACTIVE, a usable GID\n"
      "  rdmabench check -e 'port mtu >= 4096' -e 'port speed >= 200 Gb/s'\n"
      "  rdmabench check --peer node7 -e 'write bw 64K >= 90% of link' -e 'read lat 8 p99 <= "
      "5us'\n"
      "  rdmabench check --loopback -e 'send bw 4K >= 1 Gb/s' --json check.json\n"
      "  rdmabench check --fabric fabric.json -e 'write bw 64K >= 90% of link'   # every host\n"
      "Reads the device through libibverbs and sysfs: no root needed (a Slurm prolog runs it as "
      "root, which works too). With no --peer or --loopback only the port's facts are checked.\n");
  return check;
}

int run_check_command(CheckArgs& a) {
  const auto start = Steady::now();
  CheckRun c;
  c.started = utc_now();
  if (!a.fabric.empty()) {
    stop_on_signals();
    return run_fabric_check(a, check_expectations(a), a.json_file == "-" ? std::cerr : std::cout,
                            std::cerr, stop_flag());
  }
  if (!a.out_dir.empty()) throw ConfigError("out", a.out_dir, "--out with --fabric only");
  apply_local(a.local, a.local_args);
  c.ex = check_expectations(a);
  const CheckSettings set = settings_of(a, group_traffic(c.ex));
  std::signal(SIGPIPE, SIG_IGN);

  const Device d = Device::open(a.local.device);
  c.device = d.info().name;
  c.facts = node_facts(d, a.local.port);
  c.outcomes.resize(c.ex.size());
  for (size_t i = 0; i < c.ex.size(); ++i)
    if (!c.ex[i].traffic()) c.outcomes[i] = judge_node(c.ex[i], c.facts);
  run_traffic(a, set, c);
  c.seconds = std::chrono::duration<double>(Steady::now() - start).count();

  const size_t failed = report_check(a, c);
  if (c.run_status != 0) return c.run_status;
  return failed == 0 ? 0 : kExitCheckFailed;
}

}  // namespace rdmabench
