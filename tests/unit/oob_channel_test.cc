// The out-of-band channel (base/oob_channel.h): the frame format, payload checks and the
// behaviour of a real connection over loopback TCP.
#include "base/oob_channel.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <span>
#include <string>
#include <thread>
#include <typeinfo>
#include <vector>

#include "base/error.h"
#include "base/event_fd.h"

namespace rdmabench {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using Header = std::array<uint8_t, kFrameHeaderBytes>;

// Only a guard against hanging forever when something that should happen at once on loopback
// does not; never a performance threshold.
constexpr std::chrono::milliseconds kPatience = 20s;

Header encode(uint32_t length) {
  Header h{};
  encode_frame_header(length, h);
  return h;
}

template <typename E>
std::string error_text(const std::function<void()>& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected " << typeid(E).name() << ", got another exception: " << e.what();
    return "";
  }
  ADD_FAILURE() << "expected " << typeid(E).name() << ", nothing was thrown";
  return "";
}

std::string peer_error_text(const std::function<void()>& f) { return error_text<PeerError>(f); }

std::vector<uint8_t> bytes(const std::string& s) { return {s.begin(), s.end()}; }

// ---- frame header -------------------------------------------------------------------------

TEST(FrameHeaderTest, RoundTrip) {
  for (uint32_t len :
       {1u, 2u, 255u, 256u, 65535u, 65536u, 0x00fedcbau, kMaxMessageBytes - 1, kMaxMessageBytes}) {
    Header h = encode(len);
    EXPECT_EQ(decode_frame_header(h), len);
  }
}

TEST(FrameHeaderTest, LayoutMatchesTheDocumentedFormat) {
  // "RDMB" magic, u16 protocol version, u16 reserved (0), u32 payload length, big endian.
  Header h = encode(0x00A1B2C3);
  EXPECT_EQ(std::string(h.begin(), h.begin() + 4), "RDMB");
  EXPECT_EQ((h[4] << 8) | h[5], kProtocolVersion);
  EXPECT_EQ(h[6], 0);
  EXPECT_EQ(h[7], 0);
  EXPECT_EQ(h[8], 0x00);
  EXPECT_EQ(h[9], 0xA1);
  EXPECT_EQ(h[10], 0xB2);
  EXPECT_EQ(h[11], 0xC3);
}

TEST(FrameHeaderTest, BadMagicIsRefused) {
  for (size_t i = 0; i < 4; ++i) {
    Header h = encode(10);
    h[i] ^= 0x20;
    std::string msg = peer_error_text([&] { decode_frame_header(h); });
    EXPECT_NE(msg.find("magic"), std::string::npos) << msg;
  }
  Header http{};
  std::memcpy(http.data(), "GET / HTTP/1", kFrameHeaderBytes);
  std::string msg = peer_error_text([&] { decode_frame_header(http); });
  EXPECT_NE(msg.find("not an rdmabench peer"), std::string::npos) << msg;
}

TEST(FrameHeaderTest, WrongVersionIsRefused) {
  for (uint16_t v :
       {uint16_t(0), uint16_t(kProtocolVersion + 1), uint16_t(0x0100), uint16_t(0xffff)}) {
    Header h = encode(10);
    h[4] = static_cast<uint8_t>(v >> 8);
    h[5] = static_cast<uint8_t>(v & 0xff);
    std::string msg = peer_error_text([&] { decode_frame_header(h); });
    EXPECT_NE(msg.find("version " + std::to_string(v)), std::string::npos) << msg;
  }
}

TEST(FrameHeaderTest, NonzeroReservedBytesAreRefused) {
  for (size_t i : {6u, 7u}) {
    Header h = encode(10);
    h[i] = 1;
    std::string msg = peer_error_text([&] { decode_frame_header(h); });
    EXPECT_NE(msg.find("reserved"), std::string::npos) << msg;
  }
}

TEST(FrameHeaderTest, LengthOutOfBoundsIsRefused) {
  for (uint32_t len : {0u, kMaxMessageBytes + 1, 0xffffffffu}) {
    Header h = encode(len);
    std::string msg = peer_error_text([&] { decode_frame_header(h); });
    EXPECT_NE(msg.find(std::to_string(len)), std::string::npos) << msg;
    EXPECT_NE(msg.find(std::to_string(kMaxMessageBytes)), std::string::npos) << msg;
  }
}

// ---- payload ------------------------------------------------------------------------------

TEST(PayloadTest, ObjectWithStringTypeIsAccepted) {
  json j = decode_payload(bytes(R"({"type": "hello", "n": 3, "list": [1, 2]})"));
  EXPECT_EQ(j["type"], "hello");
  EXPECT_EQ(j["n"], 3);
  EXPECT_EQ(j["list"].size(), 2u);
}

