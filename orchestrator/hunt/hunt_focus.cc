#include "orchestrator/hunt/hunt_focus.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>

namespace rdmabench {
namespace {

// (Names unlike the other files': a unity build joins this folder's files.)
constexpr size_t kFocusMinSeen = 2;       // search points before a climb can stand out
constexpr double kFocusStandsOut = 3;     // noise widths above the term's median that start one
constexpr double kFocusNoiseFloor = 0.1;  // the least noise width assumed (a tenth of a limit)
constexpr double kFocusMadToSigma = 1.4826;
constexpr size_t kFocusMaxSteps = 40;  // focus points at most, from its start
constexpr unsigned kFocusTries = 8;    // variants of a point before the focus gives up

// The lower median: of two points, the lower one (a climb stands out from the second point on).
double focus_median(std::vector<double> v) {
  const size_t at = (v.size() - 1) / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(at), v.end());
  return v[at];
}

// Sorts `v` (distinct indices) by `before`, ties in their order in `v`: std::stable_sort's
// result, without its temporary buffer (whose libstdc++ call clang-tidy flags as deprecated).
template <class Before>
void focus_sort(std::vector<size_t>& v, const Before& before) {
  std::map<size_t, size_t> position;
  for (size_t i = 0; i < v.size(); ++i) position[v[i]] = i;
  std::sort(v.begin(), v.end(), [&](size_t a, size_t b) {
    if (before(a, b)) return true;
    if (before(b, a)) return false;
    return position[a] < position[b];
  });
}

bool focus_has(const std::vector<size_t>& v, size_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

HuntFocus::HuntFocus(std::vector<size_t> levels, Point baseline)
    : levels_(std::move(levels)), baseline_(std::move(baseline)) {}

std::optional<double> HuntFocus::ratio_of(const Score& s, const std::string& term) {
  for (const ScoreTerm& t : s.terms)
    if (t.name == term) return t.ratio;
  return std::nullopt;
}

void HuntFocus::add(const Point& p, const Score& s, bool asked) {
  seen_.push_back({p, s, asked});
  if (s.anomalous()) return;  // a hit or a trigger already found: not a climb to follow
  if (active_ && asked) {
    if (const auto r = ratio_of(s, term_)) step(p, *r);
    return;
  }
  if (!active_) maybe_start();
}

// The search point that stands out most, on one term of its score, from the others (the term's
// median and median absolute deviation over the search points); a focus starts from it when it is
// kFocusStandsOut noise widths above and no focus started from it before.
void HuntFocus::maybe_start() {
  if (seen_.size() < kFocusMinSeen) return;
  struct Spread {
    double median = 0, sigma = 0;
  };
  std::map<std::string, Spread> spread;
  for (const ScoreTerm& t : seen_.back().score.terms) {
    if (spread.count(t.name) != 0) continue;
    std::vector<double> rs;
    for (const Seen& x : seen_)
      if (const auto r = ratio_of(x.score, t.name); r && !x.score.anomalous() && !x.asked)
        rs.push_back(*r);
    if (rs.size() < kFocusMinSeen) continue;
    const double m = focus_median(rs);
    std::vector<double> dev;
    for (double r : rs) dev.push_back(std::abs(r - m));
    spread[t.name] = {m, std::max(kFocusNoiseFloor, kFocusMadToSigma * focus_median(dev))};
  }
  double best_z = kFocusStandsOut;
  const Seen* from = nullptr;
  std::string term;
  for (const Seen& x : seen_) {
    if (x.score.anomalous() || started_from_.count(x.point) != 0) continue;
    for (const ScoreTerm& t : x.score.terms) {
      const auto it = spread.find(t.name);
      if (it == spread.end()) continue;
      const double z = (t.ratio - it->second.median) / it->second.sigma;
      if (z >= best_z) {
        best_z = z;
        from = &x;
        term = t.name;
      }
    }
  }
  if (from == nullptr) return;
  const Point p = from->point;
  const double ratio = *ratio_of(from->score, term);
  started_from_.insert(p);
  term_ = term;
  held_.clear();
  steps_ = 0;
  used_.clear();
  for (size_t n : levels_) used_.emplace_back(n, 0);
  bar0_ = (spread[term].median + ratio) / 2;
  start(p, ratio, bar0_);
}

// Locate what carries `level` (above `bar`) among p's values, on top of those held.
void HuntFocus::start(const Point& p, double level, double bar) {
  active_ = true;
  base_ = p;
  level_ = level;
  bar_ = bar;
  pairing_ = 0;
  suspects_.clear();
  for (size_t f = 0; f < p.size(); ++f)
    if (p[f] != baseline_[f] && !focus_has(held_, f)) suspects_.push_back(f);
  drop_cleared();
  if (suspects_.size() == 1) {
    held_.push_back(suspects_[0]);
    suspects_.clear();
  }
  if (suspects_.empty() && held_.empty()) active_ = false;
}

// Value v of factor f was measured where it cannot carry the climb: in a point below the first
// bar (a condition alone would have lifted it), or in a point with the held values below the
// current one.
// The location was wrong (a climb kept by a value a point took, or noise): locate again, from the
// newest search point that climbed above the first bar and no focus started from, or end.
void HuntFocus::restart() {
  active_ = false;
  tested_.clear();
  for (auto x = seen_.rbegin(); x != seen_.rend(); ++x) {
    const auto r = ratio_of(x->score, term_);
    if (!r || *r < bar0_ || x->score.anomalous() || started_from_.count(x->point) != 0) continue;
    started_from_.insert(x->point);
    held_.clear();
    const Point p = x->point;
    start(p, *r, bar0_);
    return;
  }
}

bool HuntFocus::cleared(size_t f, size_t v) const {
  for (const Seen& x : seen_) {
    if (x.point[f] != v) continue;
    const auto r = ratio_of(x.score, term_);
    if (!r || x.score.anomalous()) continue;
    if (*r < bar0_) return true;
    bool with_held = true;
    for (size_t h : held_) with_held = with_held && x.point[h] == base_[h];
    if (with_held && *r < bar_) return true;
  }
  return false;
}

void HuntFocus::drop_cleared() {
  std::erase_if(suspects_, [&](size_t f) { return cleared(f, base_[f]); });
}

void HuntFocus::step(const Point& p, double r) {
  if (!tested_.empty()) {  // locating
    if (r >= bar_) {       // in the kept half (or on a value the point took: the pairing tells)
      suspects_ = tested_;
      base_ = p;
    } else
      std::erase_if(suspects_, [&](size_t f) { return focus_has(tested_, f); });
    tested_.clear();
    drop_cleared();
    if (suspects_.size() == 1) {
      held_.push_back(suspects_[0]);
      suspects_.clear();
      pairing_ = 0;
    } else if (suspects_.empty()) {
      restart();  // nothing left that could carry it: noise, or a value reached twice
    }
    return;
  }
  // Pairing: the held values keep the climb, or the location was wrong.
  if (r < bar_) {
    restart();
    return;
  }
  const double rise = 2 * (level_ - bar_);
  if (r >= level_ + rise / 2) {  // another condition met: locate it, the held ones kept
    start(p, r, (level_ + r) / 2);
    return;
  }
  ++pairing_;
}

// The values factor f may take in a focus point, best first: not cleared, nor its baseline, nor
// the focus point's; the least used in this focus first (each factor cycles through its values),
// then the model's highest effect, ties broken by the generator.
std::vector<size_t> HuntFocus::options(size_t f, const Effects& means, SampleRng& rng) const {
  std::vector<size_t> out;
  for (size_t v = 0; v < levels_[f]; ++v)
    if (v != base_[f] && v != baseline_[f] && !cleared(f, v)) out.push_back(v);
  for (size_t i = out.size(); i > 1; --i) std::swap(out[i - 1], out[rng.below(i)]);
  // A value seen in a point that climbed (kept, since not cleared): while locating it would bring
  // the climb back into a point that should lose it, so it comes last; while pairing it may be a
  // condition on its own, so it comes first, unless a point with it and the held values climbed
  // no further (then it is not the held values' partner).
  std::vector<int> rank(levels_[f], 0);
  const bool locating = !suspects_.empty();
  const double next_bar = level_ + (level_ - bar_);
  for (const Seen& x : seen_) {
    const auto r = ratio_of(x.score, term_);
    if (!r || x.score.anomalous() || *r < bar0_) continue;
    bool with_held = !held_.empty();
    for (size_t h : held_) with_held = with_held && x.point[h] == base_[h];
    int& k = rank[x.point[f]];
    if (locating)
      k = 1;
    else if (with_held && *r < next_bar)
      k = 1;
    else if (k == 0)
      k = -1;
  }
  focus_sort(out, [&](size_t a, size_t b) {
    if (rank[a] != rank[b]) return rank[a] < rank[b];
    if (used_[f][a] != used_[f][b]) return used_[f][a] < used_[f][b];
    return means[f][a] > means[f][b];
  });
  // The baseline last: it carries no condition, but may let other factors take their values.
  if (baseline_[f] < levels_[f] && baseline_[f] != base_[f] &&
      (out.empty() || focus_has(suspects_, f)))
    out.push_back(baseline_[f]);
  return out;
}

std::optional<HuntFocus::Point> HuntFocus::next(SampleRng& rng, const Effects& means,
                                                const Check& accepts, const Check& measured) {
  size_t most = 0;
  for (size_t f = 0; f < levels_.size(); ++f)
    if (!focus_has(held_, f)) most = std::max(most, levels_[f]);
  if (!active_ || steps_ >= kFocusMaxSteps || (suspects_.empty() && pairing_ > most)) {
    active_ = false;
    return std::nullopt;
  }
  std::vector<size_t> stuck;  // suspects that could take no other value in an earlier try
  for (unsigned tries = 0; tries < kFocusTries; ++tries) {
    // Locating: keep the half of the suspects the model rates highest, those that could not
    // change before first (the other half is then tested by changing it).
    tested_.clear();
    if (suspects_.size() > 1) {
      std::vector<size_t> order = suspects_;
      focus_sort(order, [&](size_t a, size_t b) {
        if (focus_has(stuck, a) != focus_has(stuck, b)) return focus_has(stuck, a);
        return means[a][base_[a]] > means[b][base_[b]];
      });
      tested_.assign(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(order.size() / 2));
    }
    // From the focus point (which the client accepts), one factor at a time, the suspects to
    // change first, then the factors of the most values (a partner among many values is the
    // slowest to meet: its factor takes its best value before others' values can rule it out),
    // ties in random order: each takes its best value the client accepts with the changes so
    // far; a suspect that can take none is kept (tested) with the others.
    std::vector<size_t> order;
    for (size_t f = 0; f < levels_.size(); ++f)
      if (!focus_has(held_, f) && !focus_has(tested_, f)) order.push_back(f);
    for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
    focus_sort(order, [&](size_t a, size_t b) {
      if (focus_has(suspects_, a) != focus_has(suspects_, b)) return focus_has(suspects_, a);
      return levels_[a] > levels_[b];
    });
    // Twice: a value refused beside one factor's value may be accepted once that one changed.
    Point q = base_;
    for (int pass = 0; pass < 2; ++pass) {
      std::vector<size_t> kept;
      for (size_t f : order) {
        bool changed = false;
        for (size_t v : options(f, means, rng)) {
          q[f] = v;
          if (accepts(q)) {
            changed = true;
            break;
          }
        }
        if (!changed) {
          q[f] = base_[f];
          kept.push_back(f);
        }
      }
      order = kept;
    }
    for (size_t f : order)
      if (focus_has(suspects_, f)) {
        tested_.push_back(f);
        if (!focus_has(stuck, f)) stuck.push_back(f);
      }
    if (suspects_.size() > 1 && tested_.size() == suspects_.size()) break;  // no test left
    if (measured(q)) continue;
    for (size_t f = 0; f < q.size(); ++f)
      if (q[f] != base_[f]) ++used_[f][q[f]];
    ++steps_;
    return q;
  }
  active_ = false;
  tested_.clear();
  return std::nullopt;
}

}  // namespace rdmabench
