#pragma once
// The workload fields, described once. Each entry of workload_fields() names a field of Workload:
// its JSON key (the result document's "workload" object and a campaign's matrix/search keys),
// its command-line spellings, its kind, range and help text, and how it is read from and written
// into the struct. Everything else is derived from this table: the client's options (cli/),
// the JSON reader and writer (workload.cc), the campaign's fields and the client command lines
// the orchestrator starts, the range checks, the option-to-key mapping of error messages.
// Adding a knob is one entry here plus its engine code.
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/workload.h"

namespace rdmabench {

enum class FieldKind : uint8_t {
  kEnum,    // a name (checked by `check_name`); JSON: a string
  kBool,    // a flag; JSON: true or false
  kUint,    // a whole number in [lo, hi]; JSON: a non-negative integer
  kInt,     // a whole number in [lo, hi] (may be negative); JSON: an integer
  kDouble,  // a number in [lo, hi] in `unit`; JSON: a number
  kSizes,   // message sizes: "64", "4K", "1K,4K", "2-8M"; JSON: an array of byte counts
  kCpus,    // CPU numbers in [lo, hi]: "0,2"; JSON: an array of integers
};

struct WorkloadField {
  std::string_view key;     // JSON key ("tx_depth")
  std::string_view option;  // long option, and the name errors give on the command line
  std::string_view names;   // every command-line spelling, CLI11 style ("-t,--tx-depth")
  FieldKind kind;
  std::string_view help;       // one line, with the default
  double lo = 0, hi = 0;       // range of numbers (CPU numbers for kCpus)
  std::string_view unit = {};  // kDouble: "seconds", ...
  // kUint/kInt/kDouble: this value (0, or -1 for inline_size) means "the client's default" and
  // is accepted besides [lo, hi]; a campaign leaves the option out for it.
  bool has_unset = false;
  double unset = 0;
  bool byte_suffix = false;       // kUint: "4K" accepted on the command line
  std::string_view allowed = {};  // what the field accepts, when its range alone does not say it
  void (*check_name)(std::string_view) = nullptr;  // kEnum: throws ConfigError when unknown
  // The canonical JSON value (canonical_field_value) into the struct, and back.
  void (*set)(Workload&, const nlohmann::json&) = nullptr;
  nlohmann::json (*get)(const Workload&) = nullptr;
  // Reports (plot, report, compare, export): `series` marks a field that tells runs apart, so
  // runs that differ in it are never one series (report/grouping.h) and it is a CSV column.
  // `order` (kEnum): the value's position, for the order of series. `series_text`: a flag's
  // legend texts "ON|OFF" (default "KEY|no KEY"), a number's text for its unset value (default
  // "KEY=default"), or a prefix of an enum's value ("numa=" gives "numa=0").
  bool series = false;
  double (*order)(const Workload&) = nullptr;
  std::string_view series_text = {};
  // Non-empty: a campaign refuses the field, for this reason (a client-only field).
  std::string_view not_in_campaigns = {};
  // Non-empty: the QP holds the field, and this is its name among the attributes ibv_query_qp
  // reports (a result's setup.SIDE.qp_attr.fabric), where asked and applied are compared.
  std::string_view qp_attr = {};
};

// Every field, in the order options are written (client command lines, descriptions).
std::span<const WorkloadField> workload_fields();
const WorkloadField* find_workload_field(std::string_view key);
// The JSON key of the field an error names (its option, "tx-depth", or its key); "" if none.
std::string_view field_key_of(std::string_view name);
bool is_workload_field(const std::string& key);
// Fields whose value is itself a list (sizes, cpus): in a matrix, a list of lists is an axis.
bool is_list_field(const std::string& key);
const std::vector<std::string>& workload_field_keys();

// Where a JSON value comes from: a campaign (lists may be text such as "1K,4K" or a single value)
// or a result document / handshake (lists are arrays of numbers, as to_json writes them).
enum class FieldSource : uint8_t { kCampaign, kDocument };

// Checks one JSON value of `key` and returns it in canonical form (sizes: sorted byte counts,
// enums: their names, numbers as numbers). Throws ConfigError naming `path` ("/matrix/op/2").
nlohmann::json canonical_field_value(const std::string& key, const nlohmann::json& value,
                                     const std::string& path,
                                     FieldSource source = FieldSource::kCampaign);
// One command-line value of `f` as typed (enum names in any case) -> its canonical JSON value.
// Throws ConfigError naming the option and the text.
nlohmann::json field_value_from_text(const WorkloadField& f, const std::string& text);

// The range and default a field accepts, as error messages say it ("from 1 to 1048576").
std::string field_range_text(const WorkloadField& f);

// Range checks of every numeric field (a value equal to Workload{}'s is always accepted); part
// of validate(). Throws ConfigError naming the option.
void check_field_ranges(const Workload& w);

// A workload from canonical values (key -> value), as the client builds it: fields not given keep
// their defaults (message sizes: 8 for atomics, 2 in latency mode, 64K otherwise; all sizes 2 B ..
// 8 MiB with `all_sizes`), then validate(). Errors name the option ("tx-depth").
Workload workload_from_values(const nlohmann::json& values, bool all_sizes = false);

// `values`: key -> canonical value. The client options, e.g. {"--op", "write", "--size",
// "64,4096"}.
std::vector<std::string> client_options(const nlohmann::json& values);
// "op=write qp=rc sizes=64,4K iterations=200" (keys in option order).
std::string describe_values(const nlohmann::json& values);

}  // namespace rdmabench
