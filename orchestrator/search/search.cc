#include "orchestrator/search/search.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "base/config_keys.h"
#include "base/error.h"
#include "base/json_util.h"
#include "model/workload.h"
#include "model/workload_fields.h"
#include "orchestrator/search/sampling.h"

namespace rdmabench {
namespace {

bool is_uint(const nlohmann::json& v) {
  return v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0);
}

// Throws for a key that is not a workload field, listing the known ones.
void check_field(const std::string& key, const nlohmann::json& v, const std::string& path) {
  if (is_workload_field(key)) return;
  std::string known;
  for (const auto& k : workload_field_keys()) known += (known.empty() ? "" : ", ") + k;
  throw ConfigError(path, brief_json(v), "unknown workload field; known fields: " + known);
}

const char* kDimensionForms =
    "a list of values, or a range of whole numbers {\"min\": A, \"max\": B, \"scale\": \"log2\"} "
    "(the powers of two from A to B) or {\"min\": A, \"max\": B, \"scale\": \"linear\", \"step\": "
    "S}";

// A range bound: the field's canonical value, which must be one whole number (sizes: one size).
uint64_t range_bound(const std::string& key, const nlohmann::json& v, const std::string& path) {
  const nlohmann::json c = canonical_field_value(key, v, path);
  if (is_uint(c)) return c.get<uint64_t>();
  if (key == "sizes" && c.is_array() && c.size() == 1) return c[0].get<uint64_t>();
  throw ConfigError(path, brief_json(v),
                    "one whole number: a range {min, max} needs a whole-number field (use a list "
                    "of values for " +
                        key + ")");
}

SearchDimension parse_dimension(const std::string& key, const nlohmann::json& v,
                                const std::string& p) {
  SearchDimension d;
  d.key = key;
  if (v.is_array()) {
    d.scale = "list";
    if (v.empty()) throw ConfigError(p, "[]", std::string("a non-empty list: ") + kDimensionForms);
    for (size_t i = 0; i < v.size(); ++i) {
      const std::string ip = p + "/" + std::to_string(i);
      nlohmann::json c = canonical_field_value(key, v[i], ip);
      if (std::find(d.values.begin(), d.values.end(), c) != d.values.end())
        throw ConfigError(ip, brief_json(v[i]), "a value not already in the list (duplicate)");
      d.values.push_back(std::move(c));
    }
    return d;
  }
  if (!v.is_object()) throw ConfigError(p, brief_json(v), kDimensionForms);
  check_keys(v, p, {"min", "max", "scale", "step"});
  auto need = [&](const char* k) -> const nlohmann::json& {
    auto it = v.find(k);
    if (it == v.end()) throw ConfigError(p + "/" + k, "(missing)", kDimensionForms);
    return *it;
  };
  const nlohmann::json& scale = need("scale");
  if (!scale.is_string() || (scale != "log2" && scale != "linear"))
    throw ConfigError(p + "/scale", brief_json(scale), "\"log2\" or \"linear\"");
  d.scale = scale.get<std::string>();
  const uint64_t lo = range_bound(key, need("min"), p + "/min");
  const uint64_t hi = range_bound(key, need("max"), p + "/max");
  if (hi < lo)
    throw ConfigError(p + "/max", brief_json(v["max"]),
                      "at least min (" + std::to_string(lo) + ")");
  if (d.scale == "log2") {
    if (v.contains("step"))
      throw ConfigError(p + "/step", brief_json(v["step"]), "no step with \"scale\": \"log2\"");
    for (unsigned s = 0; s < 64; ++s) {
      const uint64_t pw = uint64_t{1} << s;
      if (pw < lo || pw > hi) continue;
      d.values.push_back(canonical_field_value(key, nlohmann::json(pw), p));
    }
    if (d.values.empty())
      throw ConfigError(p + "/max", brief_json(v["max"]),
                        "a range holding at least one power of two (log2 samples the powers of two "
                        "from min to max)");
    return d;
  }
  d.lo = lo;
  if (auto it = v.find("step"); it != v.end()) {
    if (!is_uint(*it) || it->get<uint64_t>() < 1)
      throw ConfigError(p + "/step", brief_json(*it), "a whole number of at least 1");
    d.step = it->get<uint64_t>();
  }
  d.count = (hi - lo) / d.step + 1;
  if (d.count == 0) throw ConfigError(p + "/max", brief_json(v["max"]), "a smaller range");
  return d;
}

std::string value_text(const std::string& key, const nlohmann::json& v) {
  if (key == "sizes" && v.is_array()) {
    std::string t;
    for (const auto& s : v) t += (t.empty() ? "" : ",") + format_size(s.get<uint64_t>());
    return v.size() == 1 ? t : "[" + t + "]";
  }
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

}  // namespace

nlohmann::json dimension_value(const SearchDimension& d, size_t k, std::string& reason) {
  nlohmann::json raw = d.value(k);
  if (d.scale != "linear") return raw;
  try {
    return canonical_field_value(d.key, raw, d.key);
  } catch (const ConfigError& e) {
    if (reason.empty()) reason = e.what();
    return raw;
  }
}

std::vector<SearchDimension> parse_search_space(const nlohmann::json& space,
                                                const std::string& path) {
  if (!space.is_object() || space.empty())
    throw ConfigError(path, brief_json(space),
                      "a non-empty object: workload field -> list of values or range");
  std::vector<SearchDimension> dims;
  for (const auto& [key, v] : space.items()) {
    const std::string p = path + "/" + key;
    check_field(key, v, p);
    dims.push_back(parse_dimension(key, v, p));
  }
  return dims;
}

nlohmann::json parse_fixed_values(const nlohmann::json& fixed, const std::string& path,
                                  const std::vector<SearchDimension>& space) {
  if (!fixed.is_object())
    throw ConfigError(path, brief_json(fixed), "an object: workload field -> one value");
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [key, v] : fixed.items()) {
    const std::string p = path + "/" + key;
    check_field(key, v, p);
    for (const auto& d : space)
      if (d.key == key)
        throw ConfigError(p, brief_json(v), "a field that is not also a dimension of space");
    if (v.is_array() && !is_list_field(key))
      throw ConfigError(p, brief_json(v),
                        "one value (several values make a dimension: put " + key + " in space)");
    out[key] = canonical_field_value(key, v, p);
  }
  return out;
}

