#include "check/node_check.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <memory>

#include "base/error.h"
#include "base/file_text.h"
#include "base/number_text.h"
#include "base/utc_time.h"
#include "base/version.h"
#include "check/check_expectations.h"
#include "engine/local_host.h"
#include "engine/loopback_server.h"
#include "engine/node_facts.h"
#include "model/check_plan.h"
#include "model/workload_options.h"
#include "report/link_rate.h"
#include "verbs/device.h"

namespace rdmabench {
namespace {

using Steady = std::chrono::steady_clock;

constexpr double kDefaultMaxTime = 30;
constexpr double kDefaultDuration = 1;
// What a workload costs beyond its sizes' measurement: connecting, setting up, warming up (on
// an emulated guest up to a few seconds).
constexpr double kSetupAllowance = 3;

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
  std::optional<RunResult::Failure> not_run;  // the first workload that could not run
};

// Runs one group's workload against `server`:`port` and judges its expectations.
void run_group(const TrafficGroup& g, const CheckRequest& a, const std::string& server,
               uint16_t port, double per_size_s, CheckRun& c) {
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
  if (!r.error.empty() && !reached && !c.not_run) c.not_run = r.failure;
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

CheckSettings settings_of(const CheckRequest& a, std::vector<TrafficGroup> groups) {
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
void run_traffic(const CheckRequest& a, const CheckSettings& s, CheckRun& c) {
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
size_t report_check(const CheckRequest& a, const CheckRun& c, std::ostream& lines,
                    std::ostream& doc_out) {
  size_t failed = 0;
  std::string first_failed;
  for (const auto& o : c.outcomes)
    if (!o.pass && failed++ == 0) first_failed = o.expectation;
  std::ostream& out = lines;
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
    doc_out << doc.dump(2) << std::endl;
  else
    write_file_atomic(a.json_file, doc.dump(2) + "\n");
  return failed;
}

}  // namespace

CheckEnd run_node_check(const CheckRequest& a, std::ostream& lines, std::ostream& doc_out) {
  const auto start = Steady::now();
  CheckRun c;
  c.started = utc_now();
  if (!a.out_dir.empty()) throw ConfigError("out", a.out_dir, "--out with --fabric only");
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

  CheckEnd end;
  end.failed = report_check(a, c, lines, doc_out);
  end.not_run = c.not_run;
  return end;
}

}  // namespace rdmabench
