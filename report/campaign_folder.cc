#include "report/campaign_folder.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <ostream>

#include "base/error.h"
#include "base/file_text.h"
#include "model/round_record.h"
#include "model/verdict_record.h"

namespace rdmabench {
namespace fs = std::filesystem;
namespace {

bool read_text(const fs::path& p, std::string& out) {
  std::optional<std::string> text = read_file(p.string());
  if (text) out = std::move(*text);
  return text.has_value();
}

std::vector<fs::path> json_files(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return files;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

CampaignFolder read_campaign_folder(const std::string& dir, std::ostream& notes) {
  CampaignFolder c;
  c.dir = dir;
  const fs::path d = dir;
  std::error_code ec;
  if (fs::is_regular_file(d / "index.jsonl", ec)) {
    std::string text;
    if (read_text(d / "index.jsonl", text)) {
      c.has_index = true;
      c.points = parse_index_points(text, &c.bad_index_lines);
      std::vector<std::string> refused;
      c.cliffs = last_cliffs_record(parse_records(text, kCliffsRecord), refused);
      c.rounds = round_records_from_json(parse_records(text, kRoundRecord), refused);
      c.verdicts = last_verdicts_record(parse_records(text, kVerdictsRecord), refused);
      c.hunt = last_hunt_record(parse_records(text, kHuntRecord), refused);
      for (const std::string& why : refused)
        notes << "rdmabench: note: " << (d / "index.jsonl").string() << ": " << why
              << "; left out\n";
      if (c.bad_index_lines > 0)
        notes << "rdmabench: note: " << (d / "index.jsonl").string() << ": " << c.bad_index_lines
              << " line(s) are not point records; left out\n";
    } else {
      notes << "rdmabench: note: cannot read " << (d / "index.jsonl").string() << "\n";
    }
  }
  for (const auto& f : json_files(d / "env")) {
    std::string text;
    nlohmann::json j = read_text(f, text) ? nlohmann::json::parse(text, nullptr, false)
                                          : nlohmann::json(nlohmann::json::value_t::discarded);
    if (j.is_discarded() || !j.is_object()) {
      notes << "rdmabench: note: " << f.string() << " is not a host environment record; left out\n";
      continue;
    }
    try {
      c.host_envs.push_back(host_env_record_from_json(j));
    } catch (const ConfigError& e) {
      notes << "rdmabench: note: " << f.string() << ": " << e.what() << "; left out\n";
    }
  }
  for (const auto& f : json_files(d / "failed")) {
    std::string text;
    nlohmann::json j = read_text(f, text) ? nlohmann::json::parse(text, nullptr, false)
                                          : nlohmann::json(nlohmann::json::value_t::discarded);
    if (j.is_discarded() || !j.is_object()) {
      notes << "rdmabench: note: " << f.string() << " is not JSON; left out\n";
      continue;
    }
    c.failed_docs[f.stem().string()] = std::move(j);
  }
  return c;
}

}  // namespace rdmabench
