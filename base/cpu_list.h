#pragma once
// CPU lists as the kernel's cpulist files and `taskset -c` write them: "0-3,8,10-11". One
// splitter for every reader (sysfs node lists, the workload's "cpus" field, a fabric's probe
// placement); each reader checks the numbers its own way.
#include <string>
#include <string_view>
#include <vector>

namespace rdmabench {

// One item of a list: a CPU ("8": first == last) or a range ("0-3"), as text. A leading '-' is
// part of the first number (a sign, which the readers refuse).
struct CpuListItem {
  std::string first;
  std::string last;
  std::string text;  // the item as written
};
// The items between the commas, in order ("" gives one empty item).
std::vector<CpuListItem> cpu_list_items(std::string_view text);

// "0-3,8,10-11" -> {0,1,2,3,8,10,11}; trailing newlines and spaces ignored, "" -> {}. Throws
// std::invalid_argument naming the list for a bad number, a range that runs downwards or a CPU
// above 65535.
std::vector<int> parse_cpu_list(const std::string& text);

}  // namespace rdmabench
