#include "orchestrator/fabric/fabric_plan.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <utility>

#include "base/config_keys.h"
#include "base/error.h"
#include "base/json_util.h"
#include "orchestrator/search/sampling.h"

namespace rdmabench {
namespace {

const std::pair<FabricPatternKind, const char*> kPatternNames[] = {
    {FabricPatternKind::kPairwise, "pairwise"},   {FabricPatternKind::kIncast, "incast"},
    {FabricPatternKind::kAllToAll, "all-to-all"}, {FabricPatternKind::kRing, "ring"},
    {FabricPatternKind::kBisection, "bisection"}, {FabricPatternKind::kPairs, "pairs"}};
const char* kPatterns = "one of pairwise, incast, all-to-all, ring, bisection, pairs";

// A whole number from `lo` to `hi` (json_uint's checks, with the path and what is allowed).
uint64_t get_uint(const nlohmann::json& v, const std::string& path, uint64_t lo, uint64_t hi,
                  const std::string& what) {
  const std::string allowed =
      what + ", a whole number from " + std::to_string(lo) + " to " + std::to_string(hi);
  try {
    const uint64_t x = json_uint(v, hi);
    if (x < lo) throw ConfigError(path, brief_json(v), allowed);
    return x;
  } catch (const std::domain_error&) {
    throw ConfigError(path, brief_json(v), allowed);
  }
}

uint32_t get_host(const nlohmann::json& v, const std::string& path) {
  if (v.is_string())
    throw ConfigError(path, brief_json(v),
                      "a host index (names are resolved to indices by the campaign, not here)");
  return static_cast<uint32_t>(get_uint(v, path, 0, kMaxFabricHosts - 1, "a host index"));
}

// A list of host pairs [server, client], no host twice: one round of the `pairs` pattern.
std::vector<Flow> parse_pairs_round(const nlohmann::json& j, const std::string& path) {
  const char* form = "a non-empty list of [server, client] pairs of host indices";
  if (!j.is_array() || j.empty()) throw ConfigError(path, brief_json(j), form);
  std::vector<Flow> flows;
  std::map<uint32_t, std::string> seen;  // host -> the path where it appears
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string p = path + "/" + std::to_string(i);
    if (!j[i].is_array() || j[i].size() != 2)
      throw ConfigError(p, brief_json(j[i]), "a pair [server, client] of host indices");
    const Flow f{get_host(j[i][0], p + "/0"), get_host(j[i][1], p + "/1")};
    if (f.server == f.client)
      throw ConfigError(p + "/1", brief_json(j[i][1]), "a client other than the server");
    for (const auto& [host, at] : {std::pair{f.server, p + "/0"}, std::pair{f.client, p + "/1"}}) {
      auto [where, added] = seen.emplace(host, at);
      if (!added)
        throw ConfigError(at, std::to_string(host),
                          "a host not already in this round (it is at " + where->second + ")");
    }
    flows.push_back(f);
  }
  return flows;
}

// ---- parsing each pattern's keys -------------------------------------------------------------

// "directions": "both" (the default), "one" or "together".
void parse_pairwise_pattern(const nlohmann::json& j, const std::string& path, FabricPattern& p) {
  check_keys(j, path, {"pattern", "directions"});
  if (auto d = j.find("directions"); d != j.end()) {
    if (!d->is_string() || (*d != "both" && *d != "one" && *d != "together"))
      throw ConfigError(path + "/directions", brief_json(*d),
                        "\"both\" (each pair twice, server and client swapped, in a second set "
                        "of rounds), \"together\" (both directions of each pair in one round: "
                        "half the rounds, two flows per host) or \"one\"");
    p.both_directions = *d != "one";
    p.together = *d == "together";
  }
}

// "degrees" (required, no duplicates) and "targets" ("all", the default, or host indices).
void parse_incast_pattern(const nlohmann::json& j, const std::string& path, FabricPattern& p) {
  check_keys(j, path, {"pattern", "degrees", "targets"});
  auto d = j.find("degrees");
  const char* degrees = "a non-empty list of incast degrees (clients per server), e.g. [1, 2, 4]";
  if (d == j.end()) throw ConfigError(path + "/degrees", "(missing)", degrees);
  if (!d->is_array() || d->empty()) throw ConfigError(path + "/degrees", brief_json(*d), degrees);
  for (size_t i = 0; i < d->size(); ++i) {
    const std::string at = path + "/degrees/" + std::to_string(i);
    const auto k = static_cast<uint32_t>(
        get_uint((*d)[i], at, 1, kMaxFabricHosts - 1, "an incast degree (clients per server)"));
    if (std::find(p.degrees.begin(), p.degrees.end(), k) != p.degrees.end())
      throw ConfigError(at, brief_json((*d)[i]), "a degree not already in the list (duplicate)");
    p.degrees.push_back(k);
  }
  if (auto t = j.find("targets"); t != j.end() && *t != "all") {
    const char* targets = "\"all\" or a non-empty list of host indices";
    if (!t->is_array() || t->empty()) throw ConfigError(path + "/targets", brief_json(*t), targets);
    p.all_targets = false;
    for (size_t i = 0; i < t->size(); ++i) {
      const std::string at = path + "/targets/" + std::to_string(i);
      const uint32_t h = get_host((*t)[i], at);
      if (std::find(p.targets.begin(), p.targets.end(), h) != p.targets.end())
        throw ConfigError(at, brief_json((*t)[i]), "a host not already in the list (duplicate)");
      p.targets.push_back(h);
    }
  }
}

// "shift": a non-zero whole number that fits an int64_t.
void parse_ring_pattern(const nlohmann::json& j, const std::string& path, FabricPattern& p) {
  check_keys(j, path, {"pattern", "shift"});
  if (auto s = j.find("shift"); s != j.end()) {
    const char* shift = "a whole number other than 0 (host i sends to host i + shift)";
    if (!s->is_number_integer() || (s->is_number_unsigned() && s->get<uint64_t>() > INT64_MAX))
      throw ConfigError(path + "/shift", brief_json(*s), shift);
    p.shift = s->get<int64_t>();
    if (p.shift == 0) throw ConfigError(path + "/shift", "0", shift);
  }
}

// "repetitions" and "seed", both optional.
void parse_bisection_pattern(const nlohmann::json& j, const std::string& path, FabricPattern& p) {
  check_keys(j, path, {"pattern", "repetitions", "seed"});
  if (auto r = j.find("repetitions"); r != j.end())
    p.repetitions = static_cast<uint32_t>(
        get_uint(*r, path + "/repetitions", 1, kMaxFabricRepetitions, "repetitions"));
  if (auto s = j.find("seed"); s != j.end())
    p.seed = get_uint(*s, path + "/seed", 0, UINT64_MAX, "a seed");
}

// "rounds" (required): each a list of [server, client] pairs.
void parse_pairs_pattern(const nlohmann::json& j, const std::string& path, FabricPattern& p) {
  check_keys(j, path, {"pattern", "rounds"});
  auto r = j.find("rounds");
  const char* rounds = "a non-empty list of rounds, each a list of [server, client] pairs";
  if (r == j.end()) throw ConfigError(path + "/rounds", "(missing)", rounds);
  if (!r->is_array() || r->empty()) throw ConfigError(path + "/rounds", brief_json(*r), rounds);
  for (size_t i = 0; i < r->size(); ++i)
    p.rounds.push_back(parse_pairs_round((*r)[i], path + "/rounds/" + std::to_string(i)));
}

// ---- planning --------------------------------------------------------------------------------

// Rounds of the circle method over n hosts: n - 1 for even n, n for odd n (with a dummy host n,
// whose partner sits out the round).
uint32_t tournament_rounds(uint32_t n) { return n % 2 == 0 ? n - 1 : n; }

// Round r of the tournament, appended to `flows`: host R = tournament_rounds(n) (the last host,
// or the dummy) is fixed and the others rotate; in round r, R meets r and, for k >= 1,
// (r + k) mod R meets (r - k) mod R. Server and client as first planned; `swapped` exchanges them.
void tournament_round(uint32_t n, uint32_t r, bool swapped, std::vector<Flow>& flows) {
  const uint32_t rounds = tournament_rounds(n);
  auto add = [&](uint32_t server, uint32_t client) {
    flows.push_back(swapped ? Flow{client, server} : Flow{server, client});
  };
  // The fixed host alternates between serving and driving (the dummy: r has its bye).
  if (rounds == n - 1) {
    if (r % 2 == 0) {
      add(rounds, r);
    } else {
      add(r, rounds);
    }
  }
  for (uint32_t k = 1; k < (rounds + 1) / 2; ++k) add((r + k) % rounds, (r + rounds - k) % rounds);
}

std::string fraction(uint64_t i, uint64_t n) { return std::to_string(i) + "/" + std::to_string(n); }

// Every pair once per round of the tournament, then (with "both" directions) again swapped; with
// "together", each round holds both directions of its pairs (each host serves one flow and
// drives the other: n - 1 rounds instead of 2 (n - 1), as ClusterKit does).
template <class F>
void generate_pairwise(uint32_t n, const FabricPattern& p, F& plan_round) {
  const uint32_t rounds = tournament_rounds(n);
  if (p.together) {
    for (uint32_t r = 0; r < rounds; ++r) {
      std::vector<Flow> flows;
      flows.reserve(2 * (n / 2));
      tournament_round(n, r, false, flows);
      tournament_round(n, r, true, flows);
      plan_round("pairwise " + fraction(r + 1, rounds) + " both ways", std::move(flows));
    }
    return;
  }
  for (bool swapped : {false, true}) {
    if (swapped && !p.both_directions) break;
    for (uint32_t r = 0; r < rounds; ++r) {
      std::vector<Flow> flows;
      flows.reserve(n / 2);
      tournament_round(n, r, swapped, flows);
      plan_round("pairwise " + fraction(r + 1, rounds) + (swapped ? " swapped" : ""),
                 std::move(flows));
    }
  }
}

// A round per degree and target: the target serves the k hosts after it.
template <class F>
void generate_incast(uint32_t n, const FabricPattern& p, F& plan_round) {
  std::vector<uint32_t> targets = p.targets;
  if (p.all_targets) {
    targets.resize(n);
    std::iota(targets.begin(), targets.end(), 0U);
  }
  for (uint32_t k : p.degrees) {
    for (uint32_t t : targets) {
      std::vector<Flow> flows;
      flows.reserve(k);
      for (uint32_t i = 1; i <= k; ++i) flows.push_back(Flow{t, (t + i) % n});
      plan_round("incast " + std::to_string(k) + "->host" + std::to_string(t), std::move(flows));
    }
  }
}

// One round of every ordered pair.
template <class F>
void generate_all_to_all(uint32_t n, F& plan_round) {
  // Tournament round by round, each direction in turn: every half is a matching, so the cap
  // splits the round into the fewest parts (fabric_plan.h).
  std::vector<Flow> flows;
  flows.reserve(size_t{n} * (n - 1));
  for (uint32_t r = 0; r < tournament_rounds(n); ++r) {
    tournament_round(n, r, false, flows);
    tournament_round(n, r, true, flows);
  }
  plan_round("all-to-all", std::move(flows));
}

// One round: every host i sends to host (i + shift) mod n.
template <class F>
void generate_ring(uint32_t n, const FabricPattern& p, F& plan_round) {
  const auto s = static_cast<uint32_t>((p.shift % n + n) % n);
  // i -> i + s decomposes into g = gcd(n, s) cycles x_j = c + j s of length L = n / g;
  // flow j of a cycle is x_j -> x_(j+1). Ordered: the even j (but the last when L is odd),
  // the odd j, then that last one: each group is a matching (a cap of 1 gives 2 or 3 parts).
  const uint32_t g = std::gcd(n, s), len = n / g;
  std::vector<Flow> flows;
  flows.reserve(n);
  for (uint32_t phase = 0; phase < 3; ++phase)
    for (uint32_t c = 0; c < g; ++c)
      for (uint32_t j = 0; j < len; ++j) {
        const bool last_odd = len % 2 == 1 && j == len - 1;
        if (phase == 2 ? last_odd : (j % 2 == phase && !last_odd)) {
          const auto x = static_cast<uint32_t>((c + uint64_t{j} * s) % n);
          flows.push_back(Flow{(x + s) % n, x});
        }
      }
  plan_round(std::string("ring ") + (p.shift > 0 ? "+" : "") + std::to_string(p.shift),
             std::move(flows));
}

// A round per repetition: the hosts shuffled (from the seed) and paired off in order.
template <class F>
void generate_bisection(uint32_t n, const FabricPattern& p, F& plan_round) {
  // Fisher-Yates written out, with SampleRng's unbiased bounded draws over std::mt19937_64:
  // std::shuffle and the standard distributions have no algorithm fixed by the standard, so
  // their results could differ between standard libraries; these do not.
  SampleRng rng(p.seed);
  std::vector<uint32_t> perm(n);
  for (uint32_t rep = 1; rep <= p.repetitions; ++rep) {
    std::iota(perm.begin(), perm.end(), 0U);
    for (uint32_t i = n; i > 1; --i) std::swap(perm[i - 1], perm[rng.below(i)]);
    std::vector<Flow> flows;
    flows.reserve(n / 2);
    for (uint32_t i = 0; i + 1 < n; i += 2) flows.push_back(Flow{perm[i], perm[i + 1]});
    plan_round("bisection rep " + std::to_string(rep), std::move(flows));
  }
}

// The flows of every round, before the cap; `plan_round` receives each (and takes it over).
template <class F>
void generate(uint32_t n, const FabricPattern& p, F&& plan_round) {
  switch (p.kind) {
    case FabricPatternKind::kPairwise:
      generate_pairwise(n, p, plan_round);
      break;
    case FabricPatternKind::kIncast:
      generate_incast(n, p, plan_round);
      break;
    case FabricPatternKind::kAllToAll:
      generate_all_to_all(n, plan_round);
      break;
    case FabricPatternKind::kRing:
      generate_ring(n, p, plan_round);
      break;
    case FabricPatternKind::kBisection:
      generate_bisection(n, p, plan_round);
      break;
    case FabricPatternKind::kPairs:
      for (size_t r = 0; r < p.rounds.size(); ++r)
        plan_round("pairs " + fraction(r + 1, p.rounds.size()), std::vector<Flow>(p.rounds[r]));
      break;
  }
}

// Flows the plan will hold, and the checks that need the number of hosts.
uint64_t count_flows(uint32_t n, const FabricPattern& p) {
  auto in_range = [&](uint32_t host, const std::string& at) {
    if (host >= n)
      throw ConfigError(at, std::to_string(host),
                        "a host index below " + std::to_string(n) + " (the number of hosts)");
  };
  switch (p.kind) {
    case FabricPatternKind::kPairwise:
      return uint64_t{p.both_directions ? 2U : 1U} * tournament_rounds(n) * (n / 2);
    case FabricPatternKind::kIncast: {
      uint64_t sum = 0;
      for (size_t i = 0; i < p.degrees.size(); ++i) {
        if (p.degrees[i] >= n)
          throw ConfigError(p.path + "/degrees/" + std::to_string(i), std::to_string(p.degrees[i]),
                            "a degree from 1 to " + std::to_string(n - 1) + " (the hosts but one)");
        sum += p.degrees[i];
      }
      for (size_t i = 0; i < p.targets.size(); ++i)
        in_range(p.targets[i], p.path + "/targets/" + std::to_string(i));
      return sum * (p.all_targets ? n : p.targets.size());
    }
    case FabricPatternKind::kAllToAll:
      return uint64_t{n} * (n - 1);
    case FabricPatternKind::kRing:
      if (p.shift % n == 0)
        throw ConfigError(
            p.path + "/shift", std::to_string(p.shift),
            "a shift that is not a multiple of " + std::to_string(n) + " (the number of hosts)");
      return n;
    case FabricPatternKind::kBisection:
      return uint64_t{p.repetitions} * (n / 2);
    case FabricPatternKind::kPairs: {
      uint64_t sum = 0;
      for (size_t r = 0; r < p.rounds.size(); ++r)
        for (size_t i = 0; i < p.rounds[r].size(); ++i) {
          const std::string at = p.path + "/rounds/" + std::to_string(r) + "/" + std::to_string(i);
          in_range(p.rounds[r][i].server, at + "/0");
          in_range(p.rounds[r][i].client, at + "/1");
          ++sum;
        }
      return sum;
    }
  }
  return 0;
}

}  // namespace

