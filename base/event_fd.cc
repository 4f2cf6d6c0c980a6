#include "base/event_fd.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include "base/error.h"

namespace rdmabench {

EventFd::EventFd() : fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
  if (fd_ < 0) throw_sys("eventfd", "the control thread's wake-up");
}

EventFd::~EventFd() {
  if (fd_ >= 0) ::close(fd_);
}

void EventFd::notify() noexcept {
  const uint64_t one = 1;
  // EAGAIN: the counter is full, so the fd is readable already.
  [[maybe_unused]] ssize_t n = ::write(fd_, &one, sizeof one);
}

uint64_t EventFd::drain() noexcept {
  uint64_t v = 0;
  return ::read(fd_, &v, sizeof v) == static_cast<ssize_t>(sizeof v) ? v : 0;
}

}  // namespace rdmabench
