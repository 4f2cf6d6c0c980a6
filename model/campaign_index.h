#pragma once
// DIR/index.jsonl, the index of a campaign folder: `rdmabench sweep` appends one JSON line per
// finished point as the campaign goes, `rdmabench report` reads it. This is the one definition
// of its format, for both:
//   {"point_id", "status": "ok"|"failed"|"skipped", "duration_s", "error", "host_pair",
//    "repetition", "time", "slurm_steps": {"server", "client"} (slurm launcher only)}
// A point may appear several times (a failed point rerun by --resume): the last line counts.
// Lines about the whole sweep rather than a point carry a "record" name instead of a point_id:
//   {"record": "cliffs", ...}    the cliffs a search campaign found (orchestrator/search/cliff.h,
//                                cliffs_record); a sweep appends one after its points, the last
//                                one counts.
//   {"record": "round", ...}     a fabric round's aggregate, after the round (per size: total,
//                                each host's in/out, fairness, overlap of the flows' windows;
//                                orchestrator/fabric/round_summary.h, round_record); one per round
//                                and repetition, the last one counts.
//   {"record": "verdicts", ...}  a fabric's per-link verdicts after its rounds and retests
//                                (orchestrator/fabric/fabric_verdicts.h); the last one counts.
// Those records are written by the orchestrator, which owns their members; readers here skip
// them as records.
// The file is untrusted input when read: a line cut short by a crash is counted, never fatal.
#include <cstddef>
#include <functional>
#include <istream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rdmabench {

// One point line.
struct IndexEntry {
  std::string point_id;
  std::string status;  // "ok", "failed", "skipped" (or whatever the line says)
  double duration_s = 0;
  std::string error;  // "" for null (an ok point); else why it failed or was skipped
  std::string host_pair;
  long repetition = 0;
  // The Slurm job steps the point's server and client ran as ("JOB.STEP"), slurm launcher only:
  // the line's "slurm_steps": {"server", "client"}, left out when both are "".
  std::string server_step = {};
  std::string client_step = {};
  std::string time;  // UTC, when the line was written
};

// The line of a point as the sweep appends it: duration_s rounded to the millisecond (0 for a
// skipped point, which never ran), error null for an ok point.
nlohmann::ordered_json index_line(const IndexEntry& e);

// Every point line of `in`, in order, to `f` (a point's later lines after its earlier ones:
// the last counts); returns how many lines were neither point lines nor records. Reads a line at
// a time: a million-point index is not held whole.
size_t for_each_index_point(std::istream& in, const std::function<void(IndexEntry&&)>& f);

// The last line of every point id in `text` (the file's contents), in the order of the points'
// first lines. Blank lines and record lines ({"record": ...}) are left out; lines that are
// neither and not JSON objects with a string point_id and status (e.g. a line cut short by a
// crash) are counted in `bad_lines` and otherwise ignored.
std::vector<IndexEntry> parse_index_points(const std::string& text, size_t* bad_lines = nullptr);
// The same, by point id; read_index reads the file (a missing file is an empty index).
std::map<std::string, IndexEntry> parse_index(const std::string& text, size_t* bad_lines = nullptr);
std::map<std::string, IndexEntry> read_index(const std::string& path, size_t* bad_lines = nullptr);

// Every {"record": NAME} line of `text`, in order (lines that are not JSON are left out).
std::vector<nlohmann::json> parse_records(const std::string& text, std::string_view name);

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
