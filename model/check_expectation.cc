#include "model/check_expectation.h"

#include <cctype>
#include <cmath>
#include <regex>
#include <sstream>

#include "base/error.h"
#include "base/number_text.h"
#include "model/result.h"

namespace rdmabench {
namespace {

constexpr const char* kGrammar =
    "'port state|mtu|speed|width CMP VALUE', 'gid = usable|roce-v2|roce-v1|ib', 'fw CMP "
    "VERSION', 'pcie width|speed CMP VALUE', 'OP [rc|uc|ud] bw SIZE CMP X Gb/s|Mb/s|P% of link' "
    "or 'OP [rc|uc|ud] lat SIZE [p50|p90|p99|p99.9|avg|max] CMP X ns|us|ms', CMP one of = != >= "
    "<= > < (e.g. 'write bw 64K >= 90% of link', 'read lat 8 p99 <= 5us', 'port mtu >= 4096')";

[[noreturn]] void bad(const std::string& text, const std::string& why) {
  throw ConfigError("expect", text, why + "; expectations read " + kGrammar);
}

CheckCompare parse_compare(const std::string& s) {
  if (s == "=" || s == "==") return CheckCompare::kEq;
  if (s == "!=") return CheckCompare::kNe;
  if (s == ">=") return CheckCompare::kGe;
  if (s == "<=") return CheckCompare::kLe;
  if (s == ">") return CheckCompare::kGt;
  return CheckCompare::kLt;
}

std::string compare_text(CheckCompare c) {
  switch (c) {
    case CheckCompare::kEq:
      return "=";
    case CheckCompare::kNe:
      return "!=";
    case CheckCompare::kGe:
      return ">=";
    case CheckCompare::kLe:
      return "<=";
    case CheckCompare::kGt:
      return ">";
    case CheckCompare::kLt:
      return "<";
  }
  return "?";
}

bool holds(double measured, CheckCompare c, double expected) {
  switch (c) {
    case CheckCompare::kEq:
      return measured == expected;
    case CheckCompare::kNe:
      return measured != expected;
    case CheckCompare::kGe:
      return measured >= expected;
    case CheckCompare::kLe:
      return measured <= expected;
    case CheckCompare::kGt:
      return measured > expected;
    case CheckCompare::kLt:
      return measured < expected;
  }
  return false;
}

// A number and an optional unit ("5us", "4096", "16 GT/s"); `units` maps each allowed unit to
// its factor, "" (no unit) only when listed.
double number_with_unit(const std::string& text, const std::string& value,
                        const std::vector<std::pair<std::string, double>>& units) {
  static const std::regex re(R"(([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*(\S*))");
  std::smatch m;
  if (!std::regex_match(value, m, re)) bad(text, "'" + value + "' is not a number with a unit");
  std::string allowed;
  for (const auto& [unit, factor] : units) {
    if (m[2].str() == unit) return std::stod(m[1].str()) * factor;
    allowed += (allowed.empty() ? "" : ", ") + (unit.empty() ? std::string("none") : unit);
  }
  bad(text, "unit '" + m[2].str() + "' is not one of: " + allowed);
}

bool text_subject(CheckSubject s) {
  return s == CheckSubject::kPortState || s == CheckSubject::kPortWidth || s == CheckSubject::kGid;
}

void parse_node_value(CheckExpectation& e, const std::string& value) {
  switch (e.subject) {
    case CheckSubject::kPortState:
    case CheckSubject::kPortWidth:
    case CheckSubject::kFirmware:
      e.text_value = value;
      return;
    case CheckSubject::kGid:
      if (value != "usable" && value != "roce-v2" && value != "roce-v1" && value != "ib")
        bad(e.text, "gid is one of usable, roce-v2, roce-v1, ib");
      e.text_value = value;
      return;
    case CheckSubject::kPortMtu:
      e.value = number_with_unit(e.text, value, {{"", 1}});
      return;
    case CheckSubject::kPortSpeed:
      e.value = number_with_unit(e.text, value, {{"", 1}, {"Gb/s", 1}, {"Mb/s", 1e-3}});
      return;
    case CheckSubject::kPcieWidth:
      e.value = number_with_unit(e.text, value, {{"", 1}, {"x", 1}});
      return;
    case CheckSubject::kPcieSpeed:
      e.value = number_with_unit(e.text, value, {{"", 1}, {"GT/s", 1}});
      return;
    default:
      return;
  }
}

std::optional<CheckExpectation> parse_node(const std::string& text) {
  static const std::regex re(
      R"((port state|port mtu|port speed|port width|gid|fw|pcie width|pcie speed)\s*(==|=|!=|>=|<=|>|<)\s*(\S.*))");
  std::smatch m;
  if (!std::regex_match(text, m, re)) return std::nullopt;
  static const std::vector<std::pair<std::string, CheckSubject>> subjects = {
      {"port state", CheckSubject::kPortState},
      {"port mtu", CheckSubject::kPortMtu},
      {"port speed", CheckSubject::kPortSpeed},
      {"port width", CheckSubject::kPortWidth},
      {"gid", CheckSubject::kGid},
      {"fw", CheckSubject::kFirmware},
      {"pcie width", CheckSubject::kPcieWidth},
      {"pcie speed", CheckSubject::kPcieSpeed}};
  CheckExpectation e;
  e.text = text;
  for (const auto& [name, s] : subjects)
    if (m[1].str() == name) e.subject = s;
  e.cmp = parse_compare(m[2].str());
  if (text_subject(e.subject) && e.cmp != CheckCompare::kEq && e.cmp != CheckCompare::kNe)
    bad(text, m[1].str() + " takes = or != only");
  parse_node_value(e, m[3].str());
  return e;
}

template <typename E>
E named(const std::string& text, const std::string& word, E last, const char* what) {
  for (int i = 0; i <= static_cast<int>(last); ++i)
    if (to_string(static_cast<E>(i)) == word) return static_cast<E>(i);
  bad(text, "'" + word + "' is not " + what);
}

CheckExpectation parse_traffic(const std::string& text) {
  static const std::regex re(
      R"((\w+)(?:\s+(rc|uc|ud))?\s+(bw|lat)\s+(\S+)(?:\s+(p50|p90|p99|p99\.9|avg|max))?\s*(==|=|!=|>=|<=|>|<)\s*(\S.*))");
  std::smatch m;
  if (!std::regex_match(text, m, re)) bad(text, "not an expectation");
  CheckExpectation e;
  e.text = text;
  e.op = named(text, m[1].str(), Op::kCmpSwap, "an op (send, send_imm, write, ...)");
  if (m[2].matched) e.qp = named(text, m[2].str(), QpType::kUd, "a QP type");
  e.mode = m[3].str() == "bw" ? Mode::kBw : Mode::kLat;
  e.subject = e.mode == Mode::kBw ? CheckSubject::kBandwidth : CheckSubject::kLatency;
  try {
    e.size = parse_size(m[4].str(), "expect");
  } catch (const ConfigError&) {
    bad(text, "'" + m[4].str() + "' is not a message size (8, 4K, 1M)");
  }
  if (e.mode == Mode::kBw && m[5].matched) bad(text, "a bandwidth expectation takes no percentile");
  if (m[5].matched) e.stat = m[5].str();
  e.cmp = parse_compare(m[6].str());
  const std::string value = m[7].str();
  static const std::regex link(R"(([0-9]*\.?[0-9]+)\s*%\s*of\s+link)");
  std::smatch lm;
  if (e.mode == Mode::kBw && std::regex_match(value, lm, link)) {
    e.of_link = true;
    e.value = std::stod(lm[1].str()) / 100;
  } else if (e.mode == Mode::kBw) {
    e.value = number_with_unit(text, value, {{"Gb/s", 1}, {"Mb/s", 1e-3}});
  } else {
    e.value = number_with_unit(text, value, {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}});
  }
  return e;
}

// Whole numbers in full (an MTU of 4096, not 4.1e+03), others to three significant digits.
std::string figure_text(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e12) return std::to_string(static_cast<long long>(v));
  return three_digits(v);
}