namespace {

// The steps of parse_search, one per key of the search block.

// "method": "random" or "lhs" (the default).
void parse_method(const nlohmann::json& j, const std::string& path, Search& s) {
  if (auto it = j.find("method"); it != j.end()) {
    if (!it->is_string() || (*it != "random" && *it != "lhs"))
      throw ConfigError(path + "/method", brief_json(*it),
                        "\"random\" or \"lhs\" (Latin hypercube)");
    s.method = *it == "random" ? SearchMethod::kRandom : SearchMethod::kLhs;
  }
}

// "budget" (required): the number of runs to draw.
void parse_budget(const nlohmann::json& j, const std::string& path, Search& s) {
  auto it = j.find("budget");
  if (it == j.end()) throw ConfigError(path + "/budget", "(missing)", "the number of runs to draw");
  if (!is_uint(*it) || it->get<uint64_t>() < 1 || it->get<uint64_t>() > kMaxSearchBudget)
    throw ConfigError(path + "/budget", brief_json(*it),
                      "a whole number of runs from 1 to " + std::to_string(kMaxSearchBudget));
  s.budget = it->get<uint64_t>();
}

// "seed": the generator's seed (default 1).
void parse_seed(const nlohmann::json& j, const std::string& path, Search& s) {
  if (auto it = j.find("seed"); it != j.end()) {
    if (!is_uint(*it))
      throw ConfigError(path + "/seed", brief_json(*it), "a non-negative whole number");
    s.seed = it->get<uint64_t>();
  }
}

// "space" (required): one dimension per workload field, in key order.
void parse_space(const nlohmann::json& j, const std::string& path, Search& s) {
  auto it = j.find("space");
  if (it == j.end())
    throw ConfigError(path + "/space", "(missing)",
                      "a non-empty object: workload field -> list of values or range");
  s.space = parse_search_space(*it, path + "/space");
}

// "fixed": one canonical value per workload field that is not a dimension.
void parse_fixed(const nlohmann::json& j, const std::string& path, Search& s) {
  if (auto it = j.find("fixed"); it != j.end())
    s.fixed = parse_fixed_values(*it, path + "/fixed", s.space);
}

// "cliff/along": a dimension of the space (which becomes the line, s.line_dim) or "sizes" when
// fixed gives several sizes.
std::string parse_along(const nlohmann::json& cliff, const std::string& path, Search& s) {
  const std::string p = path + "/cliff";
  auto a = cliff.find("along");
  const std::string allowed =
      "a dimension of space (or \"sizes\" when fixed gives several sizes): the field along "
      "which neighbouring points are compared";
  if (a == cliff.end()) throw ConfigError(p + "/along", "(missing)", allowed);
  if (!a->is_string()) throw ConfigError(p + "/along", brief_json(*a), allowed);
  const std::string along = a->get<std::string>();
  for (size_t i = 0; i < s.space.size(); ++i)
    if (s.space[i].key == along) s.line_dim = static_cast<int>(i);
  const bool fixed_sizes =
      along == "sizes" && s.fixed.contains("sizes") && s.fixed["sizes"].size() >= 2;
  if (s.line_dim < 0 && !fixed_sizes) throw ConfigError(p + "/along", brief_json(*a), allowed);
  if (s.line_dim >= 0 && along != "sizes" && s.space[s.line_dim].size() > kMaxLineValues)
    throw ConfigError(path + "/space/" + along, s.space[s.line_dim].describe(),
                      "at most " + std::to_string(kMaxLineValues) +
                          " values: every sample runs at each value along the cliff's dimension");
  return along;
}

// "cliff": the metric, the relative drop that counts as a cliff, and the field along which.
void parse_cliff(const nlohmann::json& cliff, const std::string& path, Search& s) {
  const std::string p = path + "/cliff";
  if (!cliff.is_object())
    throw ConfigError(p, brief_json(cliff), "an object {\"metric\", \"threshold\", \"along\"}");
  check_keys(cliff, p, {"metric", "threshold", "along"});
  CliffSpec c;
  if (auto m = cliff.find("metric"); m != cliff.end()) {
    if (!m->is_string() || (*m != "bw_gbps" && *m != "msg_rate"))
      throw ConfigError(p + "/metric", brief_json(*m), "\"bw_gbps\" or \"msg_rate\"");
    c.metric = *m == "bw_gbps" ? CliffMetric::kBwGbps : CliffMetric::kMsgRate;
  }
  if (auto t = cliff.find("threshold"); t != cliff.end()) {
    if (!t->is_number() || !(t->get<double>() > 0) || !(t->get<double>() < 1))
      throw ConfigError(p + "/threshold", brief_json(*t),
                        "a relative drop between 0 and 1 (exclusive), e.g. 0.3 for 30 %");
    c.threshold = t->get<double>();
  }
  c.along = parse_along(cliff, path, s);
  s.cliff = c;
}

// The budget must hold whole lines, and no more samples than the space holds distinct ones.
void check_budget(const Search& s, const std::string& path) {
  const size_t per = s.runs_per_sample();
  if (s.budget < per)
    throw ConfigError(path + "/budget", std::to_string(s.budget),
                      "at least " + std::to_string(per) + ": every sample runs at each of the " +
                          std::to_string(per) + " values of " + s.cliff->along);
  // The space (without the line's dimension) must hold as many distinct samples as drawn.
  uint64_t distinct = 1;
  for (size_t i = 0; i < s.space.size(); ++i) {
    if (static_cast<int>(i) == s.line_dim) continue;
    const uint64_t n = s.space[i].size();  // both factors capped: the product cannot overflow
    distinct = std::min<uint64_t>(distinct, kMaxSearchBudget + 1) *
               std::min<uint64_t>(n, kMaxSearchBudget + 1);
  }
  if (s.budget / per > distinct)
    throw ConfigError(path + "/budget", std::to_string(s.budget),
                      "at most " + std::to_string(distinct * per) + ": the space has only " +
                          std::to_string(distinct) + " distinct sample(s)" +
                          (per > 1 ? " of " + std::to_string(per) + " runs" : std::string()) +
                          " (a matrix runs them all)");
}

// The steps of draw_search.

using RunCheck = std::function<std::string(const nlohmann::json&)>;

// The dimensions a sample draws a value of: all but the cliff's line.
std::vector<size_t> sampled_dims(const Search& s) {
  std::vector<size_t> dims;
  for (size_t i = 0; i < s.space.size(); ++i)
    if (static_cast<int>(i) != s.line_dim) dims.push_back(i);
  return dims;
}

// A sample's values (coordinates `u` in [0,1) for `dims`); `reason`: why a value was refused.
nlohmann::json sample_of(const Search& s, const std::vector<size_t>& dims,
                         const std::vector<double>& u, std::string& reason) {
  nlohmann::json base = s.fixed;
  for (size_t k = 0; k < dims.size(); ++k) {
    const SearchDimension& d = s.space[dims[k]];
    base[d.key] = dimension_value(d, stratum(u[k], d.size()), reason);
  }
  return base;
}

// Every valid size of a line along "sizes", sorted and without repeats (for its one run).
std::vector<uint64_t> line_sizes(const SearchDimension& d) {
  std::set<uint64_t> all;
  for (size_t k = 0; k < d.size(); ++k) {
    std::string r;
    const nlohmann::json v = dimension_value(d, k, r);
    if (!r.empty()) continue;
    for (const auto& x : v) all.insert(x.get<uint64_t>());
  }
  return std::vector<uint64_t>(all.begin(), all.end());
}

// A sample's runs: one, or the line along the cliff's dimension; each checked by `check`.
std::vector<SearchRun> runs_of(const Search& s, const nlohmann::json& base,
                               const std::string& reason, const RunCheck& check) {
  std::vector<SearchRun> runs;
  if (s.line_dim < 0) {
    runs.push_back({base, reason});
  } else {
    const SearchDimension& d = s.space[static_cast<size_t>(s.line_dim)];
    if (d.key == "sizes") {  // one run measuring every size of the dimension
      std::vector<uint64_t> sizes = line_sizes(d);
      runs.push_back({base, reason});
      runs.back().values["sizes"] = std::move(sizes);
    } else {
      for (size_t k = 0; k < d.size(); ++k) {
        SearchRun r{base, reason};
        r.values[d.key] = dimension_value(d, k, r.skip_reason);
        runs.push_back(std::move(r));
      }
    }
  }
  for (auto& r : runs)
    if (r.skip_reason.empty()) r.skip_reason = check(r.values);
  return runs;
}

// Adds a sample's runs to `out`, counting the invalid ones.
void keep(SearchDraw& out, std::vector<SearchRun>& runs) {
  ++out.samples;
  for (auto& r : runs) {
    if (!r.skip_reason.empty()) ++out.invalid;
    out.runs.push_back(std::move(r));
  }
}

// Latin hypercube: one design of `wanted` samples; duplicates dropped, invalid runs kept.
SearchDraw draw_lhs(const Search& s, const std::vector<size_t>& dims, size_t wanted, SampleRng& rng,
                    const RunCheck& check) {
  SearchDraw out;
  std::set<std::string> seen;
  for (const auto& row : latin_hypercube(wanted, dims.size(), rng)) {
    std::string reason;
    const nlohmann::json base = sample_of(s, dims, row, reason);
    if (!seen.insert(base.dump()).second) {  // object keys are sorted: a canonical text
      ++out.duplicates;
      continue;
    }
    std::vector<SearchRun> runs = runs_of(s, base, reason, check);
    keep(out, runs);
  }
  return out;
}

// Random: draws until `wanted` distinct samples with a valid run each, within a bound of draws.
SearchDraw draw_random(const Search& s, const std::vector<size_t>& dims, size_t wanted,
                       SampleRng& rng, const RunCheck& check, const std::string& path) {
  SearchDraw out;
  std::set<std::string> seen;
  const size_t max_draws = 1000 + 10 * wanted;
  size_t draws = 0;
  while (out.samples < wanted) {
    if (draws++ >= max_draws)
      throw ConfigError(
          path + "/space",
          std::to_string(out.samples) + " distinct valid sample(s) in " +
              std::to_string(max_draws) + " draws",
          "a space with at least " + std::to_string(wanted) +
              " distinct samples the client accepts: widen the space or lower the budget");
    std::string reason;
    const nlohmann::json base = sample_of(s, dims, random_point(dims.size(), rng), reason);
    if (!seen.insert(base.dump()).second) {  // drawn before (kept, or invalid)
      ++out.redrawn;
      continue;
    }
    std::vector<SearchRun> runs = runs_of(s, base, reason, check);
    if (std::none_of(runs.begin(), runs.end(),
                     [](const SearchRun& r) { return r.skip_reason.empty(); })) {
      ++out.redrawn;
      continue;
    }
    keep(out, runs);
  }
  return out;
}

}  // namespace

