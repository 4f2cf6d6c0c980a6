#pragma once
// A campaign's `search` block (instead of a `matrix`): sample a bounded space of workload fields
// with a budget of runs, by plain random sampling or Latin-hypercube sampling, from a seed
// (orchestrator/README.md, "Searching a space").
//
//   "search": {"method": "lhs", "budget": 16, "seed": 7,
//              "space": {"sizes": {"min": 8, "max": "1M", "scale": "log2"},
//                        "tx_depth": {"min": 1, "max": 1024, "scale": "log2"},
//                        "qp": ["rc", "uc"], "mtu": [1024, 4096]},
//              "fixed": {"op": "write", "iterations": 200},
//              "cliff": {"metric": "bw_gbps", "threshold": 0.3, "along": "sizes"}}
//
// Dimensions and fixed values are workload fields (the matrix keys of workload_fields.h), each
// checked by canonical_field_value, so a field the workload gains is searchable at once.
// A dimension is a list (categorical: those values, in that order) or a range of whole numbers
// {"min", "max", "scale": "log2"} (the powers of two from min to max) or
// {"min", "max", "scale": "linear", "step": S} (min, min+S, ... up to max).
//
// When the cliff's `along` field is a dimension of the space, that dimension is not sampled:
// every sample is a line run at each of its values (along "sizes": ONE run measuring all the
// sizes; along another field: one run per value), so that cliffs can be seen along it.
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "orchestrator/search/cliff.h"

namespace rdmabench {

enum class SearchMethod { kRandom, kLhs };

// Largest budget (runs drawn, per host pair and repetition).
inline constexpr uint64_t kMaxSearchBudget = 10000;
// Most values a line along a dimension other than sizes may have.
inline constexpr size_t kMaxLineValues = 64;

struct SearchDimension {
  std::string key;
  std::string scale;                     // "list", "log2" or "linear"
  std::vector<nlohmann::json> values;    // list and log2: the canonical values, in order
  uint64_t lo = 0, step = 1, count = 0;  // linear: lo, lo+step, ... (count values)

  size_t size() const { return scale == "linear" ? static_cast<size_t>(count) : values.size(); }
  // Value k (0 <= k < size()); for linear ranges not yet canonical (checked when drawn).
  nlohmann::json value(size_t k) const;
  // "log2 8..1M (18 values)", "[rc, uc]", "linear 1..100 step 3 (34 values)".
  std::string describe() const;
};

struct Search {
  SearchMethod method = SearchMethod::kLhs;
  uint64_t budget = 0;
  uint64_t seed = 1;
  std::vector<SearchDimension> space;               // in key order
  nlohmann::json fixed = nlohmann::json::object();  // canonical, applied to every run
  std::optional<CliffSpec> cliff;
  int line_dim = -1;  // index into `space` of the cliff's along dimension, or -1

  // Runs per sample: 1, or the values of the line dimension (1 again along "sizes").
  size_t runs_per_sample() const;
  // The along dimension's values in the space's order when it is categorical (for the cliff
  // positions); empty for numbers.
  std::vector<nlohmann::json> along_order() const;
};

// `j`: the "search" object; errors name paths under `path` (e.g. "/search/space/qp/1").
Search parse_search(const nlohmann::json& j, const std::string& path);

struct SearchRun {
  nlohmann::json values;    // canonical workload values (fixed + sample + line value)
  std::string skip_reason;  // "" = runs; else why the client refuses it
};

struct SearchDraw {
  std::vector<SearchRun> runs;  // sample by sample; along the line within a sample
  size_t samples = 0;           // distinct samples kept
  size_t redrawn = 0;           // random: draws replaced (duplicate, or no valid run)
  size_t duplicates = 0;        // lhs: samples dropped as equal to an earlier one
  size_t invalid = 0;           // runs kept as skipped (the client refuses them)
};

// Draws the runs of `s`. `check(values)` returns "" when the client accepts the values, else
// the reason it refuses them. Random sampling redraws a sample that repeats an earlier one or
// whose runs are all invalid (other invalid runs are kept, skipped); LHS keeps its design
// (stratification intact): invalid runs are kept as skipped, duplicate samples dropped.
// Deterministic: the same Search (seed included) gives the same runs. Throws ConfigError
// (naming `path`) when the space cannot give the budget.
SearchDraw draw_search(const Search& s,
                       const std::function<std::string(const nlohmann::json&)>& check,
                       const std::string& path);

const char* search_method_name(SearchMethod m);

// The parts of a search block other blocks share (a hunt's, orchestrator/hunt/hunt_spec.h).
// A "space" object: one dimension per workload field, in key order; errors name `path` ("/space").
std::vector<SearchDimension> parse_search_space(const nlohmann::json& space,
                                                const std::string& path);
// A "fixed" object: one canonical value per workload field that is not a dimension of `space`.
nlohmann::json parse_fixed_values(const nlohmann::json& fixed, const std::string& path,
                                  const std::vector<SearchDimension>& space);
// Canonical value k of dimension d, or (in `reason`, when empty) why the field refuses it.
nlohmann::json dimension_value(const SearchDimension& d, size_t k, std::string& reason);

}  // namespace rdmabench
