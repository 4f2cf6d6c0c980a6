#include "cli/cmd_devices.h"

#include <iostream>
#include <vector>

#include "cli/cli_common.h"
#include "cli/print.h"
#include "verbs/device.h"

namespace rdmabench {

CLI::App* add_devices_command(CLI::App& app, DevicesArgs& a) {
  auto* devices = app.add_subcommand("devices", "list RDMA devices, ports and GID tables");
  devices->add_flag("--json", a.json, "print JSON");
  set_examples(devices,
               "  rdmabench devices          # each port's GIDs and the one auto picks\n"
               "  rdmabench devices --json\n");
  return devices;
}

int run_devices_command(const DevicesArgs& a) {
  std::vector<DeviceInfo> infos;
  for (const auto& name : list_device_names()) infos.push_back(Device::open(name).info());
  if (a.json) {
    std::cout << nlohmann::json(infos).dump(2) << std::endl;
  } else {
    print_devices(std::cout, infos);
  }
  if (infos.empty()) {  // nothing to test with: a script must not read that as success
    std::cerr << "rdmabench: error: no RDMA device found (no driver loaded? `rdma link` "
                 "lists the links; Soft-RoCE: rdma link add rxe0 type rxe netdev IFACE)"
              << std::endl;
    return 1;
  }
  return 0;
}

}  // namespace rdmabench
