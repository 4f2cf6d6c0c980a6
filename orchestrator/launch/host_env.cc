#include "orchestrator/launch/host_env.h"

#include <ctime>
#include <map>
#include <sstream>

#include "base/error.h"
#include "base/utc_time.h"
#include "base/version.h"
#include "orchestrator/launch/shell_quote.h"

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

namespace {

// One command gathers everything (a single ssh round trip or Slurm step per host, not one per
// item): each item's output, then a line "@@rdmabench-env NAME STATUS" (after a newline, as an
// item's output may lack one). $1 is the host's rdmabench.
constexpr const char* kEnvTag = "\n@@rdmabench-env ";
const char* const kEnvScript =
    "m() { printf '\\n@@rdmabench-env %s %s\\n' \"$1\" \"$2\"; }\n"
    "\"$1\" --version; m version $?\n"
    "uname -a; m kernel $?\n"
    "dpkg-query -W -f='${Version}' rdma-core 2>/dev/null ||\n"
    "  rpm -q --qf '%{VERSION}-%{RELEASE}' rdma-core 2>/dev/null; m rdma_core $?\n"
    "nproc; m cpus $?\n"
    "\"$1\" devices --json; m devices $?\n";

struct EnvItem {
  int status = -1;  // -1: the item's line never came
  std::string text;
};

std::map<std::string, EnvItem> parse_env_items(const std::string& out) {
  std::map<std::string, EnvItem> items;
  const std::string tag = kEnvTag;
  size_t begin = 0;
  for (size_t at = out.find(tag); at != std::string::npos; at = out.find(tag, begin)) {
    const size_t line = at + tag.size();
    const size_t end = out.find('\n', line);
    if (end == std::string::npos) break;
    std::istringstream words(out.substr(line, end - line));
    std::string name;
    int status = -1;
    if (words >> name >> status) items[name] = {status, trim(out.substr(begin, at - begin))};
    begin = end + 1;
  }
  return items;
}

}  // namespace

std::vector<std::string> host_env_argv(const std::string& rdmabench) {
  return {"sh", "-c", kEnvScript, "rdmabench-env", rdmabench};
}

nlohmann::json host_env_members(const CommandOutput& r) {
  nlohmann::json env = nlohmann::json::object();
  const auto items = parse_env_items(r.out);
  auto text = [&](const char* name) -> nlohmann::json {
    auto it = items.find(name);
    return it != items.end() && it->second.status == 0 && !it->second.text.empty()
               ? nlohmann::json(it->second.text)
               : nlohmann::json(nullptr);
  };
  env["rdmabench_version"] = text("version");
  env["kernel"] = text("kernel");
  env["rdma_core"] = text("rdma_core");
  const nlohmann::json cpus = text("cpus");
  const std::string c = cpus.is_string() ? cpus.get<std::string>() : "";
  env["cpus"] = !c.empty() && c.size() < 7 && c.find_first_not_of("0123456789") == std::string::npos
                    ? nlohmann::json(std::stoul(c))
                    : nlohmann::json(nullptr);
  auto dev = items.find("devices");
  nlohmann::json devices = dev != items.end()
                               ? nlohmann::json::parse(dev->second.text, nullptr, false)
                               : nlohmann::json(nlohmann::json::value_t::discarded);
  if (dev != items.end() && dev->second.status == 0 && !devices.is_discarded()) {
    env["devices"] = devices;
  } else {
    env["devices"] = nullptr;
    const int status = dev != items.end() ? dev->second.status : r.status;
    env["devices_error"] = "exit status " + std::to_string(status) + ": " + last_lines(r.err);
  }
  return env;
}

nlohmann::json capture_host_env(Launcher& l, const std::string& rdmabench, double timeout_s) {
  nlohmann::json env = {{"host", l.host()}, {"rdmabench", rdmabench}, {"captured_at", utc_now()}};
  CommandOutput r;
  try {
    r = l.run(host_env_argv(rdmabench), timeout_s);
  } catch (const std::exception& e) {
    r.status = 127;
    r.err = e.what();
  }
  env.update(host_env_members(r));
  return env;
}

}  // namespace rdmabench
