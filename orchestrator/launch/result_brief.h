#pragma once
// What a campaign's controller reads from a client's result document, and nothing more: whether
// it is one (and valid), the run's error, each size's figures, the slower end's port speed and
// how its start went. The round's summary, the automatic start delay and the link verdicts read
// this brief; the document itself is only stored.
//
// An agent makes the brief where its client ran and sends it beside the document
// (agent_protocol.h, "brief"), so that the controller of a thousand hosts does not parse 500
// documents of 10 KB a round (nlohmann::json: about 0.2 ms each). A client launched on its own
// (host-pair campaigns, retests over ssh or Slurm) is briefed on the controller, from its output,
// by the same function.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace rdmabench {

struct SizeBrief {
  uint64_t size = 0;
  std::string error;  // "" when the size measured
  std::optional<double> gbps;
  std::optional<double> p50_ns;
  std::optional<double> p99_ns;   // latency mode: the tail (a fabric's probes read these)
  std::optional<double> p999_ns;  // the document's latency.p99_9
  std::optional<double> window_start_unix_s;  // the measurement's window, on the client's clock
  std::optional<double> window_end_unix_s;
  std::optional<double> loss_ppm;  // from the size's own counter deltas (results[].counters)
  // From the same deltas: congestion signals per million packets (counter_keys.h
  // congestion_per_million; nullopt on a device without such counters) and the counters that
  // moved ({"client": {key: n}, "server": ...}, moved_counters: what a hunt's anomaly records).
  std::optional<double> congestion_ppm;
  nlohmann::json counters_moved = nlohmann::json::object();
  bool operator==(const SizeBrief&) const = default;
};

struct ResultBrief {
  bool document = false;  // the output is a JSON object
  std::string invalid;    // why that object is not a valid result document ("" = valid)
  std::string error;      // the run's error ("" = none)
  std::vector<SizeBrief> sizes;
  std::optional<double> port_gbps;       // the slower end's devices.*.speed_gbps, when both tell
  std::optional<double> start_waited_s;  // setup.start (--start-at): waited before the start,
  std::optional<double> start_late_s;    // or how late it began
  // Loss events per million packets from the run's counter deltas, both sides
  // (model/counter_keys.h loss_per_million); nullopt when the devices count no packets.
  std::optional<double> loss_ppm;
  // The deltas behind loss_ppm are shared with other flows (a fabric round where an end of this
  // flow had another flow on its port): not this link's alone. From the document's
  // point.fabric.counters_shared, which the sweep sets (never sent by an agent).
  bool loss_shared = false;
  bool operator==(const ResultBrief&) const = default;

  // A size's figure, "gbps" or "p50_ns"; nullopt when the size is absent or failed.
  std::optional<double> figure(uint64_t size, const std::string& metric) const;
  // A size's loss figure: from its own deltas where the document has them, else the run's.
  std::optional<double> loss_at(uint64_t size) const;
};

// The brief of a document (also one that is not valid: then `invalid` says why, and the figures
// are read where they are).
ResultBrief brief_of(const nlohmann::json& doc);
// The brief of a client's standard output (a document, or anything else: `document` false).
ResultBrief brief_of_output(const std::string& out);

// The brief on the agents' connection; brief_from_json throws PeerError on a malformed one.
nlohmann::json to_json(const ResultBrief& b);
ResultBrief brief_from_json(const nlohmann::json& j);

// `object_text` (a JSON object's text, as a brief's `document` says it is) with the member `key`
// added at its end, indented as dump(2) would: what the sweep stores, the client's document and
// its "point", without parsing the document again.
std::string with_member(const std::string& object_text, const std::string& key,
                        const nlohmann::json& value);

}  // namespace rdmabench