std::string fabric_pattern_name(FabricPatternKind kind) {
  for (const auto& [k, name] : kPatternNames)
    if (k == kind) return name;
  return "?";
}

FabricPattern parse_fabric_pattern(const nlohmann::json& j, const std::string& path) {
  if (!j.is_object())
    throw ConfigError(path, brief_json(j),
                      std::string("an object {\"pattern\": ...}, ") + kPatterns);
  FabricPattern p;
  p.path = path;
  auto it = j.find("pattern");
  if (it == j.end()) throw ConfigError(path + "/pattern", "(missing)", kPatterns);
  bool known = false;
  for (const auto& [k, name] : kPatternNames) {
    if (it->is_string() && *it == name) {
      p.kind = k;
      known = true;
    }
  }
  if (!known) throw ConfigError(path + "/pattern", brief_json(*it), kPatterns);

  switch (p.kind) {
    case FabricPatternKind::kPairwise:
      parse_pairwise_pattern(j, path, p);
      break;
    case FabricPatternKind::kIncast:
      parse_incast_pattern(j, path, p);
      break;
    case FabricPatternKind::kAllToAll:
      check_keys(j, path, {"pattern"});
      break;
    case FabricPatternKind::kRing:
      parse_ring_pattern(j, path, p);
      break;
    case FabricPatternKind::kBisection:
      parse_bisection_pattern(j, path, p);
      break;
    case FabricPatternKind::kPairs:
      parse_pairs_pattern(j, path, p);
      break;
  }
  return p;
}

