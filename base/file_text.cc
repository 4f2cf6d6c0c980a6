#include "base/file_text.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

#include "base/error.h"

namespace rdmabench {

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string file_text(const std::string& path) { return read_file(path).value_or(""); }

int write_all(int fd, std::string_view text) noexcept {
  size_t off = 0;
  while (off < text.size()) {
    const ssize_t n = ::write(fd, text.data() + off, text.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : EIO;
    off += static_cast<size_t>(n);
  }
  return 0;
}

void write_file_atomic(const std::string& path, const std::string& text) {
  std::string tmpl = path + ".tmp.XXXXXX";
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  int fd = mkstemp(name.data());
  if (fd < 0) throw_sys("mkstemp", "a temporary file beside " + path);
  if (const int err = write_all(fd, text); err != 0) {
    ::close(fd);
    ::unlink(name.data());
    throw_sys("write", name.data(), err);
  }
  fchmod(fd, 0644);
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    int err = errno;
    ::unlink(name.data());
    throw_sys("fsync/close", name.data(), err);
  }
  if (::rename(name.data(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(name.data());
    throw_sys("rename", std::string(name.data()) + " -> " + path, err);
  }
}

}  // namespace rdmabench
