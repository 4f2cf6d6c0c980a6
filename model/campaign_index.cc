#include "model/campaign_index.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>

#include "base/error.h"
#include "base/file_text.h"
#include "base/json_util.h"

namespace rdmabench {
namespace {

bool is_record(const nlohmann::json& j) {
  return j.is_object() && j.contains("record") && j["record"].is_string();
}

}  // namespace

nlohmann::ordered_json index_line(const IndexEntry& e) {
  const bool skipped = e.status == "skipped";
  nlohmann::ordered_json line = {
      {"point_id", e.point_id},
      {"status", e.status},
      {"duration_s", skipped ? nlohmann::ordered_json(0)
                             : nlohmann::ordered_json(std::round(e.duration_s * 1000) / 1000)},
      {"error",
       e.status == "ok" ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(e.error)},
      {"host_pair", e.host_pair},
      {"repetition", e.repetition},
      {"time", e.time}};
  if (!e.server_step.empty() || !e.client_step.empty())
    line["slurm_steps"] = {{"server", e.server_step}, {"client", e.client_step}};
  return line;
}

size_t for_each_index_point(std::istream& in, const std::function<void(IndexEntry&&)>& f) {
  size_t bad = 0;
  std::string line;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (is_record(j)) continue;
    if (j.is_discarded() || !j.is_object() || !j.contains("point_id") ||
        !j["point_id"].is_string() || !j.contains("status") || !j["status"].is_string()) {
      ++bad;
      continue;
    }
    IndexEntry e;
    e.point_id = j["point_id"].get<std::string>();
    e.status = j["status"].get<std::string>();
    e.error = json_string_or(j, "error");
    e.host_pair = json_string_or(j, "host_pair");
    e.time = json_string_or(j, "time");
    if (auto steps = j.find("slurm_steps"); steps != j.end() && steps->is_object()) {
      e.server_step = json_string_or(*steps, "server");
      e.client_step = json_string_or(*steps, "client");
    }
    if (j.contains("duration_s") && j["duration_s"].is_number())
      e.duration_s = j["duration_s"].get<double>();
    if (j.contains("repetition") && j["repetition"].is_number_integer())
      e.repetition = j["repetition"].get<long>();
    f(std::move(e));
  }
  return bad;
}

std::vector<IndexEntry> parse_index_points(const std::string& text, size_t* bad_lines) {
  std::vector<IndexEntry> out;
  std::map<std::string, size_t> where;
  std::istringstream in(text);
  const size_t bad = for_each_index_point(in, [&](IndexEntry&& e) {
    auto it = where.find(e.point_id);
    if (it == where.end()) {
      where[e.point_id] = out.size();
      out.push_back(std::move(e));
    } else {
      out[it->second] = std::move(e);
    }
  });
  if (bad_lines != nullptr) *bad_lines = bad;
  return out;
}

std::map<std::string, IndexEntry> parse_index(const std::string& text, size_t* bad_lines) {
  std::map<std::string, IndexEntry> out;
  for (auto& e : parse_index_points(text, bad_lines)) out[e.point_id] = std::move(e);
  return out;
}

std::map<std::string, IndexEntry> read_index(const std::string& path, size_t* bad_lines) {
  const auto text = read_file(path);
  if (!text) {
    if (bad_lines != nullptr) *bad_lines = 0;
    return {};
  }
  return parse_index(*text, bad_lines);
}

std::vector<nlohmann::json> parse_records(const std::string& text, std::string_view name) {
  std::vector<nlohmann::json> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find("\"record\"") == std::string::npos) continue;  // cheap filter for point lines
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (is_record(j) && j["record"] == name) out.push_back(std::move(j));
  }
  return out;
}

void IndexWriter::append(const nlohmann::ordered_json& line) {
  const std::string text = line.dump() + "\n";
  std::lock_guard<std::mutex> lock(mu_);
  int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) throw_sys("open", path_);
  if (const int e = write_all(fd, text); e != 0) {
    ::close(fd);
    throw_sys("write", path_, e);
  }
  ::close(fd);
}

}  // namespace rdmabench