TEST(PayloadTest, MalformedPayloadsAreRefused) {
  for (const char* bad :
       {"not json", "{\"type\": \"x\"", "{\"type\": \"x\"} trailing", "\xff\xfe", "",
        "[{\"type\": \"x\"}]", "\"type\"", "42", "null", "{}", "{\"type\": 5}", "{\"type\": null}",
        "{\"type\": [\"x\"]}", "{\"kind\": \"x\"}"}) {
    std::string msg = peer_error_text([&] { decode_payload(bytes(bad)); });
    EXPECT_NE(msg.find("malformed"), std::string::npos) << bad << " -> " << msg;
  }
  EXPECT_NE(peer_error_text([] { decode_payload(bytes("not json")); }).find("not JSON"),
            std::string::npos);
  EXPECT_NE(peer_error_text([] { decode_payload(bytes("[1, 2]")); }).find("type"),
            std::string::npos);
}

// ---- loopback ------------------------------------------------------------------------------

// A connected pair over 127.0.0.1.
struct Pair {
  OobListener listener{"127.0.0.1", 0};
  OobChannel client;
  OobChannel server;
  Pair() {
    client = OobChannel::connect("127.0.0.1", listener.port(), kPatience);
    server = listener.accept(kPatience);
  }
};

// A raw TCP client connected to `port` on 127.0.0.1.
int raw_connect(uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(port);
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

bool write_all(int fd, const void* data, size_t n) {
  const auto* p = static_cast<const uint8_t*>(data);
  while (n > 0) {
    ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

// A server channel accepted from a raw client that sends `wire` and then keeps the connection
// open (so errors come from the content, not from a close).
class RawClient {
 public:
  explicit RawClient(const std::vector<uint8_t>& wire) {
    fd_ = raw_connect(listener_.port());
    EXPECT_GE(fd_, 0);
    server_ = listener_.accept(kPatience);
    EXPECT_GE(server_.fd(), 0);
    EXPECT_TRUE(write_all(fd_, wire.data(), wire.size()));
  }
  ~RawClient() {
    if (fd_ >= 0) ::close(fd_);
  }
  OobChannel& server() { return server_; }
  void close() {
    ::close(fd_);
    fd_ = -1;
  }

 private:
  OobListener listener_{"127.0.0.1", 0};
  int fd_ = -1;
  OobChannel server_;
};

std::vector<uint8_t> frame(const std::string& body) {
  std::vector<uint8_t> out(kFrameHeaderBytes + body.size());
  encode_frame_header(static_cast<uint32_t>(body.size()),
                      std::span<uint8_t, kFrameHeaderBytes>(out.data(), kFrameHeaderBytes));
  std::copy(body.begin(), body.end(), out.begin() + kFrameHeaderBytes);
  return out;
}

TEST(OobChannelTest, ListenerBindsAnEphemeralPort) {
  OobListener l("127.0.0.1", 0);
  EXPECT_NE(l.port(), 0);
  EXPECT_EQ(l.address(), "127.0.0.1");
}

TEST(OobChannelTest, ListenerRefusesANonNumericAddress) {
  try {
    OobListener l("not-an-address", 0);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), "bind");
    EXPECT_EQ(e.value(), "not-an-address");
  }
}

TEST(OobChannelTest, SendAndReceiveBothWays) {
  Pair p;
  ASSERT_GE(p.client.fd(), 0);
  ASSERT_GE(p.server.fd(), 0);
  EXPECT_EQ(p.client.peer(), "127.0.0.1:" + std::to_string(p.listener.port()));

  const json hello = {{"type", "hello"},
                      {"version", 1},
                      {"token", "s3cret"},
                      {"workload", {{"op", "write"}, {"sizes", {64, 4096}}}}};
  p.client.send(hello);
  json got = p.server.recv(kPatience, "hello");
  EXPECT_EQ(got, hello);

  const json welcome = {{"type", "welcome"}, {"text", "ünïcødé ✓"}, {"pi", 3.25}};
  p.server.send(welcome);
  EXPECT_EQ(p.client.expect("welcome", kPatience), welcome);

  // Several messages in a row arrive in order and are not merged.
  for (int i = 0; i < 20; ++i) p.client.send({{"type", "n"}, {"i", i}});
  for (int i = 0; i < 20; ++i) EXPECT_EQ(p.server.expect("n", kPatience)["i"], i);
}

TEST(OobChannelTest, LargeMessageArrivesIntact) {
  Pair p;
  std::string blob(4 << 20, 'x');
  for (size_t i = 0; i < blob.size(); ++i) blob[i] = static_cast<char>('a' + i % 26);
  const json big = {{"type", "blob"}, {"data", blob}};
  std::thread sender([&] { p.client.send(big); });  // larger than the socket buffers
  json got = p.server.expect("blob", kPatience);
  sender.join();
  EXPECT_EQ(got["data"].get<std::string>(), blob);
}

TEST(OobChannelTest, OversizedMessageIsRefusedBeforeSending) {
  Pair p;
  const json huge = {{"type", "blob"}, {"data", std::string(kMaxMessageBytes, 'x')}};
  try {
    p.client.send(huge);
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("too large"), std::string::npos) << e.what();
  }
  // Nothing went out: the connection is still usable.
  p.client.send({{"type", "after"}});
  EXPECT_EQ(p.server.expect("after", kPatience)["type"], "after");
}

