#include "report/campaign_folder.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>

#include "orchestrator/run_index.h"

namespace rdmabench {
namespace fs = std::filesystem;
namespace {

bool read_text(const fs::path& p, std::string& out) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return false;
  std::stringstream s;
  s << in.rdbuf();
  out = s.str();
  return true;
}

std::string string_or(const nlohmann::json& j, const char* key, const std::string& dflt = "") {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : dflt;
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

std::vector<PointStatus> parse_point_statuses(const std::string& text, size_t* bad_lines) {
  std::vector<PointStatus> out;
  std::map<std::string, size_t> where;
  size_t bad = 0;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_object() && j.contains("record") && j["record"].is_string()) continue;
    if (j.is_discarded() || !j.is_object() || !j.contains("point_id") ||
        !j["point_id"].is_string() || !j.contains("status") || !j["status"].is_string()) {
      ++bad;
      continue;
    }
    PointStatus s;
    s.point_id = j["point_id"].get<std::string>();
    s.status = j["status"].get<std::string>();
    s.error = string_or(j, "error");
    s.host_pair = string_or(j, "host_pair");
    s.time = string_or(j, "time");
    if (j.contains("duration_s") && j["duration_s"].is_number())
      s.duration_s = j["duration_s"].get<double>();
    if (j.contains("repetition") && j["repetition"].is_number_integer())
      s.repetition = j["repetition"].get<long>();
    auto it = where.find(s.point_id);
    if (it == where.end()) {
      where[s.point_id] = out.size();
      out.push_back(std::move(s));
    } else {
      out[it->second] = std::move(s);
    }
  }
  if (bad_lines) *bad_lines = bad;
  return out;
}

CampaignFolder read_campaign_folder(const std::string& dir, std::ostream& notes) {
  CampaignFolder c;
  c.dir = dir;
  const fs::path d = dir;
  std::error_code ec;
  if (fs::is_regular_file(d / "index.jsonl", ec)) {
    std::string text;
    if (read_text(d / "index.jsonl", text)) {
      c.has_index = true;
      c.points = parse_point_statuses(text, &c.bad_index_lines);
      c.cliffs = parse_cliffs(text);
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
    c.host_envs.push_back(std::move(j));
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
