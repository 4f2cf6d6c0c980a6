#include "model/cliffs_record.h"

#include "base/error.h"
#include "base/json_util.h"

namespace rdmabench {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

ordered_json neighbour_json(const CliffsRecordNeighbour& n) {
  return {{"value", n.value}, {"metric", n.metric}, {"point_ids", n.point_ids}};
}

CliffsRecordNeighbour neighbour_from(const json& j, const std::string& ptr) {
  return {at_path<json>(j, ptr + "/value", "a value along the line"),
          at_path<double>(j, ptr + "/metric", kWantNumber),
          at_path<std::vector<std::string>>(j, ptr + "/point_ids", "a list of point ids")};
}

}  // namespace

ordered_json to_json(const CliffsRecord& r) {
  ordered_json list = ordered_json::array();
  for (const CliffsRecordEntry& c : r.cliffs)
    list.push_back({{"point_id", c.point_id},
                    {"point_ids", c.point_ids},
                    {"line", c.line},
                    {"value", c.value},
                    {"metric", c.metric},
                    {"drop", c.drop},
                    {"shape", c.shape},
                    {"previous", neighbour_json(c.previous)},
                    {"next", c.next ? neighbour_json(*c.next) : ordered_json(nullptr)}});
  return {{"record", kCliffsRecord},   {"metric", r.metric}, {"along", r.along},
          {"threshold", r.threshold},  {"lines", r.lines},   {"values", r.values},
          {"cliffs", std::move(list)}, {"time", r.time}};
}

CliffsRecord cliffs_record_from_json(const json& j) {
  CliffsRecord r;
  r.metric = at_path<std::string>(j, "/metric", kWantText);
  r.along = at_path<std::string>(j, "/along", kWantText);
  r.threshold = at_path<double>(j, "/threshold", kWantNumber);
  r.lines = at_path<size_t>(j, "/lines", kWantCount);
  r.values = at_path<size_t>(j, "/values", kWantCount);
  if (!j.contains("cliffs") || !j["cliffs"].is_array())
    throw ConfigError("/cliffs", j.contains("cliffs") ? brief_json(j["cliffs"]) : "(missing)",
                      "an array of cliffs");
  for (size_t i = 0; i < j["cliffs"].size(); ++i) {
    const std::string p = "/cliffs/" + std::to_string(i);
    CliffsRecordEntry c;
    c.point_id = at_path<std::string>(j, p + "/point_id", kWantText);
    c.point_ids = at_path<std::vector<std::string>>(j, p + "/point_ids", "a list of point ids");
    c.line = at_path<json>(j, p + "/line", "an object of the line's values");
    c.value = at_path<json>(j, p + "/value", "a value along the line");
    c.metric = at_path<double>(j, p + "/metric", kWantNumber);
    c.drop = at_path<double>(j, p + "/drop", kWantNumber);
    c.shape = at_path<std::string>(j, p + "/shape", kWantText);
    c.previous = neighbour_from(j, p + "/previous");
    if (const json::json_pointer next(p + "/next"); j.contains(next) && !j.at(next).is_null())
      c.next = neighbour_from(j, p + "/next");
    r.cliffs.push_back(std::move(c));
  }
  r.time = at_path<std::string>(j, "/time", kWantText);
  return r;
}

std::optional<CliffsRecord> last_cliffs_record(const std::vector<json>& lines,
                                               std::vector<std::string>& refused) {
  return last_record<CliffsRecord>(lines, "cliffs", cliffs_record_from_json, refused);
}

}  // namespace rdmabench
