#include "orchestrator/hunt/hunt_run.h"

#include <chrono>
#include <cstdio>
#include <deque>
#include <fstream>
#include <sstream>

#include "base/error.h"
#include "base/utc_time.h"
#include "model/counter_keys.h"
#include "model/hunt_record.h"
#include "model/workload_fields.h"
#include "model/workload_options.h"
#include "orchestrator/campaign/host_spec.h"
#include "orchestrator/campaign/point_id.h"
#include "orchestrator/hunt/hunter.h"
#include "orchestrator/launch/shell_quote.h"

namespace rdmabench {
namespace {

// The client's exit status for a workload it refuses (cli/exit_status.h kExitBadInput).
constexpr int kClientRefused = 2;

// What the hunt reads of a point's brief: its first size's figures and loss.
Measurement measurement_of(bool ok, const std::string& error, const ResultBrief& b,
                           int client_status = -1) {
  Measurement m;
  m.ok = ok && b.error.empty();
  m.error = ok ? b.error : error;
  m.refused = !m.ok && client_status == kClientRefused;
  if (!m.ok) return m;
  for (const SizeBrief& s : b.sizes) {
    if (!s.error.empty()) {
      m.ok = false;
      m.error = s.error;
      return m;
    }
    m.gbps = s.gbps;
    m.p50_ns = s.p50_ns;
    m.p99_ns = s.p99_ns;
    m.loss_ppm = b.loss_at(s.size);
    m.congestion_ppm = s.congestion_ppm;
    m.counters = s.counters_moved;
    break;
  }
  return m;
}

std::string command(const std::string& head, const std::vector<std::string>& args) {
  std::string t = head;
  for (const auto& a : args) {
    t += ' ';  // appended, not " " + string (GCC 12's -Wrestrict in a Release build)
    t += shell_quote(a);
  }
  return t;
}

class HuntRun : public CampaignRun {
 public:
  HuntRun(const RunSetup& setup, const HuntSpec& spec)
      : setup_(setup),
        hunter_(spec, client_refusal),
        pair_(setup.campaign.pair(0)),
        started_(std::chrono::steady_clock::now()) {
    done_ids_ = setup.done_ids;
  }

  std::optional<Batch> next() override {
    const double limit = hunter_.spec().time_s;
    for (;;) {
      if (limit > 0 && elapsed_s() >= limit) hunter_.end_search();
      std::optional<Evaluation> e = hunter_.next();
      if (!e) return std::nullopt;
      const Point& p = make_point(*e);
      if (done_ids_.count(p.id) != 0) {  // --resume: measured before
        std::ifstream in(setup_.dir + "/" + p.id + ".json");
        std::stringstream text;
        text << in.rdbuf();
        if (in) {
          hunter_.observe(*e, measurement_of(true, "", brief_of_output(text.str())));
          ++replayed_;
          continue;
        }
      }
      asked_ = *e;
      Batch b;
      b.points.push_back({&p, pair_, "", point_fields(*e)});
      return b;
    }
  }

  void done(const Batch& /*b*/, const std::vector<PointOutcome>& outcomes) override {
    const PointOutcome& o = outcomes.at(0);
    hunter_.observe(asked_, measurement_of(o.ok, o.error, o.brief, o.client_status));
  }

  size_t finish() override { return hunter_.anomalies().size(); }

  void summary(IndexWriter& writer, std::ostream& out, std::ostream& /*err*/) override {
    writer.append(to_json(record()));
    const auto found = hunter_.anomalies();
    out << "hunt: " << hunter_.history().size() << " evaluation(s)";
    if (replayed_ != 0) out << " (" << replayed_ << " read back from earlier runs)";
    out << ", " << found.size() << " anomal" << (found.size() == 1 ? "y" : "ies");
    size_t unconfirmed = 0;
    for (const AnomalyCase& c : hunter_.cases())
      unconfirmed += c.state == CaseState::kNotConfirmed || c.state == CaseState::kNotRepeated;
    if (unconfirmed != 0) out << " (" << unconfirmed << " candidate(s) not repeated or confirmed)";
    out << "\n";
    size_t n = 0;
    for (const AnomalyCase* a : found) {
      std::string terms;
      for (const auto& t : a->found.fired()) terms += (terms.empty() ? "" : ", ") + t;
      out << "  anomaly " << ++n << ": trigger " << describe_values(a->trigger) << " (" << terms
          << "; found at evaluation " << a->found_at << ", seen " << 1 + a->also_at.size()
          << " time(s))\n";
      for (const HuntObservation& o : hunter_.history())
        if (o.evaluation.seq == a->found_at && !o.measurement.counters.empty())
          out << "    counters that moved: " << describe_moved_counters(o.measurement.counters)
              << "\n";
      out << "    reproduce: " << server_command() << "\n";
      out << "               " << client_command(a->confirm_values) << "\n";
    }
    out.flush();
  }

