#pragma once
// DIR/index.jsonl: one JSON line per finished point, appended as the campaign goes:
//   {"point_id", "status": "ok"|"failed"|"skipped", "duration_s", "error", "host_pair",
//    "repetition", "time"}
// A point may appear several times (a failed point rerun by --resume): the last line counts.
// Lines about the whole sweep rather than a point carry a "record" name instead of a point_id:
//   {"record": "cliffs", ...}  the cliffs a search campaign found (cliff.h, cliffs_record); a
//                              sweep appends one after its points, the last one counts.
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace rdmabench {

struct IndexEntry {
  std::string point_id;
  std::string status;
  double duration_s = 0;
  std::string error;
};

// The last entry of every point id in `text` (the file's contents). Record lines are left
// out; lines that are neither records nor JSON objects with a point_id and status (e.g. a line
// cut short by a crash) are counted in `bad_lines` and otherwise ignored.
std::map<std::string, IndexEntry> parse_index(const std::string& text, size_t* bad_lines = nullptr);
std::map<std::string, IndexEntry> read_index(const std::string& path, size_t* bad_lines = nullptr);

// The last {"record": "cliffs"} line of `text` / of the index file, or nullopt when there is
// none (a matrix campaign, a search without "cliff", or a sweep that has not finished).
std::optional<nlohmann::json> parse_cliffs(const std::string& text);
std::optional<nlohmann::json> read_cliffs(const std::string& index_path);

// --resume: a point is done when its result file exists and its last index status is ok.
// `ids`: the campaign's point ids; `existing_results`: the ids whose DIR/<id>.json exists.
// Returns the ids to skip as done.
std::set<std::string> done_points(const std::vector<std::string>& ids,
                                  const std::map<std::string, IndexEntry>& index,
                                  const std::set<std::string>& existing_results);

// Appends lines (one write each, O_APPEND) from any thread.
class IndexWriter {
 public:
  explicit IndexWriter(std::string path) : path_(std::move(path)) {}
  void append(const nlohmann::ordered_json& line);

 private:
  std::string path_;
  std::mutex mu_;
};

}  // namespace rdmabench
