#include "orchestrator/search/sampling.h"

#include <cmath>
#include <utility>

namespace rdmabench {

double SampleRng::unit() { return static_cast<double>(gen_() >> 11) * 0x1.0p-53; }

uint64_t SampleRng::below(uint64_t n) {
  if (n <= 1) return 0;
  // Largest multiple of n representable; draws at or above it are rejected.
  const uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  for (;;) {
    const uint64_t x = gen_();
    if (x < limit) return x % n;
  }
}

std::vector<double> random_point(size_t dims, SampleRng& rng) {
  std::vector<double> p(dims);
  for (auto& x : p) x = rng.unit();
  return p;
}

std::vector<std::vector<double>> latin_hypercube(size_t n, size_t dims, SampleRng& rng) {
  std::vector<std::vector<double>> rows(n, std::vector<double>(dims));
  std::vector<size_t> perm(n);
  for (size_t d = 0; d < dims; ++d) {
    for (size_t i = 0; i < n; ++i) perm[i] = i;
    for (size_t i = n; i > 1; --i) std::swap(perm[i - 1], perm[rng.below(i)]);  // Fisher-Yates
    for (size_t i = 0; i < n; ++i) {
      const size_t k = perm[i];
      double u = (static_cast<double>(k) + rng.unit()) / static_cast<double>(n);
      // Rounding can put (k + r) / n on a stratum boundary: nudge it back inside stratum k.
      while (stratum(u, n) > k) u = std::nextafter(u, 0.0);
      while (stratum(u, n) < k) u = std::nextafter(u, 1.0);
      rows[i][d] = u;
    }
  }
  return rows;
}

size_t stratum(double u, size_t n) {
  if (n == 0 || !(u > 0)) return 0;
  const double k = u * static_cast<double>(n);
  if (k >= static_cast<double>(n)) return n - 1;
  return static_cast<size_t>(k);
}

}  // namespace rdmabench
