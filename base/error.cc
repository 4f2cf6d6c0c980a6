#include "base/error.h"

#include <cstring>

namespace rdmabench {

// Some providers return -errno (siw's post_send: -EINVAL): the text is the same either way.
SysError::SysError(const std::string& call, int err, const std::string& object)
    : Error(call + " failed on " + object + ": " + std::strerror(err < 0 ? -err : err) +
            " (errno " + std::to_string(err < 0 ? -err : err) + ")"),
      err_(err < 0 ? -err : err) {}

void throw_sys(const std::string& call, const std::string& object, int err) {
  throw SysError(call, err, object);
}

ConfigError::ConfigError(const std::string& field, const std::string& value,
                         const std::string& allowed)
    : Error("invalid " + field + " '" + value + "': " + allowed),
      field_(field),
      value_(value),
      allowed_(allowed) {}

}  // namespace rdmabench
