#pragma once
// The hunt's model of where the climb is high (hunter.h): an additive model over the factors'
// values, fitted by Bayesian linear regression. Each search point is a row of indicators, one per
// factor=value it has (13 factors of the default space: 54 indicators, 13 of them set), and its
// climb (anomaly_score.h Score::climb) the response; the model says how much each value adds:
//
//   climb - median climb = sum over the point's factors of effect[factor][value] + noise
//
// with a prior effect of 0 +- kPrior for every value and the noise's spread estimated from the
// climbs (their median absolute deviation). Centred on the median, a point at noise level is
// evidence that none of its values adds anything (its values' effects are pulled to 0, with less
// uncertainty each time), a point a little above that one of them does (the values it shares
// with other points above rise together); a value never seen keeps the prior's uncertainty. A
// counter that rises with each condition of a trigger met is additive over those conditions, so
// the model finds them one at a time, before any point meets them all.
//
// draw() is Thompson sampling: effects drawn from the posterior (at half its spread: bolder on
// what was learnt; a value no point has yet gets 0.05 more, a third of the prior: a value
// measured once at noise level is hardly better known than one never measured, its point's climb
// being shared among 13 values, and the draws would repeat it as often as try a new one), whose
// argmax is one value per factor (an additive model's best point is each factor's best value).
// A value with a high effect is drawn often, one never measured first (its uncertainty and its
// bonus), one measured at noise level seldom: exploitation and exploration in one draw. With
// nothing standing out (a flat landscape) every effect stays near 0 and the draws spread over
// values not yet seen, like a Latin hypercube's. Once a point climbs clearly, the hunter's focus
// (hunt_focus.h) asks the points instead, ordering its suspects and values by mean(); the model
// learns from them all.
#include <cstddef>
#include <vector>

#include "orchestrator/search/sampling.h"

namespace rdmabench {

class HuntModel {
 public:
  using Point = std::vector<size_t>;                 // a value index per factor
  using Effects = std::vector<std::vector<double>>;  // per factor, per value

  // `levels`: each factor's number of values.
  explicit HuntModel(std::vector<size_t> levels);
  void clear();  // forget every point (a new model)
  void add(const Point& p, double climb);
  size_t points() const { return climbs_.size(); }

  // Effects drawn from the posterior (Thompson sampling); with no point yet, from the prior.
  Effects draw(SampleRng& rng);
  // The posterior's mean effects.
  Effects mean();
  // Each factor's value of the highest effect.
  static Point best(const Effects& e);

 private:
  void fit();
  size_t index(size_t factor, size_t value) const { return offset_[factor] + value; }

  std::vector<size_t> levels_;
  std::vector<size_t> offset_;  // of each factor's first indicator
  size_t dims_ = 0;             // indicators in all
  std::vector<Point> points_;
  std::vector<double> climbs_;
  std::vector<size_t> count_;  // per indicator: the points that have it
  bool fitted_ = false;
  std::vector<double> chol_;  // the posterior precision's Cholesky factor L (row-major, lower)
  std::vector<double> mean_;  // the posterior mean of the effects
};

}  // namespace rdmabench