TEST(OobChannelTest, ExpectWithWrongTypeThrowsPeerError) {
  Pair p;
  p.client.send({{"type", "result"}});
  std::string msg = peer_error_text([&] { p.server.expect("ready", kPatience); });
  EXPECT_NE(msg.find("'ready'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'result'"), std::string::npos) << msg;
}

TEST(OobChannelTest, RecvFromAClosedPeerSaysThePeerClosed) {
  Pair p;
  p.client.close();
  std::string msg = peer_error_text([&] { p.server.recv(kPatience, "the result"); });
  EXPECT_NE(msg.find("closed"), std::string::npos) << msg;
  EXPECT_NE(msg.find("the result"), std::string::npos) << msg;
}

TEST(OobChannelTest, PeerClosingMidMessageIsAPeerError) {
  std::vector<uint8_t> wire = frame(R"({"type": "hello", "padding": "................"})");
  wire.resize(kFrameHeaderBytes + 5);  // header and a few payload bytes, then close
  RawClient raw(wire);
  raw.close();
  std::string msg = peer_error_text([&] { raw.server().recv(kPatience, "hello"); });
  EXPECT_NE(msg.find("closed"), std::string::npos) << msg;
}

TEST(OobChannelTest, RecvTimeoutThrowsTimeoutError) {
  Pair p;
  std::string msg =
      error_text<TimeoutError>([&] { p.server.recv(100ms, "the client's endpoints"); });
  EXPECT_NE(msg.find("timed out"), std::string::npos) << msg;
  EXPECT_NE(msg.find("the client's endpoints"), std::string::npos) << msg;
  // The connection still works after a timeout with nothing half-read.
  p.client.send({{"type", "late"}});
  EXPECT_EQ(p.server.expect("late", kPatience)["type"], "late");
}

TEST(OobChannelTest, ErrorMessageFromThePeerIsRethrown) {
  Pair p;
  p.client.send({{"type", "error"}, {"message", "ibv_reg_mr failed: Cannot allocate memory"}});
  std::string msg = peer_error_text([&] { p.server.recv(kPatience, "endpoints"); });
  EXPECT_NE(msg.find("ibv_reg_mr failed: Cannot allocate memory"), std::string::npos) << msg;

  // Also when we expected a specific type.
  p.server.send({{"type", "error"}, {"message", "unsupported op"}});
  msg = peer_error_text([&] { p.client.expect("welcome", kPatience); });
  EXPECT_NE(msg.find("unsupported op"), std::string::npos) << msg;

  // Without a text it is still a PeerError.
  p.client.send({{"type", "error"}});
  EXPECT_FALSE(peer_error_text([&] { p.server.recv(kPatience, "x"); }).empty());
}

// An "error" message whose "message" is not a string is still garbage from the peer.
// BUG (base/oob_channel.cc, OobChannel::recv): it uses j.value("message", std::string(...)),
// which throws nlohmann::json::type_error ("type must be string, but is number") for
// {"type": "error", "message": 5}; recv() therefore lets a json exception escape instead of the
// PeerError its contract promises for garbage from the peer.
TEST(OobChannelTest, ErrorMessageWithNonStringTextIsAPeerError) {
  Pair p;
  p.client.send({{"type", "error"}, {"message", 5}});
  EXPECT_FALSE(peer_error_text([&] { p.server.recv(kPatience, "x"); }).empty());
}

TEST(OobChannelTest, GarbageFromARawClientIsAPeerError) {
  std::string http = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
  RawClient raw(bytes(http));
  std::string msg = peer_error_text([&] { raw.server().recv(kPatience, "hello"); });
  EXPECT_NE(msg.find("magic"), std::string::npos) << msg;
}

