#pragma once
// A Linux eventfd: workers wake the control thread with it, and the control thread waits on it
// beside its socket (OobChannel::wait), so it sleeps until something happens instead of waking
// on a timer. Outside the datapath: a worker notifies once per message size (when its send
// phases are over, or when it fails).
#include <cstdint>

namespace rdmabench {

class EventFd {
 public:
  EventFd();  // throws SysError("eventfd")
  ~EventFd();
  EventFd(const EventFd&) = delete;
  EventFd& operator=(const EventFd&) = delete;

  int fd() const noexcept { return fd_; }
  // Makes the fd readable (adds 1 to its counter). Never blocks; cannot fail short of a
  // counter at its maximum, which is readable anyway.
  void notify() noexcept;
  // Clears the counter (non-blocking); returns what it was (0: nothing had notified).
  uint64_t drain() noexcept;

 private:
  int fd_ = -1;
};

}  // namespace rdmabench
