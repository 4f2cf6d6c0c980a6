#include "orchestrator/campaign/point_id.h"

#include <cstdio>
#include <vector>

#include "base/slug.h"

namespace rdmabench {

PointIds::PointIds(const nlohmann::json& values) : values_text_(values.dump()) {
  const std::string op = values.value("op", "write");
  const std::string mode = values.value("mode", "bw");
  std::vector<uint64_t> list;
  if (values.contains("sizes")) {
    list = values["sizes"].get<std::vector<uint64_t>>();
  } else {  // the client's defaults (workload_options.cc)
    list = {op == "fetch_add" || op == "cmp_swap" ? 8U : mode == "lat" ? 2U : 65536U};
  }
  std::string sizes;
  if (list.size() <= 3) {
    for (uint64_t s : list) {  // piece by piece: "_" + std::string trips GCC 12's -Wrestrict
      if (!sizes.empty()) sizes += '_';
      sizes += format_size(s);
    }
  } else {
    sizes = format_size(list.front()) + "-" + format_size(list.back()) + "x" +
            std::to_string(list.size());
  }
  readable_ = slug(op + "-" + values.value("qp", "rc") + "-" + mode + "-" + sizes, 48);
}

namespace {

// `s` as a JSON string, as nlohmann::json dumps it (quotes, backslashes and control characters
// escaped; everything else, UTF-8 included, as it is), without building a json value for the
// common case of a plain name.
std::string json_text(const std::string& s) {
  for (const unsigned char c : s)
    if (c == '"' || c == '\\' || c < 0x20 || c == 0x7f || c >= 0x80)
      return nlohmann::json(s).dump();
  return '"' + s + '"';
}

}  // namespace

std::string PointIds::id(const std::string& pair_name, unsigned repetition,
                         const std::string& round) const {
  // The identity hashed is the canonical JSON text of {"host_pair", "matrix", "repetition",
  // "round"} (keys sorted, as nlohmann::json dumps an object), written out directly.
  std::string identity = "{\"host_pair\":" + json_text(pair_name) + ",\"matrix\":" + values_text_ +
                         ",\"repetition\":" + std::to_string(repetition);
  if (!round.empty()) identity += ",\"round\":" + json_text(round);
  identity += '}';
  char hash[24];
  std::snprintf(hash, sizeof hash, "%010llx",
                static_cast<unsigned long long>(fnv1a64(identity) >> 24));
  return readable_ + "-" + slug(pair_name, 24) + "-r" + std::to_string(repetition) + "-" + hash;
}

std::string point_id(const nlohmann::json& values, const std::string& pair_name,
                     unsigned repetition, const std::string& round) {
  return PointIds(values).id(pair_name, repetition, round);
}

}  // namespace rdmabench
