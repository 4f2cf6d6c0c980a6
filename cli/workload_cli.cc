#include "cli/workload_cli.h"

#include "model/workload_fields.h"

namespace rdmabench {
namespace {

// What --help and the manual show for a field's value.
std::string value_name(const WorkloadField& f) {
  switch (f.kind) {
    case FieldKind::kSizes:
      return "SIZES";
    case FieldKind::kCpus:
      return "CPUS";
    case FieldKind::kEnum:
      return "NAME";
    case FieldKind::kDouble:
      return f.unit == "seconds" ? "SEC" : f.unit == "microseconds" ? "USEC" : "X";
    case FieldKind::kUint:
      return f.byte_suffix ? "BYTES" : "N";
    default:
      return "N";
  }
}

}  // namespace

void add_workload_options(CLI::App* app, WorkloadArgs& args) {
  for (const WorkloadField& f : workload_fields()) {
    const std::string key(f.key);
    const std::string names(f.names);
    const std::string help(f.help);
    if (f.kind == FieldKind::kBool) {
      app->add_flag_callback(
          names, [&args, key] { args.text[key] = "true"; }, help);
    } else {
      app->add_option_function<std::string>(
             names, [&args, key](const std::string& v) { args.text[key] = v; }, help)
          ->type_name(value_name(f));
    }
    if (f.key == "sizes")
      app->add_flag("-a,--all", args.all_sizes, "all sizes 2 B .. 8 MiB in powers of two");
    if (f.key == "cq") app->add_flag("-e,--events", args.events, "same as --cq event");
    if (f.key == "connect")
      app->add_flag("-R,--rdma-cm,--rdma_cm", args.rdma_cm, "connect the QPs with rdma_cm");
  }
}

}  // namespace rdmabench
