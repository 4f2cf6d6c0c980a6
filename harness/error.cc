#include "harness/error.h"

#include <cstring>

namespace rdmabench {

SysError::SysError(const std::string& call, int err, const std::string& object)
    : Error(call + " failed on " + object + ": " + std::strerror(err) + " (errno " +
            std::to_string(err) + ")"),
      err_(err) {}

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
