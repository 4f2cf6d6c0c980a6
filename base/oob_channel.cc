#include "base/oob_channel.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "base/error.h"

namespace rdmabench {
namespace {

constexpr uint8_t kMagic[4] = {'R', 'D', 'M', 'B'};

int remaining_ms(std::chrono::steady_clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  return left.count() < 0 ? 0 : static_cast<int>(std::min<int64_t>(left.count(), INT32_MAX));
}

std::string addr_str(const sockaddr* sa) {
  char host[NI_MAXHOST] = {};
  char serv[NI_MAXSERV] = {};
  socklen_t len = sa->sa_family == AF_INET6 ? sizeof(sockaddr_in6) : sizeof(sockaddr_in);
  getnameinfo(sa, len, host, sizeof host, serv, sizeof serv, NI_NUMERICHOST | NI_NUMERICSERV);
  return std::string(host) + ":" + serv;
}

void set_nodelay(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

}  // namespace

void encode_frame_header(uint32_t length, std::span<uint8_t, kFrameHeaderBytes> out) noexcept {
  std::memcpy(out.data(), kMagic, 4);
  out[4] = static_cast<uint8_t>(kProtocolVersion >> 8);
  out[5] = static_cast<uint8_t>(kProtocolVersion & 0xff);
  out[6] = 0;
  out[7] = 0;
  for (int i = 0; i < 4; ++i) out[8 + i] = static_cast<uint8_t>(length >> (24 - 8 * i));
}

uint32_t decode_frame_header(std::span<const uint8_t, kFrameHeaderBytes> in) {
  if (std::memcmp(in.data(), kMagic, 4) != 0)
    throw PeerError("not an rdmabench peer (bad magic; expected \"RDMB\")");
  uint16_t version = static_cast<uint16_t>((in[4] << 8) | in[5]);
  if (version != kProtocolVersion)
    throw PeerError("protocol version " + std::to_string(version) + " not supported (this is " +
                    std::to_string(kProtocolVersion) + "; use the same rdmabench on both hosts)");
  if (in[6] != 0 || in[7] != 0) throw PeerError("malformed frame header (reserved bytes set)");
  uint32_t len =
      (uint32_t(in[8]) << 24) | (uint32_t(in[9]) << 16) | (uint32_t(in[10]) << 8) | in[11];
  if (len == 0 || len > kMaxMessageBytes)
    throw PeerError("message length " + std::to_string(len) + " out of bounds (1.." +
                    std::to_string(kMaxMessageBytes) + ")");
  return len;
}

nlohmann::json decode_payload(std::span<const uint8_t> payload) {
  // Messages are shallow; refuse deep nesting (which costs stack in every later traversal).
  constexpr int kMaxDepth = 32;
  const nlohmann::json::parser_callback_t limit_depth = [](int depth, nlohmann::json::parse_event_t,
                                                           nlohmann::json&) {
    if (depth > kMaxDepth)
      throw PeerError("malformed message (nested deeper than " + std::to_string(kMaxDepth) + ")");
    return true;
  };
  nlohmann::json j = nlohmann::json::parse(payload.begin(), payload.end(), limit_depth, false);
  if (j.is_discarded()) throw PeerError("malformed message (not JSON)");
  if (!j.is_object() || !j.contains("type") || !j["type"].is_string())
    throw PeerError("malformed message (no \"type\")");
  return j;
}

OobChannel::OobChannel(OobChannel&& o) noexcept : fd_(o.fd_), peer_(std::move(o.peer_)) {
  o.fd_ = -1;
}

OobChannel& OobChannel::operator=(OobChannel&& o) noexcept {
  if (this != &o) {
    close();
    fd_ = o.fd_;
    peer_ = std::move(o.peer_);
    o.fd_ = -1;
  }
  return *this;
}

OobChannel::~OobChannel() { close(); }

void OobChannel::close() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

OobChannel OobChannel::connect(const std::string& host, uint16_t port,
                               std::chrono::milliseconds timeout) {
  const std::string where = host + ":" + std::to_string(port);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (int rc = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res); rc != 0)
    throw Error("cannot resolve server address '" + host + "': " + gai_strerror(rc));
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> guard(res, freeaddrinfo);
  auto deadline = std::chrono::steady_clock::now() + timeout;
  int last_err = ETIMEDOUT;
  for (;;) {
    for (addrinfo* ai = res; ai != nullptr; ai = ai->ai_next) {
      int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
      if (fd < 0) continue;
      int rc = ::connect(fd, ai->ai_addr, ai->ai_addrlen);
      if (rc != 0 && errno == EINPROGRESS) {
        pollfd p{fd, POLLOUT, 0};
        rc = ::poll(&p, 1, std::max(1, std::min(remaining_ms(deadline), 1000)));
        if (rc == 1) {
          int err = 0;
          socklen_t len = sizeof err;
          getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
          rc = err == 0 ? 0 : -1;
          if (err != 0) errno = err;
        } else {
          rc = -1;
          errno = ETIMEDOUT;
        }
      }
      if (rc == 0) {
        int flags = fcntl(fd, F_GETFL);
        fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
        set_nodelay(fd);
        return OobChannel(fd, where);
      }
      last_err = errno;
      ::close(fd);
    }
    // A server that is still starting refuses; retry until the deadline.
    if (remaining_ms(deadline) <= 0 || (last_err != ECONNREFUSED && last_err != ETIMEDOUT)) break;
    ::usleep(50 * 1000);
  }
  throw Error("cannot connect to rdmabench server at " + where + ": " + std::strerror(last_err) +
              " (is 'rdmabench server' running there?)");
}

void OobChannel::send(const nlohmann::json& msg) {
  std::string body = msg.dump();
  if (body.size() > kMaxMessageBytes)
    throw Error("message too large for the out-of-band channel (" + std::to_string(body.size()) +
                " bytes)");
  std::vector<uint8_t> buf(kFrameHeaderBytes + body.size());
  encode_frame_header(static_cast<uint32_t>(body.size()),
                      std::span<uint8_t, kFrameHeaderBytes>(buf.data(), kFrameHeaderBytes));
  std::memcpy(buf.data() + kFrameHeaderBytes, body.data(), body.size());
  size_t off = 0;
  while (off < buf.size()) {
    ssize_t n = ::send(fd_, buf.data() + off, buf.size() - off, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw PeerError("lost the connection to " + peer_ + " while sending '" +
                      msg.value("type", std::string("?")) + "': " + std::strerror(errno));
    off += static_cast<size_t>(n);
  }
}

void OobChannel::read_exact(uint8_t* buf, size_t n, std::chrono::steady_clock::time_point deadline,
                            const std::string& what) {
  size_t off = 0;
  while (off < n) {
    pollfd p{fd_, POLLIN, 0};
    int rc = ::poll(&p, 1, remaining_ms(deadline));
    if (rc < 0 && errno == EINTR) continue;
    if (rc == 0) throw TimeoutError("timed out waiting for " + what + " from " + peer_);
    ssize_t got = ::recv(fd_, buf + off, n - off, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got == 0)
      throw PeerError("the peer " + peer_ + " closed the connection while we waited for " + what);
    if (got < 0)
      throw PeerError("lost the connection to " + peer_ + " while waiting for " + what + ": " +
                      std::strerror(errno));
    off += static_cast<size_t>(got);
  }
}

nlohmann::json to_message(const ErrorMsg& m) {
  nlohmann::json j = {{"type", ErrorMsg::kType}, {ErrorMsg::kMessage, m.message}};
  if (!m.code.empty()) j[ErrorMsg::kCode] = m.code;
  return j;
}

ErrorMsg parse_error(const nlohmann::json& error) {
  const auto text = [&](const char* key, const char* absent) {
    const auto it = error.find(key);
    return it != error.end() && it->is_string() ? it->get<std::string>() : std::string(absent);
  };
  return {text(ErrorMsg::kMessage, "(no text)"), text(ErrorMsg::kCode, "")};
}

nlohmann::json OobChannel::recv(std::chrono::milliseconds timeout, const std::string& what) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  if (timeout.count() < 0) deadline = std::chrono::steady_clock::time_point::max();
  std::array<uint8_t, kFrameHeaderBytes> hdr{};
  read_exact(hdr.data(), hdr.size(), deadline, what);
  uint32_t len = decode_frame_header(hdr);
  std::vector<uint8_t> body(len);
  read_exact(body.data(), body.size(), deadline, what);
  nlohmann::json j = decode_payload(body);
  if (j["type"] == ErrorMsg::kType) {
    ErrorMsg e = parse_error(j);
    throw PeerReportedError("the peer " + peer_ + " reported: " + e.message, e.code);
  }
  return j;
}

nlohmann::json OobChannel::expect(const std::string& type, std::chrono::milliseconds timeout) {
  nlohmann::json j = recv(timeout, "'" + type + "'");
  if (j["type"] != type)
    throw PeerError("protocol error: expected '" + type + "' from " + peer_ + ", got '" +
                    j["type"].get<std::string>() + "'");
  return j;
}

bool OobChannel::readable(std::chrono::milliseconds wait) const {
  pollfd p{fd_, POLLIN, 0};
  return ::poll(&p, 1, static_cast<int>(wait.count())) > 0;
}

OobChannel::Ready OobChannel::wait(std::chrono::milliseconds wait, const EventFd& wake) const {
  pollfd p[2] = {{fd_, POLLIN, 0}, {wake.fd(), POLLIN, 0}};
  const int ms = static_cast<int>(std::clamp<int64_t>(wait.count(), 0, INT32_MAX));
  if (::poll(p, 2, ms) <= 0) return {};  // timeout, or EINTR: the caller re-checks and waits again
  return {p[0].revents != 0, p[1].revents != 0};
}

OobListener::OobListener(const std::string& addr, uint16_t port, int backlog) {
  sockaddr_storage ss{};
  socklen_t len = 0;
  auto* s4 = reinterpret_cast<sockaddr_in*>(&ss);
  auto* s6 = reinterpret_cast<sockaddr_in6*>(&ss);
  if (addr.empty() || addr == "0.0.0.0") {
    s4->sin_family = AF_INET;
    s4->sin_addr.s_addr = htonl(INADDR_ANY);
    s4->sin_port = htons(port);
    len = sizeof *s4;
  } else if (inet_pton(AF_INET, addr.c_str(), &s4->sin_addr) == 1) {
    s4->sin_family = AF_INET;
    s4->sin_port = htons(port);
    len = sizeof *s4;
  } else if (inet_pton(AF_INET6, addr.c_str(), &s6->sin6_addr) == 1) {
    s6->sin6_family = AF_INET6;
    s6->sin6_port = htons(port);
    len = sizeof *s6;
  } else {
    throw ConfigError("bind", addr, "a numeric IPv4 or IPv6 address of this host");
  }
  fd_ = ::socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) throw_sys("socket", "listener");
  int one = 1;
  setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  const std::string where = (addr.empty() ? "0.0.0.0" : addr) + ":" + std::to_string(port);
  if (::bind(fd_, reinterpret_cast<sockaddr*>(&ss), len) != 0) {
    int err = errno;
    ::close(fd_);
    fd_ = -1;
    throw_sys("bind", where, err);
  }
  if (::listen(fd_, backlog) != 0) {
    int err = errno;
    ::close(fd_);
    fd_ = -1;
    throw_sys("listen", where, err);
  }
  sockaddr_storage bound{};
  socklen_t blen = sizeof bound;
  getsockname(fd_, reinterpret_cast<sockaddr*>(&bound), &blen);
  port_ = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                            : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  std::string full = addr_str(reinterpret_cast<sockaddr*>(&bound));
  addr_ = full.substr(0, full.rfind(':'));
}

OobListener::~OobListener() {
  if (fd_ >= 0) ::close(fd_);
}

OobChannel OobListener::accept(std::chrono::milliseconds timeout) {
  pollfd p{fd_, POLLIN, 0};
  int rc = ::poll(&p, 1, timeout.count() < 0 ? -1 : static_cast<int>(timeout.count()));
  if (rc <= 0) return OobChannel();
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  int fd = ::accept4(fd_, reinterpret_cast<sockaddr*>(&ss), &len, SOCK_CLOEXEC);
  if (fd < 0) return OobChannel();
  set_nodelay(fd);
  return OobChannel(fd, addr_str(reinterpret_cast<sockaddr*>(&ss)));
}

}  // namespace rdmabench