std::string fact_text(const CheckFacts& j) {
  if (j.is_string()) return j.get<std::string>();
  if (j.is_number()) return figure_text(j.get<double>());
  return j.dump();
}

// Dotted versions compared part by part as numbers ("20.31.1014" < "20.40.0"); -1, 0, 1.
int compare_versions(const std::string& a, const std::string& b) {
  std::istringstream sa(a), sb(b);
  std::string pa, pb;
  while (true) {
    const bool ha = static_cast<bool>(std::getline(sa, pa, '.'));
    const bool hb = static_cast<bool>(std::getline(sb, pb, '.'));
    if (!ha && !hb) return 0;
    const long va = ha ? std::strtol(pa.c_str(), nullptr, 10) : 0;
    const long vb = hb ? std::strtol(pb.c_str(), nullptr, 10) : 0;
    if (va != vb) return va < vb ? -1 : 1;
  }
}

// A latency in the unit that reads best: 850 ns, 5.2 us, 100 ms.
std::string latency_text(double ns) {
  if (ns >= 1e6) return three_digits(ns / 1e6) + " ms";
  if (ns >= 1e3) return three_digits(ns / 1e3) + " us";
  return three_digits(ns) + " ns";
}

// The expectation's side of the line: "= ACTIVE", ">= 4096", ">= 1 Gb/s", "<= 5 us".
CheckOutcome outcome(const CheckExpectation& e) {
  CheckOutcome o;
  o.expectation = e.text;
  std::string value = e.text_value.empty() ? figure_text(e.value) : e.text_value;
  if (e.subject == CheckSubject::kBandwidth)
    value =
        e.of_link ? three_digits(e.value * 100) + " % of link" : three_digits(e.value) + " Gb/s";
  if (e.subject == CheckSubject::kLatency) value = latency_text(e.value);
  if (e.subject == CheckSubject::kPortSpeed) value += " Gb/s";
  if (e.subject == CheckSubject::kPcieSpeed) value += " GT/s";
  o.expected = compare_text(e.cmp) + " " + value;
  return o;
}

