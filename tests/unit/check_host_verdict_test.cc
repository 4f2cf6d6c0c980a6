// The rule of `check --fabric` (model/check_host_verdict.h): a host fails by its own
// expectations or when every link it is an end of failed; one failed link blames neither end.
#include "model/check_host_verdict.h"

#include <gtest/gtest.h>

namespace rdmabench {
namespace {

// A ring of n hosts (h -> h+1), the links named "hA -> hB", those in `bad` failed.
std::vector<CheckedLink> ring(size_t n, const std::vector<size_t>& bad) {
  std::vector<CheckedLink> links;
  for (size_t h = 0; h < n; ++h) {
    CheckedLink& l = links.emplace_back();
    l.client = h;
    l.server = (h + 1) % n;
    l.name = "h" + std::to_string(h) + " -> h" + std::to_string(l.server);
    for (size_t b : bad) l.failed = l.failed || b == h;
  }
  return links;
}

TEST(CheckHostVerdict, OneBadHostFailsItsTwoLinksAndOnlyItFails) {
  // h2 bad: h1 -> h2 and h2 -> h3 fail.
  const auto v = host_verdicts(std::vector<bool>(4, false), ring(4, {1, 2}));
  EXPECT_TRUE(v[0].pass);
  EXPECT_TRUE(v[0].why.empty()) << v[0].why;
  EXPECT_TRUE(v[1].pass);
  EXPECT_EQ(v[1].why, "1 of 2 links failed (h1 -> h2): another of its links passes");
  EXPECT_FALSE(v[2].pass);
  EXPECT_EQ(v[2].why, "every link it is an end of failed (h1 -> h2, h2 -> h3)");
  EXPECT_TRUE(v[3].pass);
}

TEST(CheckHostVerdict, OneBadLinkBlamesNeitherEnd) {
  const auto v = host_verdicts(std::vector<bool>(4, false), ring(4, {1}));
  for (const auto& h : v) EXPECT_TRUE(h.pass);
  EXPECT_NE(v[1].why.find("1 of 2 links failed"), std::string::npos);
  EXPECT_NE(v[2].why.find("1 of 2 links failed"), std::string::npos);
}

TEST(CheckHostVerdict, OwnExpectationsAndTwoHostsSharingBothLinks) {
  std::vector<bool> own(4, false);
  own[3] = true;
  const auto v = host_verdicts(own, ring(4, {}));
  EXPECT_FALSE(v[3].pass);
  EXPECT_EQ(v[3].why, "its own expectations failed");
  EXPECT_TRUE(v[0].pass);
  // Two hosts: both links are both hosts', so a fault fails both.
  const auto two = host_verdicts({false, false}, ring(2, {0, 1}));
  EXPECT_FALSE(two[0].pass);
  EXPECT_FALSE(two[1].pass);
  // A host in no link (left out of the ring) passes on its own facts.
  EXPECT_TRUE(host_verdicts({false}, {})[0].pass);
}

}  // namespace
}  // namespace rdmabench