nlohmann::json SearchDimension::value(size_t k) const {
  if (scale == "linear") return nlohmann::json(lo + static_cast<uint64_t>(k) * step);
  return values.at(k);
}

std::string SearchDimension::describe() const {
  if (scale == "list") {
    std::string t;
    for (const auto& v : values) t += (t.empty() ? "" : ", ") + value_text(key, v);
    return "[" + t + "]";
  }
  if (scale == "log2")
    return "log2 " + value_text(key, values.front()) + ".." + value_text(key, values.back()) +
           " (" + std::to_string(values.size()) + " values)";
  const uint64_t last = lo + (count - 1) * step;
  std::string t = "linear " + std::to_string(lo) + ".." + std::to_string(last);
  if (step != 1) t += " step " + std::to_string(step);
  return t + " (" + std::to_string(count) + " values)";
}

size_t Search::runs_per_sample() const {
  if (line_dim < 0) return 1;
  const SearchDimension& d = space[static_cast<size_t>(line_dim)];
  return d.key == "sizes" ? 1 : d.size();
}

std::vector<nlohmann::json> Search::along_order() const {
  if (line_dim < 0) return {};
  const SearchDimension& d = space[static_cast<size_t>(line_dim)];
  if (d.scale != "list" || d.key == "sizes") return {};
  for (const auto& v : d.values)
    if (!v.is_number()) return d.values;
  return {};
}

