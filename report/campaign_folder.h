#pragma once
// What `rdmabench sweep` writes besides the result documents (orchestrator/README.md), read for
// `rdmabench report`: DIR/index.jsonl (the status of every point, read with
// model/campaign_index.h), DIR/env/*.json (each host's environment) and DIR/failed/*.json
// (the documents of failed runs). Everything here is untrusted input: missing or malformed
// pieces are noted and left out, never fatal.
#include <iosfwd>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/campaign_index.h"
#include "model/cliffs_record.h"
#include "model/host_env_record.h"
#include "model/hunt_record.h"
#include "model/round_record.h"
#include "model/verdict_record.h"

namespace rdmabench {

struct CampaignFolder {
  std::string dir;
  bool has_index = false;
  // The last line of every point id, in the order of the points' first lines.
  std::vector<IndexEntry> points;
  size_t bad_index_lines = 0;
  std::vector<HostEnvRecord> host_envs;  // env/*.json records, in name order
  // failed/<point_id>.json documents (any JSON object), by point id.
  std::map<std::string, nlohmann::json> failed_docs;
  // The last cliffs record of index.jsonl (a search campaign with "cliff": model/cliffs_record.h).
  std::optional<CliffsRecord> cliffs;
  // A fabric campaign's {"record": "round"} lines, in order, and its last "verdicts" record.
  std::vector<RoundRecord> rounds;  // its round records (model/round_record.h)
  std::optional<VerdictsRecord> verdicts;
  std::optional<HuntRecord> hunt;  // a hunt's record (model/hunt_record.h), its last
};

// Reads the campaign files of `dir`; a folder without them gives has_index false and nothing
// else. Unreadable or malformed files are noted on `notes`.
CampaignFolder read_campaign_folder(const std::string& dir, std::ostream& notes);

}  // namespace rdmabench
