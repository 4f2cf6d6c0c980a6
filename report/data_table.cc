#include "report/data_table.h"

#include <cmath>
#include <nlohmann/json.hpp>

namespace rdmabench {

std::string format_number(double v) {
  if (std::isnan(v)) return "NaN";  // gnuplot skips it
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15)
    return std::to_string(static_cast<long long>(v));
  return nlohmann::json(v).dump();  // shortest round-trip representation
}

std::string DataTable::text() const {
  std::string out;
  for (const auto& h : header) out += "# " + h + "\n";
  for (size_t i = 0; i < blocks.size(); ++i) {
    if (i > 0) out += "\n\n";
    out += "# index " + std::to_string(i) + ": " + blocks[i].comment + "\n";
    for (const auto& row : blocks[i].rows) {
      for (size_t c = 0; c < row.size(); ++c) {  // (not " " + std::string: GCC 12 -Wrestrict)
        if (c > 0) out += ' ';
        out += format_number(row[c]);
      }
      out += "\n";
    }
  }
  return out;
}

}  // namespace rdmabench