const char* gid_type_of(const std::string& kind) {
  if (kind == "roce-v2") return "RoCE v2";
  if (kind == "roce-v1") return "RoCE v1";
  return "IB";
}

}  // namespace

CheckExpectation parse_check_expectation(const std::string& given) {
  // One space between words, none at the ends: the name in every output line.
  std::string text;
  std::istringstream words(given);
  for (std::string w; words >> w;) text += (text.empty() ? "" : " ") + w;
  if (text.empty()) bad(given, "empty");
  // A closing remark in parentheses is part of the name only ("... (baseline 25 Gb/s - 10 %)").
  std::string body = text;
  if (const size_t open = body.rfind(" ("); body.back() == ')' && open != std::string::npos)
    body.resize(open);
  CheckExpectation e;
  if (auto node = parse_node(body))
    e = *node;
  else
    e = parse_traffic(body);
  e.text = text;
  return e;
}

CheckOutcome judge_node(const CheckExpectation& e, const CheckFacts& facts) {
  CheckOutcome o = outcome(e);
  const CheckFacts& port = facts.value("port", CheckFacts::object());
  const CheckFacts& pcie = facts.value("pcie", CheckFacts::object());
  const auto number = [&](const CheckFacts& j, const char* key, const std::string& missing) {
    if (!j.contains(key) || !j[key].is_number()) {
      o.reason = missing;
      return false;
    }
    o.figure = j[key].get<double>();
    o.measured = figure_text(*o.figure);
    o.pass = holds(*o.figure, e.cmp, e.value);
    return true;
  };
  const auto text = [&](const std::string& measured) {
    o.measured = measured;
    const auto upper = [](std::string s) {
      for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      return s;
    };
    const bool same = upper(measured) == upper(e.text_value);
    o.pass = e.cmp == CheckCompare::kEq ? same : !same;
  };
  const std::string no_pcie = "no PCIe link in sysfs (a software device, or not a PCI function)";
  switch (e.subject) {
    case CheckSubject::kPortState:
      text(fact_text(port.value("state", CheckFacts("unknown"))));
      break;
    case CheckSubject::kPortWidth:
      text(fact_text(port.value("width", CheckFacts("unknown"))));
      break;
    case CheckSubject::kPortMtu:
      number(port, "active_mtu", "the port reports no MTU");
      break;
    case CheckSubject::kPortSpeed:
      number(port, "speed_gbps", "the port reports no speed");
      break;
    case CheckSubject::kPcieWidth:
      number(pcie, "width", no_pcie);
      break;
    case CheckSubject::kPcieSpeed:
      number(pcie, "speed_gts", no_pcie);
      break;
    case CheckSubject::kFirmware: {
      o.measured = facts.value("fw_ver", std::string());
      const int c = compare_versions(o.measured, e.text_value);
      o.pass = holds(c, e.cmp, 0);
      if (o.measured.empty()) {
        o.pass = false;
        o.reason = "the device reports no firmware version";
      }
      break;
    }
    case CheckSubject::kGid: {
      bool present = false;
      std::string kinds;
      for (const auto& t : port.value("gid_types", CheckFacts::array())) {
        present = present || t == gid_type_of(e.text_value);
        kinds += (kinds.empty() ? "" : ", ") + t.get<std::string>();
      }
      if (e.text_value == "usable") present = port.value("usable_gid", false);
      o.measured = kinds.empty() ? "no GID" : kinds;
      if (e.text_value == "usable")
        o.measured = present ? "usable GID" : "no usable GID (" + o.measured + ")";
      o.pass = e.cmp == CheckCompare::kEq ? present : !present;
      break;
    }
    default:
      o.reason = "not a node fact";
      break;
  }
  return o;
}

