#pragma once
// perftest's client flags that scripts carry and that mean nothing new here, accepted in
// perftest's spelling (docs/perftest.md): -F/--CPU-freq (rdmabench calibrates the TSC and
// never warns about CPU frequency), --report_gbits (rdmabench reports Gb/s always), --out_json
// and --out_json_file=FILE (rdmabench's result document, results/SCHEMA.md, written where
// perftest would write its JSON). Each prints a note saying so. The workload options' perftest
// spellings are aliases in the workload field table (model/workload_field_table.cc).
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace rdmabench {

struct PerftestCompat {
  bool cpu_freq = false;
  bool report_gbits = false;
  bool out_json = false;
  std::string out_json_file;  // "" = not given
};

// Returns the --out_json_file option (for the caller's file-name check).
CLI::Option* add_perftest_compat(CLI::App* client, PerftestCompat& c);

// The notes to print for what was given (one line each, without the "rdmabench: note: " prefix).
std::vector<std::string> perftest_compat_notes(const PerftestCompat& c);

// The result file: `json_file` (--json) when given, else perftest's --out_json_file, else
// perftest's default for --out_json ("perftest_out.json"), else "".
std::string perftest_json_file(const PerftestCompat& c, const std::string& json_file);

}  // namespace rdmabench
