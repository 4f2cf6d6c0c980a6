#pragma once
// Reading what the two ends of a run printed, shared by a single point (point_runner.h) and a
// fabric round (round_runner.h): the server's ready line and the endpoint it announces, and the
// verdict on a client that exited (its result document, or why there is none or it failed).
#include <nlohmann/json.hpp>
#include <string>

#include "orchestrator/launch/launcher.h"
#include "orchestrator/launch/result_brief.h"

namespace rdmabench {

// The JSON of the server's ready line in `out`, or null while it has not arrived whole.
nlohmann::json find_ready(const std::string& out);

// Where the client connects: `connect_address` (when set) or the ready line's address, and the
// ready line's port. `error` is set (naming `host`) when the ready line lacks what is needed.
struct Endpoint {
  std::string address;
  std::string port;
  std::string error;
};
Endpoint server_endpoint(const nlohmann::json& ready, const std::string& connect_address,
                         const std::string& host);

// Why a server that exited before its ready line did so (naming `host`).
std::string server_exit_reason(Job& server, const std::string& host);

// The verdict on a client that exited: "" when it succeeded; else why it failed. `brief` is what
// its result document says (its agent's brief, or made here from its output); `brief.document`
// is false when it printed none.
std::string judge_client(Job& client, const std::string& host, ResultBrief& brief);

// A failed run's error: why, then the end of each end's stderr (naming its host).
std::string failure_text(const std::string& why, const std::string& server_host,
                         const std::string& server_log, const std::string& client_host,
                         const std::string& client_log);

// The end of a text (at most `max_chars`), without trailing blanks: for error messages.
std::string tail(const std::string& text, size_t max_chars = 1500);
// "%g" of seconds.
std::string seconds_text(double s);

}  // namespace rdmabench
