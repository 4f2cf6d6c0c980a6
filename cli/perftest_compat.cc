#include "cli/perftest_compat.h"

namespace rdmabench {

CLI::Option* add_perftest_compat(CLI::App* client, PerftestCompat& c) {
  const std::string group = "perftest compatibility (accepted, not needed)";
  client->add_flag("-F,--CPU-freq", c.cpu_freq, "perftest's -F: no CPU-frequency check to silence")
      ->group(group);
  client->add_flag("--report_gbits", c.report_gbits, "perftest's --report_gbits: Gb/s always")
      ->group(group);
  client
      ->add_flag("--out_json", c.out_json,
                 "perftest's --out_json: the result document into perftest_out.json")
      ->group(group);
  return client
      ->add_option("--out_json_file", c.out_json_file,
                   "perftest's --out_json_file: the result document into FILE (as --json FILE)")
      ->type_name("RESULT_FILE")
      ->group(group);
}

std::vector<std::string> perftest_compat_notes(const PerftestCompat& c) {
  std::vector<std::string> notes;
  if (c.cpu_freq)
    notes.emplace_back(
        "-F is not needed: rdmabench calibrates the TSC and checks its rate at "
        "the end of the run");
  if (c.report_gbits) notes.emplace_back("--report_gbits is not needed: bandwidth is in Gb/s");
  if (c.out_json || !c.out_json_file.empty())
    notes.emplace_back(
        "--out_json writes rdmabench's result document (results/SCHEMA.md), not "
        "perftest's JSON; --json FILE is the native spelling");
  return notes;
}

std::string perftest_json_file(const PerftestCompat& c, const std::string& json_file) {
  if (!json_file.empty()) return json_file;
  if (!c.out_json_file.empty()) return c.out_json_file;
  return c.out_json ? "perftest_out.json" : "";
}

}  // namespace rdmabench
