#pragma once
// The whitespace-separated data files of `rdmabench plot` (NAME.dat): '#' comment lines, then
// one block per series, blocks separated by two blank lines (gnuplot's `index`).
#include <string>
#include <vector>

namespace rdmabench {

// Shortest text that reads back as the same double; integers without a decimal point; NaN.
std::string format_number(double v);

struct DataBlock {
  std::string comment;  // "# index N: " is put in front
  std::vector<std::vector<double>> rows;
};

struct DataTable {
  std::vector<std::string> header;  // comment lines, without the leading "# "
  std::vector<DataBlock> blocks;
  std::string text() const;
};

}  // namespace rdmabench
