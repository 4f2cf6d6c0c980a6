#include "engine/node_facts.h"

#include <cstdlib>
#include <fstream>

#include "base/error.h"
#include "model/check_facts.h"

namespace rdmabench {
namespace {

// The leading number of a sysfs file ("16", "16.0 GT/s PCIe"); nullopt when it is absent or
// has none ("Unknown").
std::optional<double> leading_number(const std::string& path) {
  std::ifstream in(path);
  std::string text;
  if (!in || !std::getline(in, text)) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str()) return std::nullopt;
  return v;
}

}  // namespace

CheckFacts node_facts(const Device& d, uint32_t port_num, const std::string& sysfs_root) {
  const DeviceInfo& info = d.info();
  CheckFacts facts = port_facts(nlohmann::json(info), port_num);
  const std::string dev = sysfs_root + "/class/infiniband/" + info.name + "/device/";
  const auto width = leading_number(dev + "current_link_width");
  const auto speed = leading_number(dev + "current_link_speed");
  if (width && speed) {
    facts["pcie"] = {{"width", *width}, {"speed_gts", *speed}};
    if (const auto w = leading_number(dev + "max_link_width")) facts["pcie"]["max_width"] = *w;
    if (const auto s = leading_number(dev + "max_link_speed")) facts["pcie"]["max_speed_gts"] = *s;
  }
  return facts;
}

}  // namespace rdmabench
