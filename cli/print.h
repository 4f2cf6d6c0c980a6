#pragma once
// Human-readable output: the devices table and the perftest-like result table.
#include <iosfwd>
#include <vector>

#include "model/result.h"
#include "verbs/device.h"

namespace rdmabench {

void print_devices(std::ostream& os, const std::vector<DeviceInfo>& devices);
void print_header(std::ostream& os, const Workload& w);
void print_size(std::ostream& os, const Workload& w, const SizeResult& r);
// One interval of a size while it runs (--interval).
void print_interval(std::ostream& os, const Workload& w, uint64_t size, const IntervalResult& iv);
void print_footer(std::ostream& os, const RunResult& r);

}  // namespace rdmabench
