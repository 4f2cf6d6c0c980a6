#include "orchestrator/launch/job_output.h"

#include <cstdio>

#include "base/error.h"
#include "model/result.h"

namespace rdmabench {
namespace {

constexpr const char* kReadyTag = "RDMABENCH_SERVER_READY ";

std::string last_line(const std::string& text) {
  std::string t = tail(text, 100000);
  size_t nl = t.rfind('\n');
  return nl == std::string::npos ? t : t.substr(nl + 1);
}

std::string with_reason(std::string what, const std::string& err) {
  const std::string why = last_line(err);
  return why.empty() ? what : what + ": " + why;
}

}  // namespace

std::string tail(const std::string& text, size_t max_chars) {
  std::string t = text;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  if (t.size() > max_chars) t = "..." + t.substr(t.size() - max_chars);
  return t;
}

nlohmann::json find_ready(const std::string& out) {
  size_t pos = 0;
  while ((pos = out.find(kReadyTag, pos)) != std::string::npos) {
    if (pos == 0 || out[pos - 1] == '\n') {
      size_t end = out.find('\n', pos);
      if (end == std::string::npos) return nullptr;  // not complete yet
      size_t start = pos + std::char_traits<char>::length(kReadyTag);
      nlohmann::json j = nlohmann::json::parse(out.substr(start, end - start), nullptr, false);
      if (!j.is_discarded() && j.is_object()) return j;
    }
    ++pos;
  }
  return nullptr;
}

Endpoint server_endpoint(const nlohmann::json& ready, const std::string& connect_address,
                         const std::string& host) {
  Endpoint e;
  if (!ready.contains("port") || !ready["port"].is_number_unsigned()) {
    e.error = "the server on " + host + " announced no port: " + ready.dump();
    return e;
  }
  e.port = std::to_string(ready["port"].get<uint64_t>());
  e.address = connect_address;
  if (e.address.empty()) {
    if (!ready.contains("address") || !ready["address"].is_string() ||
        ready["address"].get<std::string>().empty())
      e.error =
          "the server on " + host + " announced no address (set connect_address): " + ready.dump();
    else
      e.address = ready["address"].get<std::string>();
  }
  return e;
}

std::string server_exit_reason(Job& server, const std::string& host) {
  return with_reason(
      "the server on " + host + " exited before it was ready (" + server.status_text() + ")",
      server.err());
}

std::string judge_client(Job& client, const std::string& host, ResultBrief& brief) {
  const std::string status = client.status_text();
  brief = client.brief() != nullptr ? *client.brief() : brief_of_output(client.out());
  if (!brief.document)
    return with_reason("the client on " + host + " failed (" + status + ")", client.err());
  if (!brief.invalid.empty()) return "the client's result document is invalid: " + brief.invalid;
  if (!brief.error.empty()) return "the run failed (" + status + "): " + brief.error;
  if (client.status() != 0) return "the client on " + host + " failed (" + status + ")";
  return "";
}

std::string failure_text(const std::string& why, const std::string& server_host,
                         const std::string& server_log, const std::string& client_host,
                         const std::string& client_log) {
  std::string e = why;
  if (!tail(server_log).empty())
    e += "\n--- server stderr (" + server_host + ") ---\n" + tail(server_log);
  if (!tail(client_log).empty())
    e += "\n--- client stderr (" + client_host + ") ---\n" + tail(client_log);
  return e;
}

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}

}  // namespace rdmabench
