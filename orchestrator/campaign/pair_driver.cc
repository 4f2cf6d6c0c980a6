#include "orchestrator/campaign/pair_driver.h"

#include <set>

#include "base/config_keys.h"
#include "base/error.h"
#include "base/json_util.h"

namespace rdmabench {
namespace {

std::vector<HostPair> parse_pairs(const nlohmann::json& hosts, const std::string& path,
                                  const DriverParseContext& ctx) {
  std::vector<HostPair> pairs;
  if (!hosts.is_array() || hosts.empty())
    throw ConfigError(
        path, brief_json(hosts),
        "a non-empty list of host pairs {\"name\", \"server\", \"client\", \"connect_address\"}");
  std::set<std::string> names;
  for (size_t i = 0; i < hosts.size(); ++i) {
    const std::string p = path + "/" + std::to_string(i);
    const auto& h = hosts[i];
    if (!h.is_object())
      throw ConfigError(p, brief_json(h),
                        "an object {\"name\", \"server\", \"client\", \"connect_address\"}");
    check_keys(h, p, {"name", "server", "client", "connect_address"});
    HostPair pair;
    pair.name = get_string(require(h, "name", p, "the host pair's name"), p + "/name", "a string");
    if (pair.name.empty() || pair.name.find('\n') != std::string::npos)
      throw ConfigError(p + "/name", nlohmann::json(pair.name).dump(),
                        "a non-empty one-line string");
    if (!names.insert(pair.name).second)
      throw ConfigError(p + "/name", nlohmann::json(pair.name).dump(),
                        "a name no other host pair has (duplicate)");
    pair.server =
        parse_host_spec(require(h, "server", p, "the server host"), p + "/server", ctx.self_exe);
    pair.client =
        parse_host_spec(require(h, "client", p, "the client host"), p + "/client", ctx.self_exe);
    if (auto it = h.find("connect_address"); it != h.end())
      pair.connect_address = parse_connect_address(*it, p + "/connect_address");
    check_in_allocation(pair.server, p + "/server/host", ctx.allocation);
    check_in_allocation(pair.client, p + "/client/host", ctx.allocation);
    pairs.push_back(std::move(pair));
  }
  return pairs;
}

}  // namespace

void PairDriver::for_each_host(
    const std::function<void(const HostSpec&, const std::string& role)>& use) const {
  for (const auto& pair : pairs_) {
    use(pair.server, "host pair '" + pair.name + "' server");
    use(pair.client, "host pair '" + pair.name + "' client");
  }
}

// Combination, then host pair.
void PairDriver::add_points(unsigned /*repetition*/, const Combinations& combinations,
                            const AddPoint& add) const {
  static const std::string kNoRound;
  for (size_t k = 0; k < combinations.works.size(); ++k)
    for (size_t p = 0; p < pairs_.size(); ++p)
      add(PointDraft{.pair = p,
                     .round = std::nullopt,
                     .tag = 0,
                     .work = &combinations.works[k],
                     .ids = &combinations.ids[k],
                     .round_name = &kNoRound});
}

DriverKind pair_kind() {
  return DriverKind{"hosts", "host pairs",
                    [](const nlohmann::json& block, const std::string& path,
                       const DriverParseContext& ctx) -> std::shared_ptr<CampaignDriver> {
                      return std::make_shared<PairDriver>(parse_pairs(block, path, ctx));
                    },
                    false, ""};
}

}  // namespace rdmabench
