// Which GID a side uses (engine/qp_settings.h, verbs/device.h) on port descriptions,
// without a device: the automatic choice and its reason, -x as an index, a GID or an IPv4
// address, --gid-type, and the errors naming the option.
#include <gtest/gtest.h>

#include "engine/qp_settings.h"
#include "tests/unit/test_util.h"
#include "verbs/device.h"

namespace rdmabench {
namespace {

PortInfo roce_port() {
  PortInfo p;
  p.port = 1;
  p.state = "ACTIVE";
  p.link_layer = "Ethernet";
  p.gids = {{0, "fe80::1", "RoCE v1", "eth0", ""},
            {1, "fe80::1", "RoCE v2", "eth0", ""},
            {2, "::ffff:10.0.0.5", "RoCE v1", "eth0", "10.0.0.5"},
            {3, "::ffff:10.0.0.5", "RoCE v2", "eth0", "10.0.0.5"},
            {4, "fd00::5", "RoCE v2", "eth0", ""}};
  return p;
}

TEST(GidChoice, AutoPicksTheRoceV2Ipv4GidAndSaysWhy) {
  const PortInfo p = roce_port();
  EXPECT_EQ(choose_gid_index(p, -1, "", "", GidType::kAuto), 3u);
  EXPECT_EQ(choose_gid_index(p, -1, "", "", GidType::kRoceV2), 3u);
  EXPECT_EQ(choose_gid_index(p, -1, "", "", GidType::kRoceV1), 2u);
  const nlohmann::json a = auto_gid_choice(p);
  EXPECT_EQ(a["index"], 3);
  EXPECT_NE(a["why"].get<std::string>().find("10.0.0.5 on eth0"), std::string::npos) << a;
  EXPECT_EQ(a["warning"], "");
}

TEST(GidChoice, XTakesAnIndexAGidOrAnAddress) {
  const PortInfo p = roce_port();
  EXPECT_EQ(choose_gid_index(p, 1, "", "", GidType::kAuto), 1u);
  EXPECT_EQ(choose_gid_index(p, -1, "fd00::5", "", GidType::kAuto), 4u);
  EXPECT_EQ(choose_gid_index(p, -1, "10.0.0.5", "", GidType::kAuto), 3u);  // RoCE v2 first
  EXPECT_EQ(choose_gid_index(p, -1, "10.0.0.5", "", GidType::kRoceV1), 2u);
  EXPECT_EQ(choose_gid_index(p, -1, "10.0.0.5", "", GidType::kRoceV2), 3u);
  EXPECT_EQ(choose_gid_index(p, -1, "::ffff:10.0.0.5", "", GidType::kRoceV2), 3u);
  EXPECT_EQ(choose_gid_index(p, -1, "fe80::1", "", GidType::kRoceV1), 0u);
}

TEST(GidChoice, ErrorsNameTheOption) {
  const PortInfo p = roce_port();
  auto e =
      testutil::catch_config_error([&] { choose_gid_index(p, -1, "fd00::9", "", GidType::kAuto); });
  EXPECT_EQ(e.field(), "gid-index");
  EXPECT_NE(e.allowed().find("4: fd00::5 RoCE v2"), std::string::npos) << e.allowed();
  e = testutil::catch_config_error(
      [&] { choose_gid_index(p, -1, "not-a-gid", "", GidType::kAuto); });
  EXPECT_EQ(e.field(), "gid-index");
  e = testutil::catch_config_error([&] { choose_gid_index(p, 4, "", "", GidType::kRoceV1); });
  EXPECT_EQ(e.field(), "gid-type");
  EXPECT_NE(e.allowed().find("fd00::5 is RoCE v2"), std::string::npos) << e.allowed();
  PortInfo v2only = p;
  v2only.gids = {{0, "fe80::1", "RoCE v2", "eth0", ""}};
  e = testutil::catch_config_error([&] { choose_gid_index(v2only, -1, "", "", GidType::kRoceV1); });
  EXPECT_EQ(e.field(), "gid-type");
  const nlohmann::json a = auto_gid_choice(v2only);
  EXPECT_EQ(a["index"], -1);
  EXPECT_NE(a["warning"].get<std::string>().find("no RoCE v2 GID with an IPv4 address"),
            std::string::npos);
  v2only.state = "DOWN";
  EXPECT_NE(auto_gid_choice(v2only)["warning"].get<std::string>().find("port 1 is DOWN"),
            std::string::npos);
}

TEST(GidChoice, InfinibandUsesGidZero) {
  PortInfo p;
  p.state = "ACTIVE";
  p.link_layer = "InfiniBand";
  p.gids = {{0, "fe80::2c9:300:1", "IB", "", ""}};
  EXPECT_EQ(choose_gid_index(p, -1, "", "", GidType::kAuto), 0u);
  EXPECT_NE(auto_gid_choice(p)["why"].get<std::string>().find("InfiniBand"), std::string::npos);
}

}  // namespace
}  // namespace rdmabench
