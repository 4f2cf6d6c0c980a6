#pragma once
// The out-of-band channel: a TCP connection carrying framed JSON messages.
// Frame: "RDMB" magic, u16 protocol version, u16 reserved (0), u32 payload length (big endian),
// then a JSON object with a "type" field. Lengths are bounded; anything else is refused with a
// PeerError that says what was wrong.
#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>

#include "base/event_fd.h"

namespace rdmabench {

inline constexpr uint16_t kProtocolVersion = 1;
inline constexpr uint32_t kMaxMessageBytes = 16U << 20;
inline constexpr size_t kFrameHeaderBytes = 12;

// Pure: encode a header / validate one. decode returns the payload length or throws PeerError.
void encode_frame_header(uint32_t length, std::span<uint8_t, kFrameHeaderBytes> out) noexcept;
uint32_t decode_frame_header(std::span<const uint8_t, kFrameHeaderBytes> in);
// Pure: parse a payload into a JSON object that has a string "type". Throws PeerError.
nlohmann::json decode_payload(std::span<const uint8_t> payload);

// The "error" message, either side's last word: written by to_message, read by recv() (which
// rethrows it as a PeerError with its text) under these member names.
struct ErrorMsg {
  static constexpr const char* kType = "error";
  static constexpr const char* kMessage = "message";
  static constexpr const char* kCode = "code";
  std::string message;
  std::string code;  // "busy", "refused" or "" (PeerReportedError)
  bool operator==(const ErrorMsg&) const = default;
};
nlohmann::json to_message(const ErrorMsg& m);
// Pure: the text of an "error" message; "(no text)" when it has none (or not a string).
ErrorMsg parse_error(const nlohmann::json& error);

class OobChannel {
 public:
  OobChannel() = default;
  explicit OobChannel(int fd, std::string peer) : fd_(fd), peer_(std::move(peer)) {}
  OobChannel(OobChannel&& o) noexcept;
  OobChannel& operator=(OobChannel&& o) noexcept;
  OobChannel(const OobChannel&) = delete;
  OobChannel& operator=(const OobChannel&) = delete;
  ~OobChannel();

  // Connects to host:port within `timeout`; errors name the address.
  static OobChannel connect(const std::string& host, uint16_t port,
                            std::chrono::milliseconds timeout);

  void send(const nlohmann::json& msg);
  // Waits up to `timeout` for a message; throws TimeoutError naming `what` we waited for,
  // PeerError when the peer closed or sent garbage. An "error" message from the peer is
  // rethrown as PeerError with its text.
  nlohmann::json recv(std::chrono::milliseconds timeout, const std::string& what);
  // recv() and check the type.
  nlohmann::json expect(const std::string& type, std::chrono::milliseconds timeout);
  // True when the peer has closed or data is waiting; waits up to `wait` for that (0: just
  // checks). Control threads wait here instead of sleeping, so they wake only when needed.
  bool readable(std::chrono::milliseconds wait = std::chrono::milliseconds(0)) const;
  // Waits up to `wait` for the channel to become readable (as readable()) or `wake` to be
  // notified, whichever comes first; says which (both may be set, neither on timeout).
  struct Ready {
    bool message = false;
    bool woken = false;
  };
  Ready wait(std::chrono::milliseconds wait, const EventFd& wake) const;

  const std::string& peer() const noexcept { return peer_; }
  int fd() const noexcept { return fd_; }
  void close() noexcept;

 private:
  void read_exact(uint8_t* buf, size_t n, std::chrono::steady_clock::time_point deadline,
                  const std::string& what);
  int fd_ = -1;
  std::string peer_;
};

class OobListener {
 public:
  // Binds addr:port (addr "" = all interfaces; port 0 = any), with room for `backlog`
  // connections not yet accepted. Throws SysError naming the address.
  OobListener(const std::string& addr, uint16_t port, int backlog = 16);
  OobListener(const OobListener&) = delete;
  OobListener& operator=(const OobListener&) = delete;
  ~OobListener();
  // Waits up to `timeout` (negative = forever) for a client. Returns an unconnected channel
  // (fd -1) on timeout.
  OobChannel accept(std::chrono::milliseconds timeout);
  uint16_t port() const noexcept { return port_; }
  const std::string& address() const noexcept { return addr_; }
  int fd() const noexcept { return fd_; }

 private:
  int fd_ = -1;
  uint16_t port_ = 0;
  std::string addr_;
};

}  // namespace rdmabench
