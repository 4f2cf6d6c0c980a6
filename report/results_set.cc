#include "report/results_set.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <ostream>

#include "base/error.h"
#include "base/file_text.h"

namespace rdmabench {

std::string point_host_field(const ResultFile& f, std::string_view key) {
  const nlohmann::json& p = f.point;
  if (!p.is_object()) return "";
  const char* end = key == "server_host" ? "server" : key == "client_host" ? "client" : nullptr;
  if (end != nullptr && p.contains("fabric") && p["fabric"].is_object() &&
      p["fabric"].contains(end) && p["fabric"][end].is_string())
    return p["fabric"][end].get<std::string>();
  const std::string k(key);
  return p.contains(k) && p[k].is_string() ? p[k].get<std::string>() : "";
}
namespace fs = std::filesystem;

ResultFile load_result_file(const std::string& path) {
  // ConfigError prints "invalid result file 'PATH': WHY".
  const std::optional<std::string> text = read_file(path);
  if (!text) throw ConfigError("result file", path, "cannot open it");
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) throw ConfigError("result file", path, "not JSON, not an rdmabench result");
  const std::string tool = j.is_object() && j.contains("tool") && j["tool"].is_object() &&
                                   j["tool"].contains("name") && j["tool"]["name"].is_string()
                               ? j["tool"]["name"].get<std::string>()
                               : "";
  const bool claims_rdmabench =
      (tool == "rdmabench" || tool == "perftest") && j.contains("results");
  if (!claims_rdmabench)
    throw ConfigError("result file", path,
                      "not an rdmabench result document (no \"tool\": {\"name\": \"rdmabench\"} "
                      "and \"results\")");
  try {
    ResultFile f{path, run_result_from_json(j), nullptr};
    if (j.contains("point") && j["point"].is_object()) f.point = j["point"];
    return f;
  } catch (const ConfigError& e) {
    throw ConfigError("result file", path,
                      std::string("not a valid rdmabench result: ") + e.what());
  }
}

std::vector<ResultFile> load_results(const std::vector<std::string>& paths, std::ostream& notes) {
  std::vector<ResultFile> out;
  for (const auto& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<std::string> files;
      for (const auto& e : fs::directory_iterator(p))
        if (e.is_regular_file() && e.path().extension() == ".json")
          files.push_back(e.path().string());
      std::sort(files.begin(), files.end());
      size_t found = 0;
      for (const auto& f : files) {
        try {
          out.push_back(load_result_file(f));
          ++found;
        } catch (const ConfigError& e) {
          notes << "rdmabench: note: skipping " << e.what() << "\n";
        }
      }
      if (found == 0)
        throw ConfigError("results folder", p, "no rdmabench result documents (*.json) in it");
    } else if (fs::exists(p, ec)) {
      out.push_back(load_result_file(p));
    } else {
      throw ConfigError("results path", p, "no such file or folder");
    }
  }
  if (out.empty()) throw ConfigError("results", "", "name at least one result folder or file");
  return out;
}

}  // namespace rdmabench
