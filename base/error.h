#pragma once
// Exceptions used across rdmabench. Each carries enough to print one clear message:
// the failing verb and errno text with the object it acted on, the configuration field with
// its value and what is allowed, or the phase in which a peer or a completion failed.
#include <cerrno>
#include <stdexcept>
#include <string>
#include <utility>

namespace rdmabench {

// Base class: everything rdmabench throws on purpose.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A verbs / rdma_cm / system call failed.
class SysError : public Error {
 public:
  // `call` is the function that failed (e.g. "ibv_create_qp"), `object` what it acted on.
  SysError(const std::string& call, int err, const std::string& object);
  int err() const noexcept { return err_; }

 private:
  int err_;
};

// Convenience: throw SysError with the current errno (or `rc` when the call returned -errno/errno).
[[noreturn]] void throw_sys(const std::string& call, const std::string& object, int err = errno);

// A configuration value is invalid. Names the field, the value and what is allowed.
class ConfigError : public Error {
 public:
  ConfigError(const std::string& field, const std::string& value, const std::string& allowed);
  const std::string& field() const noexcept { return field_; }
  const std::string& value() const noexcept { return value_; }
  const std::string& allowed() const noexcept { return allowed_; }

 private:
  std::string field_;
  std::string value_;
  std::string allowed_;
};

// A work completion came back with an error status.
class CompletionError : public Error {
 public:
  using Error::Error;
};

// Waiting for the peer or for completions took longer than allowed.
class TimeoutError : public Error {
 public:
  using Error::Error;
};

// The peer closed the connection, sent garbage, or reported an error.
class PeerError : public Error {
 public:
  using Error::Error;
};

// The peer said why it stopped (its "error" message), with a code for what kind of refusal it
// was: "busy" (the server runs as many sessions as it may), "refused" (it will not run this
// workload or this client: token, device), or "" (it failed).
class PeerReportedError : public PeerError {
 public:
  PeerReportedError(const std::string& what, std::string code)
      : PeerError(what), code_(std::move(code)) {}
  const std::string& code() const noexcept { return code_; }

 private:
  std::string code_;
};

}  // namespace rdmabench
