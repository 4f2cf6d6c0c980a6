#pragma once
// Helpers shared by the unit tests.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <exception>
#include <functional>
#include <optional>
#include <string>

#include "base/error.h"

namespace rdmabench::testutil {

// Runs `f` and returns the ConfigError it throws. Another exception, or none, is a test failure
// (and gives an error whose field names what happened instead).
inline ConfigError catch_config_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected ConfigError, got another exception: " << e.what();
    return ConfigError("<wrong exception>", "", "");
  }
  ADD_FAILURE() << "expected ConfigError, nothing was thrown";
  return ConfigError("<no exception>", "", "");
}

// Sets (value), unsets (nullptr) or only keeps (no value) an environment variable, and puts its
// old value back at the end of the scope.
class ScopedEnv {
 public:
  explicit ScopedEnv(const char* name) : name_(name) {
    if (const char* old = getenv(name)) old_ = old;
  }
  ScopedEnv(const char* name, const char* value) : ScopedEnv(name) {
    if (value != nullptr)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_.c_str(), old_->c_str(), 1);
    else
      unsetenv(name_.c_str());
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

}  // namespace rdmabench::testutil
