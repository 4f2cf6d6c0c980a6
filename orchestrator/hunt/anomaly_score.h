#pragma once
// The anomaly score of a hunt (hunt_spec.h; docs/hunting.md has the rules and defaults). One
// measurement is scored against what its workload should give, term by term; each term is a
// ratio that reaches 1 at its limit:
//
//   failed          1 when the run failed (a run the client refused is never measured)
//   loss            loss events per million packets / `loss_ppm`
//   congestion      congestion signals (CNPs, ECN marks, pause frames) per million packets /
//                   `congestion_ppm`, on a device that counts them (rxe and siw do not)
//   throughput      `bw_below` x (the best Gb/s of its class so far) / its Gb/s
//   latency_tail    (p99 / p50) / `p99_over_p50`
//   latency_median  (p50 / the best p50 of its class so far) / `p50_over_best`
//
// A term fires at a ratio >= 1; a measurement is anomalous when one fires. Its class is the
// values of the `same` fields (op, QP type, mode and message size by default): a read is
// compared with reads of the same size only, so what is slower by nature is not called
// anomalous. The sum of the ratios (each capped) is what the search climbs: a counter that
// rises, or a rate that sinks, as a workload nears a trigger guides it there before a term fires.
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace rdmabench {

struct ScoreSpec {
  bool failed = true;                                             // a failed run is anomalous
  double loss_ppm = 100;                                          // 0 = term off
  double congestion_ppm = 1000;                                   // 0 = term off
  double bw_below = 0.5;                                          // 0 = term off
  double p99_over_p50 = 20;                                       // 0 = term off
  double p50_over_best = 4;                                       // 0 = term off
  std::vector<std::string> same = {"op", "qp", "mode", "sizes"};  // workload fields of a class
};

// What a hunt reads of one evaluation (from its result's brief, or a synthetic landscape).
struct Measurement {
  bool ok = false;
  std::string error;     // why it failed ("" when ok)
  bool refused = false;  // the client refused the workload on this device (its exit status 2,
                         // e.g. an MTU above the port's): never anomalous, a point to avoid
  std::optional<double> gbps;
  std::optional<double> p50_ns;
  std::optional<double> p99_ns;
  std::optional<double> loss_ppm;
  std::optional<double> congestion_ppm;  // CNPs, ECN marks and pause frames per million packets
  nlohmann::json counters = nlohmann::json::object();  // what moved (counter_keys.h moved_counters)
};

struct ScoreTerm {
  std::string name;  // "failed", "loss", "congestion", "throughput", "latency_tail", ...
  double ratio = 0;  // >= 1: fired
  double value = 0;  // what was measured (ppm, Gb/s, ns, or the p99/p50 ratio)
  double limit = 0;  // what it was compared with (for throughput and latency_median: the best)
};

struct Score {
  std::vector<ScoreTerm> terms;  // every term that applies to the measurement
  double climb = 0;              // the sum of the ratios, each capped at 3 (what the search climbs)

  bool anomalous() const;
  double worst() const;                    // the largest ratio (0 for none)
  std::vector<std::string> fired() const;  // names of the terms at >= 1
};

// Term limits by name, and the classes' best figures so far.
class Scorer {
 public:
  explicit Scorer(ScoreSpec spec) : spec_(std::move(spec)) {}
  // Adds a measurement to its class's best figures (call before score() for the same one).
  void learn(const nlohmann::json& values, const Measurement& m);
  Score score(const nlohmann::json& values, const Measurement& m) const;
  const ScoreSpec& spec() const { return spec_; }

 private:
  std::string class_of(const nlohmann::json& values) const;
  ScoreSpec spec_;
  std::map<std::string, double> best_gbps_;
  std::map<std::string, double> best_p50_;
};

}  // namespace rdmabench
