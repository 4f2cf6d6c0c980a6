// The hunt measured as a search (bench/README.md, "Hunting"): the real Hunter (orchestrator/hunt/)
// against synthetic landscapes, beside the existing search's random and Latin-hypercube draws
// (orchestrator/search/), over many seeds. A landscape is a measurement function of the workload
// values with a planted trigger of one, two or three factors in the hunt's default space (about
// 10^7 combinations, the client's own checks deciding which are valid): inside the trigger the
// run loses packets (2,000 per million) and its bandwidth falls to 30 %; outside, bandwidth
// follows op and size with 10 % noise and mild effects of depth, QPs and threads (slower by
// nature, never anomalous). Two flavours:
//   counters: loss rises as a workload nears the trigger (80 per million times the fraction of
//             its conditions met: below the loss term's limit of 100) — what a device's
//             congestion or retry counters give before a loss becomes an anomaly;
//   flat:     nothing until the trigger is hit.
// For each seed: evaluations until the first evaluation inside the trigger (all three methods),
// and for the hunt until it names the planted trigger (its confirmation measured).
//
// usage: rdmabench_hunt_bench [--seeds N] [--cap EVALUATIONS] [--factors N (only triggers of N)]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/error.h"
#include "model/workload_fields.h"
#include "orchestrator/hunt/hunter.h"
#include "orchestrator/search/sampling.h"
#include "orchestrator/search/search.h"

namespace rdmabench {
namespace {

// A planted condition: the factor's value equals `value`, or (sizes) is at least `at_least`.
struct Condition {
  std::string key;
  nlohmann::json value;
  uint64_t at_least = 0;
  bool holds(const nlohmann::json& values) const {
    const nlohmann::json& v = values.at(key);
    if (at_least != 0) return v.at(0).get<uint64_t>() >= at_least;
    return v == value;
  }
};

struct Landscape {
  std::vector<Condition> trigger;
  bool counters = true;