RoundSplitter::RoundSplitter(uint32_t hosts, uint32_t max_flows_per_host, std::vector<Round>& plan)
    : cap_(max_flows_per_host), load_(hosts), plan_(plan) {}

void RoundSplitter::add(const std::string& label, std::vector<Flow>&& flows) {
  cuts_.assign(1, 0);
  for (size_t i = 0; i < flows.size(); ++i) {
    const Flow& f = flows[i];
    if (load_[f.server] >= cap_ || load_[f.client] >= cap_) {
      for (size_t k = cuts_.back(); k < i; ++k) load_[flows[k].server] = load_[flows[k].client] = 0;
      cuts_.push_back(i);
    }
    ++load_[f.server];
    ++load_[f.client];
  }
  for (size_t k = cuts_.back(); k < flows.size(); ++k)
    load_[flows[k].server] = load_[flows[k].client] = 0;
  cuts_.push_back(flows.size());
  const size_t parts = cuts_.size() - 1;
  if (parts == 1) {
    plan_.push_back(Round{static_cast<uint32_t>(plan_.size()), label, std::move(flows)});
    return;
  }
  for (size_t i = 0; i < parts; ++i) {
    Round r;
    r.index = static_cast<uint32_t>(plan_.size());
    r.label = label + " part " + fraction(i + 1, parts);
    r.flows.assign(flows.begin() + static_cast<std::ptrdiff_t>(cuts_[i]),
                   flows.begin() + static_cast<std::ptrdiff_t>(cuts_[i + 1]));
    plan_.push_back(std::move(r));
  }
}

std::vector<Round> plan_rounds(size_t hosts, const FabricPattern& pattern,
                               uint32_t max_flows_per_host) {
  if (hosts < kMinFabricHosts || hosts > kMaxFabricHosts)
    throw ConfigError("hosts", std::to_string(hosts),
                      "2 to " + std::to_string(kMaxFabricHosts) + " hosts");
  if (max_flows_per_host == 0)
    throw ConfigError("max_flows_per_host", "0", "at least 1 flow per host and round");
  const auto n = static_cast<uint32_t>(hosts);
  const uint64_t total = count_flows(n, pattern);
  if (total > kMaxFabricFlows)
    throw ConfigError(pattern.path,
                      fabric_pattern_name(pattern.kind) + " over " + std::to_string(n) +
                          " hosts: " + std::to_string(total) + " flows",
                      "a plan of at most " + std::to_string(kMaxFabricFlows) + " flows");

  std::vector<Round> plan;
  RoundSplitter split(n, max_flows_per_host, plan);
  auto plan_round = [&](const std::string& label, std::vector<Flow>&& flows) {
    split.add(label, std::move(flows));
  };
  generate(n, pattern, plan_round);
  return plan;
}

}  // namespace rdmabench