TEST(OobChannelTest, ValidHeaderWithBadPayloadIsAPeerError) {
  {
    RawClient raw(frame("this is not json at all"));
    std::string msg = peer_error_text([&] { raw.server().recv(kPatience, "hello"); });
    EXPECT_NE(msg.find("not JSON"), std::string::npos) << msg;
  }
  {
    RawClient raw(frame(R"(["type", "hello"])"));
    std::string msg = peer_error_text([&] { raw.server().recv(kPatience, "hello"); });
    EXPECT_NE(msg.find("type"), std::string::npos) << msg;
  }
}

TEST(OobChannelTest, OversizedLengthFromARawClientIsAPeerError) {
  Header h = encode(10);
  const uint32_t len = kMaxMessageBytes + 1;
  for (int i = 0; i < 4; ++i) h[8 + i] = static_cast<uint8_t>(len >> (24 - 8 * i));
  RawClient raw(std::vector<uint8_t>(h.begin(), h.end()));
  std::string msg = peer_error_text([&] { raw.server().recv(kPatience, "hello"); });
  EXPECT_NE(msg.find(std::to_string(len)), std::string::npos) << msg;
}

TEST(OobChannelTest, ConnectWithoutListenerNamesTheAddress) {
  uint16_t port = 0;
  {
    OobListener l("127.0.0.1", 0);
    port = l.port();
  }  // closed: nothing listens there now
  const std::string where = "127.0.0.1:" + std::to_string(port);
  try {
    OobChannel c = OobChannel::connect("127.0.0.1", port, 200ms);
    FAIL() << "connected to " << where << " with no listener";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(where), std::string::npos) << e.what();
  }
}

TEST(OobChannelTest, AcceptTimeoutReturnsAnUnconnectedChannel) {
  OobListener l("127.0.0.1", 0);
  OobChannel c = l.accept(50ms);
  EXPECT_EQ(c.fd(), -1);
}

TEST(OobChannelTest, MoveTransfersTheConnection) {
  Pair p;
  OobChannel moved = std::move(p.server);
  EXPECT_EQ(p.server.fd(), -1);
  ASSERT_GE(moved.fd(), 0);
  p.client.send({{"type", "ping"}});
  EXPECT_EQ(moved.expect("ping", kPatience)["type"], "ping");
  EXPECT_FALSE(p.client.readable());  // nothing has been sent to the client
}

// ---- waiting on the channel and a wake-up (the control threads) ---------------------------

bool fd_readable(int fd) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, 0) > 0;
}

TEST(EventFdTest, NotifyMakesItReadableAndDrainClearsIt) {
  EventFd e;
  ASSERT_GE(e.fd(), 0);
  EXPECT_FALSE(fd_readable(e.fd()));
  EXPECT_EQ(e.drain(), 0u);
  e.notify();
  e.notify();
  EXPECT_TRUE(fd_readable(e.fd()));
  EXPECT_EQ(e.drain(), 2u);  // both notifications, in one read
  EXPECT_FALSE(fd_readable(e.fd()));
}

TEST(OobChannelTest, WaitWakesOnANotificationFromAnotherThread) {
  Pair p;
  EventFd wake;
  std::thread worker([&] { wake.notify(); });
  const OobChannel::Ready r = p.server.wait(kPatience, wake);
  worker.join();
  EXPECT_TRUE(r.woken);
  EXPECT_FALSE(r.message);
  EXPECT_EQ(wake.drain(), 1u);
}

TEST(OobChannelTest, WaitWakesOnAMessageAndSaysWhich) {
  Pair p;
  EventFd wake;
  p.client.send({{"type", "heartbeat"}});
  const OobChannel::Ready r = p.server.wait(kPatience, wake);
  EXPECT_TRUE(r.message);
  EXPECT_FALSE(r.woken);
  EXPECT_EQ(p.server.expect("heartbeat", kPatience)["type"], "heartbeat");
}

TEST(OobChannelTest, WaitReportsAClosedPeerAsAMessage) {
  Pair p;
  EventFd wake;
  p.client.close();
  const OobChannel::Ready r = p.server.wait(kPatience, wake);
  EXPECT_TRUE(r.message);  // recv() then says the peer closed
  EXPECT_NE(peer_error_text([&] { p.server.recv(kPatience, "anything"); }), "");
}

TEST(OobChannelTest, WaitTimesOutWithNeither) {
  Pair p;
  EventFd wake;
  const OobChannel::Ready r = p.server.wait(1ms, wake);
  EXPECT_FALSE(r.message);
  EXPECT_FALSE(r.woken);
  const OobChannel::Ready zero = p.server.wait(0ms, wake);
  EXPECT_FALSE(zero.message || zero.woken);
}

}  // namespace
}  // namespace rdmabench