  size_t matched(const nlohmann::json& values) const {
    size_t m = 0;
    for (const auto& c : trigger) m += c.holds(values) ? 1 : 0;
    return m;
  }
  Measurement measure(const nlohmann::json& values, SampleRng& noise) const {
    Measurement m;
    m.ok = true;
    const double size = static_cast<double>(values.at("sizes").at(0).get<uint64_t>());
    const std::string op = values.at("op");
    const double depth = static_cast<double>(values.at("tx_depth").get<uint64_t>());
    double gbps = 25 * size / (size + 4096) * (op == "read" ? 0.8 : 1.0);
    gbps *= 0.8 + 0.2 * std::min(1.0, depth / 128);
    gbps *= values.at("threads") == 2 ? 1.1 : 1.0;
    gbps *= 1 + 0.1 * (2 * noise.unit() - 1);
    const size_t k = matched(values);
    const double f = static_cast<double>(k) / static_cast<double>(trigger.size());
    m.loss_ppm = counters && k < trigger.size() ? 80 * f : 0;
    if (k == trigger.size()) {
      m.loss_ppm = 2000;
      gbps *= 0.3;
    }
    if (values.at("mode") == "lat") {
      m.p50_ns = (2000 + size / 10) * (1 + 0.1 * noise.unit());
      m.p99_ns = *m.p50_ns * (1.5 + 0.5 * noise.unit()) * (k == trigger.size() ? 30 : 1);
    } else {
      m.gbps = gbps;
    }
    return m;
  }
};

const auto& check = client_refusal;

// A trigger of `factors` conditions on distinct factors, none met by the baseline.
// The factors a trigger is drawn among: any of eight, or the four of 4 values or more (rarer).
const std::vector<std::string> kAnyFactor = {"sizes",     "tx_depth",       "signal_every", "sge",
                                             "post_list", "qps_per_thread", "mtu",          "tos"};
const std::vector<std::string> kWideFactor = {"sizes", "tx_depth", "signal_every", "tos"};

Landscape plant(const HuntSpec& spec, const std::vector<std::string>& pool, size_t factors,
                bool counters, SampleRng& rng) {
  std::vector<std::string> keys = pool;
  Landscape l;
  l.counters = counters;
  for (size_t i = 0; i < factors; ++i) {
    std::swap(keys[i], keys[i + rng.below(keys.size() - i)]);
    const SearchDimension* d = nullptr;
    for (const auto& x : spec.space)
      if (x.key == keys[i]) d = &x;
    Condition c{keys[i], nlohmann::json(), 0};
    do {
      std::string r;
      c.value = dimension_value(*d, rng.below(d->size()), r);
    } while (c.value == spec.baseline.at(c.key));
    l.trigger.push_back(c);
  }
  return l;
}

// The hunt: evaluations to the first one inside the trigger, and to naming it.
std::pair<std::optional<uint64_t>, std::optional<uint64_t>> run_hunt(HuntSpec spec,
                                                                     const Landscape& l,
                                                                     uint64_t seed) {
  spec.seed = seed;
  Hunter h(spec, check);
  SampleRng noise(seed * 7919 + 1);
  std::optional<uint64_t> hit;
  while (auto e = h.next()) {
    if (!hit && l.matched(e->values) == l.trigger.size()) hit = e->seq;
    h.observe(*e, l.measure(e->values, noise));
    for (const AnomalyCase* a : h.anomalies()) {
      bool same = a->trigger.size() == l.trigger.size();
      for (const auto& c : l.trigger) same = same && a->trigger.contains(c.key);
      if (same) return {hit, a->confirm ? h.history().back().evaluation.seq : 0};
    }
  }
  return {hit, std::nullopt};
}

// The existing search's draw (random or LHS) of `cap` runs: evaluations to the first inside.
std::optional<uint64_t> run_draw(const HuntSpec& spec, SearchMethod method, const Landscape& l,
                                 uint64_t seed, uint64_t cap) {
  Search s;
  s.method = method;
  s.budget = cap;
  s.seed = seed;
  s.space = spec.space;
  s.fixed = spec.fixed;
  const SearchDraw d = draw_search(s, check, "/search");
  uint64_t n = 0;
  for (const SearchRun& r : d.runs) {
    if (!r.skip_reason.empty()) continue;  // refused: never measured
    ++n;
    if (l.matched(r.values) == l.trigger.size()) return n;
  }
  return std::nullopt;
}

struct Column {
  std::vector<uint64_t> found;
  size_t missed = 0;
  void add(std::optional<uint64_t> v) {
    if (v)
      found.push_back(*v);
    else
      ++missed;
  }
  std::string text(size_t seeds) const {
    std::vector<uint64_t> f = found;
    std::sort(f.begin(), f.end());
    auto pct = [&](double q) -> std::string {
      // Misses count as more than the cap: a percentile past the found ones is "-".
      const auto at = static_cast<size_t>(std::lround(q * static_cast<double>(seeds - 1)));
      return at < f.size() ? std::to_string(f[at]) : std::string("-");
    };
    char b[96];
    std::snprintf(b, sizeof b, "%zu/%zu | %s | %s", f.size(), seeds, pct(0.5).c_str(),
                  pct(0.9).c_str());
    return b;
  }
};

int run(int argc, char** argv) {
  uint64_t seeds = 100;
  uint64_t cap = 2000;
  uint64_t only = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--seeds") == 0) seeds = std::strtoull(argv[i + 1], nullptr, 10);
    if (std::strcmp(argv[i], "--cap") == 0) cap = std::strtoull(argv[i + 1], nullptr, 10);
    if (std::strcmp(argv[i], "--factors") == 0) only = std::strtoull(argv[i + 1], nullptr, 10);
  }
  HuntSpec spec = parse_hunt({{"budget", cap}}, "/hunt");
  std::printf("space: %llu combinations; %llu seeds; at most %llu evaluations each\n\n",
              static_cast<unsigned long long>(spec.combinations()),
              static_cast<unsigned long long>(seeds), static_cast<unsigned long long>(cap));
  std::printf("| factors | landscape | trigger | method | found | median | p90 |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  for (const auto* pool : {&kAnyFactor, &kWideFactor})
    for (bool counters : {true, false}) {
      for (size_t factors = 1; factors <= 3; ++factors) {
        if (only != 0 && factors != only) continue;
        Column hunt_hit, hunt_named, random_hit, lhs_hit;
        for (uint64_t seed = 1; seed <= seeds; ++seed) {
          SampleRng rng(seed * 1000003 + factors);
          const Landscape l = plant(spec, *pool, factors, counters, rng);
          auto [hit, named] = run_hunt(spec, l, seed);
          hunt_hit.add(hit);
          hunt_named.add(named);
          random_hit.add(run_draw(spec, SearchMethod::kRandom, l, seed, cap));
          lhs_hit.add(run_draw(spec, SearchMethod::kLhs, l, seed, cap));
        }
        const std::string name = std::string(pool == &kAnyFactor ? "any | " : "wide | ") +
                                 (counters ? "counters" : "flat");
        std::printf("| %s | %zu | hunt: first hit | %s |\n", name.c_str(), factors,
                    hunt_hit.text(seeds).c_str());
        std::printf("| %s | %zu | hunt: trigger named | %s |\n", name.c_str(), factors,
                    hunt_named.text(seeds).c_str());
        std::printf("| %s | %zu | random | %s |\n", name.c_str(), factors,
                    random_hit.text(seeds).c_str());
        std::printf("| %s | %zu | lhs | %s |\n", name.c_str(), factors,
                    lhs_hit.text(seeds).c_str());
        std::fflush(stdout);
      }
    }
  return 0;
}

}  // namespace
}  // namespace rdmabench

int main(int argc, char** argv) { return rdmabench::run(argc, argv); }
