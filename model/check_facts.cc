#include "model/check_facts.h"

#include <string>

#include "base/error.h"

namespace rdmabench {

CheckFacts port_facts(const nlohmann::json& device, uint32_t port_num) {
  const std::string name = device.value("name", std::string("?"));
  const nlohmann::json ports = device.value("ports", nlohmann::json::array());
  for (const nlohmann::json& p : ports) {
    if (!p.is_object() || p.value("port", 0U) != port_num) continue;
    CheckFacts gid_types = CheckFacts::array();
    for (const auto& g : p.value("gids", nlohmann::json::array()))
      if (g.is_object() && g.contains("type")) gid_types.push_back(g["type"]);
    const nlohmann::json auto_gid = p.value("auto_gid", nlohmann::json::object());
    return {{"device", name},
            {"fw_ver", device.value("fw_ver", std::string())},
            {"port",
             {{"port", port_num},
              {"state", p.value("state", std::string("?"))},
              {"link_layer", p.value("link_layer", std::string("?"))},
              {"active_mtu", p.value("active_mtu", 0)},
              {"speed_gbps", p.value("speed_gbps", 0.0)},
              {"width", p.value("width", std::string("?"))},
              {"gid_types", gid_types},
              {"usable_gid", auto_gid.is_object() && auto_gid.value("index", -1) >= 0}}}};
  }
  throw ConfigError("port", name + " port " + std::to_string(port_num),
                    "a port of the device (it has " + std::to_string(ports.size()) + ")");
}

}  // namespace rdmabench
