#include "orchestrator/hunt/hunter.h"

#include <algorithm>
#include <cmath>

namespace rdmabench {
namespace {

constexpr size_t kExplore = 5;     // one search point in kExplore drawn uniformly
constexpr unsigned kDraws = 1000;  // draws per asked point before plain random ones
// Search points a model learns from before it starts over: one that has followed nothing into an
// anomaly for that long follows what is slower by nature (a class measured again climbs a little
// above a new one, which draws it back), and keeps a flat landscape's search from stalling there.
constexpr size_t kModelSpan = 100;
constexpr unsigned kModelDraws = 100;  // draws of the model's best before its neighbours

// Every value of `trigger` is the workload's.
bool meets(const nlohmann::json& values, const nlohmann::json& trigger) {
  for (const auto& [k, v] : trigger.items())
    if (values.value(k, nlohmann::json()) != v) return false;
  return true;
}

// The anomaly found still shows: a term that fired at discovery fires (or, for none, any does).
// A failed run on either side matches any term: it measures no figure, so it cannot say which
// term its anomaly would show (a policed class's run fails when nothing completes in its window,
// measures a low rate when a little does, and loses packets either way).
bool persists(const Score& found, const Score& now) {
  const std::vector<std::string> was = found.fired();
  const std::vector<std::string> is = now.fired();
  const auto failed = [](const std::vector<std::string>& terms) {
    return std::find(terms.begin(), terms.end(), "failed") != terms.end();
  };
  if (!is.empty() && (was.empty() || failed(was) || failed(is))) return true;
  for (const std::string& t : is)
    if (std::find(was.begin(), was.end(), t) != was.end()) return true;
  return false;
}

std::vector<size_t> levels_of(const HuntSpec& spec) {
  std::vector<size_t> levels;
  for (const SearchDimension& d : spec.space) levels.push_back(d.size());
  return levels;
}

// Each factor's baseline as a value index (the factor's size where it is not one of its values:
// signal_every's 0, say, is no value of the space, and each of its values may be a condition).
std::vector<size_t> baseline_of(const HuntSpec& spec) {
  std::vector<size_t> base;
  for (const SearchDimension& d : spec.space) {
    size_t at = d.size();
    for (size_t i = 0; i < d.size(); ++i) {
      std::string reason;
      if (dimension_value(d, i, reason) == spec.baseline.value(d.key, nlohmann::json())) at = i;
    }
    base.push_back(at);
  }
  return base;
}

}  // namespace

const char* hunt_step_name(HuntStep s) {
  switch (s) {
    case HuntStep::kSearch:
      return "search";
    case HuntStep::kRepeat:
      return "repeat";
    case HuntStep::kReset:
      return "reset";
    case HuntStep::kConfirm:
      return "confirm";
  }
  return "?";
}

const char* case_state_name(CaseState s) {
  switch (s) {
    case CaseState::kRepeating:
      return "repeating";
    case CaseState::kResetting:
      return "resetting";
    case CaseState::kConfirming:
      return "confirming";
    case CaseState::kConfirmed:
      return "confirmed";
    case CaseState::kNotRepeated:
      return "not repeated";
    case CaseState::kNotConfirmed:
      return "not confirmed";
  }
  return "?";
}

Hunter::Hunter(HuntSpec spec, Check check)
    : spec_(std::move(spec)),
      check_(std::move(check)),
      scorer_(spec_.score),
      rng_(spec_.seed),
      model_(levels_of(spec_)),
      focus_(levels_of(spec_), baseline_of(spec_)) {}

void Hunter::start_model() { model_.clear(); }

nlohmann::json Hunter::values_of(const Point& p) const {
  nlohmann::json v = spec_.fixed;
  for (size_t i = 0; i < p.size(); ++i) {
    std::string reason;
    v[spec_.space[i].key] = dimension_value(spec_.space[i], p[i], reason);
  }
  return v;
}

Hunter::Point Hunter::random_point() {
  Point p;
  for (const SearchDimension& d : spec_.space) p.push_back(rng_.below(d.size()));
  return p;
}

// The model's best point for effects drawn from its posterior (Thompson sampling); after
// kModelDraws draws that gave only points measured or refused, one of its factors drawn
// uniformly instead (a neighbour of the model's best).
Hunter::Point Hunter::draw_point(unsigned tries) {
  Point p = HuntModel::best(model_.draw(rng_));
  if (tries >= kModelDraws) {
    const size_t f = rng_.below(p.size());
    p[f] = rng_.below(spec_.space[f].size());
  }
  return p;
}

bool Hunter::matches_known(const nlohmann::json& values) const {
  for (const AnomalyCase& c : cases_)
    if (c.state == CaseState::kConfirmed && meets(values, c.trigger)) return true;
  return false;
}

std::optional<Evaluation> Hunter::next() {
  if (!queue_.empty()) {
    Evaluation e = queue_.front();
    queue_.erase(queue_.begin());
    e.seq = ++seq_;
    return e;
  }
  if (search_ended_ || seq_ >= spec_.budget) return std::nullopt;
  if (focus_.active()) {
    const auto p = focus_.next(
        rng_, model_.mean(), [this](const Point& q) { return check_(values_of(q)).empty(); },
        [this](const Point& q) { return climbed_.count(values_of(q).dump()) != 0; });
    if (p) {
      asked_ = p;
      asked_by_focus_ = true;
      Evaluation e;
      e.seq = ++seq_;
      e.values = values_of(*p);
      return e;
    }
  }
  for (unsigned tries = 0; tries < 2 * kDraws; ++tries) {
    // Every kExplore-th point is drawn uniformly: what the model has not learnt stays in reach.
    const bool uniform = tries >= kDraws || (model_.points() + 1) % kExplore == 0;
    const Point p = uniform ? random_point() : draw_point(tries);
    const nlohmann::json v = values_of(p);
    if (climbed_.count(v.dump()) != 0 || !check_(v).empty()) continue;
    asked_ = p;
    asked_by_focus_ = false;
    Evaluation e;
    e.seq = ++seq_;
    e.values = v;
    return e;
  }
  return std::nullopt;  // nothing left to measure that the client accepts
}

void Hunter::observe(const Evaluation& e, const Measurement& m) {
  scorer_.learn(e.values, m);
  const Score s = scorer_.score(e.values, m);
  history_.push_back({e, m, s});
  if (e.step == HuntStep::kSearch) {
    const bool known = matches_known(e.values);
    const double climb = known ? 0 : s.climb;
    climbed_[e.values.dump()] = climb;
    if (asked_) {
      if (model_.points() == kModelSpan) start_model();
      model_.add(*asked_, climb);
      focus_.add(*asked_, s, asked_by_focus_);
    }
    asked_.reset();
    if (!s.anomalous()) return;
    if (known) {
      for (AnomalyCase& c : cases_)
        if (c.state == CaseState::kConfirmed && c.same_as == SIZE_MAX && meets(e.values, c.trigger))
          c.also_at.push_back(e.seq);
      return;
    }
    focus_.stop();  // the explanation first; the model starts over after it
    open_case(e, s);
    return;
  }
  AnomalyCase& c = cases_.at(e.case_index);
  if (e.step == HuntStep::kRepeat) {
    c.repeat = s;
    after_repeat(c);
  } else if (e.step == HuntStep::kReset) {
    for (FactorReset& r : c.resets)
      if (r.factor == e.factor) {
        r.score = s;
        r.removes = !m.refused && !persists(c.found, s);
        if (m.refused) r.refused = m.error;  // the device refuses it: the factor is kept
        if (!r.removes && r.refused.empty()) c.reduced[r.factor] = r.to;  // not needed
      }
    next_reset(c);
  } else {
    c.confirm = s;
    after_confirm(c, e.case_index, m);
  }
}

void Hunter::open_case(const Evaluation& e, const Score& s) {
  AnomalyCase c;
  c.values = e.values;
  c.found_at = e.seq;
  c.found = s;
  cases_.push_back(std::move(c));
  Evaluation again;
  again.step = HuntStep::kRepeat;
  again.values = e.values;
  again.case_index = cases_.size() - 1;
  queue_.push_back(std::move(again));
}

void Hunter::after_repeat(AnomalyCase& c) {
  if (!persists(c.found, *c.repeat)) {
    c.state = CaseState::kNotRepeated;
    return;
  }
  c.state = CaseState::kResetting;
  c.reduced = c.values;
  for (const SearchDimension& d : spec_.space)
    if (c.values[d.key] != spec_.baseline[d.key])
      c.resets.push_back({d.key, c.values[d.key], spec_.baseline[d.key], std::nullopt, "", false});
  next_reset(c);
}

// The next factor to set back, on top of those already set back (the anomaly stayed without
// them); refused ones are kept. After the last, the trigger.
void Hunter::next_reset(AnomalyCase& c) {
  for (FactorReset& r : c.resets) {
    if (r.score || !r.refused.empty()) continue;
    nlohmann::json v = c.reduced;
    v[r.factor] = r.to;
    r.refused = check_(v);
    if (!r.refused.empty()) continue;
    Evaluation e;
    e.step = HuntStep::kReset;
    e.values = std::move(v);
    e.factor = r.factor;
    e.case_index = static_cast<size_t>(&c - cases_.data());
    queue_.push_back(std::move(e));
    return;
  }
  after_resets(c);
}

void Hunter::after_resets(AnomalyCase& c) {
  for (const FactorReset& r : c.resets)
    if (r.removes || !r.refused.empty()) c.trigger[r.factor] = r.from;
  c.confirm_values = spec_.baseline_values();
  for (const auto& [k, v] : c.trigger.items()) c.confirm_values[k] = v;
  const std::string refused = check_(c.confirm_values);
  if (!refused.empty()) {
    c.state = CaseState::kNotConfirmed;
    c.note = "the baseline with only the trigger's values is refused: " + refused;
    return;
  }
  c.state = CaseState::kConfirming;
  Evaluation e;
  e.step = HuntStep::kConfirm;
  e.values = c.confirm_values;
  e.case_index = static_cast<size_t>(&c - cases_.data());
  queue_.push_back(std::move(e));
}

void Hunter::after_confirm(AnomalyCase& c, size_t index, const Measurement& m) {
  if (!persists(c.found, *c.confirm)) {
    c.state = CaseState::kNotConfirmed;
    c.note = m.refused
                 ? "the device refuses the baseline with only the trigger's values: " + m.error
                 : "the baseline with only the trigger's values is not anomalous";
    return;
  }
  c.state = CaseState::kConfirmed;
  start_model();  // look elsewhere: its trigger's points climb nothing from now on
  for (size_t i = 0; i < index; ++i)
    if (cases_[i].state == CaseState::kConfirmed && cases_[i].same_as == SIZE_MAX &&
        cases_[i].trigger == c.trigger) {
      c.same_as = i;
      cases_[i].also_at.push_back(c.found_at);
      return;
    }
}

std::vector<const AnomalyCase*> Hunter::anomalies() const {
  std::vector<const AnomalyCase*> out;
  for (const AnomalyCase& c : cases_)
    if (c.state == CaseState::kConfirmed && c.same_as == SIZE_MAX) out.push_back(&c);
  return out;
}

}  // namespace rdmabench
