#pragma once
// `rdmabench export --csv`: result documents as one flat table.
#include <iosfwd>
#include <string>
#include <vector>

#include "report/results_set.h"

namespace rdmabench {

// The CSV columns, in order.
const std::vector<std::string>& csv_columns();

// A header line, then one row per document and size (RFC 4180 quoting where needed). Latency
// columns are empty for bandwidth-mode results; `error` is the size's error, else the run's.
std::string results_csv(const std::vector<ResultFile>& runs);

// Loads `inputs` (see load_results) and writes their CSV to `out_file` atomically, or to `out`
// when out_file is empty.
void run_export_csv(const std::vector<std::string>& inputs, const std::string& out_file,
                    std::ostream& out, std::ostream& notes);

}  // namespace rdmabench
