// The session's message readers (engine/session_messages.h): what a well-formed peer sends is
// read back exactly; anything else is a PeerError that names the message and the member.
#include "engine/session_messages.h"

#include <gtest/gtest.h>

#include <string>

#include "base/error.h"
#include "base/oob_channel.h"

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
          {"cm_port", 18516},
          {"cm_nonce", 1234567890123ULL}};
}

TEST(SessionMessages, AcceptIsReadBack) {
  AcceptMsg a = parse_accept(good_accept(), true);
  EXPECT_EQ(a.host.hostname, "h");
  EXPECT_EQ(a.host.kernel, "6.1");
  EXPECT_EQ(a.host.rdma_core, "44.0");
  EXPECT_EQ(a.device["name"], "rxe0");
  EXPECT_EQ(a.cm_port, 18516);
  EXPECT_EQ(a.cm_nonce, 1234567890123ULL);
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
  j.erase("cm_nonce");  // rdma_cm requests must carry the session's nonce
  EXPECT_NE(peer_error([&] { parse_accept(j, true); }).find("cm_nonce"), std::string::npos);
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

// ---- Round trips: every message as to_message() writes it is read back into the same struct.

HostInfo some_host() { return {"h1", "Linux 6.1.0 x86_64", "44.0"}; }

TEST(SessionMessagesRoundTrip, Hello) {
  Workload w;
  w.sizes = {64, 4096};
  w.threads = 2;
  const HelloMsg m{"0.1.0", "t0k3n", w, some_host()};
  const json j = to_message(m);
  EXPECT_EQ(j["type"], "hello");
  EXPECT_EQ(hello_token(j), m.token);
  const HelloMsg back = parse_hello(j);
  EXPECT_EQ(back.version, m.version);
  EXPECT_EQ(back.token, m.token);
  EXPECT_EQ(json(back.workload).dump(), json(m.workload).dump());
  EXPECT_EQ(back.host, m.host);
  // Without the informational members (as a hand-written hello may be).
  const HelloMsg bare{std::nullopt, "", w, std::nullopt};
  const HelloMsg bare_back = parse_hello(to_message(bare));
  EXPECT_FALSE(bare_back.version.has_value());
  EXPECT_FALSE(bare_back.host.has_value());
  EXPECT_EQ(bare_back.token, "");
}

TEST(SessionMessagesRoundTrip, HelloInformationalMembersAreTyped) {
  json j = to_message(HelloMsg{"0.1.0", "", Workload{}, some_host()});
  j["host"]["rdma_core"] = 44;
  EXPECT_NE(peer_error([&] { parse_hello(j); }).find("\"rdma_core\" must be a string"),
            std::string::npos);
  j = to_message(HelloMsg{"0.1.0", "", Workload{}, some_host()});
  j["version"] = 1;
  EXPECT_NE(peer_error([&] { parse_hello(j); }).find("\"version\" must be a string"),
            std::string::npos);
}

TEST(SessionMessagesRoundTrip, Accept) {
  const AcceptMsg m{"0.1.0", some_host(), json{{"name", "rxe0"}, {"ports", {1}}}, 18516};
  const json j = to_message(m);
  EXPECT_EQ(j["type"], "accept");
  EXPECT_EQ(parse_accept(j, true), m);
  // The TCP exchange does not read the port.
  AcceptMsg no_cm = m;
  no_cm.cm_port = 0;
  EXPECT_EQ(parse_accept(j, false), no_cm);
  EXPECT_EQ(parse_accept(to_message(no_cm), false), no_cm);
}

TEST(SessionMessagesRoundTrip, Endpoints) {
  SideInfo s;
  s.lid = 7;
  s.gid = "fe800000000000000000000000000001";
  s.active_mtu = 1024;
  s.max_rd_atomic = 16;
  QpInfo q;
  q.qpn = 0x1234;
  q.psn = 0x42;
  q.addr = 0x7f0000001000;
  q.rkey = 99;
  q.len = 4096;
  s.qps = {q, q};
  const json j = to_message(EndpointsMsg{s});
  EXPECT_EQ(j["type"], "endpoints");
  EXPECT_EQ(json(parse_endpoints(j).side).dump(), json(s).dump());
  EXPECT_NE(peer_error([] {
              parse_endpoints(json{{"type", "endpoints"}});
            }).find("no member \"side\""),
            std::string::npos);
}

TEST(SessionMessagesRoundTrip, TypeOnlyMessages) {
  EXPECT_EQ(to_message(ReadyMsg{}), (json{{"type", "ready"}}));
  EXPECT_EQ(to_message(StartedMsg{}), (json{{"type", "started"}}));
  EXPECT_EQ(to_message(HeartbeatMsg{}), (json{{"type", "heartbeat"}}));
}

TEST(SessionMessagesRoundTrip, Start) {
  const StartMsg m{3, 1ULL << 40};
  const json j = to_message(m);
  EXPECT_EQ(j["type"], "start");
  EXPECT_EQ(parse_start(j), m);
}

TEST(SessionMessagesRoundTrip, FinishAndSent) {
  for (const char* type : {PostedMsg::kFinish, PostedMsg::kSent}) {
    const PostedMsg m{type, {0, 5, UINT64_MAX}};
    const json j = to_message(m);
    EXPECT_EQ(j["type"], type);
    EXPECT_EQ(parse_posted(j, 3), m.posted);
  }
}

TEST(SessionMessagesRoundTrip, SizeReply) {
  const SizeReplyMsg plain{10, 640, 3, std::nullopt, std::nullopt, std::nullopt};
  EXPECT_EQ(to_message(plain)["type"], "result");
  EXPECT_EQ(parse_size_reply(to_message(plain), false, false), plain);
  const SizeReplyMsg full{10,
                          640,
                          3,
                          "bad byte at 5",
                          SizeReplyMsg::Reverse{7, 0.125},
                          json{{"hw_counters/rcvd_seq_err", 2}}};
  EXPECT_EQ(parse_size_reply(to_message(full), true, true), full);
  const SizeReplyMsg verified{1, 2, 3, "", std::nullopt, std::nullopt};
  EXPECT_EQ(parse_size_reply(to_message(verified), true, false), verified);
  // The server's counter deltas of the size: an object, or refused naming the member.
  json bad = to_message(plain);
  bad["counters"] = 7;
  EXPECT_NE(peer_error([&] { parse_size_reply(bad, false, false); }).find("counters"),
            std::string::npos);
}

TEST(SessionMessagesRoundTrip, Bye) {
  const ByeMsg client{};
  EXPECT_EQ(to_message(client), (json{{"type", "bye"}}));
  EXPECT_EQ(parse_bye(to_message(client)), client);
  const ByeMsg server{json{{"port_xmit_packets", 3}}, json{{"qps", 2}}};
  EXPECT_EQ(parse_bye(to_message(server)), server);
  // Read leniently: a setup that is not an object is left out.
  EXPECT_FALSE(parse_bye(json{{"type", "bye"}, {"setup", 5}}).setup.has_value());
}

TEST(SessionMessagesRoundTrip, Error) {
  const ErrorMsg m{"the client failed: boom", ""};
  const json j = to_message(m);
  EXPECT_EQ(j["type"], "error");
  EXPECT_EQ(parse_error(j), m);
  EXPECT_EQ(parse_error(json{{"type", "error"}}).message, "(no text)");
}

TEST(SessionMessagesRoundTrip, HostBlockIsTheResultDocumentsToo) {
  // The host block of hello and accept is the one the result document holds.
  const json host = some_host();
  EXPECT_EQ(host,
            (json{{"hostname", "h1"}, {"kernel", "Linux 6.1.0 x86_64"}, {"rdma_core", "44.0"}}));
  EXPECT_EQ(to_message(AcceptMsg{"v", some_host(), json::object(), 1})["host"], host);
  EXPECT_EQ(to_message(HelloMsg{"v", "", Workload{}, some_host()})["host"], host);
}

TEST(SessionMessagesRoundTrip, ServerReadyLine) {
  const json j = to_message(ServerReadyLine{"10.0.0.1", 18515, 18516, "rxe0", 4242, "0.1.0"});
  EXPECT_EQ(j, (json{{"address", "10.0.0.1"},
                     {"port", 18515},
                     {"cm_port", 18516},
                     {"device", "rxe0"},
                     {"pid", 4242},
                     {"version", "0.1.0"}}));
  EXPECT_TRUE(j["port"].is_number_unsigned());
}

}  // namespace
}  // namespace rdmabench
