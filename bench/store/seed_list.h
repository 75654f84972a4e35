// The --redis-cluster value of the store benches: "SEED,SEED,..." split at
// the commas, every item kept (an empty one then fails at OpenRedis, which
// names it, rather than vanishing).
#ifndef MW_BENCH_STORE_SEED_LIST_H_
#define MW_BENCH_STORE_SEED_LIST_H_

#include <algorithm>
#include <string>
#include <vector>

namespace mw::bench {

inline std::vector<std::string> SeedList(const std::string& list) {
  std::vector<std::string> seeds;
  for (std::size_t at = 0; at <= list.size();) {
    const std::size_t comma = std::min(list.find(',', at), list.size());
    seeds.push_back(list.substr(at, comma - at));
    at = comma + 1;
  }
  return seeds;
}

}  // namespace mw::bench

#endif  // MW_BENCH_STORE_SEED_LIST_H_
