#pragma once
// Wall-clock time stamps in results, indexes and reports.
#include <string>

namespace rdmabench {

// The current UTC time as ISO 8601 with seconds, e.g. "2026-11-23T00:31:02Z".
std::string utc_now();

// CLOCK_REALTIME as Unix seconds (sub-microsecond resolution in a double).
double realtime_unix_s();

}  // namespace rdmabench
