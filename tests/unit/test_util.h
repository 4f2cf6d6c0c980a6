#pragma once
// Helpers shared by the unit tests.
#include <gtest/gtest.h>

#include <exception>
#include <functional>

#include "harness/error.h"

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

}  // namespace rdmabench::testutil
