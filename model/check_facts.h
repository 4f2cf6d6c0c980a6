#pragma once
// The node facts a check judges (CheckFacts, check_expectation.h) from a device's description as
// `rdmabench devices --json` prints it (verbs/device.h to_json): on the host itself
// (engine/node_facts.h adds the PCIe link from sysfs), or over a fabric from each agent's hello
// (its env's "devices").
#include <cstdint>
#include <nlohmann/json.hpp>

#include "model/check_expectation.h"

namespace rdmabench {

// {"device", "fw_ver", "port": {"port", "state", "link_layer", "active_mtu", "speed_gbps",
// "width", "gid_types", "usable_gid"}} of `device`'s port `port`. ConfigError naming the device
// and the port when it has no such port.
CheckFacts port_facts(const nlohmann::json& device, uint32_t port);

}  // namespace rdmabench
