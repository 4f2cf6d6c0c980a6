#pragma once
// The session's out-of-band messages as the peer sends them, read into typed structs. Every
// reader is a pure function over untrusted JSON: a missing member, a wrong type or an
// out-of-range number is a PeerError naming the message and the member ("malformed 'accept':
// member \"cm_port\" ..."), never a nlohmann exception or a silently defaulted value.
// The fuzz_oob target (tests/fuzz) drives each of them.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "workloads/result.h"
#include "workloads/workload.h"

namespace rdmabench {

// client -> server, first message. The token is compared before anything else is read.
struct HelloMsg {
  std::string token;
  Workload workload;
};
// Reads only the token ("" when absent); a token that is not a string is refused.
std::string hello_token(const nlohmann::json& hello);
HelloMsg parse_hello(const nlohmann::json& hello);

// server -> client, after the hello.
struct AcceptMsg {
  HostInfo host;
  nlohmann::json device;  // the server's device description (an object), kept as the server sent it
  uint16_t cm_port = 0;   // the rdma_cm listening port (0 when the workload uses the TCP exchange)
};
AcceptMsg parse_accept(const nlohmann::json& accept, bool needs_cm_port);

// client -> server, per message size.
struct StartMsg {
  size_t index = 0;
  uint64_t size = 0;
};
StartMsg parse_start(const nlohmann::json& start);

// "finish" (client -> server) and "sent" (server -> client, bidirectional): the number of
// messages each worker thread posted; exactly `threads` non-negative integers.
std::vector<uint64_t> parse_posted(const nlohmann::json& msg, uint32_t threads);

// server -> client, per message size.
struct SizeReplyMsg {
  uint64_t received = 0;
  uint64_t received_bytes = 0;
  uint64_t recv_post_calls = 0;             // the server's receive post calls (doorbells)
  std::optional<std::string> verify_error;  // present when the workload verifies
  struct Reverse {
    uint64_t ops = 0;
    double seconds = 0;
  };
  std::optional<Reverse> reverse;  // present for bidirectional runs
};
SizeReplyMsg parse_size_reply(const nlohmann::json& result, bool verify, bool bidir);

}  // namespace rdmabench
