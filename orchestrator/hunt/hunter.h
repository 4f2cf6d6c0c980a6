#pragma once
// The decisions of a hunt (hunt_spec.h), apart from how its evaluations run: the sweep's hunt
// run (hunt_run.h) and the bench's synthetic landscapes (bench/hunt_bench.cc) drive the same
// Hunter. One evaluation at a time: next() says what to measure, observe() takes what was.
//
// Search: an additive model of the climb (anomaly_score.h Score::climb), hunt_model.h: a Bayesian
// linear regression of each search point's climb on its factor=value indicators, fitted on the
// search points since the model started. Each point is the best of effects drawn from the model
// (Thompson sampling: per factor, the value of the highest drawn effect; never a point already
// measured, nor one the client would refuse), every fifth point uniformly instead. Points at
// noise level pull their values' effects to 0, points above raise the values they share, and a
// value not yet measured keeps its prior's uncertainty (and a small bonus: it is drawn first):
// a counter that rises with each of a trigger's conditions met draws the search to those values
// one at a time, before any term fires; with nothing standing out the draws spread over values
// not yet seen. (The cross-entropy
// method before it, and an annealing before that: bench/README.md "Hunting" has all three
// measured.) Focus (hunt_focus.h): once a search point stands out on one term of its score (3
// noise widths above the term's median), the next search points are structured instead of drawn:
// which of its values carries the climb is located by group testing (half of the suspects kept,
// every other factor on a value not yet tried), then that value is held while every other factor
// cycles through values not yet tried with it (a wrong location is located again, from the
// newest point that kept the climb); the model learns from these points too, and its draws
// resume when the focus ends. A point that matches a trigger already found climbs nothing;
// each new anomaly starts the model over, and so do 100 search points without one (hunter.cc
// kModelSpan).
//
// Explanation: when a search point is anomalous (and matches no trigger found), it is measured
// again (noise is not an anomaly); then each factor not at its baseline is set back to it in
// turn, on top of those already set back: a factor whose reset removes the anomaly (none of the
// terms that fired at discovery fires) is kept, one whose reset leaves it is left at its baseline
// (so an anomaly with two independent causes is explained by one of them, the other found on
// its own later); the kept factors are the trigger, and the baseline with only the trigger's
// values is measured to confirm it. An
// explanation runs to its end even past the budget (at most the factors + 2 evaluations).
// Deterministic: the same spec, seed and measurements give the same evaluations.
#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "orchestrator/hunt/anomaly_score.h"
#include "orchestrator/hunt/hunt_focus.h"
#include "orchestrator/hunt/hunt_model.h"
#include "orchestrator/hunt/hunt_spec.h"
#include "orchestrator/search/sampling.h"

namespace rdmabench {

enum class HuntStep : uint8_t { kSearch, kRepeat, kReset, kConfirm };
const char* hunt_step_name(HuntStep s);  // "search", "repeat", "reset", "confirm"

struct Evaluation {
  uint64_t seq = 0;  // 1-based, in the order asked
  HuntStep step = HuntStep::kSearch;
  nlohmann::json values;  // canonical workload values (fixed ones included)
  std::string factor;     // kReset: the factor set back to its baseline
  size_t case_index = 0;  // kRepeat, kReset, kConfirm: the case it explains
};

struct FactorReset {
  std::string factor;
  nlohmann::json from;         // its value where the anomaly was found
  nlohmann::json to;           // its baseline
  std::optional<Score> score;  // measured with it (and those before it left out) reset
  std::string refused;         // why the client refuses the reset point (the factor is kept)
  bool removes = false;        // the reset removed the anomaly
};

enum class CaseState : uint8_t {
  kRepeating,
  kResetting,
  kConfirming,
  kConfirmed,
  kNotRepeated,
  kNotConfirmed
};
const char* case_state_name(CaseState s);

// An anomalous search point and its explanation.
struct AnomalyCase {
  nlohmann::json values;  // where it was found
  uint64_t found_at = 0;  // the evaluation's seq
  Score found;
  std::optional<Score> repeat;
  std::vector<FactorReset> resets;  // factors not at their baseline, in the space's order
  nlohmann::json reduced;           // its values with the factors found not needed set back so far
  nlohmann::json trigger = nlohmann::json::object();  // factor -> value
  nlohmann::json confirm_values;
  std::optional<Score> confirm;
  std::string note;  // why it could not be confirmed, when it could not be asked
  CaseState state = CaseState::kRepeating;
  std::vector<uint64_t> also_at;  // later search points that matched its trigger
  size_t same_as = SIZE_MAX;      // confirmed with the trigger of this earlier case
};

// One evaluation as the hunter saw it.
struct HuntObservation {
  Evaluation evaluation;
  Measurement measurement;
  Score score;
};

class Hunter {
 public:
  using Check = std::function<std::string(const nlohmann::json&)>;  // "" = the client accepts

  Hunter(HuntSpec spec, Check check);
  std::optional<Evaluation> next();
  void observe(const Evaluation& e, const Measurement& m);
  void end_search() { search_ended_ = true; }  // no new search step; explanations finish

  const HuntSpec& spec() const { return spec_; }
  const std::vector<AnomalyCase>& cases() const { return cases_; }
  const std::vector<HuntObservation>& history() const { return history_; }
  // Confirmed cases, first of each trigger (grouped: same_as == SIZE_MAX).
  std::vector<const AnomalyCase*> anomalies() const;

 private:
  using Point = std::vector<size_t>;
  nlohmann::json values_of(const Point& p) const;
  Point random_point();
  Point draw_point(unsigned tries);
  void start_model();
  bool matches_known(const nlohmann::json& values) const;
  void open_case(const Evaluation& e, const Score& s);
  void after_repeat(AnomalyCase& c);
  void next_reset(AnomalyCase& c);
  void after_resets(AnomalyCase& c);
  void after_confirm(AnomalyCase& c, size_t index, const Measurement& m);

  HuntSpec spec_;
  Check check_;
  Scorer scorer_;
  SampleRng rng_;
  HuntModel model_;                // the search points since the model started, and their climbs
  HuntFocus focus_;                // the structured search around a point that climbed
  std::vector<Evaluation> queue_;  // explanation steps to ask, in order
  std::map<std::string, double> climbed_;  // measured search points: values -> climb
  std::optional<Point> asked_;             // the search point in flight
  bool asked_by_focus_ = false;            // it is the focus's
  uint64_t seq_ = 0;
  bool search_ended_ = false;
  std::vector<AnomalyCase> cases_;
  std::vector<HuntObservation> history_;
};

}  // namespace rdmabench
