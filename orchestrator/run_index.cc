#include "orchestrator/run_index.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>

#include "harness/error.h"

namespace rdmabench {

std::map<std::string, IndexEntry> parse_index(const std::string& text, size_t* bad_lines) {
  std::map<std::string, IndexEntry> out;
  size_t bad = 0;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_object() && j.contains("record") && j["record"].is_string() && !j.contains("point_id"))
      continue;
    if (j.is_discarded() || !j.is_object() || !j.contains("point_id") ||
        !j["point_id"].is_string() || !j.contains("status") || !j["status"].is_string()) {
      ++bad;
      continue;
    }
    IndexEntry e;
    e.point_id = j["point_id"].get<std::string>();
    e.status = j["status"].get<std::string>();
    if (j.contains("duration_s") && j["duration_s"].is_number())
      e.duration_s = j["duration_s"].get<double>();
    if (j.contains("error") && j["error"].is_string()) e.error = j["error"].get<std::string>();
    out[e.point_id] = e;
  }
  if (bad_lines != nullptr) *bad_lines = bad;
  return out;
}

namespace {

std::optional<std::string> read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

std::map<std::string, IndexEntry> read_index(const std::string& path, size_t* bad_lines) {
  const auto text = read_text(path);
  if (!text) {
    if (bad_lines != nullptr) *bad_lines = 0;
    return {};
  }
  return parse_index(*text, bad_lines);
}

std::optional<nlohmann::json> parse_cliffs(const std::string& text) {
  std::optional<nlohmann::json> last;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find("\"record\"") == std::string::npos) continue;  // cheap filter for point lines
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_object() && j.value("record", nlohmann::json()) == "cliffs" && j.contains("cliffs") &&
        j["cliffs"].is_array())
      last = std::move(j);
  }
  return last;
}

std::optional<nlohmann::json> read_cliffs(const std::string& index_path) {
  const auto text = read_text(index_path);
  return text ? parse_cliffs(*text) : std::nullopt;
}

std::set<std::string> done_points(const std::vector<std::string>& ids,
                                  const std::map<std::string, IndexEntry>& index,
                                  const std::set<std::string>& existing_results) {
  std::set<std::string> done;
  for (const auto& id : ids) {
    auto it = index.find(id);
    if (it != index.end() && it->second.status == "ok" && existing_results.count(id) != 0)
      done.insert(id);
  }
  return done;
}

void IndexWriter::append(const nlohmann::ordered_json& line) {
  const std::string text = line.dump() + "\n";
  std::lock_guard<std::mutex> lock(mu_);
  int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) throw_sys("open", path_);
  size_t off = 0;
  while (off < text.size()) {
    ssize_t n = ::write(fd, text.data() + off, text.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int e = errno;
      ::close(fd);
      throw_sys("write", path_, e);
    }
    off += static_cast<size_t>(n);
  }
  ::close(fd);
}

}  // namespace rdmabench
