#pragma once
// Fabric campaigns, step one: turning a list of hosts and a traffic pattern into rounds of
// concurrent flows. Pure and deterministic (no device, no host is contacted): the same number
// of hosts, pattern and seed always give the same rounds, on every machine.
//
// A flow is one rdmabench run, a server and a client (indices into the caller's host list);
// data goes client -> server, the client driving the workload. A round is a set of flows meant
// to run at the same time. The pattern is a JSON object (its path, e.g. "/fabric", prefixes
// every error, as in campaign.h):
//
//   {"pattern": "pairwise", "directions": "both"}      every unordered pair of hosts
//   {"pattern": "incast", "degrees": [1, 2, 4], "targets": "all"}
//   {"pattern": "all-to-all"}
//   {"pattern": "ring", "shift": 1}
//   {"pattern": "bisection", "repetitions": 3, "seed": 7}
//   {"pattern": "pairs", "rounds": [[[0, 1], [2, 3]], [[1, 0]]]}
//
// pairwise    The round-robin tournament (circle method): n - 1 rounds of n / 2 disjoint pairs
//             for even n; for odd n, n rounds of (n - 1) / 2 pairs, each host sitting out
//             (a bye) exactly once. "directions": "both" (default) adds a second set of as many
//             rounds with the server and client of every pair swapped, so each direction of
//             every link is measured; "one" plans the first set only.
// incast      k clients sending to one server at once, for each degree k of `degrees` (each 1
//             to n - 1; no duplicates) and each target of `targets` (host indices, or "all",
//             the default): one round per (degree, target), degrees outer. The clients of
//             target t are the next k hosts after it, cyclically: t + 1, ..., t + k (mod n).
// all-to-all  One round where every host sends to every other: n (n - 1) flows, each host
//             serving n - 1 and driving n - 1.
// ring        Host i sends to host (i + shift) mod n, all at once: n flows. `shift` defaults to
//             1 and may be negative; 0 or a multiple of n is refused.
// bisection   A random perfect matching (odd n: one host left out), one round per repetition
//             (`repetitions`, default 1), each a fresh draw from one generator seeded with
//             `seed` (default 1); for small n two repetitions may draw the same matching.
// pairs       Explicit rounds: a list of rounds, each a list of [server, client] pairs of host
//             indices; a host at most once per round, never paired with itself. Host names
//             are not accepted here: the campaign code resolves them to indices before calling
//             parse_fabric_pattern.
//
// The per-host cap: a host's flows in one round (as server plus as client) may not exceed
// `max_flows_per_host`. A round over the cap is split into consecutive sub-rounds, greedily and
// order-preserving: its flows are taken in order and a new part starts when the next flow would
// take one of its hosts over the cap (concatenating the parts gives the round back). The labels
// then end in " part i/m". The all-to-all and ring flows are ordered so that this packs well:
// all-to-all with a cap c splits into ceil(2 (n - 1) / c) parts for even n (the fewest
// possible), a ring with a cap of 1 into 2 parts (3 when its cycles have odd length).
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace rdmabench {

// Limits of a plan: hosts, and flows over all rounds (counted before planning, so a plan that
// would not fit in memory is refused at once; pairwise and all-to-all reach it near 7,000 hosts).
inline constexpr size_t kMinFabricHosts = 2;
inline constexpr size_t kMaxFabricHosts = 100000;
inline constexpr uint64_t kMaxFabricFlows = 50000000;
inline constexpr uint32_t kMaxFabricRepetitions = 100000;

struct Flow {
  uint32_t server = 0;  // receives the data
  uint32_t client = 0;  // drives the workload, sends the data
  bool operator==(const Flow&) const = default;
};

struct Round {
  uint32_t index = 0;  // position in the plan (0-based)
  std::string label;   // e.g. "pairwise 3/7", "incast 4->host2", "ring +1", "bisection rep 2"
  std::vector<Flow> flows;
  bool operator==(const Round&) const = default;
};

enum class FabricPatternKind { kPairwise, kIncast, kAllToAll, kRing, kBisection, kPairs };

struct FabricPattern {
  FabricPatternKind kind = FabricPatternKind::kPairwise;
  std::string path;               // JSON path of the pattern object, for errors found when planning
  bool both_directions = true;    // pairwise
  bool together = false;          // pairwise, both directions in one round ("together")
  std::vector<uint32_t> degrees;  // incast
  bool all_targets = true;        // incast: every host is a target
  std::vector<uint32_t> targets;  // incast, when !all_targets
  int64_t shift = 1;              // ring
  uint32_t repetitions = 1;       // bisection
  uint64_t seed = 1;              // bisection
  std::vector<std::vector<Flow>> rounds;  // pairs
};

// The pattern's name as written in JSON ("pairwise", "all-to-all", ...).
std::string fabric_pattern_name(FabricPatternKind kind);

// Parses and checks a pattern object; ConfigError naming the JSON path below `path`, the bad
// value and what is allowed. Checks needing the number of hosts (indices in range, degrees,
// the ring's shift) are made by plan_rounds, with the same paths.
FabricPattern parse_fabric_pattern(const nlohmann::json& j, const std::string& path);

// Splits each round it is given against the per-host cap (above) and appends its parts to `plan`
// (indices continuing from plan.size()): what plan_rounds does to every round of a pattern, and
// the probes' idle round (fabric_probes.h) too. Hosts are indices below `hosts`.
class RoundSplitter {
 public:
  RoundSplitter(uint32_t hosts, uint32_t max_flows_per_host, std::vector<Round>& plan);
  void add(const std::string& label, std::vector<Flow>&& flows);

 private:
  uint32_t cap_;
  std::vector<uint32_t> load_;  // flows per host in the part being filled
  std::vector<size_t> cuts_;    // where each part of a round starts
  std::vector<Round>& plan_;
};

// The rounds of `pattern` over `hosts` hosts, each host in at most `max_flows_per_host` flows
// of a round (rounds over it are split, above). ConfigError for fewer than 2 or more than
// 100,000 hosts, a cap of 0, more than kMaxFabricFlows flows, and the pattern's own checks.
std::vector<Round> plan_rounds(size_t hosts, const FabricPattern& pattern,
                               uint32_t max_flows_per_host);

}  // namespace rdmabench
