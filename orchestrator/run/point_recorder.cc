#include "orchestrator/run/point_recorder.h"

#include <filesystem>

#include "base/file_text.h"
#include "base/utc_time.h"
#include "model/result.h"

namespace rdmabench {

void PointRecorder::write_logs(const std::string& id, const PointOutcome& o) const {
  if (!o.server_log.empty()) write_file_atomic(dir_ + "/logs/" + id + ".server.log", o.server_log);
  if (!o.client_log.empty()) write_file_atomic(dir_ + "/logs/" + id + ".client.log", o.client_log);
}

bool PointRecorder::record(const Point& p, const PointOutcome& o, const nlohmann::json& extra) {
  const HostPair pair = c_.pair(p.pair);
  const std::string base = dir_ + "/" + p.id;
  write_logs(p.id, o);
  nlohmann::json point = {{"campaign", c_.name},
                          {"point_id", p.id},
                          {"repetition", p.repetition},
                          {"host_pair", pair.name},
                          {"server_host", pair.server.host},
                          {"client_host", pair.client.host},
                          {"matrix", p.values()}};
  point.update(extra);
  std::string error = o.error;
  bool ok = o.ok;
  if (ok) {
    try {
      write_file_atomic(base + ".json", with_member(o.document, "point", point) + "\n");
      std::error_code rm_ec;
      std::filesystem::remove(dir_ + "/failed/" + p.id + ".json", rm_ec);
    } catch (const std::exception& e) {
      ok = false;
      error = std::string("cannot write the result: ") + e.what();
    }
  } else if (o.brief.document) {
    std::error_code ec;
    std::filesystem::create_directories(dir_ + "/failed", ec);
    write_file_atomic(dir_ + "/failed/" + p.id + ".json",
                      with_member(o.document, "point", point) + "\n");
  }
  writer_.append(index_line({.point_id = p.id,
                             .status = ok ? "ok" : "failed",
                             .duration_s = o.duration_s,
                             .error = error,
                             .host_pair = pair.name,
                             .repetition = p.repetition,
                             .server_step = o.server_step,
                             .client_step = o.client_step,
                             .time = utc_now()}));
  progress_.finished(p.id, ok ? "ok" : "failed", o.duration_s, error);
  if (!ok && after_failure_) after_failure_();
  return ok;
}

PointOutcome PointRecorder::record_outcome(const Point& p, PointOutcome o,
                                           const nlohmann::json& extra) {
  bool ok = false;
  try {
    ok = record(p, o, extra);
  } catch (const std::exception& e) {
    progress_.note(std::string("rdmabench: error: ") + e.what());
  }
  if (!ok && o.ok) o.error = "its result could not be written";
  o.ok = ok;
  o.document.clear();
  o.document.shrink_to_fit();
  o.server_log = std::string();
  o.client_log = std::string();
  return o;
}

}  // namespace rdmabench
