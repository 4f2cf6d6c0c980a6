#include "orchestrator/host_env.h"

#include <ctime>

#include "harness/error.h"
#include "harness/utc_time.h"
#include "harness/version.h"
#include "orchestrator/shell_quote.h"

namespace rdmabench {
namespace {

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  size_t b = 0;
  while (b < s.size() && (s[b] == '\n' || s[b] == ' ')) ++b;
  return s.substr(b);
}

std::string last_lines(const std::string& text, size_t max_chars = 600) {
  std::string t = trim(text);
  return t.size() <= max_chars ? t : "..." + t.substr(t.size() - max_chars);
}

}  // namespace

std::string check_host(Launcher& l, const std::string& rdmabench, double timeout_s) {
  l.connect();
  const std::vector<std::string> argv = {rdmabench, "--version"};
  CommandOutput r;
  try {
    r = l.run(argv, timeout_s);
  } catch (const Error& e) {
    throw Error(l.host() + ": " + e.what());
  }
  const std::string cmd = shell_join(argv);
  if (r.timed_out)
    throw Error(l.host() + ": '" + cmd + "' did not finish within " +
                std::to_string(int(timeout_s)) + " s");
  if (r.status != 0) {
    std::string why = last_lines(r.err.empty() ? r.out : r.err);
    throw Error(l.host() + ": '" + cmd + "' failed (exit status " + std::to_string(r.status) + ")" +
                (r.status == 255 && std::string(l.kind()) == "ssh" ? " (ssh)" : "") +
                (why.empty() ? "" : ": " + why));
  }
  std::string v = trim(r.out);
  if (v.rfind("rdmabench ", 0) != 0)
    throw Error(l.host() + ": '" + cmd + "' is not rdmabench (it printed '" + last_lines(v, 120) +
                "')");
  // One version everywhere: the session protocol and the result documents follow it.
  const std::string mine = std::string("rdmabench ") + kVersion;
  if (v != mine)
    throw Error(l.host() + ": '" + cmd + "' is " + last_lines(v, 120) + ", this controller is " +
                mine + ": install the same version on every host");
  return v;
}

nlohmann::json capture_host_env(Launcher& l, const std::string& rdmabench, double timeout_s) {
  nlohmann::json env = {{"host", l.host()}, {"rdmabench", rdmabench}, {"captured_at", utc_now()}};
  auto run = [&](const std::vector<std::string>& argv) -> CommandOutput {
    try {
      return l.run(argv, timeout_s);
    } catch (const std::exception& e) {
      CommandOutput r;
      r.status = 127;
      r.err = e.what();
      return r;
    }
  };
  CommandOutput v = run({rdmabench, "--version"});
  env["rdmabench_version"] = v.status == 0 ? nlohmann::json(trim(v.out)) : nlohmann::json(nullptr);
  CommandOutput u = run({"uname", "-a"});
  env["kernel"] = u.status == 0 ? nlohmann::json(trim(u.out)) : nlohmann::json(nullptr);
  CommandOutput d = run({"dpkg-query", "-W", "-f=${Version}", "rdma-core"});
  if (d.status != 0) d = run({"rpm", "-q", "--qf", "%{VERSION}-%{RELEASE}", "rdma-core"});
  env["rdma_core"] =
      d.status == 0 && !trim(d.out).empty() ? nlohmann::json(trim(d.out)) : nlohmann::json(nullptr);
  CommandOutput n = run({"nproc"});
  const std::string cpus = trim(n.out);
  env["cpus"] = n.status == 0 && !cpus.empty() && cpus.size() < 7 &&
                        cpus.find_first_not_of("0123456789") == std::string::npos
                    ? nlohmann::json(std::stoul(cpus))
                    : nlohmann::json(nullptr);
  CommandOutput dev = run({rdmabench, "devices", "--json"});
  nlohmann::json devices = nlohmann::json::parse(dev.out, nullptr, false);
  if (dev.status == 0 && !devices.is_discarded()) {
    env["devices"] = devices;
  } else {
    env["devices"] = nullptr;
    env["devices_error"] = "exit status " + std::to_string(dev.status) + ": " + last_lines(dev.err);
  }
  return env;
}

}  // namespace rdmabench
