#pragma once
// `rdmabench plot`: figures from result documents.
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace rdmabench {

struct PlotOptions {
  std::vector<std::string> inputs;  // result folders or files
  std::string out_dir;              // "" = the first input folder (or the folder of the first file)
  std::string format = "png";       // png, svg or pdf
  std::string group_by;             // "" = automatic
  std::optional<std::string> point;  // "64", "4K": size of the latency CDF and histogram
};

struct Figure;

// Writes NAME.dat, NAME.gp and NAME.<format> of every figure into `out_dir` (which must exist),
// each atomically, rendering the images with `gnuplot` (see find_gnuplot). Returns the image
// paths.
std::vector<std::string> write_figures(const std::vector<Figure>& figures,
                                       const std::string& out_dir, const std::string& format,
                                       const std::string& gnuplot);

// Writes NAME.dat, NAME.gp and NAME.<format> per figure (see figures.h) into the output folder,
// each atomically, and returns the image paths. Everything is checked (inputs, options,
// gnuplot in PATH) before the first file is written. Notes go to `notes`.
std::vector<std::string> run_plot(const PlotOptions& opt, std::ostream& notes);

}  // namespace rdmabench
