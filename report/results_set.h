#pragma once
// Loading result documents for `rdmabench plot` and `rdmabench export`.
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "model/result.h"

namespace rdmabench {

struct ResultFile {
  std::string path;
  RunResult run;
  // The top-level "point" object `rdmabench sweep` adds (campaign, point_id, repetition,
  // host_pair, ...); null for a document written by `rdmabench client --json`.
  nlohmann::json point;
};

// A host field of the document's "point" ("host_pair", "server_host", "client_host"): for a
// fabric flow its ends' fabric host names (point.fabric.server/client; two fabric hosts may share
// one ssh destination, e.g. "local"), else the sweep's host; "" when the document has none.
std::string point_host_field(const ResultFile& f, std::string_view key);

// Reads one result document. Throws ConfigError naming the file when it cannot be read, is not
// JSON, is not an rdmabench result, or does not validate.
ResultFile load_result_file(const std::string& path);

// Loads DIR or FILE arguments, in order (a directory's *.json files sorted by name, not
// recursively). A file named explicitly must be a result document; in a directory, files that
// are not are skipped with a note on `notes`. Throws ConfigError when a path does not exist or
// when a folder holds no result document (naming the folder).
std::vector<ResultFile> load_results(const std::vector<std::string>& paths, std::ostream& notes);

}  // namespace rdmabench
