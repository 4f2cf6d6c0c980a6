// The workload field table (model/workload_fields.h) is the one description of every field:
// these tests walk it and carry each field, with a value that is not its default, through every
// form it takes — client command line (every spelling) -> result document JSON -> campaign value
// -> workload -> JSON, and campaign value -> client command line -> workload — and check that
// nothing is lost or changed on the way.
#include "model/workload_fields.h"

#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/workload_cli.h"
#include "model/workload.h"
#include "model/workload_options.h"
#include "tests/unit/test_util.h"

namespace rdmabench {
namespace {

using nlohmann::json;
using testutil::catch_config_error;

// A value of each field as typed on the command line ("" for a flag), and the other options it
// needs to be valid. A field added to the table without a sample here fails EveryFieldHasASample.
struct Sample {
  std::string text;
  std::vector<std::string> context = {};  // further arguments
};
const std::map<std::string, Sample>& samples() {
  static const std::map<std::string, Sample> kSamples = {
      {"op", {"read"}},
      {"qp", {"uc"}},
      {"mode", {"lat"}},
      {"bidir", {""}},
      {"sizes", {"4K,64"}},
      {"iterations", {"123"}},
      {"duration_s", {"2.5"}},
      {"interval_s", {"0.5"}},
      {"run_infinitely", {""}},
      {"warmup", {"7"}},
      {"warmup_s", {"0.5"}},
      {"tx_depth", {"256"}},
      {"rx_depth", {"1024"}},
      {"inline_size", {"64"}},
      {"signal_every", {"16"}},
      {"cq", {"event"}},
      {"srq", {"", {"--op", "send"}}},
      {"threads", {"3"}},
      {"qps_per_thread", {"4"}},
      {"cpus", {"0,2"}},
      {"connect", {"tcp"}},
      {"verify", {""}},
      {"mtu", {"1024"}},
      {"timeout_s", {"2.5"}},
      {"post_list", {"8"}},
      {"sge", {"2"}},
      {"max_rd_atomic", {"4"}},
      {"latency_gap_us", {"2.5", {"--mode", "lat"}}},
      {"rate", {"5000", {"--mode", "lat", "--op", "send"}}},
      {"cq_per_qp", {""}},
      {"hugepages", {""}},
      {"align", {"4K"}},
      {"mr", {"shared"}},
      {"numa", {"auto"}},
      {"sl", {"3"}},
      {"tos", {"104"}},
      {"flow_label", {"77"}},
      {"hop_limit", {"32"}},
      {"pkey_index", {"1"}},
      {"qp_timeout", {"18"}},
      {"retry_count", {"3"}},
      {"rnr_retry", {"2"}},
      {"min_rnr_timer", {"20"}},
      {"gid_type", {"roce-v1"}},
  };
  return kSamples;
}

// The workload a client command line gives (the options after "rdmabench client SERVER").
Workload parse_client(const std::vector<std::string>& args) {
  CLI::App app;
  WorkloadArgs wa;
  add_workload_options(&app, wa);
  std::vector<std::string> argv_text{"client"};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_text) argv.push_back(a.data());
  app.parse(static_cast<int>(argv.size()), argv.data());
  return build_workload(wa);
}

std::vector<std::string> spellings(const WorkloadField& f) {
  std::vector<std::string> out;
  std::string names(f.names);
  size_t start = 0;
  for (;;) {
    const size_t comma = names.find(',', start);
    out.push_back(names.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

TEST(WorkloadFieldTable, EveryFieldHasASampleAndKeysAreUnique) {
  std::map<std::string, int> keys;
  std::map<std::string, int> options;
  for (const WorkloadField& f : workload_fields()) {
    EXPECT_TRUE(samples().count(std::string(f.key))) << "no sample for field " << f.key;
    EXPECT_EQ(++keys[std::string(f.key)], 1) << f.key;
    EXPECT_EQ(++options[std::string(f.option)], 1) << f.option;
    EXPECT_FALSE(f.help.empty()) << f.key;
    EXPECT_NE(spellings(f).back(), "") << f.key;
    EXPECT_EQ(field_key_of(f.option), f.key);
    EXPECT_EQ(find_workload_field(f.key), &f);
  }
  EXPECT_EQ(keys.size(), samples().size());
  EXPECT_EQ(workload_field_keys().size(), keys.size());
}

TEST(WorkloadFieldTable, EveryFieldRoundTripsCliJsonCampaignJson) {
  const json defaults = parse_client({});
  for (const WorkloadField& f : workload_fields()) {
    const std::string key(f.key);
    SCOPED_TRACE(key);
    const Sample& s = samples().at(key);
    const json base = parse_client(s.context);  // the context alone: the field at its default
    for (const std::string& spelling : spellings(f)) {
      SCOPED_TRACE(spelling);
      std::vector<std::string> args = s.context;
      args.push_back(spelling);
      if (f.kind != FieldKind::kBool) args.push_back(s.text);
      // command line -> workload -> result document JSON
      const json doc = parse_client(args);
      EXPECT_NE(doc.at(key), base.at(key)) << "the sample must differ from the default";
      // the result document read back
      EXPECT_EQ(json(workload_from_json(doc, "/workload")), doc);
      if (!f.not_in_campaigns.empty()) {  // a client-only field: campaigns refuse it
        try {
          (void)canonical_field_value(key, doc.at(key), "/matrix/" + key);
          ADD_FAILURE() << "a campaign took " << key;
        } catch (const ConfigError& e) {
          EXPECT_NE(std::string(e.what()).find("/matrix/" + key), std::string::npos) << e.what();
          EXPECT_NE(std::string(e.what()).find(f.not_in_campaigns), std::string::npos) << e.what();
        }
        continue;
      }
      // JSON -> campaign value (canonical) -> workload -> JSON
      json values = json::object();
      for (const auto& [k, v] : doc.items())
        if (k == key || defaults.at(k) != v)
          values[k] = canonical_field_value(k, v, "/matrix/" + k);
      EXPECT_EQ(json(workload_from_values(values)), doc);
      // campaign value -> client command line -> workload -> JSON
      EXPECT_EQ(json(parse_client(client_options(values))), doc);
      EXPECT_NE(describe_values(values).find(key + "="), std::string::npos);
    }
  }
}

TEST(WorkloadFieldTable, RangeErrorsNameTheFieldInEachForm) {
  for (const WorkloadField& f : workload_fields()) {
    if (f.kind != FieldKind::kUint && f.kind != FieldKind::kInt && f.kind != FieldKind::kDouble)
      continue;
    const std::string key(f.key);
    SCOPED_TRACE(key);
    const double above = f.hi * 2 + 1;
    const std::string text =
        f.kind == FieldKind::kDouble ? std::to_string(above) : std::to_string(uint64_t(above));
    // command line: names the option and the text as typed
    WorkloadArgs a;
    a.text[key] = text;
    ConfigError e = catch_config_error([&] { build_workload(a); });
    EXPECT_EQ(e.field(), std::string(f.option));
    EXPECT_EQ(e.value(), text);
    // campaign: names the JSON path
    const json v = f.kind == FieldKind::kDouble ? json(above) : json(uint64_t(above));
    EXPECT_EQ(catch_config_error([&] { canonical_field_value(key, v, "/matrix/" + key); }).field(),
              "/matrix/" + key);
    // result document: names the JSON path of the workload field
    EXPECT_EQ(catch_config_error([&] {
                workload_from_json(json{{key, v}}, "/workload");
              }).field(),
              "/workload/" + key);
    EXPECT_FALSE(field_range_text(f).empty());
  }
}

}  // namespace
}  // namespace rdmabench

namespace rdmabench {
namespace {

// --cpus takes numbers and ranges as people type them (0-3,8); a range must run upwards and
// stay within the CPU numbers allowed.
TEST(WorkloadFieldTable, CpusTakeRanges) {
  WorkloadArgs a;
  a.text["cpus"] = "0-3,8";
  EXPECT_EQ(build_workload(a).cpus, (std::vector<int>{0, 1, 2, 3, 8}));
  a.text["cpus"] = "5";
  EXPECT_EQ(build_workload(a).cpus, (std::vector<int>{5}));
  a.text["cpus"] = "3-1";
  ConfigError e = catch_config_error([&] { build_workload(a); });
  EXPECT_EQ(e.field(), "cpus");
  EXPECT_EQ(e.value(), "3-1");
  a.text["cpus"] = "0-5000";
  EXPECT_EQ(catch_config_error([&] { build_workload(a); }).field(), "cpus");
  a.text["cpus"] = "0-";
  EXPECT_EQ(catch_config_error([&] { build_workload(a); }).field(), "cpus");
}

}  // namespace
}  // namespace rdmabench
