#pragma once
// Checks of a side's device before anything is built on it (setup path): the port is ACTIVE and
// the device can run the workload (model/workload.h validate_for_device over its limits).
#include <cstdint>

#include "engine/session_resources.h"
#include "model/workload.h"
#include "verbs/device.h"

namespace rdmabench {

DeviceLimits limits_of(const Device& d, uint32_t port);
// The port, refused (ConfigError "port", naming the device and its state) unless ACTIVE.
const PortInfo& active_port(const Device& d, uint32_t port);
// Refuses (ConfigError, naming the device) a workload the device or its port cannot run: the
// port must be ACTIVE, and validate_for_device must pass.
void check_device_for(const Workload& w, const Device& d, uint32_t port);
// The same for this host's device, opened for the check: a client runs it before it connects.
void check_local_device(const Workload& w, const LocalSettings& local);

}  // namespace rdmabench
