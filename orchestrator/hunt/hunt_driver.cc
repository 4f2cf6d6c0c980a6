#include "orchestrator/hunt/hunt_driver.h"

#include "base/error.h"
#include "model/workload_fields.h"
#include "orchestrator/hunt/hunt_run.h"

namespace rdmabench {

void HuntDriver::for_each_host(
    const std::function<void(const HostSpec&, const std::string& role)>& use) const {
  use(pair_.server, "host pair '" + pair_.name + "' server");
  use(pair_.client, "host pair '" + pair_.name + "' client");
}

std::string HuntDriver::adaptive_start() const {
  return "a hunt of up to " + std::to_string(spec_.budget) + " evaluations on " + pair_.name;
}

std::string HuntDriver::adaptive_findings(size_t n) const {
  return "the hunt found " + std::to_string(n) + " anomal" + (n == 1 ? "y" : "ies");
}

// Its space, baseline, budget and score; its points are made as it goes.
void HuntDriver::describe_adaptive(std::ostream& out, const std::set<std::string>& done,
                                   const std::string& out_dir) const {
  const HuntSpec& h = spec_;
  out << "a hunt on " << pair_.name << ", up to " << h.budget << " evaluations (seed " << h.seed
      << ")";
  if (h.time_s > 0) out << ", no new search step after " << h.time_s << " s";
  if (!done.empty()) out << ", " << done.size() << " done earlier (read back with --resume)";
  out << "\nspace (" << h.combinations() << " combinations):\n";
  for (const SearchDimension& d : h.space)
    out << "  " << d.key << ": " << d.describe() << "; baseline " << h.baseline[d.key].dump()
        << "\n";
  out << "fixed: " << describe_values(h.fixed) << "\n";
  const ScoreSpec& s = h.score;
  out << "score: failed " << (s.failed ? "on" : "off") << ", loss_ppm " << s.loss_ppm
      << ", bw_below " << s.bw_below << ", p99_over_p50 " << s.p99_over_p50 << ", p50_over_best "
      << s.p50_over_best << "; a class is the same";
  for (const auto& f : s.same) out << " " << f;
  out << "\noutput: " << out_dir << "/e<NNNN>-<point_id>.json, " << out_dir
      << "/index.jsonl (each evaluation, then the hunt record)\n";
}

std::shared_ptr<CampaignRun> HuntDriver::start_run(const RunSetup& setup) const {
  return hunt_run(setup, spec_);
}

DriverKind hunt_kind() {
  return DriverKind{"hunt", "an anomaly hunt on one host pair",
                    [](const nlohmann::json& block, const std::string& path,
                       const DriverParseContext& ctx) -> std::shared_ptr<CampaignDriver> {
                      const std::vector<HostPair>& pairs = *ctx.host_pairs;
                      if (pairs.size() != 1)
                        throw ConfigError(
                            "/hosts", std::to_string(pairs.size()) + " host pairs",
                            "one host pair for a hunt (it measures one link or device at a time)");
                      return std::make_shared<HuntDriver>(pairs.front(), parse_hunt(block, path));
                    },
                    true, "the hunt's space says what it measures"};
}

}  // namespace rdmabench
