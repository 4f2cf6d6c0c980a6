#pragma once
// What `rdmabench check` reads of this host's device without traffic (setup path): the port's
// state, MTU, speed, width and GID kinds from libibverbs, the firmware version, and the PCIe
// link of the device's PCI function from sysfs. The shape is model/check_expectation.h's
// CheckFacts; the expectations judge it there.
#include <cstdint>
#include <string>

#include "model/check_expectation.h"
#include "verbs/device.h"

namespace rdmabench {

// The facts of `d`'s port `port` (ConfigError naming the port when the device has no such port).
// `sysfs_root` ("/sys") is where the PCIe link is read: <root>/class/infiniband/<device>/device/
// current_link_width, current_link_speed ("16.0 GT/s PCIe"), max_link_width, max_link_speed;
// absent files leave "pcie" out (a software device such as rxe or siw has none).
CheckFacts node_facts(const Device& d, uint32_t port, const std::string& sysfs_root = "/sys");

}  // namespace rdmabench
