#pragma once
// The gnuplot templates of plots/*.gp.in, compiled into the binary, and their filling.
#include <map>
#include <string>
#include <string_view>

namespace rdmabench {

// The text of plots/NAME.gp.in; throws std::logic_error for an unknown name.
std::string_view plot_template(std::string_view name);

// Replaces every @KEY@ in `text` with values.at("KEY"). Throws std::logic_error when the text
// names a key that has no value (a template and its caller disagree).
std::string fill_template(std::string_view text, const std::map<std::string, std::string>& values);

}  // namespace rdmabench
