#pragma once
// Sampling the unit hypercube [0,1)^d for a campaign's `search` block: plain random sampling and
// Latin-hypercube sampling (LHS), from a seed. Pure functions over an explicit generator, so the
// same seed gives the same points on every machine: the generator is std::mt19937_64 (its output
// sequence is fixed by the C++ standard) and the conversions to [0,1) and to a bounded index are
// written here instead of using the standard distributions, whose algorithms are left to each
// library.
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace rdmabench {

class SampleRng {
 public:
  explicit SampleRng(uint64_t seed) : gen_(seed) {}
  // Uniform in [0, 1): the top 53 bits of one draw.
  double unit();
  // Uniform in [0, n) without modulo bias (rejection); n >= 1.
  uint64_t below(uint64_t n);

 private:
  std::mt19937_64 gen_;
};

// One point: `dims` independent uniform coordinates in [0, 1).
std::vector<double> random_point(size_t dims, SampleRng& rng);

// `n` points of a Latin hypercube in [0,1)^dims: for every dimension, each of the n strata
// [k/n, (k+1)/n) holds exactly one point's coordinate (a random permutation of the strata per
// dimension, a uniform position inside each stratum). Returns n rows of `dims` coordinates.
std::vector<std::vector<double>> latin_hypercube(size_t n, size_t dims, SampleRng& rng);

// The stratum k of `u` among n equal strata of [0, 1): floor(u * n), clamped to n - 1. Also maps
// a coordinate to one of n discrete values.
size_t stratum(double u, size_t n);

}  // namespace rdmabench
