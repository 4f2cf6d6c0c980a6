#pragma once
// `rdmabench check`'s expectations: one line of text each, parsed once into this description and
// judged against what the check measured (docs/health-checks.md). Two kinds:
//
//   node facts (read from the device and sysfs, no traffic):
//     port state = ACTIVE        port mtu >= 4096        port speed >= 100 Gb/s
//     port width = 4x            gid = roce-v2           fw = 20.31.1014
//     pcie width >= 16           pcie speed >= 16 GT/s
//   traffic figures (a short workload against the peer):
//     write bw 64K >= 90% of link        send ud bw 4K >= 20 Gb/s
//     read lat 8 p99 <= 5us              write lat 2 p50 <= 3.5 us
//
// Comparisons: =, !=, >=, <=, >, <. Text facts (state, width, gid, fw) take = and != only.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/result.h"
#include "model/workload.h"

namespace rdmabench {

enum class CheckSubject {
  kPortState,
  kPortMtu,
  kPortSpeed,
  kPortWidth,
  kGid,
  kFirmware,
  kPcieWidth,
  kPcieSpeed,
  kBandwidth,
  kLatency,
};

enum class CheckCompare { kEq, kNe, kGe, kLe, kGt, kLt };

struct CheckExpectation {
  std::string text;  // as given (normalised spacing), the name in every output line
  CheckSubject subject = CheckSubject::kPortState;
  CheckCompare cmp = CheckCompare::kEq;
  std::string text_value;  // text facts
  double value = 0;        // numbers: bytes (mtu), Gb/s, lanes, GT/s, ns (latency)
  bool of_link = false;    // bandwidth: `value` is a fraction (0.9) of the port's link rate
  // Traffic: the workload that measures it (op, QP type, mode, one size) and the statistic.
  Op op = Op::kWrite;
  QpType qp = QpType::kRc;
  Mode mode = Mode::kBw;
  uint64_t size = 0;
  std::string stat = "p99";  // latency: p50, p90, p99, p99.9, avg, max
  bool traffic() const {
    return subject == CheckSubject::kBandwidth || subject == CheckSubject::kLatency;
  }
};

// Parses one expectation. ConfigError (field "expect", the text, and the grammar above) for
// anything else.
CheckExpectation parse_check_expectation(const std::string& text);

// The node facts the expectations read, as the check collects them: {"port": {"state",
// "active_mtu", "speed_gbps", "width", "gid_types": [...], "usable_gid": bool}, "fw_ver",
// "pcie": {"width", "speed_gts", "max_width", "max_speed_gts"} (absent without sysfs)}.
using CheckFacts = nlohmann::json;

// What one expectation showed.
struct CheckOutcome {
  std::string expectation;
  bool pass = false;
  std::string measured;  // "ACTIVE", "4096", "12.3 Gb/s (91 % of 13.6 Gb/s link)", "" = none
  std::string expected;  // "= ACTIVE", ">= 90 % of link (12.2 Gb/s)"
  std::string reason;    // why it failed without a figure (no PCIe in sysfs, the run failed, ...)
  std::optional<double> figure;  // the number compared, in the expectation's unit
};

// Judges a node-fact expectation against `facts`.
CheckOutcome judge_node(const CheckExpectation& e, const CheckFacts& facts);
// Judges a traffic expectation against the size's result; `link_gbps` the port's rate (0:
// unknown, which fails an "of link" expectation with that reason).
CheckOutcome judge_traffic(const CheckExpectation& e, const SizeResult& r, double link_gbps);
// A traffic expectation whose run failed: FAIL with the run's error.
CheckOutcome failed_traffic(const CheckExpectation& e, const std::string& error);

void to_json(nlohmann::json& j, const CheckOutcome& o);
// --baseline: the traffic expectations of an earlier check's document, its figures made bounds
// with `tolerance` (0.1 = 10 %): a bandwidth at least (1 - tolerance) x the figure, a latency at
// most (1 + tolerance) x it, on the same op, QP type, mode, size and statistic. Its text says so
// ("write bw 64K >= 22.5 Gb/s (baseline 25 Gb/s - 10 %)"). Expectations without a figure (their
// run failed) are left out. ConfigError naming `path` for a document that is not a check's.
std::vector<CheckExpectation> baseline_expectations(const nlohmann::json& doc, double tolerance,
                                                    const std::string& path);
// A traffic expectation made a bound around `figure` (its unit) as baseline_expectations makes it.
CheckExpectation baseline_bound(CheckExpectation e, double figure, double tolerance);
// Reads an outcome back from a check document (ConfigError naming `path` for a bad one).
CheckOutcome check_outcome_from_json(const nlohmann::json& j, const std::string& path);
// "measured 1024, expected >= 4096" and "; REASON" when there is one: the text after the
// expectation in the check's line, and a failure's message in the exports.
std::string outcome_detail(const CheckOutcome& o);

}  // namespace rdmabench
