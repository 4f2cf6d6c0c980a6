#include "orchestrator/run/campaign_run.h"

#include <exception>
#include <fstream>
#include <utility>

#include "base/utc_time.h"
#include "orchestrator/search/cliff.h"

namespace rdmabench {
namespace {

// Every point on its own, in one batch.
class EachPointRun : public CampaignRun {
 public:
  explicit EachPointRun(const RunSetup& setup) : setup_(setup) {}

  std::optional<Batch> next() override {
    if (given_) return std::nullopt;
    given_ = true;
    Batch b;
    b.points.reserve(setup_.todo.size());
    for (const Point* p : setup_.todo)
      b.points.push_back({p, setup_.campaign.pair(p->pair), "", nlohmann::json::object()});
    return b;
  }
  void done(const Batch&, const std::vector<PointOutcome>&) override {}

 private:
  const RunSetup& setup_;
  bool given_ = false;
};

// A search's summary after its driver's: the cliffs among every point whose last index status
// is ok (this run's and earlier ones'), appended to the index as one record and printed.
class CliffReport : public CampaignRun {
 public:
  CliffReport(std::shared_ptr<CampaignRun> inner, const RunSetup& setup)
      : inner_(std::move(inner)), c_(setup.campaign), x_(setup.expansion), dir_(setup.dir) {}

  std::optional<Batch> next() override { return inner_->next(); }
  void done(const Batch& b, const std::vector<PointOutcome>& o) override { inner_->done(b, o); }
  size_t finish() override { return inner_->finish(); }
  void summary(IndexWriter& writer, std::ostream& out, std::ostream& err) override {
    inner_->summary(writer, out, err);
    try {
      report(writer, out);
    } catch (const std::exception& e) {
      err << "rdmabench: error: cannot look for cliffs: " << e.what() << std::endl;
    }
  }

 private:
  void report(IndexWriter& writer, std::ostream& out) const {
    const CliffSpec& spec = *c_.search->cliff;
    const std::vector<nlohmann::json> order = c_.search->along_order();
    const auto index = read_index(dir_ + "/index.jsonl");
    std::vector<CliffObservation> observations;
    for (const auto& p : x_.points) {
      auto it = index.find(p.id);
      if (p.skipped() || it == index.end() || it->second.status != "ok") continue;
      std::ifstream in(dir_ + "/" + p.id + ".json");
      if (!in) continue;
      const nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
      for (auto& o : cliff_observations(doc, p.values(), c_.pair_name(p.pair), p.id, spec, order))
        observations.push_back(std::move(o));
    }
    const CliffScan scan = find_cliffs(observations, spec.threshold);
    writer.append(cliffs_record(spec, scan, utc_now()));
    print_cliffs(out, spec, scan);
    out.flush();
  }

  std::shared_ptr<CampaignRun> inner_;
  const Campaign& c_;
  const Expansion& x_;
  std::string dir_;
};

}  // namespace

std::shared_ptr<CampaignRun> each_point_run(const RunSetup& setup) {
  return std::make_shared<EachPointRun>(setup);
}

std::shared_ptr<CampaignRun> start_campaign_run(const RunSetup& setup) {
  std::shared_ptr<CampaignRun> run = setup.campaign.driver->start_run(setup);
  if (!run) run = each_point_run(setup);
  if (setup.campaign.search && setup.campaign.search->cliff)
    run = std::make_shared<CliffReport>(std::move(run), setup);
  return run;
}

}  // namespace rdmabench
