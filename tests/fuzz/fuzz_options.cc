// libFuzzer target: the command-line option parser (build_workload, parse_size_list,
// parse_size, parse_uint_option, parse_seconds_option). Input format: fuzz_targets.h.
#include "tests/fuzz/fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  rdmabench::fuzz::run_options(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
