#pragma once
// The hunt's focus (hunter.h): once a search point climbs clearly above the others on one term of
// its score (a counter that rises with each condition of a trigger met), a structured search
// around it, far more informative there than the model's draws:
//
//   locate: which of the point's values (those not at their baseline, and not seen before in a
//           point that stayed low) carries the climb, by group testing: the point's values are kept
//           on half of the suspects (and on what is located already) and every other factor takes
//           a value not yet tried (one seen in a point that climbed last: it would bring the climb
//           back), bisecting: a point that keeps the climb narrows the suspects to its half, one
//           that loses it to the other half. Each such point can be a hit itself, when the changed
//           factors land on the trigger's other conditions;
//   pair:   the located value held, every other factor takes values not yet tried with it (each
//           factor cycling through its values; first those seen in a point that climbed without
//           the held values, last those seen with them in one that climbed no further), so a
//           second condition is met within as many points as a factor has values. A point that
//           climbs another step above is a second condition met: it is located in turn among the
//           factors that changed, with the first held.
//
// A focus starts from a point that stands out from the search points the focus did not ask (its
// own keep the climb by design). A focus point that loses the climb while holding what was
// located (the location was wrong: a value a point took kept the climb) locates again from the
// newest point above the first bar that no focus started from. A point the client refuses every
// variant of, or a pairing that runs through every factor's values ends the focus; the model's
// draws go on (the hunter's model learns from every focus point: they are search points).
// Deterministic: the same points, scores and generator give the same points.
#include <cstddef>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "orchestrator/hunt/anomaly_score.h"
#include "orchestrator/search/sampling.h"

namespace rdmabench {

class HuntFocus {
 public:
  using Point = std::vector<size_t>;                 // a value index per factor
  using Effects = std::vector<std::vector<double>>;  // per factor, per value
  using Check = std::function<bool(const Point&)>;

  // `levels`: each factor's number of values; `baseline`: each factor's baseline index (its number
  // of values where the baseline is none of them: then each of its values may carry a climb).
  HuntFocus(std::vector<size_t> levels, Point baseline);

  // A measured search point (`asked`: it was this focus's point). May start a focus.
  void add(const Point& p, const Score& s, bool asked);
  // The next focus point, if a focus is under way (`means`: the model's, to order the suspects
  // and the values; `accepts`: the client accepts a point; `measured`: it was measured).
  std::optional<Point> next(SampleRng& rng, const Effects& means, const Check& accepts,
                            const Check& measured);
  bool active() const { return active_; }
  void stop() { active_ = false; }  // an anomaly was found: its explanation comes first

 private:
  struct Seen {
    Point point;
    Score score;
    bool asked = false;  // a focus point
  };
  static std::optional<double> ratio_of(const Score& s, const std::string& term);
  void maybe_start();
  void start(const Point& p, double level, double bar);
  void restart();
  bool cleared(size_t f, size_t v) const;
  void drop_cleared();
  void step(const Point& p, double r);
  std::vector<size_t> options(size_t f, const Effects& means, SampleRng& rng) const;

  std::vector<size_t> levels_;
  Point baseline_;
  std::vector<Seen> seen_;        // every search point measured
  std::set<Point> started_from_;  // points a focus started from

  bool active_ = false;
  std::string term_;                       // the term that climbed
  double bar0_ = 0;                        // the first condition's bar (halfway from the median)
  double bar_ = 0;                         // a point at or above it keeps the climb
  double level_ = 0;                       // the climb of the point the focus is on
  Point base_;                             // that point
  std::vector<size_t> held_;               // factors located (kept at base_'s values)
  std::vector<size_t> suspects_;           // factors that may carry the climb
  std::vector<size_t> tested_;             // the suspects kept in the point asked
  std::vector<std::vector<size_t>> used_;  // per factor, per value: in how many focus points
  size_t pairing_ = 0;                     // pairing points asked since the last location
  size_t steps_ = 0;                       // focus points asked
};

}  // namespace rdmabench
