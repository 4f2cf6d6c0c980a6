// The session's message readers (workloads/session_messages.h): what a well-formed peer sends is
// read back exactly; anything else is a PeerError that names the message and the member.
#include "workloads/session_messages.h"

#include <gtest/gtest.h>

#include <string>

#include "harness/error.h"

namespace rdmabench {
namespace {

using nlohmann::json;

// The PeerError message `f` throws ("" when it throws nothing or something else).
template <typename F>
std::string peer_error(F&& f) {
  try {
    f();
  } catch (const PeerError& e) {
    return e.what();
  } catch (...) {
    return "<another exception>";
  }
  return "<no exception>";
}

json good_accept() {
  return {{"type", "accept"},
          {"host", {{"hostname", "h"}, {"kernel", "6.1"}, {"rdma_core", "44.0"}}},
          {"device", {{"name", "rxe0"}}},
          {"cm_port", 18516}};
}

TEST(SessionMessages, AcceptIsReadBack) {
  AcceptMsg a = parse_accept(good_accept(), true);
  EXPECT_EQ(a.host.hostname, "h");
  EXPECT_EQ(a.host.kernel, "6.1");
  EXPECT_EQ(a.host.rdma_core, "44.0");
  EXPECT_EQ(a.device["name"], "rxe0");
  EXPECT_EQ(a.cm_port, 18516);
}

TEST(SessionMessages, AcceptWithBadMembersNamesThem) {
  json j = good_accept();
  j["cm_port"] = 70000;
  std::string e = peer_error([&] { parse_accept(j, true); });
  EXPECT_NE(e.find("'accept'"), std::string::npos) << e;
  EXPECT_NE(e.find("cm_port"), std::string::npos) << e;
  EXPECT_NE(e.find("70000"), std::string::npos) << e;
  // Without rdma_cm the port is not read at all.
  EXPECT_EQ(parse_accept(j, false).cm_port, 0);
  j = good_accept();
  j["cm_port"] = 0;
  EXPECT_NE(peer_error([&] { parse_accept(j, true); }).find("cm_port"), std::string::npos);
  j = good_accept();
  j["cm_port"] = "18516";
  EXPECT_NE(peer_error([&] { parse_accept(j, true); }).find("cm_port"), std::string::npos);
  j = good_accept();
  j["host"]["kernel"] = 61;
  EXPECT_NE(peer_error([&] { parse_accept(j, false); }).find("\"kernel\" must be a string"),
            std::string::npos);
  j = good_accept();
  j.erase("device");
  EXPECT_NE(peer_error([&] { parse_accept(j, false); }).find("no member \"device\""),
            std::string::npos);
  j = good_accept();
  j["device"] = json::array({1, 2});
  EXPECT_NE(peer_error([&] { parse_accept(j, false); }).find("\"device\" must be an object"),
            std::string::npos);
  EXPECT_NE(peer_error([] { parse_accept(json::array(), false); }).find("not a JSON object"),
            std::string::npos);
}

TEST(SessionMessages, HelloTokenIsCheckedBeforeTheWorkload) {
  EXPECT_EQ(hello_token(json{{"type", "hello"}}), "");
  EXPECT_EQ(hello_token(json{{"type", "hello"}, {"token", "s3cret"}, {"workload", 5}}), "s3cret");
  EXPECT_NE(peer_error([] {
              hello_token(json{{"token", 5}});
            }).find("\"token\" must be a string"),
            std::string::npos);
  EXPECT_NE(peer_error([] {
              parse_hello(json{{"token", ""}});
            }).find("no member \"workload\""),
            std::string::npos);
}

TEST(SessionMessages, HelloWorkloadRoundTrips) {
  Workload w;
  w.sizes = {64, 4096};
  HelloMsg h = parse_hello(json{{"type", "hello"}, {"token", "t"}, {"workload", w}});
  EXPECT_EQ(h.token, "t");
  EXPECT_EQ(json(h.workload).dump(), json(w).dump());
}

TEST(SessionMessages, Start) {
  StartMsg s = parse_start(json{{"type", "start"}, {"index", 1}, {"size", 4096}});
  EXPECT_EQ(s.index, 1u);
  EXPECT_EQ(s.size, 4096u);
  EXPECT_NE(peer_error([] {
              parse_start(json{{"index", -1}, {"size", 1}});
            }).find("index"),
            std::string::npos);
  EXPECT_NE(peer_error([] {
              parse_start(json{{"index", 0}, {"size", 1.5}});
            }).find("size"),
            std::string::npos);
  EXPECT_NE(peer_error([] {
              parse_start(json{{"index", 0}});
            }).find("no member \"size\""),
            std::string::npos);
}

TEST(SessionMessages, PostedCountsOnePerThread) {
  EXPECT_EQ(parse_posted(json{{"type", "finish"}, {"posted", {3, 4}}}, 2),
            (std::vector<uint64_t>{3, 4}));
  std::string e = peer_error([] { parse_posted(json{{"type", "sent"}, {"posted", {3}}}, 2); });
  EXPECT_NE(e.find("'sent'"), std::string::npos) << e;
  EXPECT_NE(e.find("array of 2 counts"), std::string::npos) << e;
  e = peer_error([] { parse_posted(json{{"type", "finish"}, {"posted", {3, "x"}}}, 2); });
  EXPECT_NE(e.find("posted/1"), std::string::npos) << e;
  e = peer_error([] { parse_posted(json{{"type", "finish"}, {"posted", {3, -4}}}, 2); });
  EXPECT_NE(e.find("posted/1"), std::string::npos) << e;
  e = peer_error([] { parse_posted(json{{"type", "finish"}}, 1); });
  EXPECT_NE(e.find("no member \"posted\""), std::string::npos) << e;
}

TEST(SessionMessages, SizeReply) {
  json j = {{"type", "result"}, {"received", 10}, {"received_bytes", 640}, {"recv_post_calls", 3}};
  SizeReplyMsg r = parse_size_reply(j, false, false);
  EXPECT_EQ(r.received, 10u);
  EXPECT_EQ(r.received_bytes, 640u);
  EXPECT_EQ(r.recv_post_calls, 3u);
  EXPECT_FALSE(r.verify_error.has_value());
  EXPECT_FALSE(r.reverse.has_value());
  // A verifying run needs the server's verdict; a bidirectional one the reverse direction.
  EXPECT_NE(peer_error([&] { parse_size_reply(j, true, false); }).find("verify_error"),
            std::string::npos);
  EXPECT_NE(peer_error([&] { parse_size_reply(j, false, true); }).find("reverse"),
            std::string::npos);
  j["verify_error"] = "";
  j["reverse"] = {{"ops", 5}, {"seconds", 0.25}};
  r = parse_size_reply(j, true, true);
  EXPECT_EQ(r.verify_error, "");
  ASSERT_TRUE(r.reverse.has_value());
  EXPECT_EQ(r.reverse->ops, 5u);
  EXPECT_DOUBLE_EQ(r.reverse->seconds, 0.25);
  j["reverse"]["seconds"] = -1;
  EXPECT_NE(peer_error([&] { parse_size_reply(j, true, true); }).find("seconds"),
            std::string::npos);
  j["reverse"]["seconds"] = "1";
  EXPECT_NE(peer_error([&] { parse_size_reply(j, true, true); }).find("seconds"),
            std::string::npos);
  j["received"] = 1e30;
  EXPECT_NE(peer_error([&] { parse_size_reply(j, true, true); }).find("received"),
            std::string::npos);
}

}  // namespace
}  // namespace rdmabench
