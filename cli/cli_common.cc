#include "cli/cli_common.h"

#include <csignal>

#include "cli/exit_status.h"
#include "model/gid_option.h"
#include "model/workload_options.h"

namespace rdmabench {
namespace {

std::atomic<bool> g_stop{false};
void on_signal(int) { g_stop.store(true); }

}  // namespace

void add_local_options(CLI::App* app, LocalSettings& local, LocalArgs& args) {
  app->add_option("-d,--device,--ib-dev", local.device, "RDMA device (default: the first one)")
      ->type_name("DEV");
  app->add_option("-i,--ib-port", args.ib_port, "device port (default 1)")->type_name("PORT");
  app->add_option("-x,--gid-index", args.gid,
                  "GID index, or a GID or an IP address of the port (default: the RoCE v2 GID of "
                  "the port's IPv4 address; see --gid-type)")
      ->type_name("GID");
}

void apply_local(LocalSettings& local, const LocalArgs& args) {
  if (args.ib_port)
    local.port = static_cast<uint32_t>(parse_uint_option("ib-port", *args.ib_port, 1, 255));
  if (args.gid) {
    // An index, or a GID or an IP address resolved against the port's GID table at setup.
    const GidOption g = parse_gid_option("gid-index", *args.gid);
    if (g.index >= 0)
      local.gid_index = g.index;
    else
      local.gid = g.gid;
  }
}

const CLI::Validator& path_not_option() {
  static const CLI::Validator v(
      [](std::string& s) {
        return s.size() > 1 && s[0] == '-'
                   ? "a file name, not an option ('" + s + "'; write ./" + s + " for such a file)"
                   : std::string();
      },
      "", "path-not-option");
  return v;
}

void set_examples(CLI::App* sub, const std::string& text) {
  sub->footer("Examples:\n" + text + "\n" + exit_status_help());
}

std::atomic<bool>& stop_flag() { return g_stop; }

void stop_on_signals() {
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
}

}  // namespace rdmabench
