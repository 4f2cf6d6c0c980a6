#pragma once
// The session's out-of-band messages, one typed struct each, written by to_message() and read
// by parse_*() under the member names the struct declares (kType and its k* keys), so the two
// sides cannot drift apart. The "error" message is the channel's own (base/oob_channel.h),
// the "host" block is HostInfo's (model/result.h).
//
// Every reader is a pure function over untrusted JSON: a missing member, a wrong type or an
// out-of-range number is a PeerError naming the message and the member ("malformed 'accept':
// member \"cm_port\" ..."), never a nlohmann exception or a silently defaulted value.
// The fuzz_oob target (tests/fuzz) drives each of them.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/side_info.h"
#include "model/result.h"
#include "model/workload.h"

namespace rdmabench {

// The member every message has: its type.
inline constexpr const char* kMessageType = "type";

// client -> server, first message. The token is compared before anything else is read.
struct HelloMsg {
  static constexpr const char* kType = "hello";
  static constexpr const char* kVersion = "version";
  static constexpr const char* kToken = "token";
  static constexpr const char* kWorkload = "workload";
  static constexpr const char* kHost = "host";
  std::optional<std::string> version;  // the client's rdmabench version (informational)
  std::string token;
  Workload workload;
  std::optional<HostInfo> host;  // the client's host (informational)
};
nlohmann::json to_message(const HelloMsg& m);
// Reads only the token ("" when absent); a token that is not a string is refused.
std::string hello_token(const nlohmann::json& hello);
// The informational members may be absent; when present they must have their types.
HelloMsg parse_hello(const nlohmann::json& hello);

// server -> client, after the hello.
struct AcceptMsg {
  static constexpr const char* kType = "accept";
  static constexpr const char* kVersion = "version";
  static constexpr const char* kHost = "host";
  static constexpr const char* kDevice = "device";
  static constexpr const char* kCmPort = "cm_port";
  static constexpr const char* kCmNonce = "cm_nonce";
  std::optional<std::string> version;  // the server's rdmabench version (informational)
  HostInfo host;
  nlohmann::json device;  // the server's device description (an object), kept as the server sent it
  uint16_t cm_port = 0;   // the rdma_cm listening port (0 when the workload uses the TCP exchange)
  uint64_t cm_nonce = 0;  // rdma_cm: this session's connect requests carry it (else 0)
  bool operator==(const AcceptMsg&) const = default;
};
nlohmann::json to_message(const AcceptMsg& m);
// cm_port is read only when the workload connects with rdma_cm (else it is 0).
AcceptMsg parse_accept(const nlohmann::json& accept, bool needs_cm_port);

// Both ways, once: this side's QPs and memory, for the peer to connect to.
struct EndpointsMsg {
  static constexpr const char* kType = "endpoints";
  static constexpr const char* kSide = "side";
  SideInfo side;
};
nlohmann::json to_message(const EndpointsMsg& m);
EndpointsMsg parse_endpoints(const nlohmann::json& endpoints);

// The messages that are only their type: both ways after the endpoints ("ready"), the server's
// answer to a start ("started"), the client's keep-alive while it measures ("heartbeat").
// Read with OobChannel::expect(kType) or by comparing the type.
struct ReadyMsg {
  static constexpr const char* kType = "ready";
};
struct StartedMsg {
  static constexpr const char* kType = "started";
};
struct HeartbeatMsg {
  static constexpr const char* kType = "heartbeat";
};
nlohmann::json to_message(const ReadyMsg& m);
nlohmann::json to_message(const StartedMsg& m);
nlohmann::json to_message(const HeartbeatMsg& m);

// client -> server, per message size.
struct StartMsg {
  static constexpr const char* kType = "start";
  static constexpr const char* kIndex = "index";
  static constexpr const char* kSize = "size";
  size_t index = 0;
  uint64_t size = 0;
  bool operator==(const StartMsg&) const = default;
};
nlohmann::json to_message(const StartMsg& m);
StartMsg parse_start(const nlohmann::json& start);

// "finish" (client -> server) and "sent" (server -> client, bidirectional): the number of
// messages each worker thread posted.
struct PostedMsg {
  static constexpr const char* kFinish = "finish";
  static constexpr const char* kSent = "sent";
  static constexpr const char* kPosted = "posted";
  std::string type = kFinish;  // kFinish or kSent
  std::vector<uint64_t> posted;
  bool operator==(const PostedMsg&) const = default;
};
nlohmann::json to_message(const PostedMsg& m);
// Exactly `threads` non-negative integers; errors name the message by its type.
std::vector<uint64_t> parse_posted(const nlohmann::json& msg, uint32_t threads);

// server -> client, per message size (type "result").
struct SizeReplyMsg {
  static constexpr const char* kType = "result";
  static constexpr const char* kReceived = "received";
  static constexpr const char* kReceivedBytes = "received_bytes";
  static constexpr const char* kRecvPostCalls = "recv_post_calls";
  static constexpr const char* kVerifyError = "verify_error";
  static constexpr const char* kReverse = "reverse";
  static constexpr const char* kCounters = "counters";
  uint64_t received = 0;
  uint64_t received_bytes = 0;
  uint64_t recv_post_calls = 0;             // the server's receive post calls (doorbells)
  std::optional<std::string> verify_error;  // present when the workload verifies
  struct Reverse {
    static constexpr const char* kOps = "ops";
    static constexpr const char* kSeconds = "seconds";
    uint64_t ops = 0;
    double seconds = 0;
    bool operator==(const Reverse&) const = default;
  };
  std::optional<Reverse> reverse;  // present for bidirectional runs
  // The server's port counter deltas over the size ({name: delta}); absent from older servers.
  std::optional<nlohmann::json> counters;
  bool operator==(const SizeReplyMsg&) const = default;
};
nlohmann::json to_message(const SizeReplyMsg& m);
// verify_error is read when the workload verifies, reverse when it is bidirectional.
SizeReplyMsg parse_size_reply(const nlohmann::json& result, bool verify, bool bidir);

// "bye": the client's is only the type; the server's answer carries its port counter deltas
// and its setup description. Read leniently (the results are complete by then): a member is
// taken when present (setup only when an object).
struct ByeMsg {
  static constexpr const char* kType = "bye";
  static constexpr const char* kCounters = "counters";
  static constexpr const char* kSetup = "setup";
  std::optional<nlohmann::json> counters;
  std::optional<nlohmann::json> setup;
  bool operator==(const ByeMsg&) const = default;
};
nlohmann::json to_message(const ByeMsg& m);
ByeMsg parse_bye(const nlohmann::json& bye);

// Not a channel message: the line `rdmabench server` prints on stdout once it listens, kTag
// then the JSON object (read by orchestrator/run/point_runner.cc and the engine tests).
struct ServerReadyLine {
  static constexpr const char* kTag = "RDMABENCH_SERVER_READY ";
  static constexpr const char* kAddress = "address";
  static constexpr const char* kPort = "port";
  static constexpr const char* kCmPort = "cm_port";
  static constexpr const char* kDevice = "device";
  static constexpr const char* kPid = "pid";
  static constexpr const char* kVersion = "version";
  std::string address;
  uint16_t port = 0;
  uint16_t cm_port = 0;
  std::string device;
  long pid = 0;
  std::string version;
};
nlohmann::json to_message(const ServerReadyLine& m);

}  // namespace rdmabench
