#pragma once
// The control connection between a fabric campaign's controller (`rdmabench sweep`) and the
// agent on each host (`rdmabench agent`): the out-of-band channel's frames (base/oob_channel.h:
// "RDMB", version, length, one JSON object with a "type"), carried by the launch's own
// stdin/stdout (ssh, local) or a TCP connection the agent makes (a Slurm step: `agent --connect`).
// One definition of every message is here; docs/fabrics.md "Fabrics of hundreds of hosts" describes
// the exchange.
//
//   agent -> controller   challenge {nonce}
//   controller -> agent   auth {nonce, proof}                 proof = HMAC(token, "controller" ...)
//   agent -> controller   hello {proof, host, version, pid, cpus, env}   or error {code "refused"}
//                         (env: what the host checks capture, launch/host_env.h, gathered there;
//                         the controller refuses another version)
//   controller -> agent   start {job, argv}                   argv: "server"|"client" and options
//   agent -> controller   out {job, bytes} | err {job, bytes} (each followed by one raw frame:
//                         the session's output, not escaped into JSON) | exit {job, status,
//                         status_text}; a client's exit comes after its brief {job, document,
//                         invalid, error, sizes, port_gbps, start_waited_s, start_late_s}: what
//                         its result document says (launch/result_brief.h), made on its host
//   controller -> agent   stop {job} | time {seq} | bye {}
//   agent -> controller   time {seq, t} | heartbeat {}       t: its wall clock (s since the epoch)
//                         when it answered: the clock offsets (launch/clock_offset.h)
//
// The token never crosses the connection: each side proves it knows it with an HMAC-SHA256 over
// both sides' fresh nonces and its role (so a proof cannot be replayed, or reflected to the other
// side). Nothing the agent receives names a program or a path: it runs its own binary's `server`
// or `client` only, and refuses every option that takes a file.
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace rdmabench::agent {

inline constexpr const char* kChallenge = "challenge";
inline constexpr const char* kAuth = "auth";
inline constexpr const char* kHello = "hello";
inline constexpr const char* kStart = "start";
inline constexpr const char* kOut = "out";
inline constexpr const char* kErr = "err";
inline constexpr const char* kExit = "exit";
inline constexpr const char* kBrief = "brief";
inline constexpr const char* kStop = "stop";
inline constexpr const char* kTime = "time";
inline constexpr const char* kHeartbeat = "heartbeat";
inline constexpr const char* kBye = "bye";

// 32 hex digits from the system's random source (OpenSSL RAND_bytes).
std::string new_nonce();
// HMAC-SHA256(token, role "\n" agent_nonce "\n" controller_nonce) in hex.
std::string proof(const std::string& token, const std::string& role, const std::string& agent_nonce,
                  const std::string& controller_nonce);
// Constant-time comparison of two proofs.
bool same_proof(const std::string& a, const std::string& b);

// Why the agent refuses to run `argv` (the session's arguments, without the program), or "":
// the first must be "server" or "client", and no element may be one of `path_options` (the
// options of those subcommands that take a file, given as "--name", also as "--name=...").
std::string session_argv_problem(const std::vector<std::string>& argv,
                                 const std::set<std::string>& path_options);

// The frame of one message (header + compact JSON; invalid UTF-8 in strings replaced).
std::string encode_message(const nlohmann::json& msg);
// A raw frame: the same header, then `bytes` as they are (what follows an out or err message).
std::string encode_raw(const std::string& bytes);

// Cuts complete messages off the front of a byte stream. Throws PeerError on a bad frame.
class FrameReader {
 public:
  void feed(const std::string& bytes) { buf_ += bytes; }
  // The next complete message, or null when it is not all there yet.
  nlohmann::json next();
  // The next complete frame's payload as it is (a raw frame), or nullopt when not all there.
  std::optional<std::string> next_raw();
  size_t buffered() const { return buf_.size() - pos_; }

 private:
  void compact();
  std::string buf_;
  size_t pos_ = 0;
};

}  // namespace rdmabench::agent