const char* search_method_name(SearchMethod m) {
  return m == SearchMethod::kRandom ? "random" : "lhs";
}

Search parse_search(const nlohmann::json& j, const std::string& path) {
  if (!j.is_object())
    throw ConfigError(
        path, brief_json(j),
        "an object {\"method\", \"budget\", \"seed\", \"space\", \"fixed\", \"cliff\"}");
  check_keys(j, path, {"method", "budget", "seed", "space", "fixed", "cliff"});
  // Key by key; the budget last, against the space and the cliff's line.
  Search s;
  parse_method(j, path, s);
  parse_budget(j, path, s);
  parse_seed(j, path, s);
  parse_space(j, path, s);
  parse_fixed(j, path, s);
  if (auto it = j.find("cliff"); it != j.end()) parse_cliff(*it, path, s);
  check_budget(s, path);
  return s;
}

SearchDraw draw_search(const Search& s,
                       const std::function<std::string(const nlohmann::json&)>& check,
                       const std::string& path) {
  const std::vector<size_t> dims = sampled_dims(s);
  const size_t wanted = s.budget / s.runs_per_sample();
  SampleRng rng(s.seed);
  if (s.method == SearchMethod::kLhs) return draw_lhs(s, dims, wanted, rng, check);
  return draw_random(s, dims, wanted, rng, check, path);
}

}  // namespace rdmabench
