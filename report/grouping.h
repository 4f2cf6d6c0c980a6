#pragma once
// Grouping result documents into the series of a figure: the series key is the workload
// parameter (or parameters) that varies besides the message size. Documents with the same key
// are repetitions of one another.
#include <string>
#include <string_view>
#include <vector>

#include "report/results_set.h"

namespace rdmabench {

// A parameter's value in one document: the text used in legends and titles, and a sort order
// (enum position or number; texts sort alphabetically among equal orders).
struct FieldValue {
  double order = 0;
  std::string text;
  auto operator<=>(const FieldValue&) const = default;
};

// The parameters that can tell series apart, in display order: the workload fields the field
// table marks `series` (model/workload_fields.h: op, qp, mode, bidir, depths, ..., the engine
// knobs), then device, transport (of the client's device: "RoCE v2", "RoCE v1", "InfiniBand",
// "iWARP", from its transport, link layer and GID type), server_address (the server's host,
// without the port), the campaign's host_pair, server_host and client_host (from a sweep
// document's "point": host pairs, and a fabric's links, are never merged into one series) and
// tool (rdmabench, or perftest for documents converted by bench/vs-perftest).
const std::vector<std::string>& series_fields();

// Throws ConfigError("--group-by", field, <the allowed names>) unless field is one of them.
void check_series_field(const std::string& field);

// The host of a result's server_address ("198.18.0.1:18515" -> "198.18.0.1", "[fe80::1]:5" ->
// "[fe80::1]"): the port differs between runs of a sweep (servers on free ports), the host does
// not.
std::string server_host(const std::string& address);

// The value of `field` in `f` (field must be one of series_fields()).
FieldValue field_value(const ResultFile& f, std::string_view field);

// The fields whose value is not the same in all `runs`.
std::vector<std::string> varying_fields(const std::vector<const ResultFile*>& runs);

struct Series {
  std::string label;                    // legend entry, e.g. "send" or "send, uc"
  std::vector<const ResultFile*> runs;  // every document of the series (repetitions included)
};

struct Grouping {
  std::vector<std::string> fields;  // the series key
  std::vector<Series> series;       // ordered by key value
};

// Groups `runs` into series. Without group_by the key is every varying field (or "op" when
// nothing varies). With group_by, every other field that varies must be fixed by it (like a
// device that goes with a server address); otherwise ConfigError names the fields.
Grouping group_runs(const std::vector<const ResultFile*>& runs, const std::string& group_by);

}  // namespace rdmabench
