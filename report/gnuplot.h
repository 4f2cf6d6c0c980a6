#pragma once
// Running gnuplot as a child process (fork/exec, no shell).
#include <string>
#include <vector>

namespace rdmabench {

// The gnuplot executable found in PATH; throws Error("gnuplot not found in PATH; install
// gnuplot-nox") when there is none.
std::string find_gnuplot();

// Runs `gnuplot args...` in directory `dir` and waits for it. Throws Error with gnuplot's exit
// status and its stderr when it fails.
void run_gnuplot(const std::string& gnuplot, const std::string& dir,
                 const std::vector<std::string>& args);

}  // namespace rdmabench
