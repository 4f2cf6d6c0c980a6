#include "orchestrator/hunt/hunt_model.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace rdmabench {
namespace {

// (Names unlike hunter.cc's: a unity build joins this folder's files.)
constexpr double kPrior = 0.15;         // a value's effect before it is measured: 0 +- this
constexpr double kNoiseFloor = 0.1;     // the least noise assumed (climb units: a tenth of a limit)
constexpr double kTemperature = 0.5;    // the draws' spread, of the posterior's
constexpr double kMadToSigma = 1.4826;  // a normal's standard deviation per median abs. deviation
// Added to a drawn effect of a value no point of the model has (a third of the prior): the draws
// take values not yet measured first, a value measured at noise level hardly carries more
// information than one never measured (a point's climb is shared among its 13 values).
constexpr double kUntried = 0.05;

double median_of(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

// A standard normal draw (Box-Muller) from the hunt's generator.
double normal_draw(SampleRng& rng) {
  const double u = 1 - rng.unit();  // (0, 1]
  const double v = rng.unit();
  return std::sqrt(-2 * std::log(u)) * std::cos(2 * std::numbers::pi * v);
}

}  // namespace

HuntModel::HuntModel(std::vector<size_t> levels) : levels_(std::move(levels)) {
  for (size_t n : levels_) {
    offset_.push_back(dims_);
    dims_ += n;
  }
  count_.assign(dims_, 0);
}

void HuntModel::clear() {
  points_.clear();
  climbs_.clear();
  count_.assign(dims_, 0);
  fitted_ = false;
}

void HuntModel::add(const Point& p, double climb) {
  points_.push_back(p);
  climbs_.push_back(climb);
  for (size_t f = 0; f < p.size(); ++f) ++count_[index(f, p[f])];
  fitted_ = false;
}

// The posterior of the effects given the points: precision A = I / prior^2 + X'X / noise^2,
// mean A^-1 X'(y - median) / noise^2. A is factored by a Cholesky decomposition written here
// (a dense one of at most a few hundred rows, once per asked point: not worth a linear-algebra
// library as a dependency).
void HuntModel::fit() {
  if (fitted_) return;
  fitted_ = true;
  const size_t d = dims_;
  std::vector<double> a(d * d, 0);
  std::vector<double> b(d, 0);
  double noise = kNoiseFloor;
  double centre = 0;
  if (!climbs_.empty()) {
    centre = median_of(climbs_);
    std::vector<double> dev;
    for (double y : climbs_) dev.push_back(std::abs(y - centre));
    noise = std::max(noise, kMadToSigma * median_of(dev));
  }
  const double w = 1 / (noise * noise);
  for (size_t n = 0; n < points_.size(); ++n) {
    const Point& p = points_[n];
    for (size_t f = 0; f < p.size(); ++f) {
      const size_t i = index(f, p[f]);
      b[i] += w * (climbs_[n] - centre);
      for (size_t g = 0; g < p.size(); ++g) a[i * d + index(g, p[g])] += w;
    }
  }
  for (size_t i = 0; i < d; ++i) a[i * d + i] += 1 / (kPrior * kPrior);
  // A = L L' (lower L in place of A's lower triangle).
  chol_.assign(d * d, 0);
  for (size_t j = 0; j < d; ++j) {
    double s = a[j * d + j];
    for (size_t k = 0; k < j; ++k) s -= chol_[j * d + k] * chol_[j * d + k];
    const double ljj = std::sqrt(std::max(s, 1e-12));
    chol_[j * d + j] = ljj;
    for (size_t i = j + 1; i < d; ++i) {
      double t = a[i * d + j];
      for (size_t k = 0; k < j; ++k) t -= chol_[i * d + k] * chol_[j * d + k];
      chol_[i * d + j] = t / ljj;
    }
  }
  // mean = A^-1 b: L z = b, then L' mean = z.
  mean_ = b;
  for (size_t i = 0; i < d; ++i) {
    for (size_t k = 0; k < i; ++k) mean_[i] -= chol_[i * d + k] * mean_[k];
    mean_[i] /= chol_[i * d + i];
  }
  for (size_t i = d; i-- > 0;) {
    for (size_t k = i + 1; k < d; ++k) mean_[i] -= chol_[k * d + i] * mean_[k];
    mean_[i] /= chol_[i * d + i];
  }
}

HuntModel::Effects HuntModel::mean() {
  fit();
  Effects e;
  for (size_t f = 0; f < levels_.size(); ++f)
    e.emplace_back(mean_.begin() + static_cast<std::ptrdiff_t>(offset_[f]),
                   mean_.begin() + static_cast<std::ptrdiff_t>(offset_[f] + levels_[f]));
  return e;
}

// mean + L'^-1 z with z standard normal: a draw of N(mean, A^-1).
HuntModel::Effects HuntModel::draw(SampleRng& rng) {
  fit();
  const size_t d = dims_;
  std::vector<double> u(d);
  for (double& x : u) x = normal_draw(rng);
  for (size_t i = d; i-- > 0;) {
    for (size_t k = i + 1; k < d; ++k) u[i] -= chol_[k * d + i] * u[k];
    u[i] /= chol_[i * d + i];
  }
  Effects e;
  for (size_t f = 0; f < levels_.size(); ++f) {
    e.emplace_back(levels_[f]);
    for (size_t v = 0; v < levels_[f]; ++v)
      e[f][v] = mean_[index(f, v)] + kTemperature * u[index(f, v)] +
                (count_[index(f, v)] == 0 ? kUntried : 0);
  }
  return e;
}

HuntModel::Point HuntModel::best(const Effects& e) {
  Point p;
  for (const std::vector<double>& f : e)
    p.push_back(static_cast<size_t>(std::max_element(f.begin(), f.end()) - f.begin()));
  return p;
}

}  // namespace rdmabench