 private:
  double elapsed_s() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  }

  const Point& make_point(const Evaluation& e) {
    auto work = std::make_shared<PointWorkload>();
    work->values = e.values;
    work->workload_options = client_options(e.values);
    Point& p = points_.emplace_back();
    p.index = e.seq - 1;
    p.pair = 0;
    p.repetition = 1;
    char seq[16];
    std::snprintf(seq, sizeof seq, "e%04llu-", static_cast<unsigned long long>(e.seq));
    p.id = seq + PointIds(e.values).id(pair_.name, 1, hunt_step_name(e.step));
    p.work = std::move(work);
    return p;
  }

  static nlohmann::json point_fields(const Evaluation& e) {
    nlohmann::json h = {{"evaluation", e.seq}, {"step", hunt_step_name(e.step)}};
    if (!e.factor.empty()) h["factor"] = e.factor;
    return {{"hunt", h}};
  }

  // The ends' device and GID options, as the sweep gives them.
  static std::vector<std::string> device_args(const HostSpec& h) {
    std::vector<std::string> a;
    if (!h.device.empty()) a = {"-d", h.device};
    for (auto& g : gid_args(h)) a.push_back(std::move(g));
    return a;
  }
  std::string server_command() const {
    std::vector<std::string> a = device_args(pair_.server);
    a.emplace_back("--once");
    return command("rdmabench server", a);
  }
  std::string client_command(const nlohmann::json& values) const {
    std::string server = pair_.connect_address;
    if (server.empty()) server = pair_.server.host == "local" ? "127.0.0.1" : pair_.server.host;
    std::vector<std::string> a = device_args(pair_.client);
    for (auto& o : client_options(values)) a.push_back(std::move(o));
    return command("rdmabench client " + shell_quote(server), a);
  }

  static HuntScore score_of(const Score& s) {
    HuntScore h{s.anomalous(), s.climb, {}};
    for (const ScoreTerm& t : s.terms) h.terms.push_back({t.name, t.ratio, t.value, t.limit});
    return h;
  }
  static std::optional<HuntScore> score_of(const std::optional<Score>& s) {
    return s ? std::optional<HuntScore>(score_of(*s)) : std::nullopt;
  }

  HuntAnomaly anomaly_of(const AnomalyCase& c) const {
    HuntAnomaly a;
    a.state = case_state_name(c.state);
    a.values = c.values;
    a.found_at = c.found_at;
    a.found = score_of(c.found);
    a.fired = c.found.fired();
    a.repeat = score_of(c.repeat);
    for (const FactorReset& r : c.resets)
      a.resets.push_back({r.factor, r.from, r.to, r.removes, score_of(r.score), r.refused});
    a.trigger = c.trigger;
    a.confirm_values = c.confirm_values;
    a.confirm = score_of(c.confirm);
    const size_t index = static_cast<size_t>(&c - hunter_.cases().data());
    for (const HuntObservation& o : hunter_.history()) {
      if (o.evaluation.seq == c.found_at) a.counters_found = o.measurement.counters;
      if (o.evaluation.step == HuntStep::kConfirm && o.evaluation.case_index == index)
        a.counters_confirm = o.measurement.counters;
    }
    if (c.state == CaseState::kConfirmed) {
      a.reproduce_server = server_command();
      a.reproduce_client = client_command(c.confirm_values);
    }
    a.also_at = c.also_at;
    a.note = c.note;
    if (c.same_as != SIZE_MAX) a.same_as = c.same_as;
    return a;
  }

  HuntRecord record() const {
    HuntRecord r;
    r.budget = hunter_.spec().budget;
    r.seed = hunter_.spec().seed;
    r.evaluations = hunter_.history().size();
    for (const AnomalyCase& c : hunter_.cases()) {
      const bool reported = c.state == CaseState::kConfirmed && c.same_as == SIZE_MAX;
      (reported ? r.anomalies : r.candidates).push_back(anomaly_of(c));
    }
    for (const HuntObservation& o : hunter_.history())
      r.scores.push_back({o.evaluation.seq, hunt_step_name(o.evaluation.step), o.score.climb,
                          o.score.worst(), o.score.anomalous()});
    r.time = utc_now();
    return r;
  }

  const RunSetup& setup_;
  Hunter hunter_;
  HostPair pair_;
  std::chrono::steady_clock::time_point started_;
  std::set<std::string> done_ids_;
  std::deque<Point> points_;  // every evaluation's point (batches point into it)
  Evaluation asked_;
  size_t replayed_ = 0;
};

}  // namespace

std::shared_ptr<CampaignRun> hunt_run(const RunSetup& setup, const HuntSpec& spec) {
  return std::make_shared<HuntRun>(setup, spec);
}

}  // namespace rdmabench
