// The order Store::Find promises its candidates in (store.h, Lookup), one
// definition for every backend.
#ifndef MW_STORE_RANK_H_
#define MW_STORE_RANK_H_

#include <algorithm>
#include <vector>

#include "store/store.h"

namespace mw::store {

// Exact copies first, then by shared index keys, then newest (ids only grow);
// stable, so equal candidates keep the order they were read in.
inline void SortCandidates(std::vector<Candidate>& candidates) {
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) {
                     if (a.exact != b.exact) return a.exact;
                     if (a.shared_keys != b.shared_keys) {
                       return a.shared_keys > b.shared_keys;
                     }
                     return a.id > b.id;
                   });
}

}  // namespace mw::store

#endif  // MW_STORE_RANK_H_
