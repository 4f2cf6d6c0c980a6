#pragma once
// rdmabench devices: the RDMA devices, their ports and GID tables.
#include <CLI/CLI.hpp>

namespace rdmabench {

struct DevicesArgs {
  bool json = false;
};

CLI::App* add_devices_command(CLI::App& app, DevicesArgs& a);
// Prints them; 1 when there is none (nothing to test with).
int run_devices_command(const DevicesArgs& a);

}  // namespace rdmabench
