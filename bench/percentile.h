// The quantile every benchmark reports its latencies with, one definition.
#ifndef MW_BENCH_PERCENTILE_H_
#define MW_BENCH_PERCENTILE_H_

#include <algorithm>
#include <cstddef>
#include <vector>

namespace mw::bench {

// The p-quantile (0 <= p <= 1) of `sorted` (ascending): the element at index
// floor(p * n), the largest for p = 1; 0 when it is empty.
inline double PercentileOfSorted(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  const std::size_t i = std::min(
      sorted.size() - 1,
      static_cast<std::size_t>(p * static_cast<double>(sorted.size())));
  return sorted[i];
}

// The same of `v` in any order.
inline double Percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return PercentileOfSorted(v, p);
}

}  // namespace mw::bench

#endif  // MW_BENCH_PERCENTILE_H_