CheckOutcome judge_traffic(const CheckExpectation& e, const SizeResult& r, double link_gbps) {
  CheckOutcome o = outcome(e);
  if (!r.error.empty()) return failed_traffic(e, r.error);
  if (e.subject == CheckSubject::kBandwidth) {
    double expected = e.value;
    if (e.of_link) {
      if (!(link_gbps > 0)) {
        o.reason = "the port reports no link rate";
        o.measured = three_digits(r.gbps) + " Gb/s";
        return o;
      }
      expected = e.value * link_gbps;
      o.expected += " (" + three_digits(expected) + " Gb/s of " + three_digits(link_gbps) + ")";
    }
    o.figure = r.gbps;
    o.measured = three_digits(r.gbps) + " Gb/s";
    if (link_gbps > 0) o.measured += " (" + three_digits(100 * r.gbps / link_gbps) + " % of link)";
    o.pass = holds(r.gbps, e.cmp, expected);
    return o;
  }
  if (!r.latency || r.latency->summary.count == 0) {
    o.reason = "no latency samples";
    return o;
  }
  const LatencySummary& s = r.latency->summary;
  const double ns = e.stat == "p50"     ? s.p50
                    : e.stat == "p90"   ? s.p90
                    : e.stat == "p99.9" ? s.p999
                    : e.stat == "avg"   ? s.mean
                    : e.stat == "max"   ? s.max
                                        : s.p99;
  o.figure = ns;
  o.measured = latency_text(ns);
  o.pass = holds(ns, e.cmp, e.value);
  return o;
}

CheckOutcome failed_traffic(const CheckExpectation& e, const std::string& error) {
  CheckOutcome o = outcome(e);
  o.reason = "the run failed: " + error;
  return o;
}

void to_json(nlohmann::json& j, const CheckOutcome& o) {
  j = {{"expectation", o.expectation},
       {"result", o.pass ? "PASS" : "FAIL"},
       {"measured", o.measured},
       {"expected", o.expected}};
  if (!o.reason.empty()) j["reason"] = o.reason;
  if (o.figure) j["figure"] = *o.figure;
}

CheckExpectation baseline_bound(CheckExpectation e, double figure, double tolerance) {
  const std::string pct = three_digits(tolerance * 100) + " %";
  e.of_link = false;
  e.text_value.clear();
  const std::string op = std::string(to_string(e.op)) + " " + std::string(to_string(e.qp));
  if (e.subject == CheckSubject::kBandwidth) {
    e.cmp = CheckCompare::kGe;
    e.value = figure * (1 - tolerance);
    e.text = op + " bw " + format_size(e.size) + " >= " + three_digits(e.value) +
             " Gb/s (baseline " + three_digits(figure) + " Gb/s - " + pct + ")";
  } else {
    e.cmp = CheckCompare::kLe;
    e.value = figure * (1 + tolerance);
    e.text = op + " lat " + format_size(e.size) + " " + e.stat + " <= " + latency_text(e.value) +
             " (baseline " + latency_text(figure) + " + " + pct + ")";
  }
  return e;
}

std::vector<CheckExpectation> baseline_expectations(const nlohmann::json& doc, double tolerance,
                                                    const std::string& path) {
  if (!doc.is_object() || !doc.contains("expectations") || !doc["expectations"].is_array())
    throw ConfigError("baseline", path,
                      "an earlier check's document (rdmabench check --json), with expectations[]");
  std::vector<CheckExpectation> out;
  for (size_t i = 0; i < doc["expectations"].size(); ++i) {
    const CheckOutcome o = check_outcome_from_json(doc["expectations"][i],
                                                   path + ": /expectations/" + std::to_string(i));
    if (!o.figure) continue;
    const CheckExpectation e = parse_check_expectation(o.expectation);
    if (e.traffic()) out.push_back(baseline_bound(e, *o.figure, tolerance));
  }
  return out;
}

CheckOutcome check_outcome_from_json(const nlohmann::json& j, const std::string& path) {
  const auto text = [&](const char* key) {
    if (!j.contains(key) || !j[key].is_string())
      throw ConfigError(path + "/" + key, j.contains(key) ? j[key].dump() : "(missing)",
                        "a string");
    return j[key].get<std::string>();
  };
  CheckOutcome o;
  o.expectation = text("expectation");
  const std::string result = text("result");
  if (result != "PASS" && result != "FAIL")
    throw ConfigError(path + "/result", result, "PASS or FAIL");
  o.pass = result == "PASS";
  o.measured = text("measured");
  o.expected = text("expected");
  if (j.contains("reason")) o.reason = text("reason");
  if (j.contains("figure") && j["figure"].is_number()) o.figure = j["figure"].get<double>();
  return o;
}

std::string outcome_detail(const CheckOutcome& o) {
  return "measured " + (o.measured.empty() ? std::string("nothing") : o.measured) + ", expected " +
         o.expected + (o.reason.empty() ? "" : "; " + o.reason);
}

}  // namespace rdmabench
