// -x/--gid-index's syntax (model/gid_option.h), shared by the command line and a campaign
// host's "gid_index": an index, a GID or an IP address; what a campaign host gives reaches the
// server's and the client's command lines as -x; a bad value is refused naming the option or the
// JSON path, the value and what is allowed.
#include "model/gid_option.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "base/error.h"
#include "base/json_util.h"
#include "orchestrator/campaign/host_spec.h"
#include "orchestrator/run/point_runner.h"
#include "tests/unit/test_util.h"

namespace rdmabench {
namespace {

using nlohmann::json;

constexpr const char* kFullGid = "fe80:0000:0000:0000:0202:c9ff:fe00:0001";

TEST(GidOption, AnIndexAGidOrAnAddress) {
  EXPECT_EQ(parse_gid_option("gid-index", "0").index, 0);
  EXPECT_EQ(parse_gid_option("gid-index", "3").index, 3);
  EXPECT_EQ(parse_gid_option("gid-index", "65535").index, 65535);
  EXPECT_TRUE(parse_gid_option("gid-index", "3").gid.empty());
  for (const std::string text :
       {"10.0.0.1", "fe80::1", "::ffff:10.0.0.1", kFullGid, "2001:db8::7"}) {
    const GidOption g = parse_gid_option("gid-index", text);
    EXPECT_EQ(g.index, -1) << text;
    EXPECT_EQ(g.gid, text);
  }
  std::array<uint8_t, 16> v4{};
  std::array<uint8_t, 16> mapped{};
  ASSERT_TRUE(gid_bytes("10.0.0.1", v4));
  ASSERT_TRUE(gid_bytes("::ffff:10.0.0.1", mapped));
  EXPECT_EQ(v4, mapped);  // an IPv4 address is its IPv4-mapped GID
}

TEST(GidOption, RefusesAnythingElseNamingTheOptionAndWhatIsAllowed) {
  for (const std::string text : {"", "65536", "99999999999999999999", "-1", "+3", "abc", "auto",
                                 "1.2.3", "10.0.0.256", "fe80::zz", "fe80:::1", " 3", "3 "}) {
    const ConfigError e =
        testutil::catch_config_error([&] { parse_gid_option("gid-index", text); });
    EXPECT_EQ(e.field(), "gid-index") << text;
    EXPECT_EQ(e.value(), text);
    EXPECT_EQ(e.allowed(), kGidOptionAllowed);
  }
}

HostSpec host_with_gid(const json& gid) {
  return parse_host_spec({{"host", "h1"}, {"device", "rxe0"}, {"gid_index", gid}},
                         "/hosts/0/server", "/opt/rb/rdmabench");
}

// The -x and its value in `argv`, or "" when there is none.
std::string x_of(const std::vector<std::string>& argv) {
  const auto it = std::find(argv.begin(), argv.end(), "-x");
  if (it == argv.end()) return "";
  EXPECT_NE(it + 1, argv.end());
  return it + 1 == argv.end() ? "" : *(it + 1);
}

// A campaign host takes what -x takes, and passes it on as written; "auto" passes nothing.
TEST(GidOption, ACampaignHostTakesWhatTheCommandLineTakes) {
  const std::vector<std::pair<json, std::string>> cases = {
      {3, "3"},
      {"3", "3"},
      {0, "0"},
      {"auto", ""},
      {"10.0.0.1", "10.0.0.1"},
      {"fe80::202:c9ff:fe00:1", "fe80::202:c9ff:fe00:1"},
      {"::ffff:10.0.0.1", "::ffff:10.0.0.1"},
      {kFullGid, kFullGid}};
  for (const auto& [value, x] : cases) {
    const HostSpec h = host_with_gid(value);
    EXPECT_EQ(x_of(server_argv(h)), x) << value.dump();
    EXPECT_EQ(x_of(client_argv(h, "10.0.0.2", "18515", {"--op", "write"})), x) << value.dump();
  }
  // Without the key: the automatic choice, no -x either.
  const HostSpec plain = parse_host_spec({{"host", "h1"}}, "/hosts/0/server", "rdmabench");
  EXPECT_EQ(x_of(server_argv(plain)), "");
}

TEST(GidOption, ACampaignHostRefusesABadValueNamingItsPath) {
  for (const json& value : {json("fe80::zz"), json("first"), json(""), json(70000), json(-1),
                            json(1.5), json(true), json("1.2.3"), json::array({3})}) {
    const ConfigError e = testutil::catch_config_error([&] { host_with_gid(value); });
    EXPECT_EQ(e.field(), "/hosts/0/server/gid_index") << value.dump();
    EXPECT_EQ(e.value(), brief_json(value));
    EXPECT_NE(e.allowed().find(kGidOptionAllowed), std::string::npos) << e.allowed();
    EXPECT_NE(e.allowed().find("\"auto\""), std::string::npos) << e.allowed();
  }
}

}  // namespace
}  // namespace rdmabench
