#include "engine/loopback_server.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>

#include "base/error.h"
#include "engine/session_messages.h"

namespace rdmabench {

// What the server thread tells the starter: its ready line, or why it could not start.
struct LoopbackServer::Shared {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;  // ready or failed
  std::string ready;  // the ready line's JSON
  std::string error;
  bool config_error = false;
  std::string field, value, allowed;
};

namespace {

// A stream that hands each complete line to `on_line` (the server's ready line on `out`).
class LineBuf : public std::stringbuf {
 public:
  explicit LineBuf(std::function<void(const std::string&)> on_line)
      : on_line_(std::move(on_line)) {}

 protected:
  int sync() override {
    std::string text = str();
    size_t nl;
    while ((nl = text.find('\n')) != std::string::npos) {
      on_line_(text.substr(0, nl));
      text.erase(0, nl + 1);
    }
    str(text);
    return 0;
  }

 private:
  std::function<void(const std::string&)> on_line_;
};

}  // namespace

LoopbackServer::LoopbackServer(ServerOptions opt, double timeout_s)
    : shared_(std::make_shared<Shared>()) {
  opt.port = 0;
  auto shared = shared_;
  thread_ = std::thread([opt, shared, this] {
    const auto finish = [&](auto&& fill) {
      std::lock_guard<std::mutex> lock(shared->mu);
      if (shared->done) return;
      fill();
      shared->done = true;
      shared->cv.notify_all();
    };
    LineBuf buf([&](const std::string& line) {
      const std::string tag = ServerReadyLine::kTag;
      if (line.rfind(tag, 0) == 0) finish([&] { shared->ready = line.substr(tag.size()); });
    });
    std::ostream out(&buf);
    std::ostringstream log;
    try {
      const int status = serve(opt, out, log, stop_);
      finish([&] {
        shared->error =
            "the loopback server ended (status " + std::to_string(status) + "): " + log.str();
      });
    } catch (const ConfigError& e) {
      finish([&] {
        shared->config_error = true;
        shared->field = e.field();
        shared->value = e.value();
        shared->allowed = e.allowed();
      });
    } catch (const std::exception& e) {
      finish([&] { shared->error = e.what(); });
    }
  });
  std::unique_lock<std::mutex> lock(shared_->mu);
  const bool done = shared_->cv.wait_for(lock, std::chrono::duration<double>(timeout_s),
                                         [&] { return shared_->done; });
  std::string failure;
  if (!done)
    failure = "the loopback server did not listen within " + std::to_string(timeout_s) + " s";
  else if (shared_->config_error) {
    const ConfigError e(shared_->field, shared_->value, shared_->allowed);
    lock.unlock();
    stop_ = true;
    thread_.join();
    throw e;
  } else if (shared_->ready.empty()) {
    failure = shared_->error;
  }
  if (failure.empty()) {
    const nlohmann::json ready = nlohmann::json::parse(shared_->ready);
    address_ = ready.at(ServerReadyLine::kAddress).get<std::string>();
    port_ = ready.at(ServerReadyLine::kPort).get<uint16_t>();
    return;
  }
  lock.unlock();
  stop_ = true;
  thread_.join();
  throw Error(failure);
}

LoopbackServer::~LoopbackServer() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

}  // namespace rdmabench
