// The controller's own cost of one fabric round (issue 18, item 7): 500 concurrent flows of a
// 1,000-host bisection, launched and collected by run_round through a fake launcher. Each
// "server" is a shell that prints a ready line and exits, each "client" one that prints a result
// document: what is measured is the controller's work (starting 1,000 processes, pumping their
// pipes, parsing 500 ready lines and 500 documents, judging them), not an RDMA transfer.
// Counters: controller_cpu_s (user + system CPU of this process for the round, its children
// excluded), flows.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <atomic>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "orchestrator/campaign/campaign.h"
#include "orchestrator/fabric/fabric_run.h"
#include "orchestrator/launch/launcher.h"
#include "orchestrator/launch/process.h"
#include "orchestrator/sweep/round_runner.h"
#include "orchestrator/sweep/sweep.h"

namespace rdmabench {
namespace {

class FakeJob : public ProcessJob {
 public:
  explicit FakeJob(std::unique_ptr<Child> c) { child_ = std::move(c); }
  std::optional<long> group() const override { return child_->pid(); }
  void stop() override { child_->terminate(1.0); }
  void begin_stop() override { child_->close_stdin(); }
};

// "server ...": the ready line; "client ...": the fixture's result document.
class FakeLauncher : public Launcher {
 public:
  explicit FakeLauncher(std::string document_file) : doc_(std::move(document_file)) {}
  const std::string& host() const override { return host_; }
  const char* kind() const override { return "local"; }
  CommandOutput run(const std::vector<std::string>&, double) override { return {}; }
  std::unique_ptr<Job> start(const std::vector<std::string>& argv, const std::string&) override {
    SpawnOptions o;
    const bool server = argv.size() > 1 && argv[1] == "server";
    o.argv = {"/bin/sh", "-c",
              server ? "echo 'RDMABENCH_SERVER_READY {\"address\":\"127.0.0.1\",\"port\":18515,"
                       "\"pid\":'$$',\"version\":\"0\"}'"
                     : "cat '" + doc_ + "'"};
    return std::make_unique<FakeJob>(Child::spawn(o));
  }
  std::string describe() const override { return "fake"; }
  std::string describe_start(const std::vector<std::string>&) const override { return ""; }

 private:
  std::string host_ = "local";
  std::string doc_;
};

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

void BM_RunRound(benchmark::State& state) {
  const int64_t hosts = state.range(0);
  nlohmann::json names = nlohmann::json::array();
  for (int64_t i = 0; i < hosts; ++i)
    names.push_back({{"host", "local"}, {"name", "h" + std::to_string(i)}});
  const nlohmann::json j = {
      {"name", "round-bench"},
      {"fabric", {{"hosts", names}, {"pattern", {{"pattern", "bisection"}, {"seed", 1}}}}},
      {"matrix", {{"op", "write"}, {"sizes", {{65536}}}, {"duration_s", 1}}}};
  const Campaign c =
      parse_campaign(j, "/tmp", "/usr/bin/rdmabench", CampaignOptions{"", {}, campaign_kinds()});
  const Expansion x = expand(c);
  std::vector<const Point*> todo;
  for (const Point& p : x.points) todo.push_back(&p);
  const FabricRun run = plan_fabric_run(c, x, todo, {});
  std::vector<RoundFlow> flows;
  for (const FabricRun::Member& m : run.groups.at(0).members)
    flows.push_back({m.point, c.pair(m.point->pair), run.server_name(m)});
  FakeLauncher fake(RDMABENCH_SOURCE_DIR "/tests/fixtures/results/qp/write_rc.json");
  std::atomic<bool> stop{false};
  const RoundContext ctx{{{"local", &fake}}, "token", 600, stop};
  double cpu = 0;
  size_t ok = 0;
  std::string first_error;
  for (auto _ : state) {
    const double before = cpu_seconds();
    const std::vector<PointOutcome> out = run_round(flows, ctx);
    cpu += cpu_seconds() - before;
    for (const PointOutcome& o : out) {
      ok += o.ok ? 1 : 0;
      if (!o.ok && first_error.empty()) first_error = o.error;
    }
  }
  if (ok != flows.size() * state.iterations())
    state.SkipWithError(("not every fake flow succeeded: " + first_error).c_str());
  state.counters["flows"] = static_cast<double>(flows.size());
  state.counters["controller_cpu_s"] = cpu / static_cast<double>(state.iterations());
}
BENCHMARK(BM_RunRound)->Arg(1000)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace rdmabench
