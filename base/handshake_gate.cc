#include "base/handshake_gate.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <span>
#include <utility>

#include "base/error.h"

namespace rdmabench {

namespace {

void set_blocking(int fd, bool blocking) {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, blocking ? flags & ~O_NONBLOCK : flags | O_NONBLOCK);
}

std::string source_of(const std::string& peer) {
  const size_t colon = peer.rfind(':');
  return colon == std::string::npos ? peer : peer.substr(0, colon);
}

}  // namespace

HandshakeGate::HandshakeGate(OobListener& listener, HandshakeLimits limits, Note note)
    : listener_(listener), limits_(limits), note_(std::move(note)) {}

HandshakeGate::~HandshakeGate() = default;

void HandshakeGate::accept_all() {
  for (;;) {
    OobChannel c = listener_.accept(std::chrono::milliseconds(0));
    if (c.fd() < 0) return;
    ++stats_.accepted;
    const std::string source = source_of(c.peer());
    size_t& from_source = per_source_[source];
    if (pending_.size() >= limits_.max_pending || from_source >= limits_.max_per_source) {
      ++stats_.refused_cap;
      note_("refused " + c.peer() + ": too many pending handshakes (" +
            std::to_string(from_source) + " from this address, " + std::to_string(pending_.size()) +
            " in all; limits " + std::to_string(limits_.max_per_source) + " and " +
            std::to_string(limits_.max_pending) + ")");
      if (from_source == 0) per_source_.erase(source);
      continue;  // closed by c's destructor
    }
    ++from_source;
    set_blocking(c.fd(), false);
    Pending p;
    p.source = source;
    p.deadline = std::chrono::steady_clock::now() + limits_.deadline;
    p.chan = std::move(c);
    pending_.push_back(std::move(p));
  }
}

std::optional<nlohmann::json> HandshakeGate::read_some(Pending& p) {
  for (;;) {
    const size_t have = p.buf.size();
    p.buf.resize(p.want);
    const ssize_t n = ::read(p.chan.fd(), p.buf.data() + have, p.want - have);
    if (n < 0) {
      p.buf.resize(have);
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return std::nullopt;
      throw PeerError(std::string("read failed: ") + std::strerror(errno));
    }
    p.buf.resize(have + static_cast<size_t>(n));
    if (n == 0) throw PeerError("closed the connection before its first message was complete");
    if (p.buf.size() < p.want) continue;
    if (p.want == kFrameHeaderBytes) {
      const uint32_t len = decode_frame_header(
          std::span<const uint8_t, kFrameHeaderBytes>(p.buf.data(), kFrameHeaderBytes));
      if (len > limits_.max_first_frame)
        throw PeerError("first message of " + std::to_string(len) + " bytes (at most " +
                        std::to_string(limits_.max_first_frame) + " before authentication)");
      p.want = kFrameHeaderBytes + len;
      if (len > 0) continue;
    }
    return decode_payload(std::span<const uint8_t>(p.buf.data() + kFrameHeaderBytes,
                                                   p.buf.size() - kFrameHeaderBytes));
  }
}

void HandshakeGate::drop(size_t i, const std::string& why) {
  Pending& p = pending_[i];
  note_("dropped " + p.chan.peer() + ": " + why);
  if (--per_source_[p.source] == 0) per_source_.erase(p.source);
  pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(i));
}

std::optional<Arrival> HandshakeGate::next(std::chrono::milliseconds wait) {
  const auto until = std::chrono::steady_clock::now() + wait;
  for (;;) {
    std::vector<pollfd> fds;
    fds.reserve(pending_.size() + 1);
    fds.push_back({listener_.fd(), POLLIN, 0});
    for (const Pending& p : pending_) fds.push_back({p.chan.fd(), POLLIN, 0});
    auto now = std::chrono::steady_clock::now();
    auto horizon = until;
    for (const Pending& p : pending_) horizon = std::min(horizon, p.deadline);
    const int ms = static_cast<int>(std::max<int64_t>(
        0, std::chrono::duration_cast<std::chrono::milliseconds>(horizon - now).count() + 1));
    const int rc = ::poll(fds.data(), fds.size(), ms);
    if (rc < 0 && errno != EINTR) throw_sys("poll", "the server's listening socket", errno);
    // Readable connections first (indexes shift on drop: walk backwards).
    for (size_t i = pending_.size(); i-- > 0;) {
      if (rc <= 0 || (fds[i + 1].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      Pending& p = pending_[i];
      try {
        std::optional<nlohmann::json> msg = read_some(p);
        if (!msg) continue;
        ++stats_.arrived;
        Arrival a{std::move(p.chan), std::move(*msg)};
        set_blocking(a.chan.fd(), true);
        if (--per_source_[p.source] == 0) per_source_.erase(p.source);
        pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(i));
        return a;
      } catch (const PeerError& e) {
        ++stats_.bad;
        drop(i, e.what());
      }
    }
    now = std::chrono::steady_clock::now();
    for (size_t i = pending_.size(); i-- > 0;)
      if (now >= pending_[i].deadline) {
        ++stats_.timed_out;
        drop(i, "no complete first message within " + std::to_string(limits_.deadline.count()) +
                    " ms");
      }
    if (rc > 0 && (fds[0].revents & POLLIN) != 0) accept_all();
    if (now >= until) return std::nullopt;
  }
}

}  // namespace rdmabench
